//! Engine inputs whose cost used to grow faster than the input: each is checked at the size that
//! took seconds to minutes, and its result asserted (the timings are in `benches/engine.rs`).

use crate::engine_common;

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

/// `at_most 3 call Bash` with 14 Bash calls fails, in every order mode, on the 4th call on.
#[test]
fn at_most_is_a_cap_in_every_order_mode() {
    use toolspec::engine::Severity;
    for order in [OrderMode::Strict, OrderMode::InOrder, OrderMode::AnyOrder] {
        let s = spec(order, vec![exp("Bash").repeat(0, Some(3))]);
        let calls: Vec<ToolCall> = (0..14).map(|i| call("Bash", json!({"i": i}))).collect();
        let v = run(&s, &calls);
        assert!(!v.passed, "{order:?}");
        assert_eq!(v.expectations[0].status, Status::TooMany);
        assert_eq!(v.expectations[0].calls, vec![0, 1, 2]);
        let over: Vec<usize> = v
            .findings
            .iter()
            .filter(|f| f.code == "too-many-calls")
            .inspect(|f| assert_eq!(f.severity, Severity::Error))
            .filter_map(|f| f.call)
            .collect();
        assert_eq!(over, (3..14).collect::<Vec<_>>(), "{order:?}");

        // Three calls are within the cap.
        let v = run(&s, &calls[..3]);
        assert!(v.passed, "{order:?}");
        assert!(v.findings.is_empty());
    }
}

/// Only calls that would match the capped expectation count: not those matched elsewhere, not
/// those whose arguments fail its constraints; in order, the cap counts calls after later
/// expectations too.
#[test]
fn at_most_counts_only_calls_that_would_match() {
    let s = spec(
        OrderMode::AnyOrder,
        vec![
            exp("Bash").eq("cmd", json!("ls")).repeat(0, Some(2)),
            exp("Bash").label("build").eq("cmd", json!("make")),
        ],
    );
    let calls = vec![
        call("Bash", json!({"cmd": "ls"})),
        call("Bash", json!({"cmd": "make"})),
        call("Bash", json!({"cmd": "rm"})),
        call("Bash", json!({"cmd": "ls"})),
    ];
    let v = run(&s, &calls);
    assert!(v.passed, "{:?}", codes(&v));
    let mut more = calls.clone();
    more.push(call("Bash", json!({"cmd": "ls"})));
    let v = run(&s, &more);
    assert!(!v.passed);
    // The `rm` call is another call of the plain `call Bash(cmd: "make")` (as before); the
    // fifth call, `ls`, is the one beyond the cap.
    let capped: Vec<_> = v
        .findings
        .iter()
        .filter(|f| f.code == "too-many-calls" && f.expectation == Some(0))
        .collect();
    assert_eq!(capped.len(), 1);
    let f = capped[0];
    assert_eq!(f.call, Some(4));
    assert_eq!(f.expectation, Some(0));

    let s = spec(
        OrderMode::InOrder,
        vec![exp("Bash").repeat(0, Some(3)), exp("Read")],
    );
    let mut calls: Vec<ToolCall> = (0..2).map(|_| call("Bash", json!({}))).collect();
    calls.push(call("Read", json!({})));
    calls.push(call("Bash", json!({})));
    let v = run(&s, &calls);
    assert!(v.passed, "the third Bash call is within the cap");
    calls.extend((0..11).map(|_| call("Bash", json!({}))));
    let v = run(&s, &calls);
    assert!(!v.passed);
    assert_eq!(v.expectations[0].status, Status::TooMany);
    let over: Vec<usize> = v
        .findings
        .iter()
        .filter(|f| f.code == "too-many-calls")
        .filter_map(|f| f.call)
        .collect();
    assert_eq!(over, (4..15).collect::<Vec<_>>());
}

