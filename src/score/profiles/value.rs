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
use serde_json::value::RawValue;

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
    /// A number written with a fraction or exponent (or too large for 64-bit integers).
    Float(f64),
    /// A string.
    Str(Cow<'a, str>),
    /// An array.
    Arr(Vec<Val<'a>>),
    /// An object, in first-appearance key order, duplicate keys merged (last value wins).
    Obj(Vec<(Cow<'a, str>, Val<'a>)>),
}

impl<'a> Val<'a> {
    /// Parse a raw JSON value borrowed from the line.
    pub fn parse(raw: &'a RawValue) -> Result<Val<'a>, serde_json::Error> {
        serde_json::from_str(raw.get())
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
            _ => None,
        }
    }

    /// A name for the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Null => "null",
            Val::Bool(_) => "boolean",
            Val::Int(_) | Val::UInt(_) | Val::Float(_) => "number",
            Val::Str(_) => "string",
            Val::Arr(_) => "array",
            Val::Obj(_) => "object",
        }
    }
}

/// Python's numeric tower for `==`: bool is an int, ints compare exactly with floats.
#[derive(Clone, Copy)]
enum PyNum {
    Int(i128),
    Float(f64),
}

fn py_num(v: &Val<'_>) -> Option<PyNum> {
    match *v {
        Val::Bool(b) => Some(PyNum::Int(b as i128)),
        Val::Int(i) => Some(PyNum::Int(i as i128)),
        Val::UInt(u) => Some(PyNum::Int(u as i128)),
        Val::Float(f) => Some(PyNum::Float(f)),
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

/// Python `==` on values decoded by `json.loads` (`1 == 1.0 == True`, dict order ignored).
pub fn py_eq(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Null, Val::Null) => true,
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::Arr(x), Val::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Val::Obj(x), Val::Obj(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.iter()
                        .find(|(k2, _)| k2 == k)
                        .is_some_and(|(_, v2)| py_eq(v, v2))
                })
        }
        _ => match (py_num(a), py_num(b)) {
            (Some(PyNum::Int(x)), Some(PyNum::Int(y))) => x == y,
            (Some(PyNum::Float(x)), Some(PyNum::Float(y))) => x == y,
            (Some(PyNum::Int(x)), Some(PyNum::Float(y)))
            | (Some(PyNum::Float(y)), Some(PyNum::Int(x))) => int_eq_float(x, y),
            _ => false,
        },
    }
}

/// JavaScript structural equality of values decoded by `JSON.parse` (numbers are doubles,
/// `true !== 1`, object key order ignored): evalite's `deepEqual` and its canonical-key
/// equality agree with this on JSON data.
pub fn js_eq(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Null, Val::Null) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::Arr(x), Val::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| js_eq(p, q))
        }
        (Val::Obj(x), Val::Obj(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.iter()
                        .find(|(k2, _)| k2 == k)
                        .is_some_and(|(_, v2)| js_eq(v, v2))
                })
        }
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// JavaScript `===`: primitives by value, objects and arrays never equal (distinct parses).
pub fn js_strict_eq(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Arr(_), _) | (Val::Obj(_), _) | (_, Val::Arr(_)) | (_, Val::Obj(_)) => false,
        _ => js_eq(a, b),
    }
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
        Ok(if v <= i64::MAX as u64 {
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
            match found {
                Some(i) => out[i].1 = v,
                None => {
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

/// Like [`present`], for a raw value kept unparsed.
pub fn present_raw<'de: 'a, 'a, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<&'a RawValue>, D::Error> {
    <&'a RawValue>::deserialize(d).map(Some)
}

/// A JSON value kept as its raw text from the line and parsed into a [`Val`] only when a
/// comparison or a printer needs the tree.
///
/// Most comparisons in the peers' metrics are between byte-identical argument texts, and equal
/// texts are equal values under every equality the profiles use, so those never build a tree.
/// Capturing looks at the text once, cheaply, to learn whether parsing it could fail where
/// capturing did not (see [`Lazy::needs_check`]).
pub struct Lazy<'a> {
    raw: &'a str,
    needs_check: bool,
    val: std::cell::OnceCell<Val<'a>>,
}

impl std::fmt::Debug for Lazy<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.raw)
    }
}

/// Past this nesting (counted inside one value) a lazily parsed value could hit serde_json's
/// recursion limit of the whole line, so the line is checked eagerly.
const LAZY_DEPTH: usize = 64;
/// Keys (all open objects together) and nesting that [`Lazy::is_js_canonical`] tracks; larger
/// values are simply not canonical.
const CANONICAL_KEYS: usize = 32;
const CANONICAL_DEPTH: usize = 16;

