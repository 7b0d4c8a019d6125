//! OpenAI Chat Completions: request bodies, `chat.completion` responses, bare message lists,
//! legacy `function_call`, and streaming `chat.completion.chunk` logs.

use std::collections::HashMap;

use serde_json::Value;

use super::super::detect;
use super::super::sink::{content_text, norm_output, Args, Sink};
use super::super::spans::Seg;
use crate::code::Code;
use crate::json::view::Json;

/// Read a Chat Completions document.
pub(crate) fn read<'s, J: Json<'s>>(v: J, sink: &mut Sink) -> Result<(), String> {
    declare_tools(v, sink);
    if let Some(items) = v.as_items() {
        if detect::is_chunk_list(items.clone()) {
            let mut st = Stream::default();
            for (i, c) in items.enumerate() {
                st.chunk(c, &[Seg::I(i)], sink);
            }
            st.finish(sink);
            return Ok(());
        }
    }
    if v.str_of("object") == Some("chat.completion.chunk") {
        let mut st = Stream::default();
        st.chunk(v, &[], sink);
        st.finish(sink);
        return Ok(());
    }
    if let Some(choices) = v.get("choices").and_then(J::as_items) {
        for (i, c) in choices.enumerate() {
            if let Some(m) = c.get("message") {
                message(m, &[Seg::K("choices"), Seg::I(i), Seg::K("message")], sink);
            }
        }
        return Ok(());
    }
    // Cohere v2 chat response: one assistant `message` with OpenAI-shaped `tool_calls`.
    if detect::is_cohere_response(v) {
        if let Some(m) = v.get("message") {
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
    let root: &[Seg] = if v.is_arr() {
        &[]
    } else if v.get("messages").is_some() {
        &[Seg::K("messages")]
    } else {
        &[Seg::K("input")]
    };
    // One path for every message: the root, then the message's index.
    let mut p = root.to_vec();
    p.push(Seg::I(0));
    for (i, m) in msgs.enumerate() {
        if let Some(last) = p.last_mut() {
            *last = Seg::I(i);
        }
        message(m, &p, sink);
    }
    Ok(())
}

fn declare_tools<'s, J: Json<'s>>(v: J, sink: &mut Sink) {
    for t in v.items_of("tools") {
        if let Some(f) = t.get("function") {
            sink.declare(
                f.str_of("name").unwrap_or(""),
                f.get("description"),
                f.get("parameters"),
            );
        } else if let Some(c) = t.get("custom") {
            sink.declare(c.str_of("name").unwrap_or(""), c.get("description"), None);
        }
    }
    for f in v.items_of("functions") {
        sink.declare(
            f.str_of("name").unwrap_or(""),
            f.get("description"),
            f.get("parameters"),
        );
    }
}

fn message<'s, J: Json<'s>>(m: J, path: &[Seg], sink: &mut Sink) {
    match m.str_of("role") {
        Some("tool") => {
            if let Some(id) = m.str_of("tool_call_id") {
                let out = || m.get("content").map(norm_output);
                if !sink.answer_id_with(id, out, false) {
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
            let name = m.str_of("name").unwrap_or("");
            let out = m.get("content").map(norm_output);
            sink.answer_name(name, out, false);
        }
        Some("user") => sink.user_turn(),
        role => {
            if matches!(role, Some("assistant") | None) {
                if let Some(text) = content_text(m.get("content")) {
                    sink.assistant_text(&text);
                }
            }
            for (j, tc) in m.items_of("tool_calls").enumerate() {
                let id = tc.str_of("id").map(str::to_string);
                let loc = sink.at_in(path, &[Seg::K("tool_calls"), Seg::I(j)]);
                if let Some(c) = tc.get("custom") {
                    let input = c.str_of("input").unwrap_or("").to_string();
                    sink.call(c.str_of("name").unwrap_or(""), Args::Raw(input), id, loc);
                } else if let Some(f) = tc.get("function") {
                    let args = f
                        .get("arguments")
                        .filter(|a| !a.is_null())
                        .map_or(Args::Empty, Args::of);
                    sink.call(f.str_of("name").unwrap_or(""), args, id, loc);
                }
            }
            if let Some(f) = m.get("function_call").filter(|f| f.is_obj()) {
                let loc = sink.at_in(path, &[Seg::K("function_call")]);
                let args = f
                    .get("arguments")
                    .filter(|a| !a.is_null())
                    .map_or(Args::Empty, Args::of);
                sink.call_unique(f.str_of("name").unwrap_or(""), args, None, loc);
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
    pub(crate) fn chunk<'s, J: Json<'s>>(&mut self, v: J, path: &[Seg], sink: &mut Sink) {
        let resp = v.str_of("id").unwrap_or("").to_string();
        for c in v.items_of("choices") {
            let ci = c.get("index").and_then(J::as_u64).unwrap_or(0);
            let Some(delta) = c.get("delta") else {
                continue;
            };
            for tc in delta.items_of("tool_calls") {
                let ti = tc.get("index").and_then(J::as_u64).unwrap_or(0);
                let key = (resp.clone(), ci, ti);
                if !self.partial.contains_key(&key) {
                    self.order.push(key.clone());
                }
                let p = self.partial.entry(key).or_default();
                if p.loc.is_none() {
                    p.loc = Some(sink.at(path));
                }
                // The id comes in the first delta; later deltas leave it out or, from some
                // servers, repeat it or send `""`: the first non-empty id is the call's.
                if let Some(id) = tc.str_of("id").filter(|id| !id.is_empty()) {
                    p.id.get_or_insert_with(|| id.to_string());
                }
                if let Some(f) = tc.get("function") {
                    if let Some(n) = f.str_of("name") {
                        p.name.push_str(n);
                    }
                    if let Some(a) = f.str_of("arguments") {
                        p.args.push_str(a);
                    }
                }
            }
        }
    }

    /// Emit the assembled calls: completions in order of first appearance, and in each the
    /// choices and their calls by index (the SDK's `choices[i].message.tool_calls[j]`).
    pub(crate) fn finish(mut self, sink: &mut Sink) {
        let mut first: HashMap<&str, usize> = HashMap::new();
        for (n, (resp, _, _)) in self.order.iter().enumerate() {
            first.entry(resp.as_str()).or_insert(n);
        }
        let mut order: Vec<_> = self
            .order
            .iter()
            .map(|k| (first[k.0.as_str()], k.1, k.2, k))
            .collect();
        order.sort_by_key(|o| (o.0, o.1, o.2));
        let order: Vec<_> = order.into_iter().map(|o| o.3.clone()).collect();
        for key in &order {
            if let Some(p) = self.partial.remove(key) {
                let loc = p
                    .loc
                    .unwrap_or(super::super::sink::Loc::Span(Default::default()));
                sink.call(&p.name, Args::Owned(Value::String(p.args)), p.id, loc);
            }
        }
    }
}
