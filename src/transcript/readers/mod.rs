//! One reader per format. Document formats read a whole JSON value; session formats are fed
//! one JSONL line (event) at a time and may keep state across lines.

pub(super) mod adk;
pub(super) mod adk_session;
pub(super) mod anthropic;
pub(super) mod bedrock;
mod blocks;
pub(super) mod claude_code;
pub(super) mod codex;
pub(super) mod deepeval;
pub(super) mod gemini;
pub(super) mod gemini_cli;
pub(super) mod inspect_ai;
pub(super) mod langchain;
pub(super) mod langfuse;
pub(super) mod letta;
pub(super) mod mcp;
pub(super) mod neutral;
pub(super) mod openai_agents;
pub(super) mod openai_chat;
pub(super) mod openai_responses;
pub(super) mod openhands;
pub(super) mod otel;
pub(super) mod otel_sdk;
pub(super) mod pydantic_ai;
pub(super) mod swe_agent;
pub(super) mod vercel;

use super::sink::field;
use serde_json::Value;

use crate::json::view::Json;

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
    /// OpenAI Responses stream events, one per line.
    ResponsesStream(openai_responses::Stream),
    /// OpenAI Agents SDK trace export, one exported item per line.
    OpenaiAgents(openai_agents::Spans),
    /// Bedrock ConverseStream events, one per line.
    BedrockStream(bedrock::Stream),
    /// A document format whose lines are independent documents (Gemini responses, Vercel results).
    Doc(Format),
}

impl Session {
    /// A session reader for `format`; `first` is a line that decided it (chunk streams differ).
    pub(crate) fn new(format: Format, first: Option<&Value>) -> Self {
        format
            .def()
            .stream
            .and_then(|stream| stream(first))
            .unwrap_or(Session::Doc(format))
    }

    pub(super) fn mcp(_: Option<&Value>) -> Option<Self> {
        Some(Session::Mcp(mcp::State::default()))
    }

    pub(super) fn claude_code(_: Option<&Value>) -> Option<Self> {
        Some(Session::ClaudeCode(claude_code::State::default()))
    }

    pub(super) fn codex(_: Option<&Value>) -> Option<Self> {
        Some(Session::Codex(codex::State))
    }

    pub(super) fn otel(_: Option<&Value>) -> Option<Self> {
        Some(Session::Otel(otel::State::default()))
    }

    pub(super) fn gemini(_: Option<&Value>) -> Option<Self> {
        Some(Session::Gemini(gemini::Stream::default()))
    }

    /// Chat Completions chunks, when the deciding line is one.
    pub(super) fn chat_stream(first: Option<&Value>) -> Option<Self> {
        first
            .is_some_and(|v| {
                field(v, "object").and_then(Value::as_str) == Some("chat.completion.chunk")
            })
            .then(|| Session::ChatStream(openai_chat::Stream::default()))
    }

    /// An OpenAI Agents SDK trace export, when the deciding line is an exported span (lines of
    /// run states are documents of a dataset).
    pub(super) fn openai_agents(first: Option<&Value>) -> Option<Self> {
        first
            .is_some_and(openai_agents::is_span)
            .then(|| Session::OpenaiAgents(openai_agents::Spans::default()))
    }

    /// Anthropic stream events, when the deciding line is one.
    pub(super) fn anthropic_stream(first: Option<&Value>) -> Option<Self> {
        first
            .is_some_and(super::detect::is_anthropic_event)
            .then(|| Session::AnthropicStream(anthropic::Stream::default()))
    }

    /// OpenAI Responses stream events, when the deciding line is one.
    pub(super) fn responses_stream(first: Option<&Value>) -> Option<Self> {
        first
            .is_some_and(super::detect::is_responses_event)
            .then(|| Session::ResponsesStream(openai_responses::Stream::default()))
    }

    /// Bedrock ConverseStream events, when the deciding line is one.
    pub(super) fn bedrock_stream(first: Option<&Value>) -> Option<Self> {
        first
            .is_none_or(bedrock::is_stream_event)
            .then(|| Session::BedrockStream(bedrock::Stream::default()))
    }

    /// Feed one line (its location is `sink.line`).
    pub(crate) fn line(&mut self, v: &Value, origin: Origin, sink: &mut Sink) {
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
            Session::ResponsesStream(s) => s.event(v, sink),
            Session::OpenaiAgents(s) => s.line(v, sink),
            Session::BedrockStream(s) => s.event(v, sink),
            Session::Doc(f) => {
                // A line that does not fit is skipped: sessions mix event kinds.
                let _ = read_doc(*f, v, sink);
            }
        }
    }

    /// Feed one line from its text, where the reader can read it without a `Value` (a Claude
    /// Code session; `outputs`: whether any call's output is kept). False if it declined: the
    /// caller then parses the line and feeds it to [`Self::line`].
    pub(crate) fn line_text(&mut self, text: &str, outputs: bool, sink: &mut Sink) -> bool {
        match self {
            Session::ClaudeCode(s) => s.text(text, outputs, sink),
            _ => false,
        }
    }

    /// End of input.
    pub(crate) fn finish(self, sink: &mut Sink) {
        match self {
            Session::Mcp(s) => s.finish(sink),
            Session::Otel(s) => s.finish(sink),
            Session::ChatStream(s) => s.finish(sink),
            Session::Gemini(mut s) => s.finish(sink),
            Session::AnthropicStream(s) => s.finish(sink),
            Session::ResponsesStream(mut s) => s.finish(sink),
            Session::OpenaiAgents(s) => s.finish(sink),
            Session::BedrockStream(s) => s.finish(sink),
            Session::ClaudeCode(_) | Session::Codex(_) | Session::Doc(_) => {}
        }
    }
}

