//! The pluggable judge for DeepEval's tool-selection part (an LLM call in DeepEval).
//!
//! The library never runs a judge itself: the scorer asks a [`Judge`], which only the person
//! running toolspec can provide (the CLI's `--judge CMD`, never a case line, a spec or
//! `toolspec.toml`; see `docs/security.md`). The request is one JSON object ([`JudgeRequest::
//! to_json`]): `{"protocol": "toolspec-judge/1", "metric": "deepeval.tool_selection", "input":
//! <the case's input or null>, "tools_called": [...], "available_tools": [...]}` (tools in
//! DeepEval's `ToolCall` shape); the answer ([`parse_answer`]) is either a bare number or
//! `{"score": x, "reason": "..."}` with the score in [0, 1]. A judge that fails makes that case
//! an error line, or that pair's profile verdict an error (the run goes on).

use serde::Serialize;

use super::deepeval::Tool;
use crate::json::view::{Json, Kind};

/// What the judge is asked about one case.
pub struct JudgeRequest<'r, 't> {
    /// The case's `input`, as raw JSON text.
    pub(crate) input: Option<&'t str>,
    pub(crate) tools_called: &'r [Tool<'t>],
    pub(crate) available_tools: &'r [Tool<'t>],
}

/// Why a judge gave no answer (it could not start, failed, timed out, printed too much or
/// something that is not an answer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("judge: {0}")]
pub struct JudgeError(pub String);

/// Who answers DeepEval's tool-selection question. Implemented by the CLI (a command given with
/// `--judge`); asked from the scoring threads, once per case that has `available_tools`.
pub trait Judge: Send + Sync {
    /// The answer to one request, or why there is none.
    fn ask(&self, request: &JudgeRequest<'_, '_>) -> Result<JudgeAnswer, JudgeError>;
}

impl std::fmt::Debug for dyn Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Judge")
    }
}

/// The judge's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeAnswer {
    /// The tool-selection score in [0, 1].
    pub score: f64,
    /// The judge's reason (empty if it gave none).
    pub reason: String,
}

struct ToolOut<'r, 't>(&'r Tool<'t>);

impl Serialize for ToolOut<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let t = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", t.name)?;
        m.serialize_entry("type", t.kind.unwrap_or("FUNCTION"))?;
        if let Some(d) = t.description {
            m.serialize_entry("description", d)?;
        }
        if let Some(p) = t.input_parameters {
            m.serialize_entry("input_parameters", &JsonOut(p))?;
        }
        if let Some(o) = t.output {
            m.serialize_entry("output", &JsonOut(o))?;
        }
        m.end()
    }
}

/// Any [`Json`] value as serde data.
struct JsonOut<J>(J);

impl<'s, J: Json<'s>> Serialize for JsonOut<J> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.0.kind() {
            Kind::Null => s.serialize_unit(),
            Kind::Bool(b) => s.serialize_bool(b),
            Kind::Int(i) => s.serialize_i64(i),
            Kind::UInt(u) => s.serialize_u64(u),
            Kind::Float(f) => s.serialize_f64(f),
            Kind::Str(x) => s.serialize_str(x),
            Kind::Arr => {
                let items = self.0.items();
                let mut q = s.serialize_seq(Some(items.len()))?;
                for x in items {
                    q.serialize_element(&JsonOut(x))?;
                }
                q.end()
            }
            Kind::Obj => {
                let entries = self.0.entries();
                let mut m = s.serialize_map(Some(entries.len()))?;
                for (k, x) in entries {
                    m.serialize_entry(k, &JsonOut(x))?;
                }
                m.end()
            }
        }
    }
}

impl JudgeRequest<'_, '_> {
    /// The request as one JSON line (ends with a newline), as a judge command reads it.
    pub fn to_json(&self) -> String {
        request_json(self)
    }
}

fn request_json(req: &JudgeRequest<'_, '_>) -> String {
    let tools = |ts: &[Tool<'_>]| -> String {
        serde_json::to_string(&ts.iter().map(ToolOut).collect::<Vec<_>>())
            .unwrap_or_else(|_| "[]".into())
    };
    format!(
        "{{\"protocol\":\"toolspec-judge/1\",\"metric\":\"deepeval.tool_selection\",\"input\":{},\"tools_called\":{},\"available_tools\":{}}}\n",
        req.input.unwrap_or("null"),
        tools(req.tools_called),
        tools(req.available_tools)
    )
}

/// Parse a judge's stdout: a bare number or `{"score", "reason"}`.
pub fn parse_answer(stdout: &str) -> Result<JudgeAnswer, JudgeError> {
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).map_err(|e| {
        let mut shown: String = stdout.trim().chars().take(200).collect();
        if shown.len() < stdout.trim().len() {
            shown.push('…');
        }
        JudgeError(format!("answer is not JSON ({e}): {shown:?}"))
    })?;
    let (score, reason) = match &v {
        serde_json::Value::Number(n) => (n.as_f64(), String::new()),
        serde_json::Value::Object(m) => (
            m.get("score").and_then(serde_json::Value::as_f64),
            m.get("reason")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("")
                .to_owned(),
        ),
        _ => (None, String::new()),
    };
    match score {
        Some(s) if (0.0..=1.0).contains(&s) => Ok(JudgeAnswer { score: s, reason }),
        Some(s) => Err(JudgeError(format!("score {s} is outside [0, 1]"))),
        None => Err(JudgeError(
            "no numeric score in the answer (expected a number or {\"score\": x, \"reason\": \"...\"})"
                .to_owned(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_a_number_or_an_object() {
        assert_eq!(parse_answer("0.5\n").unwrap().score, 0.5);
        let a = parse_answer(r#"{"score": 1, "reason": "ok"}"#).unwrap();
        assert_eq!((a.score, a.reason.as_str()), (1.0, "ok"));
        assert!(parse_answer("1.5").is_err());
        assert!(parse_answer("yes").is_err());
        assert!(parse_answer(r#"{"reason": "x"}"#).is_err());
    }
}
