//! Turn and agent scopes and the final answer in the engine: a scoped expectation pairs only
//! with calls of its turn and agent; scopes a transcript cannot answer are findings; the answer
//! counts as one expectation of weight 1.

use crate::engine_common;

use engine_common::*;
use proptest::prelude::*;
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::{run, Recorded, Severity};
use toolspec::source::Span;
use toolspec::transcript::model::ToolCall;

fn at(name: &str, turn: Option<u32>, agent: Option<&str>) -> ToolCall {
    ToolCall {
        turn,
        agent: agent.map(str::to_owned),
        ..call(name, json!({}))
    }
}

fn scoped(mut e: Expectation, turn: Option<TurnSel>, agent: Option<&str>) -> Expectation {
    e.scope = Some(Scope {
        turn,
        turn_span: Span::new(1, 2),
        agent: agent.map(str::to_owned),
        agent_span: Span::new(3, 4),
    });
    e
}

fn answer(check: Check) -> AnswerCheck {
    AnswerCheck {
        matcher: ValueMatcher {
            checks: vec![PathCheck {
                path: Vec::new(),
                check,
                span: Span::default(),
            }],
            allow_extra_keys: true,
        },
        span: Span::new(5, 6),
    }
}

fn codes(v: &toolspec::engine::Verdict) -> Vec<&str> {
    v.findings.iter().map(|f| f.code.as_str()).collect()
}

/// A call of the right tool in another turn does not fill a turn's expectation; the one in the
/// turn does, even when it comes later.
#[test]
fn a_turn_block_matches_only_its_turn() {
    let calls = [
        at("send", Some(1), None),
        at("send", Some(2), None),
        at("send", Some(3), None),
    ];
    let cfg = spec(
        OrderMode::AnyOrder,
        vec![scoped(exp("send"), Some(TurnSel::Nth(2)), None)],
    );
    let v = run(&cfg, &calls);
    assert!(v.passed);
    assert_eq!(v.expectations[0].calls, [1]);
    let last = spec(
        OrderMode::AnyOrder,
        vec![scoped(
            exp("send"),
            Some(TurnSel::Last(LastTurn::Last)),
            None,
        )],
    );
    assert_eq!(run(&last, &calls).expectations[0].calls, [2]);
}

/// `turn last` is the transcript's last user turn, not the last turn with a call: a last turn
/// without calls leaves the expectation unmet.
#[test]
fn turn_last_is_the_transcripts_last_turn() {
    let calls = [at("send", Some(1), None)];
    let cfg = spec(
        OrderMode::InOrder,
        vec![scoped(
            exp("send"),
            Some(TurnSel::Last(LastTurn::Last)),
            None,
        )],
    );
    let two_turns = Recorded {
        calls: &calls,
        turns: Some(2),
        answer: None,
    };
    assert!(!run(&cfg, &two_turns).passed);
    assert!(run(&cfg, &calls).passed);
}

/// Nested blocks: both the agent and the turn must match.
#[test]
fn nested_scopes_need_both() {
    let calls = [
        at("search", Some(1), Some("researcher")),
        at("search", Some(2), None),
        at("search", Some(2), Some("researcher")),
    ];
    let cfg = spec(
        OrderMode::AnyOrder,
        vec![scoped(
            exp("search"),
            Some(TurnSel::Nth(2)),
            Some("researcher"),
        )],
    );
    let v = run(&cfg, &calls);
    assert_eq!(v.expectations[0].calls, [2]);
    assert!(v.findings.iter().any(|f| f.code == "unexpected-call"));
}

/// Turn blocks on a transcript without turns fail the pair with one clear finding, even when
/// the block holds only an optional expectation (which would otherwise pass unseen).
#[test]
fn turns_not_recorded_is_a_hard_failure() {
    let calls = [at("send", None, None)];
    let cfg = spec(
        OrderMode::InOrder,
        vec![scoped(
            exp("send").repeat(0, Some(1)),
            Some(TurnSel::Nth(1)),
            None,
        )],
    );
    let v = run(&cfg, &calls);
    assert!(!v.passed);
    let f = v
        .findings
        .iter()
        .find(|f| f.code == "scopes-not-recorded")
        .unwrap();
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.spec_span, Some(Span::new(1, 2)));
}

/// A turn past the last, and an unknown agent, are warnings that say what the transcript has.
#[test]
fn out_of_range_turns_and_unknown_agents_are_explained() {
    let calls = [
        at("search", Some(1), Some("researcher")),
        at("search", Some(2), Some("writer")),
    ];
    let cfg = spec(
        OrderMode::AnyOrder,
        vec![
            scoped(
                exp("search").repeat(0, Some(1)),
                Some(TurnSel::Nth(5)),
                None,
            ),
            scoped(exp("search").repeat(0, Some(1)), None, Some("reseacher")),
        ],
    );
    let v = run(&cfg, &calls);
    let turn = v
        .findings
        .iter()
        .find(|f| f.code == "turn-out-of-range")
        .unwrap();
    assert!(turn.message.contains("2 user turns"), "{}", turn.message);
    let agent = v
        .findings
        .iter()
        .find(|f| f.code == "unknown-agent")
        .unwrap();
    assert_eq!(agent.severity, Severity::Warning);
    assert!(
        agent.help.contains("did you mean \"researcher\""),
        "{}",
        agent.help
    );
    assert!(agent.help.contains("\"writer\""), "{}", agent.help);
    // The pair passes (both caps hold with no call), but neither scope checked a call: both
    // findings say the verdict does not cover them.
    assert!(v.passed);
    assert!(turn.unverified && agent.unverified);
    assert!(v
        .findings
        .iter()
        .filter(|f| f.code != "turn-out-of-range" && f.code != "unknown-agent")
        .all(|f| !f.unverified));
}

