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

/// Read `text` as the file `name`: its transcripts, or its error.
fn read_file(name: &str, text: &str) -> Result<Vec<toolspec::transcript::Transcript>, String> {
    Reader::new()
        .read(name, text.as_bytes())
        .map_err(|e| format!("{} {e}", e.code()))
}

fn names_ids_outputs(
    t: &toolspec::transcript::Transcript,
) -> Vec<(String, Value, Option<String>, Option<Value>)> {
    t.calls
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                c.args.clone(),
                c.id.clone(),
                c.output.clone(),
            )
        })
        .collect()
}

/// A vcrpy cassette (pytest-recording, LangChain's and LiteLLM's tests): JSON text in
/// `request.body` and `response.body.string`; a second interaction resends the first call with
/// its result; a gzip-compressed body (`!!binary`) and a call to another service are skipped;
/// each call is located at its interaction. Read the same streamed and under any name.
#[test]
fn a_vcrpy_cassette_reads_its_bodies_as_captures() {
    let text = r#"interactions:
- request:
    body: '{"model": "gpt-4o", "messages": [{"role": "user", "content": "weather in Oslo?"}],
      "tools": [{"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}]}'
    headers:
      Content-Type:
      - application/json
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    body:
      string: '{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message":
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "weather", "arguments": "{\"city\": \"Oslo\"}"}}]}, "finish_reason": "tool_calls"}]}'
    headers:
      Content-Type:
      - application/json
    status:
      code: 200
      message: OK
- request:
    body: null
    method: GET
    uri: https://example.com/health
  response:
    body:
      string: !!binary |
        H4sIAAAAAAAAA6tWKkktLlGyUlAqS8wpTtVRKi1OLcpLzE1VslJKzs8rSc0rUaoFAMhz8J4lAAAA
    headers: {}
    status: {code: 200, message: OK}
- request:
    body: '{"model": "gpt-4o", "messages": [{"role": "user", "content": "weather in Oslo?"},
      {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
      "function": {"name": "weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "7C, rain"}]}'
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    body:
      string: '{"id": "chatcmpl-2", "object": "chat.completion", "choices": [{"index": 0, "message":
        {"role": "assistant", "content": "7C and rain in Oslo."}, "finish_reason": "stop"}]}'
    status: {code: 200, message: OK}
version: 1
"#;
    for name in ["test_weather.yaml", "cassette.txt"] {
        let ts = read_file(name, text).unwrap();
        assert_eq!(ts.len(), 1);
        assert_eq!(ts[0].format, Format::OpenaiChat);
        assert_eq!(
            names_ids_outputs(&ts[0]),
            [(
                "weather".into(),
                json!({"city": "Oslo"}),
                Some("call_1".into()),
                Some(json!("7C, rain"))
            )]
        );
        // At its first interaction: the `body` key of its request, line 2 column 3.
        let span = ts[0].calls[0].span;
        assert_eq!(&text[span.start..span.start + 8], "request:", "{span:?}");
        let mut streamed = Vec::new();
        Reader::new()
            .read_stream(name, text.as_bytes(), |t| streamed.push(t))
            .unwrap();
        assert_eq!(streamed, ts);
    }
}

