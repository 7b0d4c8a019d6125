//! `schema-violation` and `invalid-schema`: each call's arguments against the JSON Schema the
//! transcript declares for its tool, with the `jsonschema` crate.
//!
//! The validator never reaches outside the schema: it is built `offline()` (a `$ref` to
//! anything but the schema itself is an `invalid-schema` finding, never fetched or read), and
//! with the `jsonschema` crate's default features off (no HTTP or file retriever is compiled
//! in). Patterns use the `regex` engine (linear time, no backtracking) with a size limit.
//! Bounds: a schema of more than [`MAX_SCHEMA_BYTES`] bytes (as compact JSON) or nested deeper
//! than [`MAX_SCHEMA_DEPTH`] is not compiled (a `rule-limit` note, once per tool); at most
//! [`MAX_ERRORS_PER_CALL`] violations are reported per call.

use std::collections::HashMap;

use serde_json::Value;

use super::{clip, Capped, RuleFinding, RuleSet, View};
use crate::code::Code;
use crate::source::Span;

/// A declared schema larger than this (compact JSON, in bytes) is not checked.
pub const MAX_SCHEMA_BYTES: usize = 256 << 10;

/// A declared schema nested deeper than this is not checked.
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// At most this many violations of one call are reported.
pub const MAX_ERRORS_PER_CALL: usize = 20;

/// The most a `pattern` of a schema may compile to (bytes), for the regex and its lazy DFA.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// A tool's schema, compiled on its first call.
enum Compiled {
    Valid(Box<jsonschema::Validator>),
    /// Not checked (the finding about it was made at the first call).
    Skipped,
}

/// Check every call of a declared tool that has a schema.
pub(super) fn check(set: &RuleSet, t: &View<'_>, out: &mut Vec<RuleFinding>) {
    let schemas: HashMap<&str, &Value> = t
        .tools
        .iter()
        .filter_map(|d| d.parameters.as_ref().map(|p| (d.name.as_str(), p)))
        .collect();
    if schemas.is_empty() {
        return;
    }
    let mut compiled: HashMap<&str, Compiled> = HashMap::new();
    let mut violations = Capped::new(Code::SchemaViolation);
    let mut invalid = Capped::new(Code::InvalidSchema);
    let mut limits = Vec::new();
    for i in 0..t.calls.count() {
        if violations.full() && violations.dropped > 10 * super::MAX_FINDINGS_PER_RULE {
            // Counting further would only make the note's number larger.
            break;
        }
        let name = t.calls.name(i);
        let Some(&schema) = schemas.get(name) else {
            continue;
        };
        let span = t.span(i);
        let validator = compiled
            .entry(name)
            .or_insert_with(|| match compile(name, schema) {
                Ok(v) => Compiled::Valid(Box::new(v)),
                Err(Problem::Limit(message)) => {
                    limits.push(RuleFinding {
                        code: Code::RuleLimit,
                        message,
                        help: "the arguments of this tool are not checked against its schema"
                            .into(),
                        span,
                    });
                    Compiled::Skipped
                }
                Err(Problem::Invalid(message)) => {
                    if set.is_on(Code::InvalidSchema) {
                        invalid.push(
                            message,
                            "fix the tool's `parameters` / `input_schema` where the agent \
                             defines it; its calls are not checked against it"
                                .into(),
                            span,
                        );
                    }
                    Compiled::Skipped
                }
            });
        let Compiled::Valid(validator) = validator else {
            continue;
        };
        if !set.is_on(Code::SchemaViolation) {
            continue;
        }
        let args = t.calls.args(i);
        // Not kept (`null`), or not JSON at all (`invalid-arguments` says so): nothing to check.
        if args.is_null() || args.is_string() {
            continue;
        }
        for e in validator.iter_errors(&args).take(MAX_ERRORS_PER_CALL) {
            let path = e.instance_path().as_str().to_owned();
            let keyword = e.kind().keyword();
            let at = if path.is_empty() {
                "arguments".to_owned()
            } else {
                format!("argument `{}`", clip(&path[1..], 120))
            };
            violations.push(
                format!(
                    "`{name}` {at}: {} (schema keyword `{keyword}`)",
                    clip(&e.to_string(), 240)
                ),
                format!(
                    "the transcript declares a JSON Schema for `{name}` and this call breaks it; \
                     tighten the tool description or use strict tool calling, or silence it: \
                     `--ignore schema-violation`"
                ),
                t.text
                    .and_then(|text| locate_argument(text, span, &path))
                    .unwrap_or(span),
            );
        }
    }
    violations.finish(out);
    invalid.finish(out);
    out.extend(limits);
}

enum Problem {
    Limit(String),
    Invalid(String),
}

/// The validator of `schema`, or why there is none.
fn compile(name: &str, schema: &Value) -> Result<jsonschema::Validator, Problem> {
    if depth(schema) > MAX_SCHEMA_DEPTH {
        return Err(Problem::Limit(format!(
            "the schema of `{name}` is nested deeper than {MAX_SCHEMA_DEPTH} levels; it is not checked"
        )));
    }
    let size = serde_json::to_vec(schema).map_or(usize::MAX, |v| v.len());
    if size > MAX_SCHEMA_BYTES {
        return Err(Problem::Limit(format!(
            "the schema of `{name}` is {size} bytes, more than the {MAX_SCHEMA_BYTES} checked"
        )));
    }
    let schema = openapi_types(schema);
    jsonschema::options()
        .offline()
        .should_validate_formats(true)
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(PATTERN_SIZE_LIMIT)
                .dfa_size_limit(PATTERN_SIZE_LIMIT),
        )
        .build(&schema)
        .map_err(|e| {
            Problem::Invalid(format!(
                "the declared schema of `{name}` is not a JSON Schema toolspec can check against: {}",
                clip(&e.to_string(), 240)
            ))
        })
}

