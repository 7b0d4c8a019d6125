//! Vercel AI SDK: `generateText` results (v4 and v5+), UI messages (v4 and v5+), model
//! messages, and UI message-chunk streams.

use std::collections::HashMap;

use serde_json::Value;

use super::super::detect;
use super::super::sink::{content_text, is_prompt, norm_output, Args, Sink};
use super::super::spans::Seg;
use crate::json::owned_value;
use crate::json::view::Json;

/// Read a Vercel AI SDK document.
pub(crate) fn read<'s, J: Json<'s>>(v: J, sink: &mut Sink) -> Result<(), String> {
    if let Some(steps) = v.get("steps").and_then(J::as_items) {
        for (i, st) in steps.enumerate() {
            step(st, &[Seg::K("steps"), Seg::I(i)], sink);
        }
        return Ok(());
    }
    if let Some(mut items) = v.as_items() {
        if items
            .clone()
            .next()
            .is_some_and(|x| x.get("role").is_none() && x.get("type").is_some())
        {
            chunks::<J>(&mut items, sink);
            return Ok(());
        }
    }
    let Some(msgs) = detect::messages(v) else {
        return Err(format!(
            "expected `steps`, a message list or UI message chunks; found {}",
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
        p.push(Seg::I(i));
        message(m, &p, sink);
    }
    Ok(())
}

fn step<'s, J: Json<'s>>(st: J, path: &[Seg], sink: &mut Sink) {
    if let Some(content) = st.get("content").and_then(J::as_items) {
        // v5+: content parts.
        for (j, part) in content.enumerate() {
            let id = part.str_of("toolCallId").map(str::to_string);
            match part.str_of("type") {
                Some("tool-call") => {
                    let args = part
                        .get("input")
                        .or(part.get("args"))
                        .map_or(Args::Empty, Args::of);
                    let l = sink.at_in(path, &[Seg::K("content"), Seg::I(j)]);
                    sink.call(part.str_of("toolName").unwrap_or(""), args, id, l);
                }
                Some("tool-result") => {
                    if let Some(id) = id {
                        let out = || part.get("output").or(part.get("result")).map(owned_value);
                        sink.answer_id_with(&id, out, false);
                    }
                }
                Some("tool-error") => {
                    if let Some(id) = id {
                        if !sink.has_id(&id) {
                            let args = part.get("input").map_or(Args::Empty, Args::of);
                            let l = sink.at_in(path, &[Seg::K("content"), Seg::I(j)]);
                            let name = part.str_of("toolName").unwrap_or("");
                            sink.call(name, args, Some(id.clone()), l);
                        }
                        sink.answer_id_with(&id, || part.get("error").map(owned_value), true);
                    }
                }
                _ => {}
            }
        }
        return;
    }
    // v4: toolCalls / toolResults own properties.
    for (j, tc) in st.items_of("toolCalls").enumerate() {
        let args = tc
            .get("args")
            .or(tc.get("input"))
            .map_or(Args::Empty, Args::of);
        let l = sink.at_in(path, &[Seg::K("toolCalls"), Seg::I(j)]);
        sink.call(
            tc.str_of("toolName").unwrap_or(""),
            args,
            tc.str_of("toolCallId").map(str::to_string),
            l,
        );
    }
    for tr in st.items_of("toolResults") {
        if let Some(id) = tr.str_of("toolCallId") {
            let out = || tr.get("result").or(tr.get("output")).map(owned_value);
            sink.answer_id_with(id, out, false);
        }
    }
}

fn message<'s, J: Json<'s>>(m: J, path: &[Seg], sink: &mut Sink) {
    // A user prompt starts a turn; assistant text (in `content` or UI `parts`) is the answer so
    // far.
    let content = m.get("content").or_else(|| m.get("parts"));
    match m.str_of("role") {
        Some("user") if is_prompt(content) => sink.user_turn(),
        Some("assistant") => {
            if let Some(text) = content_text(content) {
                sink.assistant_text(&text);
            }
        }
        _ => {}
    }
    if let Some(parts) = m.get("parts").and_then(J::as_items) {
        let mut any = false;
        for (j, p) in parts.enumerate() {
            any |= ui_part(p, &[path, &[Seg::K("parts"), Seg::I(j)]].concat(), sink);
        }
        if any {
            return;
        }
    }
    if let Some(inv) = m.get("toolInvocations").and_then(J::as_items) {
        for (j, ti) in inv.enumerate() {
            v4_invocation(
                ti,
                &[path, &[Seg::K("toolInvocations"), Seg::I(j)]].concat(),
                sink,
            );
        }
        return;
    }
    // ModelMessage / CoreMessage.
    for (j, part) in m.items_of("content").enumerate() {
        let id = part.str_of("toolCallId").map(str::to_string);
        match part.str_of("type") {
            Some("tool-call") => {
                let args = part
                    .get("input")
                    .or(part.get("args"))
                    .map_or(Args::Empty, Args::of);
                let l = sink.at_in(path, &[Seg::K("content"), Seg::I(j)]);
                sink.call(part.str_of("toolName").unwrap_or(""), args, id, l);
            }
            Some("tool-result") => {
                let Some(id) = id else { continue };
                // `{type: "content", value}` holds content parts: their text.
                let (out, err, content): (Option<J>, bool, bool) = match part.get("output") {
                    Some(o) if o.get("type").is_some() && o.is_obj() => {
                        let ty = o.str_of("type").unwrap_or("");
                        (o.get("value"), ty.starts_with("error"), ty == "content")
                    }
                    Some(o) => (Some(o), false, false),
                    None => (
                        part.get("result"),
                        part.get("isError").and_then(J::as_bool).unwrap_or(false),
                        false,
                    ),
                };
                let out = || {
                    out.map(|v| {
                        if content {
                            norm_output(v)
                        } else {
                            owned_value(v)
                        }
                    })
                };
                sink.answer_id_with(&id, out, err);
            }
            _ => {}
        }
    }
}

/// A v5 UI message part; true if it was a tool part.
fn ui_part<'s, J: Json<'s>>(p: J, path: &[Seg], sink: &mut Sink) -> bool {
    let ty = p.str_of("type").unwrap_or("");
    if ty == "tool-invocation" {
        if let Some(ti) = p.get("toolInvocation") {
            v4_invocation(ti, &[path, &[Seg::K("toolInvocation")]].concat(), sink);
        }
        return true;
    }
    let name = if ty == "dynamic-tool" {
        p.str_of("toolName").unwrap_or("")
    } else if let Some(n) = ty.strip_prefix("tool-") {
        n
    } else {
        return false;
    };
    let id = p.str_of("toolCallId").map(str::to_string);
    let input = p
        .get("input")
        .filter(|i| !i.is_null())
        .or(p.get("rawInput"));
    let args = input.map_or(Args::Empty, Args::of);
    let l = sink.at(path);
    let i = sink.call(name, args, id, l);
    match p.str_of("state") {
        Some("output-available") => sink.answer(i, p.get("output").map(owned_value), false),
        Some("output-error") => sink.answer(i, p.get("errorText").map(owned_value), true),
        _ => {}
    }
    true
}

fn v4_invocation<'s, J: Json<'s>>(ti: J, path: &[Seg], sink: &mut Sink) {
    let args = ti.get("args").map_or(Args::Empty, Args::of);
    let l = sink.at(path);
    let i = sink.call(
        ti.str_of("toolName").unwrap_or(""),
        args,
        ti.str_of("toolCallId").map(str::to_string),
        l,
    );
    if ti.str_of("state") == Some("result") {
        sink.answer(i, ti.get("result").map(owned_value), false);
    }
}

/// UI message-chunk stream: a call starts at `tool-input-start`.
fn chunks<'s, J: Json<'s>>(items: &mut J::Items, sink: &mut Sink) {
    let mut deltas: HashMap<String, String> = HashMap::new();
    let mut has_input: HashMap<String, bool> = HashMap::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut pending_args: Vec<(String, usize)> = Vec::new();
    for (k, c) in items.enumerate() {
        let Some(id) = c.str_of("toolCallId") else {
            continue;
        };
        let id = id.to_string();
        let ty = c.str_of("type").unwrap_or("");
        match ty {
            "tool-input-start" | "tool-input-available" | "tool-input-error" => {
                let i = if let Some(&i) = index.get(&id) {
                    i
                } else {
                    let l = sink.at(&[Seg::I(k)]);
                    let i = sink.call_unique(
                        c.str_of("toolName").unwrap_or(""),
                        Args::Empty,
                        Some(id.clone()),
                        l,
                    );
                    index.insert(id.clone(), i);
                    pending_args.push((id.clone(), i));
                    i
                };
                if ty != "tool-input-start" {
                    set_input(c, i, &id, &mut has_input, sink);
                }
                // The UI stream turns an input error into the part's `output-error`.
                if ty == "tool-input-error" {
                    sink.answer(i, c.get("errorText").map(owned_value), true);
                }
            }
            "tool-input-delta" => {
                deltas
                    .entry(id)
                    .or_default()
                    .push_str(c.str_of("inputTextDelta").unwrap_or(""));
            }
            "tool-output-available" => {
                if let Some(&i) = index.get(&id) {
                    sink.answer(i, c.get("output").map(owned_value), false);
                }
            }
            "tool-output-error" => {
                if let Some(&i) = index.get(&id) {
                    sink.answer(i, c.get("errorText").map(owned_value), true);
                }
            }
            _ => {}
        }
    }
    for (id, i) in pending_args {
        if !has_input.get(&id).copied().unwrap_or(false) {
            if let Some(text) = deltas.remove(&id) {
                sink.set_args(i, Args::Owned(Value::String(text)));
            }
        }
    }
}

fn set_input<'s, J: Json<'s>>(
    c: J,
    i: usize,
    id: &str,
    has_input: &mut HashMap<String, bool>,
    sink: &mut Sink,
) {
    if let Some(input) = c.get("input") {
        sink.set_args(i, Args::of(input));
        has_input.insert(id.to_string(), true);
    }
}
