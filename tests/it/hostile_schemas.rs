//! Schemas a transcript declares, and spec regexes, built to exhaust memory: each reproduction
//! runs the built binary under `ulimit -v` (`hostile_support::run_limited`) next to a good
//! transcript, and the run must end by itself with the good result and the finding that names
//! the bound (`docs/robustness.md`, *Built-in rules*). Before the bounds, the `$ref` DAG took
//! 1.5 GB at 20 levels and aborted the run at 24, the patterns 3 to 7.7 GB, the regex copies
//! 2.9 GB.

use serde_json::{json, Value};

use crate::hostile_support::{Project, LIMIT_MIB};

/// An OpenAI Chat request declaring `tools` (name, parameters) with one call to each of
/// `calls` (name, arguments).
fn chat(tools: &[(&str, Value)], calls: &[(&str, Value)]) -> String {
    let tools: Vec<Value> = tools
        .iter()
        .map(|(n, p)| json!({"type": "function", "function": {"name": n, "parameters": p}}))
        .collect();
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (n, a))| {
            json!({"id": format!("c{i}"), "type": "function",
                   "function": {"name": n, "arguments": a.to_string()}})
        })
        .collect();
    json!({"model": "m", "tools": tools, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": null, "tool_calls": calls}
    ]})
    .to_string()
}

/// The findings of the result for the transcript whose path ends with `name`.
fn findings(run: &crate::hostile_support::Run, name: &str) -> Vec<Value> {
    let result = run
        .result_for(name)
        .unwrap_or_else(|| panic!("{name} was not checked:\n{}\n{}", run.stdout, run.stderr));
    result["findings"].as_array().cloned().unwrap_or_default()
}

fn with_code<'a>(found: &'a [Value], code: &str) -> Vec<&'a str> {
    found
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| f["message"].as_str().unwrap_or(""))
        .collect()
}

/// A `$ref` DAG of `levels` levels for `x`: each level's two branches, under `keyword(level)`,
/// both refer to the next level.
fn dag(levels: usize, keyword: impl Fn(usize) -> &'static str) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
        let mut level = serde_json::Map::new();
        level.insert(keyword(i).into(), json!([next, next]));
        defs.insert(format!("d{i}"), Value::Object(level));
    }
    defs.insert(format!("d{levels}"), json!({"type": "string"}));
    json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d0"}}})
}

/// A 2 KB transcript whose schema is a `$ref` DAG of 24 levels under `anyOf`, under `allOf`,
/// under `oneOf` and under the three in turn (each level's two branches refer to the next;
/// 20 levels took 1.5 GB, 24 aborted the run): each call is not checked, with a note at it
/// that names the bound, and the run goes on: the other tool's call is checked, and so is the
/// good transcript.
#[test]
fn a_ref_dag_schema_is_refused_at_its_bound() {
    const KEYWORDS: [&str; 3] = ["anyOf", "allOf", "oneOf"];
    let levels = 24;
    let mut tools: Vec<(&str, Value)> = KEYWORDS
        .iter()
        .map(|&k| (k, dag(levels, move |_| k)))
        .collect();
    tools.push(("mixed", dag(levels, |i| KEYWORDS[i % 3])));
    tools.push(("n", json!({"type": "object", "required": ["k"]})));
    let calls: Vec<(&str, Value)> = tools
        .iter()
        .map(|(name, _)| {
            (
                *name,
                if *name == "n" {
                    json!({})
                } else {
                    json!({"x": 1})
                },
            )
        })
        .collect();
    let p = Project::new();
    for (name, schema) in &tools[..4] {
        // The issue's size: one DAG, one call, 2 KB.
        let one = chat(&[(name, schema.clone())], &[(name, json!({"x": 1}))]);
        assert!(one.len() < 2_600, "{}", one.len());
    }
    p.write("runs/dag.json", chat(&tools, &calls));
    let run = p.check_limited(LIMIT_MIB, &[]);
    run.assert_not_killed();
    run.assert_good_checked();
    let found = findings(&run, "dag.json");
    let notes: Vec<&Value> = found.iter().filter(|f| f["code"] == "rule-limit").collect();
    assert_eq!(notes.len(), 4, "{found:#?}");
    for (note, (name, _)) in notes.iter().zip(&tools) {
        let message = note["message"].as_str().unwrap();
        assert!(
            message.contains(&format!(
                "checking this call of `{name}` against its schema would take more than 1000000 steps"
            )),
            "{message}"
        );
        assert!(note["location"]["line"].is_number(), "located: {note:#}");
    }
    // The other tool's call is still checked.
    assert!(with_code(&found, "schema-violation")
        .iter()
        .any(|m| m.contains("\"k\" is a required property")));
}

