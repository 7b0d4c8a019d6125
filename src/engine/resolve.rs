//! Path resolution, stepping into strings that hold JSON.
//!
//! Tool outputs are usually JSON documents serialized into a string. When a path step meets such
//! a string (its first non-blank character is `{` or `[`, and it parses), the engine parses it and
//! continues inside. Each string is parsed at most once per run: the cache is keyed by the
//! string's address, which is stable because the calls are borrowed for the whole run and parsed
//! documents are kept alive by the cache itself until the run ends. (So only values that live as
//! long as the cache may be resolved: never a temporary, whose address could be reused.)

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use crate::config::PathSeg;
use crate::transcript::field;

/// Parsed JSON strings of one run.
#[derive(Default)]
pub(crate) struct ParseCache {
    parsed: RefCell<HashMap<usize, Option<Rc<Value>>>>,
}

impl ParseCache {
    /// The JSON document held by `s`, if it holds an object or array.
    pub(crate) fn parse(&self, s: &String) -> Option<Rc<Value>> {
        let key = std::ptr::from_ref::<String>(s) as usize;
        if let Some(hit) = self.parsed.borrow().get(&key) {
            return hit.clone();
        }
        let doc = parse_document(s).map(Rc::new);
        self.parsed.borrow_mut().insert(key, doc.clone());
        doc
    }

    /// `v`, or the document it holds when it is a string holding JSON.
    pub(crate) fn document<'v>(&self, v: &'v Value) -> Cow<'v, Value> {
        match v {
            Value::String(s) => match self.parse(s) {
                Some(doc) => Cow::Owned((*doc).clone()),
                None => Cow::Borrowed(v),
            },
            _ => Cow::Borrowed(v),
        }
    }

    /// The value at `path` inside `root`, or `None` when the path does not exist.
    pub(crate) fn resolve<'v>(&self, root: &'v Value, path: &[PathSeg]) -> Option<Cow<'v, Value>> {
        let mut cur = root;
        for (at, seg) in path.iter().enumerate() {
            cur = match cur {
                Value::String(s) => {
                    let doc = self.parse(s)?;
                    let inner = self.resolve(&doc, &path[at..])?;
                    return Some(Cow::Owned(inner.into_owned()));
                }
                _ => step(cur, seg)?,
            };
        }
        Some(Cow::Borrowed(cur))
    }
}

/// One step of a path inside an object or array (`None` for any other value, and for `[*]`,
/// which names no single value: see `refs.rs`).
pub(crate) fn step<'v>(cur: &'v Value, seg: &PathSeg) -> Option<&'v Value> {
    match (cur, seg) {
        (Value::Object(m), PathSeg::Key(k)) => field(m, k),
        (Value::Object(m), PathSeg::Index(i)) => field(m, &i.to_string()),
        (Value::Array(a), PathSeg::Index(i)) => a.get(*i),
        (Value::Array(a), PathSeg::Key(k)) => a.get(k.parse::<usize>().ok()?),
        _ => None,
    }
}

/// The JSON document a string holds, if it holds an object or an array.
pub(crate) fn parse_document(s: &str) -> Option<Value> {
    if s.trim_start().starts_with(['{', '[']) {
        serde_json::from_str::<Value>(s).ok()
    } else {
        None
    }
}

/// A path as a person writes it: `items[0].sku`, `["odd key"]`.
pub(crate) fn display_path(path: &[PathSeg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            PathSeg::Index(i) => out.push_str(&format!("[{i}]")),
            PathSeg::Each => out.push_str("[*]"),
            PathSeg::Key(k) if super::json::is_plain_key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            PathSeg::Key(k) => out.push_str(&format!("[{}]", Value::String(k.clone()))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(segs: &[&str]) -> Vec<PathSeg> {
        segs.iter()
            .map(|s| match s.parse::<usize>() {
                Ok(i) => PathSeg::Index(i),
                Err(_) => PathSeg::Key((*s).into()),
            })
            .collect()
    }

    #[test]
    fn steps_into_json_strings_and_parses_once() {
        let cache = ParseCache::default();
        let inner = json!({"order": {"id": "ORD-7", "lines": [1, 2]}}).to_string();
        let v = json!({"content": inner});
        let got = cache.resolve(&v, &p(&["content", "order", "id"])).unwrap();
        assert_eq!(*got, json!("ORD-7"));
        let got = cache
            .resolve(&v, &p(&["content", "order", "lines", "1"]))
            .unwrap();
        assert_eq!(*got, json!(2));
        assert_eq!(cache.parsed.borrow().len(), 1);
        assert!(cache.resolve(&v, &p(&["content", "nope"])).is_none());
        // A string that is not JSON is a leaf.
        let plain = json!({"a": "plain"});
        assert!(cache.resolve(&plain, &p(&["a", "b"])).is_none());
        // Nested: JSON inside JSON inside a string.
        let twice = json!({"x": json!({"y": json!({"z": 1}).to_string()}).to_string()});
        assert_eq!(
            *cache.resolve(&twice, &p(&["x", "y", "z"])).unwrap(),
            json!(1)
        );
    }

    #[test]
    fn paths_display_as_written() {
        assert_eq!(display_path(&p(&["items", "0", "sku"])), "items[0].sku");
        assert_eq!(display_path(&[PathSeg::Key("a b".into())]), r#"["a b"]"#);
        assert_eq!(display_path(&[]), "");
    }
}
