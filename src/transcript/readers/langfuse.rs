//! Langfuse trace exports: `{trace, observations[]}` (the UI's trace download), or the public
//! API's trace with its `observations[]` embedded. Observations `{id, traceId, type, name,
//! startTime, input, output, level, …}`: the calls are the `TOOL` observations, ordered by
//! `startTime` (file order on ties). A TOOL observation records no call id; the id is taken from
//! the model's call with the same name and arguments in a `GENERATION` observation (its input or
//! output: a Responses `function_call` item `{call_id, name, arguments}` or a Chat `tool_calls`
//! entry `{id, function: {name, arguments}}`).

use std::collections::HashMap;

use serde_json::Value;

use crate::json::view::Json;

use super::super::sink::{field, s, Args, Sink};
use super::super::spans::Seg;

/// How deep the search for a call's id looks into a generation's input or output.
const MAX_SEARCH_DEPTH: usize = 12;

/// The observations of a Langfuse export, with their path.
pub(crate) fn observations<'s, J: Json<'s>>(v: J) -> Option<(J::Items, Vec<Seg>)> {
    let (list, root) = match v.get("observations").and_then(J::as_items) {
        Some(a) => (a, vec![Seg::K("observations")]),
        None => (
            v.get("trace")?.get("observations")?.as_items()?,
            vec![Seg::K("trace"), Seg::K("observations")],
        ),
    };
    let is_obs = |o: J| {
        o.get("type").is_some_and(J::is_str)
            && o.get("traceId").is_some_and(J::is_str)
            && o.get("startTime").is_some()
    };
    (list.len() > 0 && list.clone().all(is_obs)).then_some((list, root))
}

/// One call as a model's generation records it.
struct ModelCall {
    name: String,
    args: Value,
    id: Option<String>,
    /// Where it is: the generation's position in start order, then the call's position in it.
    at: (usize, usize),
    /// The generation's position in the file.
    obs: usize,
    /// The tool observation that ran it, once linked.
    tool: Option<usize>,
}

/// A tool observation: its name, id and arguments as the observation records them.
struct ToolRun<'v> {
    /// Position in the file.
    obs: usize,
    /// Position in start order.
    order: usize,
    name: String,
    id: Option<String>,
    input: Option<&'v Value>,
    /// The model call it ran, once linked.
    call: Option<usize>,
}

