//! Detection: ambiguous files, the `--format` override, and JSONL datasets vs sessions.

use serde_json::{json, Value};
use toolspec::transcript::{Format, Reader, ToolCall};

fn names(bytes: &[u8], format: Option<Format>) -> (Format, Vec<String>) {
    let ts = Reader::new().format(format).read("x", bytes).unwrap();
    assert_eq!(ts.len(), 1);
    (
        ts[0].format,
        ts[0].calls.iter().map(|c| c.name.clone()).collect(),
    )
}

#[test]
fn anthropic_blocks_mirrored_in_tool_calls_is_anthropic_unless_forced() {
    // A proxy log holding both shapes of the same call: first match in the table wins.
    let doc = json!({"messages": [
        {"role": "assistant",
         "content": [{"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "a"}}],
         "tool_calls": [{"id": "toolu_1", "type": "function", "function": {"name": "search_openai", "arguments": "{\"q\":\"a\"}"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "found"}]}
    ]});
    let bytes = serde_json::to_vec(&doc).unwrap();
    assert_eq!(
        names(&bytes, None),
        (Format::AnthropicMessages, vec!["search".to_string()])
    );
    assert_eq!(
        names(&bytes, Some(Format::OpenaiChat)),
        (Format::OpenaiChat, vec!["search_openai".to_string()])
    );
}

#[test]
fn role_parts_lists_are_gemini_without_part_types_and_vercel_with_them() {
    let gemini = json!([
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": 1}}}]}
    ]);
    let vercel = json!([
        {"role": "assistant", "parts": [{"type": "tool-f", "toolCallId": "c1", "state": "output-available", "input": {}, "output": 1}]}
    ]);
    let (f, n) = names(&serde_json::to_vec(&gemini).unwrap(), None);
    assert_eq!((f, n.len()), (Format::Gemini, 1));
    let (f, n) = names(&serde_json::to_vec(&vercel).unwrap(), None);
    assert_eq!((f, n), (Format::VercelAiSdk, vec!["f".to_string()]));
}

#[test]
fn hyphen_and_underscore_parts_tell_vercel_from_anthropic() {
    let model_messages = json!([
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "f", "output": {"type": "text", "value": "ok"}}]}
    ]);
    let ts = Reader::new()
        .read("m.json", &serde_json::to_vec(&model_messages).unwrap())
        .unwrap();
    assert_eq!(ts[0].format, Format::VercelAiSdk);
    assert_eq!(ts[0].calls[0].output, Some(json!("ok")));
    // `role: tool` alone would also match OpenAI Chat; the hyphenated parts decide first.
}

#[test]
fn langchain_typed_messages_win_over_role_messages() {
    let state = json!({"messages": [
        {"type": "ai", "content": "", "tool_calls": [{"name": "f", "args": {"x": 1}, "id": "c1", "type": "tool_call"}]},
        {"type": "tool", "content": "done", "tool_call_id": "c1", "status": "error"}
    ]});
    let ts = Reader::new()
        .read("s.json", &serde_json::to_vec(&state).unwrap())
        .unwrap();
    assert_eq!(ts[0].format, Format::Langchain);
    assert!(ts[0].calls[0].is_error);
}

#[test]
fn responses_input_items_with_untyped_user_turns() {
    let req = json!({"model": "gpt-4.1", "input": [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "r"}
    ]});
    let ts = Reader::new()
        .read("r.json", &serde_json::to_vec(&req).unwrap())
        .unwrap();
    assert_eq!(ts[0].format, Format::OpenaiResponses);
    assert_eq!(ts[0].calls[0].output, Some(json!("r")));
}

#[test]
fn single_line_session_file_is_read_as_a_session() {
    let line = br#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}}"#;
    let (f, n) = names(line, None);
    assert_eq!((f, n), (Format::CodexCli, vec!["shell".to_string()]));
}

