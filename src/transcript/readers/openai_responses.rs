//! OpenAI Responses API: `Response` objects, input item lists, conversation item lists,
//! request bodies; function, custom and hosted tool items.

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, content_text, field, is_prompt, norm_output, s, Args, Sink};
use super::super::spans::Seg;
use crate::code::Code;

/// Read a Responses document, or one stream event: a `response.output_item.done` event's `item`
/// is read as an output item; other events (`response.created`, deltas, `response.completed`,
/// which repeats the items) are skipped.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    if detect::is_responses_event(v) {
        if s(v, "type") == Some("response.output_item.done") {
            if let Some(item) = field(v, "item") {
                items(std::slice::from_ref(item), |_| vec![Seg::K("item")], sink);
            }
        }
        return Ok(());
    }
    for t in arr(v, "tools") {
        if let Some(name) = s(t, "name") {
            sink.declare(name, field(t, "description"), field(t, "parameters"));
        } else if let Some(call) = s(t, "type").and_then(hosted_call_name) {
            // A hosted tool: declared under the name its calls are read as.
            sink.declare::<&Value>(call, None, None);
        }
    }
    declare_mcp_tools(v, sink);
    declare_named_interpreter_calls(v, sink);
    let (items_v, root): (&[Value], Seg) =
        if let Some(o) = field(v, "output").and_then(Value::as_array) {
            (o, Seg::K("output"))
        } else if let Some(d) = field(v, "data").and_then(Value::as_array) {
            (d, Seg::K("data"))
        } else if let Some(m) = detect::messages(v) {
            let seg = if field(v, "messages").is_some() {
                Seg::K("messages")
            } else {
                Seg::K("input")
            };
            (m.as_slice(), seg)
        } else {
            return Err(format!(
                "expected `output`, `data`, `input` or an item list; found {}",
                detect::describe(v)
            ));
        };
    let bare = v.is_array();
    items(
        items_v,
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
pub(super) fn items(items: &[Value], path: impl Fn(usize) -> Vec<Seg>, sink: &mut Sink) {
    let mut i = 0;
    while i < items.len() {
        let it = &items[i];
        let path: Vec<Seg> = path(i);
        let loc = sink.at(&path);
        let ty = s(it, "type").unwrap_or("");
        // The OpenAI Agents SDK for TypeScript writes the same items in camelCase (`callId`).
        let call_id = s(it, "call_id")
            .or_else(|| s(it, "callId"))
            .map(str::to_string);
        let item_id = s(it, "id").map(str::to_string);
        let failed = s(it, "status") == Some("failed");
        // Messages: a user prompt starts a turn; assistant text is the answer so far.
        if matches!(ty, "message" | "") {
            match s(it, "role") {
                Some("user") if is_prompt(field(it, "content")) => sink.user_turn(),
                Some("assistant") => {
                    if let Some(text) = content_text(field(it, "content")) {
                        sink.assistant_text(&text);
                    }
                }
                _ => {}
            }
        }
        let obj = |key: &str| {
            it.get(key)
                .cloned()
                .unwrap_or_else(|| Value::Object(Default::default()))
        };
        match ty {
            "function_call" => {
                let args = field(it, "arguments").map_or(Args::Empty, Args::Value);
                sink.call(s(it, "name").unwrap_or(""), args, call_id.or(item_id), loc);
            }
            "custom_tool_call" => {
                let input = s(it, "input").unwrap_or("").to_string();
                sink.call(
                    s(it, "name").unwrap_or(""),
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
                let out = field(it, "output").map(output_value);
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
                    field(it, "queries").cloned().unwrap_or(Value::Null),
                );
                let i2 = sink.call(
                    "file_search",
                    Args::Owned(Value::Object(args)),
                    item_id,
                    loc,
                );
                sink.answer(
                    i2,
                    field(it, "results").filter(|r| !r.is_null()).cloned(),
                    failed,
                );
            }
            // xAI writes its hosted code execution as a `code_interpreter_call` with a `name`
            // and JSON-string `arguments` (no `code`), and an empty `call_id`.
            "code_interpreter_call"
                if field(it, "code").is_none() && field(it, "arguments").is_some() =>
            {
                let args = field(it, "arguments").map_or(Args::Empty, Args::Value);
                let id = call_id.filter(|c| !c.is_empty()).or(item_id);
                let i2 = sink.call(s(it, "name").unwrap_or("code_interpreter"), args, id, loc);
                sink.answer(
                    i2,
                    field(it, "outputs")
                        .filter(|r| !r.is_null())
                        .map(norm_output),
                    failed,
                );
            }
            "code_interpreter_call" => {
                let mut args = serde_json::Map::new();
                args.insert(
                    "code".into(),
                    field(it, "code").cloned().unwrap_or(Value::Null),
                );
                let i2 = sink.call(
                    "code_interpreter",
                    Args::Owned(Value::Object(args)),
                    item_id,
                    loc,
                );
                sink.answer(
                    i2,
                    field(it, "outputs")
                        .filter(|r| !r.is_null())
                        .map(norm_output),
                    failed,
                );
            }
            // Programmatic tool calling: the model's program is a call of its own; the
            // `function_call` items it makes (`caller.type: "program"`) are plain calls.
            "program" => {
                let mut args = serde_json::Map::new();
                args.insert(
                    "code".into(),
                    field(it, "code").cloned().unwrap_or(Value::Null),
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
                    .or_else(|| field(it, "output"))
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
                let args = field(it, "arguments").map_or(Args::Empty, Args::Value);
                let i2 = sink.call(s(it, "name").unwrap_or(""), args, item_id, loc);
                let out = field(it, "output")
                    .filter(|o| !o.is_null())
                    .map(norm_output);
                if out.is_some() || failed {
                    sink.answer(i2, out, failed);
                }
            }
            "image_generation_call" => {
                let i2 = sink.call("image_generation", Args::Empty, item_id, loc);
                sink.answer(
                    i2,
                    field(it, "result").filter(|r| !r.is_null()).cloned(),
                    failed,
                );
            }
            "mcp_call" => {
                let args = field(it, "arguments").map_or(Args::Empty, Args::Value);
                let i2 = sink.call(s(it, "name").unwrap_or(""), args, item_id, loc);
                let err = field(it, "error").filter(|e| !e.is_null());
                let out = match err {
                    Some(e) => Some(norm_output(e)),
                    None => field(it, "output")
                        .filter(|o| !o.is_null())
                        .map(norm_output),
                };
                sink.answer(i2, out, err.is_some() || failed);
            }
            "tool_search_call" => {
                let args = field(it, "arguments").map_or(Args::Empty, Args::Value);
                let i2 = sink.call("tool_search", args, call_id.or(item_id), loc);
                // Its output item follows directly and carries no usable link.
                if let Some(next) = items
                    .get(i + 1)
                    .filter(|n| s(n, "type") == Some("tool_search_output"))
                {
                    sink.answer(
                        i2,
                        field(next, "tools").cloned(),
                        s(next, "status") == Some("failed"),
                    );
                    i += 1;
                } else if failed {
                    sink.answer(i2, None, true);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Whether a `shell_call_output` records a failed command: an outcome that timed out or exited
/// with a code other than 0 (FORMATS §0: an exit code ≠ 0 is an error, as for Codex).
/// An output item's `output` by the output rule; the TypeScript Agents SDK's single content
/// object `{type: "text", text}` is its text.
fn output_value(v: &Value) -> Value {
    match v {
        Value::Object(o) if field(o, "type").and_then(Value::as_str) == Some("text") => o
            .get("text")
            .filter(|t| t.is_string())
            .cloned()
            .unwrap_or_else(|| v.clone()),
        _ => norm_output(v),
    }
}

fn shell_failed(it: &Value) -> bool {
    arr(it, "output").iter().any(|o| {
        let Some(outcome) = field(o, "outcome") else {
            return false;
        };
        match s(outcome, "type") {
            Some("timeout") => true,
            Some("exit") => outcome
                .get("exit_code")
                .or_else(|| field(outcome, "exitCode"))
                .and_then(Value::as_i64)
                .is_some_and(|c| c != 0),
            _ => false,
        }
    })
}

/// The tools of the remote MCP servers a response offers (`tools[]` of type `mcp`): those its
/// `mcp_list_tools` items list (with their `input_schema`), then those its `mcp_call` items call
/// on such a server (the server, not the request, lists them; a list may be left out).
fn declare_mcp_tools(v: &Value, sink: &mut Sink) {
    let servers: Vec<&str> = arr(v, "tools")
        .iter()
        .filter(|t| s(t, "type") == Some("mcp"))
        .filter_map(|t| s(t, "server_label"))
        .collect();
    if servers.is_empty() {
        return;
    }
    let output = arr(v, "output");
    for it in output {
        if s(it, "type") == Some("mcp_list_tools") {
            for t in arr(it, "tools") {
                if let Some(name) = s(t, "name") {
                    sink.declare(name, field(t, "description"), field(t, "input_schema"));
                }
            }
        }
    }
    for it in output {
        let on_server = s(it, "server_label").is_some_and(|l| servers.contains(&l));
        if s(it, "type") == Some("mcp_call") && on_server {
            if let Some(name) = s(it, "name") {
                sink.declare::<&Value>(name, None, None);
            }
        }
    }
}

/// A `code_interpreter_call` that names itself (xAI's `code_execution`) is a call to the hosted
/// `code_interpreter` tool the response offers: declared under its name too.
fn declare_named_interpreter_calls(v: &Value, sink: &mut Sink) {
    if !arr(v, "tools")
        .iter()
        .any(|t| s(t, "type") == Some("code_interpreter"))
    {
        return;
    }
    for it in arr(v, "output") {
        if s(it, "type") == Some("code_interpreter_call") {
            if let Some(name) = s(it, "name") {
                sink.declare::<&Value>(name, None, None);
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
