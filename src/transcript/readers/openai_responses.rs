//! OpenAI Responses API: `Response` objects, input item lists, conversation item lists,
//! request bodies; function, custom and hosted tool items.

use serde_json::Value;

use super::super::detect;
use super::super::sink::{content_text, is_prompt, norm_output, Args, Loc, Sink};
use super::super::spans::Seg;
use crate::code::Code;
use crate::json::owned_value;
use crate::json::view::Json;

/// Read a Responses document, or one stream event: a `response.output_item.done` event's `item`
/// is read as an output item; other events (`response.created`, deltas, `response.completed`,
/// which repeats the items) are skipped.
pub(crate) fn read<'s, J: Json<'s>>(v: J, sink: &mut Sink) -> Result<(), String> {
    if detect::is_responses_event(v) {
        if v.str_of("type") == Some("response.output_item.done") {
            if let Some(item) = v.get("item") {
                items(&[item], |_| vec![Seg::K("item")], sink);
            }
        }
        return Ok(());
    }
    for t in v.items_of("tools") {
        if let Some(name) = t.str_of("name") {
            sink.declare(name, t.get("description"), t.get("parameters"));
        } else if let Some(call) = t.str_of("type").and_then(hosted_call_name) {
            // A hosted tool: declared under the name its calls are read as.
            sink.declare::<J>(call, None, None);
        }
    }
    declare_mcp_tools(v, sink);
    declare_named_interpreter_calls(v, sink);
    let (items_v, root): (Vec<J>, Seg) = if let Some(o) = v.get("output").and_then(J::as_items) {
        (o.collect(), Seg::K("output"))
    } else if let Some(d) = v.get("data").and_then(J::as_items) {
        (d.collect(), Seg::K("data"))
    } else if let Some(m) = detect::messages(v) {
        let seg = if v.get("messages").is_some() {
            Seg::K("messages")
        } else {
            Seg::K("input")
        };
        (m.collect(), seg)
    } else {
        return Err(format!(
            "expected `output`, `data`, `input` or an item list; found {}",
            detect::describe(v)
        ));
    };
    let bare = v.is_arr();
    items(
        &items_v,
        |i| {
            if bare {
                vec![Seg::I(i)]
            } else {
                vec![root, Seg::I(i)]
            }
        },
        sink,
    );
    Ok(())
}

/// Read a list of items; `path(i)` locates item `i`.
pub(super) fn items<'s, J: Json<'s>>(
    items: &[J],
    path: impl Fn(usize) -> Vec<Seg>,
    sink: &mut Sink,
) {
    let mut i = 0;
    while let Some(&it) = items.get(i) {
        let loc = sink.at(&path(i));
        i += if item(it, items.get(i + 1).copied(), loc, sink) {
            2
        } else {
            1
        };
    }
}

