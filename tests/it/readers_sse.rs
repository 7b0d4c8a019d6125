//! Provider streams saved verbatim as server-sent events (`text/event-stream`): the real event
//! payloads of `tests/fixtures/wild/` (Anthropic Messages, OpenAI Responses, Chat Completions and
//! Gemini streams, saved there one payload per line) framed as each provider sends them, read
//! with detection, must give exactly the calls of the JSON-lines form, detected as the same
//! format, read whole and streamed.

use std::path::Path;

use serde_json::{json, Value};
use toolspec::transcript::{Format, Reader, Transcript};

fn calls(ts: &[Transcript]) -> Vec<Value> {
    ts.iter()
        .flat_map(|t| &t.calls)
        .map(|c| json!([c.name, c.args, c.id, c.output, c.is_error]))
        .collect()
}

/// The payload lines of a JSON-lines stream, framed as SSE: `event:` lines named after the
/// payload's `type` where the provider sends them (Anthropic, Responses), comments, `[DONE]` for
/// Chat Completions, and `eol` as the line break.
fn as_sse(jsonl: &str, eol: &str) -> String {
    let mut out = format!(": saved stream{eol}");
    let mut chat = false;
    for line in jsonl.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        chat |= v["object"] == "chat.completion.chunk";
        if let Some(t) = v["type"].as_str() {
            out.push_str(&format!("event: {t}{eol}"));
        }
        out.push_str(&format!("data: {line}{eol}{eol}: ping{eol}"));
    }
    if chat {
        out.push_str(&format!("data: [DONE]{eol}{eol}"));
    }
    out
}

const STREAMS: &[(&str, Format)] = &[
    (
        "anthropic_messages/vercel-ai-tool-no-args.sse-events.chunks.txt",
        Format::AnthropicMessages,
    ),
    (
        "openai_responses/vercel-ai-openai-local-shell.sse-events.chunks.txt",
        Format::OpenaiResponses,
    ),
    (
        "openai_chat/vercel-ai-deepseek-tool-call.chunks.txt",
        Format::OpenaiChat,
    ),
    (
        "openai_chat/vercel-ai-mistral-incremental-tool-call.chunks.txt",
        Format::OpenaiChat,
    ),
    (
        "gemini/vercel-ai-vertex-stream-partial-args.chunks.txt",
        Format::Gemini,
    ),
    (
        "gemini/vercel-ai-gemini-stream-no-args-and-partial.chunks.txt",
        Format::Gemini,
    ),
];

#[test]
fn sse_text_reads_as_the_same_stream_saved_as_json_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wild");
    for (file, format) in STREAMS {
        let jsonl = std::fs::read_to_string(root.join(file)).unwrap();
        let want = Reader::new().read(file, jsonl.as_bytes()).unwrap();
        assert!(!calls(&want).is_empty(), "{file}");
        for eol in ["\n", "\r\n"] {
            let sse = as_sse(&jsonl, eol);
            let got = Reader::new().read(file, sse.as_bytes()).unwrap();
            assert_eq!(got.len(), 1, "{file}");
            assert_eq!(got[0].format, *format, "{file}");
            assert_eq!(calls(&got), calls(&want), "{file} ({eol:?})");
            // Each call is located at the `data` value of its event, inside the file.
            for c in &got[0].calls {
                let at = &sse[c.span.start..c.span.end];
                assert!(
                    at.starts_with('{') && sse[..c.span.start].ends_with("data: "),
                    "{file}: {at}"
                );
            }
            let mut streamed = Vec::new();
            Reader::new()
                .read_stream(file, sse.as_bytes(), |t| streamed.push(t))
                .unwrap();
            assert_eq!(calls(&streamed), calls(&want), "{file}: streamed");
        }
    }
}

/// A payload written over several `data` lines is one event (the lines joined with `\n`, as the
/// standard says); `event`, `id` and `retry` lines and comments are not data.
#[test]
fn multi_line_data_and_other_fields_follow_the_standard() {
    let sse = concat!(
        "retry: 3000\n",
        "event: message_start\n",
        "id: 1\n",
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n",
        "\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\n",
        "data:  \"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"search\",\"input\":{}}}\n",
        "\n",
        ":keep-alive\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"q\\\": \\\"rust\\\"}\"}}\n",
        "\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n",
    );
    let ts = Reader::new().read("s.sse", sse.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::AnthropicMessages);
    assert_eq!(
        calls(&ts),
        [json!(["search", {"q": "rust"}, "toolu_1", null, false])]
    );
}

/// Gemini `alt=sse` (`data:` only) and Chat Completions chunks, forced or detected; a stream
/// with no JSON payload is an unknown format naming what it holds, not 0 calls.
#[test]
fn data_only_streams_and_streams_without_payloads() {
    let gemini = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"a\":1}}}]}}]}\r\n\r\n";
    for forced in [None, Some(Format::Gemini)] {
        let ts = Reader::new()
            .format(forced)
            .read("g", gemini.as_bytes())
            .unwrap();
        assert_eq!(
            (ts[0].format, calls(&ts)),
            (
                Format::Gemini,
                vec![json!(["f", {"a": 1}, null, null, false])]
            )
        );
    }
    let err = Reader::new()
        .read("p", b": ping\n\n: ping\n\ndata: [DONE]\n\n")
        .unwrap_err();
    assert_eq!(err.code(), "unknown-format", "{err}");
}
