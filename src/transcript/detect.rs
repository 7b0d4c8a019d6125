//! Content sniffing: which format a parsed JSON document or JSONL line is.
//!
//! Rules follow the detection table of `FORMATS.md` (first match wins), extended with the real
//! shapes of `SOURCES.md`; the order and the judgement calls are in `docs/formats.md`.

use super::error::Rejection;
use super::Format;
use crate::json::view::{Json, Kind};

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
fn is_ui_chunk_stream<'s, J: Json<'s>>(items: J::Items) -> bool {
    let kebab = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    items.len() > 0
        && items
            .clone()
            .all(|x| x.str_of("type").is_some_and(kebab) && x.get("role").is_none())
        && { items }.any(|x| {
            x.str_of("type")
                .is_some_and(|t| UI_CHUNK_TYPES.contains(&t))
        })
}

/// A JSONL line that decides the file is one session of `Format` (one event per line).
pub(crate) fn line<'s, J: Json<'s>>(v: J) -> Option<Format> {
    if is_jsonrpc(v) {
        return Some(Format::McpJsonrpc);
    }
    if !v.is_obj() {
        return None;
    }
    let has = |k: &str| v.get(k).is_some();
    let ty = v.str_of("type");
    if has("payload") && has("timestamp") && ty.is_some_and(|t| CODEX_LINE_TYPES.contains(&t)) {
        return Some(Format::CodexCli);
    }
    // `claude -p --output-format stream-json` writes the same messages with `session_id`.
    if ty.is_some_and(|t| matches!(t, "user" | "assistant" | "system"))
        && (has("sessionId") || has("session_id"))
    {
        return Some(Format::ClaudeCode);
    }
    if has("resourceSpans") || has("resourceLogs") {
        return Some(Format::OtelGenai);
    }
    if has("candidates") || is_gemini_cli_line(v) || is_interaction(v) {
        return Some(Format::Gemini);
    }
    if is_vercel_result(v) {
        return Some(Format::VercelAiSdk);
    }
    if v.str_of("object") == Some("chat.completion.chunk") {
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
pub(crate) fn is_anthropic_event<'s, J: Json<'s>>(v: J) -> bool {
    v.str_of("type") == Some("message_start")
        && v.get("message")
            .is_some_and(|m| m.str_of("type") == Some("message"))
}

/// An OpenAI Responses stream event: `type: "response.…"` with a `sequence_number`.
pub(crate) fn is_responses_event<'s, J: Json<'s>>(v: J) -> bool {
    v.str_of("type").is_some_and(|t| t.starts_with("response."))
        && v.get("sequence_number")
            .is_some_and(|n| n.as_u64().is_some())
}

/// A line that hints at a Claude Code session without deciding it (`summary`,
/// `file-history-snapshot` and similar bookkeeping lines open many session files).
pub(crate) fn claude_code_hint<'s, J: Json<'s>>(v: J) -> bool {
    matches!(
        v.str_of("type"),
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
    ) && v.get("role").is_none()
}

fn is_jsonrpc<'s, J: Json<'s>>(v: J) -> bool {
    match v.kind() {
        Kind::Obj => v.str_of("jsonrpc") == Some("2.0"),
        Kind::Arr => {
            let mut items = v.items();
            items.len() > 0 && items.all(|x| x.is_obj() && x.str_of("jsonrpc") == Some("2.0"))
        }
        _ => false,
    }
}

/// A Cohere v2 chat response: `{id, message: {role, tool_calls?, tool_plan?, content?},
/// finish_reason, usage}` (read as OpenAI Chat: its `tool_calls` have the same shape).
pub(crate) fn is_cohere_response<'s, J: Json<'s>>(v: J) -> bool {
    v.get("finish_reason").is_some_and(J::is_str)
        && v.get("message")
            .is_some_and(|m| m.get("role").is_some_and(J::is_str))
        && v.get("choices").is_none()
        && v.get("type").is_none()
}

/// An Inspect AI eval log: a numeric `version`, a `status` string and an `eval` object (the
/// header every log has; `samples` may be left out of a log).
pub(crate) fn is_inspect_log<'s, J: Json<'s>>(v: J) -> bool {
    v.get("version").is_some_and(J::is_num)
        && v.get("status").is_some_and(J::is_str)
        && v.get("eval").is_some_and(J::is_obj)
}

/// An OpenHands trajectory: a non-empty list of events (bare, or under `trajectory` with no
/// `history`), each with a `source` string, an `action` or `observation` string, and no `role`.
fn is_openhands_trajectory<'s, J: Json<'s>>(v: J) -> bool {
    let mut events = match v.as_items() {
        Some(a) => a,
        None if v.get("history").is_none() => match v.get("trajectory").and_then(J::as_items) {
            Some(a) => a,
            None => return false,
        },
        None => return false,
    };
    events.len() > 0
        && events.all(|e| {
            e.get("source").is_some_and(J::is_str)
                && (e.get("action").is_some_and(J::is_str)
                    || e.get("observation").is_some_and(J::is_str))
                && e.get("role").is_none()
        })
}

/// A Google ADK eval set (`eval_set_id` or `evalSetId` with `eval_cases`/`evalCases`), or an
/// old-style ADK test file (a list of `{query, expected_tool_use}`).
fn is_adk_evalset<'s, J: Json<'s>>(v: J) -> bool {
    match v.as_items() {
        Some(mut a) => {
            a.len() > 0
                && a.all(|q| {
                    q.get("query").is_some()
                        && (q.get("expected_tool_use").is_some_and(J::is_arr)
                            || q.get("expectedToolUse").is_some_and(J::is_arr))
                })
        }
        None => {
            (v.get("eval_set_id").is_some() && v.get("eval_cases").is_some_and(J::is_arr))
                || (v.get("evalSetId").is_some() && v.get("evalCases").is_some_and(J::is_arr))
        }
    }
}

/// A SWE-agent trajectory: `trajectory` and `history` arrays.
fn is_swe_agent_trajectory<'s, J: Json<'s>>(v: J) -> bool {
    v.get("trajectory").is_some_and(J::is_arr) && v.get("history").is_some_and(J::is_arr)
}

/// A gemini-cli session file: `sessionId`, `projectHash` and a `messages` array.
fn is_gemini_cli_session<'s, J: Json<'s>>(v: J) -> bool {
    v.get("sessionId").is_some_and(J::is_str)
        && v.get("projectHash").is_some_and(J::is_str)
        && v.get("messages").is_some_and(J::is_arr)
}

/// A Google Interactions API response: `object: "interaction"` and `steps[]`.
pub(crate) fn is_interaction<'s, J: Json<'s>>(v: J) -> bool {
    v.str_of("object") == Some("interaction") && v.get("steps").is_some_and(J::is_arr)
}

/// A Vercel `generateText` result: a `steps` array whose steps are the SDK's step results
/// (each has `finishReason`, v4 `stepType`, `toolCalls`, or `tool-…` content parts), and no `object` (API responses name
/// their kind there). `steps` alone is no sign: Google Interactions responses, pydantic-ai and
/// other frameworks use the word too. An empty `steps` needs a result key beside it.
fn is_vercel_result<'s, J: Json<'s>>(v: J) -> bool {
    let Some(mut steps) = v.get("steps").and_then(J::as_items) else {
        return false;
    };
    if v.get("object").is_some() {
        return false;
    }
    if steps.len() == 0 {
        return ["finishReason", "totalUsage", "toolCalls", "toolResults"]
            .iter()
            .any(|k| v.get(k).is_some());
    }
    steps.all(|st| {
        st.is_obj()
            && st.get("type").is_none()
            && (["finishReason", "stepType", "toolCalls", "toolResults"]
                .iter()
                .any(|k| st.get(k).is_some())
                || st
                    .items_of("content")
                    .any(|p| p.str_of("type").is_some_and(|t| t.starts_with("tool-"))))
    })
}

fn is_gemini_cli_line<'s, J: Json<'s>>(v: J) -> bool {
    match v.get("response") {
        Some(r) if r.is_obj() => r.get("candidates").is_some(),
        Some(r) => r
            .as_items()
            .and_then(|mut a| a.next())
            .is_some_and(|r| r.get("candidates").is_some()),
        None => false,
    }
}

/// The message list of a document, if it has one: a bare array, or `messages` / `input`.
pub(crate) fn messages<'s, J: Json<'s>>(v: J) -> Option<J::Items> {
    match v.kind() {
        Kind::Arr => Some(v.items()),
        Kind::Obj => v
            .get("messages")
            .or_else(|| v.get("input"))
            .and_then(J::as_items),
        _ => None,
    }
}

/// Detect the format of a whole JSON document (or a dataset line).
/// `Err` holds what the document is, in words.
pub(crate) fn doc<'s, J: Json<'s>>(v: J) -> Result<Format, String> {
    if let Some(f) = line(v) {
        return Ok(f);
    }
    if let Some(f) = doc_shape(v) {
        return Ok(f);
    }
    Err(describe(v))
}

fn doc_shape<'s, J: Json<'s>>(v: J) -> Option<Format> {
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
    if v.is_obj() {
        let object = v.str_of("object");
        if (object == Some("response") && v.get("output").is_some_and(J::is_arr))
            || (object == Some("list") && v.items_of("data").any(is_responses_item))
        {
            return Some(Format::OpenaiResponses);
        }
        if object == Some("chat.completion")
            || v.get("choices").is_some_and(J::is_arr)
            || is_cohere_response(v)
        {
            return Some(Format::OpenaiChat);
        }
        if v.str_of("type") == Some("message")
            && v.str_of("role") == Some("assistant")
            && v.get("content").is_some_and(J::is_arr)
        {
            return Some(Format::AnthropicMessages);
        }
        if v.get("contents").is_some_and(J::is_arr) {
            return Some(Format::Gemini);
        }
        if [
            "tools_called",
            "toolsCalled",
            "expected_tools",
            "expectedTools",
        ]
        .iter()
        .any(|k| v.get(k).is_some())
            || v.get("toolSpans").is_some_and(J::is_arr)
            || v.get("testCases").is_some_and(J::is_arr)
        {
            return Some(Format::Deepeval);
        }
    }
    if let Some(mut a) = v.as_items() {
        if a.clone()
            .next()
            .is_some_and(|x| x.str_of("object") == Some("chat.completion.chunk"))
        {
            return Some(Format::OpenaiChat);
        }
        if is_ui_chunk_stream::<J>(a.clone()) {
            return Some(Format::VercelAiSdk);
        }
        if a.len() > 0 && a.all(is_gemini_content) {
            return Some(Format::Gemini);
        }
    }
    let msgs = messages(v)?;
    if msgs.len() == 0 {
        return None;
    }
    if msgs.clone().any(is_langchain_message) {
        return Some(Format::Langchain);
    }
    if msgs.clone().any(is_responses_item) {
        return Some(Format::OpenaiResponses);
    }
    if msgs
        .clone()
        .any(|m| m.get("parts").is_some_and(J::is_arr) || m.get("toolInvocations").is_some())
    {
        return Some(Format::VercelAiSdk);
    }
    let mut anthropic = false;
    let mut vercel = false;
    for m in msgs.clone() {
        for b in m.items_of("content") {
            match b.str_of("type") {
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
    if msgs.clone().any(|m| {
        m.get("tool_calls").is_some_and(|t| !t.is_null())
            || m.get("function_call").is_some_and(|t| !t.is_null())
            || matches!(m.str_of("role"), Some("tool" | "function"))
    }) {
        return Some(Format::OpenaiChat);
    }
    // No tool activity at all: a plain chat transcript. Read as OpenAI Chat (zero calls) when it
    // looks like role/content messages; an Anthropic request is told by its `max_tokens`.
    if { msgs }.all(|m| m.get("role").is_some()) {
        if v.get("max_tokens").is_some() && v.get("system").is_some() {
            return Some(Format::AnthropicMessages);
        }
        return Some(Format::OpenaiChat);
    }
    None
}

fn is_responses_item<'s, J: Json<'s>>(v: J) -> bool {
    v.str_of("type")
        .is_some_and(|t| RESPONSES_ITEM_TYPES.contains(&t))
        && (v.get("role").is_none()
            || v.str_of("type") == Some("message")
                && v.get("content").is_some_and(J::is_arr)
                && v.get("parts").is_none())
}

fn is_gemini_content<'s, J: Json<'s>>(v: J) -> bool {
    v.get("role").is_some()
        && v.get("parts")
            .and_then(J::as_items)
            .is_some_and(|mut p| p.all(|part| part.get("type").is_none()))
}

fn is_langchain_message<'s, J: Json<'s>>(m: J) -> bool {
    if m.get("lc").is_some() && m.str_of("type") == Some("constructor") {
        return true;
    }
    let lc_type = m.str_of("type").is_some_and(|t| {
        matches!(
            t,
            "human" | "ai" | "tool" | "system" | "AIMessageChunk" | "function" | "chat"
        )
    });
    lc_type && (m.get("data").is_some_and(J::is_obj) || m.get("role").is_none())
}

/// The other formats a document (or dataset line) detected as `chosen` also has the marks of,
/// each with the mark seen. Detection takes the first match of its order; these are the
/// runners-up a user should hear about, since `--input-format` reads the file as one of them instead.
/// Only distinctive marks count (a role/content list with no tool activity matches nothing).
pub(crate) fn also_matches<'s, J: Json<'s>>(v: J, chosen: Format) -> Vec<(Format, &'static str)> {
    let msgs = messages(v).unwrap_or_else(|| v.items_of_nothing());
    let blocks = |types: &[&str]| {
        msgs.clone().any(|m| {
            m.items_of("content")
                .any(|b| b.str_of("type").is_some_and(|t| types.contains(&t)))
        })
    };
    let has = |k: &str| v.get(k).is_some();
    let object = v.str_of("object");
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
        (object == Some("response") && v.get("output").is_some_and(J::is_arr))
            || msgs
                .clone()
                .any(|m| is_responses_item(m) && m.str_of("type").is_some_and(|t| t != "message")),
        "Responses items (`function_call`, …)",
    );
    mark(
        Format::OpenaiChat,
        matches!(object, Some("chat.completion" | "chat.completion.chunk"))
            || v.get("choices").is_some_and(J::is_arr)
            || is_cohere_response(v)
            || msgs.clone().any(|m| {
                m.items_of("tool_calls")
                    .any(|c| c.get("function").is_some_and(J::is_obj))
            }),
        "`tool_calls` with `function` entries",
    );
    mark(
        Format::AnthropicMessages,
        (v.str_of("type") == Some("message") && v.str_of("role") == Some("assistant"))
            || blocks(&["tool_use", "tool_result", "server_tool_use"]),
        "`tool_use`/`tool_result` content blocks",
    );
    mark(
        Format::VercelAiSdk,
        is_vercel_result(v)
            || v.as_items().is_some_and(is_ui_chunk_stream::<J>)
            || blocks(&["tool-call", "tool-result"])
            || msgs.clone().any(|m| m.get("toolInvocations").is_some()),
        "Vercel AI SDK steps, tool parts or chunks",
    );
    mark(
        Format::Langchain,
        msgs.clone().any(is_langchain_message),
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
pub(crate) fn describe<'s, J: Json<'s>>(v: J) -> String {
    match v.kind() {
        Kind::Obj => {
            let keys: Vec<String> = v.entries().take(8).map(|(k, _)| format!("`{k}`")).collect();
            let more = if v.entries().len() > 8 { ", …" } else { "" };
            if keys.is_empty() {
                "an empty object".to_string()
            } else {
                format!("an object with keys {}{more}", keys.join(", "))
            }
        }
        Kind::Arr => match v.items().next() {
            None => "an empty array".to_string(),
            Some(first) => format!(
                "an array of {} items, the first {}",
                v.items().len(),
                describe_scalarish(first)
            ),
        },
        _ => format!("a JSON {}", v.type_name()),
    }
}

fn describe_scalarish<'s, J: Json<'s>>(v: J) -> String {
    match v.kind() {
        Kind::Obj => {
            let keys: Vec<String> = v.entries().take(6).map(|(k, _)| format!("`{k}`")).collect();
            format!("an object with keys {}", keys.join(", "))
        }
        _ => format!("a {}", v.type_name()),
    }
}