/// Read one item located at `loc`; `next` is the item after it, if any. True when `next` was
/// read with it (a `tool_search_output` answers the `tool_search_call` before it).
fn item<'s, J: Json<'s>>(it: J, next: Option<J>, loc: Loc, sink: &mut Sink) -> bool {
    let ty = it.str_of("type").unwrap_or("");
    // The OpenAI Agents SDK for TypeScript writes the same items in camelCase (`callId`).
    let call_id = it
        .str_of("call_id")
        .or_else(|| it.str_of("callId"))
        .map(str::to_string);
    let item_id = it.str_of("id").map(str::to_string);
    let failed = it.str_of("status") == Some("failed");
    // Messages: a user prompt starts a turn; assistant text is the answer so far.
    if matches!(ty, "message" | "") {
        match it.str_of("role") {
            Some("user") if is_prompt(it.get("content")) => sink.user_turn(),
            Some("assistant") => {
                if let Some(text) = content_text(it.get("content")) {
                    sink.assistant_text(&text);
                }
            }
            _ => {}
        }
    }
    let obj = |key: &str| {
        it.get(key)
            .map_or_else(|| Value::Object(Default::default()), owned_value)
    };
    match ty {
        "function_call" => {
            let args = it.get("arguments").map_or(Args::Empty, Args::of);
            sink.call(
                it.str_of("name").unwrap_or(""),
                args,
                call_id.or(item_id),
                loc,
            );
        }
        "custom_tool_call" => {
            let input = it.str_of("input").unwrap_or("").to_string();
            sink.call(
                it.str_of("name").unwrap_or(""),
                Args::Raw(input),
                call_id.or(item_id),
                loc,
            );
        }
        "computer_call" => {
            let i2 = sink.call(
                "computer",
                Args::Owned(obj("action")),
                call_id.or(item_id),
                loc,
            );
            if failed {
                sink.flag_error(i2);
            }
        }
        "shell_call" | "apply_patch_call" | "local_shell_call" => {
            let (name, key) = match ty {
                "shell_call" => ("shell", "action"),
                "apply_patch_call" => ("apply_patch", "operation"),
                _ => ("local_shell", "action"),
            };
            let i2 = sink.call(name, Args::Owned(obj(key)), call_id.or(item_id), loc);
            // Its `*_output` item may still follow: flag, do not answer.
            if failed {
                sink.flag_error(i2);
            }
        }
        "function_call_output"
        | "function_call_result"
        | "custom_tool_call_output"
        | "computer_call_output"
        | "computer_call_result"
        | "shell_call_output"
        | "apply_patch_call_output"
        | "local_shell_call_output" => {
            let id = call_id.or(item_id);
            let out = it.get("output").map(output_value);
            // Only the hosted-tool output items say they failed: `apply_patch_call_output`
            // by `status`, `shell_call_output` by an outcome that is not exit code 0.
            let error = failed || (ty == "shell_call_output" && shell_failed(it));
            if let Some(id) = id {
                if !sink.answer_id(&id, out, error) {
                    sink.finding(
                        Code::OrphanResult,
                        format!("`{ty}` for `{id}` has no matching call"),
                        loc,
                    );
                }
            }
        }
        "web_search_call" => {
            let i2 = sink.call("web_search", Args::Owned(obj("action")), item_id, loc);
            sink.answer(i2, None, failed);
        }
        "file_search_call" => {
            let mut args = serde_json::Map::new();
            args.insert(
                "queries".into(),
                it.get("queries").map_or(Value::Null, owned_value),
            );
            let i2 = sink.call(
                "file_search",
                Args::Owned(Value::Object(args)),
                item_id,
                loc,
            );
            sink.answer(
                i2,
                it.get("results").filter(|r| !r.is_null()).map(owned_value),
                failed,
            );
        }
        // xAI writes its hosted code execution as a `code_interpreter_call` with a `name`
        // and JSON-string `arguments` (no `code`), and an empty `call_id`.
        "code_interpreter_call" if it.get("code").is_none() && it.get("arguments").is_some() => {
            let args = it.get("arguments").map_or(Args::Empty, Args::of);
            let id = call_id.filter(|c| !c.is_empty()).or(item_id);
            let i2 = sink.call(
                it.str_of("name").unwrap_or("code_interpreter"),
                args,
                id,
                loc,
            );
            sink.answer(
                i2,
                it.get("outputs").filter(|r| !r.is_null()).map(norm_output),
                failed,
            );
        }
        "code_interpreter_call" => {
            let mut args = serde_json::Map::new();
            args.insert(
                "code".into(),
                it.get("code").map_or(Value::Null, owned_value),
            );
            let i2 = sink.call(
                "code_interpreter",
                Args::Owned(Value::Object(args)),
                item_id,
                loc,
            );
            sink.answer(
                i2,
                it.get("outputs").filter(|r| !r.is_null()).map(norm_output),
                failed,
            );
        }
        // Programmatic tool calling: the model's program is a call of its own; the
        // `function_call` items it makes (`caller.type: "program"`) are plain calls.
        "program" => {
            let mut args = serde_json::Map::new();
            args.insert(
                "code".into(),
                it.get("code").map_or(Value::Null, owned_value),
            );
            let i2 = sink.call(
                "program",
                Args::Owned(Value::Object(args)),
                call_id.or(item_id),
                loc,
            );
            if failed {
                sink.flag_error(i2);
            }
        }
        "program_output" => {
            let out = it
                .get("result")
                .or_else(|| it.get("output"))
                .filter(|r| !r.is_null())
                .map(norm_output);
            if let Some(id) = call_id.or(item_id) {
                if !sink.answer_id(&id, out, failed) {
                    sink.finding(
                        Code::OrphanResult,
                        format!("`{ty}` for `{id}` has no matching call"),
                        loc,
                    );
                }
            }
        }
        // The TypeScript Agents SDK's hosted tools (web search, file search, hosted MCP, …):
        // `{name, arguments?, status, output?}`.
        "hosted_tool_call" => {
            let args = it.get("arguments").map_or(Args::Empty, Args::of);
            let i2 = sink.call(it.str_of("name").unwrap_or(""), args, item_id, loc);
            let out = it.get("output").filter(|o| !o.is_null()).map(norm_output);
            if out.is_some() || failed {
                sink.answer(i2, out, failed);
            }
        }
        "image_generation_call" => {
            let i2 = sink.call("image_generation", Args::Empty, item_id, loc);
            sink.answer(
                i2,
                it.get("result").filter(|r| !r.is_null()).map(owned_value),
                failed,
            );
        }
        "mcp_call" => {
            let args = it.get("arguments").map_or(Args::Empty, Args::of);
            let i2 = sink.call(it.str_of("name").unwrap_or(""), args, item_id, loc);
            sink.set_namespace(i2, it.str_of("server_label"));
            let err = it.get("error").filter(|e| !e.is_null());
            let out = match err {
                Some(e) => Some(norm_output(e)),
                None => it.get("output").filter(|o| !o.is_null()).map(norm_output),
            };
            sink.answer(i2, out, err.is_some() || failed);
        }
        "tool_search_call" => {
            let args = it.get("arguments").map_or(Args::Empty, Args::of);
            let i2 = sink.call("tool_search", args, call_id.or(item_id), loc);
            // Its output item follows directly and carries no usable link.
            if let Some(next) = next.filter(|n| n.str_of("type") == Some("tool_search_output")) {
                sink.answer(
                    i2,
                    next.get("tools").map(owned_value),
                    next.str_of("status") == Some("failed"),
                );
                return true;
            } else if failed {
                sink.answer(i2, None, true);
            }
        }
        _ => {}
    }
    false
}

