//! One reader per format. Document formats read a whole JSON value; session formats are fed
//! one JSONL line (event) at a time and may keep state across lines.

mod adk;
mod anthropic;
mod claude_code;
mod codex;
mod deepeval;
mod gemini;
mod gemini_cli;
mod inspect_ai;
mod langchain;
mod langfuse;
mod mcp;
mod neutral;
mod openai_chat;
mod openai_responses;
mod openhands;
mod otel;
mod otel_sdk;
mod swe_agent;
mod vercel;

use serde_json::Value;

use super::sink::Sink;
use super::spans::Seg;
use super::Format;

/// Who wrote a log line (MCP logs record the direction; plain JSONL does not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Origin {
    Unknown,
    Client,
    Server,
}

/// A session reader: state carried across the lines of one JSONL session.
pub(crate) enum Session {
    Mcp(mcp::State),
    ClaudeCode(claude_code::State),
    Codex(codex::State),
    Otel(otel::State),
    ChatStream(openai_chat::Stream),
    /// Gemini responses, one per line: a call's streamed arguments span lines.
    Gemini(gemini::Stream),
    /// Anthropic Messages stream events, one per line.
    AnthropicStream(anthropic::Stream),
    /// A document format whose lines are independent documents (Gemini responses, Vercel results).
    Doc(Format),
}

impl Session {
    /// A session reader for `format`; `first` is a line that decided it (chunk streams differ).
    pub fn new(format: Format, first: Option<&Value>) -> Self {
        match format {
            Format::McpJsonrpc => Session::Mcp(mcp::State::default()),
            Format::ClaudeCode => Session::ClaudeCode(claude_code::State),
            Format::CodexCli => Session::Codex(codex::State),
            Format::OtelGenai => Session::Otel(otel::State::default()),
            Format::OpenaiChat
                if first.is_some_and(|v| {
                    v.get("object").and_then(Value::as_str) == Some("chat.completion.chunk")
                }) =>
            {
                Session::ChatStream(openai_chat::Stream::default())
            }
            Format::Gemini => Session::Gemini(gemini::Stream::default()),
            Format::AnthropicMessages if first.is_some_and(super::detect::is_anthropic_event) => {
                Session::AnthropicStream(anthropic::Stream::default())
            }
            f => Session::Doc(f),
        }
    }

    /// Feed one line (its location is `sink.line`).
    pub fn line(&mut self, v: &Value, origin: Origin, sink: &mut Sink) {
        match self {
            Session::Mcp(s) => s.message(v, origin, sink),
            Session::ClaudeCode(s) => s.line(v, sink),
            Session::Codex(s) => s.line(v, sink),
            Session::Otel(s) => s.batch(v, &[], sink),
            Session::ChatStream(s) => s.chunk(v, &[], sink),
            Session::Gemini(s) => {
                // A line that does not fit is skipped, as for other document lines.
                let _ = s.read(v, sink);
            }
            Session::AnthropicStream(s) => s.event(v, sink),
            Session::Doc(f) => {
                // A line that does not fit is skipped: sessions mix event kinds.
                let _ = read_doc(*f, v, sink);
            }
        }
    }

    /// Feed one line from its text, where the reader can read it without a `Value` (a Claude
    /// Code session; `outputs`: whether any call's output is kept). False if it declined: the
    /// caller then parses the line and feeds it to [`Self::line`].
    pub fn line_text(&mut self, text: &str, outputs: bool, sink: &mut Sink) -> bool {
        match self {
            Session::ClaudeCode(s) => s.text(text, outputs, sink),
            _ => false,
        }
    }

    /// End of input.
    pub fn finish(self, sink: &mut Sink) {
        match self {
            Session::Mcp(s) => s.finish(sink),
            Session::Otel(s) => s.finish(sink),
            Session::ChatStream(s) => s.finish(sink),
            Session::Gemini(mut s) => s.finish(sink),
            Session::AnthropicStream(s) => s.finish(sink),
            Session::ClaudeCode(_) | Session::Codex(_) | Session::Doc(_) => {}
        }
    }
}

/// Whether `v` is a Langfuse trace export (observations).
pub(crate) fn langfuse_export(v: &Value) -> bool {
    langfuse::observations(v).is_some()
}

/// Whether `v` is a list of OpenTelemetry SDK span objects (bare or under `spans`).
pub(crate) fn otel_sdk_spans(v: &Value) -> bool {
    otel_sdk::spans(v).is_some()
}

/// Whether `v` is one call of toolspec's own calls format (a JSON line of it).
pub(crate) fn neutral_call(v: &Value) -> bool {
    neutral::is_call(v)
}

