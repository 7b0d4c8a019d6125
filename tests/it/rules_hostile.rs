//! The built-in rules on hostile transcripts: schemas that point elsewhere, patterns written to
//! backtrack, floods of findings. Each stays within its stated bound (docs/robustness.md).

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolspec::code::Code;
use toolspec::rules::{self, RuleSet, View, MAX_FINDINGS_PER_RULE};
use toolspec::source::Span;
use toolspec::transcript::{Reader, ToolCall, ToolDecl};

fn call(name: &str, args: Value, at: usize) -> ToolCall {
    ToolCall {
        name: name.into(),
        args,
        id: None,
        output: None,
        is_error: false,
        span: Span::new(at, at + 1),
        turn: None,
        agent: None,
        namespace: None,
        args_text: None,
    }
}

fn decl(name: &str, parameters: Value) -> ToolDecl {
    ToolDecl {
        name: name.into(),
        description: None,
        parameters: Some(parameters),
    }
}

fn run(tools: &[ToolDecl], calls: Vec<ToolCall>) -> Vec<rules::RuleFinding> {
    let spans: Vec<Span> = calls.iter().map(|c| c.span).collect();
    rules::run(
        &RuleSet::default(),
        &View {
            calls: &calls,
            spans: &spans,
            tools,
            answered: &[],
            text: None,
        },
    )
}

/// A `$ref` to a file or a URL is never opened or fetched: the schema is `invalid-schema`.
#[test]
fn references_out_of_the_schema_are_never_followed() {
    for target in [
        "file:///etc/passwd",
        "https://example.com/schema.json",
        "../secrets.json",
    ] {
        let tools = [decl("t", json!({"$ref": target}))];
        let found = run(&tools, vec![call("t", json!({"a": 1}), 0)]);
        let codes: Vec<Code> = found.iter().map(|f| f.code).collect();
        assert_eq!(codes, [Code::InvalidSchema], "{target}: {found:?}");
    }
}

/// A pattern that backtracks exponentially elsewhere runs in linear time here.
#[test]
fn a_backtracking_pattern_is_linear() {
    let tools = [decl(
        "t",
        json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}),
    )];
    let long = format!("{}b", "a".repeat(100_000));
    let start = Instant::now();
    let found = run(&tools, vec![call("t", json!({ "s": long }), 0)]);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code, Code::SchemaViolation);
    // The value is not quoted whole.
    assert!(found[0].message.len() < 1_000, "{}", found[0].message.len());
}

/// 10 000 violating calls: 100 findings and one note that counts the rest.
#[test]
fn a_flood_of_violations_is_capped() {
    let tools = [decl("t", json!({"type": "object", "required": ["x"]}))];
    let calls = (0..10_000)
        .map(|i| call("t", json!({ "i": i }), i))
        .collect();
    let found = run(&tools, calls);
    assert_eq!(found.len(), MAX_FINDINGS_PER_RULE + 1);
    let note = found.iter().find(|f| f.code == Code::RuleLimit).unwrap();
    assert!(
        note.message.contains("more `schema-violation` findings"),
        "{}",
        note.message
    );
}

/// A schema past the size bound is not compiled, and says so once.
#[test]
fn a_huge_schema_is_not_compiled() {
    let props: serde_json::Map<String, Value> = (0..20_000)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    let tools = [decl("t", json!({"type": "object", "properties": props}))];
    let found = run(
        &tools,
        vec![
            call("t", json!({"p1": 1}), 0),
            call("t", json!({"p1": 2}), 1),
        ],
    );
    let codes: Vec<Code> = found.iter().map(|f| f.code).collect();
    assert_eq!(codes, [Code::RuleLimit]);
}

/// Read from a real format: the declared tools and which calls got results reach the rules.
#[test]
fn a_chat_request_gives_the_rules_its_tools_and_results() {
    let text = br#"{"model": "m", "tools": [{"type": "function", "function": {"name": "f",
      "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}}],
      "messages": [
        {"role": "assistant", "tool_calls": [
          {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"n\": \"x\"}"}},
          {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "b", "content": "ok"}]}"#;
    let t = Reader::new().read("t.json", text).unwrap().remove(0);
    assert_eq!(t.answered, [false, true]);
    let spans: Vec<Span> = t.calls.iter().map(|c| c.span).collect();
    let found = rules::run(
        &RuleSet::default(),
        &View {
            calls: &t.calls,
            spans: &spans,
            tools: &t.tools,
            answered: &t.answered,
            text: Some(text),
        },
    );
    let codes: Vec<Code> = found.iter().map(|f| f.code).collect();
    // By place: the first call, then the argument inside it, then the second call.
    assert_eq!(
        codes,
        [
            Code::MissingResult,
            Code::SchemaViolation,
            Code::UndeclaredTool
        ]
    );
    // The violation is placed at the argument inside the arguments string.
    let s = found[1].span;
    assert_eq!(&text[s.start..s.end], br#"\"n\""#.as_slice());
}
