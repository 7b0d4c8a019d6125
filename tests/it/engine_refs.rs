//! References with an operator (`< <= > >= ref`, `in ref`, `not in ref`, `[*]` paths) and
//! references to an optional expectation that matched nothing, from spec text to verdict.

use crate::engine_common;
use crate::lang_common;

use engine_common::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use toolspec::config::*;
use toolspec::engine::{run, Severity, Status, Verdict, EACH_BOUND};
use toolspec::transcript::model::ToolCall;

/// The first spec of `text`, compiled without diagnostics.
fn compiled(text: &str) -> MatcherConfig {
    let r = lang_common::compile_with(text, &[]);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    r.file.expect("a config").specs.remove(0)
}

fn check(text: &str, calls: &[ToolCall]) -> Verdict {
    run(&compiled(text), calls)
}

/// The failure messages of expectation `j`.
fn messages(v: &Verdict, j: usize) -> Vec<String> {
    v.expectations[j]
        .failures
        .iter()
        .map(|f| f.message.clone())
        .collect()
}

const REFUND: &str =
    "spec s {\n  elig: call check(order: \"A\")\n  call refund(amount: <= elig.output.max)\n}\n";

fn refund(max: Value, amount: Value) -> Verdict {
    check(
        REFUND,
        &[
            call_out("check", json!({"order": "A"}), json!({"max": max})),
            call("refund", json!({"amount": amount})),
        ],
    )
}

/// `<=` holds up to and including the captured number; the failure names both values and the
/// label and path the bound comes from.
#[test]
fn at_most_a_captured_number() {
    assert_eq!(
        refund(json!(12000), json!(12000)).expectations[1].status,
        Status::Matched
    );
    assert_eq!(
        refund(json!(12000), json!(11999.5)).expectations[1].status,
        Status::Matched
    );
    let v = refund(json!(12000), json!(15000));
    assert_eq!(v.expectations[1].status, Status::NameOnly);
    assert_eq!(
        messages(&v, 1),
        ["amount: 15000 > elig.output.max 12000 (call #1); the spec requires `<=`"]
    );
    // Captured from a JSON string, as tool outputs usually are.
    let v = check(
        REFUND,
        &[
            call_out("check", json!({"order": "A"}), json!("{\"max\": 12000}")),
            call("refund", json!({"amount": 12001})),
        ],
    );
    assert_eq!(
        messages(&v, 1),
        ["amount: 12001 > elig.output.max 12000 (call #1); the spec requires `<=`"]
    );
}

/// Integers compare exactly: 2⁵³ + 1 is not ≤ 2⁵³, though both are the same double.
#[test]
fn big_integers_are_not_rounded() {
    let v = refund(
        json!(9_007_199_254_740_992_u64),
        json!(9_007_199_254_740_993_u64),
    );
    assert_eq!(v.expectations[1].status, Status::NameOnly);
    let v = refund(
        json!(9_007_199_254_740_992.0),
        json!(9_007_199_254_740_993_u64),
    );
    assert_eq!(v.expectations[1].status, Status::NameOnly);
    let v = refund(
        json!(9_007_199_254_740_993_u64),
        json!(9_007_199_254_740_992.0),
    );
    assert_eq!(v.expectations[1].status, Status::Matched);
    let v = refund(json!(u64::MAX), json!(u64::MAX));
    assert_eq!(v.expectations[1].status, Status::Matched);
}

/// Decimals compare as the doubles they are read as: 0.1 + 0.2 is above 0.3.
#[test]
fn decimals_compare_as_read() {
    let v = refund(json!(0.3), json!(0.1 + 0.2));
    assert_eq!(v.expectations[1].status, Status::NameOnly);
    assert_eq!(
        messages(&v, 1),
        ["amount: 0.30000000000000004 > elig.output.max 0.3 (call #1); the spec requires `<=`"]
    );
    assert_eq!(
        refund(json!(0.1 + 0.2), json!(0.3)).expectations[1].status,
        Status::Matched
    );
}

