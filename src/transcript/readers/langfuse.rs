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

/// Read the TOOL observations.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    let Some((obs, root)) = observations(v) else {
        return Err("expected a Langfuse trace export with `observations`".to_string());
    };
    let by_start =
        |a: &&(usize, &Value), b: &&(usize, &Value)| s(a.1, "startTime").cmp(&s(b.1, "startTime"));
    let mut indexed: Vec<(usize, &Value)> = obs.enumerate().collect();
    indexed.sort_by(|a, b| by_start(&a, &b));
    // The model's calls, from the generations in start order.
    let mut known = ModelCalls::default();
    for (_, o) in indexed
        .iter()
        .filter(|(_, o)| s(o, "type") == Some("GENERATION"))
    {
        for key in ["input", "output"] {
            if let Some(x) = o.get(key) {
                known.collect(x);
            }
        }
    }
    for (i, o) in indexed.iter().filter(|(_, o)| s(o, "type") == Some("TOOL")) {
        let name = s(o, "name").unwrap_or("");
        let input = field(o, "input").filter(|x| !x.is_null());
        let id = known.id_of(name, input);
        let args = input.map_or(Args::Empty, Args::Value);
        let mut path = root.clone();
        path.push(Seg::I(*i));
        let l = sink.at(&path);
        let k = sink.call_unique(name, args, id, l);
        let output = field(o, "output").filter(|x| !x.is_null()).cloned();
        let error = s(o, "level") == Some("ERROR");
        if output.is_some() || error {
            sink.answer(k, output, error);
        }
    }
    Ok(())
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
        let parsed;
        let x = match x {
            Value::String(t) if t.trim_start().starts_with(['{', '[']) => {
                match serde_json::from_str::<Value>(t) {
                    Ok(p) => {
                        parsed = p;
                        &parsed
                    }
                    Err(_) => return,
                }
            }
            other => other,
        };
        let mut found = Vec::new();
        collect_calls(x, 0, &mut found);
        for (name, args, id) in found {
            self.ids.entry(key(&name, &args)).or_insert(id);
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

/// Every model call inside `v` (Responses `function_call` items and Chat `tool_calls` entries).
fn collect_calls(v: &Value, depth: usize, out: &mut Vec<(String, Value, String)>) {
    if depth > MAX_SEARCH_DEPTH {
        return;
    }
    match v {
        Value::Object(o) => {
            if let (Some(name), Some(args), Some(id)) = (
                field(o, "name").and_then(Value::as_str),
                field(o, "arguments"),
                field(o, "call_id").and_then(Value::as_str),
            ) {
                out.push((name.to_string(), decoded(args), id.to_string()));
            } else if let (Some(id), Some(f)) = (
                field(o, "id").and_then(Value::as_str),
                field(o, "function").filter(|f| f.is_object()),
            ) {
                if let (Some(name), Some(args)) = (s(f, "name"), field(f, "arguments")) {
                    out.push((name.to_string(), decoded(args), id.to_string()));
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
