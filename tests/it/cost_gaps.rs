//! Inputs whose findings or normalisation used to cost expectations × calls (or prefixes ×
//! names): each is checked at a size that took seconds before, and its result asserted.

use crate::engine_common;
use crate::parity_support;

use engine_common::*;
use parity_support::{score, tools};
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::{run, Status};
use toolspec::transcript::model::ToolCall;

/// 20 000 expectations of distinct tools in order, called in reverse: one is matched, every
/// other is missing with an out-of-order call, and each finding still says where its call went.
#[test]
fn twenty_thousand_expectations_called_in_reverse() {
    let n = 20_000;
    let s = spec(
        OrderMode::InOrder,
        (0..n).map(|k| exp(&format!("t{k}"))).collect(),
    );
    let calls: Vec<ToolCall> = (0..n)
        .rev()
        .map(|k| call(&format!("t{k}"), json!({})))
        .collect();
    let v = run(&s, &calls);
    assert!(!v.passed);
    let matched = v
        .expectations
        .iter()
        .filter(|o| o.status == Status::Matched)
        .count();
    assert_eq!(matched, 1);
    let missing: Vec<_> = v
        .findings
        .iter()
        .filter(|f| f.code == "missing-call")
        .collect();
    assert_eq!(missing.len(), n - 1);
    for f in &missing {
        let j = f.expectation.unwrap();
        let want = format!(
            "calls to this tool exist (#{}) but are matched elsewhere or cannot be matched here",
            n - j
        );
        assert_eq!(f.help, want);
    }
    let order: Vec<_> = v
        .findings
        .iter()
        .filter(|f| f.code == "order-violation")
        .collect();
    assert_eq!(order.len(), n - 1);
}

/// 10 000 `strip` prefixes against 10 000 calls and expectations, each name matching the
/// prefix at its own position in the list: every prefix used to be tried for each name.
#[test]
fn ten_thousand_strip_prefixes_in_a_run() {
    let n = 10_000;
    let mut s = spec(
        OrderMode::AnyOrder,
        (0..n).map(|k| exp(&format!("t{k}"))).collect(),
    );
    s.names = NameRules {
        ignore_case: true,
        unify_separators: false,
        // `p{k}.` strips only `p{k}.…`; a longer literal later in the list never wins over an
        // earlier one that matches.
        strip_prefixes: (0..n)
            .map(|k| format!("P{k}."))
            .chain(std::iter::once("P1.t".to_owned()))
            .collect(),
    };
    let calls: Vec<ToolCall> = (0..n)
        .map(|k| call(&format!("P{k}.t{k}"), json!({})))
        .collect();
    let v = run(&s, &calls);
    assert!(v.passed, "{:?}", v.findings.first());
    assert!(v
        .expectations
        .iter()
        .enumerate()
        .all(|(k, o)| o.status == Status::Matched && o.calls == vec![k]));
    let r = &s.names;
    assert_eq!(r.normalise("P17.T-x"), "t-x");
    assert_eq!(r.normalise("P1.tx"), "tx");
    assert_eq!(r.normalise("P1."), "p1.");
}

/// A spec with 10 000 `strip` prefixes and 10 000 expectations of declared tools compiles,
/// each expectation inheriting its tool's declaration.
#[test]
fn ten_thousand_strip_prefixes_in_a_spec() {
    use toolspec::compile::{compile, MapLoader};
    use toolspec::source::SourceFile;
    let n = 10_000;
    let mut text = String::new();
    for k in 0..n {
        text.push_str(&format!("tool t{k}(x: type integer, y: present)\n"));
    }
    text.push_str("spec s {\n  order any\n  names ");
    let rules: Vec<String> = (0..n).map(|k| format!("strip \"p{k}.\"")).collect();
    text.push_str(&rules.join(", "));
    text.push('\n');
    for k in 0..n {
        text.push_str(&format!("  call p{k}.t{k}(x: {k})\n"));
    }
    text.push_str("}\n");
    let r = compile(
        &SourceFile::new("main.toolspec", text.as_str()),
        &MapLoader::new(),
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics.first());
    let file = r.file.expect("compiles");
    assert_eq!(file.specs[0].expectations.len(), n);
    assert_eq!(file.specs[0].names.strip_prefixes.len(), n);
    // `x` as written, `y` from the declaration of `t{k}`.
    assert!(file.specs[0]
        .expectations
        .iter()
        .all(|e| e.args.checks.len() == 2));
}

