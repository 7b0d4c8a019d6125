//! Content sniffing: which format a parsed JSON document or JSONL line is.
//!
//! Rules follow the detection table of `FORMATS.md` (first match wins), extended with the real
//! shapes of `SOURCES.md`; the order and the judgement calls are in `docs/formats.md`.

use serde_json::Value;

use super::error::Rejection;
use super::sink::{arr, field, s};
use super::Format;

const RESPONSES_ITEM_TYPES: &[&str] = &[
    "function_call",
    "function_call_output",
    "reasoning",
    "message",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "computer_call",
    "computer_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "image_generation_call",
    "tool_search_call",
    "tool_search_output",
    "program",
    "program_output",
    // The OpenAI Agents SDK for TypeScript (`result.history`, camelCase `callId`).
    "function_call_result",
    "computer_call_result",
    "hosted_tool_call",
];

const CODEX_LINE_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// UI message chunk types of the AI SDK (`UIMessageChunk`); a stream is recognised by these,
/// and other kebab-case types beside them (later SDK versions add more) are allowed and skipped.
const UI_CHUNK_TYPES: &[&str] = &[
    "start",
    "start-step",
    "finish-step",
    "finish",
    "abort",
    "error",
    "message-metadata",
    "text-start",
    "text-delta",
    "text-end",
    "reasoning-start",
    "reasoning-delta",
    "reasoning-end",
    "source-url",
    "source-document",
    "file",
    "tool-input-start",
    "tool-input-delta",
    "tool-input-available",
    "tool-input-error",
    "tool-output-available",
    "tool-output-error",
    "tool-output-denied",
    "tool-approval-request",
];

/// Whether `items` is a UI message chunk stream: every item is an object whose `type` is a
/// kebab-case word (no `role`), and at least one type is a known chunk type.
fn is_ui_chunk_stream(items: &[Value]) -> bool {
    let kebab = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    !items.is_empty()
        && items
            .iter()
            .all(|x| s(x, "type").is_some_and(kebab) && field(x, "role").is_none())
        && items
            .iter()
            .any(|x| s(x, "type").is_some_and(|t| UI_CHUNK_TYPES.contains(&t)))
}

/// A JSONL line that decides the file is one session of `Format` (one event per line).
pub(crate) fn line(v: &Value) -> Option<Format> {
    if is_jsonrpc(v) {
        return Some(Format::McpJsonrpc);
    }
    let o = v.as_object()?;
    let ty = field(o, "type").and_then(Value::as_str);
    if o.contains_key("payload")
        && o.contains_key("timestamp")
        && ty.is_some_and(|t| CODEX_LINE_TYPES.contains(&t))
    {
        return Some(Format::CodexCli);
    }
    // `claude -p --output-format stream-json` writes the same messages with `session_id`.
    if ty.is_some_and(|t| matches!(t, "user" | "assistant" | "system"))
        && (o.contains_key("sessionId") || o.contains_key("session_id"))
    {
        return Some(Format::ClaudeCode);
    }
    if o.contains_key("resourceSpans") || o.contains_key("resourceLogs") {
        return Some(Format::OtelGenai);
    }
    if o.contains_key("candidates") || is_gemini_cli_line(v) || is_interaction(v) {
        return Some(Format::Gemini);
    }
    if is_vercel_result(v) {
        return Some(Format::VercelAiSdk);
    }
    if s(v, "object") == Some("chat.completion.chunk") {
        return Some(Format::OpenaiChat);
    }
    if is_anthropic_event(v) {
        return Some(Format::AnthropicMessages);
    }
    if is_responses_event(v) {
        return Some(Format::OpenaiResponses);
    }
    if super::readers::neutral_call(v) {
        return Some(Format::ToolspecCalls);
    }
    if super::readers::openai_agents_span(v) {
        return Some(Format::OpenaiAgents);
    }
    if super::readers::bedrock_event(v) {
        return Some(Format::BedrockConverse);
    }
    None
}

/// The first event of an Anthropic Messages stream: `{type: "message_start", message: {type:
/// "message", …}}`.
pub(crate) fn is_anthropic_event(v: &Value) -> bool {
    s(v, "type") == Some("message_start")
        && field(v, "message").is_some_and(|m| s(m, "type") == Some("message"))
}

/// An OpenAI Responses stream event: `type: "response.…"` with a `sequence_number`.
pub(crate) fn is_responses_event(v: &Value) -> bool {
    s(v, "type").is_some_and(|t| t.starts_with("response."))
        && field(v, "sequence_number").is_some_and(Value::is_u64)
}

