//! Parsing a session line without building what its reader will not read.
//!
//! Most of a coding agent's session is tool output: in a Claude Code session, each result is
//! written twice, as the `tool_result` block's `content` and again as the line's top-level
//! `toolUseResult` (three quarters of the bytes of a typical session), beside a dozen small
//! members (ids, timestamps, working directory, token usage). The reader looks at none of those
//! but `type` and `message.content`, and at a result's `content` only to keep it as the call's
//! output.
//! Building those strings into a `Value` tree, to free them a moment later, was most of the
//! cost of checking such a session.
//!
//! [`parse_line`] builds the same `Value` as `serde_json::from_slice` except for the members a
//! [`Prune`] rule leaves out, which are still parsed by serde_json (so the line is checked as
//! strictly, UTF-8 included: a skipped member is read as a borrowed `&RawValue`, which
//! serde_json validates) but never built. Everything below the pruned levels is deserialized
//! by `Value`'s own implementation. (`serde::de::IgnoredAny` would skip faster, but it does
//! not check UTF-8 in the strings it skips.)

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// What a session line's reader reads; the rest is parsed but not built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prune {
    /// The top-level members the reader reads (the others are skipped); `None`: all.
    pub top: Option<&'static [&'static str]>,
    /// The members of the top-level `message` the reader reads; `None`: all.
    pub message: Option<&'static [&'static str]>,
    /// Leave out `content` of the `tool_result` blocks in `message.content` (the outputs), when
    /// no call's output is kept. The blocks' other members, and the content of every other
    /// block type, are built as usual.
    pub result_content: bool,
}

impl Prune {
    /// The rule for a Claude Code session line: `readers::claude_code` reads `type`, the
    /// `subtype` and `tools` of a `system` line, and `message.content`; given whether any
    /// call's output is kept.
    pub fn claude_code(outputs: bool) -> Prune {
        Prune {
            top: Some(&["type", "subtype", "tools", "message"]),
            message: Some(&["content"]),
            result_content: !outputs,
        }
    }
}

/// Parse one JSON value from `json`, leaving out what `rule` prunes. Errors are serde_json's,
/// at the same positions as `serde_json::from_slice`'s.
pub(crate) fn parse_line(json: &[u8], rule: Prune) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let v = Level { rule, at: At::Top }.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// [`parse_line`] for a line already known to be UTF-8: serde_json then checks no string's
/// UTF-8 again (neither the ones it builds nor the members it skips). Same values and errors.
pub(crate) fn parse_line_str(json: &str, rule: Prune) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(json);
    let v = Level { rule, at: At::Top }.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// Where in the line a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Top,
    /// The top-level `message`.
    Message,
    /// `message.content`.
    Blocks,
    /// An item of `message.content`.
    Block,
}

struct Level {
    rule: Prune,
    at: At,
}

