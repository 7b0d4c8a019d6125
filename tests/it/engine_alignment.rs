//! Ordering modes, repeats, `before` rules, forbidden tools, extra-call policy, name rules.

use crate::engine_common;

use engine_common::*;
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::{run, Severity, Status, Verdict};

fn codes(v: &Verdict) -> Vec<&str> {
    v.findings.iter().map(|f| f.code.as_str()).collect()
}

#[test]
fn greedy_first_match_trap() {
    // Expectation 0: search with any query; expectation 1: search for "rust".
    // The first call (query "rust") satisfies both. Greedy first-match pairing gives it to
    // expectation 0 and leaves expectation 1 with the "go" call: a false failure.
    let s = spec(
        OrderMode::AnyOrder,
        vec![
            exp("search").arg("query", Check::Present),
            exp("search").eq("query", json!("rust")),
        ],
    );
    let calls = [
        call("search", json!({"query": "rust"})),
        call("search", json!({"query": "go"})),
    ];
    // Greedy first-match, as the peer metrics pair calls: each expectation in turn takes the
    // first unused call that satisfies it.
    let satisfies = [
        |c: &toolspec::transcript::model::ToolCall| c.args.get("query").is_some(),
        |c: &toolspec::transcript::model::ToolCall| c.args["query"] == json!("rust"),
    ];
    let mut used = [false; 2];
    let mut greedy_met = 0;
    for sat in satisfies {
        if let Some(i) = (0..2).find(|&i| !used[i] && sat(&calls[i])) {
            used[i] = true;
            greedy_met += 1;
        }
    }
    assert_eq!(greedy_met, 1, "greedy reports a false failure");
    let v = run(&s, &calls);
    assert!(v.passed, "{v:#?}");
    assert_eq!(v.score, 1.0);
    assert_eq!(v.expectations[0].calls, vec![1]);
    assert_eq!(v.expectations[1].calls, vec![0]);
}

#[test]
fn strict_requires_exactly_the_sequence() {
    let s = spec(OrderMode::Strict, vec![exp("a"), exp("b")]);
    assert!(run(&s, &[call("a", json!({})), call("b", json!({}))]).passed);
    let v = run(
        &s,
        &[
            call("a", json!({})),
            call("x", json!({})),
            call("b", json!({})),
        ],
    );
    assert!(!v.passed);
    assert_eq!(
        v.score, 1.0,
        "the expectations are all met; the extra call fails the spec"
    );
    assert_eq!(codes(&v), ["unexpected-call"]);
    assert_eq!(v.findings[0].severity, Severity::Error);
    let v = run(&s, &[call("b", json!({})), call("a", json!({}))]);
    assert!(!v.passed);
    assert_eq!(v.score, 0.5);
    assert!(codes(&v).contains(&"order-violation"));
}

#[test]
fn in_order_allows_calls_between_but_not_reordering() {
    let s = spec(OrderMode::InOrder, vec![exp("a"), exp("b"), exp("c")]);
    let v = run(
        &s,
        &[
            call("a", json!({})),
            call("x", json!({})),
            call("b", json!({})),
            call("c", json!({})),
        ],
    );
    assert!(v.passed);
    assert_eq!(v.unaccounted, vec![1]);
    assert_eq!(v.findings[0].severity, Severity::Info);
    // c before b: only two of three can be aligned in order.
    let v = run(
        &s,
        &[
            call("a", json!({})),
            call("c", json!({})),
            call("b", json!({})),
        ],
    );
    assert!((v.score - 2.0 / 3.0).abs() < 1e-12);
    let ov = v
        .findings
        .iter()
        .find(|f| f.code == "order-violation")
        .unwrap();
    assert!(ov.message.contains("out of order"), "{}", ov.message);
}

#[test]
fn in_order_alignment_is_optimal_not_greedy() {
    // Greedy in-order matching takes the first `a` (a name-only match); the DP takes the
    // full-matching second `a` and still fits `b` after it.
    let s = spec(
        OrderMode::InOrder,
        vec![exp("a").eq("x", json!(1)), exp("b")],
    );
    let calls = [
        call("a", json!({"x": 2})),
        call("a", json!({"x": 1})),
        call("b", json!({})),
    ];
    let v = run(&s, &calls);
    assert_eq!(v.score, 1.0);
    assert_eq!(v.expectations[0].calls, vec![1]);
}

