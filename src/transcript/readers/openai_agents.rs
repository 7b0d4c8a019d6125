//! OpenAI Agents SDK (Python) files beyond the Responses items of `result.to_input_list()`
//! (which the Responses reader reads):
//!
//! - a run state, `result.to_state().to_json()` (`RunState`): `{"$schemaVersion",
//!   original_input, generated_items[], model_responses[], session_items[], …}`, where each run
//!   item is `{type: "…_item", raw_item, agent, output?, …}` and `raw_item` a Responses item;
//! - a list of such serialised run items (`generated_items` on its own);
//! - a trace export: what `BackendSpanExporter` posts, `{"data": [trace and span objects]}`, or a
//!   list of `span.export()` objects `{object: "trace.span", id, trace_id, parent_id, started_at,
//!   ended_at, span_data: {type, …}, error}`. The calls are the `function` spans.

use serde_json::Value;

use crate::json::view::Json;

use super::super::detect;
use super::super::sink::{field, s, Args, Loc, Sink};
use super::super::spans::Seg;
use super::langfuse::ModelCalls;
use crate::source::Span;

/// An exported trace item: a span (`object: "trace.span"` with a `span_data` object) or the
/// trace itself (`object: "trace"` with a `workflow_name`).
fn is_trace_item<'s, J: Json<'s>>(x: J) -> bool {
    match x.str_of("object") {
        Some("trace.span") => x.get("span_data").is_some_and(J::is_obj),
        Some("trace") => x.get("workflow_name").is_some(),
        _ => false,
    }
}

/// The exported items of a trace export, with their path: a non-empty list (bare or under
/// `data`) of trace and span objects with at least one span, or one exported span on its own
/// (a line of a JSON-lines export read as a document: `None` for the list).
fn trace_list<'s, J: Json<'s>>(v: J) -> Option<(Option<J::Items>, Vec<Seg>)> {
    let (items, root) = match v.as_items() {
        Some(a) => (a, vec![]),
        None if is_span(v) => return Some((None, vec![])),
        None => (v.get("data")?.as_items()?, vec![Seg::K("data")]),
    };
    (items.clone().all(is_trace_item)
        && items
            .clone()
            .any(|x| x.str_of("object") == Some("trace.span")))
    .then_some((Some(items), root))
}

/// [`trace_list`] as a slice of the items.
pub(crate) fn trace_items(v: &Value) -> Option<(&[Value], Vec<Seg>)> {
    let (items, root) = trace_list(v)?;
    Some((
        items.map_or(std::slice::from_ref(v), |i| i.as_slice()),
        root,
    ))
}

/// An exported span: `object: "trace.span"` and a `span_data` object (what decides that a JSON
/// lines file is a trace export, one exported item per line).
pub(crate) fn is_span<'s, J: Json<'s>>(x: J) -> bool {
    x.str_of("object") == Some("trace.span") && x.get("span_data").is_some_and(J::is_obj)
}

/// A trace export written one exported item per line: the spans are kept until the end of the
/// file, since calls are ordered by start time and their ids come from any generation span.
#[derive(Default)]
pub(crate) struct Spans {
    spans: Vec<(Value, Span)>,
}

impl Spans {
    /// One line (located by `sink.line`): a span is kept; trace objects and other lines are not.
    pub(crate) fn line(&mut self, v: &Value, sink: &Sink) {
        if !is_span(v) {
            return;
        }
        let at = sink.line.unwrap_or_default();
        if matches!(s(&v["span_data"], "type"), Some("function" | "generation")) {
            self.spans.push((v.clone(), at));
        } else {
            // Other spans only for the agent they name and the chain of parents up to it.
            let d = &v["span_data"];
            let small = serde_json::json!({
                "object": "trace.span",
                "id": field(v, "id"),
                "parent_id": field(v, "parent_id"),
                "started_at": field(v, "started_at"),
                "span_data": {"type": field(d, "type"), "name": field(d, "name")},
            });
            self.spans.push((small, at));
        }
    }

    /// End of input: the calls of the spans kept.
    pub(crate) fn finish(self, sink: &mut Sink) {
        let (values, at): (Vec<Value>, Vec<Span>) = self.spans.into_iter().unzip();
        read_spans(&values, |i| Loc::Span(at[i]), sink);
    }
}

/// A serialised run item: `type` `…_item` and a `raw_item`.
fn is_run_item<'s, J: Json<'s>>(x: J) -> bool {
    x.str_of("type").is_some_and(|t| t.ends_with("_item")) && x.get("raw_item").is_some()
}

/// A run state (`RunState.to_json()`): a `$schemaVersion` string and `generated_items[]`.
pub(crate) fn is_run_state<'s, J: Json<'s>>(v: J) -> bool {
    v.get("$schemaVersion").is_some_and(J::is_str)
        && v.get("generated_items").is_some_and(J::is_arr)
}

/// A non-empty list of serialised run items.
pub(crate) fn is_run_items<'s, J: Json<'s>>(v: J) -> bool {
    v.as_items()
        .is_some_and(|mut a| a.len() > 0 && a.all(is_run_item))
}

/// Whether `v` is any of this format's documents.
pub(crate) fn is_doc<'s, J: Json<'s>>(v: J) -> bool {
    is_run_state(v) || is_run_items(v) || trace_list(v).is_some()
}

