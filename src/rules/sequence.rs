//! Rules on the sequence of calls: `undeclared-tool`, `repeated-call`, `missing-result`.
//!
//! Each is one pass over the calls (a set of declared names for `undeclared-tool`), with at most
//! [`super::MAX_FINDINGS_PER_RULE`] findings each.

use std::collections::{BTreeMap, HashSet};

use super::{clip, Capped, RuleFinding, View};
use crate::code::Code;

/// Calls to a tool the transcript's tool list does not declare: one finding per tool, at its
/// first call, with the number of calls. Silent when the transcript declares no tool.
pub(super) fn undeclared(t: &View<'_>, out: &mut Vec<RuleFinding>) {
    if t.tools.is_empty() {
        return;
    }
    let declared: HashSet<&str> = t.tools.iter().map(|d| d.name.as_str()).collect();
    // name → (first call, number of calls), in order of first call.
    let mut seen: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for i in 0..t.calls.count() {
        let name = t.calls.name(i);
        if !declared.contains(name) {
            seen.entry(name).or_insert((i, 0)).1 += 1;
        }
    }
    let mut firsts: Vec<(usize, &str, usize)> =
        seen.into_iter().map(|(n, (i, k))| (i, n, k)).collect();
    firsts.sort_unstable();
    let mut found = Capped::new(Code::UndeclaredTool);
    let mut names: Vec<&str> = declared.into_iter().collect();
    names.sort_unstable();
    let listed = clip(
        &names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", "),
        300,
    );
    for (i, name, count) in firsts {
        let times = match count {
            1 => String::new(),
            n => format!(" ({n} calls)"),
        };
        found.push(
            format!(
                "`{}` is called{times} but the transcript does not declare it",
                clip(name, 120)
            ),
            format!(
                "the tools offered to the model are {listed}: a call to another is a hallucinated \
                 tool name (or the tool list recorded is not the one the agent ran with)"
            ),
            t.span(i),
        );
    }
    found.finish(out);
}

/// Runs of `count` or more calls in a row with the same name and the same arguments: one
/// finding per run, at its first call.
pub(super) fn repeated(t: &View<'_>, count: usize, out: &mut Vec<RuleFinding>) {
    let count = count.max(2);
    let mut found = Capped::new(Code::RepeatedCall);
    let n = t.calls.count();
    let mut start = 0;
    while start < n {
        let name = t.calls.name(start);
        let args = t.calls.args(start);
        let mut end = start + 1;
        while end < n && t.calls.name(end) == name && *t.calls.args(end) == *args {
            end += 1;
        }
        let run = end - start;
        if run >= count && !args.is_null() && !is_poll(&args) {
            let shown = clip(&args.to_string(), 160);
            found.push(
                format!(
                    "`{}` is called {run} times in a row with the same arguments {shown} (calls #{} to #{end})",
                    clip(name, 120),
                    start + 1
                ),
                format!(
                    "a run of identical calls is a loop: the agent does not use the result, or \
                     the result does not change; {count} in a row are reported (`[rules.repeated-call] \
                     count` in toolspec.toml)"
                ),
                t.span(start),
            );
        }
        start = end;
    }
    found.finish(out);
}

/// Whether `args` poll something running rather than act: they name it by a handle (a member
/// `session_id`, `process_id`, `pid`, `job_id`, `task_id`, `shell_id`, `terminal_id` or
/// `run_id`) and carry no payload — every other member is empty (`""`, `null`, `[]`, `{}`) or a
/// number or flag (a wait, a limit). Codex polls a running command with `write_stdin`
/// `{session_id, chars: "", yield_time_ms, max_output_tokens}` until it exits: a run of such
/// calls waits on the process, it is no loop.
fn is_poll(args: &serde_json::Value) -> bool {
    use serde_json::Value;
    const HANDLES: &[&str] = &[
        "session_id",
        "process_id",
        "pid",
        "job_id",
        "task_id",
        "shell_id",
        "terminal_id",
        "run_id",
    ];
    let Some(members) = args.as_object() else {
        return false;
    };
    let handle = |k: &str| {
        let k = k.to_ascii_lowercase().replace(['-', ' '], "_");
        HANDLES
            .iter()
            .any(|h| k == *h || k.replace('_', "") == h.replace('_', ""))
    };
    members.keys().any(|k| handle(k))
        && members.iter().all(|(k, v)| {
            handle(k)
                || match v {
                    Value::Null | Value::Bool(_) | Value::Number(_) => true,
                    Value::String(s) => s.is_empty(),
                    Value::Array(a) => a.is_empty(),
                    Value::Object(o) => o.is_empty(),
                }
        })
}

