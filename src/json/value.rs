//! A borrowed JSON value that keeps what the peers' languages see and `serde_json::Value` loses.
//!
//! Profiles compare arguments the way Python or JavaScript does, so the number kind matters
//! (Python keeps `5` and `5.0` apart for Axion's fuzzy strategy) and so does the parse rule for
//! duplicate keys (both `json.loads` and `JSON.parse` keep the first position and the last
//! value). Strings are borrowed from the input line when they have no escapes, so parsing a case
//! allocates little.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::view::{Json, Kind};

/// A JSON value borrowed from the input line.
#[derive(Debug, Clone, PartialEq)]
pub enum Val<'a> {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer that fits `i64`.
    Int(i64),
    /// A positive integer above `i64::MAX` that fits `u64`.
    UInt(u64),
    /// A number written with a fraction or exponent (or, read by serde_json or for a
    /// JavaScript peer, an integer too large for 64 bits).
    Float(f64),
    /// An integer outside the 64-bit ranges, as Python keeps it: its digits, with a leading
    /// `-` when negative (read for a Python peer by [`super::read`]).
    BigInt(Cow<'a, str>),
    /// A string.
    Str(Cow<'a, str>),
    /// An array.
    Arr(Vec<Val<'a>>),
    /// An object, in first-appearance key order, duplicate keys merged (last value wins).
    Obj(Vec<(Cow<'a, str>, Val<'a>)>),
}

impl<'a> Val<'a> {
    /// Python's `bool(v)` of the value `json.loads` gives.
    pub fn py_truthy(&self) -> bool {
        match self {
            Val::Null => false,
            Val::Bool(b) => *b,
            Val::Int(i) => *i != 0,
            Val::UInt(u) => *u != 0,
            Val::Float(f) => *f != 0.0,
            Val::BigInt(_) => true,
            Val::Str(s) => !s.is_empty(),
            Val::Arr(a) => !a.is_empty(),
            Val::Obj(o) => !o.is_empty(),
        }
    }

    /// Python's name of the type of the value `json.loads` gives (as a `TypeError` says it).
    pub fn py_type_name(&self) -> &'static str {
        match self {
            Val::Null => "NoneType",
            Val::Bool(_) => "bool",
            Val::Int(_) | Val::UInt(_) | Val::BigInt(_) => "int",
            Val::Float(_) => "float",
            Val::Str(_) => "str",
            Val::Arr(_) => "list",
            Val::Obj(_) => "dict",
        }
    }

    /// The value of `key` in an object (`None` for a missing key or a non-object).
    pub fn get(&self, key: &str) -> Option<&Val<'a>> {
        match self {
            Val::Obj(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The object's entries, if this is one.
    pub fn as_obj(&self) -> Option<&[(Cow<'a, str>, Val<'a>)]> {
        match self {
            Val::Obj(e) => Some(e),
            _ => None,
        }
    }

    /// The number as an `f64` (what JavaScript holds), bools excluded.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Val::Int(i) => Some(i as f64),
            Val::UInt(u) => Some(u as f64),
            Val::Float(f) => Some(f),
            Val::BigInt(ref d) => Some(big_int_f64(d)),
            _ => None,
        }
    }

    /// A name for the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Null => "null",
            Val::Bool(_) => "boolean",
            Val::Int(_) | Val::UInt(_) | Val::Float(_) | Val::BigInt(_) => "number",
            Val::Str(_) => "string",
            Val::Arr(_) => "array",
            Val::Obj(_) => "object",
        }
    }
}

/// The double nearest to an integer's digits (what `float(n)` gives; infinity past the range).
pub(crate) fn big_int_f64(digits: &str) -> f64 {
    digits.parse::<f64>().unwrap_or(f64::NAN)
}