/// Every operator, on both sides of the bound.
#[test]
fn every_order_operator() {
    for (op, below, equal, above) in [
        ("<", true, false, false),
        ("<=", true, true, false),
        (">", false, false, true),
        (">=", false, true, true),
    ] {
        let text = format!("spec s {{\n  a: call src\n  call t(x: {op} a.output.n)\n}}\n");
        for (x, want) in [(4, below), (5, equal), (6, above)] {
            let v = check(
                &text,
                &[
                    call_out("src", json!({}), json!({"n": 5})),
                    call("t", json!({"x": x})),
                ],
            );
            assert_eq!(
                v.expectations[1].status == Status::Matched,
                want,
                "{x} {op} 5"
            );
        }
    }
}

/// A non-number on either side fails with a message that says which side and what it is.
#[test]
fn non_numbers_fail_with_a_message() {
    let v = refund(json!(12000), json!("12000"));
    assert_eq!(
        messages(&v, 1),
        [r#"amount: expected a number to compare with elig.output.max (`<=`), got string "12000""#]
    );
    let v = refund(json!("12000"), json!(100));
    assert_eq!(
        messages(&v, 1),
        [r#"amount: elig.output.max is string "12000" in call #1, not a number to compare with"#]
    );
    let v = check(
        REFUND,
        &[
            call_out("check", json!({"order": "A"}), json!({})),
            call("refund", json!({"amount": 1})),
        ],
    );
    assert_eq!(
        messages(&v, 1),
        ["amount: elig.output.max does not exist in call #1"]
    );
    let v = check(
        REFUND,
        &[
            call_out("check", json!({"order": "A"}), json!({"max": 5})),
            call("refund", json!({})),
        ],
    );
    assert_eq!(
        messages(&v, 1),
        ["amount: missing; it must be <= elig.output.max"]
    );
}

const HOLD: &str = "spec s {\n  search: call search\n  call hold(flight: in search.output.flights[*].id, seat: in search.output.flights[*].seats[*], coupon: not in search.output.used)\n}\n";

fn flights() -> ToolCall {
    call_out(
        "search",
        json!({}),
        json!({
            "flights": [
                {"id": "UA-837", "seats": ["14C", "22A"]},
                {"id": "NH-7", "seats": ["31K"]},
                {"no_id": true, "seats": []},
                {"id": 7, "seats": [["nested"]]}
            ],
            "used": ["WELCOME10", 5]
        }),
    )
}

/// `[*]` collects every element; several `[*]` flatten; elements without the rest of the path
/// are skipped; membership is `==` equality (numbers by value).
#[test]
fn membership_in_a_collected_list() {
    let ok = check(
        HOLD,
        &[
            flights(),
            call(
                "hold",
                json!({"flight": "NH-7", "seat": "22A", "coupon": "NEW"}),
            ),
        ],
    );
    assert_eq!(ok.expectations[1].status, Status::Matched, "{ok:#?}");
    let num = check(
        HOLD,
        &[
            flights(),
            call("hold", json!({"flight": 7.0, "seat": ["nested"]})),
        ],
    );
    assert_eq!(num.expectations[1].status, Status::Matched, "{num:#?}");
    let v = check(
        HOLD,
        &[
            flights(),
            call(
                "hold",
                json!({"flight": "NH-8", "seat": "99Z", "coupon": 5.0}),
            ),
        ],
    );
    assert_eq!(
        messages(&v, 1),
        [
            r#"flight: "NH-8" is not in search.output.flights[*].id (call #1, 3 elements: "UA-837", "NH-7", 7)"#,
            r#"seat: "99Z" is not in search.output.flights[*].seats[*] (call #1, 4 elements: "14C", "22A", "31K", ["nested"])"#,
            r#"coupon: 5.0 is in search.output.used (call #1, 2 elements: "WELCOME10", 5); it must not be"#,
        ]
    );
}

/// A membership names at most five elements; a list that is not a list, or not there, is said
/// to be so.
#[test]
fn membership_messages_are_bounded_and_say_what_is_wrong() {
    let text = "spec s {\n  a: call src\n  call t(x: in a.output.ids)\n}\n";
    let many: Vec<u32> = (0..50).collect();
    let v = check(
        text,
        &[
            call_out("src", json!({}), json!({"ids": many})),
            call("t", json!({"x": 99})),
        ],
    );
    assert_eq!(
        messages(&v, 1),
        ["x: 99 is not in a.output.ids (call #1, 50 elements: 0, 1, 2, 3, 4, …)"]
    );
    let v = check(
        text,
        &[
            call_out("src", json!({}), json!({"ids": "x"})),
            call("t", json!({"x": 1})),
        ],
    );
    assert_eq!(
        messages(&v, 1),
        [r#"x: a.output.ids is string "x" in call #1, not a list"#]
    );
    let v = check(
        text,
        &[
            call_out("src", json!({}), json!({})),
            call("t", json!({"x": 1})),
        ],
    );
    assert_eq!(
        messages(&v, 1),
        ["x: a.output.ids does not exist in call #1"]
    );
    let v = check(
        text,
        &[
            call_out("src", json!({}), json!({"ids": [1]})),
            call("t", json!({})),
        ],
    );
    assert_eq!(messages(&v, 1), ["x: missing; it must be in a.output.ids"]);
    // An absent value is in no list.
    let not_in = "spec s {\n  a: call src\n  call t(x: not in a.output.ids)\n}\n";
    let v = check(
        not_in,
        &[
            call_out("src", json!({}), json!({"ids": [1]})),
            call("t", json!({})),
        ],
    );
    assert_eq!(v.expectations[1].status, Status::Matched);
}

/// With several calls matched to the referenced expectation, `in` looks in every earlier one
/// and `not in` in none.
#[test]
fn several_captured_calls() {
    let text = "spec s {\n  a: at_least 1 call src\n  call t(x: in a.output.ids[*], y: not in a.output.ids[*], z: <= a.output.max)\n}\n";
    let calls = [
        call_out("src", json!({}), json!({"ids": [1, 2], "max": 10})),
        call_out("src", json!({}), json!({"ids": [3], "max": 1})),
        call("t", json!({"x": 1, "y": 3, "z": 10})),
    ];
    let v = check(text, &calls);
    assert_eq!(
        messages(&v, 1),
        ["y: 3 is in a.output.ids[*] (call #2, 1 element: 3); it must not be"]
    );
}

/// Past [`EACH_BOUND`] elements a collection stops: a member among the first ones is found, one
/// beyond fails as bounded, with a `reference-bound-applied` warning at the constraint.
#[test]
fn collections_are_bounded() {
    let text = "spec s {\n  a: call src\n  call t(x: in a.output.items[*].id)\n}\n";
    let items: Vec<Value> = (0..EACH_BOUND + 5).map(|i| json!({"id": i})).collect();
    let src = call_out("src", json!({}), json!({"items": items}));
    let v = check(text, &[src.clone(), call("t", json!({"x": 17}))]);
    assert_eq!(v.expectations[1].status, Status::Matched);
    let v = check(text, &[src, call("t", json!({"x": EACH_BOUND + 2}))]);
    assert_eq!(v.expectations[1].status, Status::NameOnly);
    assert!(
        messages(&v, 1)[0].contains("is not among the first 10000 elements"),
        "{v:#?}"
    );
    let bound: Vec<_> = v
        .findings
        .iter()
        .filter(|f| f.code == "reference-bound-applied")
        .collect();
    assert_eq!(bound.len(), 1, "{:#?}", v.findings);
    assert_eq!(bound[0].severity, Severity::Warning);
    assert!(bound[0].spec_span.is_some());
    // Values visited without yielding an element count too: a million misses stop early.
    let misses: Vec<Value> = (0..1_000_000).map(|_| json!({})).collect();
    let v = check(
        text,
        &[
            call_out("src", json!({}), json!({"items": misses})),
            call("t", json!({"x": 1})),
        ],
    );
    assert_eq!(v.expectations[1].status, Status::NameOnly);
}

const OPTIONAL: &str = "spec s {\n  quote: optional call quote\n  call refund(amount: >= quote.output.min and <= 100, code: not in quote.output.codes)\n}\n";

/// A reference to an optional expectation that matched nothing does not apply: the constraint
/// holds, and an info note at the constraint names the label.
/// `contains ref`: a string holds the captured string (a number or boolean as its JSON text), an
/// array holds an element equal to it; the failure names both values and where the captured one
/// comes from; `not contains` negates; a list after `contains` is refused by the compiler.
#[test]
fn contains_a_captured_value() {
    const SPEC: &str =
        "spec s {\n  book: call book\n  call say(text: contains book.output.code)\n}\n";
    let say = |code: Value, text: Value| {
        check(
            SPEC,
            &[
                call_out("book", json!({}), json!({"code": code})),
                call("say", json!({"text": text})),
            ],
        )
    };
    let holds =
        |code: Value, text: Value| say(code, text).expectations[1].status == Status::Matched;
    assert!(holds(json!("BK-1"), json!("booked: BK-1.")));
    assert!(holds(json!(4417), json!("number 4417 it is")));
    assert!(holds(json!(true), json!("flag true")));
    assert!(holds(json!(4417), json!(["a", 4417.0])));
    assert!(!holds(json!("BK-1"), json!("BK-2")));
    let v = say(json!("BK-1"), json!("booked: BK-2"));
    assert_eq!(
        messages(&v, 1),
        [
            r#"text: "booked: BK-2" does not contain "BK-1" captured from book.output.code (call #1)"#
        ]
    );
    let v = say(json!({"a": 1}), json!("anything"));
    assert_eq!(
        messages(&v, 1),
        [r#"text: book.output.code is object {"a":1} in call #1, which a string cannot contain"#]
    );
    let v = say(json!("x"), json!(5));
    assert_eq!(
        messages(&v, 1),
        ["text: expected a string or an array to contain book.output.code, got number 5"]
    );
    let negated =
        "spec s {\n  book: call book\n  call say(text: not contains book.output.code)\n}\n";
    let v = check(
        negated,
        &[
            call_out("book", json!({}), json!({"code": "X"})),
            call("say", json!({"text": "has X"})),
        ],
    );
    assert_eq!(v.expectations[1].status, Status::NameOnly);
    let r = lang_common::compile_with(
        "spec s {\n  a: call a\n  call b(x: contains a.output.l[*])\n}\n",
        &[],
    );
    assert_eq!(r.diagnostics[0].code.name(), "invalid-comparison");
}

#[test]
fn references_to_an_absent_optional_call_do_not_apply() {
    let v = check(
        OPTIONAL,
        &[call("refund", json!({"amount": 50, "code": "X"}))],
    );
    assert_eq!(v.expectations[1].status, Status::Matched, "{v:#?}");
    assert!(v.passed);
    let notes: Vec<_> = v
        .findings
        .iter()
        .filter(|f| f.code == "reference-not-applied")
        .collect();
    assert_eq!(notes.len(), 2, "{:#?}", v.findings);
    assert_eq!(notes[0].severity, Severity::Info);
    assert_eq!(notes[0].call, Some(0));
    assert_eq!(notes[0].expectation, Some(1));
    assert!(notes[0].message.contains("`quote`"), "{}", notes[0].message);
    let src = compiled(OPTIONAL);
    assert_eq!(
        notes[0].spec_span,
        Some(src.expectations[1].args.checks[0].span)
    );
    // The other terms still apply.
    let v = check(OPTIONAL, &[call("refund", json!({"amount": 500}))]);
    assert_eq!(v.expectations[1].status, Status::NameOnly);
    // When the optional call happened, the constraint applies and there is no note.
    let v = check(
        OPTIONAL,
        &[
            call_out("quote", json!({}), json!({"min": 60, "codes": ["X"]})),
            call("refund", json!({"amount": 50, "code": "X"})),
        ],
    );
    assert_eq!(messages(&v, 1).len(), 2, "{v:#?}");
    assert!(v.findings.iter().all(|f| f.code != "reference-not-applied"));
}

/// A reference to a required expectation that matched nothing still fails.
#[test]
fn references_to_a_missing_required_call_fail() {
    let v = check(REFUND, &[call("refund", json!({"amount": 1}))]);
    assert_eq!(
        messages(&v, 1),
        ["amount: cannot compare with elig.output.max: `elig` matched no call"]
    );
    assert!(v.findings.iter().all(|f| f.code != "reference-not-applied"));
}

/// A referenced value is read from a call before the constrained one; a partner after it is
/// named as such.
#[test]
fn a_partner_after_the_call_is_named() {
    let text =
        "spec s {\n  order any\n  elig: call check\n  call refund(amount: <= elig.output.max)\n}\n";
    let calls = [
        call("refund", json!({"amount": 50})),
        call_out("check", json!({}), json!({"max": 100})),
    ];
    let v = check(text, &calls);
    assert_eq!(
        messages(&v, 1),
        ["amount: elig.output.max is captured from call #2, which comes after this call"]
    );
}

/// Decimal text for a JSON number, exactly: integers as written, doubles in full (Rust prints
/// every digit of a double when given the precision).
fn exact_decimal(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    format!("{:.1100}", n.as_f64().unwrap())
}

/// Compare two decimal strings (`-?digits(.digits)?`) by value.
fn decimal_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn parts(s: &str) -> (bool, String, String) {
        let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let int = int.trim_start_matches('0').to_owned();
        let frac = frac.trim_end_matches('0').to_owned();
        let zero = int.is_empty() && frac.is_empty();
        (neg && !zero, int, frac)
    }
    let (na, ia, fa) = parts(a);
    let (nb, ib, fb) = parts(b);
    let magnitude = ia.len().cmp(&ib.len()).then(ia.cmp(&ib)).then(fa.cmp(&fb));
    match (na, nb) {
        (false, true) => std::cmp::Ordering::Greater,
        (true, false) => std::cmp::Ordering::Less,
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
    }
}

/// JSON number text: integers near 2⁵³ and at the ends of 64 bits, decimals like 0.1 + 0.2.
fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        any::<u64>().prop_map(|u| u.to_string()),
        (-4i64..4).prop_map(|d| (9_007_199_254_740_992_i64 + d).to_string()),
        (-4i64..4).prop_map(|d| format!("{}.0", 9_007_199_254_740_992_i64 + d)),
        (-1000i64..1000, 0u32..4).prop_map(|(m, k)| format!("{}", m as f64 / 10f64.powi(k as i32))),
        (-3i64..3).prop_map(|d| format!("{}", 0.1 + 0.2 + d as f64)),
        Just("0.3".to_owned()),
        Just("0.30000000000000004".to_owned()),
        Just("18446744073709551615".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("-9223372036854775808".to_owned()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `x <= ref` holds exactly when the number read from the transcript is at most the captured
    /// one, decided on exact decimal expansions (every operator, same oracle).
    #[test]
    fn order_references_agree_with_exact_comparison(x in number_text(), y in number_text()) {
        let xv: Value = serde_json::from_str(&x).unwrap();
        let yv: Value = serde_json::from_str(&y).unwrap();
        let (Value::Number(xn), Value::Number(yn)) = (&xv, &yv) else { unreachable!() };
        let want = decimal_cmp(&exact_decimal(xn), &exact_decimal(yn));
        for (op, holds) in [
            (RefOp::Le, want.is_le()),
            (RefOp::Lt, want.is_lt()),
            (RefOp::Ge, want.is_ge()),
            (RefOp::Gt, want.is_gt()),
        ] {
            let s = spec(
                OrderMode::InOrder,
                vec![
                    exp("src").label("a"),
                    exp("t").arg("x", reference_op(0, "a", Part::Output, "n", op)),
                ],
            );
            let v = run(&s, &[call_out("src", json!({}), json!({"n": yv})), call("t", json!({"x": xv}))]);
            prop_assert_eq!(v.expectations[1].status == Status::Matched, holds, "{} {:?} {}", x, op, y);
        }
    }

    /// `in` agrees with `==` against each element, and `not in` is its negation.
    #[test]
    fn membership_agrees_with_equality(
        x in number_text(),
        items in prop::collection::vec(number_text(), 0..6),
        strings in prop::collection::vec("[ab]{0,2}", 0..3),
        use_each in any::<bool>(),
    ) {
        let xv: Value = serde_json::from_str(&x).unwrap();
        let mut list: Vec<Value> = items.iter().map(|t| serde_json::from_str(t).unwrap()).collect();
        list.extend(strings.iter().map(|s| json!(s)));
        let Value::Number(xn) = &xv else { unreachable!() };
        let want = list.iter().any(|e| match e {
            Value::Number(en) => decimal_cmp(&exact_decimal(xn), &exact_decimal(en)).is_eq(),
            _ => false,
        });
        let (output, p) = if use_each {
            (json!({"l": list.iter().map(|e| json!({"v": e})).collect::<Vec<_>>()}), "l.*.v")
        } else {
            (json!({"l": list}), "l")
        };
        for (op, holds) in [(RefOp::In, want), (RefOp::NotIn, !want)] {
            let s = spec(
                OrderMode::InOrder,
                vec![exp("src").label("a"), exp("t").arg("x", reference_op(0, "a", Part::Output, p, op))],
            );
            let v = run(&s, &[call_out("src", json!({}), output.clone()), call("t", json!({"x": xv}))]);
            prop_assert_eq!(v.expectations[1].status == Status::Matched, holds, "{} {:?} {:?}", x, op, list);
        }
    }
}

fn any_op() -> impl Strategy<Value = RefOp> {
    prop::sample::select(vec![
        RefOp::Eq,
        RefOp::Lt,
        RefOp::Le,
        RefOp::Gt,
        RefOp::Ge,
        RefOp::In,
        RefOp::NotIn,
        RefOp::Contains,
    ])
}

proptest! {
    /// Random specs of two tools with optional expectations and references of every operator:
    /// the verdict stays well formed (score in [0, 1], every call accounted for once), and a
    /// `reference-not-applied` note is given exactly for each constraining expectation that
    /// matched a call while an optional expectation it refers to matched none.
    #[test]
    fn operators_and_optional_references_keep_the_verdict_well_formed(
        exps in prop::collection::vec((0u8..2, any::<bool>()), 1..5),
        refs in prop::collection::vec((0usize..5, 0usize..5, any_op(), any::<bool>()), 0..4),
        cs in prop::collection::vec((0u8..2, 0i64..4, prop::collection::vec(0i64..4, 0..3)), 0..6),
        o in prop::sample::select(vec![OrderMode::Strict, OrderMode::InOrder, OrderMode::AnyOrder]),
    ) {
        let tools = ["a", "b"];
        let mut list: Vec<Expectation> = exps
            .iter()
            .enumerate()
            .map(|(j, (t, optional))| {
                let e = exp(tools[*t as usize]).label(&format!("e{j}"));
                if *optional { e.repeat(0, Some(1)) } else { e }
            })
            .collect();
        let m = list.len();
        let mut refers: Vec<(usize, usize)> = Vec::new();
        for (from, to, op, each) in refs {
            let (from, to) = (from % m, to % m);
            if to >= from || refers.iter().any(|&(f, _)| f == from) {
                continue;
            }
            let p = if op.is_membership() { if each { "l.*" } else { "l" } } else { "x" };
            list[from] = list[from].clone().arg("x", reference_op(to, &format!("e{to}"), Part::Output, p, op));
            refers.push((from, to));
        }
        let s = spec(o, list.clone());
        let calls: Vec<ToolCall> = cs
            .iter()
            .map(|(t, x, l)| call_out(tools[*t as usize], json!({"x": x}), json!({"x": x, "l": l})))
            .collect();
        let v = run(&s, &calls);
        prop_assert!((0.0..=1.0).contains(&v.score));
        let mut seen = vec![0; calls.len()];
        for e in &v.expectations { for &i in &e.calls { seen[i] += 1; } }
        for &i in &v.unaccounted { seen[i] += 1; }
        prop_assert!(seen.iter().all(|&n| n == 1));
        let mut notes: Vec<usize> = v
            .findings
            .iter()
            .filter(|f| f.code == "reference-not-applied")
            .map(|f| f.expectation.unwrap())
            .collect();
        let mut want: Vec<usize> = refers
            .iter()
            .filter(|&&(from, to)| {
                list[to].repeat.min == 0
                    && v.expectations[to].calls.is_empty()
                    && !v.expectations[from].calls.is_empty()
            })
            .map(|&(from, _)| from)
            .collect();
        want.sort_unstable();
        notes.sort_unstable();
        prop_assert_eq!(notes, want);
    }
}

/// Twenty captured lists of 10 000 objects each, and 2 000 calls tested against them: each list
/// is collected and hashed once, each test is a look-up (a linear scan per pair would compare
/// 400 million objects).
#[test]
fn long_lists_of_objects_against_many_calls() {
    let text =
        "spec s {\n  a: at_least 1 call src\n  at_least 1 call t(x: in a.output.items[*])\n}\n";
    let mut calls: Vec<ToolCall> = (0..20)
        .map(|k| {
            let items: Vec<Value> = (0..EACH_BOUND).map(|i| json!({"id": i, "k": k})).collect();
            call_out("src", json!({}), json!({"items": items}))
        })
        .collect();
    calls.extend((0..2_000).map(|i| call("t", json!({"x": {"k": 0, "id": i * 7 + 1_000_000}}))));
    let start = std::time::Instant::now();
    let v = check(text, &calls);
    assert_eq!(v.expectations[1].status, Status::NameOnly);
    assert_eq!(v.counts.exact, 20);
    assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
}

/// The bundled example (`specs/40_refund_references.toolspec`) on its OpenAI chat and Anthropic
/// transcripts: the compact call table `check` reads gives the verdict of the full calls, and
/// `Run` builds the same findings on demand (the `reference-not-applied` note included).
#[test]
fn the_example_gives_the_same_verdicts_on_compact_calls() {
    use toolspec::transcript::{Keep, Reader, Transcript};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("specs/40_refund_references.toolspec")).unwrap();
    let specs = compiled_all(&text);
    let read = |name: &str, keep: Keep| -> Transcript {
        let bytes = std::fs::read(root.join("specs/runs/refs").join(name)).unwrap();
        let mut out = Vec::new();
        Reader::new()
            .keep(keep)
            .read_with(name, &bytes, |t| out.push(t))
            .unwrap();
        out.remove(0)
    };
    let mut notes = 0;
    for (config, files) in [
        (
            &specs[0],
            [
                "refund-openai.request.json",
                "refund-anthropic.request.json",
            ],
        ),
        (
            &specs[1],
            [
                "booking-openai.request.json",
                "booking-anthropic.request.json",
            ],
        ),
    ] {
        let mut passed = Vec::new();
        for name in files {
            let full = read(name, Keep::default());
            let compact = read(
                name,
                Keep {
                    compact: Some(0),
                    ..Keep::default()
                },
            );
            let table = compact.compact.as_ref().unwrap();
            let want = run(config, &full.calls);
            assert_eq!(run(config, table), want, "{name}");
            let r = toolspec::engine::Run::new(config, table);
            for (k, f) in want.findings.iter().enumerate() {
                assert_eq!(r.finding(k).as_ref(), Some(f), "{name}");
            }
            notes += want
                .findings
                .iter()
                .filter(|f| f.code == "reference-not-applied")
                .count();
            passed.push(want.passed);
        }
        // The OpenAI run passes, the Anthropic run fails.
        assert_eq!(passed, [true, false], "{}", config.name);
    }
    assert_eq!(notes, 1);
}

/// Every spec of `text`, compiled without diagnostics.
fn compiled_all(text: &str) -> Vec<MatcherConfig> {
    let r = lang_common::compile_with(text, &[]);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    r.file.expect("a config").specs
}

/// A `reference-not-applied` note is `unverified` exactly when the pair passes only because the
/// reference did not apply: applied, the constraint fails and so does the pair. On a pair that
/// passes either way, or that fails anyway, the note is an ordinary note.
#[test]
fn a_reference_the_pass_rests_on_is_unverified() {
    let unverified = |text: &str, calls: &[ToolCall]| -> (bool, Vec<bool>) {
        let v = check(text, calls);
        let marks = v
            .findings
            .iter()
            .filter(|f| f.code == "reference-not-applied")
            .map(|f| f.unverified)
            .collect();
        (v.passed, marks)
    };
    let refund = [call("refund", json!({"amount": 50, "code": "X"}))];
    assert_eq!(unverified(OPTIONAL, &refund), (true, vec![true, true]));
    // A threshold the pair reaches with the constraint failed: the verdict does not rest on it.
    let lenient = OPTIONAL.replace("spec s {\n", "spec s {\n  threshold 0.1\n");
    assert_eq!(unverified(&lenient, &refund), (true, vec![false, false]));
    // A pair that fails anyway: nothing rests on the note.
    let failing = OPTIONAL.replace("call refund(", "call cancel\n  call refund(");
    let (passed, marks) = unverified(&failing, &refund);
    assert!(!passed);
    assert!(marks.iter().all(|m| !m), "{marks:?}");
    // No other finding is marked by it.
    let v = check(OPTIONAL, &refund);
    assert!(v
        .findings
        .iter()
        .all(|f| f.code == "reference-not-applied" || !f.unverified));
}
