//! Paths followed through JSON text, building only what they name.
//!
//! A tool output is usually a JSON document serialized into a string, and a reference or a
//! check names one path inside it (`search.output.flights[*].id`). Parsing the whole document
//! first costs the whole document as values (a 23 MB output took 1 GB); here the text is read
//! once, in order, and everything off the path is skipped as it is read (serde's `IgnoredAny`:
//! nothing allocated). Only the value at the path's end is built, drawing on a memory budget
//! ([`Meter`]); a `[*]` hands each element's value to a [`Collector`], which may stop taking
//! them (its own bounds), and the rest of the array is then skipped. A string met before the
//! path's end that holds JSON is followed in turn, as the engine's paths step into such strings
//! everywhere (`resolve.rs`).
//!
//! Duplicate keys resolve as serde_json resolves them (the last one wins).

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::config::PathSeg;
use crate::json::budget::{Meter, Seed};

use super::resolve::holds_document;

/// Takes the values a path with `[*]` reaches, within its own bounds.
pub(crate) trait Collector {
    /// An element of a `[*]` is about to be followed: count it, and say whether to (`false`:
    /// the collection is full, the rest is skipped).
    fn visit(&mut self) -> bool;
    /// A value at the path's end.
    fn take(&mut self, v: &Value);
}

/// What following a path found.
#[derive(Debug)]
pub(crate) enum Found {
    /// The path does not exist (or the text is not JSON, or a value was past the budget).
    Missing,
    /// The value at the path's end (a path without `[*]`).
    Value(Value),
    /// At a `[*]`, something that is not an array (its value).
    NotList(Value),
    /// At a `[*]`, an array: its elements were handed to the collector.
    List,
    /// An element the collector did not take (it is full): skipped.
    Full,
}

/// Follow `path` through `text` (a string holding JSON). Without a `[*]` in `path`, the value
/// at its end; with one, each value it reaches goes to `out` (which may be `None` when `path`
/// has no `[*]`).
pub(crate) fn follow<'a>(
    text: &str,
    path: &'a [PathSeg],
    meter: &Meter,
    out: Option<&'a mut dyn Collector>,
) -> Found {
    let mut de = serde_json::Deserializer::from_str(text);
    let walk = Walk {
        path,
        meter,
        out,
        element: false,
    };
    match walk.deserialize(&mut de) {
        Ok(found) if de.end().is_ok() => found,
        _ => Found::Missing,
    }
}

struct Walk<'a, 'm> {
    path: &'a [PathSeg],
    meter: &'m Meter,
    out: Option<&'a mut dyn Collector>,
    /// An element of a `[*]`: the collector counts it first, and may refuse it.
    element: bool,
}

impl<'de> DeserializeSeed<'de> for Walk<'_, '_> {
    type Value = Found;

    fn deserialize<D: Deserializer<'de>>(mut self, d: D) -> Result<Found, D::Error> {
        if self.element && !self.out.as_deref_mut().is_none_or(Collector::visit) {
            <IgnoredAny as serde::Deserialize>::deserialize(d)?;
            return Ok(Found::Full);
        }
        if self.path.is_empty() {
            return Seed(self.meter).deserialize(d).map(Found::Value);
        }
        d.deserialize_any(self)
    }
}

impl<'m> Walk<'_, 'm> {
    /// The walk of the rest of the path, past its first step (`element`: of each element of
    /// an array at a `[*]`).
    fn next(&mut self, element: bool) -> Walk<'_, 'm> {
        Walk {
            path: &self.path[1..],
            meter: self.meter,
            out: self.out.as_deref_mut().map(|o| o as &mut dyn Collector),
            element,
        }
    }

    /// The key of an object this step names, if any.
    fn key(&self) -> Option<String> {
        match &self.path[0] {
            PathSeg::Key(k) => Some(k.clone()),
            PathSeg::Index(i) => Some(i.to_string()),
            PathSeg::Each => None,
        }
    }

    /// The index of an array this step names, if any.
    fn index(&self) -> Option<usize> {
        match &self.path[0] {
            PathSeg::Index(i) => Some(*i),
            PathSeg::Key(k) => k.parse().ok(),
            PathSeg::Each => None,
        }
    }

    /// At a `[*]`, a scalar: not a list.
    fn scalar<E: serde::de::Error>(&self, v: Value) -> Result<Found, E> {
        Ok(match self.path[0] {
            PathSeg::Each => Found::NotList(v),
            _ => Found::Missing,
        })
    }
}