/// How deeply `v` nests (a scalar is 0), counted without recursion.
fn depth(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    deepest
}

/// The schema with OpenAPI's upper-case type names (`"STRING"`, as Gemini's function
/// declarations write them) in JSON Schema's lower case; any other schema unchanged.
fn openapi_types(schema: &Value) -> Value {
    const TYPES: [&str; 7] = [
        "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
    ];
    let mut out = schema.clone();
    let mut stack = vec![&mut out];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                for (k, x) in o.iter_mut() {
                    if k == "type" {
                        if let Some(s) = x.as_str().filter(|s| TYPES.contains(s)) {
                            *x = Value::String(s.to_ascii_lowercase());
                            continue;
                        }
                    }
                    stack.push(x);
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
    out
}

/// Where the argument at JSON pointer `path` is written inside the call at `call`: the last
/// property name of the path, found key by key from the start of the call (written as JSON, or
/// escaped inside a JSON string as OpenAI's `arguments` are). `None` when a key is not found
/// (the call is then the place).
fn locate_argument(text: &[u8], call: Span, path: &str) -> Option<Span> {
    let within = text.get(call.start..call.end)?;
    let mut from = 0;
    let mut found = None;
    for seg in path.split('/').skip(1) {
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            continue; // an array index: the next key is searched from here
        }
        let key = seg.replace("~1", "/").replace("~0", "~");
        let plain = serde_json::to_string(&key).ok()?;
        let escaped = serde_json::to_string(&plain).ok()?;
        let escaped = &escaped[1..escaped.len() - 1];
        let (at, len) = [plain.as_str(), escaped]
            .iter()
            .filter_map(|p| find(&within[from..], p.as_bytes()).map(|at| (at + from, p.len())))
            .min()?;
        from = at + len;
        found = Some(Span::new(call.start + at, call.start + at + len));
    }
    found
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{ToolCall, ToolDecl};
    use serde_json::json;

    fn view_check(tools: &[ToolDecl], calls: &[ToolCall], text: &[u8]) -> Vec<RuleFinding> {
        let spans: Vec<Span> = calls.iter().map(|c| c.span).collect();
        let calls = calls.to_vec();
        let t = View {
            calls: &calls,
            spans: &spans,
            tools,
            answered: &[],
            text: Some(text),
        };
        let mut out = Vec::new();
        check(&RuleSet::default(), &t, &mut out);
        out
    }

    fn decl(name: &str, parameters: Value) -> ToolDecl {
        ToolDecl {
            name: name.into(),
            description: None,
            parameters: Some(parameters),
        }
    }

    fn call(name: &str, args: Value, span: Span) -> ToolCall {
        ToolCall {
            name: name.into(),
            args,
            id: None,
            output: None,
            is_error: false,
            span,
            turn: None,
            agent: None,
        }
    }

    #[test]
    fn one_finding_per_violated_keyword_at_the_argument() {
        let text = br#"{"name": "get_weather", "arguments": "{\"city\": 75, \"unit\": \"K\"}"}"#;
        let tools = [decl(
            "get_weather",
            json!({"type": "object", "required": ["city", "day"], "properties": {
                "city": {"type": "string"}, "unit": {"enum": ["C", "F"]}, "day": {"type": "string"}
            }}),
        )];
        let calls = [call(
            "get_weather",
            json!({"city": 75, "unit": "K"}),
            Span::new(0, text.len()),
        )];
        let found = view_check(&tools, &calls, text);
        let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(found.len(), 3, "{messages:#?}");
        let city = found
            .iter()
            .find(|f| f.message.contains("argument `city`"))
            .unwrap();
        assert!(
            city.message.contains("schema keyword `type`"),
            "{messages:?}"
        );
        assert_eq!(
            &text[city.span.start..city.span.end],
            br#"\"city\""#.as_slice()
        );
        assert!(found.iter().any(|f| f.message.contains("`required`")));
        assert!(found.iter().any(|f| f.message.contains("`enum`")));
    }

    #[test]
    fn gemini_types_remote_refs_and_deep_schemas() {
        let tools = [
            decl(
                "g",
                json!({"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}}),
            ),
            decl("r", json!({"$ref": "https://example.com/s.json"})),
            decl("d", (0..80).fold(json!({}), |s, _| json!({"not": s}))),
        ];
        let calls = [
            call("g", json!({"n": 1}), Span::new(0, 1)),
            call("g", json!({"n": "x"}), Span::new(1, 2)),
            call("r", json!({}), Span::new(2, 3)),
            call("d", json!({}), Span::new(3, 4)),
        ];
        let found = view_check(&tools, &calls, b"....");
        let codes: Vec<(Code, Span)> = found.iter().map(|f| (f.code, f.span)).collect();
        assert_eq!(
            codes,
            [
                (Code::SchemaViolation, Span::new(1, 2)),
                (Code::InvalidSchema, Span::new(2, 3)),
                (Code::RuleLimit, Span::new(3, 4)),
            ]
        );
    }
}
