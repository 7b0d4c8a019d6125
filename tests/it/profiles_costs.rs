//! The profiles' costs are bounded, at the sizes that used to exhaust memory or take
//! quadratic time (`docs/robustness.md`, "Scoring profiles"): the built binary is run on each
//! and its results are asserted (never its time).

use crate::parity_support;

use parity_support::{score, tools};
use serde_json::{json, Value};

#[test]
fn deepeval_ordering_with_40000_tools_is_bounded() {
    let n = 40_000;
    let forward = tools((0..n).map(|i| format!("t{i}")));
    let backward = tools((0..n).rev().map(|i| format!("t{i}")));
    let ordering = json!({ "should_consider_ordering": true });
    let got = score(
        "deepeval",
        &[
            // Every expected tool called in order: settled exactly without the table.
            json!({"id": "in-order", "tools_called": forward, "expected_tools": forward,
                   "options": ordering}),
            // Interleaved with other calls, still in order.
            json!({"id": "with-extras",
                   "tools_called": tools((0..2 * n).map(|i| if i % 2 == 0 { format!("t{}", i / 2) } else { "x".to_owned() })),
                   "expected_tools": forward, "options": ordering}),
            // Out of order: the reason needs the table, past its budget.
            json!({"id": "reversed", "tools_called": backward, "expected_tools": forward,
                   "options": ordering}),
        ],
    );
    assert_eq!(got[0]["score"], json!(1), "{}", got[0]);
    assert_eq!(got[0]["success"], json!(true));
    assert!(got[0]["reason"]
        .as_str()
        .unwrap()
        .contains("Correct ordering: all expected tools ['t0', 't1'"));
    assert_eq!(got[1]["score"], json!(1), "{}", got[1]);
    let e = got[2]["error"].as_str().expect("an error line");
    assert!(
        e.contains("40000 expected and 40000 called tools") && e.contains("budget of 4194304"),
        "{e}"
    );
    assert!(got[2].get("score").is_none());
}

#[test]
fn deepeval_ordering_within_the_budget_is_still_scored() {
    // 2 000 × 2 000 cells is within the budget: the table is built and the reason names the
    // tools out of order.
    let n = 2_000;
    let got = score(
        "deepeval",
        &[
            json!({"id": 1, "tools_called": tools((0..n).rev().map(|i| format!("t{i}"))),
                 "expected_tools": tools((0..n).map(|i| format!("t{i}"))),
                 "options": {"should_consider_ordering": true}}),
        ],
    );
    assert_eq!(
        got[0]["score"].as_f64(),
        Some(1.0 / f64::from(n)),
        "{}",
        got[0]
    );
    assert!(got[0]["reason"]
        .as_str()
        .unwrap()
        .contains("out-of-order tools ['t"));
}

#[test]
fn axion_fuzzy_matching_has_a_work_budget() {
    let long = "x".repeat(300_000);
    let other = format!("{}{}", "y".repeat(150_000), "x".repeat(150_000));
    let fuzzy = json!({"check_parameters": true, "parameter_matching_strategy": "fuzzy"});
    let case = |id: &str, a: &str, b: &str| {
        json!({"id": id, "tools_called": [{"name": "f", "args": {"q": a}}],
               "expected_tools": [{"name": "f", "args": {"q": b}}], "options": fuzzy})
    };
    let got = score(
        "axion",
        &[
            case("past", &long, &other),
            // Equal strings are 1.0 exactly, whatever their length.
            case("equal", &long, &long),
            // Short strings are computed as before.
            case("short", "paris", "parts"),
        ],
    );
    let e = got[0]["error"].as_str().expect("an error line");
    assert!(
        e.contains("work budget") && e.contains("300000 and 300000 characters"),
        "{e}"
    );
    assert_eq!(got[1]["score"], json!(1), "{}", got[1]);
    assert_eq!(got[2]["score"], json!(1), "{}", got[2]);
    assert_eq!(got[2]["passed"], json!(true));
}

/// Two argument dicts of `k` keys, the second with its keys in reverse order; with `differ`,
/// one value differs.
fn dicts(k: usize, differ: bool) -> (Value, Value) {
    let a: serde_json::Map<String, Value> = (0..k).map(|i| (format!("k{i}"), json!(i))).collect();
    let b: serde_json::Map<String, Value> = (0..k)
        .rev()
        .map(|i| {
            let v = if differ && i == k / 2 {
                json!(-1)
            } else {
                json!(i)
            };
            (format!("k{i}"), v)
        })
        .collect();
    (Value::Object(a), Value::Object(b))
}

#[test]
fn argument_dicts_in_another_key_order_compare_in_k_log_k() {
    let k = 60_000;
    for differ in [false, true] {
        let (a, b) = dicts(k, differ);
        let want = if differ { 0.0 } else { 1.0 };
        // DeepEval: `input_parameters` compared by `_compare_dicts`.
        let d = score(
            "deepeval",
            &[json!({"id": 1,
                "tools_called": [{"name": "f", "input_parameters": a}],
                "expected_tools": [{"name": "f", "input_parameters": b}],
                "options": {"evaluation_params": ["INPUT_PARAMETERS"]}})],
        );
        let s = d[0]["score"].as_f64().expect("a score");
        // One key of `k` differs: the other shares, summed one by one as DeepEval does.
        let share = 1.0 / k as f64;
        let want_d = if differ {
            (1..k).fold(0.0, |s, _| s + share)
        } else {
            1.0
        };
        assert_eq!(s, want_d);
        // Axion: exact parameter matching.
        let x = score(
            "axion",
            &[json!({"id": 1, "tools_called": [{"name": "f", "args": a}],
                "expected_tools": [{"name": "f", "args": b}],
                "options": {"check_parameters": true}})],
        );
        assert_eq!(x[0]["score"].as_f64(), Some(want));
        // Evalite: deep equality of inputs.
        let e = score(
            "evalite",
            &[
                json!({"id": 1, "actualCalls": [{"toolName": "f", "input": a}],
                "expectedCalls": [{"toolName": "f", "input": b}]}),
            ],
        );
        assert_eq!(
            e[0]["metadata"]["exactMatches"].as_u64(),
            Some(u64::from(!differ))
        );
        // agentevals: the argument dicts of a strict trajectory match.
        let msg = |args: &Value| {
            json!([{"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function",
                "function": {"name": "f", "arguments": args.to_string()}}]}])
        };
        let g = score(
            "agentevals",
            &[
                json!({"id": 1, "outputs": msg(&a), "reference_outputs": msg(&b),
                "trajectory_match_mode": "strict", "tool_args_match_mode": "exact"}),
            ],
        );
        assert_eq!(g[0]["passed"], json!(!differ));
    }
}