/// Read the tool calls of a trace: the model's calls in its generations, and the tool
/// observations that ran them (docs/formats.md, **Langfuse**).
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    let Some((obs, root)) = observations(v) else {
        return Err("expected a Langfuse trace export with `observations`".to_string());
    };
    let all: Vec<&Value> = obs.collect();
    let mut indexed: Vec<(usize, &Value)> = all.iter().copied().enumerate().collect();
    indexed.sort_by(|a, b| s(a.1, "startTime").cmp(&s(b.1, "startTime")));
    // The model's calls, from the generations' outputs in start order; the generations'
    // inputs (the history resent) serve to find ids only.
    let mut known = ModelCalls::default();
    let mut model: Vec<ModelCall> = Vec::new();
    let mut seen_ids = std::collections::HashSet::new();
    for (order, (i, o)) in indexed.iter().enumerate() {
        if s(o, "type") != Some("GENERATION") {
            continue;
        }
        if let Some(x) = field(o, "input") {
            known.collect(x);
        }
        let Some(out) = field(o, "output") else {
            continue;
        };
        known.collect(out);
        let mut found = Vec::new();
        collect_calls(out, 0, &mut found);
        for (k, (name, args, id)) in found.into_iter().enumerate() {
            if id.as_ref().is_some_and(|id| !seen_ids.insert(id.clone())) {
                continue;
            }
            model.push(ModelCall {
                name,
                args,
                id,
                at: (order, k),
                obs: *i,
                tool: None,
            });
        }
    }
    // The tool observations, linked to the model call each ran.
    let mut runs: Vec<ToolRun> = Vec::new();
    for (order, (i, o)) in indexed.iter().enumerate() {
        let ty = s(o, "type");
        if !matches!(ty, Some("TOOL" | "SPAN")) {
            continue;
        }
        let attrs = attributes(o);
        let marked = ty == Some("TOOL") || is_tool_span(o, attrs.as_ref());
        let name = tool_name(o, attrs.as_ref());
        let input = field(o, "input").filter(|x| !x.is_null());
        let attr = |k: &str| {
            attrs
                .as_ref()
                .and_then(|a| field(a, k))
                .and_then(Value::as_str)
        };
        let id = attr("gen_ai.tool.call.id")
            .or_else(|| attr("ai.toolCall.id"))
            .map(str::to_string);
        let mut run = ToolRun {
            obs: *i,
            order,
            name,
            id,
            input,
            call: None,
        };
        run.call = link(&run, &model, marked);
        match run.call {
            Some(c) => model[c].tool = Some(runs.len()),
            // A span that is not marked as a tool is one only when it ran a model's call.
            None if !marked => continue,
            None => {}
        }
        runs.push(run);
    }
    // Every model call (ran or not) at its place in the generations, and every tool run that
    // ran no recorded model call at its own start.
    enum Entry {
        Model(usize),
        Run(usize),
    }
    let mut entries: Vec<((usize, usize), Entry)> = model
        .iter()
        .enumerate()
        .map(|(k, c)| (c.at, Entry::Model(k)))
        .chain(
            runs.iter()
                .enumerate()
                .filter(|(_, r)| r.call.is_none())
                .map(|(k, r)| ((r.order, 0), Entry::Run(k))),
        )
        .collect();
    entries.sort_by_key(|(at, _)| *at);
    let path_of = |i: usize| {
        let mut p = root.clone();
        p.push(Seg::I(i));
        p
    };
    for (_, entry) in entries {
        let (name, args, id, run, obs) = match entry {
            Entry::Model(k) => {
                let c = &model[k];
                let run = c.tool.map(|r| &runs[r]);
                let id = c.id.clone().or_else(|| run.and_then(|r| r.id.clone()));
                let obs = run.map_or(c.obs, |r| r.obs);
                (c.name.as_str(), Args::Value(&c.args), id, run, obs)
            }
            Entry::Run(k) => {
                let r = &runs[k];
                let args = match r.input {
                    Some(x) => Args::Owned(run_args(x)),
                    None => Args::Empty,
                };
                let id = r.id.clone().or_else(|| known.id_of(&r.name, r.input));
                (r.name.as_str(), args, id, Some(r), r.obs)
            }
        };
        let l = sink.at(&path_of(obs));
        let k = sink.call_unique(name, args, id, l);
        if let Some(r) = run {
            let o = all[r.obs];
            let output = field(o, "output").filter(|x| !x.is_null()).cloned();
            let error = s(o, "level") == Some("ERROR");
            if output.is_some() || error {
                sink.answer(k, output, error);
            }
        }
    }
    Ok(())
}

/// The span attributes an observation's `metadata` records (an object, or JSON text of one).
fn attributes(o: &Value) -> Option<Value> {
    let md = field(o, "metadata")?;
    let md = match md {
        Value::String(t) if t.trim_start().starts_with('{') => serde_json::from_str(t).ok()?,
        Value::Object(_) => md.clone(),
        _ => return None,
    };
    field(&md, "attributes").filter(|a| a.is_object()).cloned()
}

/// Whether a `SPAN` observation says it ran a tool: OpenInference span kind `TOOL`, the OTel
/// GenAI operation `execute_tool` (or a span named `execute_tool NAME`), LangSmith's span kind
/// `tool`, or the Vercel AI SDK's `ai.toolCall` operation.
fn is_tool_span(o: &Value, attrs: Option<&Value>) -> bool {
    let attr = |k: &str| attrs.and_then(|a| field(a, k)).and_then(Value::as_str);
    if s(o, "name").is_some_and(is_event_span) {
        return false;
    }
    attr("openinference.span.kind") == Some("TOOL")
        || attr("gen_ai.operation.name") == Some("execute_tool")
        || attr("langsmith.span.kind") == Some("tool")
        || attr("ai.operationId") == Some("ai.toolCall")
        || s(o, "name").is_some_and(|n| n.starts_with("execute_tool "))
}

