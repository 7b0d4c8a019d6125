//! Verdicts on a prefix of a run (`engine::prefix`, `docs/engine.md`, *Verdicts on an unfinished
//! run*): what is violated stays violated and fails the finished run; the finished run's verdict
//! is the ordinary one.

use crate::engine_common;

use engine_common::*;
use proptest::prelude::*;
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::{prefix, run, State, Status, Subject};
use toolspec::source::Span;
use toolspec::transcript::model::ToolCall;

const TOOLS: [&str; 3] = ["a", "b", "c"];

/// An expectation: its tool, the `x` it requires, its counts, whether it refers to the first.
type GenExp = (usize, Option<i64>, (u32, Option<u32>), bool);

#[derive(Debug, Clone)]
struct Gen {
    exps: Vec<GenExp>,
    rules: Vec<(usize, Option<i64>, usize, bool)>,
    limits: Vec<(usize, u32, Option<u32>, usize)>,
    before: Vec<(usize, usize)>,
    order: OrderMode,
    forbid_extra: bool,
    answer: bool,
}

fn scope(k: usize) -> Option<Scope> {
    let after = |edge| After {
        edge,
        anchor: Anchor::Tool { tool: "a".into() },
        span: Span::default(),
    };
    match k {
        1 => Some(Scope {
            turn: Some(TurnSel::Nth(1)),
            ..Scope::default()
        }),
        2 => Some(Scope {
            turn: Some(TurnSel::Last(LastTurn::Last)),
            ..Scope::default()
        }),
        3 => Some(Scope {
            after: Some(after(Edge::First)),
            ..Scope::default()
        }),
        4 => Some(Scope {
            after: Some(after(Edge::Last)),
            ..Scope::default()
        }),
        5 => Some(Scope {
            agent: Some("helper".into()),
            ..Scope::default()
        }),
        _ => None,
    }
}

