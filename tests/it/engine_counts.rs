//! Counts of any tool (`at_most 1 call * errored`) and scoped, errored, wildcard and referring
//! `never` rules in the engine: a count counts every call of its scope that satisfies its
//! constraints, whatever the alignment made of it, and changes nothing but the verdict's pass;
//! a `never` rule forbids only the calls of its scope, error flag and arguments.

use crate::engine_common;

use engine_common::*;
use proptest::prelude::*;
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::{run, Status, Verdict};
use toolspec::source::Span;
use toolspec::transcript::model::ToolCall;

fn at(name: &str, agent: Option<&str>, errored: bool) -> ToolCall {
    ToolCall {
        agent: agent.map(str::to_owned),
        is_error: errored,
        ..call(name, json!({}))
    }
}

fn agent_scope(name: &str) -> Scope {
    Scope {
        turn: None,
        turn_span: Span::default(),
        agent: Some(name.to_owned()),
        agent_span: Span::new(1, 2),
        after: None,
    }
}

fn count(min: u32, max: Option<u32>, errored: Option<bool>, scope: Option<Scope>) -> Limit {
    Limit {
        counted: Counted::Matching {
            args: ValueMatcher::any(),
            output: None,
            errored,
        },
        min,
        max,
        scope,
        span: Span::new(10, 20),
    }
}

fn codes(v: &Verdict) -> Vec<&str> {
    v.findings.iter().map(|f| f.code.as_str()).collect()
}

/// `at_most 1 call * errored` counts the failed calls of every tool, matched or not, and fails the
/// pair past one, naming the calls and pointing at the first call too many; the score stays.
#[test]
fn a_count_of_failed_calls_of_any_tool() {
    let calls = [
        at("fetch", None, true),
        at("fetch", None, false),
        at("parse", None, true),
        at("other", None, true),
    ];
    let mut cfg = spec(OrderMode::AnyOrder, vec![exp("fetch"), exp("parse")]);
    let without = run(&cfg, &calls);
    assert!(without.passed);
    cfg.limits.push(count(0, Some(1), Some(true), None));
    let v = run(&cfg, &calls);
    assert!(!v.passed);
    assert_eq!(v.score, without.score);
    assert_eq!(v.expectations, without.expectations);
    let f = v
        .findings
        .iter()
        .find(|f| f.code == "count-out-of-range")
        .unwrap();
    assert_eq!(
        f.message,
        "3 calls of any tool that failed (calls #1, #3, #4); the spec allows at most 1"
    );
    assert_eq!(f.call, Some(2));
    assert_eq!(f.spec_span, Some(Span::new(10, 20)));
    // Within the count, nothing changes.
    cfg.limits[0].max = Some(3);
    assert_eq!(run(&cfg, &calls), without);
}

/// `at_least` counts too: short of its minimum the finding is about no call.
#[test]
fn a_minimum_of_any_tool() {
    let mut cfg = spec(OrderMode::AnyOrder, vec![]);
    cfg.limits.push(Limit {
        counted: Counted::Matching {
            args: ValueMatcher {
                checks: vec![PathCheck {
                    path: path("path"),
                    check: Check::Present,
                    span: Span::default(),
                    declared: None,
                }],
                allow_extra_keys: true,
            },
            output: None,
            errored: None,
        },
        min: 1,
        max: None,
        scope: None,
        span: Span::default(),
    });
    let v = run(&cfg, &[call("read", json!({"file": "a"}))]);
    assert!(!v.passed);
    let f = &v.findings[v.findings.len() - 1];
    assert_eq!(f.code, "count-out-of-range");
    assert_eq!(f.call, None);
    assert_eq!(
        f.message,
        "0 calls of any tool with matching arguments; the spec allows at least 1"
    );
    assert!(run(&cfg, &[call("edit", json!({"path": "a"}))]).passed);
}