/// The answer counts as one expectation of weight 1: two calls made right and a failing answer
/// score 2/3, and the finding quotes the answer.
#[test]
fn the_answer_is_one_expectation_of_weight_one() {
    let calls = [call("a", json!({})), call("b", json!({}))];
    let mut cfg = spec(OrderMode::InOrder, vec![exp("a"), exp("b")]);
    cfg.answer = Some(answer(Check::Contains {
        value: json!("booked"),
    }));
    let recorded = |text: Option<&'static str>| Recorded {
        calls: &calls,
        turns: None,
        answer: text,
    };
    let v = run(&cfg, &recorded(Some("Your flight is booked.")));
    assert_eq!((v.score, v.passed), (1.0, true));
    let v = run(&cfg, &recorded(Some("Sorry, no seats left.")));
    assert!((v.score - 2.0 / 3.0).abs() < 1e-9 && !v.passed);
    let f = v
        .findings
        .iter()
        .find(|f| f.code == "answer-mismatch")
        .unwrap();
    assert_eq!(f.spec_span, Some(Span::new(5, 6)));
    assert!(f.help.contains("Sorry, no seats left."), "{}", f.help);
    let v = run(&cfg, &recorded(None));
    assert!(!v.passed);
    assert_eq!(codes(&v), ["answer-missing"]);
}

/// The quoted answer is cut to a bounded length.
#[test]
fn a_long_answer_is_cut_in_the_finding() {
    let calls: [ToolCall; 0] = [];
    let mut cfg = spec(OrderMode::InOrder, vec![]);
    cfg.answer = Some(answer(Check::Contains { value: json!("x") }));
    let long = "y".repeat(100_000);
    let v = run(
        &cfg,
        &Recorded {
            calls: &calls,
            turns: None,
            answer: Some(&long),
        },
    );
    let f = &v.findings[0];
    assert!(f.message.len() + f.help.len() < 2_000);
}

const AGENTS: [Option<&str>; 3] = [None, Some("r"), Some("w")];

proptest! {
    /// Whatever the spec and the transcript, a scoped expectation is never paired with a call
    /// outside its turn or agent, and an unscoped spec gives the same verdict with or without
    /// turns and agents recorded.
    #[test]
    fn a_scoped_expectation_never_matches_a_call_outside_its_scope(
        calls in prop::collection::vec((0usize..2, 1u32..4, 0usize..3), 0..12),
        exps in prop::collection::vec(
            (0usize..2, prop::option::of(0u32..4), prop::option::of(0usize..3), 0u32..2),
            1..6,
        ),
        order in 0usize..3,
    ) {
        let names = ["x", "y"];
        let calls: Vec<ToolCall> = calls
            .iter()
            .map(|&(n, t, a)| at(names[n], Some(t), AGENTS[a]))
            .collect();
        let order = [OrderMode::Strict, OrderMode::InOrder, OrderMode::AnyOrder][order];
        let scopes: Vec<(Option<TurnSel>, Option<&str>)> = exps
            .iter()
            .map(|&(_, t, a, _)| {
                let turn = t.map(|t| if t == 0 { TurnSel::Last(LastTurn::Last) } else { TurnSel::Nth(t) });
                (turn, a.and_then(|a| AGENTS[a]))
            })
            .collect();
        let cfg = spec(
            order,
            exps.iter()
                .zip(&scopes)
                .map(|(&(n, _, _, min), &(t, a))| {
                    scoped(exp(names[n]).repeat(min, None), t, a)
                })
                .collect(),
        );
        let v = run(&cfg, &calls);
        let last = calls.iter().filter_map(|c| c.turn).max();
        for o in &v.expectations {
            let (turn, agent) = scopes[o.expectation];
            for &i in &o.calls {
                let c = &calls[i];
                let want = match turn {
                    None => c.turn,
                    Some(TurnSel::Nth(n)) => Some(n),
                    Some(TurnSel::Last(_)) => last,
                };
                prop_assert_eq!(c.turn, want);
                if let Some(a) = agent {
                    prop_assert_eq!(c.agent.as_deref(), Some(a));
                }
            }
        }
        // Without scopes, turns and agents change nothing.
        let mut plain = cfg.clone();
        for e in &mut plain.expectations {
            e.scope = None;
        }
        let bare: Vec<ToolCall> = calls
            .iter()
            .map(|c| ToolCall { turn: None, agent: None, ..c.clone() })
            .collect();
        prop_assert_eq!(run(&plain, &calls), run(&plain, &bare));
    }
}
