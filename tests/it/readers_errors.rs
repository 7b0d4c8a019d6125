//! Malformed input: every case is a located `ReadError` (or, where the format tolerates it,
//! a finding) — never a panic.

use toolspec::transcript::{Format, ReadError, Reader};

fn err(name: &str, bytes: &[u8]) -> ReadError {
    match Reader::new().read(name, bytes) {
        Ok(t) => panic!("{name}: expected an error, read {} transcripts", t.len()),
        Err(e) => e,
    }
}

#[test]
fn empty_and_blank_files() {
    for bytes in [&b""[..], b"   \n\n\t  \n"] {
        let e = err("empty.json", bytes);
        assert_eq!(e.code(), "empty");
        assert!(e.to_string().starts_with("empty.json: empty file"), "{e}");
    }
}

#[test]
fn invalid_json_document_points_at_line_and_column() {
    let text = b"{\n  \"messages\": [\n    {\"role\": \"user\" \"content\": \"hi\"}\n  ]\n}\n";
    let e = err("runs/a.json", text);
    assert_eq!(e.code(), "invalid-json");
    assert_eq!(e.line_col(), Some((3, 21)));
    assert_eq!(
        e.to_string(),
        "runs/a.json:3:21: invalid JSON: expected `,` or `}`"
    );
}

#[test]
fn truncated_document_says_it_was_cut_off() {
    let text = b"{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}, {\"role\": \"assis";
    let e = err("cut.json", text);
    assert_eq!(e.code(), "invalid-json");
    assert_eq!(e.line_col().unwrap().0, 1);
    let help = miette::Diagnostic::help(&e).unwrap().to_string();
    assert!(help.contains("cut off"), "{help}");
}

#[test]
fn invalid_line_in_the_middle_of_a_jsonl_file() {
    let text = concat!(
        r#"{"timestamp":"t","type":"session_meta","payload":{}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"a","arguments":"{}","call_id":"c1"}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item" "payload":{}}"#,
        "\n",
        r#"{"timestamp":"t","type":"event_msg","payload":{}}"#,
        "\n",
    );
    let e = err("runs/a.jsonl", text.as_bytes());
    assert_eq!(e.code(), "invalid-json");
    assert_eq!(
        e.to_string(),
        "runs/a.jsonl:3:41: invalid JSON: expected `,` or `}`"
    );
}

#[test]
fn truncated_last_line_is_an_error_for_sessions() {
    let text = concat!(
        r#"{"timestamp":"t","type":"session_meta","payload":{}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"a","arg"#,
    );
    let e = err("live.jsonl", text.as_bytes());
    assert_eq!(e.code(), "truncated");
    assert_eq!(e.line_col().unwrap().0, 2);
    assert!(e.to_string().starts_with("live.jsonl:2:"), "{e}");
}

#[test]
fn torn_last_line_of_an_mcp_log_is_a_finding() {
    let text = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/ca"#,
    );
    let ts = Reader::new().read("mcp.jsonl", text.as_bytes()).unwrap();
    assert_eq!(ts.len(), 1);
    assert_eq!(ts[0].calls.len(), 1);
    let f = &ts[0].findings[0];
    assert_eq!(f.code, "truncated-last-line");
    assert_eq!(
        &text.as_bytes()[f.span.start..f.span.start + 10],
        b"{\"jsonrpc\""
    );
}

#[test]
fn invalid_utf8_is_located() {
    let mut bytes = b"{\"messages\": [\n{\"role\": \"user\", \"content\": \"caf".to_vec();
    bytes.extend([0xC3, 0x28]);
    bytes.extend(b"\"}]}");
    let e = err("latin1.json", &bytes);
    assert_eq!(e.code(), "invalid-utf8");
    assert_eq!(e.line_col(), Some((2, 33)));
}

/// UTF-16 (Windows PowerShell's `>` writes it) is named, with or without a byte-order mark,
/// not called binary; the same error when streamed.
#[test]
fn utf16_files_are_named_as_such() {
    let text = r#"{"tools_called": [{"name": "search"}]}"#;
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for (bytes, kind) in [
        ([&[0xff, 0xfe][..], &le].concat(), "FF FE"),
        ([&[0xfe, 0xff][..], &be].concat(), "FE FF"),
        (le.clone(), "little-endian"),
        (be.clone(), "big-endian"),
    ] {
        let e = err("ps.json", &bytes);
        assert_eq!(e.code(), "invalid-utf8", "{kind}");
        assert_eq!(e.line_col(), Some((1, 1)));
        assert!(
            e.to_string().contains("UTF-16") && e.to_string().contains(kind),
            "{e}"
        );
        let streamed = Reader::new()
            .read_stream("ps.json", &bytes[..], |_| {})
            .unwrap_err();
        assert_eq!(streamed.to_string(), e.to_string());
    }
}

