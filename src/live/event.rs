//! One Claude Code hook event, as its command hook reads it on standard input.
//!
//! Input: the event's JSON bytes (at most [`MAX_EVENT_BYTES`]). Output: an [`Event`], with only
//! what the guard reads of it. Fails with a message on bytes that are too many, not JSON, not
//! an object, or missing what the event needs (`session_id`, a `PreToolUse`'s `tool_name`).
//! Fields are read by name and others ignored, so later protocol versions that add fields read
//! the same.

use serde_json::Value;

/// The most bytes of one event read (a `PostToolUse` carries the tool's whole response).
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// The most bytes of a `session_id`.
pub const MAX_SESSION_ID: usize = 200;

/// What happened, as the guard reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A tool is about to run: allow it, or deny it.
    PreToolUse(Call),
    /// A tool ran: its response.
    PostToolUse {
        /// The call.
        call: Call,
        /// `tool_response`.
        output: Value,
    },
    /// A tool ran and failed: its error.
    PostToolUseFailure {
        /// The call.
        call: Call,
        /// `error`.
        error: Value,
    },
    /// The agent is about to stop (`Stop`) or a sub-agent is (`SubagentStop`).
    Stop {
        /// `stop_hook_active`: the agent is already going on because a Stop hook blocked.
        active: bool,
        /// For `SubagentStop`, the sub-agent (`agent_type`, else `agent_id`); `None` for `Stop`.
        subagent: Option<String>,
    },
    /// A session starts (or is resumed, cleared, compacted).
    SessionStart,
    /// The user sent a prompt: a new turn.
    UserPromptSubmit,
    /// Any other event: nothing to do.
    Other(String),
}

/// A tool call of an event.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// `tool_name`.
    pub name: String,
    /// `tool_input` (`{}` when absent).
    pub input: Value,
    /// `tool_use_id`, when given.
    pub id: Option<String>,
    /// The sub-agent making it (`agent_type`, else `agent_id`), when the event comes from one.
    pub agent: Option<String>,
}

/// One hook event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `hook_event_name`.
    pub name: String,
    /// `session_id`.
    pub session_id: String,
    /// `transcript_path`, when given.
    pub transcript_path: Option<String>,
    /// What happened.
    pub kind: Kind,
}

impl Event {
    /// Read an event from its JSON bytes.
    pub fn parse(bytes: &[u8]) -> Result<Event, String> {
        if bytes.len() > MAX_EVENT_BYTES {
            return Err(format!(
                "the hook event is {} bytes, more than the {} the guard reads",
                bytes.len(),
                MAX_EVENT_BYTES
            ));
        }
        let v: Value = serde_json::from_slice(bytes)
            .map_err(|e| format!("the hook event is not JSON: {e}"))?;
        let Some(o) = v.as_object() else {
            return Err("the hook event is not a JSON object".to_owned());
        };
        let text = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
        let name =
            text("hook_event_name").ok_or("the hook event has no `hook_event_name` string")?;
        let session_id = text("session_id").ok_or("the hook event has no `session_id` string")?;
        if session_id.is_empty() || session_id.len() > MAX_SESSION_ID {
            return Err(format!(
                "the hook event's `session_id` is {} bytes; the guard takes 1 to {MAX_SESSION_ID}",
                session_id.len()
            ));
        }
        let agent = text("agent_type")
            .filter(|a| !a.is_empty())
            .or_else(|| text("agent_id"));
        let call = || -> Result<Call, String> {
            Ok(Call {
                name: text("tool_name")
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| format!("the {name} event has no `tool_name` string"))?,
                input: o
                    .get("tool_input")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Default::default())),
                id: text("tool_use_id").filter(|i| !i.is_empty()),
                agent: agent.clone(),
            })
        };
        let kind = match name.as_str() {
            "PreToolUse" => Kind::PreToolUse(call()?),
            "PostToolUse" => Kind::PostToolUse {
                call: call()?,
                output: o.get("tool_response").cloned().unwrap_or(Value::Null),
            },
            "PostToolUseFailure" => Kind::PostToolUseFailure {
                call: call()?,
                error: o.get("error").cloned().unwrap_or(Value::Null),
            },
            "Stop" | "SubagentStop" => Kind::Stop {
                active: o.get("stop_hook_active").and_then(Value::as_bool) == Some(true),
                subagent: if name == "SubagentStop" {
                    Some(agent.clone().unwrap_or_default())
                } else {
                    None
                },
            },
            "SessionStart" => Kind::SessionStart,
            "UserPromptSubmit" => Kind::UserPromptSubmit,
            other => Kind::Other(other.to_owned()),
        };
        Ok(Event {
            name,
            session_id,
            transcript_path: text("transcript_path").filter(|p| !p.is_empty()),
            kind,
        })
    }
}

/// The journal's file name for a session: its id with every byte other than an ASCII letter,
/// digit, `-` or `_` written `%XX`, then `.jsonl`. No id can name another folder (`/`, `..`),
/// a hidden file, or two ids one file.
pub fn journal_file_name(session_id: &str) -> String {
    let mut out = String::with_capacity(session_id.len() + 6);
    for b in session_id.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.push_str(".jsonl");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_never_leave_the_state_folder() {
        assert_eq!(journal_file_name("c5c7-2240_a"), "c5c7-2240_a.jsonl");
        assert_eq!(
            journal_file_name("../../etc/x"),
            "%2E%2E%2F%2E%2E%2Fetc%2Fx.jsonl"
        );
        assert_eq!(journal_file_name(".hidden"), "%2Ehidden.jsonl");
        assert_eq!(journal_file_name("a%2F"), "a%252F.jsonl");
        assert_eq!(journal_file_name("é\n"), "%C3%A9%0A.jsonl");
    }

    #[test]
    fn events_read_what_the_guard_needs() {
        let e = Event::parse(br#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1","cwd":"/x","extra":1}"#).unwrap();
        assert_eq!(
            e.kind,
            Kind::PreToolUse(Call {
                name: "Bash".into(),
                input: serde_json::json!({"command": "ls"}),
                id: Some("t1".into()),
                agent: None,
            })
        );
        let e = Event::parse(
            br#"{"session_id":"s","hook_event_name":"SubagentStop","stop_hook_active":true,"agent_type":"reviewer"}"#,
        )
        .unwrap();
        assert_eq!(
            e.kind,
            Kind::Stop {
                active: true,
                subagent: Some("reviewer".into())
            }
        );
        for bad in [
            &b"[1]"[..],
            b"{",
            br#"{"hook_event_name":"Stop"}"#,
            br#"{"session_id":"","hook_event_name":"Stop"}"#,
            br#"{"session_id":"s","hook_event_name":"PreToolUse"}"#,
        ] {
            assert!(
                Event::parse(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let long = format!(
            r#"{{"session_id":"{}","hook_event_name":"Stop"}}"#,
            "a".repeat(MAX_SESSION_ID + 1)
        );
        assert!(Event::parse(long.as_bytes()).is_err());
    }
}
