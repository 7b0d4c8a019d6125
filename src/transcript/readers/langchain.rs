//! LangChain / LangGraph messages: flat `model_dump()`, `messages_to_dict()` `{type, data}`,
//! and `dumpd()` `lc` constructors (Python and JS namespaces).

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, content_text, field, is_prompt, norm_output, s, Args, Sink};
use super::super::spans::Seg;

/// Read a LangChain message list or state.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    let Some(msgs) = detect::messages(v) else {
        return Err(format!(
            "expected a message list or `messages`; found {}",
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
        message(m, p, sink);
    }
    Ok(())
}

fn message(m: &Value, mut path: Vec<Seg>, sink: &mut Sink) {
    let (kind, fields) = if field(m, "lc").is_some() && s(m, "type") == Some("constructor") {
        let class = m
            .get("id")
            .and_then(Value::as_array)
            .and_then(|a| a.last())
            .and_then(Value::as_str)
            .unwrap_or("");
        let kind = match class {
            "AIMessage" | "AIMessageChunk" => "ai",
            "ToolMessage" | "ToolMessageChunk" => "tool",
            "HumanMessage" | "HumanMessageChunk" => "human",
            _ => "other",
        };
        path.push(Seg::K("kwargs"));
        (kind, field(m, "kwargs").unwrap_or(&Value::Null))
    } else if let Some(data) = field(m, "data").filter(|d| d.is_object()) {
        path.push(Seg::K("data"));
        (s(m, "type").unwrap_or(""), data)
    } else {
        (s(m, "type").unwrap_or(""), m)
    };
    match kind {
        "ai" | "AIMessageChunk" => {
            // A multi-agent graph names the agent (its node) on the message.
            sink.set_agent(s(fields, "name").filter(|n| !n.is_empty()));
            ai(fields, &path, sink);
            sink.set_agent(None);
            if let Some(text) = content_text(field(fields, "content")) {
                sink.assistant_text(&text);
            }
        }
        "human" | "user" if is_prompt(field(fields, "content")) => sink.user_turn(),
        "tool" => {
            if let Some(id) = s(fields, "tool_call_id") {
                let out = field(fields, "content").map(norm_output);
                let err = s(fields, "status") == Some("error");
                sink.answer_id(id, out, err);
            }
        }
        _ => {}
    }
}

fn ai(f: &Value, path: &[Seg], sink: &mut Sink) {
    let has_tc = field(f, "tool_calls").is_some();
    let has_invalid = field(f, "invalid_tool_calls").is_some();
    for (j, tc) in arr(f, "tool_calls").iter().enumerate() {
        let args = field(tc, "args").map_or(Args::Empty, Args::Value);
        let l = sink.at_in(path, &[Seg::K("tool_calls"), Seg::I(j)]);
        sink.call(
            s(tc, "name").unwrap_or(""),
            args,
            s(tc, "id").map(str::to_string),
            l,
        );
    }
    for (j, tc) in arr(f, "invalid_tool_calls").iter().enumerate() {
        let args = match field(tc, "args") {
            Some(Value::String(raw)) => match super::super::sink::parse_args_text(raw) {
                Ok(v) => Args::Owned(v),
                Err(_) => Args::Value(field(tc, "args").unwrap_or(&Value::Null)),
            },
            Some(v) if !v.is_null() => Args::Value(v),
            _ => Args::Empty,
        };
        let l = sink.at_in(path, &[Seg::K("invalid_tool_calls"), Seg::I(j)]);
        sink.call(
            s(tc, "name").unwrap_or(""),
            args,
            s(tc, "id").map(str::to_string),
            l,
        );
    }
    if !has_tc && !has_invalid {
        if let Some(kw) = field(f, "additional_kwargs") {
            for (j, tc) in arr(kw, "tool_calls").iter().enumerate() {
                let Some(func) = field(tc, "function") else {
                    continue;
                };
                let args = field(func, "arguments").map_or(Args::Empty, Args::Value);
                let l = sink.at_in(
                    path,
                    &[Seg::K("additional_kwargs"), Seg::K("tool_calls"), Seg::I(j)],
                );
                sink.call(
                    s(func, "name").unwrap_or(""),
                    args,
                    s(tc, "id").map(str::to_string),
                    l,
                );
            }
        }
    }
}
