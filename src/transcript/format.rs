//! The transcript formats toolspec reads.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use super::readers::{self as r, Session};
use super::sink::Sink;
use super::spans::Seg;

/// A transcript format (one family of on-disk shapes; variants are told apart by the reader).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// OpenAI Chat Completions: requests, responses, message lists, streaming chunks.
    OpenaiChat,
    /// OpenAI Responses API: items, responses, conversation item lists.
    OpenaiResponses,
    /// Anthropic Messages API: requests, message lists, single `Message` documents.
    AnthropicMessages,
    /// Vercel AI SDK: `generateText` results, UI messages, model messages, UI message-chunk streams.
    VercelAiSdk,
    /// LangChain / LangGraph messages (flat, `messages_to_dict`, `lc` serialized).
    Langchain,
    /// OpenTelemetry GenAI spans as OTLP/JSON.
    OtelGenai,
    /// MCP JSON-RPC logs (raw JSONL, Claude Desktop logs, stdio captures).
    McpJsonrpc,
    /// Claude Code session JSONL.
    ClaudeCode,
    /// OpenAI Codex CLI rollout JSONL.
    CodexCli,
    /// Gemini API: REST bodies, SDK histories, responses, gemini-cli replays.
    Gemini,
    /// DeepEval test cases, traces, test runs and the plain `{"tools_called": [...]}` shape.
    Deepeval,
    /// gemini-cli session files (`~/.gemini/tmp/…/chats/session-*.json`).
    GeminiCli,
    /// SWE-agent trajectories (`*.traj`).
    SweAgent,
    /// Inspect AI eval logs (JSON).
    InspectAi,
    /// OpenHands trajectories (event lists).
    Openhands,
    /// Google ADK eval sets and test files.
    AdkEvalset,
    /// Langfuse trace exports.
    Langfuse,
    /// toolspec's own calls format: what `toolspec calls --json` prints (JSON or JSON lines).
    ToolspecCalls,
    /// pydantic-ai message history (`result.all_messages_json()`).
    PydanticAi,
    /// Google ADK session dumps (`Session` JSON).
    AdkSession,
    /// OpenAI Agents SDK run states, run items and trace exports.
    OpenaiAgents,
    /// AWS Bedrock Converse API: requests, saved conversations, responses, ConverseStream events.
    BedrockConverse,
    /// Letta agent files (`.af`): exported agents and their message history.
    LettaAgentFile,
    /// A custom mapping (`[formats.NAME]` in toolspec.toml): never detected, never named by
    /// `--format`; the files its `files` globs match are read with it.
    Custom,
}

/// Everything toolspec knows of one format but its detection rules, which are one ordered
/// decision in `detect` (formats are told apart by each other's marks). Adding a format: a
/// variant of [`Format`], a row of [`FORMATS`], its reader module, its rule in `detect`.
pub(crate) struct Def {
    pub format: Format,
    /// The kebab-case name (`openai-chat`), as accepted by `--input-format`.
    pub name: &'static str,
    /// Other names `--input-format` accepts (compared lowercased, `_` read as `-`).
    pub aliases: &'static [&'static str],
    /// A JSONL file of it is always one session (see [`Format::is_session_format`]).
    pub session: bool,
    /// What detection looks for, said when a file matches no format.
    pub marks: &'static str,
    /// Read one JSON document; `Err` explains a shape the format does not have.
    pub read: fn(&Value, &mut Sink) -> Result<(), String>,
    /// Read one JSON document built value by value ([`super::DocumentBuilder`]) as it is
    /// (`None`: it is read as its `Value`, built for the purpose). A reader generic over the
    /// JSON view (`json::view::Json`) fills both fields, each with a closure calling it: its
    /// lifetime is bound by the trait, so no function pointer names it.
    pub nodes: Option<NodesReader>,
    /// A document holding several transcripts: where they are, and how one is read.
    pub parts: Option<Parts>,
    /// The session reader of its JSON lines, given a line that decided the format (`None`:
    /// each line is read as a document).
    pub stream: Option<StreamReader>,
}

/// A reader of a document built value by value.
pub(crate) type NodesReader = fn(crate::json::tape::V<'_>, &mut Sink) -> Result<(), String>;

/// A session reader's constructor, given the line that decided the format.
pub(crate) type StreamReader = fn(Option<&Value>) -> Option<Session>;

/// One transcript inside a document: its path and value.
pub(crate) type Part<'v> = (Vec<Seg>, &'v Value);

/// The transcripts of a document holding several: (path, value) of each (`None`: the document
/// is one transcript), and the reader of one.
pub(crate) struct Parts {
    pub split: for<'v> fn(&'v Value) -> Option<Vec<Part<'v>>>,
    pub read: fn(&Value, &[Seg], &mut Sink),
}

