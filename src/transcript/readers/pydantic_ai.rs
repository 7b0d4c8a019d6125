//! pydantic-ai message history: what `result.all_messages_json()` (or
//! `ModelMessagesTypeAdapter.dump_json(messages)`) writes, a list of `ModelRequest` /
//! `ModelResponse` messages `{kind: "request" | "response", parts[]}` whose parts are told apart by
//! `part_kind`. Calls are the `tool-call` and `builtin-tool-call` parts `{tool_name, args,
//! tool_call_id}`; results are `tool-return` / `builtin-tool-return` parts `{tool_name, content,
//! tool_call_id, outcome?}` and `retry-prompt` parts with a `tool_name`, linked by `tool_call_id`.

use serde_json::Value;

use crate::json::view::Json;

use super::super::detect;
use super::super::sink::{arr, field, norm_output, s, Args, Sink};
use super::super::spans::Seg;
use crate::code::Code;

/// Whether `v` is a pydantic-ai message history: a non-empty list of `{kind: request | response,
/// parts[]}` messages whose parts all have a `part_kind` string, with at least one part.
pub(crate) fn is_history<'s, J: Json<'s>>(v: J) -> bool {
    let Some(messages) = v.as_items() else {
        return false;
    };
    messages.len() > 0
        && messages.clone().all(|m| {
            matches!(m.str_of("kind"), Some("request" | "response"))
                && m.get("parts")
                    .and_then(J::as_items)
                    .is_some_and(|mut p| p.all(|part| part.get("part_kind").is_some_and(J::is_str)))
        })
        && { messages }.any(|m| m.items_of("parts").len() > 0)
}

/// Read a message history.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    let Value::Array(messages) = v else {
        return Err(format!(
            "expected a pydantic-ai message history (a list of `{{kind, parts}}` messages); found {}",
            detect::describe(v)
        ));
    };
    for (i, m) in messages.iter().enumerate() {
        for (j, part) in arr(m, "parts").iter().enumerate() {
            let path = [Seg::I(i), Seg::K("parts"), Seg::I(j)];
            match s(part, "part_kind") {
                Some("tool-call" | "builtin-tool-call") => {
                    let args = part
                        .get("args")
                        .filter(|a| !a.is_null())
                        .map_or(Args::Empty, Args::Value);
                    let l = sink.at(&path);
                    sink.call(
                        s(part, "tool_name").unwrap_or(""),
                        args,
                        s(part, "tool_call_id").map(str::to_string),
                        l,
                    );
                }
                Some("tool-return" | "builtin-tool-return") => {
                    // `failed`: the tool raised (`ToolFailed`); `retried`: it asked for a retry
                    // (`ModelRetry`) or its arguments failed validation. `denied` and
                    // `interrupted` calls did not run: not errors.
                    let error = matches!(s(part, "outcome"), Some("failed" | "retried"));
                    answer(part, error, &path, sink);
                }
                // A retry prompt without a tool name asks for another text or structured
                // answer: it answers no call.
                Some("retry-prompt") if field(part, "tool_name").is_some_and(Value::is_string) => {
                    answer(part, true, &path, sink);
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Link a result part to its call by `tool_call_id`.
fn answer(part: &Value, error: bool, path: &[Seg], sink: &mut Sink) {
    let output = part
        .get("content")
        .filter(|c| !c.is_null())
        .map(norm_output);
    let linked = match s(part, "tool_call_id") {
        Some(id) => sink.answer_id(id, output, error),
        None => false,
    };
    if !linked {
        let l = sink.at(path);
        sink.finding(
            Code::OrphanResult,
            format!(
                "result of `{}` has no matching call",
                s(part, "tool_name").unwrap_or("")
            ),
            l,
        );
    }
}