/// Calls without a result that come before a call with one: the run went on without the
/// result. Silent when no call of the transcript got a result (the format records none, or the
/// run stopped at its first call).
pub(super) fn missing_results(t: &View<'_>, out: &mut Vec<RuleFinding>) {
    let Some(last) = t.answered.iter().rposition(|&a| a) else {
        return;
    };
    let mut found = Capped::new(Code::MissingResult);
    for i in 0..last.min(t.calls.count()) {
        if !t.answered[i] {
            found.push(
                format!(
                    "call #{} `{}` never got a result, although later calls did",
                    i + 1,
                    clip(t.calls.name(i), 120)
                ),
                "the tool's result was lost (not sent back to the model, or dropped from the \
                 log): the model went on without it"
                    .into(),
                t.span(i),
            );
        }
    }
    found.finish(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;
    use crate::transcript::{ToolCall, ToolDecl};
    use serde_json::{json, Value};

    fn call(name: &str, args: Value, at: usize) -> ToolCall {
        ToolCall {
            name: name.into(),
            args,
            id: None,
            output: None,
            is_error: false,
            span: Span::new(at, at + 1),
            turn: None,
            agent: None,
            namespace: None,
            args_text: None,
        }
    }

    fn run(calls: &[ToolCall], tools: &[&str], answered: &[bool]) -> Vec<RuleFinding> {
        let spans: Vec<Span> = calls.iter().map(|c| c.span).collect();
        let tools: Vec<ToolDecl> = tools
            .iter()
            .map(|n| ToolDecl {
                name: (*n).into(),
                description: None,
                parameters: None,
            })
            .collect();
        let calls = calls.to_vec();
        let t = View {
            calls: &calls,
            spans: &spans,
            tools: &tools,
            answered,
            text: None,
        };
        super::super::run(&super::super::RuleSet::default(), &t)
    }

    #[test]
    fn a_search_six_times_is_one_loop_and_two_in_a_row_are_none() {
        let mut calls: Vec<ToolCall> = (0..6)
            .map(|i| call("search", json!({"q": "x"}), i))
            .collect();
        calls.push(call("search", json!({"q": "y"}), 6));
        calls.push(call("search", json!({"q": "y"}), 7));
        let found = run(&calls, &[], &[]);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].code, Code::RepeatedCall);
        assert!(
            found[0].message.contains("6 times in a row"),
            "{}",
            found[0].message
        );
        assert_eq!(found[0].span, Span::new(0, 1));
    }

    /// Polling a running process (Codex `write_stdin` with empty `chars`) is no loop; the same
    /// call writing input, or without a handle, is.
    #[test]
    fn polling_a_running_process_is_no_loop() {
        let poll = serde_json::json!({"session_id": 98003, "chars": "", "yield_time_ms": 1000, "max_output_tokens": 22000});
        let calls: Vec<ToolCall> = (0..6)
            .map(|i| call("write_stdin", poll.clone(), i))
            .collect();
        assert!(run(&calls, &[], &[]).is_empty());
        let typing = serde_json::json!({"session_id": 98003, "chars": "y\n"});
        let calls: Vec<ToolCall> = (0..6)
            .map(|i| call("write_stdin", typing.clone(), i))
            .collect();
        assert_eq!(run(&calls, &[], &[]).len(), 1);
        let wait = serde_json::json!({"seconds": 5});
        let calls: Vec<ToolCall> = (0..6).map(|i| call("sleep", wait.clone(), i)).collect();
        assert_eq!(run(&calls, &[], &[]).len(), 1);
    }

    #[test]
    fn undeclared_tools_once_each_and_only_with_a_tool_list() {
        let calls = [
            call("a", json!({}), 0),
            call("zz", json!({}), 1),
            call("b", json!({}), 2),
            call("zz", json!({"x": 1}), 3),
        ];
        let found = run(&calls, &["a"], &[]);
        let got: Vec<(&str, Span)> = found.iter().map(|f| (f.message.as_str(), f.span)).collect();
        assert_eq!(got.len(), 2);
        assert!(got[0].0.starts_with("`zz` is called (2 calls)"), "{got:?}");
        assert_eq!(got[1].1, Span::new(2, 3));
        assert!(run(&calls, &[], &[]).is_empty());
    }

    #[test]
    fn a_missing_result_before_an_answered_call_only() {
        let calls = [
            call("a", json!({}), 0),
            call("b", json!({}), 1),
            call("c", json!({}), 2),
        ];
        let found = run(&calls, &[], &[false, true, false]);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].code, found[0].span),
            (Code::MissingResult, Span::new(0, 1))
        );
        assert!(run(&calls, &[], &[false, false, false]).is_empty());
    }

    #[test]
    fn findings_are_capped_with_a_note() {
        let calls: Vec<ToolCall> = (0..250)
            .map(|i| call(&format!("t{i}"), json!({}), i))
            .collect();
        let found = run(&calls, &["a"], &[]);
        assert_eq!(found.len(), super::super::MAX_FINDINGS_PER_RULE + 1);
        let last = found.iter().find(|f| f.code == Code::RuleLimit).unwrap();
        assert!(
            last.message.starts_with("150 more `undeclared-tool`"),
            "{}",
            last.message
        );
    }
}