/// A line that hints at a Claude Code session without deciding it (`summary`,
/// `file-history-snapshot` and similar bookkeeping lines open many session files).
pub(crate) fn claude_code_hint(v: &Value) -> bool {
    matches!(
        s(v, "type"),
        Some(
            "summary"
                | "file-history-snapshot"
                | "custom-title"
                | "queue-operation"
                | "attachment"
                | "user"
                | "assistant"
                | "system"
        )
    ) && field(v, "role").is_none()
}

fn is_jsonrpc(v: &Value) -> bool {
    match v {
        Value::Object(o) => field(o, "jsonrpc").and_then(Value::as_str) == Some("2.0"),
        Value::Array(a) => !a.is_empty() && a.iter().all(is_jsonrpc),
        _ => false,
    }
}

/// A Cohere v2 chat response: `{id, message: {role, tool_calls?, tool_plan?, content?},
/// finish_reason, usage}` (read as OpenAI Chat: its `tool_calls` have the same shape).
pub(crate) fn is_cohere_response(v: &Value) -> bool {
    field(v, "finish_reason").is_some_and(Value::is_string)
        && field(v, "message").is_some_and(|m| field(m, "role").is_some_and(Value::is_string))
        && field(v, "choices").is_none()
        && field(v, "type").is_none()
}

/// An Inspect AI eval log: a numeric `version`, a `status` string and an `eval` object (the
/// header every log has; `samples` may be left out of a log).
pub(crate) fn is_inspect_log(v: &Value) -> bool {
    field(v, "version").is_some_and(Value::is_number)
        && field(v, "status").is_some_and(Value::is_string)
        && field(v, "eval").is_some_and(Value::is_object)
}

/// An OpenHands trajectory: a non-empty list of events (bare, or under `trajectory` with no
/// `history`), each with a `source` string, an `action` or `observation` string, and no `role`.
fn is_openhands_trajectory(v: &Value) -> bool {
    let events = match v {
        Value::Array(a) => a,
        _ if field(v, "history").is_none() => {
            match field(v, "trajectory").and_then(Value::as_array) {
                Some(a) => a,
                None => return false,
            }
        }
        _ => return false,
    };
    !events.is_empty()
        && events.iter().all(|e| {
            field(e, "source").is_some_and(Value::is_string)
                && (field(e, "action").is_some_and(Value::is_string)
                    || field(e, "observation").is_some_and(Value::is_string))
                && field(e, "role").is_none()
        })
}

/// A Google ADK eval set (`eval_set_id` or `evalSetId` with `eval_cases`/`evalCases`), or an
/// old-style ADK test file (a list of `{query, expected_tool_use}`).
fn is_adk_evalset(v: &Value) -> bool {
    match v {
        Value::Array(a) => {
            !a.is_empty()
                && a.iter().all(|q| {
                    field(q, "query").is_some()
                        && (field(q, "expected_tool_use").is_some_and(Value::is_array)
                            || field(q, "expectedToolUse").is_some_and(Value::is_array))
                })
        }
        _ => {
            (field(v, "eval_set_id").is_some()
                && field(v, "eval_cases").is_some_and(Value::is_array))
                || (field(v, "evalSetId").is_some()
                    && field(v, "evalCases").is_some_and(Value::is_array))
        }
    }
}

/// A SWE-agent trajectory: `trajectory` and `history` arrays.
fn is_swe_agent_trajectory(v: &Value) -> bool {
    field(v, "trajectory").is_some_and(Value::is_array)
        && field(v, "history").is_some_and(Value::is_array)
}

/// A gemini-cli session file: `sessionId`, `projectHash` and a `messages` array.
fn is_gemini_cli_session(v: &Value) -> bool {
    field(v, "sessionId").is_some_and(Value::is_string)
        && field(v, "projectHash").is_some_and(Value::is_string)
        && field(v, "messages").is_some_and(Value::is_array)
}

/// A Google Interactions API response: `object: "interaction"` and `steps[]`.
pub(crate) fn is_interaction(v: &Value) -> bool {
    s(v, "object") == Some("interaction") && field(v, "steps").is_some_and(Value::is_array)
}

