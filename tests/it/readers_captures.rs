//! `{request, response}` captures of one API call (what proxies, recorders and test fixtures
//! keep): every provider format reads the request's history and the response as one
//! transcript, a call both hold counted once.

use serde_json::{json, Value};
use toolspec::transcript::{Format, Reader};

/// A call's name, arguments, id and output.
type Call = (String, Value, Option<String>, Option<Value>);

fn read(doc: &Value) -> (Format, Vec<Call>) {
    let ts = Reader::new()
        .read("capture.json", doc.to_string().as_bytes())
        .unwrap();
    assert_eq!(ts.len(), 1);
    let calls = ts[0]
        .calls
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                c.args.clone(),
                c.id.clone(),
                c.output.clone(),
            )
        })
        .collect();
    (ts[0].format, calls)
}

/// Chat Completions: the request's history (an answered call) and the response's new call.
#[test]
fn a_chat_capture_reads_history_then_response() {
    let doc = json!({
        "_captured": "2026-01-10",
        "request": {"model": "gpt-4o", "messages": [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "7C"}],
            "tools": [{"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}]},
        "response": {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Rome\"}"}}]}}]}
    });
    let (format, calls) = read(&doc);
    assert_eq!(format, Format::OpenaiChat);
    assert_eq!(
        calls,
        [
            (
                "weather".into(),
                json!({"city": "Oslo"}),
                Some("c1".into()),
                Some(json!("7C"))
            ),
            (
                "weather".into(),
                json!({"city": "Rome"}),
                Some("c2".into()),
                None
            ),
        ]
    );
}

/// Bedrock Converse and Anthropic Messages captures; a call resent in the request and returned
/// in the response is one call.
#[test]
fn bedrock_and_anthropic_captures_read_and_count_a_resent_call_once() {
    let bedrock = json!({
        "request": {"messages": [{"role": "user", "content": [{"text": "weather in Seattle"}]}],
            "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather"}}]}},
        "response": {"output": {"message": {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {"city": "Seattle"}}}]}},
            "stopReason": "tool_use"}
    });
    let (format, calls) = read(&bedrock);
    assert_eq!(format, Format::BedrockConverse);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].0, "get_weather");
    let block = json!({"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "x"}});
    let anthropic = json!({
        "request": {"model": "claude", "max_tokens": 100, "messages": [
            {"role": "user", "content": "find x"},
            {"role": "assistant", "content": [block]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "found"}]}]},
        "response": {"type": "message", "role": "assistant", "content": [block,
            {"type": "tool_use", "id": "toolu_2", "name": "open", "input": {"n": 1}}]}
    });
    let (format, calls) = read(&anthropic);
    assert_eq!(format, Format::AnthropicMessages);
    let names: Vec<&str> = calls.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["search", "open"]);
    assert_eq!(calls[0].3, Some(json!("found")));
}

/// An object with `request` and `response` that are no provider's is not a capture: it is an
/// `unknown-format` error, as before.
#[test]
fn request_and_response_of_no_provider_are_no_capture() {
    let doc = json!({"request": {"url": "/x"}, "response": {"status": 200}});
    let err = Reader::new()
        .read("x.json", doc.to_string().as_bytes())
        .unwrap_err();
    assert_eq!(err.code(), "unknown-format");
}
