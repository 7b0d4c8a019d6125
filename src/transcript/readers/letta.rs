//! Letta agent files (`.af`, github.com/letta-ai/agent-file): what Letta exports of a stateful
//! agent. The model is Letta's `AgentFileSchema` (`letta/schemas/agent_file.py`):
//! `{agents: [AgentSchema], groups, blocks, files, sources, tools, mcp_servers, metadata,
//! created_at}`, each agent `{name, id, in_context_message_ids, messages: [MessageSchema], …}`.
//! A message `{role, content, tool_calls, tool_call_id, tool_returns, approvals, …}`:
//! - an `assistant` message's `tool_calls` are OpenAI Chat tool calls `{id, type: function,
//!   function: {name, arguments}}` (arguments as JSON text): one call each;
//! - a `tool` message answers calls: each of its `tool_returns` (`ToolReturn {tool_call_id,
//!   status: success | error, func_response, stdout, stderr}`) the call of its id, its output
//!   `func_response` (else the message's text), an error when `status` is `error`; a `tool`
//!   message without `tool_returns` answers its `tool_call_id` with its `content` text, an error
//!   when that text is Letta's function response `{"status": "Failed", …}`;
//! - `approvals` (human-in-the-loop answers) that are `ToolReturn`s answer calls the same way.
//!
//! The older single-agent export (Letta 0.6–0.7, `serialize_schemas/pydantic_agent_schema.py`):
//! the agent itself at the root, `{messages, in_context_message_indices, core_memory,
//! llm_config, …}`, its messages of the same shape.
//!
//! The first agent is the main agent; the others (a sleeptime agent its group runs beside it,
//! or more agents exported together) are sub-agents, by their `name`, so a spec's `agent "NAME"`
//! block binds their calls. Every exported message is read, in the context window or not.
//! Turns and the final answer are not recorded: Letta writes its own reminders and heartbeats as
//! `user` messages, and an agent answers through a tool (`send_message`) or in text.

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, content_text, field, s, Args, Sink};
use super::super::spans::Seg;
use crate::code::Code;
use crate::json::view::Json;

/// Whether `v` is a Letta agent file: `agents` whose first holds `messages` and an agent's
/// marks (`in_context_message_ids`, `llm_config` or `agent_type`), or the older export, one
/// agent at the root with `messages` and `in_context_message_indices`.
pub(crate) fn is_agent_file<'s, J: Json<'s>>(v: J) -> bool {
    if !v.is_obj() {
        return false;
    }
    let agent_marks = |a: J| {
        a.get("messages").is_some_and(J::is_arr)
            && ["in_context_message_ids", "llm_config", "agent_type"]
                .iter()
                .any(|k| a.get(k).is_some())
    };
    if let Some(first) = v.get("agents").and_then(|a| a.as_items()?.next()) {
        return agent_marks(first);
    }
    v.get("messages").is_some_and(J::is_arr)
        && v.get("in_context_message_indices").is_some_and(J::is_arr)
}

/// Read a Letta agent file.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    if !is_agent_file(v) {
        return Err(format!(
            "expected a Letta agent file `{{agents: [{{messages, …}}]}}`; found {}",
            detect::describe(v)
        ));
    }
    match field(v, "agents").and_then(Value::as_array) {
        Some(agents) => {
            for (i, a) in agents.iter().enumerate() {
                let name = (i > 0)
                    .then(|| s(a, "name").unwrap_or(""))
                    .filter(|n| !n.is_empty());
                sink.set_agent(name);
                messages(a, &[Seg::K("agents"), Seg::I(i)], sink);
            }
            sink.set_agent(None);
        }
        None => messages(v, &[], sink),
    }
    Ok(())
}