/// A Vercel `generateText` result: a `steps` array whose steps are the SDK's step results
/// (each has `finishReason`, v4 `stepType`, `toolCalls`, or `tool-…` content parts), and no `object` (API responses name
/// their kind there). `steps` alone is no sign: Google Interactions responses, pydantic-ai and
/// other frameworks use the word too. An empty `steps` needs a result key beside it.
fn is_vercel_result(v: &Value) -> bool {
    let Some(steps) = field(v, "steps").and_then(Value::as_array) else {
        return false;
    };
    if field(v, "object").is_some() {
        return false;
    }
    if steps.is_empty() {
        return ["finishReason", "totalUsage", "toolCalls", "toolResults"]
            .iter()
            .any(|k| v.get(*k).is_some());
    }
    steps.iter().all(|st| {
        st.is_object()
            && field(st, "type").is_none()
            && (["finishReason", "stepType", "toolCalls", "toolResults"]
                .iter()
                .any(|k| st.get(*k).is_some())
                || arr(st, "content")
                    .iter()
                    .any(|p| s(p, "type").is_some_and(|t| t.starts_with("tool-"))))
    })
}

fn is_gemini_cli_line(v: &Value) -> bool {
    match field(v, "response") {
        Some(Value::Object(r)) => r.contains_key("candidates"),
        Some(Value::Array(a)) => a.first().is_some_and(|r| field(r, "candidates").is_some()),
        _ => false,
    }
}

/// The message list of a document, if it has one: a bare array, or `messages` / `input`.
pub(crate) fn messages(v: &Value) -> Option<&[Value]> {
    match v {
        Value::Array(a) => Some(a),
        Value::Object(o) => o
            .get("messages")
            .or_else(|| field(o, "input"))
            .and_then(Value::as_array)
            .map(Vec::as_slice),
        _ => None,
    }
}

/// Detect the format of a whole JSON document (or a dataset line).
/// `Err` holds what the document is, in words.
pub(crate) fn doc(v: &Value) -> Result<Format, String> {
    if let Some(f) = line(v) {
        return Ok(f);
    }
    if let Some(f) = doc_shape(v) {
        return Ok(f);
    }
    Err(describe(v))
}

fn doc_shape(v: &Value) -> Option<Format> {
    if super::readers::neutral_doc(v) {
        return Some(Format::ToolspecCalls);
    }
    if is_gemini_cli_session(v) {
        return Some(Format::GeminiCli);
    }
    if is_swe_agent_trajectory(v) {
        return Some(Format::SweAgent);
    }
    if is_inspect_log(v) {
        return Some(Format::InspectAi);
    }
    if is_openhands_trajectory(v) {
        return Some(Format::Openhands);
    }
    if is_adk_evalset(v) {
        return Some(Format::AdkEvalset);
    }
    if super::readers::otel_sdk_spans(v) {
        return Some(Format::OtelGenai);
    }
    if super::readers::langfuse_export(v) {
        return Some(Format::Langfuse);
    }
    if super::readers::pydantic_ai_history(v) {
        return Some(Format::PydanticAi);
    }
    if super::readers::adk_session(v) {
        return Some(Format::AdkSession);
    }
    if super::readers::openai_agents_doc(v) {
        return Some(Format::OpenaiAgents);
    }
    if super::readers::bedrock_doc(v) {
        return Some(Format::BedrockConverse);
    }
    if let Value::Object(o) = v {
        let object = s(v, "object");
        if (object == Some("response") && field(o, "output").is_some_and(Value::is_array))
            || (object == Some("list") && arr(v, "data").iter().any(is_responses_item))
        {
            return Some(Format::OpenaiResponses);
        }
        if object == Some("chat.completion")
            || field(o, "choices").is_some_and(Value::is_array)
            || is_cohere_response(v)
        {
            return Some(Format::OpenaiChat);
        }
        if s(v, "type") == Some("message")
            && s(v, "role") == Some("assistant")
            && field(o, "content").is_some_and(Value::is_array)
        {
            return Some(Format::AnthropicMessages);
        }
        if field(o, "contents").is_some_and(Value::is_array) {
            return Some(Format::Gemini);
        }
        if [
            "tools_called",
            "toolsCalled",
            "expected_tools",
            "expectedTools",
        ]
        .iter()
        .any(|k| o.contains_key(*k))
            || field(o, "toolSpans").is_some_and(Value::is_array)
            || field(o, "testCases").is_some_and(Value::is_array)
        {
            return Some(Format::Deepeval);
        }
    }
    if let Value::Array(a) = v {
        if a.first()
            .is_some_and(|x| s(x, "object") == Some("chat.completion.chunk"))
        {
            return Some(Format::OpenaiChat);
        }
        if is_ui_chunk_stream(a) {
            return Some(Format::VercelAiSdk);
        }
        if !a.is_empty() && a.iter().all(is_gemini_content) {
            return Some(Format::Gemini);
        }
    }
    let msgs = messages(v)?;
    if msgs.is_empty() {
        return None;
    }
    if msgs.iter().any(is_langchain_message) {
        return Some(Format::Langchain);
    }
    if msgs.iter().any(is_responses_item) {
        return Some(Format::OpenaiResponses);
    }
    if msgs.iter().any(|m| {
        field(m, "parts").is_some_and(Value::is_array) || field(m, "toolInvocations").is_some()
    }) {
        return Some(Format::VercelAiSdk);
    }
    let mut anthropic = false;
    let mut vercel = false;
    for m in msgs {
        for b in arr(m, "content") {
            match s(b, "type") {
                Some("tool-call" | "tool-result") => vercel = true,
                Some(
                    "tool_use" | "tool_result" | "server_tool_use" | "thinking"
                    | "redacted_thinking" | "mcp_tool_use" | "mcp_tool_result",
                ) => anthropic = true,
                _ => {}
            }
        }
        if vercel {
            break;
        }
    }
    if vercel {
        return Some(Format::VercelAiSdk);
    }
    if anthropic {
        return Some(Format::AnthropicMessages);
    }
    if msgs.iter().any(|m| {
        field(m, "tool_calls").is_some_and(|t| !t.is_null())
            || field(m, "function_call").is_some_and(|t| !t.is_null())
            || matches!(s(m, "role"), Some("tool" | "function"))
    }) {
        return Some(Format::OpenaiChat);
    }
    // No tool activity at all: a plain chat transcript. Read as OpenAI Chat (zero calls) when it
    // looks like role/content messages; an Anthropic request is told by its `max_tokens`.
    if msgs.iter().all(|m| field(m, "role").is_some()) {
        if field(v, "max_tokens").is_some() && field(v, "system").is_some() {
            return Some(Format::AnthropicMessages);
        }
        return Some(Format::OpenaiChat);
    }
    None
}