/// A value that owns its strings.
pub fn into_owned(v: &Val<'_>) -> Val<'static> {
    match v {
        Val::Null => Val::Null,
        Val::Bool(b) => Val::Bool(*b),
        Val::Int(i) => Val::Int(*i),
        Val::UInt(u) => Val::UInt(*u),
        Val::Float(f) => Val::Float(*f),
        Val::BigInt(d) => Val::BigInt(Cow::Owned(d.to_string())),
        Val::Str(s) => Val::Str(Cow::Owned(s.to_string())),
        Val::Arr(items) => Val::Arr(items.iter().map(into_owned).collect()),
        Val::Obj(members) => Val::Obj(
            members
                .iter()
                .map(|(k, x)| (Cow::Owned(k.to_string()), into_owned(x)))
                .collect(),
        ),
    }
}

/// How many arrays and objects nest in `v` at most (0 for a scalar), counted without recursing.
pub fn depth(v: &Val<'_>) -> usize {
    depth_of(v)
}

/// [`depth`] of any view.
pub(crate) fn depth_of<'s, J: Json<'s>>(v: J) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 1usize)];
    while let Some((v, d)) = stack.pop() {
        match v.kind() {
            Kind::Arr => {
                deepest = deepest.max(d);
                stack.extend(v.items().map(|x| (x, d + 1)));
            }
            Kind::Obj => {
                deepest = deepest.max(d);
                stack.extend(v.entries().map(|(_, x)| (x, d + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// Drop a value of any depth without recursing (a value's own drop recurses once per level).
pub fn drop_deep(v: Val<'_>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Val::Arr(items) => stack.extend(items),
            Val::Obj(members) => stack.extend(members.into_iter().map(|(_, x)| x)),
            _ => {}
        }
    }
}

/// Python's numeric tower for `==`: bool is an int, ints compare exactly with floats.
#[derive(Clone, Copy)]
enum PyNum {
    Int(i128),
    Float(f64),
}

fn py_num(k: Kind<'_>) -> Option<PyNum> {
    match k {
        Kind::Bool(b) => Some(PyNum::Int(i128::from(b))),
        Kind::Int(i) => Some(PyNum::Int(i128::from(i))),
        Kind::UInt(u) => Some(PyNum::Int(i128::from(u))),
        Kind::Float(f) => Some(PyNum::Float(f)),
        _ => None,
    }
}

/// Exact comparison of an integer with a float, as CPython does it (no rounding of the int).
fn int_eq_float(i: i128, f: f64) -> bool {
    // The ints here are bool, i64 or u64 (|i| < 2^64); below 2^64 an integral double converts
    // to i128 exactly.
    if !f.is_finite() || f.fract() != 0.0 || f.abs() >= 18_446_744_073_709_551_616.0 {
        return false;
    }
    (f as i128) == i
}

/// Whether two objects have the same keys with values equal under `eq` (key order ignored).
fn same_members<'s, J: Json<'s>>(a: J, b: J, eq: fn(J, J) -> bool) -> bool {
    let (x, y) = (a.entries(), b.entries());
    if x.len() != y.len() {
        return false;
    }
    // `b`'s member at the same position while the keys are in the same order (the usual case);
    // from the first key out of place on, the one found by key (keys are unique in a tape and
    // in a `Val`, so both are the same), through a sorted index past a handful of keys: key
    // order costs O(K log K), not K².
    let mut same_place = y.clone();
    let mut rest = x.clone();
    loop {
        let Some((k, v)) = rest.next() else {
            return true;
        };
        match same_place.next() {
            Some((k2, v2)) if super::scan::same_str(k, k2) => {
                if !eq(v, v2) {
                    return false;
                }
            }
            _ => {
                let keyed = super::keys::Keyed::new(y.map(|(k, v)| (k.as_bytes(), v)));
                return std::iter::once((k, v))
                    .chain(rest)
                    .all(|(k, v)| keyed.get(k.as_bytes()).is_some_and(|v2| eq(v, v2)));
            }
        }
    }
}

/// Python `==` on values decoded by `json.loads` (`1 == 1.0 == True`, dict order ignored,
/// integers of any size compared exactly). `NaN` is not equal to itself here, but is inside
/// lists and dicts: `json.loads` gives every `NaN` as one float object, and containers compare
/// their items by identity first ([`py_eq_item`]).
pub(crate) fn py_eq<'s, J: Json<'s>>(a: J, b: J) -> bool {
    if let Some(x) = a.big_int() {
        return big_int_eq(x, b);
    }
    if let Some(y) = b.big_int() {
        return big_int_eq(y, a);
    }
    match (a.kind(), b.kind()) {
        (Kind::Null, Kind::Null) => true,
        (Kind::Str(x), Kind::Str(y)) => super::scan::same_str(x, y),
        (Kind::Arr, Kind::Arr) => {
            let (x, y) = (a.items(), b.items());
            x.len() == y.len() && x.zip(y).all(|(p, q)| py_eq_item(p, q))
        }
        (Kind::Obj, Kind::Obj) => same_members(a, b, py_eq_item),
        (x, y) => match (py_num(x), py_num(y)) {
            (Some(PyNum::Int(x)), Some(PyNum::Int(y))) => x == y,
            (Some(PyNum::Float(x)), Some(PyNum::Float(y))) => x == y,
            (Some(PyNum::Int(x)), Some(PyNum::Float(y)))
            | (Some(PyNum::Float(y)), Some(PyNum::Int(x))) => int_eq_float(x, y),
            _ => false,
        },
    }
}

/// [`py_eq`] of two items of containers: identity first (`PyObject_RichCompareBool`), so the
/// one `NaN` object `json.loads` makes equals itself there.
pub(crate) fn py_eq_item<'s, J: Json<'s>>(a: J, b: J) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Float(x), Kind::Float(y)) if x.is_nan() && y.is_nan() => {
            a.big_int().is_none() && b.big_int().is_none()
        }
        _ => py_eq(a, b),
    }
}

/// Python `==` of an integer past 64 bits (its digits) with any value: only another such
/// integer with the same digits, or a float of exactly its value (no bool or 64-bit integer
/// can be equal).
fn big_int_eq<'s, J: Json<'s>>(digits: &str, other: J) -> bool {
    if let Some(d) = other.big_int() {
        return d == digits;
    }
    match other.kind() {
        Kind::Float(f) if f.is_finite() && f.fract() == 0.0 => {
            use num_traits::FromPrimitive;
            match (
                digits.parse::<num_bigint::BigInt>(),
                num_bigint::BigInt::from_f64(f),
            ) {
                (Ok(n), Some(m)) => n == m,
                _ => false,
            }
        }
        _ => false,
    }
}

/// JavaScript structural equality of values decoded by `JSON.parse` (numbers are doubles,
/// `true !== 1`, object key order ignored): evalite's `deepEqual` and its canonical-key
/// equality agree with this on JSON data.
pub(crate) fn js_eq<'s, J: Json<'s>>(a: J, b: J) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Null, Kind::Null) => true,
        (Kind::Bool(x), Kind::Bool(y)) => x == y,
        (Kind::Str(x), Kind::Str(y)) => super::scan::same_str(x, y),
        (Kind::Arr, Kind::Arr) => {
            let (x, y) = (a.items(), b.items());
            x.len() == y.len() && x.zip(y).all(|(p, q)| js_eq(p, q))
        }
        (Kind::Obj, Kind::Obj) => same_members(a, b, js_eq),
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// Whether two values `JSON.parse` read give the same `JSON.stringify` text once object keys
/// are sorted (Evalite's canonical keys): [`js_eq`], except that a number past the double
/// range (`1e400`, read as `Infinity`) is written `null` and so equals `null` and any other.
pub(crate) fn js_json_eq<'s, J: Json<'s>>(a: J, b: J) -> bool {
    let null_like = |k: Kind<'_>| match k {
        Kind::Null => true,
        Kind::Float(f) => !f.is_finite(),
        _ => false,
    };
    let (x, y) = (a.kind(), b.kind());
    if null_like(x) || null_like(y) {
        return null_like(x) && null_like(y);
    }
    match (x, y) {
        (Kind::Arr, Kind::Arr) => {
            let (p, q) = (a.items(), b.items());
            p.len() == q.len() && p.zip(q).all(|(u, v)| js_json_eq(u, v))
        }
        (Kind::Obj, Kind::Obj) => same_members(a, b, js_json_eq),
        _ => js_eq(a, b),
    }
}