impl<'a> Lazy<'a> {
    /// Capture a raw value (as serde_json's `RawValue` delimits it).
    pub fn new(raw: &'a str) -> Lazy<'a> {
        Lazy {
            raw,
            needs_check: needs_check(raw.as_bytes()),
            val: std::cell::OnceCell::new(),
        }
    }

    /// A raw value the fast reader ([`super::fast`]) has already checked: it parses.
    pub(crate) fn checked(raw: &'a str) -> Lazy<'a> {
        Lazy {
            raw,
            needs_check: false,
            val: std::cell::OnceCell::new(),
        }
    }

    /// The raw JSON text.
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// The parsed value (parsed on first use). A value that cannot be parsed reads as `null`;
    /// callers rule that out first with [`Lazy::needs_check`] and a whole-line parse.
    pub fn val(&self) -> &Val<'a> {
        self.val.get_or_init(|| {
            let mut p = super::fast::Parser::new(self.raw);
            match p.value() {
                Some(v) if p.at_end() => v,
                _ => serde_json::from_str(self.raw).unwrap_or(Val::Null),
            }
        })
    }

    /// Whether `JSON.stringify(JSON.parse(raw))` is `raw` itself: no whitespace between tokens,
    /// no escapes, integers only (at most 15 digits, not `-0`), no integer-like keys (which
    /// JavaScript moves first) and no duplicate keys. False is always safe.
    pub fn is_js_canonical(&self) -> bool {
        js_canonical(self.raw.as_bytes())
    }

    /// Whether parsing could fail although capturing succeeded: `\u` escapes (lone surrogates),
    /// exponents or very long numbers (out of range), deep nesting (recursion limit).
    pub fn needs_check(&self) -> bool {
        self.needs_check
    }

    /// `null`?
    pub fn is_null(&self) -> bool {
        self.raw == "null"
    }

    /// `{...}`?
    pub fn is_obj(&self) -> bool {
        self.raw.starts_with('{')
    }
}

/// See [`Lazy::needs_check`]. Conservative: a backslash anywhere, an `e`/`E` after a digit or a
/// dot anywhere (strings included), and for long texts a naive bracket depth or digit run.
fn needs_check(b: &[u8]) -> bool {
    if memchr::memchr(b'\\', b).is_some() {
        return true;
    }
    let mut prev = 0u8;
    for &c in b {
        if c | 0x20 == b'e' && (prev.is_ascii_digit() || prev == b'.') {
            return true;
        }
        prev = c;
    }
    if b.len() > 2 * LAZY_DEPTH {
        let (mut depth, mut max, mut run, mut longest) = (0usize, 0usize, 0usize, 0usize);
        for &c in b {
            match c {
                b'[' | b'{' => {
                    depth += 1;
                    max = max.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if c.is_ascii_digit() || c == b'.' || c == b'-' {
                run += 1;
                longest = longest.max(run);
            } else {
                run = 0;
            }
        }
        return max > LAZY_DEPTH || longest > 300;
    }
    false
}

/// See [`Lazy::is_js_canonical`].
fn js_canonical(b: &[u8]) -> bool {
    // Keys of the open objects (start, end); per open container, where its keys start
    // (`usize::MAX` for arrays).
    let mut keys = [(0usize, 0usize); CANONICAL_KEYS];
    let mut nkeys = 0usize;
    let mut frames = [0usize; CANONICAL_DEPTH];
    let mut depth = 0usize;
    let mut expect_key = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' || b[i] < 0x20 {
                        return false;
                    }
                    i += 1;
                }
                if expect_key {
                    let key = &b[start..i.min(b.len())];
                    let from = frames[depth - 1];
                    if key.first().is_some_and(u8::is_ascii_digit)
                        || nkeys == CANONICAL_KEYS
                        || keys[from..nkeys].iter().any(|&(s, e)| &b[s..e] == key)
                    {
                        return false;
                    }
                    keys[nkeys] = (start, i.min(b.len()));
                    nkeys += 1;
                }
                expect_key = false;
            }
            c @ (b'{' | b'[') => {
                if depth == CANONICAL_DEPTH {
                    return false;
                }
                frames[depth] = if c == b'{' { nkeys } else { usize::MAX };
                depth += 1;
                expect_key = c == b'{';
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if let Some(&from) = frames.get(depth).filter(|&&f| f != usize::MAX) {
                    nkeys = from;
                }
                expect_key = false;
            }
            b',' => {
                expect_key = depth > 0 && frames[depth - 1] != usize::MAX;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let num = &b[start..i];
                let digits = num.strip_prefix(b"-").unwrap_or(num);
                if digits.is_empty()
                    || digits.len() > 15
                    || num == b"-0"
                    || !digits.iter().all(u8::is_ascii_digit)
                {
                    return false;
                }
                continue;
            }
            b':' | b't' | b'r' | b'u' | b'e' | b'f' | b'a' | b'l' | b's' | b'n' => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

impl<'de: 'a, 'a> Deserialize<'de> for Lazy<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'a RawValue>::deserialize(d)?;
        let lazy = Lazy::new(raw.get());
        if lazy.needs_check() {
            LINE_NEEDS_CHECK.set(true);
        }
        Ok(lazy)
    }
}

