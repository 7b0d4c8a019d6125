//! Properties of the engine over random specs and transcripts.

mod engine_common;

use engine_common::*;
use proptest::prelude::*;
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::run;
use toolspec::transcript::model::ToolCall;

const TOOLS: [&str; 4] = ["a", "b", "c", "d"];

#[derive(Debug, Clone)]
struct ExpSpec {
    tool: usize,
    x: Option<i64>,
    repeat: (u32, Option<u32>),
    weight: f64,
}

fn exp_spec() -> impl Strategy<Value = ExpSpec> {
    (
        0..TOOLS.len(),
        prop::option::of(0i64..3),
        prop::sample::select(vec![
            (1, Some(1)),
            (0, Some(1)),
            (1, None),
            (2, Some(3)),
            (0, None),
        ]),
        prop::sample::select(vec![1.0, 2.0, 0.5]),
    )
        .prop_map(|(tool, x, repeat, weight)| ExpSpec {
            tool,
            x,
            repeat,
            weight,
        })
}

fn build(exps: &[ExpSpec], order: OrderMode, scoring: &Scoring) -> MatcherConfig {
    let mut s = spec(
        order,
        exps.iter()
            .map(|e| {
                let mut x = exp(TOOLS[e.tool])
                    .repeat(e.repeat.0, e.repeat.1)
                    .weight(e.weight);
                if let Some(v) = e.x {
                    x = x.eq("x", json!(v));
                }
                x
            })
            .collect(),
    );
    s.scoring = scoring.clone();
    s
}

fn scoring() -> impl Strategy<Value = Scoring> {
    (
        prop::sample::select(vec![0.0, 0.5]),
        prop::sample::select(vec![0.0, 0.1, 0.5]),
        prop::sample::select(vec![0.0, 0.2]),
        prop::sample::select(vec![1.0, 0.7]),
        any::<bool>(),
    )
        .prop_map(
            |(name_only, extra_call, wrong_or_missing, threshold, binary)| Scoring {
                exact_match: 1.0,
                name_only,
                extra_call,
                wrong_or_missing,
                threshold,
                binary,
            },
        )
}

fn calls() -> impl Strategy<Value = Vec<ToolCall>> {
    prop::collection::vec((0..TOOLS.len() + 1, 0i64..3), 0..12).prop_map(|v| {
        v.into_iter()
            .map(|(t, x)| call(TOOLS.get(t).copied().unwrap_or("zz"), json!({ "x": x })))
            .collect()
    })
}

fn order() -> impl Strategy<Value = OrderMode> {
    prop::sample::select(vec![
        OrderMode::Strict,
        OrderMode::InOrder,
        OrderMode::AnyOrder,
    ])
}

/// The calls that satisfy the expectations exactly, in the written order.
fn canonical(exps: &[ExpSpec]) -> Vec<ToolCall> {
    let mut out = Vec::new();
    for e in exps {
        let n = e.repeat.0.max(1).min(e.repeat.1.unwrap_or(u32::MAX));
        for _ in 0..n {
            out.push(call(TOOLS[e.tool], json!({ "x": e.x.unwrap_or(9) })));
        }
    }
    out
}

proptest! {
    #[test]
    fn score_is_always_in_unit_interval(
        exps in prop::collection::vec(exp_spec(), 0..6), cs in calls(), o in order(), sc in scoring()
    ) {
        let v = run(&build(&exps, o, &sc), &cs);
        prop_assert!((0.0..=1.0).contains(&v.score), "{}", v.score);
        prop_assert_eq!(v.counts.calls, cs.len());
        // Every call is matched to one expectation or unaccounted, never both.
        let mut seen = vec![0; cs.len()];
        for e in &v.expectations { for &i in &e.calls { seen[i] += 1; } }
        for &i in &v.unaccounted { seen[i] += 1; }
        prop_assert!(seen.iter().all(|&n| n == 1));
    }

    #[test]
    fn the_expected_transcript_scores_one_and_passes(
        exps in prop::collection::vec(exp_spec(), 0..6), o in order(), sc in scoring(), forbid_extra in any::<bool>()
    ) {
        let mut s = build(&exps, o, &sc);
        if forbid_extra { s.extra_calls = ExtraCalls::Forbid; }
        let v = run(&s, &canonical(&exps));
        prop_assert_eq!(v.score, 1.0, "{:#?}", v);
        prop_assert!(v.passed);
    }

    #[test]
    fn any_order_is_invariant_under_permutation(
        exps in prop::collection::vec(exp_spec(), 0..6), cs in calls(), sc in scoring(), seed in any::<u64>()
    ) {
        let s = build(&exps, OrderMode::AnyOrder, &sc);
        let a = run(&s, &cs);
        let mut shuffled = cs.clone();
        // Deterministic Fisher-Yates from the seed.
        let mut r = seed | 1;
        for i in (1..shuffled.len()).rev() {
            r ^= r << 13; r ^= r >> 7; r ^= r << 17;
            shuffled.swap(i, (r % (i as u64 + 1)) as usize);
        }
        let b = run(&s, &shuffled);
        prop_assert!((a.score - b.score).abs() < 1e-9, "{} vs {}", a.score, b.score);
        prop_assert_eq!(a.passed, b.passed);
        prop_assert_eq!(a.counts.exact, b.counts.exact);
        prop_assert_eq!(a.counts.name_only, b.counts.name_only);
    }

    #[test]
    fn adding_a_forbidden_call_always_fails(
        exps in prop::collection::vec(exp_spec(), 0..6), cs in calls(), o in order(), sc in scoring(),
        tool in 0..TOOLS.len() + 1, at in any::<prop::sample::Index>()
    ) {
        let mut s = build(&exps, o, &sc);
        let name = TOOLS.get(tool).copied().unwrap_or("zz");
        s.forbidden.push(forbid(name, None));
        let mut cs = cs;
        let pos = at.index(cs.len() + 1);
        cs.insert(pos, call(name, json!({})));
        let v = run(&s, &cs);
        prop_assert!(!v.passed);
        prop_assert!(v.findings.iter().any(|f| f.code == "forbidden-call" && f.call == Some(pos)));
    }

    #[test]
    fn in_order_never_beats_any_order(
        exps in prop::collection::vec(exp_spec(), 0..6), cs in calls(), sc in scoring()
    ) {
        let any = run(&build(&exps, OrderMode::AnyOrder, &sc), &cs).score;
        let ord = run(&build(&exps, OrderMode::InOrder, &sc), &cs).score;
        let strict = run(&build(&exps, OrderMode::Strict, &sc), &cs).score;
        prop_assert!(ord <= any + 1e-9, "in order {} > any order {}", ord, any);
        prop_assert!(strict <= any + 1e-9);
    }
}