/// Whether `v` is a Langfuse trace export (observations).
pub(crate) fn langfuse_export<'s, J: Json<'s>>(v: J) -> bool {
    langfuse::observations(v).is_some()
}

/// Whether `v` is a Letta agent file.
pub(crate) fn letta_agent_file<'s, J: Json<'s>>(v: J) -> bool {
    letta::is_agent_file(v)
}

/// Whether `v` is a list of OpenTelemetry SDK span objects (bare or under `spans`).
pub(crate) fn otel_sdk_spans<'s, J: Json<'s>>(v: J) -> bool {
    otel_sdk::spans(v).is_some()
}

/// Whether `v` is a Bedrock ConverseStream event that decides a file.
pub(crate) fn bedrock_event<'s, J: Json<'s>>(v: J) -> bool {
    bedrock::is_stream_event(v)
}

/// Whether `v` has the marks of a Bedrock Converse document.
pub(crate) fn bedrock_doc<'s, J: Json<'s>>(v: J, marks: &super::detect::Marks) -> bool {
    bedrock::is_document(v, marks)
}

/// Whether the member `key: v` is a Bedrock ConverseStream event.
pub(crate) fn bedrock_stream_member<'s, J: Json<'s>>(key: &str, v: J) -> bool {
    bedrock::is_stream_member(key, v)
}

/// Whether `v` is one call of toolspec's own calls format (a JSON line of it).
pub(crate) fn neutral_call<'s, J: Json<'s>>(v: J) -> bool {
    neutral::is_call(v)
}

/// Whether `v` is a transcript (an array of calls, `[]` included) or a dataset (an array of
/// such arrays) of toolspec's own calls format.
pub(crate) fn neutral_doc<'s, J: Json<'s>>(v: J) -> bool {
    neutral::is_calls(v) || neutral::is_dataset(v)
}

/// Whether `v` is a pydantic-ai message history.
pub(crate) fn pydantic_ai_history<'s, J: Json<'s>>(v: J) -> bool {
    pydantic_ai::is_history(v)
}

/// Whether `v` is a Google ADK session dump.
pub(crate) fn adk_session<'s, J: Json<'s>>(v: J) -> bool {
    adk_session::is_session(v)
}

/// Whether `v` is one span of an OpenAI Agents SDK trace export (a JSON line of one).
pub(crate) fn openai_agents_span<'s, J: Json<'s>>(v: J) -> bool {
    openai_agents::is_span(v)
}

/// Whether `v` is an OpenAI Agents SDK run state, run item list or trace export.
pub(crate) fn openai_agents_doc<'s, J: Json<'s>>(v: J) -> bool {
    openai_agents::is_doc(v)
}

/// Read one JSON document as `format`. `Err` explains a shape the format does not have.
pub(crate) fn read_doc(format: Format, v: &Value, sink: &mut Sink) -> Result<(), String> {
    (format.def().read)(v, sink)
}

/// A custom mapping's reader: none (it is read with its mapping).
pub(super) fn custom(_: &Value, _: &mut Sink) -> Result<(), String> {
    Err("a custom mapping is read with its mapping, never as a format".into())
}

/// A session format's lines held in one document (an array of lines, or one line), read as
/// the session; `what` names the lines in the error for a document that holds none.
pub(super) fn session_doc(
    format: Format,
    what: &str,
    v: &Value,
    sink: &mut Sink,
) -> Result<(), String> {
    let items: Vec<(&Value, Vec<Seg>)> = match v {
        Value::Array(a)
            if format != Format::McpJsonrpc
                || a.iter().any(Value::is_array)
                || a.iter().any(|x| field(x, "jsonrpc").is_some()) =>
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
        if super::detect::line(*x) == Some(format) || super::detect::claude_code_hint(*x) {
            fitting += 1;
        }
        sink.prefix.clone_from(path);
        session.line(x, Origin::Unknown, sink);
    }
    sink.prefix.clear();
    session.finish(sink);
    if fitting == 0 && sink.len() == before {
        return Err(format!("expected {what} lines"));
    }
    Ok(())
}

/// The transcripts inside one document, when it holds several (a DeepEval test run with
/// several test cases, or a list of test cases): (path, value) of each. `None` = one transcript.
pub(crate) fn split(format: Format, v: &Value) -> Option<Vec<(Vec<Seg>, &Value)>> {
    format.def().parts.as_ref().and_then(|p| (p.split)(v))
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
    if let Some(p) = &format.def().parts {
        (p.read)(v, path, sink);
    }
}