/// pydantic-ai's cassettes keep JSON bodies parsed (`parsed_body`); go-vcr's keep a streamed
/// body as its `text/event-stream` text; Ruby's VCR lists `http_interactions` with bodies as
/// `{encoding, string}`.
#[test]
fn parsed_bodies_streamed_bodies_and_ruby_cassettes_read() {
    let pydantic = "interactions:\n- request:\n    method: POST\n    parsed_body:\n      max_tokens: 1024\n      model: claude-sonnet-4-5\n      messages:\n      - role: user\n        content:\n        - {type: text, text: list files}\n    uri: https://api.anthropic.com/v1/messages\n  response:\n    parsed_body:\n      id: msg_1\n      type: message\n      role: assistant\n      content:\n      - {type: tool_use, id: toolu_1, name: ls, input: {path: /tmp}}\n      stop_reason: tool_use\n    status: {code: 200, message: OK}\nversion: 1\n";
    let ts = read_file("anthropic.yaml", pydantic).unwrap();
    assert_eq!(ts[0].format, Format::AnthropicMessages);
    assert_eq!(
        names_ids_outputs(&ts[0]),
        [(
            "ls".into(),
            json!({"path": "/tmp"}),
            Some("toolu_1".into()),
            None
        )]
    );

    let chunk = |delta: &str| {
        format!("      data: {{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{delta}}}]}}\n\n")
    };
    let govcr = format!(
        "---\nversion: 2\ninteractions:\n- id: 0\n  request:\n    body: '{{\"model\":\"deepseek\",\"stream\":true,\"messages\":[{{\"role\":\"user\",\"content\":\"glob\"}}]}}'\n    url: https://api.example.com/v1/chat/completions\n    method: POST\n  response:\n    body: |+\n{}{}{}      data: [DONE]\n\n    headers:\n      Content-Type:\n      - text/event-stream\n    status: 200 OK\n    code: 200\n",
        chunk(r#"{"role":"assistant"}"#),
        chunk(r#"{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"glob","arguments":"{\"pattern\":"}}]}"#),
        chunk(r#"{"tool_calls":[{"index":0,"function":{"arguments":"\"*.go\"}"}}]}"#),
    );
    let ts = read_file("parallel_tool_calls.yaml", &govcr).unwrap();
    assert_eq!(ts[0].format, Format::OpenaiChat);
    assert_eq!(
        names_ids_outputs(&ts[0]),
        [(
            "glob".into(),
            json!({"pattern": "*.go"}),
            Some("call_a".into()),
            None
        )]
    );

    let ruby = "---\nhttp_interactions:\n- request:\n    method: post\n    uri: https://api.anthropic.com/v1/messages\n    body:\n      encoding: UTF-8\n      string: '{\"model\":\"claude\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}'\n  response:\n    status:\n      code: 200\n      message: OK\n    body:\n      encoding: ASCII-8BIT\n      string: '{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"greet\",\"input\":{}}]}'\n  recorded_at: Mon, 01 Jan 2024 00:00:00 GMT\nrecorded_with: VCR 6.2.0\n";
    let ts = read_file("greet.yml", ruby).unwrap();
    assert_eq!(ts[0].format, Format::AnthropicMessages);
    assert_eq!(ts[0].calls[0].name, "greet");
}

/// A YAML file that is not YAML is `invalid-yaml` at the parser's line (never "fix the JSON");
/// a YAML document that is no cassette, or a cassette of no provider's calls, is
/// `unknown-format` saying what it holds; a log that merely looks like `key: value` lines is
/// read as lines, as before.
#[test]
fn yaml_that_is_no_cassette_says_what_it_is() {
    let broken = "interactions:\n- request:\n    body: '{\"a\": 1}\n  response: {}\n";
    let err = Reader::new()
        .read("broken.yaml", broken.as_bytes())
        .unwrap_err();
    assert_eq!(err.code(), "invalid-yaml", "{err}");
    assert!(err.line_col().is_some_and(|(line, _)| line >= 3), "{err:?}");
    assert!(!err.to_string().contains("JSON"), "{err}");

    let err = read_file(
        "ci.yml",
        "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n",
    )
    .unwrap_err();
    assert!(err.starts_with("unknown-format"), "{err}");
    assert!(err.contains("not a VCR cassette"), "{err}");

    let other = "interactions:\n- request: {uri: 'https://example.com/', body: ''}\n  response: {body: {string: '<html></html>'}}\n";
    let err = read_file("pages.yaml", other).unwrap_err();
    assert!(err.starts_with("unknown-format"), "{err}");
    assert!(err.contains("a VCR cassette of 1 interactions"), "{err}");

    let stdio = "STDIN: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"ls\",\"arguments\":{}}}\nSTDOUT: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n";
    let ts = read_file("session.log", stdio).unwrap();
    assert_eq!(ts[0].calls[0].name, "ls");
    // An `interactions:` line further down is a weak sign: a log that is no cassette (YAML or
    // not) is still read as lines.
    for extra in ["interactions: 3\n", "interactions: [\n"] {
        let log = stdio.replacen('\n', &format!("\n{extra}"), 1);
        let ts = read_file("session.log", &log).unwrap();
        assert_eq!(ts[0].calls[0].name, "ls", "{log}");
    }
}
