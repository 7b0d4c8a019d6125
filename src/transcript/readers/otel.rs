//! OpenTelemetry GenAI spans in OTLP/JSON: `execute_tool` spans and `tool_call` message
//! parts on chat spans, merged by call id and ordered by span start time.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::super::sink::{arr, field, norm_output, parse_args_text, s, Args, Loc, Sink};
use super::super::spans::Seg;

/// Attributes the reading rule uses.
const KEEP: &[&str] = &[
    "gen_ai.operation.name",
    "gen_ai.tool.name",
    "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "error.type",
    "gen_ai.agent.name",
];

struct SpanRec {
    start: u128,
    seq: usize,
    attrs: Map<String, Value>,
    error: bool,
    loc: Loc,
    /// Vendor-flattened tool calls (OpenLLMetry, OpenInference), in (message, call) order.
    flat: Flat,
    /// `spanId` and `parentSpanId`: the agent of a call is that of its nearest `invoke_agent`
    /// span above it.
    id: Option<String>,
    parent: Option<String>,
}

/// Tool calls and tool results spelled as flattened attributes:
/// OpenLLMetry `gen_ai.completion.N.tool_calls.M.{id,name,arguments}` /
/// `gen_ai.prompt.N.{role,tool_call_id,content}`, and OpenInference
/// `llm.output_messages.N.message.tool_calls.M.tool_call.{id,function.name,function.arguments}` /
/// `llm.input_messages.N.message.{role,tool_call_id,content}`.
/// A tool call part: id, name, arguments.
type Part = (Option<String>, String, Option<Value>);

/// A prompt message while flattened attributes are collected: role, tool_call_id, content.
type PromptRef<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a Value>);

#[derive(Default)]
struct Flat {
    calls: std::collections::BTreeMap<(u32, u32), Part>,
    responses: Vec<(String, Value)>,
}

impl Flat {
    fn read(attrs: &[Value]) -> Flat {
        let mut flat = Flat::default();
        // Prompt messages: N → (role, tool_call_id, content); contents borrowed until known needed.
        let mut prompts: std::collections::BTreeMap<u32, PromptRef<'_>> = Default::default();
        for a in attrs {
            let (Some(key), Some(val)) = (s(a, "key"), field(a, "value")) else {
                continue;
            };
            let (rest, completion) = if let Some(r) = key.strip_prefix("gen_ai.completion.") {
                (r, true)
            } else if let Some(r) = key.strip_prefix("llm.output_messages.") {
                (r, true)
            } else if let Some(r) = key.strip_prefix("gen_ai.prompt.") {
                (r, false)
            } else if let Some(r) = key.strip_prefix("llm.input_messages.") {
                (r, false)
            } else {
                continue;
            };
            let Some((n, attr)) = rest.split_once('.') else {
                continue;
            };
            let Ok(n) = n.parse::<u32>() else { continue };
            let attr = attr.strip_prefix("message.").unwrap_or(attr);
            if completion {
                let Some(tc) = attr.strip_prefix("tool_calls.") else {
                    continue;
                };
                let Some((m, f)) = tc.split_once('.') else {
                    continue;
                };
                let Ok(m) = m.parse::<u32>() else { continue };
                let f = f.strip_prefix("tool_call.").unwrap_or(f);
                let f = f.strip_prefix("function.").unwrap_or(f);
                let entry = flat.calls.entry((n, m)).or_default();
                let v = any_value(val);
                match f {
                    "id" => entry.0 = v.as_str().map(str::to_string),
                    "name" => entry.1 = v.as_str().unwrap_or("").to_string(),
                    "arguments" => entry.2 = Some(v),
                    _ => {}
                }
            } else {
                let e = prompts.entry(n).or_default();
                match attr {
                    "role" => e.0 = field(val, "stringValue").and_then(Value::as_str),
                    "tool_call_id" => e.1 = field(val, "stringValue").and_then(Value::as_str),
                    "content" => e.2 = Some(val),
                    _ => {}
                }
            }
        }
        for (role, id, content) in prompts.into_values() {
            if let (Some("tool"), Some(id)) = (role, id) {
                flat.responses
                    .push((id.to_string(), content.map_or(Value::Null, any_value)));
            }
        }
        flat
    }
}

/// Read an OTLP/JSON export (one batch or a list of batches) or a list of SDK span objects.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    if super::otel_sdk::spans(v).is_some() {
        return super::otel_sdk::read(v, sink);
    }
    let mut st = State::default();
    match v {
        Value::Array(items) => {
            for (i, b) in items.iter().enumerate() {
                st.batch(b, &[Seg::I(i)], sink);
            }
        }
        _ => st.batch(v, &[], sink),
    }
    if st.is_empty() && field(v, "resourceSpans").is_none() && field(v, "resourceLogs").is_none() {
        return Err("expected an OTLP/JSON export with `resourceSpans` or `resourceLogs`".into());
    }
    st.finish(sink);
    Ok(())
}

