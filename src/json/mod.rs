//! Fast JSON: a line read into a flat tape of nodes, values compared and printed the way
//! Python and JavaScript do, through one view ([`view::Json`]) that both the tape and a
//! serde_json-parsed [`value::Val`] implement.
//!
//! Input: a line of text. Output: its tape ([`tape::Tape::parse`]), or `None` for what the tape
//! leaves to serde_json (which then gives the exact error, or a `Val`). Nothing can fail
//! otherwise; every reader has a stated bound (nesting, keys per object). A leaf: it knows no
//! peer, format or spec; `score::profiles` reads its cases through it.

pub mod budget;
pub mod de;
pub(crate) mod keys;
pub mod lone;
mod pyprint;
pub mod pyset;
pub mod read;
pub(crate) mod scan;
pub(crate) mod tape;
pub mod text;
pub mod value;
pub(crate) mod view;
pub mod yaml;

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
/// for a line's tape, [`tape::PUSH_DEPTH`] for a document built value by value, whose builder
/// refuses more (a `Value` parsed by serde_json nests at most 128).
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

/// Whether the JSON `text` holds a number that a serde_json [`Value`] does not keep as written:
/// an integer past the 64-bit range (serde_json reads the nearest double) or `-0` (the float
/// `-0.0`, where Python reads the integer 0). Such text is what the peers' runtimes read
/// differently from its `Value`, so a profile is given the text itself
/// ([`crate::transcript::ToolCall::args_text`]). One pass over the text, strings skipped;
/// `text` is JSON (what is not may answer either way).
pub fn inexact_in_value(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                // To the closing quote, past escaped characters.
                i += 1;
                while let Some(k) = memchr::memchr2(b'"', b'\\', &b[i..]) {
                    i += k;
                    if b[i] == b'"' {
                        break;
                    }
                    i += 2;
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while b
                    .get(i)
                    .is_some_and(|d| matches!(d, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
                {
                    i += 1;
                }
                let token = &text[start..i];
                let integer = !token.contains(['.', 'e', 'E']);
                if integer
                    && (token == "-0"
                        || (token.parse::<i64>().is_err() && token.parse::<u64>().is_err()))
                {
                    return true;
                }
            }
            _ => i += 1,
        }
    }
    false
}

