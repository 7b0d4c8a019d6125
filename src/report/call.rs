//! How a call and a JSON value read in plain text (human, concise, JUnit, markdown):
//! `issue_refund(order_id: "ORD-1001", amount_cents: 14999)`, cut to fit a width.
//!
//! Input: a call's name and arguments, the argument keys to show first (those a failed
//! constraint is about), a width in characters. Output: one line, data escaped
//! ([`crate::text::escape`]), never longer than the width (but for the name, which is always
//! shown whole up to [`NAME_CHARS`]). Cannot fail.

use serde_json::Value;

use crate::text;

/// Longest tool name shown whole; a longer one is cut with `…`.
pub const NAME_CHARS: usize = 60;

/// Longest argument value shown whole inside a call; a longer one is cut with `…`.
pub const VALUE_CHARS: usize = 40;

/// `s` cut to `max` characters, the last of them `…` when something was dropped.
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let keep: String = s.chars().take(max.saturating_sub(1)).collect();
    format!("{keep}…")
}

/// A JSON value as compact JSON text, escaped for plain text, cut to `max` characters.
pub fn value(v: &Value, max: usize) -> String {
    let json = text::json::to_string(v).unwrap_or_default();
    cut(&text::escape(&json), max)
}

/// An argument key as written in a call: bare when it is a plain identifier, else quoted.
fn key(k: &str) -> String {
    let plain = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !k.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        k.to_owned()
    } else {
        value(&Value::String(k.to_owned()), VALUE_CHARS)
    }
}

/// A call as one line: `name(key: value, …)`, the keys in `first` before the others (in the
/// order given, those the call has), each value cut to [`VALUE_CHARS`], as many arguments as fit
/// in `width` characters and `…` for the rest. Arguments that are not an object show as one
/// value; `null` (none recorded, or not read: unknown) as `name(…)`.
pub fn show(name: &str, args: &Value, first: &[&str], width: usize) -> String {
    let name = cut(&text::escape(name), NAME_CHARS);
    let items: Vec<String> = match args {
        Value::Object(m) => {
            let firsts = first.iter().filter(|k| m.contains_key(**k));
            let rest = m.keys().filter(|k| !first.contains(&k.as_str()));
            let mut seen = Vec::new();
            firsts
                .copied()
                .chain(rest.map(String::as_str))
                .filter(|k| {
                    let new = !seen.contains(k);
                    seen.push(*k);
                    new
                })
                .map(|k| format!("{}: {}", key(k), value(&m[k], VALUE_CHARS)))
                .collect()
        }
        Value::Null => return format!("{name}(…)"),
        v => vec![value(v, VALUE_CHARS)],
    };
    let mut out = format!("{name}(");
    let used = |s: &str| s.chars().count();
    for (n, item) in items.iter().enumerate() {
        let sep = if n == 0 { "" } else { ", " };
        let last = n + 1 == items.len();
        // Room for this item and the closing `)`, and for `, …)` when more follow.
        let tail = if last { 1 } else { 4 };
        if used(&out) + sep.len() + used(item) + tail <= width {
            out.push_str(sep);
            out.push_str(item);
            continue;
        }
        // The first argument is cut rather than left out, when there is room for some of it.
        let room = width.saturating_sub(used(&out) + sep.len() + 1);
        if n == 0 && room >= 8 {
            out.push_str(&cut(item, room));
        } else {
            out.push_str(sep);
            out.push('…');
        }
        break;
    }
    out.push(')');
    out
}

/// The argument key a constraint path starts with (`items[0].sku` → `items`; a quoted key
/// `"a b".c` → `a b`), if the path names one.
pub fn first_key(path: &str) -> Option<&str> {
    if let Some(rest) = path.strip_prefix('"') {
        return rest.find('"').map(|end| &rest[..end]);
    }
    let end = path.find(['.', '[']).unwrap_or(path.len());
    (end > 0).then(|| &path[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A call reads as a function call, the relevant keys first, within the width.
    #[test]
    fn calls_read_as_calls_within_the_width() {
        let args = json!({"order_id": "ORD-1001", "amount_cents": 14999, "reason": "damaged"});
        assert_eq!(
            show("issue_refund", &args, &[], 100),
            r#"issue_refund(order_id: "ORD-1001", amount_cents: 14999, reason: "damaged")"#
        );
        assert_eq!(
            show("issue_refund", &args, &["amount_cents"], 40),
            "issue_refund(amount_cents: 14999, …)"
        );
        assert_eq!(
            show("close_account", &Value::Null, &[], 40),
            "close_account(…)"
        );
        assert_eq!(
            show("close_account", &json!({}), &[], 40),
            "close_account()"
        );
        assert_eq!(show("f", &json!([1, 2]), &[], 40), "f([1,2])");
        let long = json!({"content": "x".repeat(500)});
        let shown = show("Write", &long, &[], 30);
        assert_eq!(shown.chars().count(), 30, "{shown}");
        assert!(shown.starts_with("Write(content: \"xxx") && shown.ends_with("…)"));
        for width in 0..80 {
            let s = show("issue_refund", &args, &["reason"], width);
            assert!(s.chars().count() <= width.max(15), "{width}: {s}");
        }
    }

    /// Data never reaches the text raw: names, keys and values are escaped.
    #[test]
    fn data_is_escaped() {
        let args = json!({"a\u{1b}[2J": "\u{202e}x\n::error::y"});
        let s = show("t\u{1b}]0;x\u{7}", &args, &[], 200);
        assert!(!s.chars().any(crate::text::is_control), "{s}");
    }

    #[test]
    fn first_keys() {
        assert_eq!(first_key("amount_cents"), Some("amount_cents"));
        assert_eq!(first_key("items[0].sku"), Some("items"));
        assert_eq!(first_key("\"a b\".c"), Some("a b"));
        assert_eq!(first_key(""), None);
    }
}
