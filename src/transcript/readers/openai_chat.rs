//! OpenAI Chat Completions: request bodies, `chat.completion` responses, bare message lists,
//! legacy `function_call`, and streaming `chat.completion.chunk` logs.

use std::collections::HashMap;

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, content_text, field, norm_output, s, Args, Sink};
use super::super::spans::Seg;
use crate::code::Code;

/// Read a Chat Completions document.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    declare_tools(v, sink);
    if let Value::Array(items) = v {
        if items.first().and_then(|x| s(x, "object")) == Some("chat.completion.chunk") {
            let mut st = Stream::default();
            for (i, c) in items.iter().enumerate() {
                st.chunk(c, &[Seg::I(i)], sink);
            }
            st.finish(sink);
            return Ok(());
        }
    }
    if s(v, "object") == Some("chat.completion.chunk") {
        let mut st = Stream::default();
        st.chunk(v, &[], sink);
        st.finish(sink);
        return Ok(());
    }
    if let Some(choices) = field(v, "choices").and_then(Value::as_array) {
        for (i, c) in choices.iter().enumerate() {
            if let Some(m) = field(c, "message") {
                message(m, &[Seg::K("choices"), Seg::I(i), Seg::K("message")], sink);
            }
        }
        return Ok(());
    }
    // Cohere v2 chat response: one assistant `message` with OpenAI-shaped `tool_calls`.
    if detect::is_cohere_response(v) {
        if let Some(m) = field(v, "message") {
            message(m, &[Seg::K("message")], sink);
        }
        return Ok(());
    }
    let Some(msgs) = detect::messages(v) else {
        return Err(format!(
            "expected `messages`, `choices` or a message list; found {}",
            detect::describe(v)
        ));
    };
    let root: &[Seg] = if v.is_array() {
        &[]
    } else if field(v, "messages").is_some() {
        &[Seg::K("messages")]
    } else {
        &[Seg::K("input")]
    };
    // One path for every message: the root, then the message's index.
    let mut p = root.to_vec();
    p.push(Seg::I(0));
    for (i, m) in msgs.iter().enumerate() {
        if let Some(last) = p.last_mut() {
            *last = Seg::I(i);
        }
        message(m, &p, sink);
    }
    Ok(())
}

fn declare_tools(v: &Value, sink: &mut Sink) {
    for t in arr(v, "tools") {
        if let Some(f) = field(t, "function") {
            sink.declare(
                s(f, "name").unwrap_or(""),
                field(f, "description"),
                field(f, "parameters"),
            );
        } else if let Some(c) = field(t, "custom") {
            sink.declare(s(c, "name").unwrap_or(""), field(c, "description"), None);
        }
    }
    for f in arr(v, "functions") {
        sink.declare(
            s(f, "name").unwrap_or(""),
            field(f, "description"),
            field(f, "parameters"),
        );
    }
}

fn message(m: &Value, path: &[Seg], sink: &mut Sink) {
    match s(m, "role") {
        Some("tool") => {
            if let Some(id) = s(m, "tool_call_id") {
                let out = field(m, "content").map(norm_output);
                if !sink.answer_id(id, out, false) {
                    let loc = sink.at(path);
                    sink.finding(
                        Code::OrphanResult,
                        format!("tool result for `{id}` has no matching call"),
                        loc,
                    );
                }
            }
        }
        Some("function") => {
            let name = s(m, "name").unwrap_or("");
            let out = field(m, "content").map(norm_output);
            sink.answer_name(name, out, false);
        }
        Some("user") => sink.user_turn(),
        role => {
            if matches!(role, Some("assistant") | None) {
                if let Some(text) = content_text(field(m, "content")) {
                    sink.assistant_text(&text);
                }
            }
            for (j, tc) in arr(m, "tool_calls").iter().enumerate() {
                let id = s(tc, "id").map(str::to_string);
                let loc = sink.at_in(path, &[Seg::K("tool_calls"), Seg::I(j)]);
                if let Some(c) = field(tc, "custom") {
                    let input = s(c, "input").unwrap_or("").to_string();
                    sink.call(s(c, "name").unwrap_or(""), Args::Raw(input), id, loc);
                } else if let Some(f) = field(tc, "function") {
                    let args = f
                        .get("arguments")
                        .filter(|a| !a.is_null())
                        .map_or(Args::Empty, Args::Value);
                    sink.call(s(f, "name").unwrap_or(""), args, id, loc);
                }
            }
            if let Some(f) = field(m, "function_call").filter(|f| f.is_object()) {
                let loc = sink.at_in(path, &[Seg::K("function_call")]);
                let args = f
                    .get("arguments")
                    .filter(|a| !a.is_null())
                    .map_or(Args::Empty, Args::Value);
                sink.call_unique(s(f, "name").unwrap_or(""), args, None, loc);
            }
        }
    }
}

#[derive(Default)]
struct Partial {
    id: Option<String>,
    name: String,
    args: String,
    loc: Option<super::super::sink::Loc>,
}

/// Streaming chunks: `delta.tool_calls[]` keyed by `index`, arguments concatenated.
#[derive(Default)]
pub(crate) struct Stream {
    order: Vec<(String, u64, u64)>,
    partial: HashMap<(String, u64, u64), Partial>,
}

impl Stream {
    /// Feed one `chat.completion.chunk`.
    pub(crate) fn chunk(&mut self, v: &Value, path: &[Seg], sink: &mut Sink) {
        let resp = s(v, "id").unwrap_or("").to_string();
        for c in arr(v, "choices") {
            let ci = field(c, "index").and_then(Value::as_u64).unwrap_or(0);
            let Some(delta) = field(c, "delta") else {
                continue;
            };
            for tc in arr(delta, "tool_calls") {
                let ti = field(tc, "index").and_then(Value::as_u64).unwrap_or(0);
                let key = (resp.clone(), ci, ti);
                if !self.partial.contains_key(&key) {
                    self.order.push(key.clone());
                }
                let p = self.partial.entry(key).or_default();
                if p.loc.is_none() {
                    p.loc = Some(sink.at(path));
                }
                if let Some(id) = s(tc, "id") {
                    p.id = Some(id.to_string());
                }
                if let Some(f) = field(tc, "function") {
                    if let Some(n) = s(f, "name") {
                        p.name.push_str(n);
                    }
                    if let Some(a) = s(f, "arguments") {
                        p.args.push_str(a);
                    }
                }
            }
        }
    }

    /// Emit the assembled calls in order of first appearance.
    pub(crate) fn finish(mut self, sink: &mut Sink) {
        for key in &self.order {
            if let Some(p) = self.partial.remove(key) {
                let loc = p
                    .loc
                    .unwrap_or(super::super::sink::Loc::Span(Default::default()));
                sink.call(&p.name, Args::Owned(Value::String(p.args)), p.id, loc);
            }
        }
    }
}