/// A count in an `agent` block counts only that agent's calls.
#[test]
fn a_scoped_count() {
    let mut cfg = spec(OrderMode::AnyOrder, vec![]);
    cfg.limits
        .push(count(0, Some(1), None, Some(agent_scope("researcher"))));
    let calls = [
        at("fetch", Some("researcher"), false),
        at("fetch", None, false),
        at("fetch", Some("writer"), false),
    ];
    assert!(run(&cfg, &calls).passed);
    let more = [
        at("fetch", Some("researcher"), false),
        at("fetch", Some("researcher"), false),
    ];
    let v = run(&cfg, &more);
    assert!(!v.passed);
    let f = v
        .findings
        .iter()
        .find(|f| f.code == "count-out-of-range")
        .unwrap();
    assert_eq!(
        f.message,
        "2 calls of any tool by agent \"researcher\" (calls #1, #2); the spec allows at most 1"
    );
}

/// `never` inside an `agent` block forbids that agent's calls only; `errored` narrows it to the
/// failed calls; `never *` reads every tool; a forbidden call fills no slot.
#[test]
fn scoped_errored_and_wildcard_never() {
    let mut cfg = spec(OrderMode::AnyOrder, vec![exp("send_email")]);
    cfg.forbidden.push(Forbidden {
        scope: Some(agent_scope("researcher")),
        ..forbid("send_email", None)
    });
    let main_sends = [at("send_email", None, false)];
    assert!(run(&cfg, &main_sends).passed);
    let researcher_sends = [at("send_email", Some("researcher"), false)];
    let v = run(&cfg, &researcher_sends);
    assert!(!v.passed);
    assert_eq!(codes(&v), ["forbidden-call", "missing-call"]);
    assert!(v.findings[0].message.contains("by agent \"researcher\""));

    let mut cfg = spec(OrderMode::AnyOrder, vec![exp("fetch")]);
    cfg.forbidden.push(Forbidden {
        any_tool: true,
        errored: Some(true),
        ..forbid("*", None)
    });
    let ok = [at("fetch", None, false), at("parse", None, false)];
    assert!(run(&cfg, &ok).passed);
    let failed = [at("fetch", None, false), at("parse", None, true)];
    let v = run(&cfg, &failed);
    assert!(!v.passed);
    assert_eq!(v.findings[0].call, Some(1));
    assert!(
        v.findings[0].message.contains("and failed"),
        "{}",
        v.findings[0].message
    );
}

/// A `never` rule with a reference compares each call with the call matched to the labelled
/// expectation before it; a forbidden call is matched to nothing. A refund before any eligibility
/// check has nothing to compare with and is not forbidden by the rule.
#[test]
fn never_with_a_reference() {
    let mut cfg = spec(
        OrderMode::AnyOrder,
        vec![exp("check").label("elig"), exp("refund").repeat(1, None)],
    );
    // `never refund(amount: > elig.output.max)`.
    cfg.forbidden.push(forbid(
        "refund",
        Some(ValueMatcher {
            checks: vec![PathCheck {
                path: path("amount"),
                check: Check::Ref {
                    expectation: 0,
                    label: "elig".into(),
                    part: Part::Output,
                    path: path("max"),
                    op: RefOp::Gt,
                },
                span: Span::default(),
                declared: None,
            }],
            allow_extra_keys: true,
        }),
    ));
    let elig = call_out("check", json!({}), json!({"max": 100}));
    let within = [elig.clone(), call("refund", json!({"amount": 100}))];
    assert!(run(&cfg, &within).passed);
    let over = [
        elig.clone(),
        call("refund", json!({"amount": 60})),
        call("refund", json!({"amount": 101})),
    ];
    let v = run(&cfg, &over);
    assert!(!v.passed);
    assert_eq!(v.findings[0].code, "forbidden-call");
    assert_eq!(v.findings[0].call, Some(2));
    assert_eq!(v.expectations[1].calls, [1]);
    // Before the check there is nothing to compare with.
    let early = [call("refund", json!({"amount": 500})), elig];
    let v = run(&cfg, &early);
    assert_eq!(v.counts.forbidden, 0);
    assert_eq!(v.expectations[1].status, Status::Matched);
}

