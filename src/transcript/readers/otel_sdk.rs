//! OpenTelemetry spans as the Python SDK writes them (`ReadableSpan.to_json()`), not OTLP: span
//! objects `{name, context, parent, start_time, end_time, status: {status_code}, attributes:
//! {key: value}, events, resource}`, in a list or under `spans` (any-agent's `AgentTrace`
//! `{spans, final_output}`). The calls are the `execute_tool` spans (GenAI semantic
//! conventions), ordered by `start_time` (file order on ties).

use serde_json::Value;

use crate::json::view::Json;

use super::super::sink::{field, s, Args, Sink};
use super::super::spans::Seg;

/// The span list of a document in this shape, with its path.
pub(crate) fn spans<'s, J: Json<'s>>(v: J) -> Option<(J::Items, Vec<Seg>)> {
    let (items, root) = match v.as_items() {
        Some(a) => (a, vec![]),
        None => (v.get("spans")?.as_items()?, vec![Seg::K("spans")]),
    };
    let is_span = |x: J| {
        x.get("name").is_some_and(J::is_str)
            && x.get("attributes").is_some_and(J::is_obj)
            && x.get("context").is_some_and(J::is_obj)
            && x.get("start_time").is_some()
    };
    (items.len() > 0 && items.clone().all(is_span)).then_some((items, root))
}

/// Order key of a `start_time`: nanoseconds (any-agent) or an ISO 8601 string (the SDK).
#[derive(PartialEq, PartialOrd)]
enum Start<'v> {
    Nanos(f64),
    Text(&'v str),
    None,
}

fn start(x: &Value) -> Start<'_> {
    match field(x, "start_time") {
        Some(Value::Number(n)) => Start::Nanos(n.as_f64().unwrap_or(0.0)),
        Some(Value::String(t)) => Start::Text(t),
        _ => Start::None,
    }
}

/// Read the `execute_tool` spans.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    let Some((items, root)) = spans(v) else {
        return Err("expected OpenTelemetry SDK spans".to_string());
    };
    let mut tools: Vec<(usize, &Value)> = items
        .enumerate()
        .filter(|(_, x)| {
            let a = &x["attributes"];
            s(a, "gen_ai.operation.name") == Some("execute_tool")
                || (s(x, "name").is_some_and(|n| n.starts_with("execute_tool"))
                    && field(a, "gen_ai.tool.name").is_some())
        })
        .collect();
    // Stable: spans that start together keep their file order.
    tools.sort_by(|(_, a), (_, b)| {
        start(a)
            .partial_cmp(&start(b))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    for (i, x) in tools {
        let a = &x["attributes"];
        let name = s(a, "gen_ai.tool.name")
            .or_else(|| s(x, "name").and_then(|n| n.strip_prefix("execute_tool ")))
            .unwrap_or("");
        let args = a
            .get("gen_ai.tool.args")
            .or(field(a, "gen_ai.tool.call.arguments"))
            .filter(|v| !v.is_null())
            .map_or(Args::Empty, Args::Value);
        let id = s(a, "gen_ai.tool.call.id").map(str::to_string);
        let mut path = root.clone();
        path.push(Seg::I(i));
        let l = sink.at(&path);
        let k = sink.call_unique(name, args, id, l);
        let output = a
            .get("gen_ai.output")
            .or(field(a, "gen_ai.tool.call.result"))
            .filter(|v| !v.is_null())
            .cloned();
        let error = x
            .get("status")
            .and_then(|st| s(st, "status_code"))
            .is_some_and(|c| c.eq_ignore_ascii_case("error"))
            || field(a, "error.type").is_some();
        if output.is_some() || error {
            sink.answer(k, output, error);
        }
    }
    Ok(())
}
