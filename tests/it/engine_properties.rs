//! Properties of the engine over random specs and transcripts.

use crate::engine_common;

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
                per_argument: false,
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
    fn at_most_is_a_cap_in_every_order_mode(
        o in order(), k in 1u32..4, m in 0usize..7, noise in 0usize..3
    ) {
        // `at_most k call a(x: 1)`: m matching calls, and calls of `a` that do not match, which
        // never count against the cap.
        let s = build(&[ExpSpec { tool: 0, x: Some(1), repeat: (0, Some(k)), weight: 1.0 }], o, &Scoring::default());
        let mut cs: Vec<ToolCall> = (0..m).map(|_| call("a", json!({"x": 1}))).collect();
        if o != OrderMode::Strict {
            cs.extend((0..noise).map(|_| call("a", json!({"x": 2}))));
        }
        let v = run(&s, &cs);
        let over = v.findings.iter().filter(|f| f.code == "too-many-calls").count();
        prop_assert_eq!(v.passed, m <= k as usize, "{:#?}", v);
        prop_assert_eq!(over, m.saturating_sub(k as usize));
        prop_assert_eq!(v.expectations[0].status == toolspec::engine::Status::TooMany, m > k as usize);
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

/// The best native score over every valid assignment, by exhaustive search (small inputs only).
fn brute_force(exps: &[ExpSpec], cs: &[ToolCall], sc: &Scoring, in_order: bool) -> f64 {
    fn rec(
        i: usize,
        exps: &[ExpSpec],
        cs: &[ToolCall],
        sc: &Scoring,
        in_order: bool,
        choice: &mut Vec<usize>,
        best: &mut f64,
    ) {
        if i == cs.len() {
            if let Some(s) = evaluate(exps, cs, sc, in_order, choice) {
                *best = best.max(s);
            }
            return;
        }
        choice[i] = usize::MAX;
        rec(i + 1, exps, cs, sc, in_order, choice, best);
        for j in 0..exps.len() {
            if cs[i].name == TOOLS[exps[j].tool] {
                choice[i] = j;
                rec(i + 1, exps, cs, sc, in_order, choice, best);
            }
        }
        choice[i] = usize::MAX;
    }
    let mut choice = vec![usize::MAX; cs.len()];
    let mut best = f64::NEG_INFINITY;
    rec(0, exps, cs, sc, in_order, &mut choice, &mut best);
    best
}

/// The native score of one assignment (`usize::MAX`: unaccounted), if the assignment is valid.
fn evaluate(
    exps: &[ExpSpec],
    cs: &[ToolCall],
    sc: &Scoring,
    in_order: bool,
    choice: &[usize],
) -> Option<f64> {
    if in_order {
        let mut last = 0;
        for &j in choice.iter().filter(|&&j| j != usize::MAX) {
            if j < last {
                return None;
            }
            last = j;
        }
    }
    let (mut earned, mut w_total, mut unmet) = (0.0, 0.0, 0.0);
    for (j, e) in exps.iter().enumerate() {
        let mine: Vec<usize> = (0..cs.len()).filter(|&i| choice[i] == j).collect();
        let full = mine
            .iter()
            .filter(|&&i| e.x.is_none_or(|x| cs[i].args["x"] == json!(x)))
            .count();
        let name = mine.len() - full;
        let min = e.repeat.0 as usize;
        // Name-only calls fill required slots only; no more calls than the maximum.
        if name > min || e.repeat.1.is_some_and(|m| mine.len() > m as usize) {
            return None;
        }
        let req_full = full.min(min - name);
        earned += e.weight * (sc.exact_match * req_full as f64 + sc.name_only * name as f64);
        w_total += e.weight * min as f64;
        unmet += e.weight * (min - req_full) as f64;
    }
    let u = choice.iter().filter(|&&j| j == usize::MAX).count() as f64;
    let pen = sc.extra_call * u + sc.wrong_or_missing * unmet;
    let raw = if w_total > 0.0 {
        (earned - pen) / w_total
    } else {
        1.0 - pen
    };
    Some(raw.clamp(0.0, 1.0))
}

fn small_calls() -> impl Strategy<Value = Vec<ToolCall>> {
    prop::collection::vec((0..3usize, 0i64..2), 0..7).prop_map(|v| {
        v.into_iter()
            .map(|(t, x)| call(TOOLS[t], json!({ "x": x })))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn alignment_is_optimal_against_exhaustive_search(
        exps in prop::collection::vec(exp_spec().prop_filter("small tools", |e| e.tool < 3), 0..4),
        cs in small_calls(),
        sc in scoring().prop_map(|s| Scoring { binary: false, ..s }),
    ) {
        for (mode, in_order) in [(OrderMode::AnyOrder, false), (OrderMode::InOrder, true)] {
            let v = run(&build(&exps, mode, &sc), &cs);
            let best = brute_force(&exps, &cs, &sc, in_order);
            prop_assert!((v.score - best).abs() < 1e-9, "{:?}: engine {} vs best {}", mode, v.score, best);
        }
    }
}

proptest! {
    #[test]
    fn references_and_before_rules_keep_the_verdict_well_formed(
        exps in prop::collection::vec(exp_spec(), 1..6),
        cs in calls(),
        o in order(),
        sc in scoring(),
        refs in prop::collection::vec((0usize..6, 0usize..6), 0..3),
        rules in prop::collection::vec((0usize..6, 0usize..6), 0..3),
    ) {
        let mut s = build(&exps, o, &sc);
        let m = s.expectations.len();
        for (from, to) in refs {
            let (from, to) = (from % m, to % m);
            if to < from {
                s.expectations[from].args.checks.push(PathCheck {
                    path: path("x"),
                    check: reference(to, "earlier", Part::Args, "x"),
                    span: Default::default(),
                    declared: None,
                });
            }
        }
        for (a, b) in rules {
            if a % m != b % m {
                s.before.push(BeforeRule { first: a % m, then: b % m, span: Default::default() });
            }
        }
        let v = run(&s, &cs);
        prop_assert!((0.0..=1.0).contains(&v.score));
        let mut seen = vec![0; cs.len()];
        for e in &v.expectations { for &i in &e.calls { seen[i] += 1; } }
        for &i in &v.unaccounted { seen[i] += 1; }
        prop_assert!(seen.iter().all(|&n| n == 1));
        // A broken rule is reported exactly when the chosen calls break it.
        for r in &s.before {
            let a = v.expectations[r.first].calls.iter().max();
            let b = v.expectations[r.then].calls.iter().min();
            let broken = matches!((a, b), (Some(x), Some(y)) if y < x);
            if broken {
                prop_assert!(!v.passed);
                prop_assert!(v.findings.iter().any(|f| f.code == "before-violation"));
            }
        }
    }
}