/// `order any` with 8 000 `at_least 1` expectations of one tool against 8 000 calls: 64 million
/// pairs (about 4 GB of flow graph before). Past the pair budget each call is compared with a
/// share of the expectations, the assignment stays complete here, and a `too-large` note says
/// the budget applied.
#[test]
fn any_order_8000_by_8000_at_least_1() {
    let s = spec(
        OrderMode::AnyOrder,
        (0..8_000).map(|_| exp("f").repeat(1, None)).collect(),
    );
    let calls: Vec<ToolCall> = (0..8_000).map(|i| call("f", json!({"i": i}))).collect();
    let v = run(&s, &calls);
    assert!(v.passed, "{:?}", v.counts);
    assert_eq!(v.score, 1.0);
    assert_eq!(v.counts.exact, 8_000);
    assert!(v.unaccounted.is_empty());
    assert!(v.expectations.iter().all(|e| e.calls.len() == 1));
    let notes: Vec<_> = v
        .findings
        .iter()
        .filter(|f| f.code == "too-large")
        .collect();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].severity, toolspec::engine::Severity::Info);
    assert_eq!(v.findings.len(), 1);
}

/// A string of `len` characters over 26 letters, scrambled by `seed`.
fn scrambled(len: usize, seed: u64) -> String {
    let mut r = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            char::from(b'a' + (r % 26) as u8)
        })
        .collect()
}

/// 100 fuzzy expectations against 100 calls, every pair at the per-pair bound (2 000 × 2 000
/// characters) and not settled by the cheap upper bounds (same letters, same length): 10 000
/// exact ratios before (18 s in a release build). The run's budget covers 25; the rest fail
/// with `fuzzy-bound-applied`.
#[test]
fn fuzzy_work_is_bounded_per_run() {
    let base = scrambled(2_000, 1);
    let s = spec(
        OrderMode::AnyOrder,
        (0..100)
            .map(|j| {
                let mut want: Vec<char> = base.chars().collect();
                want.rotate_left(j * 7);
                exp("f").arg(
                    "q",
                    Check::Fuzzy {
                        value: want.into_iter().collect(),
                        threshold: 0.99,
                    },
                )
            })
            .collect(),
    );
    let calls: Vec<ToolCall> = (0..100)
        .map(|i| {
            let mut got: Vec<char> = base.chars().collect();
            got.rotate_right(i * 11 + 3);
            call("f", json!({ "q": got.into_iter().collect::<String>() }))
        })
        .collect();
    let v = run(&s, &calls);
    assert!(!v.passed);
    assert_eq!(v.counts.name_only, 100);
    assert_eq!(v.counts.exact, 0);
    let bounded = v
        .findings
        .iter()
        .filter(|f| f.code == "fuzzy-bound-applied")
        .count();
    assert!(bounded >= 75, "{bounded}");
    assert!(v
        .expectations
        .iter()
        .flat_map(|e| &e.failures)
        .any(|f| f.bounded && f.message.contains("budget")));
}

/// Exact arguments with 50 000 keys, sent in the reverse order (and one extra key): each key is
/// looked up once, not compared with every check (2.5 billion comparisons before).
#[test]
fn exact_arguments_with_many_keys_in_reverse_order() {
    const K: usize = 50_000;
    let mut e = exp("f").exact_args();
    for k in 0..K {
        e = e.eq(&format!("k{k}"), json!(k));
    }
    let s = spec(OrderMode::InOrder, vec![e]);
    let mut args = serde_json::Map::new();
    for k in (0..K).rev() {
        args.insert(format!("k{k}"), json!(k));
    }
    let v = run(&s, &[call("f", serde_json::Value::Object(args.clone()))]);
    assert!(v.passed, "{:?}", codes(&v));
    assert_eq!(v.counts.exact, 1);

    args.insert("extra".into(), json!(true));
    let v = run(&s, &[call("f", serde_json::Value::Object(args.clone()))]);
    assert!(!v.passed);
    let failures = &v.expectations[0].failures;
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].check, "no_extra_keys");
    assert_eq!(failures[0].path, "extra");

    // The whole object compared with `==`, keys in the other order.
    let whole: serde_json::Map<String, serde_json::Value> =
        (0..K).map(|k| (format!("k{k}"), json!(k))).collect();
    let s = spec(
        OrderMode::AnyOrder,
        vec![exp("f").eq("o", serde_json::Value::Object(whole))],
    );
    args.remove("extra");
    let v = run(&s, &[call("f", json!({ "o": args }))]);
    assert!(v.passed);
}