/// An output item's `output` by the output rule; the TypeScript Agents SDK's single content
/// object `{type: "text", text}` is its text.
fn output_value<'s, J: Json<'s>>(v: J) -> Value {
    if v.is_obj() && v.str_of("type") == Some("text") {
        owned_value(v.get("text").filter(|t| t.is_str()).unwrap_or(v))
    } else {
        norm_output(v)
    }
}

/// Whether a `shell_call_output` records a failed command: an outcome that timed out or exited
/// with a code other than 0 (FORMATS §0: an exit code ≠ 0 is an error, as for Codex).
fn shell_failed<'s, J: Json<'s>>(it: J) -> bool {
    it.items_of("output").any(|o| {
        let Some(outcome) = o.get("outcome") else {
            return false;
        };
        match outcome.str_of("type") {
            Some("timeout") => true,
            Some("exit") => outcome
                .get("exit_code")
                .or_else(|| outcome.get("exitCode"))
                .and_then(J::as_i64)
                .is_some_and(|c| c != 0),
            _ => false,
        }
    })
}

/// The tools of the remote MCP servers a response offers (`tools[]` of type `mcp`): those its
/// `mcp_list_tools` items list (with their `input_schema`), then those its `mcp_call` items call
/// on such a server (the server, not the request, lists them; a list may be left out).
fn declare_mcp_tools<'s, J: Json<'s>>(v: J, sink: &mut Sink) {
    let servers: Vec<&str> = v
        .items_of("tools")
        .filter(|t| t.str_of("type") == Some("mcp"))
        .filter_map(|t| t.str_of("server_label"))
        .collect();
    if servers.is_empty() {
        return;
    }
    for it in v.items_of("output") {
        if it.str_of("type") == Some("mcp_list_tools") {
            for t in it.items_of("tools") {
                if let Some(name) = t.str_of("name") {
                    sink.declare(name, t.get("description"), t.get("input_schema"));
                }
            }
        }
    }
    for it in v.items_of("output") {
        let on_server = it
            .str_of("server_label")
            .is_some_and(|l| servers.contains(&l));
        if it.str_of("type") == Some("mcp_call") && on_server {
            if let Some(name) = it.str_of("name") {
                sink.declare::<J>(name, None, None);
            }
        }
    }
}

