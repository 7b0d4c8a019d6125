//! OpenTelemetry GenAI spans in OTLP/JSON: `execute_tool` spans and `tool_call` message
//! parts on chat spans, merged by call id and ordered by span start time.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::super::sink::{arr, norm_output, parse_args_text, s, Args, Loc, Sink};
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
];

struct SpanRec {
    start: u128,
    seq: usize,
    attrs: Map<String, Value>,
    error: bool,
    loc: Loc,
}

/// Spans collected across batches (exporters write children before parents).
#[derive(Default)]
pub(crate) struct State {
    spans: Vec<SpanRec>,
}

impl State {
    /// Whether no span was seen.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Feed one `ExportTraceServiceRequest` at `path`.
    pub fn batch(&mut self, v: &Value, path: &[Seg], sink: &mut Sink) {
        for (r, rs) in arr(v, "resourceSpans").iter().enumerate() {
            for (c, ss) in arr(rs, "scopeSpans").iter().enumerate() {
                for (k, sp) in arr(ss, "spans").iter().enumerate() {
                    let mut attrs = Map::new();
                    for a in arr(sp, "attributes") {
                        // Only the attributes the merge reads are decoded (spans carry many).
                        if let (Some(key), Some(val)) = (s(a, "key"), a.get("value")) {
                            if KEEP.contains(&key) {
                                attrs.insert(key.to_string(), any_value(val));
                            }
                        }
                    }
                    let status = sp.get("status").and_then(|st| st.get("code"));
                    let error = matches!(status, Some(Value::Number(n)) if n.as_u64() == Some(2))
                        || matches!(
                            status.and_then(Value::as_str),
                            Some("STATUS_CODE_ERROR" | "ERROR" | "2")
                        )
                        || attrs.contains_key("error.type");
                    let start = match sp.get("startTimeUnixNano") {
                        Some(Value::String(t)) => t.parse().unwrap_or(0),
                        Some(Value::Number(n)) => n.as_u64().unwrap_or(0) as u128,
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
                    let mut rec = SpanRec {
                        start,
                        seq,
                        attrs,
                        error,
                        loc,
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

    /// Merge tool spans and message parts into calls.
    pub fn finish(mut self, sink: &mut Sink) {
        self.spans.sort_by_key(|sp| (sp.start, sp.seq));
        struct Entry {
            key: (u128, usize, usize),
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
        for sp in &self.spans {
            if let Some(msgs) = messages(sp.attrs.get("gen_ai.output.messages"), "\"tool_call\"") {
                let mut k = 0usize;
                for m in &msgs {
                    for part in arr(m, "parts") {
                        if s(part, "type") != Some("tool_call") {
                            continue;
                        }
                        k += 1;
                        let id = s(part, "id").map(str::to_string);
                        let existing = id.as_ref().and_then(|i| by_id.get(i.trim()).copied());
                        match existing {
                            Some(e) => {
                                if entries[e].args.is_none() {
                                    entries[e].args = part.get("arguments").cloned();
                                }
                            }
                            None => {
                                if let Some(id) = &id {
                                    by_id.insert(id.trim().to_string(), entries.len());
                                }
                                entries.push(Entry {
                                    key: (sp.start, sp.seq, k),
                                    id,
                                    name: s(part, "name").unwrap_or("").to_string(),
                                    args: part.get("arguments").cloned(),
                                    output: None,
                                    error: false,
                                    loc: sp.loc.clone(),
                                });
                            }
                        }
                    }
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
                                .or(part.get("result"))
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
            let i = sink.call_unique(&e.name, args, id, e.loc);
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
    if let Some(x) = v.get("stringValue") {
        return x.clone();
    }
    if let Some(x) = v.get("intValue") {
        return match x {
            Value::String(t) => t
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| x.clone()),
            other => other.clone(),
        };
    }
    if let Some(x) = v
        .get("doubleValue")
        .or(v.get("boolValue"))
        .or(v.get("bytesValue"))
    {
        return x.clone();
    }
    if let Some(a) = v.get("arrayValue") {
        return Value::Array(arr(a, "values").iter().map(any_value).collect());
    }
    if let Some(kv) = v.get("kvlistValue") {
        let mut m = Map::new();
        for e in arr(kv, "values") {
            if let (Some(k), Some(val)) = (s(e, "key"), e.get("value")) {
                m.insert(k.to_string(), any_value(val));
            }
        }
        return Value::Object(m);
    }
    Value::Null
}
