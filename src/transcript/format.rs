//! The transcript formats toolspec reads.

use std::fmt;
use std::str::FromStr;

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
    /// A custom mapping (`[formats.NAME]` in toolspec.toml): never detected, never named by
    /// `--format`; the files its `files` globs match are read with it.
    Custom,
}

impl Format {
    /// Every format, in detection-table order of the docs.
    pub const ALL: [Format; 18] = [
        Format::OpenaiChat,
        Format::OpenaiResponses,
        Format::AnthropicMessages,
        Format::VercelAiSdk,
        Format::Langchain,
        Format::OtelGenai,
        Format::McpJsonrpc,
        Format::ClaudeCode,
        Format::CodexCli,
        Format::Gemini,
        Format::Deepeval,
        Format::GeminiCli,
        Format::SweAgent,
        Format::InspectAi,
        Format::Openhands,
        Format::AdkEvalset,
        Format::Langfuse,
        Format::ToolspecCalls,
    ];

    /// The kebab-case name (`openai-chat`), as accepted by `--input-format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenaiChat => "openai-chat",
            Format::OpenaiResponses => "openai-responses",
            Format::AnthropicMessages => "anthropic-messages",
            Format::VercelAiSdk => "vercel-ai-sdk",
            Format::Langchain => "langchain",
            Format::OtelGenai => "otel-genai",
            Format::McpJsonrpc => "mcp-jsonrpc",
            Format::ClaudeCode => "claude-code",
            Format::CodexCli => "codex-cli",
            Format::Gemini => "gemini",
            Format::Deepeval => "deepeval",
            Format::GeminiCli => "gemini-cli",
            Format::SweAgent => "swe-agent",
            Format::InspectAi => "inspect-ai",
            Format::Openhands => "openhands",
            Format::AdkEvalset => "adk-evalset",
            Format::Langfuse => "langfuse",
            Format::ToolspecCalls => "toolspec-calls",
            Format::Custom => "custom",
        }
    }

    /// Whether a JSONL file of this format is always one session (one event per line) rather
    /// than a dataset (one transcript per line). Gemini, Vercel and OpenAI Chat JSONL files are
    /// sessions only when their lines are responses, results or stream chunks; toolspec calls
    /// JSONL only when its lines are calls (lines that are arrays of calls are a dataset).
    pub fn is_session_format(self) -> bool {
        matches!(
            self,
            Format::McpJsonrpc | Format::ClaudeCode | Format::CodexCli | Format::OtelGenai
        )
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
        let f = match norm.as_str() {
            "openai-chat" | "openai" | "chat" | "openai-chat-completions" => Format::OpenaiChat,
            "openai-responses" | "responses" => Format::OpenaiResponses,
            "anthropic-messages" | "anthropic" => Format::AnthropicMessages,
            "vercel-ai-sdk" | "vercel" | "ai-sdk" | "vercel-ai" => Format::VercelAiSdk,
            "langchain" | "langgraph" => Format::Langchain,
            "otel-genai" | "otel" | "opentelemetry" | "otlp" => Format::OtelGenai,
            "mcp-jsonrpc" | "mcp" => Format::McpJsonrpc,
            "claude-code" => Format::ClaudeCode,
            "codex-cli" | "codex" => Format::CodexCli,
            "gemini" => Format::Gemini,
            "deepeval" => Format::Deepeval,
            "gemini-cli" | "gemini-cli-session" => Format::GeminiCli,
            "swe-agent" | "sweagent" => Format::SweAgent,
            "inspect-ai" | "inspect" => Format::InspectAi,
            "openhands" | "open-hands" => Format::Openhands,
            "adk-evalset" | "adk" | "adk-eval" => Format::AdkEvalset,
            "langfuse" => Format::Langfuse,
            "toolspec-calls" | "toolspec" | "calls" | "neutral" => Format::ToolspecCalls,
            _ => return Err(UnknownFormat(s.to_string())),
        };
        Ok(f)
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
    }
}
