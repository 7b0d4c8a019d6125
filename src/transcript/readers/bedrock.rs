//! AWS Bedrock Converse API: request bodies and saved conversations (`messages[]` of `{role,
//! content: [ContentBlock]}`), `Converse` responses (`{output: {message}, stopReason, usage}`),
//! and `ConverseStream` event logs (one event per line, as boto3 and the AWS SDKs hand them
//! out: `{"contentBlockStart": {…}}`, `{"contentBlockDelta": {…}}`, …).
//!
//! Content blocks are unions named by their only key (no `type`): `{text}`, `{toolUse:
//! {toolUseId, name, input}}`, `{toolResult: {toolUseId, content: [{text} | {json} | …],
//! status}}`. Source of the shapes: the bedrock-runtime service model of botocore
//! (`ContentBlock`, `ToolUseBlock`, `ToolResultBlock`, `ConverseStreamOutput`) and the recorded
//! responses of the Vercel AI SDK's amazon-bedrock provider (`tests/fixtures/wild/bedrock_converse/`).

use serde_json::Value;

use crate::json::owned_value;
use crate::json::view::Json;

use super::super::detect;
use super::super::sink::{field, s, Args, Sink};
use super::super::spans::Seg;
use crate::code::Code;

/// The union keys of a Converse stream event (`ConverseStreamOutput`) that decide a line.
const STREAM_EVENTS: &[&str] = &["messageStart", "contentBlockStart", "contentBlockDelta"];

/// Read a Converse document: a request or saved conversation, a response, a bare message list,
/// or a list of stream events.
pub(crate) fn read<'s, J: Json<'s>>(v: J, sink: &mut Sink) -> Result<(), String> {
    if v.as_items()
        .is_some_and(|mut items| items.any(is_stream_event))
    {
        // Read as the lines of a stream are: as values (built here for a document built value
        // by value; such a list is rare in memory).
        let owned;
        let value = if let Some(value) = v.as_value() {
            value
        } else {
            owned = crate::json::to_value(v);
            &owned
        };
        return super::session_doc(
            super::super::Format::BedrockConverse,
            "ConverseStream event",
            value,
            sink,
        );
    }
    let tools = v.get("toolConfig").map(|c| c.items_of("tools"));
    for t in tools.into_iter().flatten() {
        if let Some(spec) = t.get("toolSpec") {
            if let Some(name) = spec.str_of("name") {
                sink.declare(
                    name,
                    spec.get("description"),
                    spec.get("inputSchema").and_then(|i| i.get("json")),
                );
            }
        }
    }
    let mut found = false;
    if let Some(msgs) = detect::messages(v) {
        found = true;
        let root: &[Seg] = if v.is_arr() {
            &[]
        } else {
            &[Seg::K("messages")]
        };
        for (i, m) in msgs.enumerate() {
            let mut p = root.to_vec();
            p.extend([Seg::I(i), Seg::K("content")]);
            blocks(m, &p, sink);
        }
    }
    if let Some(m) = v.get("output").and_then(|o| o.get("message")) {
        found = true;
        blocks(
            m,
            &[Seg::K("output"), Seg::K("message"), Seg::K("content")],
            sink,
        );
    }
    if found {
        Ok(())
    } else {
        Err(format!(
            "expected `messages`, a message list or a response `{{output: {{message}}}}`; found {}",
            detect::describe(v)
        ))
    }
}

/// The content blocks of one message, at `path`.
fn blocks<'s, J: Json<'s>>(m: J, path: &[Seg], sink: &mut Sink) {
    for (j, b) in m.items_of("content").enumerate() {
        let loc = |sink: &Sink| sink.at_in(path, &[Seg::I(j)]);
        if let Some(u) = b.get("toolUse").filter(|u| u.is_obj()) {
            let l = loc(sink);
            let args = u
                .get("input")
                .filter(|a| !a.is_null())
                .map_or(Args::Empty, Args::of);
            sink.call(
                u.str_of("name").unwrap_or(""),
                args,
                u.str_of("toolUseId").map(str::to_string),
                l,
            );
        } else if let Some(r) = b.get("toolResult").filter(|r| r.is_obj()) {
            let id = r.str_of("toolUseId").unwrap_or("");
            let failed = r.str_of("status") == Some("error");
            if !sink.answer_id_with(id, || output(r.get("content")), failed) {
                let l = loc(sink);
                sink.finding(
                    Code::OrphanResult,
                    format!("`toolResult` for `{id}` has no matching `toolUse` in this file"),
                    l,
                );
            }
        }
    }
}

