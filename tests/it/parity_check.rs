//! `toolspec check` with a profile gives what `toolspec score --profile NAME` gives on the
//! equivalent peer line, for arguments a serde_json value does not hold as written: integers
//! past 64 bits and `-0`, in a transcript's arguments (an OpenAI Chat `arguments` string) and in
//! the spec's literals. The line below is written by hand, as a user would write it for the
//! peer; both go through the peer's own value model.

use std::path::Path;

use serde_json::Value;
use toolspec::check::run::{Given, SpecSet};
use toolspec::check::settings::LoadedSettings;
use toolspec::score::profiles::{peer, score_line};

/// An OpenAI Chat transcript with one call of `f` whose arguments string is `args`, answered
/// `ok`.
fn chat(args: &str) -> Vec<u8> {
    let call = serde_json::json!({
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"}
        ]
    });
    call.to_string().into_bytes()
}

/// The check's (score, passed, profile details) of `spec` on the transcript.
fn check(spec: &str, transcript: &[u8]) -> (f64, bool, Value) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let settings = LoadedSettings::defaults(root);
    let set = SpecSet::compile(
        &root.join("parity_check.toolspec"),
        Some(spec.to_owned()),
        &settings,
        root,
        false,
    )
    .unwrap_or_else(|r| panic!("{spec}: {:?}", r.errors));
    let report = set.check(Given::Bytes(transcript), None);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let [r] = &report.results[..] else {
        panic!("one result: {:?}", report.results);
    };
    (
        r.score,
        r.passed,
        r.profile_details.clone().unwrap_or(Value::Null),
    )
}

/// `toolspec score --profile NAME` on `line`: (score, passed, the peer's other fields).
fn score(profile: &str, line: &str) -> (f64, bool, Value) {
    let out = score_line(peer(profile).unwrap(), line.as_bytes());
    let mut v: serde_json::Map<String, Value> = serde_json::from_slice(&out).unwrap();
    assert!(!v.contains_key("error"), "{line}: {v:?}");
    v.remove("id");
    let score = v.remove("score").and_then(|s| s.as_f64()).unwrap();
    let passed = v.remove("passed").and_then(|p| p.as_bool()).unwrap_or(true);
    (score, passed, Value::Object(v))
}

/// One case: the transcript's arguments, the spec's expectation of `f`, the profile, and the
/// peer line with the same calls.
struct Case {
    actual: &'static str,
    expect: &'static str,
    profile: &'static str,
    options: &'static str,
    line: String,
    /// The peer's score on the line.
    want: f64,
}

