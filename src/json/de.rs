//! A [`Val`] as a serde [`Deserializer`]: the typed case structs of the profiles are read from
//! the value a runtime's reader ([`super::read`]) made, so a duplicate key is already the last
//! value (serde's derive would call it a `duplicate field`), numbers are what the runtime holds,
//! and nothing is read twice. Errors are serde_json's (`invalid type: null, expected a
//! sequence`), without a position.

use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde::forward_to_deserialize_any;

use super::value::Val;

/// Deserialize from a borrowed [`Val`].
#[derive(Clone, Copy)]
pub struct ValDe<'de, 'a>(pub &'de Val<'a>);

type Error = serde_json::Error;

impl<'de, 'a: 'de> Deserializer<'de> for ValDe<'de, 'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Val::Null => visitor.visit_unit(),
            Val::Bool(b) => visitor.visit_bool(*b),
            Val::Int(i) => visitor.visit_i64(*i),
            Val::UInt(u) => visitor.visit_u64(*u),
            Val::Float(f) => visitor.visit_f64(*f),
            Val::BigInt(d) => visitor.visit_newtype_struct(BigIntDe(d)),
            Val::Str(s) => visitor.visit_borrowed_str(s),
            Val::Arr(items) => visitor.visit_seq(Items(items.iter())),
            Val::Obj(members) => visitor.visit_map(Members {
                it: members.iter(),
                value: None,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Val::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Val::Str(s) => visitor.visit_enum(s.as_ref().into_deserializer()),
            other => Err(de::Error::invalid_type(unexpected(other), &"a string")),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

/// What a value is, for serde's `invalid type` errors.
fn unexpected<'de>(v: &'de Val<'_>) -> de::Unexpected<'de> {
    match v {
        Val::Null => de::Unexpected::Unit,
        Val::Bool(b) => de::Unexpected::Bool(*b),
        Val::Int(i) => de::Unexpected::Signed(*i),
        Val::UInt(u) => de::Unexpected::Unsigned(*u),
        Val::Float(f) => de::Unexpected::Float(*f),
        Val::BigInt(_) => de::Unexpected::Other("integer"),
        Val::Str(s) => de::Unexpected::Str(s),
        Val::Arr(_) => de::Unexpected::Seq,
        Val::Obj(_) => de::Unexpected::Map,
    }
}

/// The digits of a big integer, handed to [`Val`]'s visitor as a string.
struct BigIntDe<'de>(&'de str);

impl<'de> Deserializer<'de> for BigIntDe<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.0)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct Items<'de, 'a>(std::slice::Iter<'de, Val<'a>>);

impl<'de, 'a: 'de> SeqAccess<'de> for Items<'de, 'a> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|v| seed.deserialize(ValDe(v)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Members<'de, 'a> {
    it: std::slice::Iter<'de, (std::borrow::Cow<'a, str>, Val<'a>)>,
    value: Option<&'de Val<'a>>,
}

impl<'de, 'a: 'de> MapAccess<'de> for Members<'de, 'a> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((k, v)) = self.it.next() else {
            return Ok(None);
        };
        self.value = Some(v);
        seed.deserialize(KeyDe(k)).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(v) => seed.deserialize(ValDe(v)),
            None => Err(de::Error::custom("a value without its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.it.len())
    }
}

/// A member's key.
struct KeyDe<'de>(&'de str);

impl<'de> Deserializer<'de> for KeyDe<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.0)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::borrow::Cow;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Case<'a> {
        #[serde(borrow)]
        name: Cow<'a, str>,
        #[serde(borrow, default)]
        args: Option<Val<'a>>,
        #[serde(default)]
        n: Option<f64>,
        #[serde(borrow, default)]
        list: Vec<Cow<'a, str>>,
    }

    fn case(line: &str) -> Result<Case<'_>, String> {
        let (v, _) = super::super::read::read(line, super::super::read::Runtime::PY311)
            .map_err(|e| e.message)?;
        // The case borrows from the line only where the value does; this test copies.
        let c = Case::deserialize(ValDe(&v)).map_err(|e| e.to_string())?;
        Ok(Case {
            name: Cow::Owned(c.name.into_owned()),
            args: c.args.map(|a| crate::json::value::into_owned(&a)),
            n: c.n,
            list: c
                .list
                .into_iter()
                .map(|s| Cow::Owned(s.into_owned()))
                .collect(),
        })
    }

    #[test]
    fn typed_cases_read_from_a_runtime_value() {
        let c = case(r#"{"name":"a","name":"b","args":{"x":18446744073709551617,"x":-0},"n":1}"#)
            .unwrap();
        assert_eq!(c.name, "b");
        assert_eq!(c.args, Some(Val::Obj(vec![("x".into(), Val::Int(0))])));
        assert_eq!(c.n, Some(1.0));
        let c = case(r#"{"name":"a","args":[18446744073709551617, NaN]}"#).unwrap();
        let Some(Val::Arr(items)) = c.args else {
            panic!()
        };
        assert_eq!(items[0], Val::BigInt("18446744073709551617".into()));
        assert!(matches!(items[1], Val::Float(f) if f.is_nan()));
        assert_eq!(
            case(r#"{"name":null}"#).unwrap_err(),
            "invalid type: null, expected a string"
        );
        assert_eq!(
            case(r#"{"name":"a","list":{}}"#).unwrap_err(),
            "invalid type: map, expected a sequence"
        );
        assert_eq!(case(r#"{"list":[]}"#).unwrap_err(), "missing field `name`");
    }
}