/// The calls and results of one agent's `messages`.
fn messages(agent: &Value, at: &[Seg], sink: &mut Sink) {
    for (i, m) in arr(agent, "messages").iter().enumerate() {
        let mut path = at.to_vec();
        path.extend([Seg::K("messages"), Seg::I(i)]);
        match s(m, "role") {
            Some("tool") => {
                let returns = arr(m, "tool_returns");
                if returns.is_empty() {
                    let text = content_text(field(m, "content"));
                    let failed = text.as_deref().is_some_and(failed_response);
                    if let Some(id) = s(m, "tool_call_id") {
                        answer(sink, id, text.map(Value::String), failed, &path);
                    }
                } else {
                    let text = (returns.len() == 1)
                        .then(|| content_text(field(m, "content")))
                        .flatten();
                    for r in returns {
                        tool_return(sink, r, s(m, "tool_call_id"), text.as_deref(), &path);
                    }
                }
            }
            Some("assistant") => {
                for (j, tc) in arr(m, "tool_calls").iter().enumerate() {
                    let Some(f) = field(tc, "function") else {
                        continue;
                    };
                    let args = field(f, "arguments")
                        .filter(|a| !a.is_null())
                        .map_or(Args::Empty, Args::Value);
                    let loc = sink.at_in(&path, &[Seg::K("tool_calls"), Seg::I(j)]);
                    sink.call(
                        s(f, "name").unwrap_or(""),
                        args,
                        s(tc, "id").map(str::to_string),
                        loc,
                    );
                }
            }
            _ => {}
        }
        for r in arr(m, "approvals")
            .iter()
            .filter(|r| field(r, "status").is_some())
        {
            tool_return(sink, r, None, None, &path);
        }
    }
}

/// A `ToolReturn`: the call of its `tool_call_id` (else `id`) answered with its
/// `func_response` (else `text`, else its `stdout` lines), an error when `status` is `error`.
fn tool_return(sink: &mut Sink, r: &Value, id: Option<&str>, text: Option<&str>, path: &[Seg]) {
    let Some(id) = s(r, "tool_call_id").or(id) else {
        return;
    };
    let output = match field(r, "func_response") {
        Some(Value::String(t)) => Some(Value::String(t.clone())),
        Some(v) if !v.is_null() => Some(v.clone()),
        _ => text.map(|t| Value::String(t.to_owned())).or_else(|| {
            let lines: Vec<&str> = arr(r, "stdout").iter().filter_map(Value::as_str).collect();
            (!lines.is_empty()).then(|| Value::String(lines.join("")))
        }),
    };
    answer(sink, id, output, s(r, "status") == Some("error"), path);
}

fn answer(sink: &mut Sink, id: &str, output: Option<Value>, failed: bool, path: &[Seg]) {
    if !sink.answer_id(id, output, failed) {
        let loc = sink.at(path);
        sink.finding(
            Code::OrphanResult,
            format!("tool result for `{id}` has no matching call"),
            loc,
        );
    }
}