fn cases() -> Vec<Case> {
    let axion = |actual: &'static str,
                 expect: &str,
                 call: &'static str,
                 options: &'static str,
                 opts: &str,
                 want| Case {
        actual,
        expect: call,
        profile: "axion",
        options,
        line: format!(
            r#"{{"id":1,"tools_called":[{{"name":"f","args":{actual}}}],"expected_tools":[{{"name":"f","args":{expect}}}],"options":{opts}}}"#
        ),
        want,
    };
    let big = r#"{"n": 18446744073709551616}"#;
    let big1 = r#"{"n":18446744073709551617}"#;
    vec![
        // Python's integers are exact: 2^64 is not 2^64 + 1 (serde_json read both as 2^64).
        axion(
            big,
            big1,
            "call f(n: 18446744073709551617)",
            "{ check_parameters: true }",
            r#"{"check_parameters":true}"#,
            0.0,
        ),
        axion(
            big,
            r#"{"n":18446744073709551616}"#,
            "call f(n: 18446744073709551616)",
            "{ check_parameters: true }",
            r#"{"check_parameters":true}"#,
            1.0,
        ),
        // `-0` is Python's integer 0: `str` of it is "0" (serde_json read `-0.0`).
        axion(
            r#"{"z": -0}"#,
            r#"{"z":0}"#,
            "call f(z: 0)",
            r#"{ check_parameters: true, parameter_matching_strategy: "fuzzy" }"#,
            r#"{"check_parameters":true,"parameter_matching_strategy":"fuzzy"}"#,
            1.0,
        ),
        axion(
            r#"{"z": 0}"#,
            r#"{"z":-0}"#,
            "call f(z: -0)",
            r#"{ check_parameters: true, parameter_matching_strategy: "fuzzy" }"#,
            r#"{"check_parameters":true,"parameter_matching_strategy":"fuzzy"}"#,
            1.0,
        ),
        // An exact literal of the whole arguments, nested.
        axion(
            r#"{"a": [1, {"n": 18446744073709551617}]}"#,
            r#"{"a":[1,{"n":18446744073709551616}]}"#,
            r#"call f exact {"a": [1, {"n": 18446744073709551616}]}"#,
            "{ check_parameters: true }",
            r#"{"check_parameters":true}"#,
            0.0,
        ),
        // DeepEval's reason prints the missing call's arguments as written.
        Case {
            actual: r#"{"n": 18446744073709551617, "z": -0}"#,
            expect: "call f(n: 18446744073709551616, z: 0)",
            profile: "deepeval",
            options: r#"{ evaluation_params: ["INPUT_PARAMETERS"] }"#,
            line: r#"{"id":1,"tools_called":[{"name":"f","input_parameters":{"n": 18446744073709551617, "z": -0},"output":"ok"}],"expected_tools":[{"name":"f","input_parameters":{"n":18446744073709551616,"z":0},"output":null}],"options":{"evaluation_params":["INPUT_PARAMETERS"]}}"#.into(),
            want: 0.5,
        },
        // agentevals reads the arguments strings with Python's json.
        Case {
            actual: r#"{"n": 18446744073709551617}"#,
            expect: "call f(n: 18446744073709551616)",
            profile: "agentevals",
            options: "",
            line: r#"{"id":1,"outputs":[{"role":"assistant","content":"","tool_calls":[{"id":"call_0","type":"function","function":{"name":"f","arguments":"{\"n\": 18446744073709551617}"}}]}],"reference_outputs":[{"role":"assistant","content":"","tool_calls":[{"id":"call_0","type":"function","function":{"name":"f","arguments":"{\"n\":18446744073709551616}"}}]}],"trajectory_match_mode":"strict","tool_args_match_mode":"exact","tool_args_match_overrides":null}"#.into(),
            want: 0.0,
        },
        // JavaScript reads both as the double 2^64: equal for Evalite.
        Case {
            actual: r#"{"n": 18446744073709551617}"#,
            expect: "call f(n: 18446744073709551616)",
            profile: "evalite",
            options: "",
            line: r#"{"id":1,"actualCalls":[{"toolName":"f","input":{"n": 18446744073709551617}}],"expectedCalls":[{"toolName":"f","input":{"n":18446744073709551616}}],"mode":null,"weights":null,"threshold":null}"#.into(),
            want: 1.0,
        },
    ]
}

#[test]
fn a_profile_in_check_reads_the_numbers_the_peer_reads() {
    for c in cases() {
        let spec = format!(
            "spec s {{\n  profile {} {}\n  {}\n}}\n",
            c.profile, c.options, c.expect
        );
        let line = score(c.profile, &c.line);
        assert_eq!(line.0, c.want, "{}: the peer's score", c.line);
        let checked = check(&spec, &chat(c.actual));
        assert_eq!(checked, line, "{spec}\n{}", c.actual);
    }
}

/// An Anthropic Messages transcript with one call of `f` whose `input` object is the JSON text
/// `args` (as written), answered `ok`.
fn anthropic(args: &str) -> Vec<u8> {
    format!(
        r#"{{"messages": [
  {{"role": "user", "content": "go"}},
  {{"role": "assistant", "content": [{{"type": "tool_use", "id": "t1", "name": "f", "input": {args}}}]}},
  {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}}]}}
]}}"#
    )
    .into_bytes()
}

/// A Gemini `generateContent` transcript with one `functionCall` of `f` whose `args` object is
/// `args`, answered `{"result": "ok"}`.
fn gemini(args: &str) -> Vec<u8> {
    format!(
        r#"{{"contents": [
  {{"role": "user", "parts": [{{"text": "go"}}]}},
  {{"role": "model", "parts": [{{"functionCall": {{"name": "f", "args": {args}}}}}]}},
  {{"role": "user", "parts": [{{"functionResponse": {{"name": "f", "response": {{"result": "ok"}}}}}}]}}
]}}"#
    )
    .into_bytes()
}

/// A Claude Code session (JSON lines) with one `tool_use` of `f` whose `input` is `args`,
/// answered `ok`.
fn claude_code(args: &str) -> Vec<u8> {
    format!(
        r#"{{"type":"system","subtype":"init","cwd":"/repo","session_id":"s1","tools":["f"]}}
{{"type":"assistant","message":{{"id":"m1","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"t1","name":"f","input":{args}}}]}},"session_id":"s1"}}
{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"t1","type":"tool_result","content":"ok"}}]}},"session_id":"s1"}}
"#
    )
    .into_bytes()
}