/// A `never` rule whose reference reads an optional expectation that matched nothing forbids
/// nothing; a count whose reference does not apply counts nothing.
#[test]
fn references_that_do_not_apply_in_rules_and_counts() {
    let rule_ref = |op| ValueMatcher {
        checks: vec![PathCheck {
            path: path("amount"),
            check: Check::Ref {
                expectation: 0,
                label: "quote".into(),
                part: Part::Output,
                path: path("max"),
                op,
            },
            span: Span::default(),
            declared: None,
        }],
        allow_extra_keys: true,
    };
    let mut cfg = spec(
        OrderMode::AnyOrder,
        vec![exp("quote").label("quote").repeat(0, Some(1))],
    );
    cfg.forbidden
        .push(forbid("refund", Some(rule_ref(RefOp::Gt))));
    let calls = [call("refund", json!({"amount": 500}))];
    assert_eq!(run(&cfg, &calls).counts.forbidden, 0);
    cfg.forbidden.clear();
    cfg.limits.push(Limit {
        counted: Counted::Matching {
            args: rule_ref(RefOp::Gt),
            output: None,
            errored: None,
        },
        min: 0,
        max: Some(0),
        scope: None,
        span: Span::default(),
    });
    assert!(run(&cfg, &calls).passed);
}

fn tool() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["a", "b", "c"])
}

fn agent() -> impl Strategy<Value = Option<&'static str>> {
    prop::sample::select(vec![None, Some("x"), Some("y")])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// On random transcripts and specs, a count of `*` (any error flag, argument value, agent
    /// scope and range): the verdict is the one without the count (score, alignment, other
    /// findings) but for `passed`; the count fails exactly when the calls of its scope that
    /// satisfy it, counted one by one, are out of its range; and calls that it does not count
    /// never change whether it holds.
    #[test]
    fn counts_of_any_tool_count_and_change_nothing_else(
        calls in prop::collection::vec((tool(), agent(), any::<bool>(), 0i64..3), 0..10),
        exps in prop::collection::vec((tool(), 0u32..2), 0..4),
        errored in prop::sample::select(vec![None, Some(true), Some(false)]),
        value in prop::option::of(0i64..3),
        scope in agent(),
        min in 0u32..3,
        extra in prop::option::of(0u32..3),
        order in prop::sample::select(vec![OrderMode::Strict, OrderMode::InOrder, OrderMode::AnyOrder]),
    ) {
        let calls: Vec<ToolCall> = calls
            .iter()
            .map(|(t, a, e, v)| ToolCall { agent: a.map(str::to_owned), is_error: *e, ..call(t, json!({"v": v})) })
            .collect();
        let expectations = exps.iter().map(|(t, min)| exp(t).repeat(*min, Some(min + 1))).collect();
        let mut cfg = spec(order, expectations);
        let without = run(&cfg, &calls);
        let max = extra.map(|e| min + e);
        let args = ValueMatcher {
            checks: value.map(|v| PathCheck { path: path("v"), check: Check::equals(json!(v)), span: Span::default(), declared: None }).into_iter().collect(),
            allow_extra_keys: true,
        };
        cfg.limits.push(Limit {
            counted: Counted::Matching { args, output: None, errored },
            min,
            max,
            scope: scope.map(agent_scope),
            span: Span::new(1, 2),
        });
        let with = run(&cfg, &calls);
        let counted = calls.iter().filter(|c| {
            scope.is_none_or(|s| c.agent.as_deref() == Some(s))
                && errored.is_none_or(|e| c.is_error == e)
                && value.is_none_or(|v| c.args["v"] == json!(v))
        }).count() as u32;
        let holds = counted >= min && max.is_none_or(|m| counted <= m);
        prop_assert_eq!(with.score, without.score);
        prop_assert_eq!(&with.expectations, &without.expectations);
        prop_assert_eq!(with.passed, without.passed && holds);
        let found = with.findings.iter().filter(|f| f.code == "count-out-of-range").count();
        prop_assert_eq!(found, usize::from(!holds));
        let others: Vec<_> = with.findings.iter().filter(|f| f.code != "count-out-of-range").collect();
        prop_assert_eq!(others, without.findings.iter().collect::<Vec<_>>());
        // A call the count does not count (another agent, when scoped) changes nothing.
        if let Some(s) = scope {
            let other = if s == "x" { "y" } else { "x" };
            let mut more = calls.clone();
            more.push(ToolCall { agent: Some(other.into()), is_error: errored.unwrap_or(false), ..call("a", json!({"v": value.unwrap_or(0)})) });
            let v = run(&cfg, &more);
            prop_assert_eq!(v.findings.iter().any(|f| f.code == "count-out-of-range"), !holds);
        }
    }
}