/// Spans collected across batches (exporters write children before parents).
#[derive(Default)]
pub(crate) struct State {
    spans: Vec<SpanRec>,
    /// The last `gen_ai.tool.definitions` text declared (chat spans repeat it every turn).
    last_definitions: Option<String>,
}

impl State {
    /// Whether no span was seen.
    pub(crate) fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Feed one `ExportTraceServiceRequest` at `path`.
    pub(crate) fn batch(&mut self, v: &Value, path: &[Seg], sink: &mut Sink) {
        self.logs(v, path, sink);
        for (r, rs) in arr(v, "resourceSpans").iter().enumerate() {
            for (c, ss) in arr(rs, "scopeSpans").iter().enumerate() {
                for (k, sp) in arr(ss, "spans").iter().enumerate() {
                    let mut attrs = Map::new();
                    let flat = Flat::read(arr(sp, "attributes"));
                    for a in arr(sp, "attributes") {
                        // Only the attributes the merge reads are decoded (spans carry many).
                        if let (Some(key), Some(val)) = (s(a, "key"), field(a, "value")) {
                            if KEEP.contains(&key) {
                                attrs.insert(key.to_string(), any_value(val));
                            } else if key == "gen_ai.tool.definitions" {
                                self.declare(val, sink);
                            }
                        }
                    }
                    let status = field(sp, "status").and_then(|st| field(st, "code"));
                    let error = matches!(status, Some(Value::Number(n)) if n.as_u64() == Some(2))
                        || matches!(
                            status.and_then(Value::as_str),
                            Some("STATUS_CODE_ERROR" | "ERROR" | "2")
                        )
                        || attrs.contains_key("error.type");
                    let start = match field(sp, "startTimeUnixNano") {
                        Some(Value::String(t)) => t.parse().unwrap_or(0),
                        Some(Value::Number(n)) => u128::from(n.as_u64().unwrap_or(0)),
                        _ => 0,
                    };
                    let mut p = path.to_vec();
                    p.extend([
                        Seg::K("resourceSpans"),
                        Seg::I(r),
                        Seg::K("scopeSpans"),
                        Seg::I(c),
                        Seg::K("spans"),
                        Seg::I(k),
                    ]);
                    let loc = sink.at(&p);
                    let seq = self.spans.len();
                    let span_id = |k: &str| s(sp, k).filter(|v| !v.is_empty()).map(str::to_owned);
                    let mut rec = SpanRec {
                        start,
                        seq,
                        attrs,
                        error,
                        loc,
                        flat,
                        id: span_id("spanId"),
                        parent: span_id("parentSpanId"),
                    };
                    if rec
                        .attrs
                        .get("gen_ai.operation.name")
                        .and_then(Value::as_str)
                        != Some("execute_tool")
                        && s(sp, "name").is_some_and(|n| n.starts_with("execute_tool"))
                    {
                        rec.attrs.insert(
                            "gen_ai.operation.name".into(),
                            Value::String("execute_tool".into()),
                        );
                    }
                    self.spans.push(rec);
                }
            }
        }
    }

    /// Declare the tools of a `gen_ai.tool.definitions` attribute: a JSON string (or structured
    /// value) holding a list of `{type, name, description, parameters}` (the Chat Completions
    /// nesting under `function` is accepted too).
    fn declare(&mut self, val: &Value, sink: &mut Sink) {
        let defs = match any_value(val) {
            Value::String(text) => {
                if self.last_definitions.as_deref() == Some(text.as_str()) {
                    return;
                }
                let parsed = serde_json::from_str::<Value>(&text).unwrap_or(Value::Null);
                self.last_definitions = Some(text);
                parsed
            }
            other => other,
        };
        for d in defs.as_array().map_or(&[][..], Vec::as_slice) {
            let d = field(d, "function").filter(|f| f.is_object()).unwrap_or(d);
            if let Some(name) = s(d, "name") {
                sink.declare(name, field(d, "description"), field(d, "parameters"));
            }
        }
    }

