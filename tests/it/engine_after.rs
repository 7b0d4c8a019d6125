//! `after first|last ANCHOR { … }` scopes and the counts written as statements (`total_calls`,
//! `agent "A" runs`) in the engine: an expectation, `never` rule or count inside an `after` block
//! sees only the calls after the anchor's first (last) call; a label anchor is the first (last)
//! call matched to that expectation; `total_calls` counts every call of its scope and changes
//! nothing but the verdict's pass.

use crate::engine_common;

use engine_common::*;
use proptest::prelude::*;
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::{run, Recorded, Status, Verdict};
use toolspec::source::Span;
use toolspec::transcript::model::{AgentRun, ToolCall};

fn after(edge: Edge, anchor: Anchor) -> Scope {
    Scope {
        after: Some(After {
            edge,
            anchor,
            span: Span::new(5, 9),
        }),
        ..Scope::default()
    }
}

fn after_tool(edge: Edge, tool: &str) -> Scope {
    after(edge, Anchor::Tool { tool: tool.into() })
}

fn err(name: &str, errored: bool) -> ToolCall {
    ToolCall {
        is_error: errored,
        ..call(name, json!({}))
    }
}

fn scoped(mut e: Expectation, s: Scope) -> Expectation {
    e.scope = Some(s);
    e
}

fn total(min: u32, max: Option<u32>, scope: Option<Scope>) -> Limit {
    Limit {
        counted: Counted::Calls,
        min,
        max,
        scope,
        span: Span::new(10, 20),
    }
}

fn codes(v: &Verdict) -> Vec<&str> {
    v.findings.iter().map(|f| f.code.as_str()).collect()
}

/// `after last Edit { call Bash errored false }`: a passing test run after an earlier edit does
/// not count once the agent edits again; the run that tests after its last edit passes.
#[test]
fn tests_after_the_last_edit() {
    let cfg = spec(
        OrderMode::AnyOrder,
        vec![
            exp("Edit").repeat(1, None),
            scoped(exp("Bash").errored(false), after_tool(Edge::Last, "Edit")),
        ],
    );
    let tested = [
        err("Edit", false),
        err("Bash", true),
        err("Edit", false),
        err("Bash", false),
    ];
    let v = run(&cfg, &tested);
    assert!(v.passed, "{:?}", v.findings);
    let untested = [err("Edit", false), err("Bash", false), err("Edit", false)];
    let v = run(&cfg, &untested);
    assert!(!v.passed);
    assert_eq!(v.expectations[1].status, Status::Missing);
    // `after first Edit` is satisfied by the test run after the first edit.
    let cfg = spec(
        OrderMode::AnyOrder,
        vec![
            exp("Edit").repeat(1, None),
            scoped(exp("Bash").errored(false), after_tool(Edge::First, "Edit")),
        ],
    );
    assert!(run(&cfg, &untested).passed);
}

/// With no call of the anchor, nothing is after it: the expectation is unmet and a warning at
/// the anchor says why (once per block).
#[test]
fn an_anchor_without_a_call() {
    let cfg = spec(
        OrderMode::AnyOrder,
        vec![
            scoped(exp("Bash"), after_tool(Edge::Last, "Edit")),
            scoped(exp("Read"), after_tool(Edge::Last, "Edit")),
        ],
    );
    let v = run(&cfg, &[err("Bash", false), err("Read", false)]);
    assert!(!v.passed);
    let anchors: Vec<_> = v
        .findings
        .iter()
        .filter(|f| f.code == "anchor-not-called")
        .collect();
    assert_eq!(anchors.len(), 1, "{:?}", codes(&v));
    assert_eq!(
        anchors[0].message,
        "`after last Edit`: no call of `Edit` in this transcript, so no call is after it"
    );
}

/// `never` inside `after last deploy` (a label): an edit after the last call matched to the
/// labelled expectation is forbidden, one before it is not.
#[test]
fn never_after_a_label() {
    let mut cfg = spec(
        OrderMode::AnyOrder,
        vec![exp("Bash").label("deploy").repeat(1, None)],
    );
    cfg.forbidden.push(Forbidden {
        tool: "Edit".into(),
        namespace: None,
        any_tool: false,
        args: None,
        errored: None,
        scope: Some(after(
            Edge::Last,
            Anchor::Label {
                expectation: 0,
                label: "deploy".into(),
            },
        )),
        span: Span::new(30, 40),
    });
    let ok = [err("Edit", false), err("Bash", false)];
    assert!(run(&cfg, &ok).passed, "{:?}", codes(&run(&cfg, &ok)));
    let bad = [err("Bash", false), err("Edit", false)];
    let v = run(&cfg, &bad);
    assert!(!v.passed);
    assert!(codes(&v).contains(&"forbidden-call"), "{:?}", codes(&v));
}

