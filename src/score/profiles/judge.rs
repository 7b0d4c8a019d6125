//! The pluggable judge for DeepEval's tool-selection part (an LLM call in DeepEval).
//!
//! Protocol (documented in `docs/parity.md`): the `judge` option is a shell command, run with
//! `sh -c` once per case. It receives one JSON object on stdin:
//! `{"protocol": "toolspec-judge/1", "metric": "deepeval.tool_selection", "input": <the case's
//! input or null>, "tools_called": [...], "available_tools": [...]}` (tools in DeepEval's
//! `ToolCall` shape) and answers on stdout either a bare number or `{"score": x, "reason": "..."}`.
//! The score must be a number in [0, 1]. A command that cannot start, exits non-zero, or answers
//! anything else makes the case an error line (the run goes on).

use std::io::Write;
use std::process::{Command, Stdio};

use serde::Serialize;

use super::deepeval::Tool;
use super::view::{Json, Kind};

/// What the judge is asked.
pub(crate) struct JudgeRequest<'r, 't> {
    /// The case's `input`, as raw JSON text.
    pub(crate) input: Option<&'t str>,
    pub(crate) tools_called: &'r [Tool<'t>],
    pub(crate) available_tools: &'r [Tool<'t>],
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
pub fn parse_answer(stdout: &str) -> Result<JudgeAnswer, String> {
    let v: serde_json::Value = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("judge: answer is not JSON ({e}): {:?}", stdout.trim()))?;
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
        Some(s) => Err(format!("judge: score {s} is outside [0, 1]")),
        None => Err(format!("judge: no numeric score in answer {v}")),
    }
}

/// Run the judge command on one request.
pub(crate) fn ask(cmd: &str, req: &JudgeRequest<'_, '_>) -> Result<JudgeAnswer, String> {
    let body = request_json(req);
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("judge: cannot run `{cmd}`: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A judge that exits without reading its input is allowed: ignore a broken pipe.
        let _ = stdin.write_all(body.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("judge: `{cmd}` failed: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "judge: `{cmd}` exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    parse_answer(&String::from_utf8_lossy(&out.stdout))
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