/// Letta's function response of a failed call: `{"status": "Failed", "message": …, "time": …}`.
fn failed_response(text: &str) -> bool {
    text.trim_start().starts_with('{')
        && serde_json::from_str::<Value>(text)
            .ok()
            .is_some_and(|v| s(&v, "status") == Some("Failed"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Format, Reader};

    fn read_text(text: &str) -> crate::transcript::Transcript {
        let mut ts = Reader::new().read("a.af", text.as_bytes()).unwrap();
        assert_eq!(ts.len(), 1);
        ts.remove(0)
    }

    #[test]
    fn calls_their_returns_and_the_sub_agents_of_an_agent_file() {
        let doc = r#"{"agents": [
  {"name": "main", "id": "agent-0", "agent_type": "letta_v1_agent", "in_context_message_ids": [], "messages": [
    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "assistant", "content": [], "tool_calls": [
      {"id": "c1", "type": "function", "function": {"name": "send_message", "arguments": "{\"message\": \"hello\"}"}},
      {"id": "c2", "type": "function", "function": {"name": "web_search", "arguments": "{\"q\": \"x\"}"}}
    ]},
    {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "both"}], "tool_returns": [
      {"tool_call_id": "c1", "status": "success", "func_response": "sent"},
      {"tool_call_id": "c2", "status": "error", "func_response": "timeout"}
    ]}
  ]},
  {"name": "main-sleeptime", "id": "agent-1", "agent_type": "sleeptime_agent", "messages": [
    {"role": "assistant", "tool_calls": [{"id": "c3", "type": "function", "function": {"name": "memory_finish_edits", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c3", "content": [{"type": "text", "text": "{\"status\": \"Failed\", \"message\": \"no\"}"}]},
    {"role": "tool", "tool_call_id": "nope", "content": "x"}
  ]}
], "groups": [], "tools": []}"#;
        let t = read_text(doc);
        assert_eq!(t.format, Format::LettaAgentFile);
        let got: Vec<_> = t
            .calls
            .iter()
            .map(|c| {
                (
                    c.name.as_str(),
                    c.id.as_deref(),
                    c.output.clone(),
                    c.is_error,
                    c.agent.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("send_message", Some("c1"), Some("sent".into()), false, None),
                ("web_search", Some("c2"), Some("timeout".into()), true, None),
                (
                    "memory_finish_edits",
                    Some("c3"),
                    Some("{\"status\": \"Failed\", \"message\": \"no\"}".into()),
                    true,
                    Some("main-sleeptime")
                ),
            ]
        );
        assert_eq!(t.calls[0].args, serde_json::json!({"message": "hello"}));
        assert_eq!(t.findings.len(), 1, "{:?}", t.findings);
        assert_eq!(t.findings[0].code, "orphan-result");
    }

    #[test]
    fn the_older_single_agent_export_reads_the_same() {
        let doc = r#"{"agent_type": "memgpt_agent", "version": "0.6.47", "core_memory": [], "llm_config": {},
  "in_context_message_indices": [0, 1],
  "messages": [
    {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "send_message", "arguments": "{\"message\": \"hi\"}"}}], "tool_call_id": null},
    {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "{\"status\": \"OK\"}"}]}
  ]}"#;
        let t = read_text(doc);
        assert_eq!(t.format, Format::LettaAgentFile);
        assert_eq!(t.calls.len(), 1);
        assert_eq!(t.calls[0].output, Some("{\"status\": \"OK\"}".into()));
        assert!(!t.calls[0].is_error);
    }

    #[test]
    fn what_is_no_agent_file_is_not_detected_as_one() {
        for doc in [
            r#"{"agents": [{"name": "x", "messages": []}]}"#,
            r#"{"messages": [], "llm_config": {}}"#,
            r#"{"agents": []}"#,
        ] {
            let v: Value = serde_json::from_str(doc).unwrap();
            assert!(!is_agent_file(&v), "{doc}");
        }
    }

    /// Agent files generated from a seed (several agents, several calls a message, returns
    /// split across tool messages, answered out of order or not at all, error statuses,
    /// returns without a call) read as the calls the generator wrote, each with its output,
    /// error flag and agent.
    #[test]
    fn generated_agent_files_read_as_generated() {
        let mut seed = 0x5eed_u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        for case in 0..300 {
            let mut agents = Vec::new();
            let mut want = Vec::new();
            let mut orphans = 0;
            for a in 0..=next(3) {
                let name = format!("agent{a}");
                let mut messages = Vec::new();
                for m in 0..next(5) {
                    let mut calls = Vec::new();
                    let mut returns = Vec::new();
                    for c in 0..=next(3) {
                        let id = format!("c{case}-{a}-{m}-{c}");
                        let tool = format!("tool{}", next(4));
                        let args = serde_json::json!({"n": next(100), "s": "x\"y"});
                        calls.push(serde_json::json!({"id": id, "type": "function",
                            "function": {"name": tool, "arguments": args.to_string()}}));
                        let answered = next(4) != 0;
                        let failed = answered && next(3) == 0;
                        if answered {
                            returns.push(serde_json::json!({"tool_call_id": id,
                                "status": if failed { "error" } else { "success" },
                                "func_response": format!("out {id}"), "stdout": null}));
                        }
                        let output = answered.then(|| Value::String(format!("out {id}")));
                        let agent = (a > 0).then(|| name.clone());
                        want.push(serde_json::json!([tool, args, id, output, failed, agent]));
                    }
                    messages.push(serde_json::json!({"role": "assistant", "content": [], "tool_calls": calls}));
                    if next(5) == 0 {
                        orphans += 1;
                        returns.push(serde_json::json!({"tool_call_id": "none", "status": "success", "func_response": "?"}));
                    }
                    // Returns in one tool message or one each, in any order.
                    if next(2) == 0 {
                        returns.reverse();
                    }
                    if !returns.is_empty() && next(2) == 0 {
                        messages.push(serde_json::json!({"role": "tool", "tool_returns": returns}));
                    } else {
                        for r in returns {
                            messages.push(serde_json::json!({"role": "tool",
                                "tool_call_id": r["tool_call_id"], "tool_returns": [r]}));
                        }
                    }
                }
                agents.push(serde_json::json!({"name": name, "id": format!("agent-{a}"),
                    "agent_type": "letta_v1_agent", "in_context_message_ids": [], "messages": messages}));
            }
            let doc = serde_json::json!({"agents": agents, "groups": [], "tools": []}).to_string();
            let t = read_text(&doc);
            let got: Vec<Value> = t
                .calls
                .iter()
                .map(|c| serde_json::json!([c.name, c.args, c.id, c.output, c.is_error, c.agent]))
                .collect();
            assert_eq!(got, want, "case {case}: {doc}");
            assert_eq!(t.findings.len(), orphans, "case {case}: {:?}", t.findings);
        }
    }
}