#[test]
fn jsonl_of_whole_transcripts_is_a_dataset() {
    let text = include_str!("../fixtures/datasets/anthropic_messages.jsonl");
    let truth = include_str!("../fixtures/datasets/anthropic_messages.truth.jsonl");
    let ts = Reader::new().read("set.jsonl", text.as_bytes()).unwrap();
    let expected: Vec<Value> = truth
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ts.len(), expected.len());
    for (i, (t, e)) in ts.iter().zip(&expected).enumerate() {
        assert_eq!(t.format, Format::AnthropicMessages);
        let rec = t.record.expect("dataset transcripts carry their line");
        assert_eq!(rec.line, i + 1);
        // The truth files hold the calls' shape; the turn each call is in is beside it.
        let calls: Vec<ToolCall> = t
            .calls
            .iter()
            .map(|c| ToolCall {
                turn: None,
                namespace: None,
                ..c.clone()
            })
            .collect();
        assert_eq!(serde_json::to_value(&calls).unwrap(), *e, "line {}", i + 1);
        let line_text = &text[rec.span.start..rec.span.end];
        assert!(serde_json::from_str::<Value>(line_text).is_ok() && !line_text.contains('\n'));
        for c in &t.calls {
            assert!(c.span.start >= rec.span.start && c.span.end <= rec.span.end);
            let block: Value = serde_json::from_str(&text[c.span.start..c.span.end]).unwrap();
            assert_eq!(block["id"].as_str(), c.id.as_deref());
        }
    }
}

#[test]
fn jsonl_of_events_is_one_session_with_line_spans() {
    let text = concat!(
        r#"{"type":"summary","summary":"s","leafUuid":"u"}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"S","uuid":"a","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"S","uuid":"b","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x","is_error":true}]}}"#,
        "\n",
        // A resumed session repeats the line: counted once.
        r#"{"type":"assistant","sessionId":"S","uuid":"a","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}]}}"#,
        "\n",
    );
    let ts = Reader::new().read("s.jsonl", text.as_bytes()).unwrap();
    assert_eq!(ts.len(), 1);
    let t = &ts[0];
    assert_eq!(
        (t.format, t.record, t.calls.len()),
        (Format::ClaudeCode, None, 1)
    );
    assert!(t.calls[0].is_error);
    let line2 = text.lines().nth(1).unwrap();
    assert_eq!(&text[t.calls[0].span.start..t.calls[0].span.end], line2);
}

#[test]
fn forced_format_overrides_detection_for_jsonl() {
    // Lines that look like a dataset of chat requests, read as forced OpenAI Chat: same thing;
    // forcing a session format on them finds no session lines and says so.
    let text = concat!(
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#,
        "\n",
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]}]}"#,
        "\n",
    );
    let ts = Reader::new()
        .format(Some(Format::OpenaiChat))
        .read("d.jsonl", text.as_bytes())
        .unwrap();
    assert_eq!(ts.len(), 2);
    let ts = Reader::new()
        .format(Some(Format::McpJsonrpc))
        .read("d.jsonl", text.as_bytes())
        .unwrap();
    assert_eq!(ts[0].calls.len(), 0);
}

#[test]
fn spans_point_at_the_call_record_in_documents() {
    let text =
        include_bytes!("../fixtures/corpus/transcripts/openai_chat/research_parallel.request.json");
    let ts = Reader::new().read("r.json", text).unwrap();
    for c in &ts[0].calls {
        let rec: Value = serde_json::from_slice(&text[c.span.start..c.span.end]).unwrap();
        assert_eq!(rec["id"].as_str(), c.id.as_deref());
        assert_eq!(rec["function"]["name"].as_str(), Some(c.name.as_str()));
    }
    let tools: Vec<&str> = ts[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert!(
        !tools.is_empty() && ts[0].tools[0].parameters.is_some(),
        "{tools:?}"
    );
}

#[test]
fn deepeval_test_run_gives_one_transcript_per_test_case() {
    let run = r#"{
  "testCases": [
    {"name": "a", "input": "q1", "toolsCalled": [{"name": "search", "inputParameters": {"q": "x"}, "output": "r"}]},
    {"name": "b", "input": "q2",
     "trace": {"toolSpans": [
        {"name": "fetch", "status": "ERRORED", "startTime": "2026-01-01T00:00:02Z", "input": "{\"url\": \"u\"}", "output": "timeout"},
        {"name": "search", "status": "SUCCESS", "startTime": "2026-01-01T00:00:01Z", "input": {"q": "y"}, "output": ["hit"]}
     ]}}
  ],
  "testPassed": 1
}"#;
    let ts = Reader::new().read("run.json", run.as_bytes()).unwrap();
    assert_eq!(ts.len(), 2);
    assert!(ts.iter().all(|t| t.format == Format::Deepeval));
    let recs: Vec<_> = ts.iter().map(|t| t.record.unwrap()).collect();
    assert_eq!((recs[0].line, recs[1].line), (3, 4));
    assert!(run[recs[0].span.start..recs[0].span.end].starts_with("{\"name\": \"a\""));
    assert_eq!(
        serde_json::to_value(&ts[0].calls).unwrap(),
        json!([{"name": "search", "args": {"q": "x"}, "id": null, "output": "r", "is_error": false}])
    );
    assert_eq!(
        serde_json::to_value(&ts[1].calls).unwrap(),
        json!([
            {"name": "search", "args": {"q": "y"}, "id": null, "output": ["hit"], "is_error": false},
            {"name": "fetch", "args": {"url": "u"}, "id": null, "output": "timeout", "is_error": true}
        ])
    );
    let c = &ts[1].calls[1];
    assert!(run[c.span.start..c.span.end].starts_with("{\"name\": \"fetch\""));
}

