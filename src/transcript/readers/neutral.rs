//! toolspec's own calls format: what `toolspec calls --json` prints. A transcript is a JSON
//! array of calls `{name, args, id, output, is_error}` (only `name` and `args` required), or
//! JSON lines with one call per line; a dataset is an array of such arrays (one transcript
//! each). Arguments and outputs are taken as they are (no string decoding); an `is_error` or
//! an `output` answers the call. The schema is `docs/schema/calls.schema.json`.

use serde_json::Value;

use crate::json::view::{Json, Kind};

use super::super::detect;
use super::super::sink::{field, id_string, Args, Sink};
use super::super::spans::Seg;
use crate::code::Code;

/// The keys a call object may have.
pub(crate) const KEYS: [&str; 8] = [
    "name",
    "args",
    "id",
    "output",
    "is_error",
    "turn",
    "agent",
    "namespace",
];

/// Whether `v` is one call: an object with a string `name`, an `args` member, and no key
/// outside [`KEYS`] (`id` a string or null, `is_error` a boolean or null).
pub(crate) fn is_call<'s, J: Json<'s>>(o: J) -> bool {
    o.is_obj()
        && o.get("name").is_some_and(J::is_str)
        && o.get("args").is_some()
        && o.entries().all(|(k, _)| KEYS.contains(&k))
        && o.get("id").is_none_or(|i| i.is_str() || i.is_null())
        && o.get("is_error")
            .is_none_or(|e| matches!(e.kind(), Kind::Bool(_) | Kind::Null))
        && o.get("turn")
            .is_none_or(|t| t.as_u64().is_some_and(|t| t >= 1) || t.is_null())
        && o.get("agent").is_none_or(|a| a.is_str() || a.is_null())
        && o.get("namespace").is_none_or(|n| n.is_str() || n.is_null())
}

/// Whether `v` is one transcript: an array of calls (an empty array is one with no calls).
pub(crate) fn is_calls<'s, J: Json<'s>>(v: J) -> bool {
    v.as_items().is_some_and(|mut a| a.all(is_call))
}

/// Whether `v` is a dataset: a non-empty array of transcripts.
pub(crate) fn is_dataset<'s, J: Json<'s>>(v: J) -> bool {
    v.as_items()
        .is_some_and(|mut a| a.len() > 0 && a.all(|t| t.is_arr() && is_calls(t)))
}

/// The transcripts of a dataset (an array of arrays).
pub(crate) fn transcripts(v: &Value) -> Option<Vec<(Vec<Seg>, &Value)>> {
    let a = v.as_array()?;
    if a.is_empty() || !a.iter().all(Value::is_array) {
        return None;
    }
    Some(super::parts(a, None))
}

/// Read one transcript (an array of calls) or one call (a JSON line).
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    match v {
        Value::Array(calls) => {
            for (i, c) in calls.iter().enumerate() {
                call(c, &[Seg::I(i)], sink)?;
            }
            Ok(())
        }
        Value::Object(_) => call(v, &[], sink),
        _ => Err(format!(
            "expected an array of `{{name, args, id, output, is_error}}` calls; found {}",
            detect::describe(v)
        )),
    }
}

/// Read one transcript of a dataset, found at `path`.
pub(crate) fn read_part(v: &Value, path: &[Seg], sink: &mut Sink) {
    let Some(calls) = v.as_array() else {
        return;
    };
    for (i, c) in calls.iter().enumerate() {
        let mut at = path.to_vec();
        at.push(Seg::I(i));
        if let Err(msg) = call(c, &at, sink) {
            let l = sink.at(&at);
            sink.finding(Code::UnreadableCall, msg, l);
        }
    }
}

fn call(c: &Value, path: &[Seg], sink: &mut Sink) -> Result<(), String> {
    // Only a call as the format defines it: an object of another format that happens to have
    // a `name` (a DeepEval trace, an ADK eval case) is not read as one call.
    let (true, Some(name)) = (is_call(c), field(c, "name").and_then(Value::as_str)) else {
        return Err(format!(
            "expected a call `{{name, args, id, output, is_error}}` (a string `name`, an `args` member, no other key); found {}",
            detect::describe(c)
        ));
    };
    let args = match field(c, "args") {
        // Taken as is: a string was printed as a string (freeform input, or arguments that
        // were not valid JSON), and decoding it again would change it.
        Some(Value::String(s)) => Args::Raw(s.clone()),
        Some(a) => Args::Owned(a.clone()),
        None => Args::Empty,
    };
    let l = sink.at(path);
    // The turn and agent, as `toolspec calls --json` prints them where a reader recorded them.
    sink.set_agent(field(c, "agent").and_then(Value::as_str));
    let turn = field(c, "turn").and_then(Value::as_u64);
    sink.reach_turn(turn.map_or(0, |t| u32::try_from(t).unwrap_or(u32::MAX)));
    let i = sink.call_unique(name, args, id_string(field(c, "id")), l);
    sink.set_agent(None);
    sink.set_namespace(i, field(c, "namespace").and_then(Value::as_str));
    let output = field(c, "output").filter(|o| !o.is_null()).cloned();
    let is_error = field(c, "is_error")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if output.is_some() || is_error {
        sink.answer(i, output, is_error);
    }
    Ok(())
}
