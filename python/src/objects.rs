//! Python objects given as a transcript, read as the JSON document `json.dumps` would write
//! for them, without writing it: one walk over the objects builds the document value by value
//! ([`toolspec::transcript::DocumentBuilder`]: a flat list of nodes and one text buffer, no
//! `serde_json::Value`), which the readers take their fields from.
//!
//! The walk follows the JSON encoder of Python's standard library: `None`, `bool`, `str`,
//! `int`, `float`, `list` and `tuple`, `dict` (keys `str`, or `int`, `float`, `bool` and `None`
//! written as JSON writes them), their subclasses as their base; anything else goes through
//! `toolspec._plain` (pydantic models, dataclasses, other mappings and sequences), whose
//! result is walked in turn. Floats that are not finite and strings that are not Unicode text
//! (lone surrogates) are refused, as the encoder refuses them (`allow_nan=False`) and as
//! UTF-8 cannot hold them. Integers keep every digit where JSON's reading does (`i64`, `u64`);
//! larger ones are read from their digits, as the text would be.
//!
//! Bound: [`MAX_DEPTH`] levels of nesting, which also stops an object that holds itself.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::collections::HashMap;

use toolspec::transcript::{Document, DocumentBuilder};

/// Nesting levels read, at most: serde_json's limit for a file, so that objects and their
/// JSON text are refused alike.
pub(crate) const MAX_DEPTH: usize = 128;

/// `toolspec._plain`, looked up once.
static PLAIN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The JSON document of `obj`.
pub(crate) fn document(obj: &Bound<'_, PyAny>) -> PyResult<Document> {
    // Room for what a conversation of that many messages usually holds (a guess, bounded):
    // the buffers then seldom grow.
    let items = if let Ok(list) = obj.cast::<PyList>() {
        list.len()
    } else if let Ok(dict) = obj.cast::<PyDict>() {
        dict.len()
    } else {
        1
    }
    .min(4096);
    let mut walk = Walk {
        members: Vec::new(),
        out: DocumentBuilder::with_capacity(items * 16, items * 96),
    };
    walk.walk(obj, 0)?;
    walk.out.finish().map_err(not_json)
}

/// One walk: the document built so far, and the members of the dicts being read, taken from
/// each dict before any is read (see [`Walk::object`]). One list serves every dict of the walk,
/// each using the part above its parent's, so a dict costs no list of its own.
struct Walk<'py> {
    members: Vec<Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>>,
    out: DocumentBuilder,
}

impl<'py> Walk<'py> {
    fn walk(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<()> {
        if depth > MAX_DEPTH {
            return Err(not_json(format!(
                "it nests more than {MAX_DEPTH} levels deep (or holds itself)"
            )));
        }
        // Most objects of a transcript are exactly `str`, `dict`, `list` and `None`: asked first,
        // by their type alone (a subclass is asked below). A `bool` is an `int` subclass, so it is
        // asked before `int`.
        if obj.is_none() {
            self.out.null();
            return Ok(());
        }
        if let Ok(s) = obj.cast_exact::<PyString>() {
            self.out.str(text(s)?);
            return Ok(());
        }
        if let Ok(dict) = obj.cast_exact::<PyDict>() {
            return self.object(dict, depth);
        }
        if let Ok(list) = obj.cast_exact::<PyList>() {
            return self.array(list.iter(), depth);
        }
        if let Ok(s) = obj.cast::<PyString>() {
            self.out.str(text(s)?);
            return Ok(());
        }
        if let Ok(dict) = obj.cast::<PyDict>() {
            return self.object(dict, depth);
        }
        if let Ok(b) = obj.cast::<PyBool>() {
            self.out.bool(b.is_true());
            return Ok(());
        }
        if let Ok(i) = obj.cast::<PyInt>() {
            return int(i, &mut self.out);
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            self.out.f64(finite(f.value())?);
            return Ok(());
        }
        if let Ok(list) = obj.cast::<PyList>() {
            return self.array(list.iter(), depth);
        }
        if let Ok(tuple) = obj.cast::<PyTuple>() {
            return self.array(tuple.iter(), depth);
        }
        let py = obj.py();
        let plain = PLAIN.get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("toolspec")?.getattr("_plain")?.unbind())
        })?;
        let replaced = plain.bind(py).call1((obj,))?;
        self.walk(&replaced, depth + 1)
    }

    /// A dict's members. They are taken from the dict before any is walked: walking one may run
    /// Python code (`toolspec._plain`), which could change the dict while it was iterated.
    /// Keys that are exactly `str` differ as text; other keys can meet once written (`1` and
    /// `"1"`), and are merged as JSON's reading merges a repeated key: first position, last
    /// value.
    fn object(&mut self, dict: &Bound<'py, PyDict>, depth: usize) -> PyResult<()> {
        let start = self.members.len();
        self.members.extend(dict.iter().map(Some));
        let end = self.members.len();
        let done = self.members_of(start, end, depth);
        self.members.truncate(start);
        done
    }

    fn members_of(&mut self, start: usize, end: usize, depth: usize) -> PyResult<()> {
        let plain = self.members[start..end]
            .iter()
            .flatten()
            .all(|(k, _)| k.is_exact_instance_of::<PyString>());
        self.out.begin_object();
        if plain {
            for at in start..end {
                if let Some((k, v)) = self.members[at].take() {
                    self.out.key(text(k.cast_exact::<PyString>()?)?);
                    self.walk(&v, depth + 1)?;
                }
            }
        } else {
            let mut keys: Vec<String> = Vec::with_capacity(end - start);
            let mut values: Vec<usize> = Vec::with_capacity(end - start);
            let mut seen: HashMap<String, usize> = HashMap::with_capacity(end - start);
            let mut superseded = Vec::new();
            for at in start..end {
                if let Some((k, _)) = &self.members[at] {
                    let k = key(k)?;
                    match seen.get(&k) {
                        Some(&first) => superseded.push(std::mem::replace(&mut values[first], at)),
                        None => {
                            seen.insert(k.clone(), keys.len());
                            keys.push(k);
                            values.push(at);
                        }
                    }
                }
            }
            for (k, at) in keys.iter().zip(values) {
                if let Some((_, v)) = self.members[at].take() {
                    self.out.key(k);
                    self.walk(&v, depth + 1)?;
                }
            }
            // The values a later one replaces are still written by `json.dumps`, which refuses
            // them as it refuses any other: they are walked, and dropped.
            for at in superseded {
                if let Some((_, v)) = self.members[at].take() {
                    let mut scratch = Walk {
                        members: Vec::new(),
                        out: DocumentBuilder::new(),
                    };
                    scratch.walk(&v, depth + 1)?;
                }
            }
        }
        self.out.end();
        Ok(())
    }

    /// A list's or tuple's items.
    fn array(
        &mut self,
        items: impl Iterator<Item = Bound<'py, PyAny>>,
        depth: usize,
    ) -> PyResult<()> {
        self.out.begin_array();
        for item in items {
            self.walk(&item, depth + 1)?;
        }
        self.out.end();
        Ok(())
    }
}

