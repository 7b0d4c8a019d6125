//! Every constraint kind, passing and failing, with the messages a person reads.

use crate::engine_common;

use engine_common::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use toolspec::config::*;
use toolspec::engine::difflib::ratio;
use toolspec::engine::{run, FailurePart, Status, Verdict};

/// Run one expectation against one call.
fn one(e: Expectation, c: toolspec::transcript::model::ToolCall) -> Verdict {
    run(&spec(OrderMode::InOrder, vec![e]), &[c])
}

/// The failure messages of the single expectation.
fn messages(v: &Verdict) -> Vec<String> {
    v.expectations[0]
        .failures
        .iter()
        .map(|f| f.message.clone())
        .collect()
}

fn passes(e: Expectation, args: Value) -> bool {
    let v = one(e, call("t", args));
    v.expectations[0].status == Status::Matched
}

fn fails_with(e: Expectation, args: Value) -> Vec<String> {
    let v = one(e, call("t", args));
    assert_eq!(v.expectations[0].status, Status::NameOnly, "{v:#?}");
    messages(&v)
}

#[test]
fn equals_is_json_equality_with_numeric_numbers() {
    let e = || exp("t").eq("n", json!(10));
    assert!(passes(e(), json!({"n": 10})));
    assert!(passes(e(), json!({"n": 10.0})));
    assert_eq!(fails_with(e(), json!({"n": "10"})), [r#"n: "10" ≠ 10"#]);
    assert_eq!(fails_with(e(), json!({})), ["n: missing; it must equal 10"]);
    let o = || exp("t").eq("o", json!({"a": [1, {"b": null}]}));
    assert!(passes(o(), json!({"o": {"a": [1.0, {"b": null}]}})));
    assert!(!passes(o(), json!({"o": {"a": [1, {"b": null}], "c": 1}})));
}

#[test]
fn subset_is_recursive_and_names_the_difference() {
    let e = || {
        exp("t").arg(
            "order",
            Check::subset(json!({"items": [{"sku": "A"}], "gift": true})),
        )
    };
    assert!(passes(
        e(),
        json!({"order": {"items": [{"sku": "A", "qty": 2}], "gift": true, "note": "x"}})
    ));
    assert_eq!(
        fails_with(
            e(),
            json!({"order": {"items": [{"sku": "B"}], "gift": true}})
        ),
        [r#"order: at items[0].sku: "B" ≠ "A""#]
    );
    assert_eq!(
        fails_with(e(), json!({"order": {"items": [], "gift": true}})),
        ["order: at items: 0 elements, expected 1"]
    );
}

#[test]
fn fuzzy_uses_difflib_and_explains_the_ratio() {
    let e = || {
        exp("t").arg(
            "query",
            Check::Fuzzy {
                value: "python tutorial".into(),
                threshold: 0.8,
            },
        )
    };
    assert!(passes(e(), json!({"query": "python tutorials"})));
    let r = ratio("Python Tutorials for beginners", "python tutorial");
    assert!(r < 0.8);
    assert_eq!(
        fails_with(e(), json!({"query": "Python Tutorials for beginners"})),
        [format!(
            r#"query: similarity {r:.2} < 0.80 (got "Python Tutorials for beginners", expected "python tutorial")"#
        )]
    );
    assert_eq!(
        fails_with(e(), json!({"query": 3})),
        ["query: expected a string, got number 3"]
    );
}

#[test]
fn fuzzy_on_megabyte_strings_is_bounded_and_reported() {
    let big = "lorem ipsum dolor sit amet ".repeat(40_000);
    let e = exp("t").arg(
        "body",
        Check::Fuzzy {
            value: big.clone(),
            threshold: 0.9,
        },
    );
    let v = one(e, call("t", json!({ "body": big })));
    assert_eq!(v.expectations[0].status, Status::NameOnly);
    assert!(v.expectations[0].failures[0].bounded);
    assert!(v.findings.iter().any(|f| f.code == "fuzzy-bound-applied"));
    // The failure's `actual` is cut so the verdict stays small.
    let actual = v.expectations[0].failures[0].actual.as_ref().unwrap();
    assert!(actual.as_str().unwrap().chars().count() <= 1001);
    // A short expectation against a megabyte is settled exactly by the length bound.
    let e = exp("t").arg(
        "body",
        Check::Fuzzy {
            value: "short".into(),
            threshold: 0.5,
        },
    );
    let v = one(e, call("t", json!({ "body": "x".repeat(1_000_000) })));
    assert!(!v.expectations[0].failures[0].bounded);
    assert!(messages(&v)[0].starts_with("body: similarity at most 0.00 < 0.50"));
}

#[test]
fn regex_matches_strings_only() {
    let e = || {
        exp("t").arg(
            "id",
            Check::Regex {
                pattern: Pattern::new("^ORD-[0-9]+$").unwrap(),
            },
        )
    };
    assert!(passes(e(), json!({"id": "ORD-58213"})));
    assert_eq!(
        fails_with(e(), json!({"id": "ord-1"})),
        [r#"id: "ord-1" does not match /^ORD-[0-9]+$/"#]
    );
    assert_eq!(
        fails_with(e(), json!({"id": 5})),
        ["id: expected a string, got number 5"]
    );
}

#[test]
fn range_bounds_inclusive_and_exclusive() {
    let e = || {
        exp("t").arg(
            "amount_cents",
            Check::Range {
                min: Some(0.0),
                max: Some(12999.0),
                min_exclusive: true,
                max_exclusive: false,
            },
        )
    };
    assert!(passes(e(), json!({"amount_cents": 12999})));
    assert!(passes(e(), json!({"amount_cents": 0.5})));
    assert_eq!(
        fails_with(e(), json!({"amount_cents": 14999})),
        ["amount_cents: 14999 is above the maximum 12999"]
    );
    assert_eq!(
        fails_with(e(), json!({"amount_cents": 0})),
        ["amount_cents: 0 is not above the exclusive minimum 0"]
    );
    assert_eq!(
        fails_with(e(), json!({"amount_cents": "5"})),
        [r#"amount_cents: expected a number, got string "5""#]
    );
}

#[test]
fn type_one_of_contains() {
    let t = || {
        exp("t").arg(
            "n",
            Check::Type {
                types: vec![JsonType::Integer, JsonType::Null],
            },
        )
    };
    assert!(passes(t(), json!({"n": 3.0})));
    assert!(passes(t(), json!({"n": null})));
    assert_eq!(
        fails_with(t(), json!({"n": 3.5})),
        ["n: expected integer or null, got number 3.5"]
    );
    let o = || {
        exp("t").arg(
            "unit",
            Check::OneOf {
                values: vec![json!("c"), json!("f")],
            },
        )
    };
    assert!(passes(o(), json!({"unit": "f"})));
    assert_eq!(
        fails_with(o(), json!({"unit": "k"})),
        [r#"unit: "k" is not one of ["c","f"]"#]
    );
    let c = || {
        exp("t").arg(
            "q",
            Check::Contains {
                value: json!("rust"),
            },
        )
    };
    assert!(passes(c(), json!({"q": "learn rust fast"})));
    assert!(passes(c(), json!({"q": ["go", "rust"]})));
    assert_eq!(
        fails_with(c(), json!({"q": ["go"]})),
        [r#"q: ["go"] has no element equal to "rust""#]
    );
    assert_eq!(
        fails_with(c(), json!({"q": "python"})),
        [r#"q: "python" does not contain "rust""#]
    );
}

#[test]
fn present_absent_any() {
    let e = || {
        exp("t")
            .arg("a", Check::Present)
            .arg("b", Check::Absent)
            .arg("c", Check::Any)
    };
    assert!(passes(e(), json!({"a": null})));
    assert_eq!(
        fails_with(e(), json!({"b": 1})),
        [
            "a: missing; it must be present",
            "b: must be absent, found 1"
        ]
    );
}

#[test]
fn not_and_all_of() {
    let e = || {
        exp("t").arg(
            "x",
            Check::AllOf {
                checks: vec![
                    Check::Type {
                        types: vec![JsonType::String],
                    },
                    Check::Not {
                        check: Box::new(Check::equals(json!(""))),
                    },
                ],
            },
        )
    };
    assert!(passes(e(), json!({"x": "ok"})));
    assert_eq!(
        fails_with(e(), json!({"x": ""})),
        [r#"x: "" must not equal """#]
    );
    assert_eq!(
        fails_with(e(), json!({"x": 1})),
        ["x: expected string, got number 1"]
    );
    // Not(Present) on an absent path holds.
    assert!(passes(
        exp("t").arg(
            "gone",
            Check::Not {
                check: Box::new(Check::Present)
            }
        ),
        json!({})
    ));
}

/// `or`: the alternatives in order, the first that holds wins; when none holds, the message
/// gives each alternative's reason, so "optional, but a string when present" reads as written.
#[test]
fn any_of_holds_when_one_alternative_does() {
    let e = || {
        exp("t").arg(
            "note",
            Check::AnyOf {
                checks: vec![
                    Check::Absent,
                    Check::Type {
                        types: vec![JsonType::String],
                    },
                ],
            },
        )
    };
    assert!(passes(e(), json!({})));
    assert!(passes(e(), json!({"note": "late"})));
    assert_eq!(
        fails_with(e(), json!({"note": 5})),
        ["note: no alternative holds: must be absent, found 5; or expected string, got number 5"]
    );
    // `null` is neither absent nor a string (`type string|null` would take it).
    assert!(!passes(e(), json!({"note": null})));
    // An empty list of alternatives (every one left out by the compiler) holds for nothing.
    assert!(!passes(
        exp("t").arg("x", Check::AnyOf { checks: vec![] }),
        json!({"x": 1})
    ));
}

proptest! {
    /// `any_of [a, b]` holds exactly when `a` or `b` does, `all_of` when both do, and `not`
    /// negates, on random values and checks.
    #[test]
    fn alternatives_are_a_disjunction(
        a in check_strategy(),
        b in check_strategy(),
        value in value_strategy(),
    ) {
        let holds = |c: Check| passes(exp("t").arg("x", c), value.clone());
        let (ha, hb) = (holds(a.clone()), holds(b.clone()));
        prop_assert_eq!(holds(Check::AnyOf { checks: vec![a.clone(), b.clone()] }), ha || hb);
        prop_assert_eq!(holds(Check::AllOf { checks: vec![a.clone(), b.clone()] }), ha && hb);
        prop_assert_eq!(holds(Check::Not { check: Box::new(Check::AnyOf { checks: vec![a, b] }) }), !(ha || hb));
    }
}

fn check_strategy() -> impl Strategy<Value = Check> {
    prop::sample::select(vec![
        Check::Absent,
        Check::Present,
        Check::Type {
            types: vec![JsonType::String],
        },
        Check::Type {
            types: vec![JsonType::Number],
        },
        Check::equals(json!(1)),
        Check::Contains { value: json!("a") },
        Check::Range {
            min: Some(0.0),
            max: Some(2.0),
            min_exclusive: false,
            max_exclusive: false,
        },
    ])
}

/// Arguments with `x` absent, or one of a few values.
fn value_strategy() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!({}),
        json!({"x": null}),
        json!({"x": 1}),
        json!({"x": 3}),
        json!({"x": "a"}),
        json!({"x": "b"}),
        json!({"x": ["a"]}),
    ])
}

#[test]
fn exact_mode_rejects_unlisted_keys() {
    let e = || exp("t").eq("a", json!(1)).exact_args();
    assert!(passes(e(), json!({"a": 1})));
    let v = one(e(), call("t", json!({"a": 1, "debug": true})));
    assert_eq!(
        messages(&v),
        ["unexpected argument `debug` (the spec lists every allowed key: exact mode)"]
    );
    assert_eq!(v.expectations[0].failures[0].check, "no_extra_keys");
}

#[test]
fn nested_paths_step_into_json_strings() {
    let out = json!({"content": json!({"order": {"status": "shipped", "lines": [{"sku": "A"}]}}).to_string()});
    let e = || {
        exp("t")
            .out("content.order.status", Check::equals(json!("shipped")))
            .out("content.order.lines.0.sku", Check::equals(json!("A")))
    };
    let v = run(
        &spec(OrderMode::InOrder, vec![e()]),
        &[call_out("t", json!({}), out.clone())],
    );
    assert_eq!(v.expectations[0].status, Status::Matched, "{v:#?}");
    let bad = json!({"content": json!({"order": {"status": "lost", "lines": []}}).to_string()});
    let v = run(
        &spec(OrderMode::InOrder, vec![e()]),
        &[call_out("t", json!({}), bad)],
    );
    assert_eq!(
        messages(&v),
        [
            r#"output.content.order.status: "lost" ≠ "shipped""#,
            r#"output.content.order.lines[0].sku: missing; it must equal "A""#
        ]
    );
    assert!(v.expectations[0]
        .failures
        .iter()
        .all(|f| f.part == FailurePart::Output));
    // A whole-output subset against a string holding JSON parses it.
    let s = exp("t").out("", Check::subset(json!({"content": {}})));
    let wrapped = json!(json!({"content": {"x": 1}}).to_string());
    let v = run(
        &spec(OrderMode::InOrder, vec![s]),
        &[call_out("t", json!({}), wrapped)],
    );
    assert_eq!(v.expectations[0].status, Status::Matched);
}

#[test]
fn output_and_errored() {
    let e = || {
        exp("t")
            .out("ok", Check::equals(json!(true)))
            .errored(false)
    };
    let good = call_out("t", json!({}), json!({"ok": true}));
    assert_eq!(
        one(e(), good.clone()).expectations[0].status,
        Status::Matched
    );
    let mut failed = good;
    failed.is_error = true;
    assert_eq!(
        messages(&one(e(), failed)),
        ["the call failed (the transcript marks it as an error), but the spec expects it to succeed"]
    );
    // No output recorded: output checks see an absent value.
    assert_eq!(
        messages(&one(e(), call("t", json!({})))),
        ["output.ok: missing; it must equal true"]
    );
}

#[test]
fn references_compare_with_the_matched_earlier_call() {
    let lookup = exp("lookup").label("lookup");
    let refund = exp("refund").arg("order_id", reference(0, "lookup", Part::Output, "order_id"));
    let s = spec(OrderMode::InOrder, vec![lookup, refund]);
    let calls = [
        call_out("lookup", json!({}), json!({"order_id": "ORD-58213"})),
        call("refund", json!({"order_id": "ORD-1"})),
    ];
    let v = run(&s, &calls);
    assert_eq!(v.expectations[1].status, Status::NameOnly);
    assert_eq!(
        v.expectations[1].failures[0].message,
        r#"order_id: "ORD-1" ≠ "ORD-58213" captured from lookup.output.order_id"#
    );
    assert_eq!(v.expectations[1].failures[0].expected, json!("ORD-58213"));
    let ok = [
        calls[0].clone(),
        call("refund", json!({"order_id": "ORD-58213"})),
    ];
    assert_eq!(run(&s, &ok).score, 1.0);
}

#[test]
fn references_pick_the_refund_that_uses_the_captured_value() {
    // Any order: two refunds, only the second uses the looked-up id. The first pass sees both as
    // full matches; the second pass, with the lookup pinned, must pick the right one.
    let lookup = exp("lookup").label("lookup");
    let refund = exp("refund").arg("order_id", reference(0, "lookup", Part::Output, "id"));
    let s = spec(OrderMode::AnyOrder, vec![lookup, refund]);
    let calls = [
        call_out("lookup", json!({}), json!({"id": 7})),
        call("refund", json!({"order_id": 8})),
        call("refund", json!({"order_id": 7})),
    ];
    let v = run(&s, &calls);
    assert_eq!(v.expectations[1].calls, vec![2]);
    assert_eq!(v.score, 1.0);
    assert_eq!(v.unaccounted, vec![1]);
}

#[test]
fn references_must_point_backwards_in_time() {
    let lookup = exp("lookup").label("lookup");
    let refund = exp("refund").arg("order_id", reference(0, "lookup", Part::Output, "id"));
    let s = spec(OrderMode::AnyOrder, vec![lookup, refund]);
    let calls = [
        call("refund", json!({"order_id": 7})),
        call_out("lookup", json!({}), json!({"id": 7})),
    ];
    let v = run(&s, &calls);
    assert_eq!(
        v.expectations[1].failures[0].message,
        "order_id: lookup.output.id is captured from call #2, which comes after this call"
    );
}
