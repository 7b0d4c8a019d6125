//! Scoring a transcript's calls against a spec's expectations under a profile (`toolspec check`
//! with `profile` in a spec).
//!
//! The calls are put into the peer's own input shape and scored by the same code as
//! `toolspec score`, so a spec and a dataset line give the same number for the same calls.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::judge::Judge;
use super::{peer, score_line_judged};
use crate::config::profile::{AvailableTool, DeepevalOptions};
use crate::config::Profile;
use crate::transcript::model::{ToolCall, ToolDecl};

/// One expected call, derived by the CLI from a spec's expectations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectedCall {
    /// The tool name.
    pub name: String,
    /// Expected arguments, if the expectation pins them (`None`: arguments not constrained).
    #[serde(default)]
    pub args: Option<Value>,
    /// Expected output, if the expectation pins it.
    #[serde(default)]
    pub output: Option<Value>,
    /// `args` as the JSON text the spec writes them in, where the value does not hold them as
    /// written (an integer past 64 bits, `-0`): the peer reads this text instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args_text: Option<String>,
    /// `output` as JSON text, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_text: Option<String>,
}

/// A profile's verdict on one transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileVerdict {
    /// The peer's score (0 when the peer would reject the case).
    pub score: f64,
    /// The peer's pass/fail (false when rejected; true when the peer has no threshold and
    /// judges nothing, as DeepEval with `threshold: null`).
    pub passed: bool,
    /// The threshold the pass/fail used, if the peer has one.
    pub threshold: Option<f64>,
    /// The peer's own fields (DeepEval `success`/`reason`, Evalite `metadata`, Axion
    /// `explanation`, ...), or `{"error": ...}` when the peer would reject the case.
    pub details: Value,
}