fn is_responses_item(v: &Value) -> bool {
    s(v, "type").is_some_and(|t| RESPONSES_ITEM_TYPES.contains(&t))
        && (field(v, "role").is_none()
            || s(v, "type") == Some("message")
                && field(v, "content").is_some_and(Value::is_array)
                && field(v, "parts").is_none())
}

fn is_gemini_content(v: &Value) -> bool {
    field(v, "role").is_some()
        && field(v, "parts")
            .and_then(Value::as_array)
            .is_some_and(|p| p.iter().all(|part| field(part, "type").is_none()))
}

fn is_langchain_message(m: &Value) -> bool {
    if field(m, "lc").is_some() && s(m, "type") == Some("constructor") {
        return true;
    }
    let lc_type = s(m, "type").is_some_and(|t| {
        matches!(
            t,
            "human" | "ai" | "tool" | "system" | "AIMessageChunk" | "function" | "chat"
        )
    });
    lc_type && (field(m, "data").is_some_and(Value::is_object) || field(m, "role").is_none())
}

/// The other formats a document (or dataset line) detected as `chosen` also has the marks of,
/// each with the mark seen. Detection takes the first match of its order; these are the
/// runners-up a user should hear about, since `--input-format` reads the file as one of them instead.
/// Only distinctive marks count (a role/content list with no tool activity matches nothing).
pub(crate) fn also_matches(v: &Value, chosen: Format) -> Vec<(Format, &'static str)> {
    let msgs = messages(v).unwrap_or(&[]);
    let blocks = |types: &[&str]| {
        msgs.iter().any(|m| {
            arr(m, "content")
                .iter()
                .any(|b| s(b, "type").is_some_and(|t| types.contains(&t)))
        })
    };
    let o = v.as_object();
    let has = |k: &str| o.is_some_and(|o| o.contains_key(k));
    let object = s(v, "object");
    let mut marks: Vec<(Format, &'static str)> = Vec::new();
    let mut mark = |f: Format, yes: bool, what: &'static str| {
        if yes && f != chosen && !marks.iter().any(|(g, _)| *g == f) {
            marks.push((f, what));
        }
    };
    mark(
        Format::McpJsonrpc,
        is_jsonrpc(v),
        "`\"jsonrpc\": \"2.0\"` messages",
    );
    mark(
        Format::OtelGenai,
        has("resourceSpans") || has("resourceLogs") || super::readers::otel_sdk_spans(v),
        "OpenTelemetry spans",
    );
    mark(
        Format::OpenaiResponses,
        (object == Some("response") && field(v, "output").is_some_and(Value::is_array))
            || msgs
                .iter()
                .any(|m| is_responses_item(m) && s(m, "type").is_some_and(|t| t != "message")),
        "Responses items (`function_call`, …)",
    );
    mark(
        Format::OpenaiChat,
        matches!(object, Some("chat.completion" | "chat.completion.chunk"))
            || field(v, "choices").is_some_and(Value::is_array)
            || is_cohere_response(v)
            || msgs.iter().any(|m| {
                arr(m, "tool_calls")
                    .iter()
                    .any(|c| field(c, "function").is_some_and(Value::is_object))
            }),
        "`tool_calls` with `function` entries",
    );
    mark(
        Format::AnthropicMessages,
        (s(v, "type") == Some("message") && s(v, "role") == Some("assistant"))
            || blocks(&["tool_use", "tool_result", "server_tool_use"]),
        "`tool_use`/`tool_result` content blocks",
    );
    mark(
        Format::VercelAiSdk,
        is_vercel_result(v)
            || v.as_array().is_some_and(|a| is_ui_chunk_stream(a))
            || blocks(&["tool-call", "tool-result"])
            || msgs.iter().any(|m| field(m, "toolInvocations").is_some()),
        "Vercel AI SDK steps, tool parts or chunks",
    );
    mark(
        Format::Langchain,
        msgs.iter().any(is_langchain_message),
        "LangChain typed messages",
    );
    mark(
        Format::Gemini,
        has("candidates") || has("contents") || is_interaction(v) || is_gemini_cli_line(v),
        "Gemini `candidates`/`contents`",
    );
    mark(
        Format::GeminiCli,
        is_gemini_cli_session(v),
        "a gemini-cli `{sessionId, projectHash, messages}` session",
    );
    mark(
        Format::SweAgent,
        is_swe_agent_trajectory(v),
        "a SWE-agent `{trajectory, history}` trajectory",
    );
    mark(
        Format::InspectAi,
        is_inspect_log(v),
        "an Inspect AI `{version, status, eval}` eval log",
    );
    mark(
        Format::Openhands,
        is_openhands_trajectory(v),
        "an OpenHands event list",
    );
    mark(Format::AdkEvalset, is_adk_evalset(v), "an ADK eval set");
    mark(
        Format::Langfuse,
        super::readers::langfuse_export(v),
        "Langfuse observations",
    );
    mark(
        Format::PydanticAi,
        super::readers::pydantic_ai_history(v),
        "pydantic-ai `{kind, parts}` messages",
    );
    mark(
        Format::AdkSession,
        super::readers::adk_session(v),
        "an ADK session `{id, app_name, events}`",
    );
    mark(
        Format::OpenaiAgents,
        super::readers::openai_agents_doc(v),
        "an OpenAI Agents SDK run state, run items or trace",
    );
    mark(
        Format::Deepeval,
        [
            "tools_called",
            "toolsCalled",
            "expected_tools",
            "expectedTools",
            "toolSpans",
            "testCases",
        ]
        .iter()
        .any(|k| has(k)),
        "DeepEval `tools_called`/`toolSpans`/`testCases`",
    );
    mark(
        Format::BedrockConverse,
        super::readers::bedrock_doc(v),
        "Bedrock Converse `toolUse`/`toolResult` blocks",
    );
    marks
}