/// Every format, in [`Format`]'s order (the order of the docs' detection table and of every
/// list printed); the last row, [`Format::Custom`], is never named nor detected.
#[rustfmt::skip]
pub(crate) static FORMATS: [Def; LISTED + 1] = [
    Def { format: Format::OpenaiChat, name: "openai-chat", aliases: &["openai", "chat", "openai-chat-completions"], session: false,
        marks: "no `object: chat.completion`, no `choices`, and no messages with `tool_calls`, `function_call` or role `tool`/`function`",
        read: |v, sink| r::openai_chat::read(v, sink), nodes: Some(|v, sink| r::openai_chat::read(v, sink)), parts: None, stream: Some(Session::chat_stream) },
    Def { format: Format::OpenaiResponses, name: "openai-responses", aliases: &["responses"], session: false,
        marks: "no `object: response`/`list` and no typed items (`function_call`, `message`, …)",
        read: |v, sink| r::openai_responses::read(v, sink), nodes: Some(|v, sink| r::openai_responses::read(v, sink)), parts: None, stream: Some(Session::responses_stream) },
    Def { format: Format::AnthropicMessages, name: "anthropic-messages", aliases: &["anthropic"], session: false,
        marks: "no `type: message` document and no `tool_use`/`tool_result` content blocks",
        read: |v, sink| r::anthropic::read(v, sink), nodes: Some(|v, sink| r::anthropic::read(v, sink)), parts: None, stream: Some(Session::anthropic_stream) },
    Def { format: Format::VercelAiSdk, name: "vercel-ai-sdk", aliases: &["vercel", "ai-sdk", "vercel-ai"], session: false,
        marks: "no `steps` of step results, no UI message `parts`, no `tool-call` parts and no UI message chunks",
        read: |v, sink| r::vercel::read(v, sink), nodes: Some(|v, sink| r::vercel::read(v, sink)), parts: None, stream: None },
    Def { format: Format::Langchain, name: "langchain", aliases: &["langgraph"], session: false,
        marks: "no `lc` constructors, no `{type, data}` messages and no `human`/`ai`/`tool` typed messages",
        read: |v, sink| r::langchain::read(v, sink), nodes: Some(|v, sink| r::langchain::read(v, sink)), parts: None, stream: None },
    Def { format: Format::OtelGenai, name: "otel-genai", aliases: &["otel", "opentelemetry", "otlp"], session: true,
        marks: "no `resourceSpans` or `resourceLogs`, and no SDK span objects (`{name, context, start_time, attributes}`)",
        read: r::otel::read, nodes: None, parts: None, stream: Some(Session::otel) },
    Def { format: Format::McpJsonrpc, name: "mcp-jsonrpc", aliases: &["mcp"], session: true,
        marks: "no `\"jsonrpc\": \"2.0\"` messages and no MCP log lines",
        read: r::mcp::read, nodes: None, parts: None, stream: Some(Session::mcp) },
    Def { format: Format::ClaudeCode, name: "claude-code", aliases: &[], session: true,
        marks: "no `user`/`assistant` lines with a `sessionId`",
        read: r::claude_code::read, nodes: None, parts: None, stream: Some(Session::claude_code) },
    Def { format: Format::CodexCli, name: "codex-cli", aliases: &["codex"], session: true,
        marks: "no `{timestamp, type, payload}` rollout lines",
        read: r::codex::read, nodes: None, parts: None, stream: Some(Session::codex) },
    Def { format: Format::Gemini, name: "gemini", aliases: &[], session: false,
        marks: "no `candidates`, `contents`, `{role, parts}` list or `object: interaction`",
        read: |v, sink| r::gemini::read(v, sink), nodes: Some(|v, sink| r::gemini::read(v, sink)), parts: None, stream: Some(Session::gemini) },
    Def { format: Format::Deepeval, name: "deepeval", aliases: &[], session: false,
        marks: "no `tools_called`/`toolsCalled`/`expected_tools`, `toolSpans` or `testCases`",
        read: r::deepeval::read, nodes: None, parts: Some(Parts { split: r::deepeval::cases, read: r::deepeval::read_case }), stream: None },
    Def { format: Format::GeminiCli, name: "gemini-cli", aliases: &["gemini-cli-session"], session: false,
        marks: "no `{sessionId, projectHash, messages}` session",
        read: r::gemini_cli::read, nodes: None, parts: None, stream: None },
    Def { format: Format::SweAgent, name: "swe-agent", aliases: &["sweagent"], session: false,
        marks: "no `trajectory` and `history` arrays and no `history` of chat messages with `tool_calls`",
        read: r::swe_agent::read, nodes: None, parts: None, stream: None },
    Def { format: Format::InspectAi, name: "inspect-ai", aliases: &["inspect"], session: false,
        marks: "no `{version, status, eval}` eval log",
        read: r::inspect_ai::read, nodes: None, parts: Some(Parts { split: r::inspect_ai::samples, read: r::inspect_ai::read_sample }), stream: None },
    Def { format: Format::Openhands, name: "openhands", aliases: &["open-hands"], session: false,
        marks: "no list of `{source, action | observation}` events",
        read: r::openhands::read, nodes: None, parts: None, stream: None },
    Def { format: Format::AdkEvalset, name: "adk-evalset", aliases: &["adk", "adk-eval"], session: false,
        marks: "no `{eval_set_id, eval_cases}` eval set and no `{query, expected_tool_use}` list (bare or in `{name, data}` sets)",
        read: r::adk::read, nodes: None, parts: Some(Parts { split: r::adk::cases, read: r::adk::read_case }), stream: None },
    Def { format: Format::Langfuse, name: "langfuse", aliases: &[], session: false,
        marks: "no `observations` with `type`, `traceId` and `startTime`",
        read: r::langfuse::read, nodes: None, parts: None, stream: None },
    Def { format: Format::ToolspecCalls, name: "toolspec-calls", aliases: &["toolspec", "calls", "neutral"], session: false,
        marks: "no array of `{name, args, id, output, is_error}` calls (what `toolspec calls --json` prints)",
        read: r::neutral::read, nodes: None, parts: Some(Parts { split: r::neutral::transcripts, read: r::neutral::read_part }), stream: None },
    Def { format: Format::PydanticAi, name: "pydantic-ai", aliases: &["pydantic", "pydanticai"], session: false,
        marks: "no list of `{kind: request|response, parts}` messages with `part_kind` parts",
        read: |v, sink| r::pydantic_ai::read(v, sink), nodes: Some(|v, sink| r::pydantic_ai::read(v, sink)), parts: None, stream: None },
    Def { format: Format::AdkSession, name: "adk-session", aliases: &["adk-sessions"], session: false,
        marks: "no `{id, app_name|user_id|state, events}` session whose events have an `author`",
        read: r::adk_session::read, nodes: None, parts: None, stream: None },
    Def { format: Format::OpenaiAgents, name: "openai-agents", aliases: &["agents-sdk", "openai-agents-sdk"], session: false,
        marks: "no `{$schemaVersion, generated_items}` run state, no `{type: …_item, raw_item}` run items and no `trace.span` objects",
        read: r::openai_agents::read, nodes: None, parts: None, stream: Some(Session::openai_agents) },
    Def { format: Format::BedrockConverse, name: "bedrock-converse", aliases: &["bedrock", "converse", "aws-bedrock"], session: false,
        marks: "no `toolUse`/`toolResult` content blocks, no `toolConfig`, no `{output: {message}, stopReason}` response and no ConverseStream events",
        read: |v, sink| r::bedrock::read(v, sink), nodes: Some(|v, sink| r::bedrock::read(v, sink)), parts: None, stream: Some(Session::bedrock_stream) },
    Def { format: Format::LettaAgentFile, name: "letta-agent-file", aliases: &["letta", "agent-file", "af"], session: false,
        marks: "no `agents` with `messages` (a Letta agent file) and no agent with `messages` and `in_context_message_indices`",
        read: r::letta::read, nodes: None, parts: None, stream: None },
    Def { format: Format::Custom, name: "custom", aliases: &[], session: false,
        marks: "",
        read: r::custom, nodes: None, parts: None, stream: None },
];