/// The output of a `toolResult`: its `content` blocks read as values (`{text}` → the text,
/// `{json}` → the JSON, any other block as written); one block → its value, several texts →
/// joined with `"\n"` (the text-block rule), otherwise the list of values.
fn output<'s, J: Json<'s>>(content: Option<J>) -> Option<Value> {
    let content = content?;
    if content.is_null() {
        return None;
    }
    let Some(items) = content.as_items() else {
        return Some(owned_value(content));
    };
    let values: Vec<Value> = items
        .map(|b| {
            owned_value(
                b.get("text")
                    .filter(|t| t.is_str())
                    .or_else(|| b.get("json"))
                    .unwrap_or(b),
            )
        })
        .collect();
    Some(match values.len() {
        1 => values.into_iter().next().unwrap_or(Value::Null),
        n if n > 1 && values.iter().all(Value::is_string) => Value::String(
            values
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => Value::Array(values),
    })
}

/// Whether `v` is a ConverseStream event that decides a file: an object with a
/// `messageStart`, `contentBlockStart` or `contentBlockDelta` object.
pub(crate) fn is_stream_event<'s, J: Json<'s>>(v: J) -> bool {
    // One pass over the members, not a look-up of each event name.
    v.entries().any(|(k, x)| is_stream_member(k, x))
}

/// Whether the member `key: x` is a ConverseStream event: an object under an event's name.
pub(crate) fn is_stream_member<'s, J: Json<'s>>(key: &str, x: J) -> bool {
    x.is_obj() && STREAM_EVENTS.contains(&key)
}

/// Whether `v` has the marks of a Converse document: a `toolConfig` with `toolSpec` tools, a
/// response (`output.message.content[]` and `stopReason`), messages holding a `toolUse` or
/// `toolResult` block, or a list of stream events.
/// `marks` are those of `v`'s messages ([`detect::Marks::of_doc`]).
pub(crate) fn is_document<'s, J: Json<'s>>(v: J, marks: &detect::Marks) -> bool {
    if v.is_arr() && marks.bedrock_stream() {
        return true;
    }
    if v.get("toolConfig")
        .is_some_and(|c| c.items_of("tools").any(|t| t.get("toolSpec").is_some()))
    {
        return true;
    }
    if v.get("stopReason").is_some_and(J::is_str)
        && v.get("output")
            .and_then(|o| o.get("message"))
            .is_some_and(|m| m.get("content").is_some_and(J::is_arr))
    {
        return true;
    }
    marks.bedrock_messages()
}

/// ConverseStream events, one per line: a call opens at `contentBlockStart.start.toolUse
/// {toolUseId, name}`; its arguments are the `contentBlockDelta.delta.toolUse.input` text
/// pieces of that `contentBlockIndex`, concatenated and decoded by the argument-string rule at
/// `contentBlockStop` (blank → `{}`); `messageStart` starts a new set of indexes. Other events
/// (`text` and `reasoningContent` deltas, `messageStop`, `metadata`) are skipped.
#[derive(Default)]
pub(crate) struct Stream {
    /// The tool blocks of the current message still open.
    open: super::blocks::OpenBlocks,
}

impl Stream {
    /// Feed one event.
    pub(crate) fn event(&mut self, v: &Value, sink: &mut Sink) {
        let index = |e: &Value| field(e, "contentBlockIndex").and_then(Value::as_u64);
        if field(v, "messageStart").is_some() {
            self.open.stop_all(sink);
        } else if let Some(e) = field(v, "contentBlockStart") {
            let Some(u) = field(e, "start").and_then(|st| field(st, "toolUse")) else {
                return;
            };
            let l = sink.at(&[Seg::K("contentBlockStart")]);
            self.open.open_call(
                index(e).unwrap_or(0),
                sink,
                s(u, "name").unwrap_or(""),
                s(u, "toolUseId"),
                None,
                l,
            );
        } else if let Some(e) = field(v, "contentBlockDelta") {
            let piece = e
                .get("delta")
                .and_then(|d| field(d, "toolUse"))
                .and_then(|u| s(u, "input"));
            if let Some(piece) = piece {
                self.open.push(index(e).unwrap_or(0), piece);
            }
        } else if let Some(e) = field(v, "contentBlockStop") {
            self.open.stop(index(e).unwrap_or(0), sink);
        }
    }

    /// End of input: blocks never stopped keep the pieces received.
    pub(crate) fn finish(mut self, sink: &mut Sink) {
        self.open.stop_all(sink);
    }
}
