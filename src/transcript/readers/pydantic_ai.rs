//! pydantic-ai message history: what `result.all_messages_json()` (or
//! `ModelMessagesTypeAdapter.dump_json(messages)`) writes, a list of `ModelRequest` /
//! `ModelResponse` messages `{kind: "request" | "response", parts[]}` whose parts are told apart by
//! `part_kind`. Calls are the `tool-call` and `builtin-tool-call` parts `{tool_name, args,
//! tool_call_id}`; results are `tool-return` / `builtin-tool-return` parts `{tool_name, content,
//! tool_call_id, outcome?}` and `retry-prompt` parts with a `tool_name`, linked by `tool_call_id`.

use crate::json::view::Json;

use super::super::detect;
use super::super::sink::{norm_output, Args, Sink};
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
pub(crate) fn read<'s, J: Json<'s>>(v: J, sink: &mut Sink) -> Result<(), String> {
    let Some(messages) = v.as_items() else {
        return Err(format!(
            "expected a pydantic-ai message history (a list of `{{kind, parts}}` messages); found {}",
            detect::describe(v)
        ));
    };
    for (i, m) in messages.enumerate() {
        for (j, part) in m.items_of("parts").enumerate() {
            let path = [Seg::I(i), Seg::K("parts"), Seg::I(j)];
            match part.str_of("part_kind") {
                Some("tool-call" | "builtin-tool-call") => {
                    let args = part
                        .get("args")
                        .filter(|a| !a.is_null())
                        .map_or(Args::Empty, Args::of);
                    let l = sink.at(&path);
                    sink.call(
                        part.str_of("tool_name").unwrap_or(""),
                        args,
                        part.str_of("tool_call_id").map(str::to_string),
                        l,
                    );
                }
                Some("tool-return" | "builtin-tool-return") => {
                    // `failed`: the tool raised (`ToolFailed`); `retried`: it asked for a retry
                    // (`ModelRetry`) or its arguments failed validation. `denied` and
                    // `interrupted` calls did not run: not errors.
                    let error = matches!(part.str_of("outcome"), Some("failed" | "retried"));
                    answer(part, error, &path, sink);
                }
                // A retry prompt without a tool name asks for another text or structured
                // answer: it answers no call.
                Some("retry-prompt") if part.get("tool_name").is_some_and(J::is_str) => {
                    answer(part, true, &path, sink);
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Link a result part to its call by `tool_call_id`.
fn answer<'s, J: Json<'s>>(part: J, error: bool, path: &[Seg], sink: &mut Sink) {
    let output = || {
        part.get("content")
            .filter(|c| !c.is_null())
            .map(norm_output)
    };
    let linked = match part.str_of("tool_call_id") {
        Some(id) => sink.answer_id_with(id, output, error),
        None => false,
    };
    if !linked {
        let l = sink.at(path);
        sink.finding(
            Code::OrphanResult,
            format!(
                "result of `{}` has no matching call",
                part.str_of("tool_name").unwrap_or("")
            ),
            l,
        );
    }
}
