//! Engine throughput: 10 000 calls against 100 expectations, in each order mode.
//!
//! `cargo bench --bench engine` prints one line per scenario and mode (median of 5 runs).
//! Scenarios: `spread` (100 expectations over 25 tools, 10 000 calls over 50 tools; every check
//! kind of the config on arguments and outputs, output strings holding JSON, references to
//! earlier expectations (the two-pass alignment), a `before` rule, name rules and a forbidden
//! tool) and `dense` (every expectation and call is the same tool, the worst case for candidate
//! pairs: 1 000 000 of them, within the budgets). Then the cost cases of
//! `tests/it/cost_engine.rs` (`docs/robustness.md`, *Engine budgets*): `exactly 3000` in order
//! against 3 000 calls; 8 000 `at_least 1` in any order against 8 000 calls; 2 999 reversed
//! `before` rules over 3 000 expectations of one tool; 100 × 100 fuzzy pairs at the per-pair
//! bound; exact arguments with 50 000 keys in reverse order; a 6-member `parallel` block among
//! 30 expectations over 2 777 calls of their tools (the arrangements' work budget).
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use serde_json::json;
use toolspec::config::{
    ArgsMode, BeforeRule, Check, Expectation, ExtraCalls, Forbidden, Group, GroupKind, JsonType,
    MatcherConfig, NameRules, OrderMode, Part, PathCheck, PathSeg, Pattern, RefOp, Repeat, Scoring,
    ValueMatcher, CONFIG_VERSION,
};
use toolspec::engine::run;
use toolspec::source::Span;
use toolspec::transcript::model::ToolCall;

fn check(path: &str, check: Check) -> PathCheck {
    PathCheck {
        path: vec![PathSeg::Key(path.into())],
        check,
        span: Span::default(),
        declared: None,
    }
}

fn expectation(tool: String, checks: Vec<PathCheck>, repeat: Repeat) -> Expectation {
    Expectation {
        label: Some(tool.clone()),
        tool,
        namespace: None,
        args_mode: ArgsMode::Subset,
        args: ValueMatcher {
            checks,
            allow_extra_keys: true,
        },
        output: None,
        errored: None,
        repeat,
        weight: 1.0,
        span: Span::default(),
        name_span: Span::default(),
        scope: None,
        critical: false,
    }
}

fn config(order: OrderMode, expectations: Vec<Expectation>) -> MatcherConfig {
    MatcherConfig {
        version: CONFIG_VERSION,
        name: "bench".into(),
        span: Span::default(),
        transcripts: Vec::new(),
        format: None,
        order,
        before: Vec::new(),
        expectations,
        forbidden: vec![Forbidden {
            tool: "delete_account".into(),
            namespace: None,
            any_tool: false,
            args: None,
            errored: None,
            scope: None,
            span: Span::default(),
        }],
        extra_calls: ExtraCalls::Allow,
        names: NameRules {
            ignore_case: true,
            unify_separators: true,
            strip_prefixes: vec!["functions.".into()],
        },
        scoring: Scoring::default(),
        profile: None,
        deny_rules: Vec::new(),
        limits: Vec::new(),
        answer: None,
        groups: Vec::new(),
        pass_rate: None,
    }
}

