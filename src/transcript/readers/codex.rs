//! OpenAI Codex CLI rollout JSONL: `response_item` payloads carry calls and outputs;
//! `event_msg` and `compacted` lines repeat them and are ignored.

use crate::code::Code;
use serde_json::Value;

use super::super::sink::{field, norm_output, s, Args, Sink};
use super::super::spans::Seg;
use super::super::Format;

/// Read a document of Codex rollout lines (an array of them, or one).
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    super::session_doc(Format::CodexCli, "Codex rollout", v, sink)
}

/// Codex session state (linking is by `call_id`, kept in the sink).
#[derive(Default)]
pub(crate) struct State;

impl State {
    /// Feed one rollout line.
    pub(crate) fn line(&mut self, v: &Value, sink: &mut Sink) {
        // The user's prompts and the agent's messages, as the session's events record them
        // (the `response_item` messages also hold injected context).
        if s(v, "type") == Some("event_msg") {
            let p = field(v, "payload").unwrap_or(&Value::Null);
            match s(p, "type") {
                Some("user_message") => sink.user_turn(),
                Some("agent_message") => sink.assistant_text(s(p, "message").unwrap_or("")),
                _ => {}
            }
            return;
        }
        if s(v, "type") != Some("response_item") {
            return;
        }
        let Some(p) = field(v, "payload") else { return };
        let loc = sink.at(&[Seg::K("payload")]);
        let call_id = s(p, "call_id").map(str::to_string);
        match s(p, "type").unwrap_or("") {
            "function_call" => {
                let args = field(p, "arguments").map_or(Args::Empty, Args::Value);
                let i = sink.call(s(p, "name").unwrap_or(""), args, call_id, loc);
                sink.set_namespace(i, namespace(s(p, "namespace")));
            }
            "custom_tool_call" => {
                let input = s(p, "input").unwrap_or("").to_string();
                let i = sink.call(s(p, "name").unwrap_or(""), Args::Raw(input), call_id, loc);
                sink.set_namespace(i, namespace(s(p, "namespace")));
            }
            "local_shell_call" => {
                let action = p
                    .get("action")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Default::default()));
                sink.call("local_shell", Args::Owned(action), call_id, loc);
            }
            "web_search_call" => {
                let action = p
                    .get("action")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Default::default()));
                let i = sink.call_unique("web_search", Args::Owned(action), None, loc);
                sink.answer(i, None, s(p, "status") == Some("failed"));
            }
            "function_call_output" | "custom_tool_call_output" => {
                let Some(id) = call_id else { return };
                let out = match field(p, "output") {
                    Some(Value::Object(o)) if o.contains_key("content") => {
                        field(o, "content").map(norm_output)
                    }
                    Some(o) => Some(norm_output(o)),
                    None => None,
                };
                let err = out.as_ref().is_some_and(exit_code_failed);
                if !sink.answer_id(&id, out, err) {
                    sink.finding(
                        Code::OrphanResult,
                        format!("output for `{id}` has no matching call"),
                        loc,
                    );
                }
            }
            _ => {}
        }
    }
}

/// The namespace of a call's tool (Codex 0.128 on): an MCP server's is written
/// `mcp__SERVER__`, read as `SERVER` (the server's name in Codex's configuration, and what
/// other formats record: a Responses `mcp_call`'s `server_label`); any other (`codex_app`) as
/// it is. The call's name stays the tool's, as the model called it.
pub(crate) fn namespace(ns: Option<&str>) -> Option<&str> {
    let ns = ns?;
    Some(
        ns.strip_prefix("mcp__")
            .and_then(|r| r.strip_suffix("__"))
            .filter(|server| !server.is_empty())
            .unwrap_or(ns),
    )
}

/// Codex marks failure only through the exit code in the output text (JSON metadata or the
/// `Exit code: N` header).
pub(crate) fn exit_code_failed(out: &Value) -> bool {
    let Some(text) = out.as_str() else {
        return false;
    };
    if text.starts_with('{') {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            if let Some(code) = field(&v, "metadata").and_then(|m| field(m, "exit_code")) {
                return match code {
                    Value::Null => false,
                    Value::Number(n) => n.as_f64() != Some(0.0),
                    _ => false,
                };
            }
        }
    }
    // The header before `Output:`: `Exit code: N` (before 0.125), or `Process exited with
    // code N` (0.125 on; a process still running says `Process running with session ID N`
    // instead, and has not failed).
    for line in text.lines().take_while(|l| *l != "Output:").take(8) {
        let code = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "));
        if let Some(code) = code {
            return code.trim().parse::<i64>().is_ok_and(|c| c != 0);
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_mcp_namespace_is_its_server() {
        assert_eq!(namespace(Some("mcp__node_repl__")), Some("node_repl"));
        assert_eq!(namespace(Some("mcp__a__b__")), Some("a__b"));
        assert_eq!(namespace(Some("codex_app")), Some("codex_app"));
        assert_eq!(namespace(Some("mcp____")), Some("mcp____"));
        assert_eq!(namespace(None), None);
    }

    #[test]
    fn exit_codes_in_both_output_forms() {
        assert!(exit_code_failed(&json!(
            "{\"output\":\"x\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.1}}"
        )));
        assert!(!exit_code_failed(&json!(
            "{\"output\":\"x\",\"metadata\":{\"exit_code\":0}}"
        )));
        assert!(exit_code_failed(&json!(
            "Exit code: 2\nWall time: 1 seconds\nOutput:\n"
        )));
        assert!(!exit_code_failed(&json!("Exit code: 0\nOutput:\n")));
        assert!(!exit_code_failed(&json!(
            "execution error: No such file or directory (os error 2)"
        )));
        assert!(exit_code_failed(&json!(
            "Chunk ID: 1d7024\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 0\nOutput:\n"
        )));
        assert!(!exit_code_failed(&json!(
            "Chunk ID: 1d7024\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nok\n"
        )));
        assert!(!exit_code_failed(&json!(
            "Chunk ID: 9\nWall time: 5.0 seconds\nProcess running with session ID 3\nOutput:\nExit code: 1\n"
        )));
    }
}