/// Thousands of `\p{L}{20}` patterns, each under the size limit of one (3 to 7.7 GB, then an
/// abort), in one schema and spread over 300 tools: the first fit in the transcript's pattern
/// budget, one note counts the others, and the rest of each schema is checked.
#[test]
fn thousands_of_unicode_patterns_stop_at_the_transcript_budget() {
    let props: serde_json::Map<String, Value> = (0..3000)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "pattern": format!(r"\p{{L}}{{20}}{i}")}),
            )
        })
        .collect();
    let args: serde_json::Map<String, Value> = (0..3000)
        .map(|i| (format!("p{i}"), json!("é".repeat(25))))
        .collect();
    let text = chat(
        &[(
            "t",
            json!({"type": "object", "properties": props, "required": ["missing"]}),
        )],
        &[("t", Value::Object(args))],
    );
    // The same patterns spread over 300 tools, one each: the budget is the transcript's.
    let tools: Vec<(String, Value)> = (0..300)
        .map(|i| {
            let pattern = format!(r"\p{{L}}{{20}}{i}");
            (
                format!("t{i}"),
                json!({"type": "object", "required": ["missing"],
                       "properties": {"p": {"type": "string", "pattern": pattern}}}),
            )
        })
        .collect();
    let tool_refs: Vec<(&str, Value)> =
        tools.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
    let calls: Vec<(&str, Value)> = tools
        .iter()
        .map(|(n, _)| (n.as_str(), json!({"p": "é".repeat(25)})))
        .collect();
    let spread = chat(&tool_refs, &calls);
    let p = Project::new();
    p.write("runs/patterns.json", &text);
    p.write("runs/spread.json", &spread);
    let run = p.check_limited(LIMIT_MIB, &[]);
    run.assert_not_killed();
    run.assert_good_checked();
    for file in ["patterns.json", "spread.json"] {
        let found = findings(&run, file);
        let notes = with_code(&found, "rule-limit");
        assert_eq!(
            notes
                .iter()
                .filter(|m| m.contains("budget of 64 MiB") && m.contains("more are not checked"))
                .count(),
            1,
            "{file}: {notes:#?}"
        );
        assert!(
            with_code(&found, "schema-violation")
                .iter()
                .any(|m| m.contains("\"missing\" is a required property")),
            "{file}"
        );
    }
}

/// An ECMA look-ahead in one `pattern` (which made the whole schema `invalid-schema`, every
/// call of the tool unchecked) leaves only that keyword unchecked, with a note at the call that
/// names where it is in the schema; the rest of the schema is checked.
#[test]
fn a_look_ahead_voids_only_its_pattern() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "string", "pattern": "^(?=x)x"},
        "b": {"type": "integer"}
    }});
    let p = Project::new();
    p.write(
        "runs/ahead.json",
        chat(&[("t", schema)], &[("t", json!({"a": "y", "b": "no"}))]),
    );
    let run = p.check_limited(LIMIT_MIB, &[]);
    run.assert_not_killed();
    run.assert_good_checked();
    let found = findings(&run, "ahead.json");
    let invalid = with_code(&found, "invalid-schema");
    assert_eq!(invalid.len(), 1, "{found:#?}");
    assert!(
        invalid[0].contains("in the schema of `t`, the `pattern` at `/properties/a/pattern` (`^(?=x)x`) is not checked"),
        "{}",
        invalid[0]
    );
    // Located: at the tool's first call.
    let note = found
        .iter()
        .find(|f| f["code"] == "invalid-schema")
        .unwrap();
    assert!(note["location"]["line"].is_number(), "{note:#}");
    assert!(with_code(&found, "schema-violation")
        .iter()
        .any(|m| m.contains("argument `b`")));
}

/// 1 000 copies of `/\w{200}/` in a spec (one compiled pattern, 3.5 MB of program): the copies
/// share its search cache (each clone filled a cache of its own, about 2.9 MB: 2.9 GB).
#[test]
fn copies_of_one_spec_regex_share_one_cache() {
    let mut spec = String::from("spec big {\n  transcripts \"calls/*\"\n");
    for _ in 0..1000 {
        spec.push_str("  call f(a: /\\w{200}/)\n");
    }
    spec.push_str("}\n");
    let p = Project::new();
    p.write("big.toolspec", &spec);
    p.write(
        "calls/f.json",
        chat(&[], &[("f", json!({"a": "a".repeat(210)}))]),
    );
    let run = p.check_limited(LIMIT_MIB / 2, &["-j", "1"]);
    run.assert_not_killed();
    run.assert_good_checked();
    let f = run.result_for("f.json").expect("f.json checked");
    assert_eq!(f["spec"], "big");
    // Every expectation was tried on the call; one of them has it.
    assert_eq!(f["counts"]["expectations"], 1000, "{f:#}");
    assert_eq!(f["counts"]["exact"], 1, "{f:#}");
}