/// Whether a serde_json [`Value`] may hold a number that its JSON text wrote otherwise
/// ([`inexact_in_value`]): serde_json reads an integer past the 64-bit range as a double (an
/// integer-valued float of magnitude 2^63 or more) and `-0` as `-0.0`. `false` means the value
/// gives its text's numbers back as written; `true` that the text is worth a look (`1e19` and
/// `-0.0` answer `true` too). One visit per node, an explicit stack (no recursion).
pub fn may_be_inexact(v: &Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) if !n.is_i64() && !n.is_u64() => {
                let f = n.as_f64().unwrap_or(0.0);
                if (f == 0.0 && f.is_sign_negative()) || (f.fract() == 0.0 && f.abs() >= 9.2e18) {
                    return true;
                }
            }
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => stack.extend(members.values()),
            _ => {}
        }
    }
    false
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

    /// `may_be_inexact` answers true for every value serde_json reads from text that
    /// `inexact_in_value` finds inexact (and for few others).
    #[test]
    fn values_that_may_be_inexact() {
        for (text, inexact) in [
            (r#"{"n": 18446744073709551617}"#, true),
            (r"[-18446744073709551617]", true),
            (r#"{"a": [{"z": -0}]}"#, true),
            (r#"{"a": -0.0}"#, false),
            (r#"{"a": 1e19}"#, false),
            (
                r#"{"a": 18446744073709551615, "b": -9223372036854775808, "c": 0}"#,
                false,
            ),
            (r#"{"a": "18446744073709551617 -0", "b": 0.5}"#, false),
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_eq!(inexact_in_value(text), inexact, "{text}");
            if inexact {
                assert!(may_be_inexact(&v), "{text}");
            }
        }
        for (text, may) in [
            (r#"{"a": -0.0}"#, true),
            (r#"{"a": 1e19}"#, true),
            (
                r#"{"a": 18446744073709551615, "b": -9223372036854775808, "c": 0}"#,
                false,
            ),
            (
                r#"{"a": "18446744073709551617 -0", "b": [0.5, -1.5]}"#,
                false,
            ),
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_eq!(may_be_inexact(&v), may, "{text}");
        }
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

    /// `v` pushed value by value.
    fn push(v: &Value, p: &mut tape::Push) {
        match v {
            Value::Null => p.null(),
            Value::Bool(b) => p.bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => p.int(i),
                (None, Some(u), _) => p.uint(u),
                (_, _, f) => p.float(f.unwrap_or(f64::NAN)),
            },
            Value::String(s) => p.str(s),
            Value::Array(items) => {
                p.open(false);
                for x in items {
                    push(x, p);
                }
                p.close();
            }
            Value::Object(members) => {
                p.open(true);
                for (k, x) in members {
                    p.key(k);
                    push(x, p);
                }
                p.close();
            }
        }
    }

    /// What a sequence of pushes makes, as a value or the reason it makes none.
    fn pushed(f: impl FnOnce(&mut tape::Push)) -> Result<Value, &'static str> {
        let mut p = tape::Push::default();
        f(&mut p);
        p.finish().map(|t| to_value(t.tape().root()))
    }

    #[test]
    fn inexact_numbers_are_found_outside_strings() {
        for text in [
            "18446744073709551616",
            "-9223372036854775809",
            "-0",
            r#"{"a": [1, {"b": -0}]}"#,
            r#"{"s": "x\\\"", "n": 123456789012345678901234567890}"#,
        ] {
            assert!(inexact_in_value(text), "{text}");
        }
        for text in [
            "18446744073709551615",
            "-9223372036854775808",
            "-0.0",
            "-0e0",
            "0",
            "1e400",
            r#"{"a": "-0", "b": "18446744073709551616", "c": "\\"}"#,
            r#"{"a": 1.5, "b": [true, null, -12]}"#,
            "",
        ] {
            assert!(!inexact_in_value(text), "{text}");
        }
        // What the function answers is what serde_json does to the text.
        for text in ["18446744073709551616", "-0", "18446744073709551615", "-0.0"] {
            let v: Value = serde_json::from_str(text).unwrap();
            let written = serde_json::to_string(&v).unwrap();
            assert_eq!(inexact_in_value(text), written != text, "{text}");
        }
    }

    #[test]
    fn pushes_that_are_not_one_value_are_refused() {
        let key_outside = pushed(|p| p.key("a"));
        assert_eq!(
            key_outside,
            Err("a key is given outside an object, or twice")
        );
        let two_keys = pushed(|p| {
            p.open(true);
            p.key("a");
            p.key("b");
        });
        assert_eq!(two_keys, Err("a key is given outside an object, or twice"));
        let no_key = pushed(|p| {
            p.open(true);
            p.null();
        });
        assert_eq!(no_key, Err("a member's value has no key"));
        let two_values = pushed(|p| {
            p.null();
            p.null();
        });
        assert_eq!(two_values, Err("a value follows the top-level value"));
        let left_open = pushed(|p| p.open(false));
        assert_eq!(left_open, Err("the calls do not make one whole value"));
        assert_eq!(pushed(|_| {}), Err("the calls do not make one whole value"));
        let closed_twice = pushed(|p| {
            p.open(false);
            p.close();
            p.close();
        });
        assert!(closed_twice.is_err());
        let closed_after_key = pushed(|p| {
            p.open(true);
            p.key("a");
            p.close();
        });
        assert!(closed_after_key.is_err());
        // Floats that are not finite are null, as serde_json holds them.
        assert_eq!(pushed(|p| p.float(f64::NAN)), Ok(Value::Null));
        assert_eq!(pushed(|p| p.uint(u64::MAX)), Ok(Value::from(u64::MAX)));
        assert_eq!(pushed(|p| p.uint(5)), Ok(Value::from(5)));
    }

    #[test]
    fn pushes_nest_at_most_push_depth_levels() {
        let nest = |n: usize| {
            pushed(|p| {
                (0..n).for_each(|_| p.open(false));
                (0..n).for_each(|_| p.close());
            })
        };
        assert!(nest(tape::PUSH_DEPTH).is_ok());
        assert_eq!(
            nest(tape::PUSH_DEPTH + 1),
            Err("it nests more than 256 levels deep")
        );
        // Far deeper: refused the same way, without recursing.
        assert!(nest(100_000).is_err());
    }

    proptest! {
        /// A value pushed value by value is the value.
        #[test]
        fn pushed_values_are_the_values(v in json()) {
            prop_assert_eq!(pushed(|p| push(&v, p)), Ok(v));
        }

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

    /// A tape as a [`value::Val`].
    fn tape_val(v: tape::V<'_>) -> value::Val<'static> {
        match v.kind() {
            Kind::Null => value::Val::Null,
            Kind::Bool(b) => value::Val::Bool(b),
            Kind::Int(i) => value::Val::Int(i),
            Kind::UInt(u) => value::Val::UInt(u),
            Kind::Float(f) => value::Val::Float(f),
            Kind::Str(s) => value::Val::Str(s.to_owned().into()),
            Kind::Arr => value::Val::Arr(v.items().map(tape_val).collect()),
            Kind::Obj => value::Val::Obj(
                v.entries()
                    .map(|(k, x)| (k.to_owned().into(), tape_val(x)))
                    .collect(),
            ),
        }
    }

    /// The fast tape and both runtime readers agree on `text`: where the tape reads it, each
    /// runtime reads the same value; and the tape built from a runtime's value is that value.
    fn readers_agree(text: &str) -> Result<(), TestCaseError> {
        let mut bufs = tape::Buffers::default();
        let fast = tape::Tape::parse(text, &mut bufs).map(|t| tape_val(t.root()));
        for rt in [read::Runtime::PY311, read::Runtime::JavaScript] {
            let slow = read::read(text, rt);
            if let Some(fast) = &fast {
                let (slow, _) = slow
                    .as_ref()
                    .map_err(|e| TestCaseError::fail(format!("{rt:?} refuses {text}: {e:?}")))?;
                prop_assert_eq!(fast, slow, "{:?}: {}", rt, text);
            }
            if let Ok((v, _)) = &slow {
                let mut bufs = tape::Buffers::default();
                let t = tape::Tape::from_val(v, &mut bufs);
                let back = tape_val(t.root());
                // NaN is not equal to itself; big integers come back as their nearest double
                // through `kind` (their digits through `big_int`).
                let plain =
                    !format!("{v:?}").contains("BigInt") && !format!("{v:?}").contains("NaN");
                if plain {
                    prop_assert_eq!(&back, v, "{}", text);
                }
            }
        }
        Ok(())
    }

    /// Lines of the classes the peers' runtimes read differently from serde_json: duplicate
    /// keys, `-0`, integers past 64 bits, `NaN` and `Infinity`, `1e400`, wide objects, escapes,
    /// deep nesting, lone surrogates.
    fn hard_line() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("-0".to_owned()),
            Just("-0.0".to_owned()),
            Just("18446744073709551616".to_owned()),
            Just("-9223372036854775809".to_owned()),
            Just("123456789012345678901234567890".to_owned()),
            Just("NaN".to_owned()),
            Just("-Infinity".to_owned()),
            Just("1e400".to_owned()),
            Just(r#""\ud83d\ude00""#.to_owned()),
            Just(r#""\ud800""#.to_owned()),
            Just(r#""a\u00e9""#.to_owned()),
            Just("1".to_owned()),
            Just("2.5".to_owned()),
            Just("null".to_owned()),
            "[a-z]{0,3}".prop_map(|s| format!("\"{s}\"")),
        ];
        leaf.prop_recursive(5, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec(("[ab]", inner.clone()), 0..6).prop_map(|m| {
                    let members: Vec<String> =
                        m.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                    format!("{{{}}}", members.join(","))
                }),
                (1usize..300, inner.clone()).prop_map(|(n, v)| format!(
                    "{}{v}{}",
                    "[".repeat(n),
                    "]".repeat(n)
                )),
                (25usize..40, inner).prop_map(|(n, v)| {
                    let members: Vec<String> = (0..n).map(|i| format!("\"k{i}\":{v}")).collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    proptest! {
        /// The fast tape and the runtime readers agree on every printed value and on lines of
        /// the hard classes.
        #[test]
        fn tape_and_runtime_readers_agree(v in json(), hard in hard_line()) {
            readers_agree(&v.to_string())?;
            readers_agree(&serde_json::to_string_pretty(&v).unwrap())?;
            readers_agree(&hard)?;
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