/// DeepEval's default (unordered) mode with 40 000 tools of distinct names, half of them never
/// called: each tool is compared only with the tools of its name (1.6 billion comparisons
/// before), and the reason lists the missing ones.
#[test]
fn deepeval_unordered_with_40000_distinct_tools() {
    let n = 40_000;
    let got = score(
        "deepeval",
        &[json!({"id": "half",
            "expected_tools": tools((0..n).map(|i| format!("t{i}"))),
            "tools_called": tools((0..n).rev().map(|i| if i % 2 == 0 { format!("t{i}") } else { format!("u{i}") }))})],
    );
    assert_eq!(got[0]["score"].as_f64(), Some(0.5), "{}", got[0]["error"]);
    let reason = got[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("Incomplete tool usage: missing tools [ToolCall(\n    name=\"t1\",\n    type=\"FUNCTION\"\n), ToolCall(\n    name=\"t3\","),
        "{}",
        &reason[..reason.len().min(300)]
    );
    assert_eq!(reason.matches("ToolCall(").count(), n / 2);
}

/// Tools of one name are compared pairwise (DeepEval's matching is quadratic there): within the
/// budget the case is scored, past it the case gets an error line and the next is scored.
#[test]
fn deepeval_unordered_with_one_name_has_a_budget() {
    // Distinct arguments, so that no two called tools are equal.
    let same = |n: usize| {
        serde_json::Value::Array(
            (0..n)
                .map(|k| json!({"name": "f", "input_parameters": {"x": k}}))
                .collect(),
        )
    };
    let got = score(
        "deepeval",
        &[
            json!({"id": "big", "expected_tools": same(20_000), "tools_called": same(20_000)}),
            json!({"id": "within", "expected_tools": same(1_500), "tools_called": same(1_500)}),
        ],
    );
    let e = got[0]["error"].as_str().expect("an error line");
    assert!(
        e.contains("unordered matching of 20000 expected and 20000 called tools")
            && e.contains("past the budget of 16777216 (the case is not scored)"),
        "{e}"
    );
    assert!(got[0].get("score").is_none());
    assert_eq!(got[1]["score"].as_f64(), Some(1.0), "{}", got[1]["error"]);
}

/// 5 000 missing expectations against 5 000 calls of other, similar names: each missing
/// expectation compared its name with 2 000 called names (10 million similarities); the
/// did-you-mean help now has a budget for the whole check, and the first expectations still
/// get their suggestion.
#[test]
fn did_you_mean_has_a_budget_per_check() {
    let n = 5_000;
    let s = spec(
        OrderMode::AnyOrder,
        (0..n).map(|k| exp(&format!("search_{k:05}"))).collect(),
    );
    let calls: Vec<ToolCall> = (0..n)
        .map(|k| call(&format!("fetch_{k:05}"), json!({})))
        .collect();
    let v = run(&s, &calls);
    let missing: Vec<_> = v
        .findings
        .iter()
        .filter(|f| f.code == "missing-call")
        .collect();
    assert_eq!(missing.len(), n);
    assert!(
        missing[0].help.starts_with(
            "the transcript never calls `search_00000`; did you mean `fetch_00000` (call #1)?"
        ),
        "{}",
        missing[0].help
    );
    let last = &missing[n - 1].help;
    assert_eq!(
        last,
        "the transcript never calls `search_04999` (similar called names are not looked for: \
         this check's budget of 10000000 name comparisons is spent)"
    );
}

