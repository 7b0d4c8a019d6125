//! Fast JSON: a line read into a flat tape of nodes, values compared and printed the way
//! Python and JavaScript do, through one view ([`view::Json`]) that both the tape and a
//! serde_json-parsed [`value::Val`] implement.
//!
//! Input: a line of text. Output: its tape ([`tape::Tape::parse`]), or `None` for what the tape
//! leaves to serde_json (which then gives the exact error, or a `Val`). Nothing can fail
//! otherwise; every reader has a stated bound (nesting, keys per object). A leaf: it knows no
//! peer, format or spec; `score::profiles` reads its cases through it.

pub(crate) mod keys;
mod pyprint;
pub(crate) mod scan;
pub(crate) mod tape;
pub mod text;
pub mod value;
pub(crate) mod view;

use serde_json::Value;

use view::{Json, Kind};

/// The tape's reading of `text` as a serde_json [`Value`], or `None` where the tape leaves the
/// text to serde_json. The `tape_serde` fuzz target and the tests below hold it to
/// `serde_json::from_str::<Value>`: where the tape accepts, both read the same value.
#[doc(hidden)]
pub fn tape_value(text: &str) -> Option<Value> {
    let mut bufs = tape::Buffers::default();
    let tape = tape::Tape::parse(text, &mut bufs)?;
    Some(to_value(tape.root()))
}

/// A view as an owned serde_json [`Value`]: a `Value` is copied as it is.
pub(crate) fn owned_value<'s, J: Json<'s>>(v: J) -> Value {
    v.as_value().cloned().unwrap_or_else(|| to_value(v))
}

/// A view as a serde_json [`Value`]. The recursion is bounded by the view's nesting: 64 levels
/// for a line's tape, 128 for a document built value by value (whose builders refuse more).
pub(crate) fn to_value<'s, J: Json<'s>>(v: J) -> Value {
    match v.kind() {
        Kind::Null => Value::Null,
        Kind::Bool(b) => Value::Bool(b),
        Kind::Int(i) => Value::from(i),
        Kind::UInt(u) => Value::from(u),
        Kind::Float(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        Kind::Str(s) => Value::String(s.to_owned()),
        Kind::Arr => Value::Array(v.items().map(to_value).collect()),
        Kind::Obj => Value::Object(
            v.entries()
                .map(|(k, x)| (k.to_owned(), to_value(x)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The tape and serde_json agree on `text`: where the tape accepts, serde_json reads the
    /// same value.
    fn agree(text: &str) -> Result<(), TestCaseError> {
        if let Some(tape) = tape_value(text) {
            let serde: Value = serde_json::from_str(text)
                .map_err(|e| TestCaseError::fail(format!("tape accepts, serde_json: {e}")))?;
            prop_assert_eq!(tape, serde, "{}", text);
        }
        Ok(())
    }

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
            "\\PC{0,8}".prop_map(Value::String),
            "[\"\\\\\\\\/\\u{0}-\\u{1f}\\u{7f}\\u{e9}\\u{20ac}\\u{1f600}a]{0,6}"
                .prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec(("[a-z_\"\\\\]{0,4}", inner), 0..8)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Every value serde_json prints, compact or indented, reads back the same through the
        /// tape (where the tape takes it).
        #[test]
        fn tape_equals_serde_on_printed_values(v in json()) {
            agree(&v.to_string())?;
            agree(&serde_json::to_string_pretty(&v).unwrap())?;
        }

        /// Any text: where the tape accepts, serde_json reads the same value.
        #[test]
        fn tape_equals_serde_on_any_text(s in "[ \\[\\]{}:,\"\\\\0-9eE.+\\-a-z\\u{e9}\\t\\n]{0,40}") {
            agree(&s)?;
        }

        /// Printed values with one byte changed.
        #[test]
        fn tape_equals_serde_on_mutated_values(v in json(), at in any::<prop::sample::Index>(), b in any::<u8>()) {
            let mut bytes = v.to_string().into_bytes();
            let i = at.index(bytes.len());
            bytes[i] = b;
            if let Ok(text) = std::str::from_utf8(&bytes) {
                agree(text)?;
            }
        }
    }

    /// Numbers at the edges of the tape's own parser, and texts it leaves to serde_json.
    #[test]
    fn tape_equals_serde_on_edge_cases() {
        for text in [
            "-0",
            "-0.0",
            "0e0",
            "1e22",
            "1e23",
            "4.9e-324",
            "1e400",
            "-1e400",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "123456789012345678901234567890",
            "0.30000000000000004",
            "1.7976931348623157e308",
            "2.2250738585072014e-308",
            r#""\ud83d\ude00""#,
            r#""\ud800""#,
            r#"{"a":1,"a":2}"#,
            " [ 1 , 2 ] ",
            "[1,]",
            "01",
            "1.",
            ".5",
            r#"{"__proto__":{}}"#,
        ] {
            agree(text).unwrap();
        }
        assert!(tape_value(r#" [1, {"a": "b\u00e9"}, -2.5e3, null] "#).is_some());
    }
}