impl<'de> Visitor<'de> for Walk<'_, '_> {
    type Value = Found;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Found, E> {
        self.scalar(Value::Bool(b))
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Found, E> {
        self.scalar(Value::Number(n.into()))
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Found, E> {
        self.scalar(Value::Number(n.into()))
    }

    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Found, E> {
        self.scalar(serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Found, E> {
        self.scalar(Value::Null)
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Found, E> {
        if holds_document(s) {
            // A string holding JSON: the path goes on inside it.
            return Ok(follow(s, self.path, self.meter, self.out));
        }
        match self.path[0] {
            PathSeg::Each => {
                self.meter.charge::<E>(s.len())?;
                Ok(Found::NotList(Value::String(s.to_owned())))
            }
            _ => Ok(Found::Missing),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Found, A::Error> {
        if matches!(self.path[0], PathSeg::Each) {
            loop {
                let walk = self.next(true);
                match seq.next_element_seed(walk)? {
                    None => return Ok(Found::List),
                    Some(Found::Full) => break,
                    Some(Found::Value(v)) => {
                        if let Some(out) = self.out.as_deref_mut() {
                            out.take(&v);
                        }
                    }
                    Some(_) => {}
                }
            }
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Found::List);
        }
        let Some(want) = self.index() else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Found::Missing);
        };
        let mut found = Found::Missing;
        let mut at = 0usize;
        loop {
            if at == want {
                let walk = self.next(false);
                match seq.next_element_seed(walk)? {
                    Some(f) => found = f,
                    None => break,
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            at += 1;
        }
        Ok(found)
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Found, A::Error> {
        if matches!(self.path[0], PathSeg::Each) {
            // Not a list: the object itself, for the message.
            return Seed(self.meter).visit_map(map).map(Found::NotList);
        }
        let want = self.key();
        let mut found = Found::Missing;
        while let Some(key) = map.next_key::<std::borrow::Cow<'_, str>>()? {
            if want.as_deref() == Some(&*key) {
                // The last of duplicate keys wins, as in a parsed object.
                let walk = self.next(false);
                found = map.next_value_seed(walk)?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

impl fmt::Debug for Walk<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Walk({:?})", self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(segs: &[&str]) -> Vec<PathSeg> {
        segs.iter()
            .map(|s| match (*s, s.parse::<usize>()) {
                ("*", _) => PathSeg::Each,
                (_, Ok(i)) => PathSeg::Index(i),
                _ => PathSeg::Key((*s).into()),
            })
            .collect()
    }

    #[derive(Default)]
    struct All {
        got: Vec<Value>,
        visits: usize,
        limit: usize,
    }

    impl Collector for All {
        fn visit(&mut self) -> bool {
            if self.limit != 0 && self.visits >= self.limit {
                return false;
            }
            self.visits += 1;
            true
        }
        fn take(&mut self, v: &Value) {
            self.got.push(v.clone());
        }
    }

    fn value(text: &str, path: &[&str]) -> Option<Value> {
        match follow(text, &p(path), &Meter::new(usize::MAX), None) {
            Found::Value(v) => Some(v),
            _ => None,
        }
    }

    #[test]
    fn finds_the_value_a_parsed_document_has_at_the_path() {
        let doc = json!({"a": {"b": [10, {"c": "x"}, 30]}, "k": 1, "2": "two", "l": [0, 1, 2]});
        let text = doc.to_string();
        for path in [
            vec!["a", "b", "1", "c"],
            vec!["a", "b", "2"],
            vec!["a", "b"],
            vec!["k"],
            vec!["2"],
            vec!["l", "2"],
            vec!["missing"],
            vec!["a", "b", "9"],
            vec!["k", "deeper"],
        ] {
            let mut want = Some(&doc);
            for seg in &path {
                want = want.and_then(|v| match v {
                    Value::Object(m) => m.get(*seg),
                    Value::Array(a) => a.get(seg.parse::<usize>().ok()?),
                    _ => None,
                });
            }
            assert_eq!(value(&text, &path).as_ref(), want, "{path:?}");
        }
        // The last of duplicate keys, as serde_json keeps it.
        assert_eq!(value(r#"{"a": 1, "a": 2}"#, &["a"]), Some(json!(2)));
        // Into a string holding JSON, and not into one that does not.
        let inner = json!({"x": json!({"y": [1, 2]}).to_string()}).to_string();
        assert_eq!(value(&inner, &["x", "y", "1"]), Some(json!(2)));
        assert_eq!(value(r#"{"x": "[not json"}"#, &["x", "0"]), None);
        // Text that is not JSON finds nothing.
        assert_eq!(value(r#"{"a": 1"#, &["a"]), None);
        assert_eq!(value(r#"{"a": 1} x"#, &["a"]), None);
    }

    #[test]
    fn each_hands_every_element_to_the_collector_until_it_is_full() {
        let text = json!({"r": [{"id": 1}, {"id": 2}, {"no": 3}, {"id": [4]}]}).to_string();
        let mut all = All::default();
        let found = follow(
            &text,
            &p(&["r", "*", "id"]),
            &Meter::new(usize::MAX),
            Some(&mut all),
        );
        assert!(matches!(found, Found::List));
        assert_eq!(all.got, [json!(1), json!(2), json!([4])]);
        let mut two = All {
            limit: 2,
            ..All::default()
        };
        follow(
            &text,
            &p(&["r", "*", "id"]),
            &Meter::new(usize::MAX),
            Some(&mut two),
        );
        assert_eq!(two.got, [json!(1), json!(2)]);
        // Not a list, and missing.
        let mut none = All::default();
        match follow(
            &text,
            &p(&["r", "0", "*"]),
            &Meter::new(usize::MAX),
            Some(&mut none),
        ) {
            Found::NotList(v) => assert_eq!(v, json!({"id": 1})),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            follow(
                &text,
                &p(&["q", "*"]),
                &Meter::new(usize::MAX),
                Some(&mut none)
            ),
            Found::Missing
        ));
        // Nested lists, through a string holding JSON.
        let nested = json!({"s": json!([[1, 2], [3]]).to_string()}).to_string();
        let mut all = All::default();
        follow(
            &nested,
            &p(&["s", "*", "*"]),
            &Meter::new(usize::MAX),
            Some(&mut all),
        );
        assert_eq!(all.got, [json!(1), json!(2), json!(3)]);
    }

    #[test]
    fn a_value_past_the_budget_is_not_built() {
        let text = json!({"big": "x".repeat(10_000), "small": 1}).to_string();
        let meter = Meter::new(1_000);
        assert!(matches!(
            follow(&text, &p(&["big"]), &meter, None),
            Found::Missing
        ));
        assert!(meter.exceeded());
        let meter = Meter::new(1_000);
        assert!(matches!(
            follow(&text, &p(&["small"]), &meter, None),
            Found::Value(_)
        ));
    }
}
