//! The worked examples of `docs/scoring.md`, one test each, same numbering.

mod engine_common;

use engine_common::*;
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::{run, Status};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn example_1_everything_right() {
    let s = spec(
        OrderMode::InOrder,
        vec![
            exp("lookup").eq("id", json!(7)),
            exp("refund").eq("id", json!(7)),
            exp("notify"),
        ],
    );
    let v = run(
        &s,
        &[
            call("lookup", json!({"id": 7})),
            call("refund", json!({"id": 7.0})),
            call("notify", json!({"text": "done"})),
        ],
    );
    assert_eq!((v.score, v.passed), (1.0, true));
    assert_eq!(v.counts.exact, 3);
}

#[test]
fn example_2_right_tool_wrong_arguments() {
    let mut s = spec(
        OrderMode::InOrder,
        vec![
            exp("search").arg(
                "query",
                Check::Fuzzy {
                    value: "python tutorial".into(),
                    threshold: 0.8,
                },
            ),
            exp("fetch"),
        ],
    );
    let calls = [
        call("search", json!({"query": "python tutorial for kids"})),
        call("fetch", json!({})),
    ];
    let v = run(&s, &calls);
    assert_eq!(v.score, 0.75);
    assert!(!v.passed);
    assert_eq!(v.expectations[0].status, Status::NameOnly);
    assert_eq!(
        v.expectations[0].failures[0].message,
        r#"query: similarity 0.77 < 0.80 (got "python tutorial for kids", expected "python tutorial")"#
    );
    s.scoring.threshold = 0.7;
    assert!(run(&s, &calls).passed);
}

#[test]
fn example_3_weights_and_penalties() {
    let mut s = spec(
        OrderMode::AnyOrder,
        vec![exp("a"), exp("b").weight(2.0), exp("c").eq("x", json!(1))],
    );
    s.scoring.extra_call = 0.1;
    s.scoring.wrong_or_missing = 0.25;
    let v = run(
        &s,
        &[
            call("a", json!({})),
            call("c", json!({"x": 2})),
            call("x", json!({})),
            call("y", json!({})),
        ],
    );
    assert!(close(v.score, 0.1375), "{}", v.score);
    assert_eq!(v.counts.missing, 1);
    assert_eq!(v.counts.extra, 2);
}

#[test]
fn example_4_repeats_and_an_extra_wrong_call() {
    let mut s = spec(
        OrderMode::InOrder,
        vec![exp("search").eq("q", json!("rust")).repeat(2, None)],
    );
    s.scoring.extra_call = 0.1;
    let v = run(
        &s,
        &[
            call("search", json!({"q": "rust"})),
            call("search", json!({"q": "go"})),
            call("search", json!({"q": "rust"})),
        ],
    );
    assert!(close(v.score, 0.95), "{}", v.score);
    assert_eq!(v.expectations[0].calls, vec![0, 2]);
    assert_eq!(v.unaccounted, vec![1]);
}

#[test]
fn example_5_the_greedy_trap() {
    let s = spec(
        OrderMode::AnyOrder,
        vec![
            exp("search").arg("query", Check::Present),
            exp("search").eq("query", json!("rust")),
        ],
    );
    let v = run(
        &s,
        &[
            call("search", json!({"query": "rust"})),
            call("search", json!({"query": "go"})),
        ],
    );
    assert_eq!((v.score, v.passed), (1.0, true));
    assert_eq!(v.expectations[1].calls, vec![0]);
}

#[test]
fn example_6_clamping() {
    let mut s = spec(OrderMode::AnyOrder, vec![exp("a")]);
    s.scoring.extra_call = 0.5;
    let calls: Vec<_> = ["a", "x", "y", "z"]
        .iter()
        .map(|n| call(n, json!({})))
        .collect();
    assert_eq!(run(&s, &calls).score, 0.0);
}

#[test]
fn example_7_forbidden_and_binary() {
    let mut s = spec(OrderMode::InOrder, vec![exp("lookup"), exp("refund")]);
    s.forbidden.push(forbid("delete_account", None));
    s.scoring.binary = true;
    let mut calls = vec![call("lookup", json!({})), call("refund", json!({}))];
    assert_eq!(run(&s, &calls).score, 1.0);
    calls.push(call("delete_account", json!({})));
    let v = run(&s, &calls);
    assert_eq!((v.score, v.passed), (0.0, false));
    assert_eq!(v.findings[0].code, "forbidden-call");
    s.scoring.binary = false;
    let v = run(&s, &calls);
    assert_eq!((v.score, v.passed), (1.0, false));
}

#[test]
fn example_8_nothing_required() {
    let mut s = spec(OrderMode::AnyOrder, vec![exp("log").repeat(0, Some(1))]);
    s.scoring.extra_call = 0.2;
    let v = run(&s, &[call("log", json!({})), call("x", json!({}))]);
    assert!(close(v.score, 0.8), "{}", v.score);
}
