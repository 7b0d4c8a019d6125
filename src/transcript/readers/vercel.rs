//! Vercel AI SDK: `generateText` results (v4 and v5+), UI messages (v4 and v5+), model
//! messages, and UI message-chunk streams.

use std::collections::HashMap;

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, content_text, field, is_prompt, norm_output, s, Args, Sink};
use super::super::spans::Seg;

/// Read a Vercel AI SDK document.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    if let Some(steps) = field(v, "steps").and_then(Value::as_array) {
        for (i, st) in steps.iter().enumerate() {
            step(st, &[Seg::K("steps"), Seg::I(i)], sink);
        }
        return Ok(());
    }
    if let Value::Array(items) = v {
        if items
            .first()
            .is_some_and(|x| field(x, "role").is_none() && field(x, "type").is_some())
        {
            chunks(items, sink);
            return Ok(());
        }
    }
    let Some(msgs) = detect::messages(v) else {
        return Err(format!(
            "expected `steps`, a message list or UI message chunks; found {}",
            detect::describe(v)
        ));
    };
    let root: &[Seg] = if v.is_array() {
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

fn step(st: &Value, path: &[Seg], sink: &mut Sink) {
    if let Some(content) = field(st, "content").and_then(Value::as_array) {
        // v5+: content parts.
        for (j, part) in content.iter().enumerate() {
            let id = s(part, "toolCallId").map(str::to_string);
            match s(part, "type") {
                Some("tool-call") => {
                    let args = part
                        .get("input")
                        .or(field(part, "args"))
                        .map_or(Args::Empty, Args::Value);
                    let l = sink.at_in(path, &[Seg::K("content"), Seg::I(j)]);
                    sink.call(s(part, "toolName").unwrap_or(""), args, id, l);
                }
                Some("tool-result") => {
                    if let Some(id) = id {
                        let out = field(part, "output").or(field(part, "result")).cloned();
                        sink.answer_id(&id, out, false);
                    }
                }
                Some("tool-error") => {
                    if let Some(id) = id {
                        if !sink.has_id(&id) {
                            let args = field(part, "input").map_or(Args::Empty, Args::Value);
                            let l = sink.at_in(path, &[Seg::K("content"), Seg::I(j)]);
                            sink.call(s(part, "toolName").unwrap_or(""), args, Some(id.clone()), l);
                        }
                        sink.answer_id(&id, field(part, "error").cloned(), true);
                    }
                }
                _ => {}
            }
        }
        return;
    }
    // v4: toolCalls / toolResults own properties.
    for (j, tc) in arr(st, "toolCalls").iter().enumerate() {
        let args = tc
            .get("args")
            .or(field(tc, "input"))
            .map_or(Args::Empty, Args::Value);
        let l = sink.at_in(path, &[Seg::K("toolCalls"), Seg::I(j)]);
        sink.call(
            s(tc, "toolName").unwrap_or(""),
            args,
            s(tc, "toolCallId").map(str::to_string),
            l,
        );
    }
    for tr in arr(st, "toolResults") {
        if let Some(id) = s(tr, "toolCallId") {
            let out = field(tr, "result").or(field(tr, "output")).cloned();
            sink.answer_id(id, out, false);
        }
    }
}

fn message(m: &Value, path: &[Seg], sink: &mut Sink) {
    // A user prompt starts a turn; assistant text (in `content` or UI `parts`) is the answer so
    // far.
    let content = field(m, "content").or_else(|| field(m, "parts"));
    match s(m, "role") {
        Some("user") if is_prompt(content) => sink.user_turn(),
        Some("assistant") => {
            if let Some(text) = content_text(content) {
                sink.assistant_text(&text);
            }
        }
        _ => {}
    }
    if let Some(parts) = field(m, "parts").and_then(Value::as_array) {
        let mut any = false;
        for (j, p) in parts.iter().enumerate() {
            any |= ui_part(p, &[path, &[Seg::K("parts"), Seg::I(j)]].concat(), sink);
        }
        if any {
            return;
        }
    }
    if let Some(inv) = field(m, "toolInvocations").and_then(Value::as_array) {
        for (j, ti) in inv.iter().enumerate() {
            v4_invocation(
                ti,
                &[path, &[Seg::K("toolInvocations"), Seg::I(j)]].concat(),
                sink,
            );
        }
        return;
    }
    // ModelMessage / CoreMessage.
    for (j, part) in arr(m, "content").iter().enumerate() {
        let id = s(part, "toolCallId").map(str::to_string);
        match s(part, "type") {
            Some("tool-call") => {
                let args = part
                    .get("input")
                    .or(field(part, "args"))
                    .map_or(Args::Empty, Args::Value);
                let l = sink.at_in(path, &[Seg::K("content"), Seg::I(j)]);
                sink.call(s(part, "toolName").unwrap_or(""), args, id, l);
            }
            Some("tool-result") => {
                let Some(id) = id else { continue };
                let (out, err) = match field(part, "output") {
                    Some(o) if field(o, "type").is_some() && o.is_object() => {
                        let ty = s(o, "type").unwrap_or("");
                        let val = field(o, "value").cloned();
                        let val = if ty == "content" {
                            val.map(|v| norm_output(&v))
                        } else {
                            val
                        };
                        (val, ty.starts_with("error"))
                    }
                    Some(o) => (Some(o.clone()), false),
                    None => (
                        field(part, "result").cloned(),
                        field(part, "isError")
                            .and_then(Value::as_bool)
                            .unwrap_or(false),
                    ),
                };
                sink.answer_id(&id, out, err);
            }
            _ => {}
        }
    }
}

/// A v5 UI message part; true if it was a tool part.
fn ui_part(p: &Value, path: &[Seg], sink: &mut Sink) -> bool {
    let ty = s(p, "type").unwrap_or("");
    if ty == "tool-invocation" {
        if let Some(ti) = field(p, "toolInvocation") {
            v4_invocation(ti, &[path, &[Seg::K("toolInvocation")]].concat(), sink);
        }
        return true;
    }
    let name = if ty == "dynamic-tool" {
        s(p, "toolName").unwrap_or("")
    } else if let Some(n) = ty.strip_prefix("tool-") {
        n
    } else {
        return false;
    };
    let id = s(p, "toolCallId").map(str::to_string);
    let input = p
        .get("input")
        .filter(|i| !i.is_null())
        .or(field(p, "rawInput"));
    let args = input.map_or(Args::Empty, Args::Value);
    let l = sink.at(path);
    let i = sink.call(name, args, id, l);
    match s(p, "state") {
        Some("output-available") => sink.answer(i, field(p, "output").cloned(), false),
        Some("output-error") => sink.answer(i, field(p, "errorText").cloned(), true),
        _ => {}
    }
    true
}

fn v4_invocation(ti: &Value, path: &[Seg], sink: &mut Sink) {
    let args = field(ti, "args").map_or(Args::Empty, Args::Value);
    let l = sink.at(path);
    let i = sink.call(
        s(ti, "toolName").unwrap_or(""),
        args,
        s(ti, "toolCallId").map(str::to_string),
        l,
    );
    if s(ti, "state") == Some("result") {
        sink.answer(i, field(ti, "result").cloned(), false);
    }
}

/// UI message-chunk stream: a call starts at `tool-input-start`.
fn chunks(items: &[Value], sink: &mut Sink) {
    let mut deltas: HashMap<String, String> = HashMap::new();
    let mut has_input: HashMap<String, bool> = HashMap::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut pending_args: Vec<(String, usize)> = Vec::new();
    for (k, c) in items.iter().enumerate() {
        let Some(id) = s(c, "toolCallId") else {
            continue;
        };
        let id = id.to_string();
        let ty = s(c, "type").unwrap_or("");
        match ty {
            "tool-input-start" | "tool-input-available" | "tool-input-error" => {
                let i = if let Some(&i) = index.get(&id) {
                    i
                } else {
                    let l = sink.at(&[Seg::I(k)]);
                    let i = sink.call_unique(
                        s(c, "toolName").unwrap_or(""),
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
                    sink.answer(i, field(c, "errorText").cloned(), true);
                }
            }
            "tool-input-delta" => {
                deltas
                    .entry(id)
                    .or_default()
                    .push_str(s(c, "inputTextDelta").unwrap_or(""));
            }
            "tool-output-available" => {
                if let Some(&i) = index.get(&id) {
                    sink.answer(i, field(c, "output").cloned(), false);
                }
            }
            "tool-output-error" => {
                if let Some(&i) = index.get(&id) {
                    sink.answer(i, field(c, "errorText").cloned(), true);
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

fn set_input(
    c: &Value,
    i: usize,
    id: &str,
    has_input: &mut HashMap<String, bool>,
    sink: &mut Sink,
) {
    if let Some(input) = field(c, "input") {
        sink.set_args(i, Args::Value(input));
        has_input.insert(id.to_string(), true);
    }
}
