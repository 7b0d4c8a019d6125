//! Path resolution, stepping into strings that hold JSON.
//!
//! Tool outputs are usually JSON documents serialized into a string. When a path step meets such
//! a string (its first non-blank character is `{` or `[`, and it parses), the path goes on inside
//! it: the string's text is read along the path, and only the value at its end is built
//! ([`super::text_path`]; a 23 MB output is not built whole to read one field of it). What one
//! string gives at one path is kept for the run, keyed by the string's address, which is stable
//! because the calls are borrowed for the whole run (so only values that live as long as the
//! cache may be resolved: never a temporary, whose address could be reused). A whole document is
//! parsed only where a check needs all of it (an object's keys, a comparison with a structured
//! value), once per string. Everything a run builds from strings draws on one budget
//! ([`PARSED_BUDGET`]): past it, a string is left as the text it is.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use crate::config::PathSeg;
use crate::json::budget::{self, Meter};
use crate::transcript::{field, PARSED_BUDGET};

use super::text_path::{self, follow};

/// The value found at a path inside a string, by the string's address and the path.
type Found = RefCell<HashMap<(usize, Vec<PathSeg>), Option<Rc<Value>>>>;

/// Values parsed from JSON strings in one run.
pub(crate) struct ParseCache {
    /// What the run may still build from strings.
    meter: Meter,
    /// Whole documents, by the string's address.
    parsed: RefCell<HashMap<usize, Option<Rc<Value>>>>,
    /// The value at a path inside a string.
    found: Found,
}

impl Default for ParseCache {
    fn default() -> Self {
        ParseCache {
            meter: Meter::new(PARSED_BUDGET),
            parsed: RefCell::default(),
            found: RefCell::default(),
        }
    }
}

impl ParseCache {
    /// The budget values built from strings draw on.
    pub(crate) fn meter(&self) -> &Meter {
        &self.meter
    }

    /// The JSON document held by `s`, if it holds an object or array (and it fits what is left
    /// of the run's budget).
    pub(crate) fn parse(&self, s: &String) -> Option<Rc<Value>> {
        let key = std::ptr::from_ref::<String>(s) as usize;
        if let Some(hit) = self.parsed.borrow().get(&key) {
            return hit.clone();
        }
        let doc = holds_document(s)
            .then(|| budget::from_str_metered(s, &self.meter).ok())
            .flatten()
            .map(Rc::new);
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
                Value::String(s) => return self.inside(s, &path[at..]).map(Cow::Owned),
                _ => step(cur, seg)?,
            };
        }
        Some(Cow::Borrowed(cur))
    }

    /// The value at `path` (not empty) inside the JSON text of `s`.
    fn inside(&self, s: &String, path: &[PathSeg]) -> Option<Value> {
        let addr = std::ptr::from_ref::<String>(s) as usize;
        if let Some(Some(doc)) = self.parsed.borrow().get(&addr) {
            // Already parsed whole: read it there.
            return self.resolve(doc, path).map(Cow::into_owned);
        }
        let key = (addr, path.to_vec());
        if let Some(hit) = self.found.borrow().get(&key) {
            return hit.as_deref().cloned();
        }
        let got = match follow(s, path, &self.meter, None) {
            text_path::Found::Value(v) => Some(Rc::new(v)),
            _ => None,
        };
        let out = got.as_deref().cloned();
        self.found.borrow_mut().insert(key, got);
        out
    }
}

/// Whether `s` may hold a JSON document (an object or an array): the engine's paths step into
/// such strings.
pub(crate) fn holds_document(s: &str) -> bool {
    s.trim_start().starts_with(['{', '['])
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
        // Each path read once from the text, the document never parsed whole.
        assert_eq!(cache.found.borrow().len(), 2);
        assert!(cache.parsed.borrow().is_empty());
        assert!(cache.resolve(&v, &p(&["content", "nope"])).is_none());
        // Once a check has parsed the document whole, paths are read there.
        assert!(matches!(cache.document(&v["content"]), Cow::Owned(_)));
        assert_eq!(
            *cache
                .resolve(&v, &p(&["content", "order", "lines", "0"]))
                .unwrap(),
            json!(1)
        );
        assert_eq!(cache.found.borrow().len(), 3);
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
