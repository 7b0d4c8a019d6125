//! Python objects given as a transcript, read as the JSON document `json.dumps` would write
//! for them, without writing it: the value the readers take their fields from
//! ([`toolspec::transcript::Document`]), in one walk over the objects.
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

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// Nesting levels read, at most: serde_json's limit for a file, so that objects and their
/// JSON text are refused alike.
pub(crate) const MAX_DEPTH: usize = 128;

/// `toolspec._plain`, looked up once.
static PLAIN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The JSON value of `obj`.
pub(crate) fn value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    Walk::default().walk(obj, 0)
}

/// One walk's working list: the members of the dicts being read, taken from each dict before
/// any is read (see [`Walk::object`]). One list serves every dict of the walk, each using the
/// part above its parent's, so a dict costs no list of its own.
#[derive(Default)]
struct Walk<'py> {
    members: Vec<Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>>,
}

impl<'py> Walk<'py> {
    fn walk(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<Value> {
        if depth > MAX_DEPTH {
            return Err(not_json(format!(
                "it nests more than {MAX_DEPTH} levels deep (or holds itself)"
            )));
        }
        // Most objects of a transcript are exactly `str`, `dict` and `list`: asked first, by their
        // type alone (a subclass is asked below). A `bool` is an `int` subclass, so it is asked
        // before `int`.
        if let Ok(s) = obj.cast_exact::<PyString>() {
            return Ok(Value::String(text(s)?));
        }
        if let Ok(dict) = obj.cast_exact::<PyDict>() {
            return self.object(dict, depth);
        }
        if let Ok(list) = obj.cast_exact::<PyList>() {
            return self.array(list.iter(), list.len(), depth);
        }
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(Value::String(text(s)?));
        }
        if let Ok(dict) = obj.cast::<PyDict>() {
            return self.object(dict, depth);
        }
        if obj.is_none() {
            return Ok(Value::Null);
        }
        if let Ok(b) = obj.cast::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if let Ok(i) = obj.cast::<PyInt>() {
            return int(i);
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            return float(f.value());
        }
        if let Ok(list) = obj.cast::<PyList>() {
            return self.array(list.iter(), list.len(), depth);
        }
        if let Ok(tuple) = obj.cast::<PyTuple>() {
            return self.array(tuple.iter(), tuple.len(), depth);
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
    fn object(&mut self, dict: &Bound<'py, PyDict>, depth: usize) -> PyResult<Value> {
        let start = self.members.len();
        self.members.extend(dict.iter().map(Some));
        let end = self.members.len();
        let mut map = Map::with_capacity(end - start);
        let mut read = || {
            for at in start..end {
                if let Some((k, v)) = self.members[at].take() {
                    map.insert(key(&k)?, self.walk(&v, depth + 1)?);
                }
            }
            Ok(())
        };
        let done = read();
        self.members.truncate(start);
        done.map(|()| Value::Object(map))
    }

    /// A list's or tuple's items.
    fn array(
        &mut self,
        items: impl Iterator<Item = Bound<'py, PyAny>>,
        len: usize,
        depth: usize,
    ) -> PyResult<Value> {
        let mut out = Vec::with_capacity(len);
        for item in items {
            out.push(self.walk(&item, depth + 1)?);
        }
        Ok(Value::Array(out))
    }
}

/// A `str` as Rust text (its UTF-8, which Python keeps with it); a lone surrogate is not
/// text.
fn text(s: &Bound<'_, PyString>) -> PyResult<String> {
    s.to_str()
        .map(str::to_owned)
        .map_err(|e| not_json(e.to_string()))
}

/// An `int` as JSON reads its digits: `i64`, then `u64`, then (larger) a float.
fn int(i: &Bound<'_, PyInt>) -> PyResult<Value> {
    if let Ok(n) = i.extract::<i64>() {
        return Ok(Value::from(n));
    }
    if let Ok(n) = i.extract::<u64>() {
        return Ok(Value::from(n));
    }
    // `int.__repr__`, as the encoder writes an `int` (a subclass's own repr is not used).
    let digits = i.py().get_type::<PyInt>().call_method1("__repr__", (i,))?;
    serde_json::from_str::<Value>(&digits.extract::<String>()?)
        .map_err(|e| not_json(format!("the integer cannot be read: {e}")))
}

/// A finite `float`.
fn float(f: f64) -> PyResult<Value> {
    Number::from_f64(f).map(Value::Number).ok_or_else(|| {
        not_json(format!(
            "Out of range float values are not JSON compliant: {f}"
        ))
    })
}

/// A dict key as the encoder writes it.
fn key(k: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = k.cast_exact::<PyString>().or_else(|_| k.cast::<PyString>()) {
        return text(s);
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

fn not_json(why: String) -> PyErr {
    PyValueError::new_err(format!("this transcript is not JSON: {why}"))
}