#[test]
fn forced_document_format_on_jsonl_keeps_a_dataset_and_response_lines_stay_a_session() {
    let requests = concat!(
        r#"{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}]}"#,
        "\n",
        r#"{"contents":[{"role":"model","parts":[{"functionCall":{"name":"g","args":{}}}]}]}"#,
        "\n",
    );
    assert_eq!(
        Reader::new()
            .format(Some(Format::Gemini))
            .read("r.jsonl", requests.as_bytes())
            .unwrap()
            .len(),
        2
    );
    let responses = concat!(
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}}]}"#,
        "\n",
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"g","args":{}}}]}}]}"#,
        "\n",
    );
    for forced in [None, Some(Format::Gemini)] {
        let ts = Reader::new()
            .format(forced)
            .read("s.jsonl", responses.as_bytes())
            .unwrap();
        assert_eq!((ts.len(), ts[0].calls.len()), (1, 2));
    }
}

#[test]
fn byte_order_mark_is_ignored_and_offsets_stay_true() {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(br#"{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#);
    let ts = Reader::new().read("bom.json", &bytes).unwrap();
    let c = &ts[0].calls[0];
    assert!(bytes[c.span.start..].starts_with(br#"{"id":"c""#));
    let mut streamed = Vec::new();
    toolspec::transcript::Reader::new()
        .read_stream("bom.json", &bytes[..], |t| streamed.push(t))
        .unwrap();
    assert_eq!(streamed[0].calls[0].span, c.span);
    assert_eq!((streamed.len(), streamed[0].record), (1, None));
}

#[test]
fn request_log_resending_history_is_one_conversation() {
    let sys = r#"{"role":"user","content":"refund ORD-1"}"#;
    let a1 = r#"{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\"o\":1}"}}]}"#;
    let t1 = r#"{"role":"tool","tool_call_id":"c1","content":"found"}"#;
    let a2 = r#"{"role":"assistant","tool_calls":[{"id":"c2","type":"function","function":{"name":"refund","arguments":"{\"o\":1"}}]}"#;
    let t2 = r#"{"role":"tool","tool_call_id":"c2","content":"done"}"#;
    let other = r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"z9","type":"function","function":{"name":"other","arguments":"{}"}}]}]}"#;
    let text = format!(
        "{{\"messages\":[{sys}]}}\n{{\"messages\":[{sys},{a1}]}}\n{{\"messages\":[{sys},{a1},{t1},{a2}]}}\n{{\"messages\":[{sys},{a1},{t1},{a2},{t2}]}}\n{other}\n"
    );
    let ts = Reader::new().read("proxy.jsonl", text.as_bytes()).unwrap();
    // Line 1 has no calls (nothing to continue), lines 2-4 are one conversation, line 5 another.
    assert_eq!(
        ts.len(),
        3,
        "{:?}",
        ts.iter().map(|t| t.record).collect::<Vec<_>>()
    );
    let conv = &ts[1];
    assert_eq!(
        serde_json::to_value(&conv.calls).unwrap(),
        json!([
            {"name": "lookup", "args": {"o": 1}, "id": "c1", "output": "found", "is_error": false, "turn": 1},
            {"name": "refund", "args": "{\"o\":1", "id": "c2", "output": "done", "is_error": false, "turn": 1}
        ])
    );
    let rec = conv.record.unwrap();
    assert_eq!(rec.line, 2);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        &text[rec.span.start..rec.span.end],
        [lines[1], lines[2], lines[3]].join("\n")
    );
    // First occurrences: c1 on line 2, c2 on line 3; one finding for the truncated arguments.
    let line_of = |off: usize| text[..off].matches('\n').count() + 1;
    assert_eq!(
        (
            line_of(conv.calls[0].span.start),
            line_of(conv.calls[1].span.start)
        ),
        (2, 3)
    );
    assert_eq!(conv.findings.len(), 1);
    assert_eq!(ts[2].calls[0].name, "other");
}