fn call(name: String, args: serde_json::Value, output: serde_json::Value) -> ToolCall {
    ToolCall {
        name,
        args,
        id: None,
        output: Some(output),
        is_error: false,
        span: Span::default(),
        turn: None,
        agent: None,
        namespace: None,
        args_text: None,
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn spread() -> (Vec<Expectation>, Vec<ToolCall>) {
    let pattern = Pattern::new("^ORD-[0-9]+$").unwrap();
    let exps = (0..100)
        .map(|j| {
            let checks = vec![
                check("k", Check::equals(json!(j % 7))),
                check(
                    "query",
                    Check::Fuzzy {
                        value: format!("find the order number {j}"),
                        threshold: 0.8,
                    },
                ),
                check(
                    "id",
                    Check::Regex {
                        pattern: pattern.clone(),
                    },
                ),
                check(
                    "amount",
                    Check::Range {
                        min: Some(0.0),
                        max: Some(1000.0),
                        min_exclusive: false,
                        max_exclusive: false,
                    },
                ),
            ];
            let mut checks = checks;
            // The remaining kinds, one expectation in five each.
            checks.push(check(
                "amount",
                match j % 5 {
                    0 => Check::Type {
                        types: vec![JsonType::Integer],
                    },
                    1 => Check::OneOf {
                        values: (0..1200).step_by(7).map(|v| json!(v)).collect(),
                    },
                    2 => Check::Not {
                        check: Box::new(Check::Absent),
                    },
                    3 => Check::AllOf {
                        checks: vec![Check::Present, Check::Any],
                    },
                    _ => Check::subset(json!(500)),
                },
            ));
            checks.push(check(
                "query",
                Check::Contains {
                    value: json!("order"),
                },
            ));
            // Every tenth expectation reads the `k` of the one before it.
            if j % 10 == 9 {
                checks.push(check(
                    "k",
                    Check::Ref {
                        expectation: j - 1,
                        label: format!("tool_{}", (j - 1) % 25),
                        part: Part::Args,
                        path: vec![PathSeg::Key("k".into())],
                        op: RefOp::Eq,
                    },
                ));
            }
            let repeat = if j % 10 == 0 {
                Repeat { min: 1, max: None }
            } else {
                Repeat::ONCE
            };
            let mut e = expectation(format!("tool_{}", j % 25), checks, repeat);
            // Outputs are strings holding JSON, as tools return them.
            e.output = Some(ValueMatcher {
                checks: vec![
                    check("status", Check::equals(json!("ok"))),
                    check(
                        "n",
                        Check::Range {
                            min: Some(0.0),
                            max: None,
                            min_exclusive: false,
                            max_exclusive: false,
                        },
                    ),
                ],
                allow_extra_keys: true,
            });
            e
        })
        .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let calls = (0..10_000)
        .map(|i| {
            let t = rng.next(50);
            let j = rng.next(100);
            call(
                format!("functions.Tool-{t}"),
                json!({
                    "k": rng.next(7),
                    "query": format!("find the order number {j}"),
                    "id": format!("ORD-{i}"),
                    "amount": rng.next(1200),
                }),
                json!(json!({"status": "ok", "n": i}).to_string()),
            )
        })
        .collect();
    (exps, calls)
}

fn dense() -> (Vec<Expectation>, Vec<ToolCall>) {
    let exps = (0..100)
        .map(|j| {
            expectation(
                "search".into(),
                vec![check("x", Check::equals(json!(j)))],
                Repeat::ONCE,
            )
        })
        .collect();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let calls = (0..10_000)
        .map(|_| call("search".into(), json!({"x": rng.next(150)}), json!(null)))
        .collect();
    (exps, calls)
}

fn time(cfg: &MatcherConfig, calls: &[ToolCall]) -> (Duration, f64) {
    let mut times = Vec::new();
    let mut score = 0.0;
    for _ in 0..5 {
        let t = Instant::now();
        let v = run(cfg, calls);
        times.push(t.elapsed());
        score = v.score;
    }
    times.sort();
    (times[2], score)
}

fn plain(tool: &str, repeat: Repeat) -> Expectation {
    let mut e = expectation(tool.into(), Vec::new(), repeat);
    e.label = None;
    e
}

fn scrambled(len: usize, seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    (0..len)
        .map(|_| char::from(b'a' + rng.next(26) as u8))
        .collect()
}

/// The cost cases: (name, config, calls).
fn cost_cases() -> Vec<(&'static str, MatcherConfig, Vec<ToolCall>)> {
    let mut out = Vec::new();
    let mut cfg = config(
        OrderMode::InOrder,
        vec![plain(
            "f",
            Repeat {
                min: 3_000,
                max: Some(3_000),
            },
        )],
    );
    cfg.forbidden.clear();
    let calls = (0..3_000)
        .map(|i| call("f".into(), json!({"i": i}), json!(null)))
        .collect();
    out.push(("exactly-3000", cfg, calls));

    let cfg = config(
        OrderMode::AnyOrder,
        (0..8_000)
            .map(|_| plain("f", Repeat { min: 1, max: None }))
            .collect(),
    );
    let calls = (0..8_000)
        .map(|i| call("f".into(), json!({"i": i}), json!(null)))
        .collect();
    out.push(("any-8000", cfg, calls));

    let mut cfg = config(
        OrderMode::AnyOrder,
        (0..3_000)
            .map(|j| {
                let mut e = plain("f", Repeat::ONCE);
                e.label = Some(format!("e{j}"));
                e
            })
            .collect(),
    );
    cfg.before = (0..2_999)
        .map(|j| BeforeRule {
            first: j + 1,
            then: j,
            span: Span::default(),
        })
        .collect();
    let calls = (0..3_000)
        .map(|i| call("f".into(), json!({"i": i}), json!(null)))
        .collect();
    out.push(("before-3000", cfg, calls));

    let base: Vec<char> = scrambled(2_000, 1).chars().collect();
    let cfg = config(
        OrderMode::AnyOrder,
        (0..100)
            .map(|j| {
                let mut want = base.clone();
                want.rotate_left(j * 7);
                expectation(
                    "f".into(),
                    vec![check(
                        "q",
                        Check::Fuzzy {
                            value: want.into_iter().collect(),
                            threshold: 0.99,
                        },
                    )],
                    Repeat::ONCE,
                )
            })
            .collect(),
    );
    let calls = (0..100)
        .map(|i| {
            let mut got = base.clone();
            got.rotate_right(i * 11 + 3);
            call(
                "f".into(),
                json!({"q": got.into_iter().collect::<String>()}),
                json!(null),
            )
        })
        .collect();
    out.push(("fuzzy-100x100", cfg, calls));

    let keys: Vec<PathCheck> = (0..50_000)
        .map(|k| check(&format!("k{k}"), Check::equals(json!(k))))
        .collect();
    let mut e = expectation("f".into(), keys, Repeat::ONCE);
    e.args_mode = ArgsMode::Exact;
    e.args.allow_extra_keys = false;
    let cfg = config(OrderMode::InOrder, vec![e]);
    let args: serde_json::Map<String, serde_json::Value> = (0..50_000)
        .rev()
        .map(|k| (format!("k{k}"), json!(k)))
        .collect();
    let calls = vec![call(
        "f".into(),
        serde_json::Value::Object(args),
        json!(null),
    )];
    out.push(("keys-50000", cfg, calls));

    // A 6-member `parallel` block among 30 expectations of 6 tools over 2 777 calls of those
    // tools (720 orders, 16 662 pairs each): the arrangements' one work budget per run.
    let tool = |j: usize| format!("t{}", j % 6);
    let mut cfg = config(
        OrderMode::InOrder,
        (0..30)
            .map(|j| {
                plain(
                    &tool(j),
                    Repeat {
                        min: 1,
                        max: Some(1),
                    },
                )
            })
            .collect(),
    );
    cfg.forbidden.clear();
    cfg.groups = vec![Group {
        kind: GroupKind::Parallel {
            members: (12..18).collect(),
        },
        critical: false,
        span: Span::default(),
    }];
    let calls = (0..2_777)
        .map(|i| call(tool(i), json!({}), json!(null)))
        .collect();
    out.push(("parallel-720", cfg, calls));
    out
}

fn main() {
    for (name, cfg, calls) in cost_cases() {
        let (t, score) = time(&cfg, &calls);
        println!(
            "engine/cost {name:<14} {} calls × {} expectations: {:>8.2} ms (score {score:.3})",
            calls.len(),
            cfg.expectations.len(),
            t.as_secs_f64() * 1e3
        );
    }
    for (name, (exps, calls)) in [("spread", spread()), ("dense", dense())] {
        for order in [OrderMode::Strict, OrderMode::InOrder, OrderMode::AnyOrder] {
            let mut cfg = config(order, exps.clone());
            if name == "spread" {
                cfg.before.push(BeforeRule {
                    first: 3,
                    then: 4,
                    span: Span::default(),
                });
            }
            let (t, score) = time(&cfg, &calls);
            println!(
                "engine/{name:<6} {:<9} {} calls × {} expectations: {:>8.2} ms (score {score:.3})",
                format!("{order:?}"),
                calls.len(),
                exps.len(),
                t.as_secs_f64() * 1e3
            );
        }
    }
}
