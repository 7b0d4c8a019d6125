//! A read-only JSON value, whichever way it was parsed: a [`Val`] tree or a node of a
//! [`super::tape::Tape`]. The peers' equalities ([`super::value::py_eq`], [`super::value::js_eq`])
//! and printers ([`super::text`]) are written once, over [`Json`].

use super::value::Val;

/// What a JSON value is, with its scalar payload; containers are walked with [`Json::items`]
/// and [`Json::entries`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Kind<'s> {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer that fits `i64`.
    Int(i64),
    /// A positive integer above `i64::MAX` that fits `u64`.
    UInt(u64),
    /// A number with a fraction or an exponent, or too large for 64-bit integers.
    Float(f64),
    /// A string (decoded).
    Str(&'s str),
    /// An array.
    Arr,
    /// An object: keys in first-appearance order, each once (the last value of a duplicate).
    Obj,
}

/// A JSON value that can be inspected without copying it.
pub(crate) trait Json<'s>: Copy {
    /// The items of an array.
    type Items: Iterator<Item = Self> + ExactSizeIterator + Clone;
    /// The members of an object.
    type Entries: Iterator<Item = (&'s str, Self)> + ExactSizeIterator + Clone;

    /// What the value is.
    fn kind(self) -> Kind<'s>;
    /// The items (empty for anything but an array).
    fn items(self) -> Self::Items;
    /// The members (empty for anything but an object).
    fn entries(self) -> Self::Entries;

    /// The value of `key` in an object.
    fn get(self, key: &str) -> Option<Self> {
        self.entries()
            .find(|(k, _)| super::scan::same_str(k, key))
            .map(|(_, v)| v)
    }

    /// The digits of an integer outside the 64-bit ranges, as a Python peer keeps it (its
    /// [`Json::kind`] is then the nearest double, what JavaScript and `float()` hold).
    fn big_int(self) -> Option<&'s str> {
        None
    }

    /// The string, if this is one.
    fn as_str(self) -> Option<&'s str> {
        match self.kind() {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The number as an `f64` (what JavaScript holds), bools excluded.
    fn as_f64(self) -> Option<f64> {
        match self.kind() {
            Kind::Int(i) => Some(i as f64),
            Kind::UInt(u) => Some(u as f64),
            Kind::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The string member `key` of an object.
    fn str_of(self, key: &str) -> Option<&'s str> {
        self.get(key)?.as_str()
    }

    /// The items, if this is an array.
    fn as_items(self) -> Option<Self::Items> {
        matches!(self.kind(), Kind::Arr).then(|| self.items())
    }

    /// The items of the array member `key` (none if it is absent or not an array).
    fn items_of(self, key: &str) -> Self::Items {
        match self.get(key) {
            Some(v) if matches!(v.kind(), Kind::Arr) => v.items(),
            _ => self.items_of_nothing(),
        }
    }

    /// No items (an iterator over nothing, of the type of [`Json::items`]).
    fn items_of_nothing(self) -> Self::Items {
        let mut it = self.items();
        if it.len() > 0 {
            it.by_ref().for_each(drop);
        }
        it
    }

    /// An integer that fits `i64`.
    fn as_i64(self) -> Option<i64> {
        match self.kind() {
            Kind::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    fn as_bool(self) -> Option<bool> {
        match self.kind() {
            Kind::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// A non-negative integer that fits `u64`.
    fn as_u64(self) -> Option<u64> {
        match self.kind() {
            Kind::Int(i) => u64::try_from(i).ok(),
            Kind::UInt(u) => Some(u),
            _ => None,
        }
    }

    /// `null`?
    fn is_null(self) -> bool {
        matches!(self.kind(), Kind::Null)
    }

    /// A string?
    fn is_str(self) -> bool {
        matches!(self.kind(), Kind::Str(_))
    }

    /// A number?
    fn is_num(self) -> bool {
        matches!(self.kind(), Kind::Int(_) | Kind::UInt(_) | Kind::Float(_))
    }

    /// An array?
    fn is_arr(self) -> bool {
        matches!(self.kind(), Kind::Arr)
    }

    /// An object?
    fn is_obj(self) -> bool {
        matches!(self.kind(), Kind::Obj)
    }

    /// The value itself when it is a serde_json `Value` (`None` for other views): what lets
    /// code that keeps values borrow them instead of copying.
    fn as_value(self) -> Option<&'s serde_json::Value> {
        None
    }

    /// Whether this is an array or an object.
    fn is_container(self) -> bool {
        matches!(self.kind(), Kind::Arr | Kind::Obj)
    }

    /// A name for the value's type, for error messages.
    fn type_name(self) -> &'static str {
        match self.kind() {
            Kind::Null => "null",
            Kind::Bool(_) => "boolean",
            Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) => "number",
            Kind::Str(_) => "string",
            Kind::Arr => "array",
            Kind::Obj => "object",
        }
    }
}

/// The items of a [`Val`] array.
pub(crate) type ValItems<'s, 'a> = std::slice::Iter<'s, Val<'a>>;

/// The members of a [`Val`] object.
#[derive(Clone)]
pub(crate) struct ValEntries<'s, 'a>(std::slice::Iter<'s, (std::borrow::Cow<'a, str>, Val<'a>)>);

impl<'s, 'a> Iterator for ValEntries<'s, 'a> {
    type Item = (&'s str, &'s Val<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k.as_ref(), v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for ValEntries<'_, '_> {}

impl<'s, 'a> Json<'s> for &'s Val<'a> {
    type Items = ValItems<'s, 'a>;
    type Entries = ValEntries<'s, 'a>;

    fn kind(self) -> Kind<'s> {
        match self {
            Val::Null => Kind::Null,
            Val::Bool(b) => Kind::Bool(*b),
            Val::Int(i) => Kind::Int(*i),
            Val::UInt(u) => Kind::UInt(*u),
            Val::Float(f) => Kind::Float(*f),
            Val::BigInt(d) => Kind::Float(super::value::big_int_f64(d)),
            Val::Str(s) => Kind::Str(s),
            Val::Arr(_) => Kind::Arr,
            Val::Obj(_) => Kind::Obj,
        }
    }

    fn items(self) -> Self::Items {
        match self {
            Val::Arr(items) => items.iter(),
            _ => [].iter(),
        }
    }

    fn entries(self) -> Self::Entries {
        match self {
            Val::Obj(entries) => ValEntries(entries.iter()),
            _ => ValEntries([].iter()),
        }
    }

    fn big_int(self) -> Option<&'s str> {
        match self {
            Val::BigInt(d) => Some(d),
            _ => None,
        }
    }
}

/// The items of a serde_json array.
pub(crate) type ValueItems<'s> = std::slice::Iter<'s, serde_json::Value>;

/// The members of a serde_json object.
#[derive(Clone)]
pub(crate) struct ValueEntries<'s>(Option<serde_json::map::Iter<'s>>);

impl<'s> Iterator for ValueEntries<'s> {
    type Item = (&'s str, &'s serde_json::Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.as_mut()?.next().map(|(k, v)| (k.as_str(), v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.as_ref().map_or((0, Some(0)), Iterator::size_hint)
    }
}

impl ExactSizeIterator for ValueEntries<'_> {}

/// Objects of at most this many members are searched by [`member`] one member at a time.
pub(crate) const SCAN_FIELDS: usize = 12;

/// Member `key` of a serde_json object. The objects of a transcript (and the arguments and
/// outputs the engine looks into) have a handful of members each, and comparing the key with
/// each of them costs less than hashing it; larger objects are looked up by hash.
pub(crate) fn member<'s>(
    map: &'s serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'s serde_json::Value> {
    if map.len() <= SCAN_FIELDS {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

impl<'s> Json<'s> for &'s serde_json::Value {
    type Items = ValueItems<'s>;
    type Entries = ValueEntries<'s>;

    fn kind(self) -> Kind<'s> {
        use serde_json::Value;
        match self {
            Value::Null => Kind::Null,
            Value::Bool(b) => Kind::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Kind::Int(i),
                (None, Some(u)) => Kind::UInt(u),
                _ => Kind::Float(n.as_f64().unwrap_or(0.0)),
            },
            Value::String(s) => Kind::Str(s),
            Value::Array(_) => Kind::Arr,
            Value::Object(_) => Kind::Obj,
        }
    }

    fn items(self) -> Self::Items {
        self.as_array().map_or(&[][..], Vec::as_slice).iter()
    }

    fn entries(self) -> Self::Entries {
        ValueEntries(self.as_object().map(serde_json::Map::iter))
    }

    /// [`member`].
    fn get(self, key: &str) -> Option<Self> {
        member(self.as_object()?, key)
    }

    fn as_str(self) -> Option<&'s str> {
        serde_json::Value::as_str(self)
    }

    fn as_value(self) -> Option<&'s serde_json::Value> {
        Some(self)
    }
}