/// A span for one event of a framework's emitter rather than for a tool run: BeeAI writes
/// `tool.search.wikipedia.start-12`, `…finish-12`, `…success-12` around one run.
fn is_event_span(name: &str) -> bool {
    let Some((head, n)) = name.rsplit_once('-') else {
        return false;
    };
    !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
        && [".start", ".finish", ".success", ".error"]
            .iter()
            .any(|e| head.ends_with(e))
}

/// A tool observation's tool name: the name its attributes record (OTel `gen_ai.tool.name`,
/// the Vercel AI SDK's `ai.toolCall.name`), else the observation's name without the prefix an
/// instrumentation adds (`execute_tool NAME` of the OTel conventions, pydantic-ai's `running
/// tool: NAME`).
fn tool_name(o: &Value, attrs: Option<&Value>) -> String {
    let attr = |k: &str| attrs.and_then(|a| field(a, k)).and_then(Value::as_str);
    if let Some(n) = attr("gen_ai.tool.name").or_else(|| attr("ai.toolCall.name")) {
        return n.to_string();
    }
    let name = s(o, "name").unwrap_or("");
    name.strip_prefix("execute_tool ")
        .or_else(|| name.strip_prefix("running tool: "))
        .unwrap_or(name)
        .to_string()
}

/// The arguments of a tool run no model call records: its input by the argument-string rule,
/// without the `{"input": {…}}` wrapper LangSmith's tool spans put around them (the Claude
/// Agent SDK's traces; a model's own call is matched with or without it, see [`link`]).
fn run_args(input: &Value) -> Value {
    let args = decoded(input);
    match unwrapped(&args) {
        Some(inner) => inner.clone(),
        None => args,
    }
}

/// `X` of `{"input": X}` where `X` is an object.
fn unwrapped(args: &Value) -> Option<&Value> {
    match args {
        Value::Object(o) if o.len() == 1 => field(o, "input").filter(|x| x.is_object()),
        _ => None,
    }
}

/// The model call a tool run ran: the one with its id; else the first not yet linked with its
/// name and its arguments (as recorded, or without an `{"input": …}` wrapper); else, for a run
/// whose input is not JSON (Python's `repr` of a dict), or a span linked by its name alone, the
/// first not yet linked with its name.
fn link(run: &ToolRun<'_>, model: &[ModelCall], marked: bool) -> Option<usize> {
    let free = |c: &&ModelCall| c.tool.is_none() && c.name == run.name;
    if let Some(id) = &run.id {
        if let Some(k) = model
            .iter()
            .position(|c| c.tool.is_none() && c.id.as_deref() == Some(id.as_str()))
        {
            return Some(k);
        }
    }
    let args = run.input.map(decoded);
    if let Some(args) = &args {
        let inner = unwrapped(args);
        if let Some(k) = model
            .iter()
            .filter(free)
            .find(|c| c.args == *args || inner.is_some_and(|x| c.args == *x))
            .and_then(|c| model.iter().position(|m| std::ptr::eq(m, c)))
        {
            return Some(k);
        }
    }
    let not_json = args.as_ref().is_some_and(Value::is_string);
    if !marked || not_json || args.is_none() {
        return model
            .iter()
            .position(|c| c.tool.is_none() && c.name == run.name);
    }
    None
}

/// The calls a model made, as its generations record them (a trace's tool spans record no
/// call id: the id is that of the model's call with the same name and arguments). Looked up by
/// a key of the name and the arguments written with sorted keys, so that finding the ids of `n`
/// tool spans costs the size of their arguments, not `n` times the calls recorded.
#[derive(Default)]
pub(super) struct ModelCalls {
    /// Key of (name, arguments) → the id of the first call found with them.
    ids: HashMap<String, String>,
}