/// Read a run state, a run item list or a trace export.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    if let Some((items, root)) = trace_items(v) {
        read_spans(
            items,
            |i| {
                let mut path = root.clone();
                path.push(Seg::I(i));
                Loc::Path(path)
            },
            sink,
        );
        return Ok(());
    }
    if is_run_items(v) {
        run_items(v.as_array().map_or(&[][..], Vec::as_slice), &[], sink);
        return Ok(());
    }
    if is_run_state(v) {
        // The input the run started from (a string, or a list of Responses items), then what
        // the run generated. `session_items` and `model_responses` repeat these items.
        if field(v, "original_input").is_some_and(Value::is_string) {
            sink.user_turn();
        }
        if let Some(input) = field(v, "original_input").and_then(Value::as_array) {
            let input: Vec<&Value> = input.iter().collect();
            super::openai_responses::items(
                &input,
                |i| vec![Seg::K("original_input"), Seg::I(i)],
                sink,
            );
        }
        if let Some(items) = field(v, "generated_items").and_then(Value::as_array) {
            run_items(items, &[Seg::K("generated_items")], sink);
        }
        return Ok(());
    }
    Err(format!(
        "expected an OpenAI Agents SDK run state, run items or trace export; found {}",
        detect::describe(v)
    ))
}

/// The `raw_item`s of run items, read as lists of Responses items (an approval item repeats
/// its call, which the id de-duplicates): one list per run of items of the same agent (the
/// item's `agent.name`), whose calls that agent made.
fn run_items(items: &[Value], root: &[Seg], sink: &mut Sink) {
    let agent_of = |x: &Value| {
        field(x, "agent")
            .and_then(|a| s(a, "name"))
            .map(str::to_owned)
    };
    let (raw, at): (Vec<Value>, Vec<usize>) = items
        .iter()
        .enumerate()
        .filter_map(|(i, x)| {
            field(x, "raw_item")
                .filter(|r| r.is_object())
                .map(|r| (r.clone(), i))
        })
        .unzip();
    // Items that name their agent record its runs: each stretch of items of one agent is one
    // run of it (a handoff starts the next).
    if items.iter().any(|x| agent_of(x).is_some()) {
        sink.records_runs();
    }
    let mut start = 0;
    while start < raw.len() {
        let agent = agent_of(&items[at[start]]);
        let end = (start..raw.len())
            .find(|&k| agent_of(&items[at[k]]) != agent)
            .unwrap_or(raw.len());
        if let Some(a) = &agent {
            sink.agent_run(a);
        }
        sink.set_agent(agent.as_deref());
        let part: Vec<&Value> = raw[start..end].iter().collect();
        super::openai_responses::items(
            &part,
            |k| {
                let mut p = root.to_vec();
                p.extend([Seg::I(at[start + k]), Seg::K("raw_item")]);
                p
            },
            sink,
        );
        start = end;
    }
    sink.set_agent(None);
}

/// The agent of each span: the name of its nearest `agent` span, itself included, going up
/// by `parent_id` (at most 64 steps: a cycle of ids ends there).
fn span_agents<'v>(spans: &[(usize, &'v Value)]) -> std::collections::HashMap<&'v str, &'v str> {
    let by_id: std::collections::HashMap<&str, &Value> = spans
        .iter()
        .filter_map(|(_, x)| s(x, "id").map(|id| (id, *x)))
        .collect();
    let mut out = std::collections::HashMap::new();
    for (_, x) in spans {
        let Some(id) = s(x, "id") else { continue };
        let mut at = Some(*x);
        for _ in 0..64 {
            let Some(span) = at else { break };
            let d = field(span, "span_data").unwrap_or(&Value::Null);
            if s(d, "type") == Some("agent") {
                if let Some(name) = s(d, "name") {
                    out.insert(id, name);
                }
                break;
            }
            at = s(span, "parent_id").and_then(|p| by_id.get(p).copied());
        }
    }
    out
}

/// Read the `function` spans of a trace, ordered by `started_at` (file order on ties); `at(i)`
/// locates item `i`.
fn read_spans<'v>(items: &'v [Value], at: impl Fn(usize) -> Loc, sink: &mut Sink) {
    let data = |x: &'v Value| field(x, "span_data").unwrap_or(&Value::Null);
    let mut spans: Vec<(usize, &Value)> = items
        .iter()
        .enumerate()
        .filter(|(_, x)| s(x, "object") == Some("trace.span"))
        .collect();
    spans.sort_by(|(_, a), (_, b)| s(a, "started_at").cmp(&s(b, "started_at")));
    // The model's calls, from the generation spans (Chat Completions models record the
    // messages; Responses models record only a response id).
    let mut known = ModelCalls::default();
    for (_, x) in &spans {
        let d = data(x);
        if s(d, "type") == Some("generation") {
            for key in ["output", "input"] {
                if let Some(m) = d.get(key) {
                    known.collect(m);
                }
            }
        }
    }
    let agents = span_agents(&spans);
    // Each `agent` span is one run of that agent.
    sink.records_runs();
    for (i, x) in spans {
        let d = data(x);
        if s(d, "type") == Some("agent") {
            if let Some(name) = s(d, "name") {
                sink.agent_run(name);
            }
        }
        if s(d, "type") != Some("function") {
            continue;
        }
        sink.set_agent(s(x, "id").and_then(|id| agents.get(id).copied()));
        let name = s(d, "name").unwrap_or("");
        let input = field(d, "input").filter(|a| !a.is_null());
        let id = known.id_of(name, input);
        let l = match at(i) {
            Loc::Path(p) => sink.at(&p),
            span @ Loc::Span(_) => span,
        };
        let k = sink.call_unique(name, input.map_or(Args::Empty, Args::Value), id, l);
        // An MCP tool's span says its server (`mcp_data: {"server": NAME}`).
        sink.set_namespace(k, field(d, "mcp_data").and_then(|m| s(m, "server")));
        let output = field(d, "output").filter(|o| !o.is_null()).cloned();
        let error = field(x, "error").is_some_and(|e| !e.is_null());
        if output.is_some() || error {
            sink.answer(k, output, error);
        }
    }
    sink.set_agent(None);
}
