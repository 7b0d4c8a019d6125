//! How the language's defaults lower into explicit config values.

use crate::lang_common;

use insta::assert_json_snapshot;
use lang_common::compile_with;
use serde_json::{json, Value};
use toolspec::config::{ArgsMode, Check, Expectation, MatcherConfig, OrderMode, Repeat};

fn spec(body: &str) -> MatcherConfig {
    let text = format!("spec s {{\n{body}\n}}\n");
    let r = compile_with(&text, &[]);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    r.file.unwrap().specs.remove(0)
}

fn first(body: &str) -> Expectation {
    spec(body).expectations.remove(0)
}

fn checks(e: &Expectation) -> Vec<Value> {
    e.args
        .checks
        .iter()
        .map(|c| serde_json::to_value(&c.check).unwrap())
        .collect()
}

#[test]
fn defaults_are_explicit() {
    let s = spec("  call lookup(order_id: \"A\")");
    assert_eq!(s.order, OrderMode::InOrder);
    assert_eq!(s.scoring, toolspec::config::Scoring::default());
    assert_eq!(s.expectations[0].args_mode, ArgsMode::Subset);
    assert!(s.expectations[0].args.allow_extra_keys);
    assert_eq!(s.expectations[0].repeat, Repeat::ONCE);
    assert_eq!(s.expectations[0].weight, 1.0);
    assert_json_snapshot!("default_spec", s);
}

#[test]
fn literals_follow_the_args_mode() {
    let lit = "(q: \"python tutorial\", n: 3, o: {\"a\": 1})";
    let exact = first(&format!("  args exact\n  call search{lit}"));
    assert_eq!(
        checks(&exact),
        vec![
            json!({"kind": "equals", "value": "python tutorial"}),
            json!({"kind": "equals", "value": 3}),
            json!({"kind": "equals", "value": {"a": 1}}),
        ]
    );
    assert!(!exact.args.allow_extra_keys);

    let subset = first(&format!("  call search{lit}"));
    assert_eq!(
        checks(&subset)[2],
        json!({"kind": "subset", "value": {"a": 1}})
    );
    assert!(subset.args.allow_extra_keys);

    let fuzzy = first(&format!("  args fuzzy >= 0.6\n  call search{lit}"));
    assert_eq!(
        checks(&fuzzy)[0],
        json!({"kind": "fuzzy", "value": "python tutorial", "threshold": 0.6})
    );
    assert_eq!(checks(&fuzzy)[1], json!({"kind": "subset", "value": 3}));
    assert_eq!(
        first("  args fuzzy\n  call s(q: \"x\")").args_mode,
        ArgsMode::Fuzzy { threshold: 0.8 }
    );

    // `ignore`: what is written still applies; unlisted arguments are never checked.
    let ignore = first(&format!("  args ignore\n  call search{lit}"));
    assert_eq!(
        checks(&ignore)[0],
        json!({"kind": "equals", "value": "python tutorial"})
    );
    assert!(ignore.args.allow_extra_keys);
}

#[test]
fn spread_and_missing_parentheses() {
    let spread = first("  args exact\n  call f(a: 1, ...)");
    assert_eq!(spread.args_mode, ArgsMode::Exact);
    assert!(spread.args.allow_extra_keys);
    let bare = first("  args exact\n  call f");
    assert_eq!(bare.args_mode, ArgsMode::Ignore);
    assert!(bare.args.checks.is_empty() && bare.args.allow_extra_keys);
    let empty = first("  args exact\n  call f()");
    assert!(empty.args.checks.is_empty() && !empty.args.allow_extra_keys);
}

#[test]
fn counts() {
    let r = |s: &str| first(&format!("  {s} call f")).repeat;
    assert_eq!(
        r("optional"),
        Repeat {
            min: 0,
            max: Some(1)
        }
    );
    assert_eq!(r("at_least 2"), Repeat { min: 2, max: None });
    assert_eq!(
        r("at_most 3"),
        Repeat {
            min: 0,
            max: Some(3)
        }
    );
    assert_eq!(
        r("exactly 4"),
        Repeat {
            min: 4,
            max: Some(4)
        }
    );
    assert_eq!(
        r("between 1 and 5"),
        Repeat {
            min: 1,
            max: Some(5)
        }
    );
}

#[test]
fn ranges_and_comparisons() {
    let e = first("  call f(a: 1..5, b: 1..=5, c: 2.., d: ..=9, e: > 1, f: >= 1, g: < 1, h: <= 1)");
    let c = checks(&e);
    assert_eq!(
        c[0],
        json!({"kind": "range", "min": 1.0, "max": 5.0, "min_exclusive": false, "max_exclusive": true})
    );
    assert_eq!(c[1]["max_exclusive"], json!(false));
    assert_eq!(
        c[2],
        json!({"kind": "range", "min": 2.0, "max": null, "min_exclusive": false, "max_exclusive": false})
    );
    assert_eq!(c[3]["max"], json!(9.0));
    assert_eq!(c[4]["min_exclusive"], json!(true));
    assert_eq!(c[5]["min_exclusive"], json!(false));
    assert_eq!(c[6]["max_exclusive"], json!(true));
    assert_eq!(c[7]["max_exclusive"], json!(false));
}