/// `order any` with 3 000 expectations and 2 999 `before` rules, every one reversed by the
/// transcript: each rule is reported once, without repeated full realignments.
#[test]
fn reversed_before_rules_3000_by_3000() {
    const N: usize = 3_000;
    let mut s = spec(
        OrderMode::AnyOrder,
        (0..N).map(|j| exp(&format!("t{j}"))).collect(),
    );
    s.before = (0..N - 1)
        .map(|j| BeforeRule {
            first: j + 1,
            then: j,
            span: Default::default(),
        })
        .collect();
    let calls: Vec<ToolCall> = (0..N).map(|j| call(&format!("t{j}"), json!({}))).collect();
    let v = run(&s, &calls);
    assert!(!v.passed);
    assert_eq!(v.counts.exact, N);
    assert_eq!(
        codes(&v)
            .iter()
            .filter(|c| **c == "before-violation")
            .count(),
        N - 1
    );
}

/// The same with one tool: every call may fill every expectation, so the rules can all be
/// honoured by another assignment, found in one pass (500 × 500: every pair a candidate).
/// At 3 000 × 3 000 the pair budget leaves each call a share of the expectations, and the
/// search stays bounded: the result is complete, its broken rules reported, and a note says
/// the budget applied.
#[test]
fn reversed_before_rules_one_tool() {
    for n in [500usize, 3_000] {
        let mut s = spec(
            OrderMode::AnyOrder,
            (0..n).map(|j| exp("f").label(&format!("e{j}"))).collect(),
        );
        s.before = (0..n - 1)
            .map(|j| BeforeRule {
                first: j + 1,
                then: j,
                span: Default::default(),
            })
            .collect();
        let calls: Vec<ToolCall> = (0..n).map(|j| call("f", json!({ "j": j }))).collect();
        let v = run(&s, &calls);
        assert_eq!(v.counts.exact, n);
        if n == 500 {
            assert!(v.passed, "{:?}", codes(&v));
            assert!(v.findings.is_empty());
            assert_eq!(v.expectations[0].calls, vec![n - 1]);
        } else {
            let broken = codes(&v)
                .iter()
                .filter(|c| **c == "before-violation")
                .count();
            assert_eq!(v.passed, broken == 0);
            assert!(codes(&v).contains(&"too-large"));
        }
    }
}

/// The same 8 000 × 8 000 in order: past the pair budget each call sees a band of the
/// expectations around where an in-order alignment would put it, and every expectation still
/// gets its call.
#[test]
fn in_order_8000_by_8000_at_least_1() {
    let s = spec(
        OrderMode::InOrder,
        (0..8_000).map(|_| exp("f").repeat(1, None)).collect(),
    );
    let calls: Vec<ToolCall> = (0..8_000).map(|i| call("f", json!({"i": i}))).collect();
    let v = run(&s, &calls);
    assert!(v.passed);
    assert_eq!(v.counts.exact, 8_000);
    assert!(v
        .expectations
        .iter()
        .enumerate()
        .all(|(j, e)| e.calls == [j]));
    assert_eq!(codes(&v), ["too-large"]);
}

/// 20 000 expectations in order, each called once, with a call of an unknown tool after each:
/// the in-order programme's prefix maxima cost a block scan, not every state (400 million
/// steps before), and each extra call's finding is built without scanning every expectation.
#[test]
fn twenty_thousand_expectations_with_extra_calls() {
    const N: usize = 20_000;
    let s = spec(
        OrderMode::InOrder,
        (0..N).map(|j| exp(&format!("t{j}"))).collect(),
    );
    let calls: Vec<ToolCall> = (0..N)
        .flat_map(|j| [call(&format!("t{j}"), json!({})), call("zz", json!({}))])
        .collect();
    let v = run(&s, &calls);
    assert!(v.passed);
    assert_eq!(v.counts.exact, N);
    assert_eq!(v.counts.extra, N);
    assert_eq!(
        codes(&v)
            .iter()
            .filter(|c| **c == "unexpected-call")
            .count(),
        N
    );
    assert!(v
        .expectations
        .iter()
        .enumerate()
        .all(|(j, e)| e.calls == [2 * j]));
}