/// Arguments recorded as a JSON object (not a string) reach the peer as written: integers past
/// 64 bits and `-0` in an Anthropic `input`, a Gemini `args` and a Claude Code `input`, under
/// DeepEval and Axion. Each `want` is what the real peer gives on the line (DeepEval 4.3.1 and
/// Axion `7ab96dc` through `../shared/oracles`, `PYTHONHASHSEED=0`). Before the value of such
/// arguments was read with serde_json, which holds 2^64 + 1 as 2^64 (DeepEval and Axion then
/// scored 1 where the peer scores 0) and `-0` as `-0.0` (Axion's fuzzy match scored 0 where
/// the peer scores 1, and its strict-order explanation printed `-0.0`).
#[test]
fn arguments_recorded_as_objects_reach_the_peer_as_written() {
    type Transcript = fn(&str) -> Vec<u8>;
    let transcripts: [(&str, Transcript, &str); 3] = [
        ("anthropic", anthropic, r#""ok""#),
        ("gemini", gemini, r#"{"result":"ok"}"#),
        ("claude code", claude_code, r#""ok""#),
    ];
    // (profile, spec options, expectation, the transcript's arguments, peer line options, the
    // peer's score)
    let cases = [
        (
            "deepeval",
            r#"{ evaluation_params: ["INPUT_PARAMETERS"] }"#,
            "call f(n: 18446744073709551616)",
            r#"{"n": 18446744073709551617}"#,
            r#"{"evaluation_params":["INPUT_PARAMETERS"]}"#,
            0.0,
        ),
        (
            "deepeval",
            r#"{ evaluation_params: ["INPUT_PARAMETERS"] }"#,
            "call f(n: 18446744073709551616)",
            r#"{"n": 18446744073709551616}"#,
            r#"{"evaluation_params":["INPUT_PARAMETERS"]}"#,
            1.0,
        ),
        (
            "deepeval",
            r#"{ evaluation_params: ["INPUT_PARAMETERS"] }"#,
            "call f(z: 0)",
            r#"{"z": -0}"#,
            r#"{"evaluation_params":["INPUT_PARAMETERS"]}"#,
            1.0,
        ),
        (
            "axion",
            "{ check_parameters: true }",
            "call f(n: 18446744073709551616)",
            r#"{"n": 18446744073709551617}"#,
            r#"{"check_parameters":true}"#,
            0.0,
        ),
        (
            "axion",
            r#"{ check_parameters: true, parameter_matching_strategy: "fuzzy" }"#,
            "call f(z: 0)",
            r#"{"z": -0}"#,
            r#"{"check_parameters":true,"parameter_matching_strategy":"fuzzy"}"#,
            1.0,
        ),
        // The explanation prints the called arguments with Python's `str`: `0`, not `-0.0`.
        (
            "axion",
            "{ check_parameters: true, strict_order: true }",
            "call f(z: 0, a: 2)",
            r#"{"z": -0, "a": 1}"#,
            r#"{"check_parameters":true,"strict_order":true}"#,
            0.0,
        ),
    ];
    for (format, transcript, output) in transcripts {
        for (profile, options, expect, actual, opts, want) in cases {
            let expected = expect
                .trim_start_matches("call f(")
                .trim_end_matches(')')
                .split(", ")
                .map(|kv| {
                    let (k, v) = kv.split_once(": ").unwrap();
                    format!(r#""{k}":{v}"#)
                })
                .collect::<Vec<_>>()
                .join(",");
            let line = match profile {
                "deepeval" => format!(
                    r#"{{"id":1,"tools_called":[{{"name":"f","input_parameters":{actual},"output":{output}}}],"expected_tools":[{{"name":"f","input_parameters":{{{expected}}},"output":null}}],"options":{opts}}}"#
                ),
                _ => format!(
                    r#"{{"id":1,"tools_called":[{{"name":"f","args":{actual}}}],"expected_tools":[{{"name":"f","args":{{{expected}}}}}],"options":{opts}}}"#
                ),
            };
            let scored = score(profile, &line);
            assert_eq!(scored.0, want, "{line}: the peer's score");
            if actual.contains(r#""a""#) {
                assert_eq!(
                    scored.2["explanation"],
                    "Tool mismatch at position 0: expected 'f', got 'f' with args {'z': 0, 'a': 1}"
                );
            }
            let spec = format!("spec s {{\n  profile {profile} {options}\n  {expect}\n}}\n");
            let checked = check(&spec, &transcript(actual));
            assert_eq!(checked, scored, "{format}: {spec}\n{actual}");
        }
    }
}