/// A spec that forbids extra calls, against 40 000 extra calls of 30 000 distinct names: the
/// summary names the distinct ones in order of first call, found with a set (each name was
/// compared with every name listed before: 17 s for this check in a debug build, 5 s now).
#[test]
fn many_distinct_extra_calls_are_summarised_once_each() {
    let n = 40_000;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("runs")).unwrap();
    let calls: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            json!({"id": format!("c{i}"), "type": "function",
                   "function": {"name": format!("tool_{}", i % 30_000), "arguments": "{}"}})
        })
        .collect();
    let mut messages = vec![
        json!({"role": "user", "content": "hi"}),
        json!({"role": "assistant", "content": null, "tool_calls": calls}),
    ];
    messages.extend(
        (0..n).map(|i| json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": "ok"})),
    );
    std::fs::write(
        dir.path().join("runs/t.json"),
        json!({"model": "gpt-4o", "messages": messages}).to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.toolspec"),
        "spec s {\n  transcripts \"runs/*.json\"\n  order any\n  extra forbid\n  call tool_0\n}\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["check", "s.toolspec", "--color", "never"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        &stdout[..stdout.len().min(2000)]
    );
    assert!(
        stdout.contains("but 39999 extra calls (`tool_1`, `tool_2`, `tool_3`, and 29996 more)"),
        "{}",
        &stdout[..stdout.len().min(2000)]
    );
}

/// 40 000 `never` rules against 40 000 calls: each call was compared with every rule; now with
/// the rules of its name only, and the first matching rule in spec order still forbids it.
#[test]
fn forty_thousand_never_rules_against_forty_thousand_calls() {
    let n = 40_000;
    let mut s = spec(OrderMode::AnyOrder, vec![exp("ok")]);
    s.forbidden = (0..n).map(|k| forbid(&format!("bad_{k}"), None)).collect();
    // A second rule for `bad_7`: the first one is named.
    s.forbidden.push(forbid("bad_7", None));
    let mut calls: Vec<ToolCall> = (0..n)
        .map(|k| call(&format!("fine_{k}"), json!({})))
        .collect();
    calls.push(call("ok", json!({})));
    calls.push(call("bad_7", json!({})));
    calls.push(call("bad_39999", json!({})));
    let v = run(&s, &calls);
    assert!(!v.passed);
    let forbidden: Vec<_> = v
        .findings
        .iter()
        .filter(|f| f.code == "forbidden-call")
        .map(|f| f.call)
        .collect();
    assert_eq!(forbidden, vec![Some(n + 1), Some(n + 2)]);
    assert_eq!(v.expectations[0].status, Status::Matched);
}

/// 10 000 `before` rules naming one expectation with 20 000 calls: each rule looked for that
/// expectation's last call among all of them; now each expectation's first and last calls are
/// found once. One rule is broken, and said so.
#[test]
fn many_before_rules_on_one_expectation_with_many_calls() {
    let (k, m) = (10_000, 20_000);
    let mut exps = vec![exp("a").repeat(1, None)];
    exps.extend((0..k).map(|i| exp(&format!("b{i}"))));
    let mut s = spec(OrderMode::AnyOrder, exps);
    s.before = (1..=k)
        .map(|then| BeforeRule {
            first: 0,
            then,
            span: Default::default(),
        })
        .collect();
    // `b0` is called first of all, before every `a`: its rule is broken.
    let mut calls = vec![call("b0", json!({}))];
    calls.extend((0..m).map(|_| call("a", json!({}))));
    calls.extend((1..k).map(|i| call(&format!("b{i}"), json!({}))));
    let v = run(&s, &calls);
    assert_eq!(v.expectations[0].calls.len(), m);
    let broken: Vec<_> = v
        .findings
        .iter()
        .filter(|f| f.code == "before-violation")
        .collect();
    assert_eq!(broken.len(), 1, "{:?}", broken.first());
    assert_eq!(broken[0].expectation, Some(1));
    assert_eq!(broken[0].call, Some(0));
    assert!(
        broken[0]
            .message
            .ends_with("but call #1 precedes call #20001"),
        "{}",
        broken[0].message
    );
}