    /// Pre-1.37 GenAI log events (`resourceLogs`): `gen_ai.choice` and `gen_ai.assistant.message`
    /// bodies carry `tool_calls[]` (OpenAI shape, arguments as a JSON string), `gen_ai.tool.message`
    /// bodies `{id, content}`. Each event becomes a pseudo-span holding those parts, so the
    /// merge rule (dedupe by id, order by time) applies unchanged.
    fn logs(&mut self, v: &Value, path: &[Seg], sink: &mut Sink) {
        for (r, rl) in arr(v, "resourceLogs").iter().enumerate() {
            for (c, sl) in arr(rl, "scopeLogs").iter().enumerate() {
                for (k, rec) in arr(sl, "logRecords").iter().enumerate() {
                    let name = s(rec, "eventName").map(str::to_string).or_else(|| {
                        arr(rec, "attributes")
                            .iter()
                            .find(|a| s(a, "key") == Some("event.name"))
                            .and_then(|a| field(a, "value"))
                            .map(any_value)
                            .and_then(|v| v.as_str().map(str::to_string))
                    });
                    let Some(name) = name else { continue };
                    let body = field(rec, "body").map_or(Value::Null, any_value);
                    let mut flat = Flat::default();
                    let tool_calls = match name.as_str() {
                        "gen_ai.choice" => field(&body, "message").map(|m| arr(m, "tool_calls")),
                        "gen_ai.assistant.message" => Some(arr(&body, "tool_calls")),
                        "gen_ai.tool.message" => {
                            if let Some(id) = s(&body, "id") {
                                let content =
                                    field(&body, "content").cloned().unwrap_or(Value::Null);
                                flat.responses.push((id.to_string(), content));
                            }
                            None
                        }
                        _ => None,
                    };
                    for (m, tc) in tool_calls.unwrap_or(&[]).iter().enumerate() {
                        let f = field(tc, "function").unwrap_or(tc);
                        flat.calls.insert(
                            (0, m as u32),
                            (
                                s(tc, "id").map(str::to_string),
                                s(f, "name").unwrap_or("").to_string(),
                                field(f, "arguments").cloned(),
                            ),
                        );
                    }
                    if flat.calls.is_empty() && flat.responses.is_empty() {
                        continue;
                    }
                    let time = ["timeUnixNano", "observedTimeUnixNano"]
                        .iter()
                        .find_map(|key| match rec.get(*key) {
                            Some(Value::String(t)) => t.parse::<u128>().ok().filter(|&t| t > 0),
                            Some(Value::Number(n)) => n.as_u64().map(u128::from).filter(|&t| t > 0),
                            _ => None,
                        })
                        .unwrap_or(0);
                    let mut p = path.to_vec();
                    p.extend([
                        Seg::K("resourceLogs"),
                        Seg::I(r),
                        Seg::K("scopeLogs"),
                        Seg::I(c),
                        Seg::K("logRecords"),
                        Seg::I(k),
                    ]);
                    let loc = sink.at(&p);
                    let seq = self.spans.len();
                    self.spans.push(SpanRec {
                        start: time,
                        seq,
                        attrs: Map::new(),
                        error: false,
                        loc,
                        flat,
                        id: None,
                        parent: None,
                    });
                }
            }
        }
    }

