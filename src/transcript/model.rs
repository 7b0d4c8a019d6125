//! The normalized model every reader produces and the engine consumes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::source::Span;

/// One tool call, normalized across formats (the truth-file shape, plus its location).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool name as the transcript records it.
    pub name: String,
    /// Arguments. A format that stores them as a JSON string is parsed; blank → `{}`; an invalid
    /// or truncated string is kept verbatim as a JSON string (and reported as a finding).
    pub args: Value,
    /// The id results link by, if the format has one.
    pub id: Option<String>,
    /// What the model saw as the result; `None` (serialized `null`) if none is recorded.
    pub output: Option<Value>,
    /// Whether the format marks the call as failed.
    pub is_error: bool,
    /// Where the call is recorded in the file (byte offsets).
    #[serde(default, skip_serializing)]
    pub span: Span,
}

/// A tool the transcript declares as available (where the format records it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDecl {
    /// Tool name.
    pub name: String,
    /// Description, if recorded.
    #[serde(default)]
    pub description: Option<String>,
    /// JSON Schema of the parameters, if recorded.
    #[serde(default)]
    pub parameters: Option<Value>,
}
