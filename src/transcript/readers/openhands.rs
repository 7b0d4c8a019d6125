//! OpenHands trajectories: the event list OpenHands saves (`save_trajectory_path`, the
//! "export trajectory" button), a JSON array of events `{id, timestamp, source, message,
//! action | observation, args | content + extras, cause, tool_call_metadata}` (bare, or under
//! `trajectory`). An action event with `tool_call_metadata {function_name, tool_call_id,
//! model_response}` is one call; the observation whose `cause` is the action's `id` is its result.

use std::collections::HashMap;

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, field, norm_output, s, Args, Sink};
use super::super::spans::Seg;

/// Read an OpenHands trajectory.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    let (events, root): (&[Value], Vec<Seg>) = match v {
        Value::Array(a) => (a, vec![]),
        _ => match field(v, "trajectory").and_then(Value::as_array) {
            Some(a) => (a, vec![Seg::K("trajectory")]),
            None => {
                return Err(format!(
                    "expected an OpenHands event list; found {}",
                    detect::describe(v)
                ))
            }
        },
    };
    // Action event id → call index.
    let mut actions: HashMap<String, usize> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        let mut path = root.clone();
        path.push(Seg::I(i));
        if field(e, "action").is_some() {
            let Some(meta) = field(e, "tool_call_metadata").filter(|m| m.is_object()) else {
                continue;
            };
            let id = s(meta, "tool_call_id");
            let name = s(meta, "function_name").unwrap_or("");
            // The arguments as the model wrote them: the matching entry of the model response.
            let entry = meta
                .get("model_response")
                .map_or(&[][..], |r| arr(r, "choices"))
                .iter()
                .filter_map(|c| field(c, "message"))
                .flat_map(|m| arr(m, "tool_calls"))
                .find(|tc| id.is_some() && s(tc, "id") == id);
            let args = entry
                .and_then(|tc| field(tc, "function"))
                .and_then(|f| field(f, "arguments"))
                .filter(|a| !a.is_null())
                .map_or(Args::Empty, Args::Value);
            let l = sink.at(&path);
            let k = sink.call(name, args, id.map(str::to_string), l);
            if let Some(key) = event_id(e) {
                actions.insert(key, k);
            }
        } else if field(e, "observation").is_some() {
            let Some(k) = e
                .get("cause")
                .and_then(event_id_of)
                .and_then(|c| actions.get(&c))
            else {
                continue;
            };
            let error = s(e, "observation") == Some("error");
            sink.answer(*k, field(e, "content").map(norm_output), error);
        }
    }
    Ok(())
}

fn event_id(e: &Value) -> Option<String> {
    field(e, "id").and_then(event_id_of)
}

fn event_id_of(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}