/// How many formats can be named and detected (every row of [`FORMATS`] but the last).
const LISTED: usize = 23;

impl Format {
    /// Every format but [`Format::Custom`], in the order of [`FORMATS`].
    pub const ALL: [Format; LISTED] = {
        let mut all = [Format::Custom; LISTED];
        let mut i = 0;
        while i < LISTED {
            all[i] = FORMATS[i].format;
            i += 1;
        }
        all
    };

    /// Its row of [`FORMATS`].
    pub(crate) fn def(self) -> &'static Def {
        &FORMATS[self as usize]
    }

    /// The kebab-case name (`openai-chat`), as accepted by `--input-format`.
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// Whether a JSONL file of this format is always one session (one event per line) rather
    /// than a dataset (one transcript per line). Gemini, Vercel and OpenAI Chat JSONL files are
    /// sessions only when their lines are responses, results or stream chunks; toolspec calls
    /// JSONL only when its lines are calls (lines that are arrays of calls are a dataset).
    pub fn is_session_format(self) -> bool {
        self.def().session
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown format name given to [`Format::from_str`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown transcript format `{0}` (expected one of: {list})", list = Format::ALL.map(Format::name).join(", "))]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;

    /// Accepts kebab-case (`openai-chat`), snake_case (`openai_chat`) and a few common aliases
    /// (`openai`, `anthropic`, `vercel`, `otel`, `mcp`, `codex`), case-insensitively.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace('_', "-");
        FORMATS[..LISTED]
            .iter()
            .find(|d| d.name == norm || d.aliases.contains(&norm.as_str()))
            .map(|d| d.format)
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_both_spellings() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
            assert_eq!(f.name().replace('-', "_").parse::<Format>().unwrap(), f);
            assert_eq!(f.to_string(), f.name());
        }
        assert!("nope".parse::<Format>().is_err());
        assert!("custom".parse::<Format>().is_err());
    }

    #[test]
    fn the_table_is_in_the_order_of_the_enum() {
        for (i, d) in FORMATS.iter().enumerate() {
            assert_eq!(d.format as usize, i, "{}", d.name);
        }
        assert_eq!(FORMATS[LISTED].format, Format::Custom);
    }
}