/// JavaScript `===`: primitives by value, objects and arrays never equal (distinct parses).
pub(crate) fn js_strict_eq<'s, J: Json<'s>>(a: J, b: J) -> bool {
    !a.is_container() && !b.is_container() && js_eq(a, b)
}

impl<'de: 'a, 'a> Deserialize<'de> for Val<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValVisitor(std::marker::PhantomData))
    }
}

struct ValVisitor<'a>(std::marker::PhantomData<&'a ()>);

/// Objects larger than this get a hash index for duplicate-key detection, so a hostile object
/// with many keys stays linear.
const LINEAR_KEYS: usize = 24;

impl<'de: 'a, 'a> Visitor<'de> for ValVisitor<'a> {
    type Value = Val<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Val<'a>, E> {
        Ok(Val::Null)
    }
    fn visit_none<E>(self) -> Result<Val<'a>, E> {
        Ok(Val::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Val<'a>, E> {
        Ok(Val::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Val<'a>, E> {
        Ok(Val::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Val<'a>, E> {
        Ok(if i64::try_from(v).is_ok() {
            Val::Int(v as i64)
        } else {
            Val::UInt(v)
        })
    }
    fn visit_f64<E>(self, v: f64) -> Result<Val<'a>, E> {
        Ok(Val::Float(v))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Val<'a>, E> {
        Ok(Val::Str(Cow::Borrowed(v)))
    }
    /// Only [`super::de::ValDe`] hands a value over as a newtype: a big integer's digits.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Val<'a>, D::Error> {
        CowKey::deserialize(d).map(|k| Val::BigInt(k.0))
    }
    fn visit_str<E>(self, v: &str) -> Result<Val<'a>, E> {
        Ok(Val::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Val<'a>, E> {
        Ok(Val::Str(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Val<'a>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(4).min(64));
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Val::Arr(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Val<'a>, A::Error> {
        let mut out: Vec<(Cow<'a, str>, Val<'a>)> = Vec::with_capacity(4);
        let mut index: Option<HashMap<String, usize>> = None;
        while let Some(k) = map.next_key::<CowKey<'a>>()? {
            let v: Val<'a> = map.next_value()?;
            let key = k.0;
            let found = match &mut index {
                Some(ix) => ix.get(key.as_ref()).copied(),
                None => out.iter().position(|(k2, _)| *k2 == key),
            };
            if let Some(i) = found {
                out[i].1 = v;
            } else {
                if let Some(ix) = &mut index {
                    ix.insert(key.to_string(), out.len());
                }
                out.push((key, v));
                if index.is_none() && out.len() > LINEAR_KEYS {
                    index = Some(
                        out.iter()
                            .enumerate()
                            .map(|(i, (k, _))| (k.to_string(), i))
                            .collect(),
                    );
                }
            }
        }
        Ok(Val::Obj(out))
    }
}

/// An object key, borrowed when it has no escapes.
pub struct CowKey<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for CowKey<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KV<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for KV<'a> {
            type Value = CowKey<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<CowKey<'a>, E> {
                Ok(CowKey(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<CowKey<'a>, E> {
                Ok(CowKey(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<CowKey<'a>, E> {
                Ok(CowKey(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KV(std::marker::PhantomData))
    }
}

/// A field that distinguishes "absent" (`None`, via `#[serde(default)]`) from `null`
/// (`Some(Val::Null)`): JavaScript's `undefined` versus `null`.
pub fn present<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<Val<'a>>, D::Error> {
    Val::deserialize(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Val<'_> {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn python_equality_is_numeric_across_kinds() {
        assert!(py_eq(&v("1"), &v("1.0")));
        assert!(py_eq(&v("true"), &v("1")));
        assert!(py_eq(
            &v(r#"{"a":[1,{"b":false}]}"#),
            &v(r#"{"a":[1.0,{"b":0}]}"#)
        ));
        assert!(!py_eq(&v("9007199254740993"), &v("9007199254740992.0")));
        assert!(!py_eq(&v(r#""1""#), &v("1")));
        assert!(!py_eq(&v("[1,2]"), &v("[2,1]")));
    }

    #[test]
    fn javascript_equality_keeps_bools_apart() {
        assert!(js_eq(&v("1"), &v("1.0")));
        assert!(!js_eq(&v("true"), &v("1")));
        assert!(js_eq(&v(r#"{"a":1,"b":2}"#), &v(r#"{"b":2,"a":1}"#)));
        assert!(!js_strict_eq(&v("{}"), &v("{}")));
    }

    #[test]
    fn duplicate_keys_keep_first_position_and_last_value() {
        let mut s = String::from("{");
        for i in 0..40 {
            s.push_str(&format!("\"k{i}\":{i},"));
        }
        s.push_str("\"k3\":99,\"a\":1,\"a\":2}");
        let val = v(&s);
        let obj = val.as_obj().unwrap();
        assert_eq!(obj.len(), 41);
        assert_eq!(obj[3], (Cow::Borrowed("k3"), Val::Int(99)));
        assert_eq!(val.get("a"), Some(&Val::Int(2)));
    }
}