/// A dataset of separate examples that reuse call ids (fine-tuning files often number every
/// example's calls from `call_1`) is not a request log: a shared id whose call differs (other
/// name or arguments) starts another transcript, so no example is lost as a "duplicate".
#[test]
fn examples_reusing_call_ids_stay_separate_transcripts() {
    let line = |name: &str, city: &str, out: &str| {
        format!(
            r#"{{"messages":[{{"role":"user","content":"?"}},{{"role":"assistant","tool_calls":[{{"id":"call_1","type":"function","function":{{"name":"{name}","arguments":"{{\"city\":\"{city}\"}}"}}}}]}},{{"role":"tool","tool_call_id":"call_1","content":"{out}"}}]}}"#
        )
    };
    let text = [
        line("get_weather", "Oslo", "7C"),
        line("get_weather", "Rome", "21C"),
        line("get_time", "Rome", "14:00"),
    ]
    .join("\n");
    let ts = Reader::new().read("ft.jsonl", text.as_bytes()).unwrap();
    let got: Vec<(usize, &str, &serde_json::Value, Option<&serde_json::Value>)> = ts
        .iter()
        .map(|t| {
            let c = &t.calls[0];
            (
                t.record.unwrap().line,
                c.name.as_str(),
                &c.args,
                c.output.as_ref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                1,
                "get_weather",
                &json!({"city": "Oslo"}),
                Some(&json!("7C"))
            ),
            (
                2,
                "get_weather",
                &json!({"city": "Rome"}),
                Some(&json!("21C"))
            ),
            (
                3,
                "get_time",
                &json!({"city": "Rome"}),
                Some(&json!("14:00"))
            ),
        ]
    );
}

/// The tools a transcript declares as available, where its format records them: Chat `tools`
/// and legacy `functions`, Responses and Anthropic `tools`, Gemini `functionDeclarations`,
/// OTel `gen_ai.tool.definitions`, MCP `tools/list` results, Claude Code stream-json `init`.
/// In declaration order, each once (the lists were read off the files independently).
#[test]
fn declared_tools_are_read_where_the_format_records_them() {
    const SUPPORT: &[&str] = &[
        "lookup_customer",
        "get_order",
        "check_refund_eligibility",
        "issue_refund",
        "create_return_label",
        "send_email",
        "add_ticket_note",
    ];
    let legacy: Vec<&str> = SUPPORT
        .iter()
        .copied()
        .chain(["get_refund_policy"])
        .collect();
    let cases: &[(&str, &[&str], bool)] = &[
        (
            "corpus/transcripts/openai_chat/support_refund.request.json",
            SUPPORT,
            true,
        ),
        (
            "formats/transcripts/openai_chat/gen.support_refund.legacy_functions.json",
            &legacy,
            true,
        ),
        (
            "corpus/transcripts/anthropic_messages/support_refund.request.json",
            SUPPORT,
            true,
        ),
        (
            "corpus/transcripts/gemini/support_refund.rest.json",
            SUPPORT,
            true,
        ),
        (
            "formats/transcripts/openai_responses/hosted_tools.response.json",
            &["lookup"],
            true,
        ),
        (
            "corpus/transcripts/otel_genai/support_refund.otlp.json",
            SUPPORT,
            false,
        ),
        (
            "corpus/transcripts/mcp_jsonrpc/support_refund.jsonl",
            SUPPORT,
            true,
        ),
        (
            "formats/transcripts/claude_code/print.stream-json.jsonl",
            &["Bash", "Read"],
            false,
        ),
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (file, names, with_schema) in cases {
        let ts = toolspec::transcript::Reader::new()
            .read_file(&root.join(file))
            .unwrap();
        let got: Vec<&str> = ts[0].tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(&got, names, "{file}");
        if *with_schema {
            assert!(ts[0].tools.iter().all(|t| t.parameters.is_some()), "{file}");
        }
    }
}