    /// Merge tool spans and message parts into calls.
    pub(crate) fn finish(mut self, sink: &mut Sink) {
        self.spans.sort_by_key(|sp| (sp.start, sp.seq));
        let agents = self.agents();
        struct Entry {
            key: (u128, usize, usize),
            agent: Option<String>,
            id: Option<String>,
            name: String,
            args: Option<Value>,
            output: Option<Value>,
            error: bool,
            loc: Loc,
        }
        let mut entries: Vec<Entry> = Vec::new();
        let mut by_id: HashMap<String, usize> = HashMap::new();
        for sp in &self.spans {
            if sp
                .attrs
                .get("gen_ai.operation.name")
                .and_then(Value::as_str)
                != Some("execute_tool")
            {
                continue;
            }
            let id = sp
                .attrs
                .get("gen_ai.tool.call.id")
                .and_then(Value::as_str)
                .map(str::to_string);
            let e = Entry {
                key: (sp.start, sp.seq, 0),
                agent: agents[sp.seq].clone(),
                id: id.clone(),
                name: sp
                    .attrs
                    .get("gen_ai.tool.name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                args: sp.attrs.get("gen_ai.tool.call.arguments").cloned(),
                output: sp.attrs.get("gen_ai.tool.call.result").cloned(),
                error: sp.error,
                loc: sp.loc.clone(),
            };
            if let Some(id) = id {
                by_id.insert(id.trim().to_string(), entries.len());
            }
            entries.push(e);
        }
        let mut responses: HashMap<String, Value> = HashMap::new();
        for sp in &mut self.spans {
            let flat = std::mem::take(&mut sp.flat);
            let mut parts: Vec<Part> = Vec::new();
            if let Some(msgs) = messages(sp.attrs.get("gen_ai.output.messages"), "\"tool_call\"") {
                for m in &msgs {
                    for part in arr(m, "parts") {
                        if s(part, "type") == Some("tool_call") {
                            parts.push((
                                s(part, "id").map(str::to_string),
                                s(part, "name").unwrap_or("").to_string(),
                                field(part, "arguments").cloned(),
                            ));
                        }
                    }
                }
            }
            parts.extend(flat.calls.into_values());
            for (id, resp) in flat.responses {
                responses.entry(id.trim().to_string()).or_insert(resp);
            }
            for (k, (id, name, args)) in parts.into_iter().enumerate() {
                let existing = id.as_ref().and_then(|i| by_id.get(i.trim()).copied());
                if let Some(e) = existing {
                    if entries[e].args.is_none() {
                        entries[e].args = args;
                    }
                } else {
                    if let Some(id) = &id {
                        by_id.insert(id.trim().to_string(), entries.len());
                    }
                    entries.push(Entry {
                        key: (sp.start, sp.seq, k + 1),
                        agent: agents[sp.seq].clone(),
                        id,
                        name,
                        args,
                        output: None,
                        error: false,
                        loc: sp.loc.clone(),
                    });
                }
            }
            if let Some(msgs) =
                messages(sp.attrs.get("gen_ai.input.messages"), "tool_call_response")
            {
                for m in &msgs {
                    for part in arr(m, "parts") {
                        if s(part, "type") != Some("tool_call_response") {
                            continue;
                        }
                        if let Some(id) = s(part, "id") {
                            let resp = part
                                .get("response")
                                .or(field(part, "result"))
                                .cloned()
                                .unwrap_or(Value::Null);
                            responses.entry(id.trim().to_string()).or_insert(resp);
                        }
                    }
                }
            }
        }
        entries.sort_by_key(|e| e.key);
        for e in entries {
            let args = match e.args {
                Some(a) => Args::Owned(a),
                None => Args::Owned(Value::Null),
            };
            let id = e.id.clone();
            sink.set_agent(e.agent.as_deref());
            let i = sink.call_unique(&e.name, args, id, e.loc);
            sink.set_agent(None);
            let out = e
                .output
                .or_else(|| {
                    e.id.as_ref()
                        .and_then(|id| responses.get(id.trim()).cloned())
                })
                .map(|o| norm_output(&o));
            sink.answer(i, out, e.error);
        }
    }
}

impl State {
    /// The agent of each span, by its `seq`: the `gen_ai.agent.name` of the nearest
    /// `invoke_agent` span at or above it (by `parentSpanId`, at most 64 steps: a cycle of ids
    /// ends there).
    fn agents(&self) -> Vec<Option<String>> {
        let by_id: HashMap<&str, &SpanRec> = self
            .spans
            .iter()
            .filter_map(|sp| sp.id.as_deref().map(|id| (id, sp)))
            .collect();
        let mut out = vec![None; self.spans.len()];
        for sp in &self.spans {
            let mut at = Some(sp);
            for _ in 0..64 {
                let Some(span) = at else { break };
                let op = span
                    .attrs
                    .get("gen_ai.operation.name")
                    .and_then(Value::as_str);
                if op == Some("invoke_agent") {
                    let name = span.attrs.get("gen_ai.agent.name").and_then(Value::as_str);
                    if let (Some(name), Some(slot)) = (name, out.get_mut(sp.seq)) {
                        *slot = Some(name.to_owned());
                    }
                    break;
                }
                at = span.parent.as_deref().and_then(|p| by_id.get(p).copied());
            }
        }
        out
    }
}

/// Messages of a `gen_ai.*.messages` attribute (a JSON string, or structured), parsed only
/// when the text mentions `needle` (most chat spans hold no tool parts worth decoding).
fn messages(v: Option<&Value>, needle: &str) -> Option<Vec<Value>> {
    match v? {
        Value::String(t) if memchr::memmem::find(t.as_bytes(), needle.as_bytes()).is_none() => None,
        Value::String(t) => match parse_args_text(t).ok()? {
            Value::Array(a) => Some(a),
            _ => None,
        },
        Value::Array(a) => Some(a.clone()),
        _ => None,
    }
}

/// Decode an OTLP `AnyValue` (64-bit ints arrive as decimal strings).
fn any_value(v: &Value) -> Value {
    if let Some(x) = field(v, "stringValue") {
        return x.clone();
    }
    if let Some(x) = field(v, "intValue") {
        return match x {
            Value::String(t) => t.parse::<i64>().map_or_else(|_| x.clone(), Value::from),
            other => other.clone(),
        };
    }
    if let Some(x) = v
        .get("doubleValue")
        .or(field(v, "boolValue"))
        .or(field(v, "bytesValue"))
    {
        return x.clone();
    }
    if let Some(a) = field(v, "arrayValue") {
        return Value::Array(arr(a, "values").iter().map(any_value).collect());
    }
    if let Some(kv) = field(v, "kvlistValue") {
        let mut m = Map::new();
        for e in arr(kv, "values") {
            if let (Some(k), Some(val)) = (s(e, "key"), field(e, "value")) {
                m.insert(k.to_string(), any_value(val));
            }
        }
        return Value::Object(m);
    }
    Value::Null
}
