//! Readers against the format owners' own code: `tests/oracles/cases/*.jsonl.gz` hold seeded,
//! generated streams and documents (random splits of arguments across deltas, several blocks and
//! messages, blocks in `message_start`, empty and repeated ids, unknown events and blocks,
//! interleaved parallel calls, truncation, legacy and invalid calls) with the calls the owner's
//! code — an official SDK's stream accumulator, LangChain's or pydantic-ai's loader — built from
//! the same bytes (`tests/oracles/record.py` records them; its README says how to re-record).
//! Every case must read as the SDK read it, whole and streamed, detected as the family's format.

use std::io::Read;
use std::path::Path;

use serde_json::{json, Value};
use toolspec::transcript::{Reader, Transcript};

/// The least number of cases a family's fixture must hold.
const LEAST_CASES: usize = 1000;

/// Disagreements shown in a failure (all are counted).
const SHOWN: usize = 8;

fn calls(ts: &[Transcript]) -> Value {
    ts.iter()
        .flat_map(|t| &t.calls)
        .map(|c| {
            json!({
                "name": c.name, "args": c.args, "id": c.id,
                "output": c.output, "is_error": c.is_error,
            })
        })
        .collect()
}

/// Read one case whole and streamed; the transcripts' calls, or why they could not be read.
fn read(name: &str, text: &str, format: &str) -> Result<Value, String> {
    let whole = Reader::new()
        .read(name, text.as_bytes())
        .map_err(|e| format!("not read: {e}"))?;
    let mut streamed = Vec::new();
    Reader::new()
        .read_stream(name, text.as_bytes(), |t| streamed.push(t))
        .map_err(|e| format!("not read streamed: {e}"))?;
    for t in whole.iter().chain(&streamed) {
        if t.format.to_string() != format {
            return Err(format!("read as {}, not {format}", t.format));
        }
    }
    let got = calls(&whole);
    if calls(&streamed) != got {
        return Err(format!(
            "streamed reads differently: {} vs whole {}",
            calls(&streamed),
            got
        ));
    }
    Ok(got)
}

fn family(file: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/oracles/cases")
        .join(file);
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let format = header["format"].as_str().unwrap();
    assert!(
        header["sdk"].as_object().is_some_and(|s| !s.is_empty()),
        "{file}: the header names the SDK versions"
    );
    let (mut agree, mut bad) = (0, Vec::new());
    for line in lines {
        let case: Value = serde_json::from_str(line).unwrap();
        let name = case["name"].as_str().unwrap();
        let want = &case["calls"];
        match read(name, case["text"].as_str().unwrap(), format) {
            Ok(got) if got == *want => agree += 1,
            Ok(got) => bad.push(format!(
                "{name} {}\n    sdk:      {want}\n    toolspec: {got}",
                case["tags"]
            )),
            Err(why) => bad.push(format!("{name} {}: {why}", case["tags"])),
        }
    }
    assert!(
        agree + bad.len() >= LEAST_CASES,
        "{file}: {} cases, fewer than {LEAST_CASES}",
        agree + bad.len()
    );
    assert!(
        bad.is_empty(),
        "{file}: {agree} agree with {}, {} disagree:\n{}",
        header["sdk"],
        bad.len(),
        bad[..bad.len().min(SHOWN)].join("\n")
    );
}

/// Anthropic Messages streams against the Anthropic Python SDK's `MessageStream` accumulator.
#[test]
fn anthropic_streams_read_as_the_anthropic_sdk_builds_them() {
    family("anthropic.jsonl.gz");
}

/// Chat Completions streams against the OpenAI Python SDK's `ChatCompletionStreamState`.
#[test]
fn chat_completions_streams_read_as_the_openai_sdk_builds_them() {
    family("openai_chat.jsonl.gz");
}

/// Responses streams against the OpenAI Python SDK's `ResponseStreamState`.
#[test]
fn responses_streams_read_as_the_openai_sdk_builds_them() {
    family("openai_responses.jsonl.gz");
}

/// Gemini streamed responses (SSE, JSON lines and the JSON array of `streamGenerateContent`
/// without `alt=sse`) against Google's `google-genai` SDK: each chunk's `function_calls`.
#[test]
fn gemini_streams_read_as_the_google_genai_sdk_reads_them() {
    family("gemini.jsonl.gz");
}

/// LangChain message lists against `langchain_core.messages.messages_from_dict`.
#[test]
fn langchain_messages_read_as_langchain_core_loads_them() {
    family("langchain.jsonl.gz");
}

/// pydantic-ai histories written by `ModelMessagesTypeAdapter.dump_json` against the same
/// adapter's `validate_json`.
#[test]
fn pydantic_ai_histories_read_as_pydantic_ai_loads_them() {
    family("pydantic_ai.jsonl.gz");
}
