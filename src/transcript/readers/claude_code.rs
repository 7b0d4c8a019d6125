//! Claude Code session JSONL: one content block per `assistant` line, tool results in `user`
//! lines; resumed sessions repeat lines (de-duplicated by `tool_use.id`).

use serde_json::Value;

use super::super::sink::Sink;
use super::super::spans::Seg;
use super::anthropic;

/// Claude Code session state (all linking is by tool-use id, kept in the sink).
#[derive(Default)]
pub(crate) struct State;

impl State {
    /// Feed one session line.
    pub fn line(&mut self, v: &Value, sink: &mut Sink) {
        match v.get("type").and_then(Value::as_str) {
            Some("user" | "assistant") => {}
            // `claude -p --output-format stream-json` opens with the tools the session offers
            // (names only).
            Some("system") if v.get("subtype").and_then(Value::as_str) == Some("init") => {
                for name in v
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    sink.declare(name, None, None);
                }
                return;
            }
            _ => return,
        }
        let Some(m) = v.get("message") else { return };
        anthropic::blocks(m, &[Seg::K("message"), Seg::K("content")], sink);
    }
}