/// Every format and what it looks for (for [`super::ReadError::DetectionFailed`]; what the
/// file holds is said once, beside).
pub(crate) fn rejections() -> Vec<Rejection> {
    Format::ALL
        .iter()
        .map(|f| Rejection {
            format: *f,
            reason: f.def().marks.to_string(),
        })
        .collect()
}

/// A short description of a value's top level for error messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Object(o) => {
            let keys: Vec<String> = o.keys().take(8).map(|k| format!("`{k}`")).collect();
            let more = if o.len() > 8 { ", …" } else { "" };
            if keys.is_empty() {
                "an empty object".to_string()
            } else {
                format!("an object with keys {}{more}", keys.join(", "))
            }
        }
        Value::Array(a) => match a.first() {
            None => "an empty array".to_string(),
            Some(first) => format!(
                "an array of {} items, the first {}",
                a.len(),
                describe_scalarish(first)
            ),
        },
        other => format!("a JSON {}", kind(other)),
    }
}

fn describe_scalarish(v: &Value) -> String {
    match v {
        Value::Object(o) => {
            let keys: Vec<String> = o.keys().take(6).map(|k| format!("`{k}`")).collect();
            format!("an object with keys {}", keys.join(", "))
        }
        other => format!("a {}", kind(other)),
    }
}

/// The JSON kind of a value, in words.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