fn gen() -> impl Strategy<Value = Gen> {
    (
        prop::collection::vec(
            (
                0..TOOLS.len(),
                prop::option::of(0i64..2),
                prop::sample::select(vec![
                    (1, Some(1)),
                    (0, Some(1)),
                    (1, None),
                    (2, Some(2)),
                    (0, Some(2)),
                    (0, None),
                ]),
                any::<bool>(),
            ),
            0..5,
        ),
        prop::collection::vec(
            (
                0..TOOLS.len() + 1,
                prop::option::of(0i64..2),
                0usize..6,
                any::<bool>(),
            ),
            0..3,
        ),
        prop::collection::vec(
            (0usize..2, 0u32..3, prop::option::of(0u32..4), 0usize..6),
            0..3,
        ),
        prop::collection::vec((0usize..5, 0usize..5), 0..2),
        prop::sample::select(vec![
            OrderMode::Strict,
            OrderMode::InOrder,
            OrderMode::AnyOrder,
        ]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(exps, rules, limits, before, order, forbid_extra, answer)| Gen {
                exps,
                rules,
                limits,
                before,
                order,
                forbid_extra,
                answer,
            },
        )
}

/// Each statement gets a span of its own, as written statements have.
fn span(base: usize, k: usize) -> Span {
    Span::new(base + k * 10, base + k * 10 + 5)
}

fn build(g: &Gen) -> MatcherConfig {
    let exps: Vec<Expectation> = g
        .exps
        .iter()
        .enumerate()
        .map(|(j, &(tool, x, (min, max), refers))| {
            let mut e = exp(TOOLS[tool]).repeat(min, max);
            if let Some(v) = x {
                e = e.eq("x", json!(v));
            }
            // A reference to the first expectation's argument (an earlier output in a real spec).
            if refers && j > 0 {
                e = e.arg("y", reference(0, "first", Part::Args, "x"));
            }
            e.span = span(0, j);
            e
        })
        .collect();
    let mut s = spec(g.order, exps);
    s.span = Span::new(0, 10_000);
    for (r, &(tool, x, sc, refers)) in g.rules.iter().enumerate() {
        let mut checks = Vec::new();
        if let Some(v) = x {
            checks.push(PathCheck {
                path: path("x"),
                check: Check::equals(json!(v)),
                span: Span::default(),
                declared: None,
            });
        }
        if refers && !s.expectations.is_empty() {
            checks.push(PathCheck {
                path: path("x"),
                check: reference(0, "first", Part::Args, "x"),
                span: Span::default(),
                declared: None,
            });
        }
        let args = (!checks.is_empty()).then(|| ValueMatcher {
            checks,
            allow_extra_keys: true,
        });
        let mut f = match TOOLS.get(tool) {
            Some(t) => forbid(t, args),
            None => Forbidden {
                tool: "*".into(),
                any_tool: true,
                ..forbid("*", args)
            },
        };
        f.scope = scope(sc);
        f.span = span(1000, r);
        s.forbidden.push(f);
    }
    for (k, &(what, min, max, sc)) in g.limits.iter().enumerate() {
        let counted = if what == 0 {
            Counted::Calls
        } else {
            Counted::Matching {
                args: ValueMatcher::any(),
                output: None,
                errored: Some(true),
            }
        };
        s.limits.push(Limit {
            counted,
            min,
            max: max.map(|m| m.max(min)),
            scope: scope(sc),
            span: span(2000, k),
        });
    }
    let m = s.expectations.len();
    for (r, &(a, b)) in g.before.iter().enumerate() {
        if a < m && b < m && a != b {
            s.before.push(BeforeRule {
                first: a,
                then: b,
                span: span(3000, r),
            });
        }
    }
    if g.forbid_extra {
        s.extra_calls = ExtraCalls::Forbid;
    }
    if g.answer {
        s.answer = Some(AnswerCheck {
            matcher: ValueMatcher {
                checks: vec![PathCheck {
                    path: Vec::new(),
                    check: Check::Contains {
                        value: "done".into(),
                    },
                    span: Span::default(),
                    declared: None,
                }],
                allow_extra_keys: true,
            },
            span: span(4000, 0),
        });
    }
    s
}

fn calls() -> impl Strategy<Value = Vec<ToolCall>> {
    prop::collection::vec(
        (
            0..TOOLS.len() + 1,
            0i64..2,
            0i64..2,
            0u32..3,
            any::<bool>(),
            any::<bool>(),
        ),
        0..9,
    )
    .prop_map(|v| {
        let mut turn = 1;
        v.into_iter()
            .map(|(t, x, y, next_turn, errored, helper)| {
                // Turns only grow along the run.
                if next_turn == 2 {
                    turn += 1;
                }
                let mut c = call(
                    TOOLS.get(t).copied().unwrap_or("zz"),
                    json!({ "x": x, "y": y }),
                );
                c.turn = Some(turn);
                c.is_error = errored;
                c.agent = helper.then(|| "helper".to_owned());
                c
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn violated_on_a_prefix_stays_violated_and_fails_the_run(g in gen(), cs in calls()) {
        let s = build(&g);
        let full = run(&s, &cs);
        let whole = prefix(&s, &cs);
        // The finished run's verdict is the ordinary one.
        prop_assert_eq!(&whole.verdict, &full);
        for k in 0..=cs.len() {
            let p = prefix(&s, &cs[..k]);
            for st in p.statements.iter().filter(|st| st.state == State::Violated) {
                prop_assert!(!full.passed, "prefix {} violates {:?}, the run passes: {:#?}", k, st, full);
                let later = whole.statements.iter().find(|w| w.subject == st.subject);
                // An expectation of a branch the finished run did not choose is not listed.
                if let Some(later) = later {
                    prop_assert_eq!(later.state, State::Violated, "prefix {}: {:?} then {:?}", k, st, later);
                }
                // An expectation the finished run meets is violated on none of its prefixes.
                if let Subject::Expectation(j) = st.subject {
                    let o = full.expectations.iter().find(|o| o.expectation == j);
                    prop_assert!(o.is_none_or(|o| !matches!(o.status, Status::Matched | Status::Skipped)));
                }
            }
        }
    }
}

fn state_of(p: &toolspec::engine::Prefix, subject: Subject) -> State {
    p.statements
        .iter()
        .find(|s| s.subject == subject)
        .map(|s| s.state)
        .expect("the statement is listed")
}

#[test]
fn a_required_call_not_made_yet_is_pending_and_a_forbidden_one_is_violated() {
    let mut s = spec(OrderMode::InOrder, vec![exp("edit"), exp("test")]);
    s.forbidden.push(forbid("rm", None));
    s.forbidden[0].span = Span::new(50, 60);
    let cs = vec![call("edit", json!({}))];
    let p = prefix(&s, &cs);
    assert_eq!(state_of(&p, Subject::Expectation(0)), State::Met);
    assert_eq!(state_of(&p, Subject::Expectation(1)), State::Pending);
    assert_eq!(state_of(&p, Subject::Never(0)), State::Met);
    assert!(!p.violated());
    let cs = vec![call("edit", json!({})), call("rm", json!({}))];
    let p = prefix(&s, &cs);
    assert_eq!(state_of(&p, Subject::Never(0)), State::Violated);
    assert!(p.violated());
}

#[test]
fn the_call_past_an_at_most_cap_is_violated() {
    let s = spec(OrderMode::AnyOrder, vec![exp("search").repeat(0, Some(2))]);
    let one = call("search", json!({}));
    let p = prefix(&s, &vec![one.clone(), one.clone()]);
    assert_eq!(state_of(&p, Subject::Expectation(0)), State::Met);
    let p = prefix(&s, &vec![one.clone(), one.clone(), one]);
    assert_eq!(state_of(&p, Subject::Expectation(0)), State::Violated);
    assert_eq!(p.statements[0].call, Some(2));
}

#[test]
fn a_call_out_of_strict_order_is_violated_and_a_missing_one_pending() {
    let s = spec(OrderMode::Strict, vec![exp("a"), exp("b")]);
    let p = prefix(&s, &vec![call("a", json!({}))]);
    assert_eq!(state_of(&p, Subject::EveryCall), State::Met);
    assert_eq!(state_of(&p, Subject::Expectation(1)), State::Pending);
    let p = prefix(&s, &vec![call("b", json!({})), call("a", json!({}))]);
    let every = p
        .statements
        .iter()
        .find(|s| s.subject == Subject::EveryCall)
        .expect("listed");
    assert_eq!(every.state, State::Violated);
    // Decided at the `b`, which can only be placed past `a` while no `a` was made.
    assert_eq!(every.call, Some(0));
    // Made after an `a`, the `b` is placed; the second `a` cannot be.
    let p = prefix(
        &s,
        &vec![
            call("a", json!({})),
            call("b", json!({})),
            call("a", json!({})),
        ],
    );
    let every = p
        .statements
        .iter()
        .find(|s| s.subject == Subject::EveryCall)
        .expect("listed");
    assert_eq!(every.call, Some(2));
}

#[test]
fn exactly_n_past_n_is_decided_only_where_extra_calls_fail() {
    let mut s = spec(OrderMode::AnyOrder, vec![exp("a").repeat(2, Some(2))]);
    let cs: Vec<ToolCall> = (0..3).map(|_| call("a", json!({}))).collect();
    // Extra calls allowed: the third is an extra call, which costs score, decided at the end.
    assert!(!prefix(&s, &cs).violated());
    s.extra_calls = ExtraCalls::Forbid;
    let p = prefix(&s, &cs);
    assert_eq!(state_of(&p, Subject::EveryCall), State::Violated);
}

#[test]
fn a_before_rule_broken_so_far_is_pending() {
    let mut s = spec(OrderMode::AnyOrder, vec![exp("a"), exp("b")]);
    s.before.push(BeforeRule {
        first: 0,
        then: 1,
        span: Span::new(40, 50),
    });
    let p = prefix(&s, &vec![call("b", json!({})), call("a", json!({}))]);
    assert_eq!(state_of(&p, Subject::Before(0)), State::Pending);
    assert!(!p.violated());
}

#[test]
fn a_required_call_passed_over_in_written_order_is_violated_where_every_call_counts() {
    // `read` then `edit`, written in order: an `edit` before any `read` passes `read` over.
    let mut s = spec(OrderMode::InOrder, vec![exp("read"), exp("edit")]);
    s.expectations[0].span = Span::new(10, 20);
    let edit_first = vec![call("edit", json!({}))];
    // Extra calls allowed: the `edit` may be an extra call and a later one matched instead.
    assert!(!prefix(&s, &edit_first).violated());
    s.extra_calls = ExtraCalls::Forbid;
    let p = prefix(&s, &edit_first);
    let every = p
        .statements
        .iter()
        .find(|st| st.subject == Subject::EveryCall)
        .expect("listed");
    // Either `read` stays without a call or the `edit` is left unaccounted: the run fails.
    assert_eq!(every.state, State::Violated);
    assert_eq!(every.call, Some(0));
    assert_eq!(every.spec_span, Span::new(10, 20));
    assert_eq!(state_of(&p, Subject::Expectation(0)), State::Pending);
    // A `read` made first: nothing is passed over.
    let p = prefix(&s, &vec![call("read", json!({})), call("edit", json!({}))]);
    assert!(!p.violated());
    // An optional `read` may stay without a call.
    let mut s = spec(
        OrderMode::Strict,
        vec![exp("read").repeat(0, Some(1)), exp("edit")],
    );
    assert!(!prefix(&s, &edit_first).violated());
    // Below a threshold that leaves room for it, neither.
    s.expectations[0].repeat = Repeat::ONCE;
    s.scoring.threshold = 0.4;
    assert!(!prefix(&s, &edit_first).violated());
    s.scoring.threshold = 1.0;
    assert!(prefix(&s, &edit_first).violated());
}
