//! LangChain / LangGraph messages: flat `model_dump()`, `messages_to_dict()` `{type, data}`,
//! and `dumpd()` `lc` constructors (Python and JS namespaces).

use super::super::detect;
use super::super::sink::{content_text, is_prompt, norm_output, Args, Sink};
use super::super::spans::Seg;
use crate::json::view::Json;

/// Read a LangChain message list or state.
pub(crate) fn read<'s, J: Json<'s>>(v: J, sink: &mut Sink) -> Result<(), String> {
    let Some(msgs) = detect::messages(v) else {
        return Err(format!(
            "expected a message list or `messages`; found {}",
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
        message(m, p, sink);
    }
    Ok(())
}

/// One message; its fields are in `kwargs` (a constructor), `data` (`messages_to_dict`) or
/// the message itself. A constructor without `kwargs` has no fields (`None`).
fn message<'s, J: Json<'s>>(m: J, mut path: Vec<Seg>, sink: &mut Sink) {
    let (kind, fields) = if m.get("lc").is_some() && m.str_of("type") == Some("constructor") {
        let class = m
            .get("id")
            .and_then(J::as_items)
            .and_then(Iterator::last)
            .and_then(J::as_str)
            .unwrap_or("");
        let kind = match class {
            "AIMessage" | "AIMessageChunk" => "ai",
            "ToolMessage" | "ToolMessageChunk" => "tool",
            "HumanMessage" | "HumanMessageChunk" => "human",
            _ => "other",
        };
        path.push(Seg::K("kwargs"));
        (kind, m.get("kwargs"))
    } else if let Some(data) = m.get("data").filter(|d| d.is_obj()) {
        path.push(Seg::K("data"));
        (m.str_of("type").unwrap_or(""), Some(data))
    } else {
        (m.str_of("type").unwrap_or(""), Some(m))
    };
    let get = |key: &str| fields.and_then(|f| f.get(key));
    let text = |key: &str| get(key).and_then(J::as_str);
    match kind {
        "ai" | "AIMessageChunk" => {
            // A multi-agent graph names the agent (its node) on the message.
            sink.set_agent(text("name").filter(|n| !n.is_empty()));
            if let Some(f) = fields {
                ai(f, &path, sink);
            }
            sink.set_agent(None);
            if let Some(text) = content_text(get("content")) {
                sink.assistant_text(&text);
            }
        }
        "human" | "user" if is_prompt(get("content")) => sink.user_turn(),
        "tool" => {
            if let Some(id) = text("tool_call_id") {
                let out = || get("content").map(norm_output);
                let err = text("status") == Some("error");
                sink.answer_id_with(id, out, err);
            }
        }
        _ => {}
    }
}

/// An `AIMessage`'s calls: `tool_calls`, then `invalid_tool_calls` (their `args` a string, read
/// by the argument-string rule). When it has neither, nor `tool_call_chunks` (absent or empty
/// lists), the provider's raw calls in `additional_kwargs.tool_calls` are parsed as LangChain
/// parses them (`AIMessage._backwards_compat_tool_calls`): arguments that are JSON make a call
/// (a JSON value that is false in Python — `null`, `0`, `[]`, … — is `{}`), the others an
/// invalid call after them, keeping the text.
fn ai<'s, J: Json<'s>>(f: J, path: &[Seg], sink: &mut Sink) {
    let listed = |key: &str| {
        f.get(key)
            .and_then(J::as_items)
            .is_some_and(|items| items.len() > 0)
    };
    if !listed("tool_calls") && !listed("invalid_tool_calls") && !listed("tool_call_chunks") {
        if let Some(kw) = f.get("additional_kwargs") {
            legacy(kw, path, sink);
        }
        return;
    }
    for (j, tc) in f.items_of("tool_calls").enumerate() {
        let args = tc.get("args").map_or(Args::Empty, Args::of);
        let l = sink.at_in(path, &[Seg::K("tool_calls"), Seg::I(j)]);
        sink.call(
            tc.str_of("name").unwrap_or(""),
            args,
            tc.str_of("id").map(str::to_string),
            l,
        );
    }
    for (j, tc) in f.items_of("invalid_tool_calls").enumerate() {
        let args = match tc.get("args") {
            Some(a) => match a.as_str() {
                Some(raw) => match super::super::sink::parse_args_text(raw) {
                    Ok(v) => Args::Owned(v),
                    Err(_) => Args::of(a),
                },
                None if a.is_null() => Args::Empty,
                None => Args::of(a),
            },
            None => Args::Empty,
        };
        let l = sink.at_in(path, &[Seg::K("invalid_tool_calls"), Seg::I(j)]);
        sink.call(
            tc.str_of("name").unwrap_or(""),
            args,
            tc.str_of("id").map(str::to_string),
            l,
        );
    }
}

/// The raw calls of `additional_kwargs.tool_calls`, as LangChain's `default_tool_parser` reads
/// them: those whose `function.arguments` is JSON first, then the others.
fn legacy<'s, J: Json<'s>>(kw: J, path: &[Seg], sink: &mut Sink) {
    let mut invalid = Vec::new();
    for (j, tc) in kw.items_of("tool_calls").enumerate() {
        let Some(func) = tc.get("function") else {
            continue;
        };
        let l = sink.at_in(
            path,
            &[Seg::K("additional_kwargs"), Seg::K("tool_calls"), Seg::I(j)],
        );
        let name = func.str_of("name").unwrap_or("");
        let id = tc.str_of("id").map(str::to_string);
        let raw = func.get("arguments");
        let parsed = raw
            .and_then(J::as_str)
            .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok());
        match parsed {
            Some(v) => {
                let args = if py_false(&v) {
                    serde_json::Value::Object(serde_json::Map::new())
                } else {
                    v
                };
                sink.call(name, Args::Owned(args), id, l);
            }
            None => invalid.push((name, raw, id, l)),
        }
    }
    for (name, raw, id, l) in invalid {
        sink.call(name, raw.map_or(Args::Empty, Args::of), id, l);
    }
}

/// Whether Python takes the JSON value for false (`args or {}`).
fn py_false(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}