impl ModelCalls {
    /// Every model call inside a generation's input or output (JSON text is decoded first),
    /// searched up to [`MAX_SEARCH_DEPTH`] levels deep.
    pub(super) fn collect(&mut self, x: &Value) {
        let mut found = Vec::new();
        collect_calls(x, 0, &mut found);
        for (name, args, id) in found {
            if let Some(id) = id {
                self.ids.entry(key(&name, &args)).or_insert(id);
            }
        }
    }

    /// The id of the first model call named `name` whose arguments are `input` (a JSON string
    /// decoded); `None` when there is none.
    pub(super) fn id_of(&self, name: &str, input: Option<&Value>) -> Option<String> {
        let args = decoded(input?);
        self.ids.get(&key(name, &args)).cloned()
    }
}

/// The lookup key of a call: its name, a NUL, its arguments written with object keys sorted
/// (equal values give equal keys whatever their key order).
fn key(name: &str, args: &Value) -> String {
    let mut out = String::with_capacity(name.len() + 16);
    out.push_str(name);
    out.push('\0');
    canonical(args, &mut out);
    out
}

/// `v` as JSON text with object keys sorted. Iterative: a value nested as deep as the parser
/// allows is written without recursion.
fn canonical(v: &Value, out: &mut String) {
    enum Step<'v> {
        Value(&'v Value),
        Text(&'static str),
        Key(&'v str),
    }
    let mut stack = vec![Step::Value(v)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Text(t) => out.push_str(t),
            Step::Key(k) => {
                out.push_str(&Value::String(k.to_string()).to_string());
                out.push(':');
            }
            Step::Value(Value::Array(a)) => {
                out.push('[');
                stack.push(Step::Text("]"));
                for (i, x) in a.iter().enumerate().rev() {
                    stack.push(Step::Value(x));
                    if i > 0 {
                        stack.push(Step::Text(","));
                    }
                }
            }
            Step::Value(Value::Object(o)) => {
                out.push('{');
                stack.push(Step::Text("}"));
                let mut entries: Vec<(&String, &Value)> = o.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                for (i, (k, x)) in entries.into_iter().enumerate().rev() {
                    stack.push(Step::Value(x));
                    stack.push(Step::Key(k));
                    if i > 0 {
                        stack.push(Step::Text(","));
                    }
                }
            }
            Step::Value(scalar) => out.push_str(&scalar.to_string()),
        }
    }
}

/// Arguments as a value: a JSON string decoded, anything else as is.
fn decoded(v: &Value) -> Value {
    match v {
        Value::String(t) => serde_json::from_str(t).unwrap_or_else(|_| v.clone()),
        other => other.clone(),
    }
}

/// Every model call inside `v`, in order: Responses `function_call` items `{call_id, name,
/// arguments}`, Chat `tool_calls` entries `{id, function: {name, arguments}}`, Anthropic
/// `tool_use` blocks `{id, name, input}`, OTel GenAI and LangChain `tool_call` parts `{id, name,
/// arguments | args}`, Vercel AI SDK calls `{toolCallId, toolName, input | args}` and Gemini
/// `functionCall` parts `{name, args, id?}`. JSON text inside is decoded (instrumentations
/// write messages as strings); the search stops [`MAX_SEARCH_DEPTH`] levels deep.
fn collect_calls(v: &Value, depth: usize, out: &mut Vec<(String, Value, Option<String>)>) {
    if depth > MAX_SEARCH_DEPTH {
        return;
    }
    match v {
        Value::String(t) if t.trim_start().starts_with(['{', '[']) => {
            if let Ok(p) = serde_json::from_str::<Value>(t) {
                collect_calls(&p, depth + 1, out);
            }
        }
        Value::Object(o) => {
            if let Some(call) = model_call(o) {
                out.push(call);
                return;
            }
            for x in o.values() {
                collect_calls(x, depth + 1, out);
            }
        }
        Value::Array(a) => {
            for x in a {
                collect_calls(x, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// The call `o` is, if it is one of the shapes [`collect_calls`] knows.
fn model_call(o: &serde_json::Map<String, Value>) -> Option<(String, Value, Option<String>)> {
    let st = |k: &str| field(o, k).and_then(Value::as_str);
    let id = |k: &str| st(k).filter(|i| !i.is_empty()).map(str::to_string);
    let args = |k: &str| field(o, k).map_or(Value::Object(Default::default()), decoded);
    if let (Some(name), Some(_), Some(call_id)) = (st("name"), field(o, "arguments"), st("call_id"))
    {
        return Some((
            name.to_string(),
            args("arguments"),
            Some(call_id.to_string()),
        ));
    }
    if let Some(f) = field(o, "function").filter(|f| f.is_object()) {
        if let (Some(name), Some(a)) = (s(f, "name"), field(f, "arguments")) {
            if st("id").is_some() || st("type") == Some("function") {
                return Some((name.to_string(), decoded(a), id("id")));
            }
        }
    }
    match st("type") {
        Some("tool_use") => {
            return Some((st("name")?.to_string(), args("input"), id("id")));
        }
        Some("tool_call") => {
            let key = if field(o, "arguments").is_some() {
                "arguments"
            } else {
                "args"
            };
            return Some((st("name")?.to_string(), args(key), id("id")));
        }
        _ => {}
    }
    if let Some(name) = st("toolName").filter(|_| field(o, "toolCallId").is_some()) {
        let key = if field(o, "input").is_some() {
            "input"
        } else {
            "args"
        };
        return Some((name.to_string(), args(key), id("toolCallId")));
    }
    let fc = field(o, "functionCall").or_else(|| field(o, "function_call"));
    if let Some(fc) = fc.filter(|f| f.is_object()) {
        let name = s(fc, "name")?;
        let a = field(fc, "args").map_or(Value::Object(Default::default()), decoded);
        let id = s(fc, "id").filter(|i| !i.is_empty()).map(str::to_string);
        return Some((name.to_string(), a, id));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn emitter_event_spans_are_not_tool_runs() {
        assert!(is_event_span("tool.search.wikipedia.start-12"));
        assert!(is_event_span("tool.search.wikipedia.success-12"));
        assert!(!is_event_span("get-weather"));
        assert!(!is_event_span("tool.start-x"));
        assert!(!is_event_span("duckduckgo_search"));
    }

    #[test]
    fn equal_arguments_give_equal_keys_whatever_their_key_order() {
        let a: Value =
            serde_json::from_str(r#"{"b": [1, {"y": 2, "x": "s"}], "a": null}"#).unwrap();
        let b = json!({"a": null, "b": [1, {"x": "s", "y": 2}]});
        assert_eq!(key("f", &a), key("f", &b));
        assert_eq!(
            key("f", &b),
            "f\0{\"a\":null,\"b\":[1,{\"x\":\"s\",\"y\":2}]}"
        );
        assert_ne!(key("f", &a), key("g", &a));
        assert_ne!(key("f", &json!([1, 2])), key("f", &json!([2, 1])));
    }

    #[test]
    fn a_tool_span_gets_the_id_of_the_call_with_its_name_and_arguments() {
        let mut calls = ModelCalls::default();
        calls.collect(&json!([{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{\"q\": 1, \"r\": 2}"},
                              {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{\"q\": 3}"}]));
        calls.collect(&json!("{\"tool_calls\": [{\"id\": \"c3\", \"function\": {\"name\": \"g\", \"arguments\": \"{}\"}}]}"));
        assert_eq!(
            calls
                .id_of("f", Some(&json!("{\"r\":2,\"q\":1}")))
                .as_deref(),
            Some("c1")
        );
        assert_eq!(
            calls.id_of("f", Some(&json!({"q": 3}))).as_deref(),
            Some("c2")
        );
        assert_eq!(calls.id_of("g", Some(&json!("{}"))).as_deref(), Some("c3"));
        assert_eq!(calls.id_of("f", Some(&json!({"q": 4}))), None);
        assert_eq!(calls.id_of("f", None), None);
    }
}