/// `total_calls <= 2` counts every call, matched or not, and fails the pair past it with the
/// score unchanged; inside an `after` block it counts the calls after the anchor.
#[test]
fn total_calls_counts_every_call_of_its_scope() {
    let mut cfg = spec(OrderMode::AnyOrder, vec![exp("a")]);
    cfg.limits.push(total(0, Some(2), None));
    let three = [err("a", false), err("b", false), err("c", false)];
    let v = run(&cfg, &three);
    assert!(!v.passed);
    assert!((v.score - 1.0).abs() < 1e-9);
    let f = v
        .findings
        .iter()
        .find(|f| f.code == "count-out-of-range")
        .unwrap();
    assert_eq!(f.message, "3 tool calls; the spec allows at most 2");
    assert!(run(&cfg, &three[..2]).passed);
    // After the last `a`: two calls, within the bound.
    cfg.limits[0].scope = Some(after_tool(Edge::Last, "a"));
    assert!(run(&cfg, &three).passed);
    cfg.limits[0].max = Some(1);
    assert!(!run(&cfg, &three).passed);
}

/// `agent "researcher" runs <= 1` counts the recorded starts; a transcript that records none
/// fails with `runs-not-recorded` rather than count zero.
#[test]
fn agent_runs_count_the_recorded_starts() {
    let mut cfg = spec(OrderMode::AnyOrder, vec![]);
    cfg.limits.push(Limit {
        counted: Counted::AgentRuns {
            agent: "researcher".into(),
        },
        min: 1,
        max: Some(1),
        scope: None,
        span: Span::new(10, 20),
    });
    let calls = [err("search", false), err("search", false)];
    let run_of = |first_call| AgentRun {
        agent: "researcher".into(),
        turn: None,
        first_call,
    };
    let once = [run_of(0)];
    let twice = [run_of(0), run_of(1)];
    let with = |runs: Option<&[AgentRun]>| {
        let recorded = Recorded {
            calls: &calls,
            turns: None,
            answer: None,
            agent_runs: runs,
        };
        run(&cfg, &recorded)
    };
    assert!(with(Some(&once)).passed);
    let v = with(Some(&twice));
    assert!(!v.passed);
    assert!(codes(&v).contains(&"count-out-of-range"));
    let v = with(None);
    assert!(!v.passed);
    assert!(codes(&v).contains(&"runs-not-recorded"));
    assert!(!codes(&v).contains(&"count-out-of-range"));
    // No start recorded where the format records them: zero runs, below the minimum.
    assert!(codes(&with(Some(&[]))).contains(&"count-out-of-range"));
}

fn tool() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["a", "b", "c"])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// On random transcripts: an expectation of `t` inside `after first|last A` is met exactly
    /// when a call of `t` comes after the anchor's first (last) call; the same block's
    /// `total_calls` range holds exactly when the calls after the anchor are within it; and the
    /// count changes nothing but the pass.
    #[test]
    fn after_scopes_see_exactly_the_calls_after_the_anchor(
        names in prop::collection::vec(tool(), 0..10),
        t in tool(),
        anchor in tool(),
        last in any::<bool>(),
        min in 0u32..3,
        extra in prop::option::of(0u32..3),
        order in prop::sample::select(vec![OrderMode::InOrder, OrderMode::AnyOrder]),
    ) {
        let calls: Vec<ToolCall> = names.iter().map(|n| err(n, false)).collect();
        let edge = if last { Edge::Last } else { Edge::First };
        let s = after_tool(edge, anchor);
        let mut cfg = spec(order, vec![scoped(exp(t).repeat(1, None), s.clone())]);
        let without = run(&cfg, &calls);
        let at = if last {
            names.iter().rposition(|n| *n == anchor)
        } else {
            names.iter().position(|n| *n == anchor)
        };
        let after_it: Vec<usize> = at.map_or(Vec::new(), |p| (p + 1..names.len()).collect());
        let met = after_it.iter().any(|&i| names[i] == t);
        prop_assert_eq!(without.expectations[0].status == Status::Matched, met);
        prop_assert_eq!(without.passed, met);
        prop_assert_eq!(
            without.findings.iter().any(|f| f.code == "anchor-not-called"),
            at.is_none()
        );
        let max = extra.map(|e| min + e);
        cfg.limits.push(total(min, max, Some(s)));
        let with = run(&cfg, &calls);
        let n = after_it.len() as u32;
        let holds = n >= min && max.is_none_or(|m| n <= m);
        prop_assert_eq!(with.score, without.score);
        prop_assert_eq!(&with.expectations, &without.expectations);
        prop_assert_eq!(with.passed, without.passed && holds);
        prop_assert_eq!(
            with.findings.iter().filter(|f| f.code == "count-out-of-range").count(),
            usize::from(!holds)
        );
    }
}
