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
    type Items: Iterator<Item = Self> + ExactSizeIterator;
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
}
