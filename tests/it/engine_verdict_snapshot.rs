//! The full verdict of a representative run, pinned: the shape documented in `docs/engine.md`.

use crate::engine_common;

use engine_common::*;
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::run;
use toolspec::source::Span;

#[test]
fn refund_flow_verdict() {
    let mut s = spec(
        OrderMode::InOrder,
        vec![
            exp("lookup_order")
                .label("lookup")
                .eq("email", json!("ana@example.com")),
            exp("refund")
                .arg("order_id", reference(0, "lookup", Part::Output, "order_id"))
                .arg(
                    "amount_cents",
                    Check::Range {
                        min: Some(1.0),
                        max: Some(12999.0),
                        min_exclusive: false,
                        max_exclusive: false,
                    },
                ),
            exp("notify").repeat(0, Some(1)),
        ],
    );
    s.expectations[1].span = Span::new(40, 90);
    s.forbidden.push(forbid("delete_account", None));
    s.scoring.threshold = 0.8;
    let calls = [
        call_out(
            "lookup_order",
            json!({"email": "ana@example.com"}),
            json!(json!({"order_id": "ORD-58213", "total": 14999}).to_string()),
        ),
        call("search_docs", json!({"q": "refund policy"})),
        call(
            "refund",
            json!({"order_id": "ORD-1", "amount_cents": 14999}),
        ),
    ];
    insta::assert_json_snapshot!(run(&s, &calls));
}
