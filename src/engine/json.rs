//! JSON comparison as the constraints define it, and short renderings for messages.
//!
//! Numbers compare by numeric value: `1` equals `1.0`. JSON has one number type, and the Python
//! and JavaScript tools whose transcripts we read agree (`1 == 1.0` in both), so a model that
//! writes `"limit": 10.0` for a spec's `limit: 10` has called the tool correctly. Integers compare
//! exactly (no rounding through `f64`); an integer equals a float only when the float is integral
//! and the two denote the same number.

use serde_json::{Number, Value};

use crate::config::JsonType;
use crate::transcript::field;

/// Numeric equality without rounding large integers through `f64`.
pub(crate) fn num_eq(a: &Number, b: &Number) -> bool {
    match (int_of(a), int_of(b)) {
        (Some(x), Some(y)) => x == y,
        (Some(x), None) => float_eq_int(b.as_f64(), x),
        (None, Some(y)) => float_eq_int(a.as_f64(), y),
        (None, None) => a.as_f64() == b.as_f64(),
    }
}

/// Numeric order, exact: integers as integers, an integer against a decimal without rounding
/// the integer through `f64` (`9007199254740993 > 9007199254740992.0`), decimals as the doubles
/// they were read as. `None` only for a non-finite number, which JSON cannot hold.
pub(crate) fn num_cmp(a: &Number, b: &Number) -> Option<std::cmp::Ordering> {
    match (int_of(a), int_of(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => int_float_cmp(x, b.as_f64()?),
        (None, Some(y)) => int_float_cmp(y, a.as_f64()?).map(std::cmp::Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// `x` against `f`, exactly: `f`'s floor is an integer that `i128` holds exactly (`|f|` is far
/// below 2¹²⁷ once the sign cases are settled), and `f` lies in `[floor, floor + 1)`.
fn int_float_cmp(x: i128, f: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    if !f.is_finite() {
        return None;
    }
    if f >= 1e30 {
        return Some(Ordering::Less);
    }
    if f <= -1e30 {
        return Some(Ordering::Greater);
    }
    let floor = f.floor();
    #[allow(clippy::cast_possible_truncation)] // integral and within ±1e30
    let t = floor as i128;
    Some(match x.cmp(&t) {
        Ordering::Equal if f > floor => Ordering::Less,
        other => other,
    })
}

pub(crate) fn int_of(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

fn float_eq_int(f: Option<f64>, i: i128) -> bool {
    match f {
        Some(f) if f.fract() == 0.0 && f.abs() < 1.8e19 => f as i128 == i,
        _ => false,
    }
}

/// JSON equality with numeric number comparison; object key order is ignored.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => num_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| field(y, k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Where `actual` fails to contain `expected` (objects may have extra keys; arrays compare
/// element-wise with equal length), as `(relative path, reason)`; `None` when it contains it.
pub(crate) fn subset_diff(
    actual: &Value,
    expected: &Value,
    detail: bool,
) -> Option<(String, String)> {
    // Without `detail`, only whether: no path or reason is written (empty strings).
    let text = |f: &dyn Fn() -> String| if detail { f() } else { String::new() };
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            for (k, ev) in e {
                match field(a, k) {
                    None => {
                        return Some((
                            text(&|| key_step(k)),
                            text(&|| format!("missing, expected {}", show(ev))),
                        ))
                    }
                    Some(av) => {
                        if let Some((p, why)) = subset_diff(av, ev, detail) {
                            return Some((text(&|| format!("{}{p}", key_step(k))), why));
                        }
                    }
                }
            }
            None
        }
        (Value::Array(a), Value::Array(e)) => {
            if a.len() != e.len() {
                return Some((
                    String::new(),
                    text(&|| format!("{} elements, expected {}", a.len(), e.len())),
                ));
            }
            for (i, (av, ev)) in a.iter().zip(e).enumerate() {
                if let Some((p, why)) = subset_diff(av, ev, detail) {
                    return Some((text(&|| format!("[{i}]{p}")), why));
                }
            }
            None
        }
        _ if json_eq(actual, expected) => None,
        _ => Some((
            String::new(),
            text(&|| format!("{} ≠ {}", show(actual), show(expected))),
        )),
    }
}

fn key_step(k: &str) -> String {
    if is_plain_key(k) {
        format!(".{k}")
    } else {
        format!("[{}]", Value::String(k.to_owned()))
    }
}

/// Whether a key can be written bare in a dotted path.
pub(crate) fn is_plain_key(k: &str) -> bool {
    !k.is_empty()
        && !k.starts_with(|c: char| c.is_ascii_digit())
        && k.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// Whether `v` is of type `t` (JSON Schema: an integer is a number without fractional part).
pub(crate) fn has_type(v: &Value, t: JsonType) -> bool {
    match t {
        JsonType::Null => v.is_null(),
        JsonType::Boolean => v.is_boolean(),
        JsonType::Number => v.is_number(),
        JsonType::Integer => match v {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        JsonType::String => v.is_string(),
        JsonType::Array => v.is_array(),
        JsonType::Object => v.is_object(),
    }
}

/// The JSON type name of a value, for messages.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Longest rendering of a value inside a message, in characters.
const SHOW_CHARS: usize = 80;

/// Compact JSON, cut to a readable length with `…`.
pub(crate) fn show(v: &Value) -> String {
    let s = v.to_string();
    cut(&s, SHOW_CHARS)
}

/// `s` cut to `max` characters, with `…` when something was dropped.
pub(crate) fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

/// Longest string kept in a failure's `actual` field.
const ACTUAL_CHARS: usize = 1000;

/// A value for a failure's `actual` field: long strings (anywhere inside) are cut so that a
/// verdict stays small when a call carries a megabyte of output.
pub(crate) fn trimmed(v: &Value) -> Value {
    match v {
        Value::String(s) if s.len() > ACTUAL_CHARS => Value::String(cut(s, ACTUAL_CHARS)),
        Value::Array(a) => Value::Array(a.iter().map(trimmed).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), trimmed(v))).collect()),
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_order_exactly() {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let n = |v: Value| match v {
            Value::Number(n) => n,
            _ => unreachable!(),
        };
        let cmp = |a: Value, b: Value| num_cmp(&n(a), &n(b));
        // 2⁵³ + 1 rounds to 2⁵³ as a double: compared exactly, it is larger.
        assert_eq!(
            cmp(
                json!(9_007_199_254_740_993_u64),
                json!(9_007_199_254_740_992_u64)
            ),
            Some(Greater)
        );
        assert_eq!(
            cmp(
                json!(9_007_199_254_740_993_u64),
                json!(9_007_199_254_740_992.0)
            ),
            Some(Greater)
        );
        assert_eq!(
            cmp(
                json!(9_007_199_254_740_992.0),
                json!(9_007_199_254_740_993_u64)
            ),
            Some(Less)
        );
        assert_eq!(
            cmp(
                json!(9_007_199_254_740_992_u64),
                json!(9_007_199_254_740_992.0)
            ),
            Some(Equal)
        );
        assert_eq!(cmp(json!(u64::MAX), json!(i64::MIN)), Some(Greater));
        assert_eq!(
            cmp(json!(u64::MAX), json!(1.8446744073709552e19)),
            Some(Less)
        );
        assert_eq!(cmp(json!(-3), json!(-2.5)), Some(Less));
        assert_eq!(cmp(json!(-2), json!(-2.5)), Some(Greater));
        assert_eq!(cmp(json!(2), json!(2.0)), Some(Equal));
        assert_eq!(cmp(json!(0), json!(-0.0)), Some(Equal));
        // 0.1 + 0.2 is the double just above 0.3.
        assert_eq!(cmp(json!(0.1 + 0.2), json!(0.3)), Some(Greater));
        assert_eq!(cmp(json!(0.3), json!(0.1 + 0.2)), Some(Less));
        assert_eq!(cmp(json!(1e300), json!(i64::MAX)), Some(Greater));
        assert_eq!(cmp(json!(-1e300), json!(u64::MAX)), Some(Less));
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!json_eq(&json!(1), &json!(1.5)));
        assert!(!json_eq(&json!(1), &json!("1")));
        // No rounding through f64: 2^53 + 1 is not 2^53.
        assert!(!json_eq(
            &json!(9007199254740993_u64),
            &json!(9007199254740992.0)
        ));
        assert!(json_eq(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!json_eq(&json!(-1), &json!(u64::MAX)));
    }

    #[test]
    fn object_key_order_is_ignored() {
        let a: Value = serde_json::from_str(r#"{"a":1,"b":2}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"b":2,"a":1}"#).unwrap();
        assert!(json_eq(&a, &b));
        assert!(!json_eq(&a, &json!({"a": 1})));
    }

    #[test]
    fn subset_reports_the_first_difference() {
        let actual = json!({"items": [{"sku": "A", "n": 1}], "x": true});
        assert_eq!(
            subset_diff(&actual, &json!({"items": [{"sku": "A"}]}), true),
            None
        );
        assert_eq!(
            subset_diff(&actual, &json!({"items": [{"sku": "B"}]}), true),
            Some((".items[0].sku".into(), r#""A" ≠ "B""#.into()))
        );
        assert_eq!(
            subset_diff(&actual, &json!({"y": 1}), true),
            Some((".y".into(), "missing, expected 1".into()))
        );
        assert_eq!(
            subset_diff(&actual, &json!({"items": []}), true),
            Some((".items".into(), "1 elements, expected 0".into()))
        );
        // Without detail: the same decision, nothing written.
        for expected in [
            json!({"items": [{"sku": "A"}]}),
            json!({"items": [{"sku": "B"}]}),
            json!({"y": 1}),
            json!({"items": []}),
            json!(true),
            actual.clone(),
        ] {
            let detailed = subset_diff(&actual, &expected, true);
            let bare = subset_diff(&actual, &expected, false);
            assert_eq!(bare.is_some(), detailed.is_some(), "{expected}");
            assert!(bare.is_none_or(|(at, why)| at.is_empty() && why.is_empty()));
        }
    }

    #[test]
    fn integer_type_accepts_integral_floats() {
        assert!(has_type(&json!(3.0), JsonType::Integer));
        assert!(!has_type(&json!(3.5), JsonType::Integer));
        assert!(has_type(&json!(3.5), JsonType::Number));
    }

    #[test]
    fn long_values_are_cut() {
        let long = "é".repeat(2000);
        assert_eq!(show(&json!(long)).chars().count(), SHOW_CHARS + 1);
        assert_eq!(
            trimmed(&json!({"a": long})).as_object().unwrap()["a"]
                .as_str()
                .unwrap()
                .chars()
                .count(),
            ACTUAL_CHARS + 1
        );
    }
}