#[test]
fn any_order_ignores_order() {
    let s = spec(OrderMode::AnyOrder, vec![exp("a"), exp("b")]);
    let v = run(&s, &[call("b", json!({})), call("a", json!({}))]);
    assert!(v.passed);
    assert_eq!(v.expectations[0].calls, vec![1]);
}

#[test]
fn repeats_optional_and_unbounded() {
    let s = spec(
        OrderMode::AnyOrder,
        vec![
            exp("search").repeat(2, None),
            exp("log").repeat(0, Some(1)),
            exp("fetch").repeat(1, Some(2)),
        ],
    );
    let v = run(
        &s,
        &[
            call("search", json!({})),
            call("fetch", json!({})),
            call("search", json!({})),
            call("search", json!({})),
            call("fetch", json!({})),
            call("fetch", json!({})),
        ],
    );
    assert_eq!(v.expectations[0].calls, vec![0, 2, 3]);
    assert_eq!(v.expectations[1].status, Status::Skipped);
    assert_eq!(v.expectations[2].status, Status::TooMany);
    assert_eq!(v.expectations[2].calls, vec![1, 4]);
    assert_eq!(v.unaccounted, vec![5]);
    assert!(codes(&v).contains(&"too-many-calls"));
    assert_eq!(v.score, 1.0);
    // Too few.
    let v = run(&s, &[call("search", json!({})), call("fetch", json!({}))]);
    assert_eq!(v.expectations[0].status, Status::TooFew);
    assert_eq!(v.counts.missing, 1);
    assert!((v.score - 2.0 / 3.0).abs() < 1e-12);
}

#[test]
fn optional_expectation_with_wrong_arguments_is_an_extra_call() {
    // An optional expectation says "this call may appear"; a call of that tool that does not
    // satisfy it is just another call, governed by the extra-call policy.
    let mut s = spec(
        OrderMode::AnyOrder,
        vec![exp("log").eq("level", json!("info")).repeat(0, Some(1))],
    );
    let calls = [call("log", json!({"level": "debug"}))];
    let v = run(&s, &calls);
    assert_eq!(v.expectations[0].status, Status::Skipped);
    assert_eq!(v.unaccounted, vec![0]);
    assert!(v.passed);
    s.extra_calls = ExtraCalls::Forbid;
    assert!(!run(&s, &calls).passed);
}

#[test]
fn before_rules() {
    let mut s = spec(OrderMode::AnyOrder, vec![exp("auth"), exp("pay")]);
    s.before.push(BeforeRule {
        first: 0,
        then: 1,
        span: Default::default(),
    });
    assert!(run(&s, &[call("auth", json!({})), call("pay", json!({}))]).passed);
    let v = run(&s, &[call("pay", json!({})), call("auth", json!({}))]);
    assert!(!v.passed);
    assert_eq!(v.score, 1.0);
    assert_eq!(codes(&v), ["before-violation"]);
    assert_eq!(
        v.findings[0].message,
        "#1 `auth` must come before #2 `pay`, but call #1 precedes call #2"
    );
}

#[test]
fn forbidden_tools_with_and_without_arguments() {
    let mut s = spec(OrderMode::AnyOrder, vec![exp("lookup")]);
    s.forbidden.push(forbid("delete_account", None));
    let mut m = ValueMatcher::any();
    m.checks.push(PathCheck {
        path: path("force"),
        check: Check::equals(json!(true)),
        span: Default::default(),
        declared: None,
    });
    s.forbidden.push(forbid("git_push", Some(m)));
    let ok = [
        call("lookup", json!({})),
        call("git_push", json!({"force": false})),
    ];
    assert!(run(&s, &ok).passed);
    let v = run(
        &s,
        &[
            call("lookup", json!({})),
            call("git_push", json!({"force": true})),
        ],
    );
    assert!(!v.passed);
    assert_eq!(v.counts.forbidden, 1);
    assert_eq!(codes(&v), ["forbidden-call"]);
    let v = run(
        &s,
        &[call("delete_account", json!({})), call("lookup", json!({}))],
    );
    assert!(!v.passed);
    assert_eq!(v.findings[0].call, Some(0));
}

#[test]
fn a_forbidden_call_is_never_matched_to_an_expectation() {
    let mut s = spec(OrderMode::AnyOrder, vec![exp("rm").repeat(0, None)]);
    s.forbidden.push(forbid("rm", None));
    let v = run(&s, &[call("rm", json!({}))]);
    assert!(v.expectations[0].calls.is_empty());
    assert!(!v.passed);
}

