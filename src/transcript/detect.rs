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
    if has("candidates") || is_gemini_cli_line(v) || is_interaction(v) || is_interaction_event(v) {
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

/// An Azure OpenAI content-filter chunk of a Chat Completions stream: `object: ""`, filter
/// results and no `delta` or `message` (the OpenAI SDK skips it). It decides nothing.
pub(crate) fn is_filter_chunk<'s, J: Json<'s>>(v: J) -> bool {
    v.str_of("object") == Some("")
        && v.get("choices").is_some_and(J::is_arr)
        && (v.get("prompt_filter_results").is_some()
            || v.items_of("choices")
                .all(|c| c.get("delta").is_none() && c.get("message").is_none()))
}

/// Whether a list's first item that is not a filter chunk is a Chat Completions chunk.
pub(crate) fn is_chunk_list<'s, J: Json<'s>>(mut items: impl Iterator<Item = J>) -> bool {
    items
        .find(|x| !is_filter_chunk(*x))
        .is_some_and(|x| x.str_of("object") == Some("chat.completion.chunk"))
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
/// old-style ADK test file: a list of `{query, expected_tool_use}`, or of named sets of them
/// (`[{name, data: [{query, expected_tool_use}]}]`, the older eval data shape).
fn is_adk_evalset<'s, J: Json<'s>>(v: J) -> bool {
    let query = |q: J| {
        q.get("query").is_some()
            && (q.get("expected_tool_use").is_some_and(J::is_arr)
                || q.get("expectedToolUse").is_some_and(J::is_arr))
    };
    match v.as_items() {
        Some(mut a) => {
            a.len() > 0
                && a.all(|q| {
                    query(q)
                        || q.get("data").and_then(J::as_items).is_some_and(|mut d| {
                            d.len() > 0 && d.all(query) && q.get("name").is_some_and(J::is_str)
                        })
                })
        }
        None => {
            (v.get("eval_set_id").is_some() && v.get("eval_cases").is_some_and(J::is_arr))
                || (v.get("evalSetId").is_some() && v.get("evalCases").is_some_and(J::is_arr))
        }
    }
}

/// A SWE-agent trajectory: `trajectory` and `history` arrays, or a `history` alone (what
/// SWE-agent's demonstrations keep) of chat messages — each with a `role` and no Gemini `parts`
/// — of which some carry SWE-agent's `message_type` or OpenAI `tool_calls`/`tool_call_ids`.
fn is_swe_agent_trajectory<'s, J: Json<'s>>(v: J) -> bool {
    let Some(history) = v.get("history").and_then(J::as_items) else {
        return false;
    };
    if v.get("trajectory").is_some_and(J::is_arr) {
        return true;
    }
    v.get("contents").is_none()
        && history.len() > 0
        && history
            .clone()
            .all(|m| m.get("role").is_some_and(J::is_str) && m.get("parts").is_none())
        && { history }.any(|m| {
            ["message_type", "tool_calls", "tool_call_ids"]
                .iter()
                .any(|k| m.get(k).is_some())
        })
}

/// A gemini-cli session file: `sessionId`, `projectHash` and a `messages` array.
fn is_gemini_cli_session<'s, J: Json<'s>>(v: J) -> bool {
    v.get("sessionId").is_some_and(J::is_str)
        && v.get("projectHash").is_some_and(J::is_str)
        && v.get("messages").is_some_and(J::is_arr)
}

/// A Google Interactions API stream event: an `event_type` of the interaction, its steps or
/// their content (`interaction.created`, `step.start`, `step.delta`, …) beside the
/// `interaction`, its id, a `step`, a `delta` or an `index`.
pub(crate) fn is_interaction_event<'s, J: Json<'s>>(v: J) -> bool {
    v.str_of("event_type").is_some_and(|t| {
        ["interaction.", "step.", "content."]
            .iter()
            .any(|p| t.starts_with(p))
    }) && ["interaction", "interaction_id", "step", "delta", "index"]
        .iter()
        .any(|k| v.get(k).is_some())
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

/// The members of a message detection looks at, found in one pass over its members.
#[derive(Clone, Copy)]
struct Msg<J> {
    role: Option<J>,
    ty: Option<J>,
    content: Option<J>,
    tool_calls: Option<J>,
    function_call: Option<J>,
    parts: Option<J>,
    tool_invocations: Option<J>,
    lc: Option<J>,
    data: Option<J>,
    /// A member that is a Bedrock ConverseStream event (an object under an event's name).
    stream_event: bool,
}

impl<'s, J: Json<'s>> Msg<J> {
    fn of(m: J) -> Msg<J> {
        let mut f = Msg {
            role: None,
            ty: None,
            content: None,
            tool_calls: None,
            function_call: None,
            parts: None,
            tool_invocations: None,
            lc: None,
            data: None,
            stream_event: false,
        };
        for (k, v) in m.entries() {
            let slot = match k {
                "role" => &mut f.role,
                "type" => &mut f.ty,
                "content" => &mut f.content,
                "tool_calls" => &mut f.tool_calls,
                "function_call" => &mut f.function_call,
                "parts" => &mut f.parts,
                "toolInvocations" => &mut f.tool_invocations,
                "lc" => &mut f.lc,
                "data" => &mut f.data,
                _ => {
                    f.stream_event |= super::readers::bedrock_stream_member(k, v);
                    continue;
                }
            };
            // The first of a repeated key, as `get` finds it.
            slot.get_or_insert(v);
        }
        f
    }

    fn ty(&self) -> Option<&'s str> {
        self.ty.and_then(J::as_str)
    }

    /// An OpenAI Responses item.
    fn responses_item(&self) -> bool {
        self.ty().is_some_and(|t| RESPONSES_ITEM_TYPES.contains(&t))
            && (self.role.is_none()
                || self.ty() == Some("message")
                    && self.content.is_some_and(J::is_arr)
                    && self.parts.is_none())
    }

    /// A LangChain message (serialised, or as `messages_to_dict` writes it).
    fn langchain(&self) -> bool {
        if self.lc.is_some() && self.ty() == Some("constructor") {
            return true;
        }
        let lc_type = self.ty().is_some_and(|t| {
            matches!(
                t,
                "human" | "ai" | "tool" | "system" | "AIMessageChunk" | "function" | "chat"
            )
        });
        lc_type && (self.data.is_some_and(J::is_obj) || self.role.is_none())
    }
}

/// What detection and the ambiguity marks look for in a message list, found in one pass over
/// the messages (each question is answered for every message at once, not one scan each).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Marks {
    /// Messages there are.
    count: usize,
    /// Some message is a LangChain message.
    langchain: bool,
    /// Some message is a Responses item; some is one that is not a `message`.
    responses_item: bool,
    responses_call: bool,
    /// Some message has a `parts` array or `toolInvocations`; some has `toolInvocations`.
    vercel_message: bool,
    tool_invocations: bool,
    /// Some content block is a Vercel tool part (`tool-call`, `tool-result`).
    vercel_blocks: bool,
    /// Some content block is an Anthropic block of tool use, thinking or MCP; some is one of
    /// tool use (`tool_use`, `tool_result`, `server_tool_use`).
    anthropic_blocks: bool,
    anthropic_tool_blocks: bool,
    /// Some message has OpenAI tool activity (`tool_calls` or `function_call` not null, or role
    /// `tool` / `function`); some `tool_calls` entry has a `function` object.
    openai: bool,
    openai_functions: bool,
    /// Every message has a role.
    all_roles: bool,
    /// Some message with a role has a block with no `type` and a `toolUse` or `toolResult`
    /// object (Bedrock Converse).
    bedrock_blocks: bool,
    /// Some message is a Bedrock ConverseStream event; every message is an object.
    stream_event: bool,
    all_objects: bool,
}

impl Marks {
    /// The marks of `msgs`.
    pub(crate) fn of<'s, J: Json<'s>>(msgs: impl Iterator<Item = J>) -> Marks {
        let mut k = Marks {
            count: 0,
            langchain: false,
            responses_item: false,
            responses_call: false,
            vercel_message: false,
            tool_invocations: false,
            vercel_blocks: false,
            anthropic_blocks: false,
            anthropic_tool_blocks: false,
            openai: false,
            openai_functions: false,
            all_roles: true,
            bedrock_blocks: false,
            stream_event: false,
            all_objects: true,
        };
        for m in msgs {
            let f = Msg::of(m);
            k.count += 1;
            k.all_objects &= m.is_obj();
            k.stream_event |= f.stream_event;
            k.langchain |= f.langchain();
            let item = f.responses_item();
            k.responses_item |= item;
            k.responses_call |= item && f.ty().is_some_and(|t| t != "message");
            k.tool_invocations |= f.tool_invocations.is_some();
            k.vercel_message |= f.parts.is_some_and(J::is_arr) || f.tool_invocations.is_some();
            k.all_roles &= f.role.is_some();
            let role = f.role.and_then(J::as_str);
            k.openai |= f.tool_calls.is_some_and(|t| !t.is_null())
                || f.function_call.is_some_and(|t| !t.is_null())
                || matches!(role, Some("tool" | "function"));
            if let Some(calls) = f.tool_calls.and_then(J::as_items) {
                k.openai_functions |= { calls }.any(|c| c.get("function").is_some_and(J::is_obj));
            }
            for b in f.content.and_then(J::as_items).into_iter().flatten() {
                let ty = b.get("type");
                match ty.and_then(J::as_str) {
                    Some("tool-call" | "tool-result") => k.vercel_blocks = true,
                    Some("tool_use" | "tool_result" | "server_tool_use") => {
                        k.anthropic_blocks = true;
                        k.anthropic_tool_blocks = true;
                    }
                    Some("thinking" | "redacted_thinking" | "mcp_tool_use" | "mcp_tool_result") => {
                        k.anthropic_blocks = true;
                    }
                    _ => {}
                }
                k.bedrock_blocks |= f.role.is_some()
                    && ty.is_none()
                    && (b.get("toolUse").is_some_and(J::is_obj)
                        || b.get("toolResult").is_some_and(J::is_obj));
            }
        }
        k
    }

    /// The marks of the messages of `v` (none when it has no message list).
    pub(crate) fn of_doc<'s, J: Json<'s>>(v: J) -> Marks {
        Marks::of(messages(v).into_iter().flatten())
    }

    /// A list of Bedrock ConverseStream events: `v` is the list itself.
    pub(crate) fn bedrock_stream(&self) -> bool {
        self.stream_event && self.all_objects
    }

    /// Messages with Bedrock Converse tool blocks.
    pub(crate) fn bedrock_messages(&self) -> bool {
        self.bedrock_blocks
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
    doc_marked(v, &Marks::of_doc(v))
}

/// [`doc`] given the marks of `v`'s messages ([`Marks::of_doc`]).
pub(crate) fn doc_marked<'s, J: Json<'s>>(v: J, marks: &Marks) -> Result<Format, String> {
    if let Some(f) = line(v) {
        return Ok(f);
    }
    if let Some(f) = doc_shape(v, marks) {
        return Ok(f);
    }
    Err(describe(v))
}

fn doc_shape<'s, J: Json<'s>>(v: J, marks: &Marks) -> Option<Format> {
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
    if super::readers::letta_agent_file(v) {
        return Some(Format::LettaAgentFile);
    }
    if super::readers::openai_agents_doc(v) {
        return Some(Format::OpenaiAgents);
    }
    if super::readers::bedrock_doc(v, marks) {
        return Some(Format::BedrockConverse);
    }
    if v.is_obj() {
        let object = v.str_of("object");
        if (object == Some("response") && v.get("output").is_some_and(J::is_arr))
            || (object == Some("list") && Marks::of(v.items_of("data")).responses_item)
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
    if let Some(a) = v.as_items() {
        if is_chunk_list(a.clone()) {
            return Some(Format::OpenaiChat);
        }
        if is_ui_chunk_stream::<J>(a.clone()) {
            return Some(Format::VercelAiSdk);
        }
        if a.len() > 0 && a.clone().all(is_gemini_content) {
            return Some(Format::Gemini);
        }
        if is_gemini_response_list(a) {
            return Some(Format::Gemini);
        }
    }
    if marks.count == 0 {
        return None;
    }
    if marks.langchain {
        return Some(Format::Langchain);
    }
    if marks.responses_item {
        return Some(Format::OpenaiResponses);
    }
    if marks.vercel_message || marks.vercel_blocks {
        return Some(Format::VercelAiSdk);
    }
    if marks.anthropic_blocks {
        return Some(Format::AnthropicMessages);
    }
    if marks.openai {
        return Some(Format::OpenaiChat);
    }
    // No tool activity at all: a plain chat transcript. Read as OpenAI Chat (zero calls) when it
    // looks like role/content messages; an Anthropic request is told by its `max_tokens`.
    if marks.all_roles {
        if v.get("max_tokens").is_some() && v.get("system").is_some() {
            return Some(Format::AnthropicMessages);
        }
        return Some(Format::OpenaiChat);
    }
    None
}

/// The body of a Gemini `streamGenerateContent` call without `alt=sse`: one JSON array of the
/// streamed `GenerateContentResponse`s, the first with `candidates` (a last one may hold only
/// `usageMetadata`).
pub(crate) fn is_gemini_response_list<'s, J: Json<'s>>(mut items: impl Iterator<Item = J>) -> bool {
    items
        .next()
        .is_some_and(|x| x.get("candidates").is_some_and(J::is_arr))
        && items
            .all(|x| x.get("candidates").is_some_and(J::is_arr) || x.get("usageMetadata").is_some())
}

fn is_gemini_content<'s, J: Json<'s>>(v: J) -> bool {
    v.get("role").is_some()
        && v.get("parts")
            .and_then(J::as_items)
            .is_some_and(|mut p| p.all(|part| part.get("type").is_none()))
}

/// The other formats a document (or dataset line) detected as `chosen` also has the marks of,
/// each with the mark seen. Detection takes the first match of its order; these are the
/// runners-up a user should hear about, since `--input-format` reads the file as one of them instead.
/// Only distinctive marks count (a role/content list with no tool activity matches nothing).
/// `seen` are the marks of `v`'s messages ([`Marks::of_doc`]).
pub(crate) fn also_matches<'s, J: Json<'s>>(
    v: J,
    chosen: Format,
    seen: &Marks,
) -> Vec<(Format, &'static str)> {
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
            || seen.responses_call,
        "Responses items (`function_call`, …)",
    );
    mark(
        Format::OpenaiChat,
        matches!(object, Some("chat.completion" | "chat.completion.chunk"))
            || v.get("choices").is_some_and(J::is_arr)
            || is_cohere_response(v)
            || seen.openai_functions,
        "`tool_calls` with `function` entries",
    );
    mark(
        Format::AnthropicMessages,
        (v.str_of("type") == Some("message") && v.str_of("role") == Some("assistant"))
            || seen.anthropic_tool_blocks,
        "`tool_use`/`tool_result` content blocks",
    );
    mark(
        Format::VercelAiSdk,
        is_vercel_result(v)
            || v.as_items().is_some_and(is_ui_chunk_stream::<J>)
            || seen.vercel_blocks
            || seen.tool_invocations,
        "Vercel AI SDK steps, tool parts or chunks",
    );
    mark(
        Format::Langchain,
        seen.langchain,
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
        super::readers::bedrock_doc(v, seen),
        "Bedrock Converse `toolUse`/`toolResult` blocks",
    );
    mark(
        Format::LettaAgentFile,
        super::readers::letta_agent_file(v),
        "a Letta agent file",
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
