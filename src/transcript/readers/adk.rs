//! Google ADK eval sets (`*.evalset.json`, and the `*.test.json` files of `adk eval` /
//! `AgentEvaluator`): `{eval_set_id, eval_cases[]}` where each case's `conversation[]` holds the
//! invocations recorded, with `intermediate_data.tool_uses[] {id, name, args}` (the tool calls the
//! agent made when the case was recorded: what later runs are compared with). Newer files record
//! `intermediate_data.invocation_events[]` with `function_call` parts instead. The older test-file
//! shape is a list of `{query, expected_tool_use: [{tool_name, tool_input}], reference}`.
//! Outputs are not recorded. Keys are read in snake_case and camelCase.

use serde_json::Value;

use super::super::detect;
use super::super::sink::{field, s, Args, Sink};
use super::super::spans::Seg;

/// `v[snake]`, else `v[camel]`, with the key used.
fn get<'v>(
    v: &'v Value,
    snake: &'static str,
    camel: &'static str,
) -> Option<(&'v Value, &'static str)> {
    v.get(snake)
        .map(|x| (x, snake))
        .or_else(|| v.get(camel).map(|x| (x, camel)))
}

fn list<'v>(v: &'v Value, snake: &'static str, camel: &'static str) -> (&'v [Value], &'static str) {
    match get(v, snake, camel) {
        Some((Value::Array(a), k)) => (a, k),
        _ => (&[], snake),
    }
}

/// Read an eval set (every case) or an old-style test file.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    if let Value::Array(items) = v {
        for (i, q) in items.iter().enumerate() {
            read_case(q, &[Seg::I(i)], sink);
        }
        return Ok(());
    }
    let (cases, key) = list(v, "eval_cases", "evalCases");
    if get(v, "eval_cases", "evalCases").is_none() {
        return Err(format!(
            "expected an ADK eval set with `eval_cases`; found {}",
            detect::describe(v)
        ));
    }
    for (i, c) in cases.iter().enumerate() {
        read_case(c, &[Seg::K(key), Seg::I(i)], sink);
    }
    Ok(())
}

/// The cases of a set with several: one transcript each.
pub(crate) fn cases(v: &Value) -> Option<Vec<(Vec<Seg>, &Value)>> {
    let (items, root): (&[Value], Option<Seg>) = if let Value::Array(a) = v {
        (a, None)
    } else {
        let (items, key) = list(v, "eval_cases", "evalCases");
        (items, Some(Seg::K(key)))
    };
    if items.len() < 2 {
        return None;
    }
    Some(super::parts(items, root))
}

/// Read one eval case (or old-style query) found at `path`.
pub(crate) fn read_case(c: &Value, path: &[Seg], sink: &mut Sink) {
    let at = |rest: &[Seg]| [path, rest].concat();
    // The older eval data shape: a named set `{name, data: [{query, expected_tool_use}]}`.
    if let Some(data) = field(c, "data").and_then(Value::as_array) {
        for (j, q) in data.iter().enumerate() {
            read_case(q, &at(&[Seg::K("data"), Seg::I(j)]), sink);
        }
        return;
    }
    // Old test files: `expected_tool_use[] {tool_name, tool_input}`.
    let (expected, ek) = list(c, "expected_tool_use", "expectedToolUse");
    for (j, t) in expected.iter().enumerate() {
        let args = field(t, "tool_input").map_or(Args::Empty, Args::Value);
        let l = sink.at(&at(&[Seg::K(ek), Seg::I(j)]));
        sink.call_unique(s(t, "tool_name").unwrap_or(""), args, None, l);
    }
    let (conversation, ck) = list(c, "conversation", "conversation");
    for (i, inv) in conversation.iter().enumerate() {
        let Some((data, dk)) = get(inv, "intermediate_data", "intermediateData") else {
            continue;
        };
        let (uses, uk) = list(data, "tool_uses", "toolUses");
        for (j, u) in uses.iter().enumerate() {
            let l = sink.at(&at(&[
                Seg::K(ck),
                Seg::I(i),
                Seg::K(dk),
                Seg::K(uk),
                Seg::I(j),
            ]));
            call(u, l, sink);
        }
        let (events, ek) = list(data, "invocation_events", "invocationEvents");
        for (j, e) in events.iter().enumerate() {
            let parts = e
                .get("content")
                .and_then(|c| field(c, "parts"))
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            for p in parts {
                if let Some((fc, _)) =
                    get(p, "function_call", "functionCall").filter(|(f, _)| f.is_object())
                {
                    let l = sink.at(&at(&[
                        Seg::K(ck),
                        Seg::I(i),
                        Seg::K(dk),
                        Seg::K(ek),
                        Seg::I(j),
                    ]));
                    call(fc, l, sink);
                }
            }
        }
    }
}

/// A `FunctionCall {id, name, args}`. Ids are often `null` in recorded sets, and a recorded id
/// names the call of that recording: not de-duplicated.
fn call(fc: &Value, l: super::super::sink::Loc, sink: &mut Sink) {
    let args = fc
        .get("args")
        .filter(|a| !a.is_null())
        .map_or(Args::Empty, Args::Value);
    sink.call_unique(
        s(fc, "name").unwrap_or(""),
        args,
        s(fc, "id").map(str::to_string),
        l,
    );
}
