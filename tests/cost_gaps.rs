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