fn options_map<T: Serialize>(opts: &T) -> Map<String, Value> {
    match serde_json::to_value(opts) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// A piece of the peer's input line: a value, or JSON text written as it is. Arguments travel
/// as text where the transcript or the spec has them as text their value does not hold
/// (`ToolCall::args_text`, `ExpectedCall::args_text`), so that the peer's value model reads
/// the integers past 64 bits and the `-0` that were written, as `toolspec score` does.
enum Part<'a> {
    /// A value, borrowed.
    Ref(&'a Value),
    /// A value made for the line.
    Own(Value),
    /// JSON text (valid JSON: arguments serde_json read, or a spec literal written out).
    Text(&'a str),
    /// `[…]`.
    List(Vec<Part<'a>>),
    /// `{…}`, members in this order.
    Object(Vec<(&'static str, Part<'a>)>),
}

impl Part<'_> {
    fn write(&self, out: &mut String) {
        match self {
            Part::Ref(v) => out.push_str(&v.to_string()),
            Part::Own(v) => out.push_str(&v.to_string()),
            Part::Text(t) => out.push_str(t),
            Part::List(items) => {
                out.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    x.write(out);
                }
                out.push(']');
            }
            Part::Object(members) => {
                out.push('{');
                for (i, (k, x)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    crate::json::text::json_str(out, k);
                    out.push(':');
                    x.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// A string member.
fn string(s: &str) -> Part<'static> {
    Part::Own(Value::String(s.to_owned()))
}

/// A call's arguments: their text where it is kept, else their value.
fn args_of(c: &ToolCall) -> Part<'_> {
    match &c.args_text {
        Some(t) => Part::Text(t),
        None => Part::Ref(&c.args),
    }
}

/// Expected arguments (`default` when the expectation pins none).
fn expected_args(e: &ExpectedCall, default: Option<Value>) -> Part<'_> {
    match (&e.args_text, &e.args) {
        (Some(t), _) => Part::Text(t),
        (None, Some(a)) => Part::Ref(a),
        (None, None) => Part::Own(default.unwrap_or(Value::Null)),
    }
}

/// Expected output (`null` when the expectation pins none).
fn expected_output(e: &ExpectedCall) -> Part<'_> {
    match (&e.output_text, &e.output) {
        (Some(t), _) => Part::Text(t),
        (None, Some(o)) => Part::Ref(o),
        (None, None) => Part::Own(Value::Null),
    }
}

/// Arguments as the JSON string OpenAI messages carry them in (`function.arguments`).
fn arguments_string(p: Part<'_>) -> Part<'static> {
    let mut text = String::new();
    p.write(&mut text);
    Part::Own(Value::String(text))
}

/// An option of the profile, `null` when not given (or `default`).
fn opt(opts: &Map<String, Value>, key: &str, default: Value) -> Part<'static> {
    Part::Own(opts.get(key).cloned().unwrap_or(default))
}

/// DeepEval's options for the line: `available_tools` as `ToolCall` objects, from the spec, or
/// else (only when a judge will be asked) the tools the transcript declares.
fn deepeval_options(
    o: &DeepevalOptions,
    declared: &[ToolDecl],
    judged: bool,
) -> Map<String, Value> {
    let mut opts = options_map(o);
    let available: Vec<Value> = match &o.available_tools {
        Some(list) => list
            .iter()
            .map(|t| match t {
                AvailableTool::Name(n) => json!({ "name": n }),
                AvailableTool::Call(c) => serde_json::to_value(c).unwrap_or(Value::Null),
            })
            .collect(),
        None if judged => declared
            .iter()
            .map(|d| {
                let mut t = Map::new();
                t.insert("name".into(), json!(d.name));
                if let Some(desc) = &d.description {
                    t.insert("description".into(), json!(desc));
                }
                // A JSON Schema object is a dict, as `input_parameters` must be.
                if let Some(p @ Value::Object(_)) = &d.parameters {
                    t.insert("input_parameters".into(), p.clone());
                }
                Value::Object(t)
            })
            .collect(),
        None => return opts,
    };
    opts.insert("available_tools".into(), Value::Array(available));
    opts
}

/// The peer's input line for these calls (score it with the peer named `profile.name()`).
fn case_line(
    profile: &Profile,
    expected: &[ExpectedCall],
    actual: &[ToolCall],
    declared: &[ToolDecl],
    judged: bool,
) -> String {
    let id = ("id", Part::Own(Value::Null));
    let line = match profile {
        Profile::Axion(o) => {
            let mut opts = options_map(o);
            let rev = opts.remove("rev");
            let mut line = vec![
                id,
                (
                    "tools_called",
                    Part::List(
                        actual
                            .iter()
                            .map(|c| {
                                Part::Object(vec![("name", string(&c.name)), ("args", args_of(c))])
                            })
                            .collect(),
                    ),
                ),
                (
                    "expected_tools",
                    Part::List(
                        expected
                            .iter()
                            .map(|e| {
                                Part::Object(vec![
                                    ("name", string(&e.name)),
                                    ("args", expected_args(e, Some(json!({})))),
                                ])
                            })
                            .collect(),
                    ),
                ),
                ("options", Part::Own(Value::Object(opts))),
            ];
            if let Some(r) = rev {
                line.push(("rev", Part::Own(r)));
            }
            line
        }
        Profile::Deepeval(o) => vec![
            id,
            (
                "tools_called",
                Part::List(
                    actual
                        .iter()
                        .map(|c| {
                            Part::Object(vec![
                                ("name", string(&c.name)),
                                ("input_parameters", args_of(c)),
                                ("output", Part::Own(c.output.clone().unwrap_or(Value::Null))),
                            ])
                        })
                        .collect(),
                ),
            ),
            (
                "expected_tools",
                Part::List(
                    expected
                        .iter()
                        .map(|e| {
                            Part::Object(vec![
                                ("name", string(&e.name)),
                                ("input_parameters", expected_args(e, None)),
                                ("output", expected_output(e)),
                            ])
                        })
                        .collect(),
                ),
            ),
            (
                "options",
                Part::Own(Value::Object(deepeval_options(o, declared, judged))),
            ),
        ],
        Profile::Evalite(o) => {
            let opts = options_map(o);
            vec![
                id,
                (
                    "actualCalls",
                    Part::List(
                        actual
                            .iter()
                            .map(|c| {
                                Part::Object(vec![
                                    ("toolName", string(&c.name)),
                                    ("input", args_of(c)),
                                ])
                            })
                            .collect(),
                    ),
                ),
                (
                    "expectedCalls",
                    Part::List(
                        expected
                            .iter()
                            .map(|e| {
                                let mut call = vec![("toolName", string(&e.name))];
                                if e.args.is_some() {
                                    call.push(("input", expected_args(e, None)));
                                }
                                Part::Object(call)
                            })
                            .collect(),
                    ),
                ),
                ("mode", opt(&opts, "mode", Value::Null)),
                ("weights", opt(&opts, "weights", Value::Null)),
                ("threshold", opt(&opts, "threshold", Value::Null)),
            ]
        }
        Profile::Agentevals(o) => {
            let opts = options_map(o);
            let message = |calls: Vec<(&str, Part<'_>)>| {
                let tcs: Vec<Part<'_>> = calls
                    .into_iter()
                    .enumerate()
                    .map(|(i, (name, args))| {
                        Part::Object(vec![
                            ("id", Part::Own(Value::String(format!("call_{i}")))),
                            ("type", string("function")),
                            (
                                "function",
                                Part::Object(vec![
                                    ("name", string(name)),
                                    ("arguments", arguments_string(args)),
                                ]),
                            ),
                        ])
                    })
                    .collect();
                Part::List(vec![Part::Object(vec![
                    ("role", string("assistant")),
                    ("content", string("")),
                    ("tool_calls", Part::List(tcs)),
                ])])
            };
            vec![
                id,
                (
                    "outputs",
                    message(
                        actual
                            .iter()
                            .map(|c| (c.name.as_str(), args_of(c)))
                            .collect(),
                    ),
                ),
                (
                    "reference_outputs",
                    message(
                        expected
                            .iter()
                            .map(|e| (e.name.as_str(), expected_args(e, Some(json!({})))))
                            .collect(),
                    ),
                ),
                (
                    "trajectory_match_mode",
                    opt(&opts, "trajectory_match_mode", json!("strict")),
                ),
                (
                    "tool_args_match_mode",
                    opt(&opts, "tool_args_match_mode", json!("exact")),
                ),
                (
                    "tool_args_match_overrides",
                    opt(&opts, "tool_args_match_overrides", Value::Null),
                ),
            ]
        }
        Profile::Galtea(o) => vec![
            id,
            (
                "tools_called",
                Part::Own(json!(actual
                    .iter()
                    .map(|c| c.name.clone())
                    .collect::<Vec<_>>())),
            ),
            (
                "expected_tools",
                Part::Own(json!(expected
                    .iter()
                    .map(|e| e.name.clone())
                    .collect::<Vec<_>>())),
            ),
            ("options", Part::Own(json!({"galtea": options_map(o)}))),
        ],
        Profile::Promptfoo(o) => {
            let mut assertion = json!({
                "type": if o.inverse.unwrap_or(false) { "not-tool-call-f1" } else { "tool-call-f1" },
                "value": expected.iter().map(|e| e.name.clone()).collect::<Vec<_>>(),
            });
            if let Some(t) = o.threshold {
                assertion["threshold"] = json!(t);
            }
            let calls = actual
                .iter()
                .map(|c| {
                    Part::Object(vec![
                        ("type", string("function")),
                        (
                            "function",
                            Part::Object(vec![
                                ("name", string(&c.name)),
                                ("arguments", arguments_string(args_of(c))),
                            ]),
                        ),
                    ])
                })
                .collect();
            vec![
                id,
                ("assertion", Part::Own(assertion)),
                (
                    "output",
                    Part::Object(vec![("tool_calls", Part::List(calls))]),
                ),
            ]
        }
    };
    let mut out = String::new();
    Part::Object(line).write(&mut out);
    out
}

/// Score a transcript's calls against expected calls under a profile: the same numbers as
/// `toolspec score --profile NAME` on the equivalent peer input line.
pub fn score_calls(
    profile: &Profile,
    expected: &[ExpectedCall],
    actual: &[ToolCall],
) -> ProfileVerdict {
    score_calls_with_tools(profile, expected, actual, &[])
}

/// [`score_calls`], with the tools the transcript declares (unused without a judge).
pub fn score_calls_with_tools(
    profile: &Profile,
    expected: &[ExpectedCall],
    actual: &[ToolCall],
    declared: &[ToolDecl],
) -> ProfileVerdict {
    score_calls_judged(profile, expected, actual, declared, None)
}

/// [`score_calls`] with a judge for DeepEval's tool-selection part: the judge is asked about
/// the profile's `available_tools`, or when it has none about the tools the transcript declares
/// (what `toolspec check --judge CMD` does). A judge that fails makes the verdict an error.
pub fn score_calls_judged(
    profile: &Profile,
    expected: &[ExpectedCall],
    actual: &[ToolCall],
    declared: &[ToolDecl],
    judge: Option<&dyn Judge>,
) -> ProfileVerdict {
    let line = case_line(profile, expected, actual, declared, judge.is_some());
    let peer = peer(profile.name()).expect("every profile has its peer");
    let out = score_line_judged(peer, line.as_bytes(), judge);
    let mut v: Map<String, Value> = if let Ok(Value::Object(m)) = serde_json::from_slice(&out) {
        m
    } else {
        let mut m = Map::new();
        m.insert("error".into(), json!("internal: unreadable profile output"));
        m
    };
    v.remove("id");
    if v.contains_key("error") {
        return ProfileVerdict {
            score: 0.0,
            passed: false,
            threshold: None,
            details: Value::Object(v),
        };
    }
    let score = v
        .remove("score")
        .and_then(|s| s.as_f64())
        .unwrap_or(f64::NAN);
    let passed = v.remove("passed");
    let threshold = v
        .get("threshold")
        .and_then(Value::as_f64)
        .or(match profile {
            Profile::Evalite(o) => Some(o.threshold.unwrap_or(1.0)),
            _ => None,
        });
    ProfileVerdict {
        score,
        passed: passed.and_then(|p| p.as_bool()).unwrap_or(true),
        threshold,
        details: Value::Object(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::profile::{AxionOptions, DeepevalOptions, EvaliteOptions, GalteaOptions};

    fn call(name: &str, args: Value) -> ToolCall {
        ToolCall {
            name: name.into(),
            args,
            id: None,
            output: None,
            is_error: false,
            span: Default::default(),
            turn: None,
            agent: None,
            namespace: None,
            args_text: None,
        }
    }

    fn exp(name: &str, args: Option<Value>) -> ExpectedCall {
        ExpectedCall {
            name: name.into(),
            args,
            output: None,
            args_text: None,
            output_text: None,
        }
    }

    #[test]
    fn axion_explanation_and_threshold() {
        let v = score_calls(
            &Profile::Axion(AxionOptions::default()),
            &[exp("fetch", None), exp("store", None)],
            &[call("fetch", json!({}))],
        );
        assert_eq!(v.score, 0.5);
        assert!(v.passed);
        assert_eq!(v.threshold, Some(0.5));
        assert_eq!(
            v.details["explanation"],
            "[recall] Correctly called: ['fetch']; Missing tools: ['store']"
        );
    }

    #[test]
    fn evalite_expected_without_args_is_a_wildcard() {
        let v = score_calls(
            &Profile::Evalite(EvaliteOptions::default()),
            &[exp("search", None)],
            &[call("search", json!({"q": 1}))],
        );
        assert_eq!((v.score, v.passed), (1.0, true));
        assert_eq!(v.details["metadata"]["exactMatches"], 1);
    }

    #[test]
    fn deepeval_rejection_becomes_an_error_verdict() {
        let opts = DeepevalOptions {
            evaluation_params: Some(vec!["INPUT_PARAMETERS".into()]),
            ..Default::default()
        };
        let v = score_calls(
            &Profile::Deepeval(opts),
            &[exp("a", None)],
            &[call("a", json!({"x": 1}))],
        );
        assert!(!v.passed);
        assert!(v.details["error"].as_str().unwrap().contains("NoneType"));
    }

    /// A judge that answers 0.25 and counts the available tools it was shown.
    struct Counting;

    impl Judge for Counting {
        fn ask(
            &self,
            request: &crate::score::profiles::JudgeRequest<'_, '_>,
        ) -> Result<crate::score::profiles::JudgeAnswer, crate::score::profiles::JudgeError>
        {
            let v: Value = serde_json::from_str(&request.to_json()).unwrap();
            let n = v["available_tools"].as_array().unwrap().len();
            Ok(crate::score::profiles::JudgeAnswer {
                score: 0.25,
                reason: format!("test judge saw {n} available tools"),
            })
        }
    }

    #[test]
    fn deepeval_available_tools_come_from_the_spec_or_the_transcript() {
        let decl = |n: &str| ToolDecl {
            name: n.into(),
            description: Some(format!("{n} things")),
            parameters: Some(json!({"type": "object"})),
        };
        let with = |available_tools| {
            Profile::Deepeval(DeepevalOptions {
                available_tools,
                ..Default::default()
            })
        };
        let exp = [exp("a", None)];
        let calls = [call("a", json!({}))];
        let declared = [decl("a"), decl("b"), decl("c")];
        // A judge and no list in the spec: the transcript's three declared tools.
        let v = score_calls_judged(&with(None), &exp, &calls, &declared, Some(&Counting));
        assert_eq!(v.score, 0.25, "{v:?}");
        let reason = v.details["reason"].as_str().unwrap();
        assert!(
            reason.contains("test judge saw 3 available tools"),
            "{reason}"
        );
        // The spec's list wins.
        let v = score_calls_judged(
            &with(Some(vec![AvailableTool::Name("x".into())])),
            &exp,
            &calls,
            &declared,
            Some(&Counting),
        );
        assert!(v.details["reason"]
            .as_str()
            .unwrap()
            .contains("saw 1 available tools"));
        // Without a judge the declared tools are not DeepEval's available tools.
        let v = score_calls_with_tools(&with(None), &exp, &calls, &declared);
        assert_eq!(v.score, 1.0);
        assert!(v.details["reason"]
            .as_str()
            .unwrap()
            .contains("No available tools were provided"));
    }

    #[test]
    fn galtea_normalises_names() {
        let v = score_calls(
            &Profile::Galtea(GalteaOptions::default()),
            &[exp("search_web", None)],
            &[call("functions.Search-Web", json!({}))],
        );
        assert_eq!(v.score, 1.0);
    }
}
