//! Anthropic Messages API: request bodies, bare message lists and single `Message` documents;
//! client tools, server tools and the MCP connector.

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, content_text, field, is_prompt, norm_output, s, Args, Loc, Sink};
use super::super::spans::Seg;
use crate::code::Code;
use crate::json::view::Json;

/// Read an Anthropic Messages document.
pub(crate) fn read<'s, J: Json<'s>>(v: J, sink: &mut Sink) -> Result<(), String> {
    if detect::is_anthropic_event(v) {
        // A stream cut after its first event (or of one event) is a document of one line:
        // read as the stream it starts.
        let owned;
        let value = if let Some(value) = v.as_value() {
            value
        } else {
            owned = crate::json::to_value(v);
            &owned
        };
        let mut stream = Stream::default();
        stream.event(value, sink);
        stream.finish(sink);
        return Ok(());
    }
    for t in v.items_of("tools") {
        if let Some(name) = t.str_of("name") {
            sink.declare(name, t.get("description"), t.get("input_schema"));
        }
    }
    if v.str_of("type") == Some("message") && v.get("content").is_some_and(J::is_arr) {
        blocks(v, &[Seg::K("content")], sink);
        if let Some(text) = content_text(v.get("content")) {
            sink.assistant_text(&text);
        }
        return Ok(());
    }
    let Some(msgs) = detect::messages(v) else {
        return Err(format!(
            "expected `messages`, a message list or a `Message`; found {}",
            detect::describe(v)
        ));
    };
    let root: &[Seg] = if v.is_arr() {
        &[]
    } else {
        &[Seg::K("messages")]
    };
    for (i, m) in msgs.enumerate() {
        let mut p = root.to_vec();
        p.extend([Seg::I(i), Seg::K("content")]);
        turn_and_text(m, sink);
        blocks(m, &p, sink);
    }
    Ok(())
}

/// What a message says besides its blocks: a user prompt starts a turn, assistant text is
/// the answer so far (shared with Claude Code).
pub(crate) fn turn_and_text<'s, J: Json<'s>>(m: J, sink: &mut Sink) {
    match m.str_of("role") {
        Some("user") if is_prompt(m.get("content")) => sink.user_turn(),
        Some("assistant") => {
            if let Some(text) = content_text(m.get("content")) {
                sink.assistant_text(&text);
            }
        }
        _ => {}
    }
}

/// The content blocks of one message (shared with Claude Code).
pub(crate) fn blocks<'s, J: Json<'s>>(m: J, path: &[Seg], sink: &mut Sink) {
    for (j, b) in m.items_of("content").enumerate() {
        block(b, path, j, sink);
    }
}

/// One content block at `path[j]`.
pub(crate) fn block<'s, J: Json<'s>>(b: J, path: &[Seg], j: usize, sink: &mut Sink) {
    let ty = b.str_of("type").unwrap_or("");
    let loc = || {
        let mut p = path.to_vec();
        p.push(Seg::I(j));
        p
    };
    match ty {
        "tool_use" | "server_tool_use" | "mcp_tool_use" => {
            let args = b.get("input").map_or(Args::Empty, Args::of);
            let l = sink.at(&loc());
            let i = sink.call(
                b.str_of("name").unwrap_or(""),
                args,
                b.str_of("id").map(str::to_string),
                l,
            );
            // The MCP connector names the server of an `mcp_tool_use`.
            sink.set_namespace(i, b.str_of("server_name"));
        }
        "tool_result" | "mcp_tool_result" => {
            let id = b.str_of("tool_use_id").unwrap_or("");
            let out = b.get("content").map(norm_output);
            let err = b.get("is_error").and_then(J::as_bool).unwrap_or(false);
            result(sink, ty, id, out, err, |sink| sink.at(&loc()));
        }
        t if t.ends_with("_tool_result") => {
            let id = b.str_of("tool_use_id").unwrap_or("");
            let content = b.get("content");
            let err = content.is_some_and(|c| {
                c.get("error_code").is_some()
                    || c.str_of("type").is_some_and(|t| t.ends_with("_error"))
            });
            let out = content.map(norm_output);
            if !sink.answer_id(id, out, err) {
                let l = sink.at(&loc());
                sink.finding(
                    Code::OrphanResult,
                    format!("`{ty}` for `{id}` has no matching call in this file"),
                    l,
                );
            }
        }
        _ => {}
    }
}

/// A `tool_result` (or `mcp_tool_result`) linked to its call by id; one with no call is an
/// `orphan-result` finding at `loc` (shared with Claude Code's typed lines).
pub(crate) fn result(
    sink: &mut Sink,
    ty: &str,
    id: &str,
    output: Option<Value>,
    is_error: bool,
    loc: impl FnOnce(&Sink) -> Loc,
) {
    if !sink.answer_id(id, output, is_error) {
        let l = loc(sink);
        sink.finding(
            Code::OrphanResult,
            format!("`{ty}` for `{id}` has no matching call"),
            l,
        );
    }
}

/// Anthropic Messages stream events, one per line (the SSE `data:` payloads): `message_start`,
/// `content_block_start {index, content_block}`, `content_block_delta {index, delta}`,
/// `content_block_stop {index}`, `message_delta`, `message_stop`, `ping`. Calls are the tool
/// blocks of `content_block_start` (read as content blocks); their arguments are the
/// `input_json_delta.partial_json` pieces of that index, concatenated (blank → `{}`), or the
/// block's own `input` when no piece came.
#[derive(Default)]
pub(crate) struct Stream {
    /// The tool blocks of the current message still open.
    open: super::blocks::OpenBlocks,
}

impl Stream {
    /// Feed one event.
    pub(crate) fn event(&mut self, v: &Value, sink: &mut Sink) {
        let index = field(v, "index").and_then(Value::as_u64).unwrap_or(0);
        match s(v, "type") {
            Some("message_start") => {
                self.open.stop_all(sink);
                // Blocks may arrive whole in the message itself (programmatic tool calling puts
                // `tool_use` blocks there): they hold indexes 0.. of the message, as the SDK's
                // accumulator takes `message.content` as the start of the snapshot.
                let content = field(v, "message").map_or(&[][..], |m| arr(m, "content"));
                for (j, b) in content.iter().enumerate() {
                    let before = sink.len();
                    block(b, &[Seg::K("message"), Seg::K("content")], j, sink);
                    if sink.len() > before {
                        self.open.open(j as u64, sink.len() - 1, sink);
                    }
                }
            }
            Some("content_block_start") => {
                let Some(b) = field(v, "content_block") else {
                    return;
                };
                if matches!(
                    s(b, "type"),
                    Some("tool_use" | "server_tool_use" | "mcp_tool_use")
                ) {
                    let l = sink.at(&[Seg::K("content_block")]);
                    let name = s(b, "name").unwrap_or("");
                    self.open
                        .open_call(index, sink, name, s(b, "id"), field(b, "input"), l);
                } else {
                    block(b, &[Seg::K("content_block")], 0, sink);
                }
            }
            Some("content_block_delta") => {
                let d = field(v, "delta");
                if d.and_then(|d| s(d, "type")) == Some("input_json_delta") {
                    if let Some(piece) = d.and_then(|d| s(d, "partial_json")) {
                        self.open.push(index, piece);
                    }
                }
            }
            Some("content_block_stop") => self.open.stop(index, sink),
            _ => {}
        }
    }

    /// End of input: blocks never stopped keep the pieces received.
    pub(crate) fn finish(mut self, sink: &mut Sink) {
        self.open.stop_all(sink);
    }
}
