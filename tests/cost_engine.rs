//! Engine inputs whose cost used to grow faster than the input: each is checked at the size that
//! took seconds to minutes, and its result asserted (the timings are in `benches/engine.rs`).

mod engine_common;

use engine_common::*;
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::{run, Status};
use toolspec::transcript::model::ToolCall;

fn codes(v: &toolspec::engine::Verdict) -> Vec<&str> {
    v.findings.iter().map(|f| f.code.as_str()).collect()
}

/// `exactly 3000 call f(x: 1)` against 3 000 calls of `f`: the in-order programme has 3 001
/// states for the count (it used to have 4.5 million, searched linearly per call).
#[test]
fn exactly_3000_in_order_against_3000_calls() {
    for order in [OrderMode::InOrder, OrderMode::Strict] {
        let s = spec(
            order,
            vec![exp("f").eq("x", json!(1)).repeat(3_000, Some(3_000))],
        );
        let calls: Vec<ToolCall> = (0..3_000).map(|_| call("f", json!({"x": 1}))).collect();
        let v = run(&s, &calls);
        assert!(v.passed, "{order:?}");
        assert_eq!(v.score, 1.0);
        assert_eq!(v.expectations[0].status, Status::Matched);
        assert_eq!(v.expectations[0].calls.len(), 3_000);
        assert!(v.findings.is_empty(), "{:?}", codes(&v));

        // Name-only calls (the worst case before): one in ten has the wrong argument.
        let calls: Vec<ToolCall> = (0..3_000)
            .map(|i| call("f", json!({"x": if i % 10 == 3 { 2 } else { 1 }})))
            .collect();
        let v = run(&s, &calls);
        assert!(!v.passed);
        assert_eq!(v.expectations[0].status, Status::NameOnly);
        assert_eq!(v.counts.exact, 2_700);
        assert_eq!(v.counts.name_only, 300);
        assert_eq!(
            codes(&v)
                .iter()
                .filter(|c| **c == "name-only-match")
                .count(),
            300
        );
    }
}

/// `at_least 3000` in order, followed by another expectation, against 3 000 + 1 calls.
#[test]
fn at_least_3000_then_another_in_order() {
    let s = spec(
        OrderMode::InOrder,
        vec![
            exp("f").repeat(3_000, None),
            exp("g"),
            exp("f").label("again").repeat(0, Some(2_000)),
        ],
    );
    let mut calls: Vec<ToolCall> = (0..3_000).map(|i| call("f", json!({"i": i}))).collect();
    calls.push(call("g", json!({})));
    calls.extend((0..1_500).map(|i| call("f", json!({"i": i}))));
    let v = run(&s, &calls);
    assert!(v.passed);
    assert_eq!(v.expectations[0].calls.len(), 3_000);
    assert_eq!(v.expectations[1].calls, vec![3_000]);
    assert_eq!(v.expectations[2].calls.len(), 1_500);
    assert!(v.unaccounted.is_empty());
}