#[test]
fn references_paths_and_combinations() {
    let s = spec(
        "  l: call lookup\n  call refund(id: l.output.items[0][\"odd key\"], \"a b\".c[2]: not absent and type string|null)",
    );
    let e = &s.expectations[1];
    assert_eq!(
        checks(e)[0],
        json!({"kind": "ref", "expectation": 0, "label": "l", "part": "output", "path": ["items", 0, "odd key"]})
    );
    assert_eq!(
        serde_json::to_value(&e.args.checks[1].path).unwrap(),
        json!(["a b", "c", 2])
    );
    assert_eq!(
        checks(e)[1],
        json!({"kind": "not", "check": {"kind": "absent"}})
    );
    assert_eq!(
        checks(e)[2],
        json!({"kind": "type", "types": ["string", "null"]})
    );
}

#[test]
fn regex_flags_and_escaped_slashes() {
    let e = first("  call f(u: /^https?:\\/\\/x/i)");
    match &e.args.checks[0].check {
        Check::Regex { pattern } => {
            assert_eq!(pattern.as_str(), "(?i)^https?://x");
            assert!(pattern.is_match("HTTPS://X"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn tool_declarations_fill_unwritten_arguments() {
    let r = compile_with(
        "include \"t.toolspec\"\nspec s {\n  call refund(amount: 5)\n  call refund\n}\n",
        &[(
            "t.toolspec",
            "tool refund(amount: type integer, reason: type string)\n",
        )],
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let s = &r.file.unwrap().specs[0];
    assert_eq!(
        checks(&s.expectations[0]),
        vec![
            json!({"kind": "subset", "value": 5}),
            json!({"kind": "type", "types": ["string"]})
        ]
    );
    assert!(
        s.expectations[1].args.checks.is_empty(),
        "a bare call stays name-only"
    );
}

#[test]
fn strings_decode_json_escapes() {
    let e = first("  call f(t: \"a\\\"b\\\\c\\/d\\n\\u00e9\\ud83d\\ude00\\ud800x\")");
    assert_eq!(checks(&e)[0]["value"], json!("a\"b\\c/d\né😀\u{FFFD}x"));
}

#[test]
fn settings_lower() {
    let s = spec(
        "  order any\n  extra forbid\n  binary\n  threshold 0.5\n  names ignore_case, strip \"functions.\"\n  score { exact 2 name_only 0 extra 0.1 missing 0.3 }\n  profile promptfoo { threshold: 0.9 }\n  a: call x\n  call y\n  never z(k: 1)\n  y before a",
    );
    assert_json_snapshot!("settings_spec", s);
}

/// The compiler judges "the same tool" exactly as the engine does: a spec that expects a tool
/// under one spelling and forbids it under another is an error exactly when the engine would treat
/// the two as one tool (and so could never match the expectation).
#[test]
fn the_compiler_and_the_engine_agree_on_tool_names() {
    use toolspec::code::Code;
    use toolspec::engine::run;
    use toolspec::source::Span;
    use toolspec::transcript::model::ToolCall;

    for (rules, expected, forbidden, same) in [
        // `*` followed by text takes the shortest run, separators included.
        (
            "strip \"mcp__*__\"",
            "search",
            "mcp__claude_ai_gmail__search",
            true,
        ),
        // `/` is a separator.
        (
            "unify_separators",
            "github_create_issue",
            "github/create-issue",
            true,
        ),
        // Only the first matching prefix is stripped.
        (
            "strip \"a.\", strip \"b.\"",
            "b.lookup",
            "a.b.lookup",
            false,
        ),
        ("strip \"a.\", strip \"b.\"", "lookup", "a.lookup", true),
    ] {
        let text =
            format!("spec s {{\n  names {rules}\n  call {expected}\n  never {forbidden}\n}}\n");
        let r = compile_with(&text, &[]);
        let flagged = r
            .diagnostics
            .iter()
            .any(|d| d.code == Code::ExpectedAndForbidden);
        assert_eq!(flagged, same, "{text}");
        // The engine: a call of the forbidden spelling meets the expectation iff they are one tool.
        let without_never = text.replace(&format!("  never {forbidden}\n"), "");
        let config = compile_with(&without_never, &[])
            .file
            .unwrap()
            .specs
            .remove(0);
        let call = ToolCall {
            name: forbidden.into(),
            args: json!({}),
            id: None,
            output: None,
            is_error: false,
            span: Span::default(),
            turn: None,
            agent: None,
            namespace: None,
            args_text: None,
        };
        assert_eq!(
            run(&config, &[call]).passed,
            same,
            "{rules}: {forbidden} vs {expected}"
        );
    }
}