/// A `code_interpreter_call` that names itself (xAI's `code_execution`) is a call to the hosted
/// `code_interpreter` tool the response offers: declared under its name too.
fn declare_named_interpreter_calls<'s, J: Json<'s>>(v: J, sink: &mut Sink) {
    if !v
        .items_of("tools")
        .any(|t| t.str_of("type") == Some("code_interpreter"))
    {
        return;
    }
    for it in v.items_of("output") {
        if it.str_of("type") == Some("code_interpreter_call") {
            if let Some(name) = it.str_of("name") {
                sink.declare::<J>(name, None, None);
            }
        }
    }
}

/// The name this reader gives the calls of a hosted tool of `tools[].type`, if it is one.
fn hosted_call_name(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "web_search" | "web_search_preview" | "web_search_preview_2025_03_11" => "web_search",
        "file_search" => "file_search",
        "code_interpreter" => "code_interpreter",
        "computer" | "computer_use_preview" => "computer",
        "shell" => "shell",
        "local_shell" => "local_shell",
        "apply_patch" => "apply_patch",
        "image_generation" => "image_generation",
        "tool_search" => "tool_search",
        "programmatic_tool_calling" => "program",
        _ => return None,
    })
}

/// OpenAI Responses stream events, one per line. Calls are the items of
/// `response.output_item.done` (the deltas before them and `response.completed`, which repeats
/// the items, add nothing), recorded in `output_index` order: the order of `Response.output`,
/// which the OpenAI SDK's stream state rebuilds, whatever order parallel items finished in. A
/// response's items are recorded when it ends (`response.completed`, `.incomplete`, `.failed`),
/// when the next one starts, or at the end of input. A line that is no event is read as a
/// Responses document.
#[derive(Default)]
pub(crate) struct Stream {
    /// The finished items of the current response: (output index, arrival) → item, location.
    done: std::collections::BTreeMap<(u64, usize), (Value, Loc)>,
}

impl Stream {
    /// Feed one line.
    pub(crate) fn event(&mut self, v: &Value, sink: &mut Sink) {
        if !detect::is_responses_event(v) {
            self.finish(sink);
            // A line that does not fit is skipped, as for other document lines.
            let _ = read(v, sink);
            return;
        }
        match v.str_of("type") {
            Some("response.output_item.done") => {
                if let Some(item) = v.get("item") {
                    let index = v
                        .get("output_index")
                        .and_then(Value::as_u64)
                        .unwrap_or(u64::MAX);
                    let loc = sink.at(&[Seg::K("item")]);
                    self.done
                        .insert((index, self.done.len()), (item.clone(), loc));
                }
            }
            Some(
                "response.created"
                | "response.completed"
                | "response.incomplete"
                | "response.failed"
                | "response.done",
            ) => self.finish(sink),
            _ => {}
        }
    }

    /// End of a response, or of input: its items, in output order.
    pub(crate) fn finish(&mut self, sink: &mut Sink) {
        for (_, (item, loc)) in std::mem::take(&mut self.done) {
            self::item(&item, None, loc, sink);
        }
    }
}