/// A `str` as Rust text (its UTF-8, which Python keeps with it); a lone surrogate is not
/// text.
fn text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    s.to_str().map_err(|e| not_json(e.to_string()))
}

/// An `int` as JSON reads its digits: `i64`, then `u64`, then (larger) a float.
fn int(i: &Bound<'_, PyInt>, out: &mut DocumentBuilder) -> PyResult<()> {
    if let Ok(n) = i.extract::<i64>() {
        out.i64(n);
        return Ok(());
    }
    if let Ok(n) = i.extract::<u64>() {
        out.u64(n);
        return Ok(());
    }
    // `int.__repr__`, as the encoder writes an `int` (a subclass's own repr is not used), read
    // as JSON reads those digits: the nearest `f64`.
    let digits = i.py().get_type::<PyInt>().call_method1("__repr__", (i,))?;
    let n = serde_json::from_str::<serde_json::Value>(&digits.extract::<String>()?)
        .map_err(|e| not_json(format!("the integer cannot be read: {e}")))?;
    match n.as_f64() {
        Some(f) => out.f64(f),
        None => out.null(),
    }
    Ok(())
}

/// A finite `float`.
fn finite(f: f64) -> PyResult<f64> {
    if f.is_finite() {
        Ok(f)
    } else {
        Err(not_json(format!(
            "Out of range float values are not JSON compliant: {f}"
        )))
    }
}

/// A dict key as the encoder writes it.
fn key(k: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = k.cast_exact::<PyString>().or_else(|_| k.cast::<PyString>()) {
        return text(s).map(str::to_owned);
    }
    if k.is_none() {
        return Ok("null".into());
    }
    if let Ok(b) = k.cast::<PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.into());
    }
    if let Ok(i) = k.cast::<PyInt>() {
        let py = k.py();
        return py
            .get_type::<PyInt>()
            .call_method1("__repr__", (i,))?
            .extract::<String>();
    }
    if let Ok(f) = k.cast::<PyFloat>() {
        let v = f.value();
        if !v.is_finite() {
            return Err(not_json(format!(
                "Out of range float values are not JSON compliant: {v}"
            )));
        }
        let py = k.py();
        return py
            .get_type::<PyFloat>()
            .call_method1("__repr__", (f,))?
            .extract::<String>();
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "keys must be str, int, float, bool or None, not {}",
        k.get_type().name()?
    )))
}

fn not_json(why: impl std::fmt::Display) -> PyErr {
    let message = format!("this transcript is not JSON: {why}");
    Python::attach(|py| crate::errors::plain::<crate::errors::TranscriptError>(py, message))
}