#[test]
fn extra_call_policy_and_penalty() {
    let mut s = spec(OrderMode::AnyOrder, vec![exp("a")]);
    let calls = [
        call("a", json!({})),
        call("b", json!({})),
        call("c", json!({})),
    ];
    assert!(run(&s, &calls).passed);
    s.scoring.extra_call = 0.25;
    s.scoring.threshold = 0.5;
    let v = run(&s, &calls);
    assert_eq!(v.score, 0.5);
    assert!(v.passed);
    assert_eq!(v.findings[0].severity, Severity::Warning);
    s.extra_calls = ExtraCalls::Forbid;
    let v = run(&s, &calls);
    assert!(!v.passed);
    assert!(v.findings.iter().all(|f| f.severity == Severity::Error));
}

#[test]
fn name_rules_apply_to_both_sides() {
    let mut s = spec(OrderMode::InOrder, vec![exp("get_order")]);
    let calls = [call("functions.Get-Order", json!({}))];
    assert!(!run(&s, &calls).passed);
    s.names = NameRules {
        ignore_case: true,
        unify_separators: true,
        strip_prefixes: vec!["functions.".into()],
    };
    assert!(run(&s, &calls).passed);
}

#[test]
fn missing_calls_suggest_close_names() {
    let s = spec(OrderMode::InOrder, vec![exp("get_order")]);
    let v = run(&s, &[call("get_orders", json!({}))]);
    let f = v
        .findings
        .iter()
        .find(|f| f.code == "missing-call")
        .unwrap();
    assert!(
        f.help.contains("did you mean `get_orders` (call #1)"),
        "{}",
        f.help
    );
    assert_eq!(f.severity, Severity::Error);
}

#[test]
fn name_only_findings_list_the_failures() {
    let s = spec(
        OrderMode::InOrder,
        vec![exp("search").eq("q", json!("rust"))],
    );
    let v = run(&s, &[call("search", json!({"q": "go"}))]);
    assert_eq!(v.score, 0.5);
    assert_eq!(v.counts.name_only, 1);
    let f = &v.findings[0];
    assert_eq!(f.code, "name-only-match");
    assert_eq!(
        f.message,
        r#"call #1 matches #1 `search` by name only: q: "go" ≠ "rust""#
    );
}

#[test]
fn empty_inputs() {
    let s = spec(OrderMode::InOrder, vec![]);
    let v = run(&s, &[]);
    assert_eq!((v.score, v.passed), (1.0, true));
    let s = spec(OrderMode::AnyOrder, vec![exp("a")]);
    let v = run(&s, &[]);
    assert_eq!((v.score, v.passed), (0.0, false));
    assert_eq!(v.expectations[0].status, Status::Missing);
}

#[test]
fn verdict_serializes_with_a_stable_shape() {
    let s = spec(OrderMode::InOrder, vec![exp("a").eq("x", json!(1))]);
    let v = run(&s, &[call("a", json!({"x": 2}))]);
    let j = serde_json::to_value(&v).unwrap();
    assert_eq!(j["expectations"][0]["status"], json!("name_only"));
    assert_eq!(
        j["expectations"][0]["failures"][0]["check"],
        json!("equals")
    );
    assert_eq!(j["findings"][0]["code"], json!("name-only-match"));
    assert_eq!(j["findings"][0]["severity"], json!("error"));
    let back: Verdict = serde_json::from_value(j).unwrap();
    assert_eq!(back, v);
}

#[test]
fn before_rules_pick_the_call_that_respects_them() {
    // Two equally good `pay` calls; the unconstrained optimum would take the first, which comes
    // before `auth`. The engine takes the second instead of reporting a violation.
    let mut s = spec(OrderMode::AnyOrder, vec![exp("auth"), exp("pay")]);
    s.before.push(BeforeRule {
        first: 0,
        then: 1,
        span: Default::default(),
    });
    let v = run(
        &s,
        &[
            call("pay", json!({})),
            call("auth", json!({})),
            call("pay", json!({})),
        ],
    );
    assert!(v.passed, "{v:#?}");
    assert_eq!(v.expectations[1].calls, vec![2]);
    assert_eq!(v.unaccounted, vec![0]);
}

