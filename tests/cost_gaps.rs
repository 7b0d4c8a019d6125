//! Inputs whose findings or normalisation used to cost expectations × calls (or prefixes ×
//! names): each is checked at a size that took seconds before, and its result asserted.

mod engine_common;

use engine_common::*;
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