impl<'de> DeserializeSeed<'de> for Level {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl Level {
    fn child(&self, key: &str) -> Option<At> {
        match (self.at, key) {
            (At::Top, "message") => Some(At::Message),
            (At::Message, "content") if self.rule.result_content => Some(At::Blocks),
            _ => None,
        }
    }
}

impl<'de> Visitor<'de> for Level {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        if self.at == At::Blocks {
            while let Some(v) = seq.next_element_seed(Level {
                rule: self.rule,
                at: At::Block,
            })? {
                items.push(v);
            }
        } else {
            while let Some(v) = seq.next_element::<Value>()? {
                items.push(v);
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        // A block's `content`, held as text until the block's `type` is known.
        let mut held: Option<&'de RawValue> = None;
        while let Some(key) = map.next_key_seed(Key)? {
            let reads = |keys: Option<&[&str]>| keys.is_none_or(|k| k.contains(&key.as_ref()));
            let read = match self.at {
                At::Top => reads(self.rule.top),
                At::Message => reads(self.rule.message),
                At::Blocks | At::Block => true,
            };
            if !read {
                // Parsed and validated (UTF-8 included), not built.
                map.next_value::<&'de RawValue>()?;
                continue;
            }
            if self.at == At::Block && key == "content" {
                held = Some(map.next_value::<&'de RawValue>()?);
                // Keeps the member's place (and the last-wins rule for a repeated key).
                members.insert(key.into_owned(), Value::Null);
                continue;
            }
            let value = match self.child(&key) {
                Some(at) => map.next_value_seed(Level {
                    rule: self.rule,
                    at,
                })?,
                None => map.next_value::<Value>()?,
            };
            members.insert(key.into_owned(), value);
        }
        if let Some(raw) = held {
            let ty = members.get("type").and_then(Value::as_str);
            if matches!(ty, Some("tool_result" | "mcp_tool_result")) {
                members.shift_remove("content");
            } else if let Some(slot) = members.get_mut("content") {
                *slot = serde_json::from_str(raw.get()).map_err(serde::de::Error::custom)?;
            }
        }
        Ok(Value::Object(members))
    }
}

/// A member's key, borrowed from the line unless it has escapes (a skipped member's key is
/// never allocated).
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: &[&str] = &[
        r#"{"type":"system","subtype":"init","tools":["Read","Bash"],"session_id":"x","cwd":"/w"}"#,
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.py"}}]},"uuid":"u1"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"line 1\nline 2","is_error":false}]},"toolUseResult":{"file":{"content":"line 1\nline 2"}},"uuid":"u2"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"content":[{"type":"text","text":"x"}],"type":"tool_result","tool_use_id":"t2"},{"type":"web_search_tool_result","tool_use_id":"s1","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}]}}"#,
        r#"{"type":"user","message":{"role":"user","content":"plain text"}}"#,
        r#"{"type":"summary","summary":"s","leafUuid":"x","message":null}"#,
        r#"[1, 2.5, -3, "x", null, true]"#,
        r#"{"typ\u0065":"user","message":{"cont\u0065nt":[{"type":"tool_result","content":"x"}]},"uu\u0069d":1}"#,
        r#"{"message":{"content":[1,{"type":"tool_result","content":1,"content":2}]},"toolUseResult":1,"toolUseResult":2}"#,
    ];

    fn full(line: &str) -> Value {
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn without_pruning_the_value_is_serde_jsons() {
        let none = Prune {
            top: None,
            message: None,
            result_content: false,
        };
        for line in LINES {
            assert_eq!(
                parse_line(line.as_bytes(), none).unwrap(),
                full(line),
                "{line}"
            );
        }
    }

    #[test]
    fn pruned_members_are_left_out_and_nothing_else() {
        for line in LINES {
            for outputs in [true, false] {
                let mut want = full(line);
                if let Some(o) = want.as_object_mut() {
                    o.retain(|k, _| ["type", "subtype", "tools", "message"].contains(&k.as_str()));
                    if let Some(m) = o.get_mut("message").and_then(Value::as_object_mut) {
                        m.retain(|k, _| k == "content");
                    }
                }
                if !outputs {
                    let blocks = want
                        .pointer_mut("/message/content")
                        .and_then(Value::as_array_mut);
                    for b in blocks.into_iter().flatten() {
                        if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                            b.as_object_mut().unwrap().shift_remove("content");
                        }
                    }
                }
                let got = parse_line(line.as_bytes(), Prune::claude_code(outputs)).unwrap();
                assert_eq!(got, want, "{line} (outputs kept: {outputs})");
                // Same member order as serde_json's for what is kept.
                assert_eq!(got.to_string(), want.to_string());
            }
        }
    }

    #[test]
    fn text_and_bytes_give_the_same_values_and_errors() {
        let bad = [
            r#"{"toolUseResult":[1,}"#,
            r#"{"a":1} x"#,
            r#"{"a":"\q"}"#,
            "{\"a\":\"\u{1}\"}",
        ];
        for line in LINES.iter().chain(&bad) {
            for outputs in [true, false] {
                let rule = Prune::claude_code(outputs);
                let (a, b) = (
                    parse_line(line.as_bytes(), rule),
                    parse_line_str(line, rule),
                );
                match (a, b) {
                    (Ok(a), Ok(b)) => assert_eq!(a.to_string(), b.to_string(), "{line}"),
                    (Err(a), Err(b)) => assert_eq!(
                        (a.line(), a.column(), a.to_string()),
                        (b.line(), b.column(), b.to_string()),
                        "{line}"
                    ),
                    (a, b) => panic!("{line}: {a:?} against {b:?}"),
                }
            }
        }
    }

    #[test]
    fn pruned_members_are_still_checked() {
        let rule = Prune::claude_code(false);
        let bad_utf8 = b"{\"type\":\"user\",\"toolUseResult\":\"\xff\"}";
        assert!(parse_line(bad_utf8, rule).is_err());
        let bad_escape = br#"{"message":{"content":[{"type":"tool_result","content":"\q"}]}}"#;
        assert!(parse_line(bad_escape, rule).is_err());
        for line in [r#"{"toolUseResult":[1,}"#, r#"{"a":1} x"#, r#"{"a":"#] {
            let ours = parse_line(line.as_bytes(), rule).unwrap_err();
            let theirs = serde_json::from_str::<Value>(line).unwrap_err();
            assert_eq!(
                (ours.line(), ours.column(), ours.classify()),
                (theirs.line(), theirs.column(), theirs.classify()),
                "{line}"
            );
        }
    }
}