#[test]
fn binary_garbage_is_rejected() {
    let bytes: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let e = err("blob.bin", &bytes);
    assert!(matches!(e.code(), "binary" | "invalid-utf8"), "{e}");
    let gz = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00];
    assert_eq!(err("x.jsonl.gz", &gz).code(), "binary");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let text = "[".repeat(depth) + &"]".repeat(depth);
    let e = err("deep.json", text.as_bytes());
    assert_eq!(e.code(), "invalid-json");
    assert!(e.to_string().contains("nesting too deep"), "{e}");
    let obj = "{\"a\":".repeat(depth) + "1" + &"}".repeat(depth);
    assert_eq!(err("deep2.json", obj.as_bytes()).code(), "invalid-json");
    // As a JSONL line too.
    let jsonl = format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}\n{text}\n");
    assert_eq!(err("deep.jsonl", jsonl.as_bytes()).code(), "invalid-json");
}

#[test]
fn unknown_format_lists_every_format_tried() {
    let e = err("cfg.json", br#"{"name": "x", "version": 3}"#);
    assert_eq!(e.code(), "unknown-format");
    let ReadError::DetectionFailed { tried, .. } = &e else {
        panic!()
    };
    assert_eq!(tried.len(), Format::ALL.len());
    for f in Format::ALL {
        assert!(tried.iter().any(|r| r.format == f), "{f} not listed");
    }
    // What the file holds is said once, in the message, not in every format's reason.
    assert!(e.to_string().contains("`name`, `version`"), "{e}");
    assert!(
        tried.iter().all(|r| !r.reason.contains("`version`")),
        "{tried:?}"
    );
    let help = miette::Diagnostic::help(&e).unwrap().to_string();
    assert!(
        help.contains("--input-format") && help.contains("otel-genai (no `resourceSpans`"),
        "{help}"
    );
    // One line (reports show a finding's help on one line), each format's reason once.
    assert!(!help.contains('\n'), "{help}");
    for f in Format::ALL {
        let reason = &tried.iter().find(|r| r.format == f).unwrap().reason;
        assert_eq!(help.matches(reason.as_str()).count(), 1, "{f}: {help}");
    }
    // Plain text, and scalars.
    assert_eq!(err("notes.txt", b"hello\nworld\n").code(), "unknown-format");
    assert_eq!(err("n.json", b"[1, 2, 3]").code(), "unknown-format");
}

#[test]
fn wrong_shape_for_a_forced_format() {
    let e = Reader::new()
        .format(Some(Format::OpenaiChat))
        .read("x.json", br#"{"contents": []}"#)
        .unwrap_err();
    assert_eq!(e.code(), "wrong-shape");
    assert!(
        e.to_string()
            .starts_with("x.json:1:1: not a openai-chat transcript"),
        "{e}"
    );
    let e = Reader::new()
        .format(Some(Format::CodexCli))
        .read("x.json", br"[1,2]")
        .unwrap_err();
    assert_eq!(e.code(), "wrong-shape");
}

#[test]
fn dataset_line_of_no_format_is_located() {
    let text = concat!(
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#,
        "\n",
        r#"{"unrelated": true}"#,
        "\n",
    );
    let e = err("set.jsonl", text.as_bytes());
    assert_eq!(e.code(), "wrong-shape");
    assert_eq!(e.line_col(), Some((2, 1)));
}

#[test]
fn invalid_arguments_are_kept_raw_with_a_finding() {
    let text = br#"{"messages":[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1"}}]}]}"#;
    let ts = Reader::new().read("x.json", text).unwrap();
    let t = &ts[0];
    assert_eq!(t.calls[0].args, serde_json::json!("{\"a\": 1"));
    assert_eq!(t.findings.len(), 1);
    assert_eq!(t.findings[0].code, "invalid-arguments");
    assert_eq!(t.findings[0].span, t.calls[0].span);
    assert!(text[t.calls[0].span.start..].starts_with(b"{\"id\":\"c1\""));
}

#[test]
fn streaming_reader_reports_the_same_errors() {
    let text = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":1 \"result\":{}}\n";
    let e = Reader::new()
        .read_stream("s.jsonl", &text[..], |_| {})
        .unwrap_err();
    assert_eq!(e.code(), "invalid-json");
    assert_eq!(e.line_col(), Some((2, 25)));
    assert_eq!(
        Reader::new()
            .read_stream("e.jsonl", &b"\n\n"[..], |_| {})
            .unwrap_err()
            .code(),
        "empty"
    );
    let mut bad = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".to_vec();
    bad.extend([0xff, b'\n']);
    assert_eq!(
        Reader::new()
            .read_stream("u.jsonl", &bad[..], |_| {})
            .unwrap_err()
            .code(),
        "invalid-utf8"
    );
}

#[test]
fn errors_render_with_miette() {
    let e = err("runs/a.json", b"{\"messages\": [}");
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .render_report(&mut out, &e)
        .unwrap();
    assert!(out.contains("toolspec::read::invalid_json"), "{out}");
    assert!(out.contains("runs/a.json:1:15"), "{out}");
}

/// A dataset whose last line was cut mid-write: the error names line 3, and the two records
/// before it are still handed out (the last one was held open until the next line).
#[test]
fn records_before_a_torn_dataset_line_are_still_emitted() {
    let line = |id: &str| {
        format!(
            r#"{{"messages":[{{"role":"assistant","content":null,"tool_calls":[{{"id":"{id}","type":"function","function":{{"name":"lookup","arguments":"{{}}"}}}}]}}]}}"#
        )
    };
    let (a, b) = (line("c1"), line("c2"));
    let text = format!("{a}\n{b}\n{}", &a[..a.len() / 2]);
    let mut got = Vec::new();
    let e = toolspec::transcript::Reader::new()
        .read_with("cut.jsonl", text.as_bytes(), |t| {
            got.push(t.calls[0].id.clone());
        })
        .unwrap_err();
    assert_eq!(e.line_col().map(|(l, _)| l), Some(3), "{e}");
    assert_eq!(got, [Some("c1".to_owned()), Some("c2".to_owned())]);
}

/// Every format that stores arguments as a string keeps an invalid one raw *and* reports it
/// (FORMATS §0), including those whose arguments arrive in pieces (chat and UI chunk streams).
#[test]
fn invalid_argument_strings_are_reported_in_every_format() {
    let cut = r#""{\"q\": \"tide""#;
    let cases: Vec<(&str, String)> = vec![
        (
            "chat.json",
            format!(
                r#"{{"messages":[{{"role":"assistant","tool_calls":[{{"id":"c1","type":"function","function":{{"name":"f","arguments":{cut}}}}}]}}]}}"#
            ),
        ),
        (
            "legacy.json",
            format!(
                r#"{{"messages":[{{"role":"assistant","content":null,"function_call":{{"name":"f","arguments":{cut}}}}}]}}"#
            ),
        ),
        (
            "stream.jsonl",
            [
                r#"{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{\"q\": "}}]}}]}"#,
                r#"{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"tide"}}]},"finish_reason":"length"}]}"#,
            ]
            .join("\n"),
        ),
        (
            "responses.json",
            format!(
                r#"[{{"type":"function_call","call_id":"c1","name":"f","arguments":{cut},"status":"incomplete"}}]"#
            ),
        ),
        (
            "mcp_call.json",
            format!(
                r#"{{"object":"response","output":[{{"type":"mcp_call","id":"m1","name":"f","server_label":"s","arguments":{cut},"output":null,"error":null}}]}}"#
            ),
        ),
        (
            "vercel_steps.json",
            format!(
                r#"{{"steps":[{{"content":[{{"type":"tool-call","toolCallId":"c1","toolName":"f","input":{cut},"invalid":true,"dynamic":true}}]}}]}}"#
            ),
        ),
        (
            "vercel_ui.json",
            format!(
                r#"[{{"id":"m","role":"assistant","parts":[{{"type":"tool-f","toolCallId":"c1","state":"output-error","rawInput":{cut},"errorText":"bad"}}]}}]"#
            ),
        ),
        (
            "vercel_chunks.json",
            r#"[{"type":"start"},{"type":"tool-input-start","toolCallId":"c1","toolName":"f"},{"type":"tool-input-delta","toolCallId":"c1","inputTextDelta":"{\"q\": \"tide"},{"type":"finish"}]"#.to_string(),
        ),
        (
            "langchain.json",
            format!(
                r#"[{{"type":"ai","content":"","tool_calls":[],"invalid_tool_calls":[{{"name":"f","args":{cut},"id":"c1","error":null,"type":"invalid_tool_call"}}]}}]"#
            ),
        ),
        (
            "otel.json",
            format!(
                r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{{"name":"execute_tool f","startTimeUnixNano":"1","attributes":[{{"key":"gen_ai.operation.name","value":{{"stringValue":"execute_tool"}}}},{{"key":"gen_ai.tool.name","value":{{"stringValue":"f"}}}},{{"key":"gen_ai.tool.call.arguments","value":{{"stringValue":{cut}}}}}]}}]}}]}}]}}"#
            ),
        ),
        (
            "rollout.jsonl",
            format!(
                r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"function_call","name":"f","arguments":{cut},"call_id":"c1"}}}}"#
            ),
        ),
        (
            "deepeval.json",
            format!(r#"{{"tools_called":[{{"name":"f","args":{cut}}}]}}"#),
        ),
    ];
    for (name, text) in &cases {
        let ts = Reader::new()
            .read(name, text.as_bytes())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let calls: Vec<_> = ts.iter().flat_map(|t| &t.calls).collect();
        assert_eq!(calls.len(), 1, "{name}: {calls:?}");
        assert_eq!(calls[0].args, serde_json::json!("{\"q\": \"tide"), "{name}");
        let findings: Vec<_> = ts.iter().flat_map(|t| &t.findings).collect();
        assert!(
            findings.iter().any(|f| f.code == "invalid-arguments"),
            "{name}: no invalid-arguments finding ({findings:?})"
        );
    }
}