thread_local! {
    static LINE_NEEDS_CHECK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Parse a line into `T` (whose lazy values are [`Lazy`]) with the errors an eager parse of the
/// whole line would give: when a captured value could fail to parse, the line is also parsed
/// into a [`Val`] tree and the error that comes first in the line wins.
pub fn from_line<'a, T: Deserialize<'a>>(line: &'a str) -> Result<T, serde_json::Error> {
    LINE_NEEDS_CHECK.set(false);
    let typed = serde_json::from_str::<T>(line);
    if !LINE_NEEDS_CHECK.replace(false) {
        return typed;
    }
    match (typed, serde_json::from_str::<Val<'_>>(line)) {
        (typed, Ok(_)) => typed,
        (Ok(_), Err(e)) => Err(e),
        (Err(t), Err(e)) => Err(if (e.line(), e.column()) < (t.line(), t.column()) {
            e
        } else {
            t
        }),
    }
}

/// [`js_eq`] of two lazy values: equal texts are equal without parsing.
pub fn lazy_js_eq(a: &Lazy<'_>, b: &Lazy<'_>) -> bool {
    a.raw == b.raw || js_eq(a.val(), b.val())
}

/// [`py_eq`] of two lazy values: equal texts are equal without parsing.
pub fn lazy_py_eq(a: &Lazy<'_>, b: &Lazy<'_>) -> bool {
    a.raw == b.raw || py_eq(a.val(), b.val())
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

    #[test]
    fn lazy_scan_knows_when_the_text_is_what_javascript_prints() {
        let canon = |s: &str| Lazy::new(s).is_js_canonical();
        assert!(canon(
            r#"{"a":1,"b":[true,null,"x",-5,{"c":false}],"c":{"a":0}}"#
        ));
        assert!(canon(r#""é""#));
        for no in [
            r#"{"a":1.0}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"1":1}"#,
            r#"{"a": 1}"#,
            r#""a
b""#,
            "-0",
            "12345678901234567",
            "1e3",
        ] {
            assert!(!canon(no), "{no}");
        }
        let check = |s: &str| Lazy::new(s).needs_check();
        assert!(check("1e400"));
        assert!(check(r#"["\ud800"]"#));
        assert!(check(&format!("{}{}", "[".repeat(70), "]".repeat(70))));
        assert!(!check(r#"{"a":[1,2.5,"e"],"t":true}"#));
    }

    #[test]
    fn lazy_values_compare_by_text_then_by_value() {
        let (a, b, c) = (
            Lazy::new(r#"{"a":1,"b":2}"#),
            Lazy::new(r#"{"b":2,"a":1.0}"#),
            Lazy::new(r#"{"b":2,"a":true}"#),
        );
        assert!(lazy_js_eq(&a, &b) && !lazy_js_eq(&a, &c));
        assert!(lazy_py_eq(&a, &b) && lazy_py_eq(&a, &c));
    }

    #[test]
    fn lazy_lines_fail_like_eager_ones() {
        #[derive(serde::Deserialize)]
        struct T<'a> {
            #[serde(borrow)]
            #[allow(dead_code)]
            a: Lazy<'a>,
            #[allow(dead_code)]
            b: u8,
        }
        for line in [r#"{"a":[1e400],"b":"x"}"#, r#"{"a":[1e400],"b":1}"#] {
            let lazy = from_line::<T<'_>>(line).err().unwrap().to_string();
            let eager = serde_json::from_str::<Val<'_>>(line)
                .unwrap_err()
                .to_string();
            assert_eq!(lazy, eager);
        }
        let e = from_line::<T<'_>>(r#"{"a":[1],"b":"x"}"#).err().unwrap();
        assert!(e.to_string().starts_with("invalid type"), "{e}");
        let deep = format!(r#"{{"a":{}{},"b":1}}"#, "[".repeat(200), "]".repeat(200));
        let e = from_line::<T<'_>>(&deep).err().unwrap();
        assert!(e.to_string().starts_with("recursion limit"), "{e}");
    }
}