/// Whether `v` is a transcript (an array of calls, `[]` included) or a dataset (an array of
/// such arrays) of toolspec's own calls format.
pub(crate) fn neutral_doc(v: &Value) -> bool {
    neutral::is_calls(v) || neutral::is_dataset(v)
}

/// Read one JSON document as `format`. `Err` explains a shape the format does not have.
pub(crate) fn read_doc(format: Format, v: &Value, sink: &mut Sink) -> Result<(), String> {
    match format {
        Format::OpenaiChat => openai_chat::read(v, sink),
        Format::OpenaiResponses => openai_responses::read(v, sink),
        Format::AnthropicMessages => anthropic::read(v, sink),
        Format::VercelAiSdk => vercel::read(v, sink),
        Format::Langchain => langchain::read(v, sink),
        Format::Gemini => gemini::read(v, sink),
        Format::Deepeval => deepeval::read(v, sink),
        Format::GeminiCli => gemini_cli::read(v, sink),
        Format::SweAgent => swe_agent::read(v, sink),
        Format::InspectAi => inspect_ai::read(v, sink),
        Format::Openhands => openhands::read(v, sink),
        Format::AdkEvalset => adk::read(v, sink),
        Format::Langfuse => langfuse::read(v, sink),
        Format::ToolspecCalls => neutral::read(v, sink),
        Format::Custom => {
            Err("a custom mapping is read with its mapping, never as a format".into())
        }
        Format::OtelGenai if otel_sdk::spans(v).is_some() => otel_sdk::read(v, sink),
        Format::OtelGenai => {
            let mut st = otel::State::default();
            match v {
                Value::Array(items) => {
                    for (i, b) in items.iter().enumerate() {
                        st.batch(b, &[Seg::I(i)], sink);
                    }
                }
                _ => st.batch(v, &[], sink),
            }
            if st.is_empty() && v.get("resourceSpans").is_none() && v.get("resourceLogs").is_none()
            {
                return Err(
                    "expected an OTLP/JSON export with `resourceSpans` or `resourceLogs`".into(),
                );
            }
            st.finish(sink);
            Ok(())
        }
        Format::McpJsonrpc | Format::ClaudeCode | Format::CodexCli => {
            let items: Vec<(&Value, Vec<Seg>)> = match v {
                Value::Array(a)
                    if format != Format::McpJsonrpc
                        || a.iter().any(Value::is_array)
                        || a.iter().any(|x| x.get("jsonrpc").is_some()) =>
                {
                    a.iter()
                        .enumerate()
                        .map(|(i, x)| (x, vec![Seg::I(i)]))
                        .collect()
                }
                _ => vec![(v, vec![])],
            };
            let mut session = Session::new(format, None);
            let before = sink.len();
            let mut fitting = 0usize;
            for (x, path) in &items {
                if super::detect::line(x) == Some(format) || super::detect::claude_code_hint(x) {
                    fitting += 1;
                }
                sink.prefix = path.clone();
                session.line(x, Origin::Unknown, sink);
            }
            sink.prefix.clear();
            session.finish(sink);
            if fitting == 0 && sink.len() == before {
                return Err(format!(
                    "expected {} lines",
                    match format {
                        Format::McpJsonrpc => "JSON-RPC 2.0 message",
                        Format::ClaudeCode => "Claude Code session",
                        _ => "Codex rollout",
                    }
                ));
            }
            Ok(())
        }
    }
}

/// The transcripts inside one document, when it holds several (a DeepEval test run with
/// several test cases, or a list of test cases): (path, value) of each. `None` = one transcript.
pub(crate) fn split(format: Format, v: &Value) -> Option<Vec<(Vec<Seg>, &Value)>> {
    match format {
        Format::Deepeval => deepeval::cases(v),
        Format::InspectAi => inspect_ai::samples(v),
        Format::AdkEvalset => adk::cases(v),
        Format::ToolspecCalls => neutral::transcripts(v),
        _ => None,
    }
}

/// Each of `items` with its path: `root` (the member holding the list; `None` for a top-level
/// array) and its position.
pub(crate) fn parts(items: &[Value], root: Option<Seg>) -> Vec<(Vec<Seg>, &Value)> {
    items
        .iter()
        .enumerate()
        .map(|(i, x)| (root.into_iter().chain([Seg::I(i)]).collect(), x))
        .collect()
}

/// Read one part returned by [`split`], found at `path`.
pub(crate) fn read_part(format: Format, v: &Value, path: &[Seg], sink: &mut Sink) {
    match format {
        Format::Deepeval => deepeval::read_case(v, path, sink),
        Format::InspectAi => inspect_ai::read_sample(v, path, sink),
        Format::AdkEvalset => adk::read_case(v, path, sink),
        Format::ToolspecCalls => neutral::read_part(v, path, sink),
        _ => {}
    }
}