#[test]
fn before_rules_do_not_hide_a_violation_behind_a_missing_call() {
    // In order a, b with the rule "b before a": honouring it would mean dropping a match, which
    // scores worse; the engine reports the broken rule instead.
    let mut s = spec(OrderMode::InOrder, vec![exp("a"), exp("b")]);
    s.before.push(BeforeRule {
        first: 1,
        then: 0,
        span: Default::default(),
    });
    let v = run(&s, &[call("a", json!({})), call("b", json!({}))]);
    assert_eq!(v.score, 1.0);
    assert!(!v.passed);
    assert_eq!(codes(&v), ["before-violation"]);
}

#[test]
fn malformed_configs_degrade_instead_of_panicking() {
    let mut s = spec(
        OrderMode::AnyOrder,
        vec![
            exp("a").repeat(3, Some(1)).weight(f64::NAN),
            exp("b")
                .arg("x", reference(42, "nowhere", Part::Output, "id"))
                .weight(-2.0),
            exp(""),
        ],
    );
    s.before.push(BeforeRule {
        first: 9,
        then: 0,
        span: Default::default(),
    });
    s.scoring.threshold = f64::INFINITY;
    s.scoring.extra_call = f64::NAN;
    for order in [OrderMode::Strict, OrderMode::InOrder, OrderMode::AnyOrder] {
        s.order = order;
        let v = run(
            &s,
            &[
                call("a", json!("not an object")),
                call("b", json!({"x": 1})),
                call("", json!(null)),
                call("a", json!([1, 2])),
            ],
        );
        assert!((0.0..=1.0).contains(&v.score));
        assert_eq!(v.threshold, 1.0);
        let json = serde_json::to_string(&v).unwrap();
        assert_eq!(serde_json::from_str::<Verdict>(&json).unwrap(), v);
        assert_eq!(
            v.expectations[1].failures[0].message,
            "x: cannot compare with nowhere.output.id: `nowhere` matched no call"
        );
    }
}

/// An unaccounted call of an expected tool says which constraint it breaks, not only that the
/// expectation's slot went to another call.
#[test]
fn an_unaccounted_call_of_an_expected_tool_says_what_it_breaks() {
    let range = Check::Range {
        min: Some(1.0),
        max: Some(12999.0),
        min_exclusive: false,
        max_exclusive: false,
    };
    let s = spec(
        OrderMode::InOrder,
        vec![exp("issue_refund").arg("amount_cents", range)],
    );
    let v = run(
        &s,
        &[
            call("issue_refund", json!({"amount_cents": 12999})),
            call("issue_refund", json!({"amount_cents": 18997})),
        ],
    );
    let extra = v
        .findings
        .iter()
        .find(|f| f.code == "too-many-calls" || f.code == "unexpected-call")
        .expect("the second call is reported");
    assert_eq!(extra.call, Some(1));
    let help = &extra.help;
    let msg = &extra.message;
    assert!(
        help.contains("18997 is above the maximum 12999") || msg.contains("18997"),
        "{msg} / {help}"
    );
}

#[test]
fn a_cap_is_judged_on_the_best_alignment_whatever_the_call_order() {
    // `optional call b(x: 1)` (a cap of one) and a plain `call b`. Two `b(x: 1)` calls and one
    // `b(x: 2)`: the plain expectation can take the second `b(x: 1)`, leaving `b(x: 2)` over,
    // which no cap counts. Every order of the three calls passes, with one extra call.
    let s = spec(
        OrderMode::AnyOrder,
        vec![exp("b").eq("x", json!(1)).repeat(0, Some(1)), exp("b")],
    );
    let b = |x| call("b", json!({ "x": x }));
    for order in [[2, 1, 1], [1, 2, 1], [1, 1, 2]] {
        let calls: Vec<_> = order.iter().map(|&x| b(x)).collect();
        let v = run(&s, &calls);
        assert!(
            v.passed,
            "{order:?}: {:?} {:?}",
            codes(&v),
            v.expectations
                .iter()
                .map(|e| e.calls.clone())
                .collect::<Vec<_>>()
        );
        assert!(
            !codes(&v).contains(&"too-many-calls")
                || v.findings
                    .iter()
                    .all(|f| { f.code != "too-many-calls" || f.severity != Severity::Error }),
            "{order:?}: {:?}",
            codes(&v)
        );
        let extra = order.iter().position(|&x| x == 2).unwrap();
        let owned: Vec<usize> = v
            .expectations
            .iter()
            .flat_map(|e| e.calls.clone())
            .collect();
        assert!(!owned.contains(&extra), "{order:?}: {owned:?}");
    }
}
