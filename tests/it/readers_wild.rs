//! Files other projects committed (`tests/fixtures/wild/`, sources and licences in its
//! `SOURCES.md`), none written for toolspec: each is read with format detection and must give
//! exactly its truth file's calls (name, arguments, id, output, error flag), be detected as the
//! format its folder names, and read the same when streamed.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use toolspec::transcript::{Format, ReadError, Reader, Transcript};

/// The format each folder's files are read as (the folder names the API, not always the reader).
fn expected_format(folder: &str) -> Format {
    match folder {
        "google_interactions" => Format::Gemini,
        "gemini_cli_session" => Format::GeminiCli,
        "cohere" => Format::OpenaiChat,
        "swe_agent" => Format::SweAgent,
        "inspect_ai" => Format::InspectAi,
        "openhands" => Format::Openhands,
        "google_adk_evalset" => Format::AdkEvalset,
        "any_agent_trace" => Format::OtelGenai,
        "langfuse_trace" => Format::Langfuse,
        other => other.replace('_', "-").parse().unwrap(),
    }
}

/// Files whose truth takes a judgement call toolspec makes the other way (documented in
/// docs/formats.md and the fixtures' SOURCES.md): their calls are compared in either order.
const EITHER_ORDER: &[&str] = &["deepeval-pydanticai-parallel-tools.trace.json"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wild")
}

fn files() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(root()).unwrap().flatten() {
        let folder = dir.file_name().to_string_lossy().into_owned();
        if !dir.path().is_dir() || folder == "truth" {
            continue;
        }
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            out.push((folder.clone(), f.path()));
        }
    }
    out.sort();
    out
}

fn calls(ts: &[Transcript]) -> Vec<Value> {
    ts.iter()
        .flat_map(|t| &t.calls)
        .map(|c| {
            json!({"name": c.name, "args": c.args, "id": c.id, "output": c.output, "is_error": c.is_error})
        })
        .collect()
}

fn sorted(mut v: Vec<Value>) -> Vec<Value> {
    v.sort_by_key(std::string::ToString::to_string);
    v
}

#[test]
fn every_wild_file_reads_as_its_truth() {
    let all = files();
    assert!(all.len() >= 36, "found {} wild files", all.len());
    let mut failures = Vec::new();
    for (folder, file) in &all {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let truth = root()
            .join("truth")
            .join(folder)
            .join(format!("{name}.truth.json"));
        let want: Vec<Value> = if let Ok(b) = std::fs::read(&truth) {
            serde_json::from_slice(&b).unwrap()
        } else {
            failures.push(format!("{folder}/{name}: no truth file"));
            continue;
        };
        let ts = match Reader::new().read_file(file) {
            Ok(ts) => ts,
            Err(e) => {
                failures.push(format!("{folder}/{name}: {e}"));
                continue;
            }
        };
        let format = expected_format(folder);
        if let Some(t) = ts.iter().find(|t| t.format != format) {
            failures.push(format!(
                "{folder}/{name}: detected as {}, not {format}",
                t.format
            ));
        }
        let got = calls(&ts);
        let same = if EITHER_ORDER.contains(&name.as_str()) {
            sorted(got.clone()) == sorted(want.clone())
        } else {
            got == want
        };
        if !same {
            let first = (0..got.len().min(want.len()))
                .find(|&i| got[i] != want[i])
                .map(|i| format!("; call {i}:\n    got  {}\n    want {}", got[i], want[i]))
                .unwrap_or_default();
            failures.push(format!(
                "{folder}/{name}: {} calls, truth {}{first}",
                got.len(),
                want.len()
            ));
        }
        let bytes = std::fs::read(file).unwrap();
        let mut streamed = Vec::new();
        match Reader::new().read_stream(&name, &bytes[..], |t| streamed.push(t)) {
            Ok(()) if calls(&streamed) == got => {}
            Ok(()) => failures.push(format!("{folder}/{name}: streamed read differs")),
            Err(e) => failures.push(format!("{folder}/{name}: streamed read failed: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} wild files differ:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// Gemini stream chunks whose `functionCall` parts carry only `partialArgs` or close the call
/// (`{}`) continue the call before them: one call per named part, never a nameless one.
#[test]
fn gemini_partial_arguments_continue_the_open_call() {
    let lines = [
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"write","willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.items[0].name","stringValue":"app","willContinue":true}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.items[0].name","stringValue":"le"}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$['items'][0]['ok']","boolValue":true},{"jsonPath":"$.items[1]","nullValue":"NULL_VALUE"},{"jsonPath":"$.n","numberValue":2}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}}]}}]}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"done","args":{"x":1}}}]}}]}"#,
    ];
    let text = lines.join("\n") + "\n";
    let ts = Reader::new().read("s.jsonl", text.as_bytes()).unwrap();
    let got = calls(&ts);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0]["name"], "write");
    assert_eq!(
        got[0]["args"],
        json!({"items": [{"name": "apple", "ok": true}, null], "n": 2})
    );
    assert_eq!(got[1]["name"], "done");
    assert_eq!(got[1]["args"], json!({"x": 1}));
    // The same stream as one document (a gemini-cli replay of chunks) reads the same.
    let chunks: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let doc = json!({"method": "generateContentStream", "response": chunks}).to_string();
    assert_eq!(
        calls(&Reader::new().read("r.json", doc.as_bytes()).unwrap()),
        got
    );
}

/// A `jsonPath` that does not fit, is too deep, or jumps past the end of an array is reported
/// and skipped; it never builds a large or deep value.
#[test]
fn gemini_partial_arguments_that_do_not_fit_are_reported_not_followed() {
    let deep = format!("$.{}", vec!["a"; 100].join("."));
    let cases = [
        r"$.items[1000000000]".to_string(),
        deep,
        "$..x".to_string(),
        "$.items[*]".to_string(),
        "items".to_string(),
    ];
    for path in cases {
        let part =
            json!({"functionCall": {"partialArgs": [{"jsonPath": path, "stringValue": "x"}]}});
        let doc = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "f", "willContinue": true}}, part]}}]});
        let ts = Reader::new()
            .read("r.json", doc.to_string().as_bytes())
            .unwrap();
        assert_eq!(calls(&ts)[0]["args"], json!({}), "{path}");
        assert!(
            ts[0].findings.iter().any(|f| f.code == "invalid-arguments"),
            "{path}: {:?}",
            ts[0].findings
        );
    }
}

/// A `steps` array alone is no Vercel result: a Google Interactions response is read as
/// Gemini, and an unknown object with `steps` is an `unknown-format` error naming what it holds
/// (it used to be read as a Vercel result with 0 calls).
#[test]
fn steps_alone_do_not_make_a_vercel_result() {
    let interaction = r#"{"id":"v1","object":"interaction","status":"requires_action","steps":[{"type":"thought","signature":"x"},{"id":"z1","type":"function_call","name":"getWeather","arguments":{"location":"Paris"}}]}"#;
    let ts = Reader::new()
        .read("i.json", interaction.as_bytes())
        .unwrap();
    assert_eq!(ts[0].format, Format::Gemini);
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "getWeather", "args": {"location": "Paris"}, "id": "z1", "output": null, "is_error": false})
        ]
    );
    let other = r#"{"run_id":"r","steps":[{"kind":"request","parts":[{"part_kind":"tool-call","tool_name":"f","args":{}}]}]}"#;
    let e = Reader::new().read("p.json", other.as_bytes()).unwrap_err();
    assert_eq!(e.code(), "unknown-format");
    assert!(e.to_string().contains("`run_id`, `steps`"), "{e}");
    // A v4/v5 result is still one.
    let v5 = r#"{"steps":[{"content":[{"type":"tool-call","toolCallId":"c","toolName":"f","input":{}}],"finishReason":"tool-calls"}]}"#;
    assert_eq!(
        Reader::new().read("v.json", v5.as_bytes()).unwrap()[0].format,
        Format::VercelAiSdk
    );
}

/// UI message chunk streams hold more chunk types than the reader needs (approvals, sources,
/// errors, custom `data-…` parts): they are skipped, not a reason to give up on the file.
#[test]
fn ui_chunk_streams_with_other_chunk_types_are_read() {
    let stream = r#"[{"type":"start"},{"type":"source-url","sourceId":"s","url":"https://example.com"},{"type":"data-weather","data":{}},
      {"type":"tool-input-start","toolCallId":"c1","toolName":"rm"},{"type":"tool-input-available","toolCallId":"c1","toolName":"rm","input":{"f":"a"}},
      {"type":"tool-approval-request","approvalId":"a1","toolCallId":"c1"},{"type":"tool-output-denied","toolCallId":"c1"},
      {"type":"error","errorText":"boom"},{"type":"finish"}]"#;
    let ts = Reader::new().read("u.json", stream.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::VercelAiSdk);
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "rm", "args": {"f": "a"}, "id": "c1", "output": null, "is_error": false})
        ]
    );
    // Anthropic content blocks (`text`, `tool_use`) are no chunk stream.
    let blocks =
        r#"[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"f","input":{}}]"#;
    assert!(Reader::new()
        .read("b.json", blocks.as_bytes())
        .map_or(true, |ts| ts[0].format != Format::VercelAiSdk));
}

/// `unknown-format` names what the file holds once, and each format's reason once.
#[test]
fn unknown_format_says_what_it_found_once() {
    let e = Reader::new()
        .read(
            "c.json",
            br#"{"id":"x","message":{},"finish_reason":"stop"}"#,
        )
        .unwrap_err();
    let ReadError::DetectionFailed { found, tried, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(
        found,
        "an object with keys `id`, `message`, `finish_reason`"
    );
    assert_eq!(tried.len(), Format::ALL.len());
    let help = miette::Diagnostic::help(&e).unwrap().to_string();
    assert_eq!(help.matches("`finish_reason`").count(), 0, "{help}");
    assert_eq!(e.to_string().matches("`finish_reason`").count(), 1, "{e}");
    // A text file without any JSON says so once too.
    let e = Reader::new().read("n.txt", b"hello\nworld\n").unwrap_err();
    assert!(e.to_string().contains("text with no JSON records"), "{e}");
    let help = miette::Diagnostic::help(&e).unwrap().to_string();
    assert!(!help.contains("no JSON records"), "{help}");
}

/// A file with the marks of two formats is read as the first in the detection order, and says
/// so: an `ambiguous-format` finding names the other format and how to read it as that. A
/// forced format, or a file with one format's marks, has no such finding.
#[test]
fn a_file_matching_two_formats_says_so() {
    let doc = json!({"messages": [
        {"role": "assistant",
         "content": [{"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "a"}}],
         "tool_calls": [{"id": "toolu_1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"a\"}"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "found"}]}
    ]})
    .to_string();
    let ts = Reader::new().read("x.json", doc.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::AnthropicMessages);
    let notes: Vec<_> = ts[0]
        .findings
        .iter()
        .filter(|f| f.code == "ambiguous-format")
        .collect();
    assert_eq!(notes.len(), 1, "{:?}", ts[0].findings);
    assert!(
        notes[0].message.contains("openai-chat")
            && notes[0].message.contains("--input-format openai-chat"),
        "{}",
        notes[0].message
    );
    assert_eq!((notes[0].span.start, notes[0].span.end), (0, doc.len()));
    let forced = Reader::new()
        .format(Some(Format::AnthropicMessages))
        .read("x.json", doc.as_bytes())
        .unwrap();
    assert!(forced[0].findings.is_empty(), "{:?}", forced[0].findings);
    // None of the wild files is ambiguous.
    for (folder, file) in files() {
        for t in Reader::new().read_file(&file).unwrap() {
            assert!(
                t.findings.iter().all(|f| f.code != "ambiguous-format"),
                "{folder}/{}: {:?}",
                file.display(),
                t.findings
            );
        }
    }
}

/// A gemini-cli session file is detected as `gemini-cli` and as nothing else (no other format's
/// marks); Gemini API documents and Claude Code lines, which share words with it, are not.
#[test]
fn gemini_cli_sessions_are_detected_as_themselves_only() {
    let file = root().join("gemini_cli_session/agentcmd-gemini-session-2025-10-27T19-55.json");
    let ts = Reader::new().read_file(&file).unwrap();
    assert_eq!(ts.len(), 1);
    assert_eq!(ts[0].format, Format::GeminiCli);
    assert!(ts[0].findings.is_empty(), "{:?}", ts[0].findings);
    assert_eq!(ts[0].calls.len(), 13);
    let session = r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","messages":[
      {"id":"1","timestamp":"t","type":"user","content":"hi"},
      {"id":"2","timestamp":"t","type":"gemini","content":"","toolCalls":[
        {"id":"c1","name":"ls","args":{"path":"/"},"status":"success","result":[{"functionResponse":{"id":"c1","name":"ls","response":{"output":"a b"}}}]},
        {"id":"c2","name":"sh","args":{"command":"x"},"status":"cancelled","result":null}]}]}"#;
    let ts = Reader::new().read("s.json", session.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::GeminiCli);
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "ls", "args": {"path": "/"}, "id": "c1", "output": {"output": "a b"}, "is_error": false}),
            json!({"name": "sh", "args": {"command": "x"}, "id": "c2", "output": null, "is_error": true}),
        ]
    );
    for (other, text) in [
        (
            Format::Gemini,
            r#"{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}]}"#,
        ),
        (
            Format::ClaudeCode,
            r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}"#,
        ),
    ] {
        assert_eq!(
            Reader::new().read("o.json", text.as_bytes()).unwrap()[0].format,
            other
        );
    }
}

/// A Cohere v2 chat response reads as OpenAI Chat (the same `tool_calls` shape), and nothing else
/// claims it; an Anthropic `Message` (which also has a `role`) is not taken for one.
#[test]
fn cohere_responses_read_as_openai_chat() {
    let text = r#"{"id":"x","message":{"role":"assistant","tool_plan":"p","tool_calls":[{"id":"w1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}]},"finish_reason":"TOOL_CALL","usage":{}}"#;
    let ts = Reader::new().read("c.json", text.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::OpenaiChat);
    assert!(ts[0].findings.is_empty(), "{:?}", ts[0].findings);
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "weather", "args": {"city": "Oslo"}, "id": "w1", "output": null, "is_error": false})
        ]
    );
    let anthropic = r#"{"id":"m","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}],"stop_reason":"tool_use"}"#;
    assert_eq!(
        Reader::new().read("a.json", anthropic.as_bytes()).unwrap()[0].format,
        Format::AnthropicMessages
    );
}

/// Provider stream events saved one per line: Anthropic `content_block_*` events and OpenAI
/// Responses `response.output_item.done` events give the calls, arguments assembled from the
/// pieces; the events that repeat or only describe them add nothing.
#[test]
fn provider_stream_events_are_read() {
    let anthropic = [
        r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"search","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\": \"ti"}}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"de\"}"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t2","name":"noop","input":{}}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        r#"{"type":"message_stop"}"#,
    ]
    .join("\n");
    let ts = Reader::new().read("a.jsonl", anthropic.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::AnthropicMessages);
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "search", "args": {"q": "tide"}, "id": "t1", "output": null, "is_error": false}),
            json!({"name": "noop", "args": {}, "id": "t2", "output": null, "is_error": false}),
        ]
    );
    let responses = [
        r#"{"type":"response.created","sequence_number":0,"response":{"id":"r","object":"response","output":[]}}"#,
        r#"{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc1","type":"function_call","status":"in_progress","arguments":"","call_id":"c1","name":"f"}}"#,
        r#"{"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc1","output_index":0,"delta":"{\"a\":1}"}"#,
        r#"{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":{"id":"fc1","type":"function_call","status":"completed","arguments":"{\"a\":1}","call_id":"c1","name":"f"}}"#,
        r#"{"type":"response.completed","sequence_number":4,"response":{"id":"r","object":"response","output":[{"id":"fc1","type":"function_call","status":"completed","arguments":"{\"a\":1}","call_id":"c1","name":"f"}]}}"#,
    ]
    .join("\n");
    let ts = Reader::new().read("r.jsonl", responses.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::OpenaiResponses);
    assert_eq!(
        calls(&ts),
        vec![json!({"name": "f", "args": {"a": 1}, "id": "c1", "output": null, "is_error": false})]
    );
}

/// A SWE-agent trajectory is detected as `swe-agent` and nothing else; its reused ids are kept
/// as separate calls, each result linked to the latest call with its id.
#[test]
fn swe_agent_trajectories_are_detected_as_themselves_only() {
    let traj = r#"{"environment":"e","trajectory":[{"action":"ls","observation":"a"}],"info":{},"replay_config":"{}","history":[
      {"role":"system","content":"sys","agent":"main","message_type":"system_prompt"},
      {"role":"assistant","content":"","agent":"main","message_type":"action","tool_calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},
      {"role":"tool","content":[{"type":"text","text":"a b"}],"agent":"main","message_type":"observation","tool_call_ids":["c"]},
      {"role":"assistant","content":"","agent":"main","message_type":"action","tool_calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},
      {"role":"tool","content":"again","agent":"main","message_type":"observation","tool_call_ids":["c"]}]}"#;
    let ts = Reader::new().read("t.traj", traj.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::SweAgent);
    assert!(ts[0].findings.is_empty(), "{:?}", ts[0].findings);
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "bash", "args": {"command": "ls"}, "id": "c", "output": "a b", "is_error": false}),
            json!({"name": "bash", "args": {"command": "ls"}, "id": "c", "output": "again", "is_error": false}),
        ]
    );
}

/// An Inspect AI eval log is detected as `inspect-ai` and nothing else; a log of several samples
/// gives one transcript per sample, located where the sample starts.
#[test]
fn inspect_logs_are_detected_as_themselves_and_split_by_sample() {
    let sample = |id: &str, err: &str| {
        format!(
            r#"{{"id":"{id}","epoch":1,"input":"q","messages":[
              {{"role":"user","content":"q"}},
              {{"role":"assistant","content":"","tool_calls":[{{"id":"c{id}","function":"bash","arguments":{{"cmd":"ls"}}}}]}},
              {{"role":"tool","tool_call_id":"c{id}","function":"bash","content":[{{"type":"text","text":"out"}}],"error":{err}}}],
              "events":[]}}"#
        )
    };
    let log = format!(
        r#"{{"version":2,"status":"success","eval":{{"task":"t","model":"m"}},"plan":{{}},"samples":[{},{}]}}"#,
        sample("1", "null"),
        sample("2", r#"{"type":"timeout","message":"too slow"}"#)
    );
    let ts = Reader::new().read("log.json", log.as_bytes()).unwrap();
    assert_eq!(ts.len(), 2);
    assert!(ts
        .iter()
        .all(|t| t.format == Format::InspectAi && t.findings.is_empty()));
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "bash", "args": {"cmd": "ls"}, "id": "c1", "output": "out", "is_error": false}),
            json!({"name": "bash", "args": {"cmd": "ls"}, "id": "c2", "output": "out", "is_error": true}),
        ]
    );
    let second = ts[1].record.unwrap();
    assert!(log[second.span.start..second.span.end].starts_with(r#"{"id":"2""#));
}

/// An OpenHands event list is detected as `openhands` and nothing else: calls from the actions
/// with `tool_call_metadata` (arguments as the model wrote them), results from the observations
/// that name them as `cause`; a message list with `role`s is not taken for one.
#[test]
fn openhands_trajectories_are_detected_as_themselves_only() {
    let events = r#"[
      {"id":0,"timestamp":"t","source":"user","message":"hi","action":"message","args":{"content":"hi"}},
      {"id":1,"timestamp":"t","source":"agent","message":"run","action":"run","args":{"command":"ls","thought":"x"},
       "tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"toolu_1","model_response":{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"execute_bash","arguments":"{\"command\": \"ls\"}"}}]}}]},"total_calls_in_response":1}},
      {"id":2,"timestamp":"t","source":"agent","message":"failed","cause":1,"observation":"error","content":"no such file","extras":{}}
    ]"#;
    let ts = Reader::new().read("t.json", events.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::Openhands);
    assert!(ts[0].findings.is_empty(), "{:?}", ts[0].findings);
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "execute_bash", "args": {"command": "ls"}, "id": "toolu_1", "output": "no such file", "is_error": true})
        ]
    );
    let chat = r#"[{"role":"user","content":"hi","source":"x","action":"y"}]"#;
    assert_ne!(
        Reader::new().read("c.json", chat.as_bytes()).unwrap()[0].format,
        Format::Openhands
    );
}

/// An ADK eval set is detected as `adk-evalset` and nothing else, one transcript per eval case;
/// the older test-file list of `{query, expected_tool_use}` too.
#[test]
fn adk_eval_sets_are_detected_as_themselves_only() {
    let case = |id: &str, sides: u32| {
        format!(
            r#"{{"eval_id":"{id}","conversation":[{{"invocation_id":"i","user_content":{{"parts":[{{"text":"roll"}}],"role":"user"}},
              "intermediate_data":{{"tool_uses":[{{"id":null,"name":"roll_die","args":{{"sides":{sides}}}}}],"intermediate_responses":[]}}}}]}}"#
        )
    };
    let set = format!(
        r#"{{"eval_set_id":"s","name":"s","eval_cases":[{},{}]}}"#,
        case("a", 6),
        case("b", 20)
    );
    let ts = Reader::new()
        .read("s.evalset.json", set.as_bytes())
        .unwrap();
    assert_eq!(ts.len(), 2);
    assert!(ts
        .iter()
        .all(|t| t.format == Format::AdkEvalset && t.findings.is_empty()));
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "roll_die", "args": {"sides": 6}, "id": null, "output": null, "is_error": false}),
            json!({"name": "roll_die", "args": {"sides": 20}, "id": null, "output": null, "is_error": false}),
        ]
    );
    let old = r#"[{"query":"roll a die","expected_tool_use":[{"tool_name":"roll_die","tool_input":{"sides":6}}],"reference":"4"}]"#;
    let ts = Reader::new().read("t.test.json", old.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::AdkEvalset);
    assert_eq!(calls(&ts)[0]["args"], json!({"sides": 6}));
}

/// OpenTelemetry spans as the SDK writes them (not OTLP) read as OTel: `execute_tool` spans by
/// start time, file order on ties; an error status is an error.
#[test]
fn otel_sdk_span_json_reads_as_otel() {
    let span = |name: &str, start: u64, tool: &str, status: &str| {
        format!(
            r#"{{"name":"{name}","kind":"SpanKind.INTERNAL","context":{{"trace_id":1,"span_id":{start}}},"parent":null,"start_time":{start},"end_time":{start},
              "status":{{"status_code":"{status}","description":null}},"attributes":{{"gen_ai.operation.name":"execute_tool","gen_ai.tool.name":"{tool}","gen_ai.tool.args":"{{\"x\": 1}}","gen_ai.output":"done"}},"events":[],"links":[],"resource":{{}}}}"#
        )
    };
    let doc = format!(
        r#"{{"final_output":"ok","spans":[{},{},{}]}}"#,
        span("execute_tool b", 20, "b", "ok"),
        span("execute_tool a", 10, "a", "error"),
        span("execute_tool c", 20, "c", "unset")
    );
    let ts = Reader::new().read("trace.json", doc.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::OtelGenai);
    assert!(ts[0].findings.is_empty(), "{:?}", ts[0].findings);
    let got = calls(&ts);
    let names: Vec<_> = got.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(got[0]["is_error"], true);
    assert_eq!(got[1]["args"], json!({"x": 1}));
    assert_eq!(got[1]["output"], "done");
}

/// A Langfuse trace export is detected as `langfuse` and nothing else: TOOL observations by start
/// time, the id from the generation that made the call, `level: ERROR` an error.
#[test]
fn langfuse_exports_are_detected_as_themselves_only() {
    let obs = |ty: &str, name: &str, start: &str, input: &str, output: &str, level: &str| {
        json!({"id": name, "traceId": "t", "type": ty, "name": name, "startTime": start,
               "input": input, "output": output, "level": level})
    };
    let generation = r#"{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"call_9","type":"function","function":{"name":"lookup","arguments":"{\"q\": \"a\"}"}}]}}]}"#;
    let doc = json!({"trace": {"id": "t", "name": "run"}, "observations": [
        obs("TOOL", "lookup", "2025-01-01T00:00:02Z", r#"{"q":"a"}"#, "found", "DEFAULT"),
        obs("GENERATION", "llm", "2025-01-01T00:00:01Z", "[]", generation, "DEFAULT"),
        obs("TOOL", "fail", "2025-01-01T00:00:03Z", "{}", "boom", "ERROR"),
    ]})
    .to_string();
    let ts = Reader::new().read("trace.json", doc.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::Langfuse);
    assert!(ts[0].findings.is_empty(), "{:?}", ts[0].findings);
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "lookup", "args": {"q": "a"}, "id": "call_9", "output": "found", "is_error": false}),
            json!({"name": "fail", "args": {}, "id": null, "output": "boom", "is_error": true}),
        ]
    );
}

/// A pydantic-ai message history is detected as `pydantic-ai` and nothing else: `tool-call`
/// parts are the calls, `tool-return` and `retry-prompt` parts (by `tool_call_id`) the results;
/// a failed or retried return and a retry prompt for a tool are errors, a denied call is not.
/// Vercel UI messages, which also have `parts`, are not taken for one.
#[test]
fn pydantic_ai_histories_are_detected_as_themselves_only() {
    let history = r#"[
      {"parts":[{"content":"hi","timestamp":"t","part_kind":"user-prompt"}],"instructions":null,"kind":"request"},
      {"parts":[{"content":"ok","part_kind":"text"},
        {"tool_name":"search","args":"{\"q\": \"tide\"}","tool_call_id":"c1","part_kind":"tool-call"},
        {"tool_name":"book","args":{"seats":0},"tool_call_id":"c2","part_kind":"tool-call"},
        {"tool_name":"delete","args":null,"tool_call_id":"c3","part_kind":"tool-call"},
        {"tool_name":"web_search","args":{"query":"x"},"tool_call_id":"c4","provider_name":"openai","part_kind":"builtin-tool-call"},
        {"tool_name":"web_search","content":{"status":"completed"},"tool_call_id":"c4","provider_name":"openai","part_kind":"builtin-tool-return"}],
       "model_name":"m","kind":"response"},
      {"parts":[{"tool_name":"search","content":[{"type":"text","text":"high"}],"tool_call_id":"c1","part_kind":"tool-return"},
        {"tool_name":"book","content":"seats must be at least 1","tool_call_id":"c2","part_kind":"retry-prompt"},
        {"tool_name":"delete","content":"denied by the user","tool_call_id":"c3","outcome":"denied","part_kind":"tool-return"},
        {"content":"answer in JSON","tool_name":null,"tool_call_id":"x","part_kind":"retry-prompt"}],"kind":"request"}
    ]"#;
    let ts = Reader::new().read("h.json", history.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::PydanticAi);
    assert!(ts[0].findings.is_empty(), "{:?}", ts[0].findings);
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "search", "args": {"q": "tide"}, "id": "c1", "output": "high", "is_error": false}),
            json!({"name": "book", "args": {"seats": 0}, "id": "c2", "output": "seats must be at least 1", "is_error": true}),
            json!({"name": "delete", "args": {}, "id": "c3", "output": "denied by the user", "is_error": false}),
            json!({"name": "web_search", "args": {"query": "x"}, "id": "c4", "output": {"status": "completed"}, "is_error": false}),
        ]
    );
    let failed = r#"[{"kind":"response","parts":[{"tool_name":"f","args":{},"tool_call_id":"a","part_kind":"tool-call"}]},
      {"kind":"request","parts":[{"tool_name":"f","content":"boom","tool_call_id":"a","outcome":"failed","part_kind":"tool-return"}]}]"#;
    let ts = Reader::new().read("f.json", failed.as_bytes()).unwrap();
    assert_eq!(calls(&ts)[0]["is_error"], true);
    let ui = r#"[{"id":"m","role":"assistant","parts":[{"type":"tool-search","toolCallId":"c","state":"output-available","input":{},"output":"x"}]}]"#;
    assert_eq!(
        Reader::new().read("u.json", ui.as_bytes()).unwrap()[0].format,
        Format::VercelAiSdk
    );
}

/// An ADK session dump is detected as `adk-session` and nothing else, snake_case or camelCase:
/// `function_call` parts of the events are the calls, `function_response` parts the results (by
/// id, else by name). An ADK eval set and a gemini-cli session, its neighbours, stay themselves.
#[test]
fn adk_sessions_are_detected_as_themselves_only() {
    let snake = r#"{"id":"s1","app_name":"a","user_id":"u","state":{},"last_update_time":1.5,"events":[
      {"invocation_id":"i","author":"user","content":{"role":"user","parts":[{"text":"roll"}]},"actions":{},"id":"e1","timestamp":1.0},
      {"invocation_id":"i","author":"agent","content":{"role":"model","parts":[{"function_call":{"id":"adk-1","name":"roll_die","args":{"sides":6}}}]},"actions":{},"id":"e2","timestamp":1.1},
      {"invocation_id":"i","author":"agent","content":{"role":"user","parts":[{"function_response":{"id":"adk-1","name":"roll_die","response":{"result":4}}}]},"actions":{},"id":"e3","timestamp":1.2},
      {"invocation_id":"i","author":"agent","actions":{"state_delta":{"x":1}},"id":"e4","timestamp":1.3}]}"#;
    let ts = Reader::new().read("s.json", snake.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::AdkSession);
    assert!(ts[0].findings.is_empty(), "{:?}", ts[0].findings);
    let want = vec![
        json!({"name": "roll_die", "args": {"sides": 6}, "id": "adk-1", "output": {"result": 4}, "is_error": false}),
    ];
    assert_eq!(calls(&ts), want);
    let camel = snake
        .replace("app_name", "appName")
        .replace("user_id", "userId")
        .replace("last_update_time", "lastUpdateTime")
        .replace("invocation_id", "invocationId")
        .replace("function_call", "functionCall")
        .replace("function_response", "functionResponse");
    let ts = Reader::new().read("c.json", camel.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::AdkSession);
    assert_eq!(calls(&ts), want);
    // An empty session is one (0 calls) only with its app and user.
    let empty =
        r#"{"id":"s","appName":"a","userId":"u","state":{},"events":[],"lastUpdateTime":0}"#;
    assert_eq!(
        Reader::new().read("e.json", empty.as_bytes()).unwrap()[0].format,
        Format::AdkSession
    );
    let bare = r#"{"id":"s","events":[]}"#;
    assert!(Reader::new().read("b.json", bare.as_bytes()).is_err());
    for (other, text) in [
        (
            Format::AdkEvalset,
            r#"{"eval_set_id":"s","eval_cases":[{"eval_id":"a","conversation":[]}]}"#,
        ),
        (
            Format::GeminiCli,
            r#"{"sessionId":"s","projectHash":"h","messages":[]}"#,
        ),
    ] {
        assert_eq!(
            Reader::new().read("o.json", text.as_bytes()).unwrap()[0].format,
            other
        );
    }
}

/// An ADK session's events name their agent (`author`): each call is its event's author's
/// (the user's events make none), and each stretch of one agent's events within one invocation
/// is one run of it: a transfer to another agent and back starts a second run, the next
/// invocation a third; events without a content neither start nor end one.
#[test]
fn adk_session_authors_are_agents_and_their_stretches_runs() {
    let ev = |inv: &str, author: &str, role: &str, part: &str| {
        format!(
            r#"{{"invocation_id":"{inv}","author":"{author}","content":{{"role":"{role}","parts":[{part}]}},"actions":{{}},"id":"e","timestamp":1.0}}"#
        )
    };
    let call = |id: &str, name: &str| {
        format!(r#"{{"function_call":{{"id":"{id}","name":"{name}","args":{{}}}}}}"#)
    };
    let text = r#"{"text":"hi"}"#;
    let events = [
        ev("i1", "user", "user", text),
        ev("i1", "root", "model", &call("1", "transfer_to_agent")),
        ev("i1", "helper", "model", &call("2", "search")),
        r#"{"invocation_id":"i1","author":"helper","actions":{"state_delta":{"x":1}},"id":"e","timestamp":1.0}"#.to_owned(),
        ev("i1", "helper", "model", &call("3", "fetch")),
        ev("i1", "root", "model", &call("4", "transfer_to_agent")),
        ev("i1", "helper", "model", &call("5", "search")),
        ev("i2", "user", "user", text),
        ev("i2", "helper", "model", &call("6", "search")),
    ];
    let doc = format!(
        r#"{{"id":"s","app_name":"a","user_id":"u","state":{{}},"events":[{}]}}"#,
        events.join(",")
    );
    let ts = Reader::new().read("s.json", doc.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::AdkSession);
    let by: Vec<(&str, Option<&str>, Option<u32>)> = ts[0]
        .calls
        .iter()
        .map(|c| (c.name.as_str(), c.agent.as_deref(), c.turn))
        .collect();
    assert_eq!(
        by,
        vec![
            ("transfer_to_agent", Some("root"), Some(1)),
            ("search", Some("helper"), Some(1)),
            ("fetch", Some("helper"), Some(1)),
            ("transfer_to_agent", Some("root"), Some(1)),
            ("search", Some("helper"), Some(1)),
            ("search", Some("helper"), Some(2)),
        ]
    );
    let runs: Vec<(&str, usize)> = ts[0]
        .agent_runs
        .as_ref()
        .expect("an ADK session records runs")
        .iter()
        .map(|r| (r.agent.as_str(), r.first_call))
        .collect();
    assert_eq!(
        runs,
        vec![
            ("root", 0),
            ("helper", 1),
            ("root", 3),
            ("helper", 4),
            ("helper", 5)
        ]
    );
}

/// OpenAI Agents SDK files are detected as `openai-agents` and nothing else: a run state reads
/// its input items and the `raw_item`s of its generated items (a pending approval repeats its
/// call, counted once), a run item list the same, and a trace export its `function` spans by
/// start time, with the id of the matching call in a generation span and `error` an error. The
/// `to_input_list()` items stay `openai-responses`.
#[test]
fn openai_agents_files_are_detected_as_themselves_only() {
    let call = r#"{"type":"function_call","call_id":"c1","name":"lookup","arguments":"{\"q\": \"a\"}","id":"fc1"}"#;
    let output = r#"{"type":"function_call_output","call_id":"c1","output":"found"}"#;
    let items = format!(
        r#"[{{"type":"tool_call_item","agent":{{"name":"a"}},"raw_item":{call}}},
           {{"type":"tool_approval_item","agent":{{"name":"a"}},"raw_item":{call},"tool_name":"lookup"}},
           {{"type":"tool_call_output_item","agent":{{"name":"a"}},"raw_item":{output},"output":"found"}}]"#
    );
    let state = format!(
        r#"{{"$schemaVersion":"1.13","current_turn":1,"original_input":[{{"role":"user","content":"hi"}}],"generated_items":{items},"model_responses":[],"session_items":[]}}"#
    );
    let want = vec![
        json!({"name": "lookup", "args": {"q": "a"}, "id": "c1", "output": "found", "is_error": false}),
    ];
    for (name, text) in [("items.json", &items), ("state.json", &state)] {
        let ts = Reader::new().read(name, text.as_bytes()).unwrap();
        assert_eq!(ts[0].format, Format::OpenaiAgents, "{name}");
        assert!(ts[0].findings.is_empty(), "{name}: {:?}", ts[0].findings);
        assert_eq!(calls(&ts), want, "{name}");
    }
    let span = |id: &str, start: &str, data: &str, error: &str| {
        format!(
            r#"{{"object":"trace.span","id":"{id}","trace_id":"t","parent_id":null,"started_at":"{start}","ended_at":"{start}","span_data":{data},"error":{error}}}"#
        )
    };
    let generation = r#"{"type":"generation","input":[],"output":[{"role":"assistant","tool_calls":[{"id":"call_7","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"a\"}"}}]}],"model":"m","model_config":{},"usage":{}}"#;
    let trace = format!(
        r#"{{"data":[{{"object":"trace","id":"t","workflow_name":"w","group_id":null,"metadata":null}},{},{},{},{}]}}"#,
        span(
            "s3",
            "2025-01-01T00:00:03Z",
            r#"{"type":"function","name":"fail","input":"{}","output":"An error occurred","mcp_data":null}"#,
            r#"{"message":"Error running tool (non-fatal)","data":{"tool_name":"fail"}}"#
        ),
        span(
            "s2",
            "2025-01-01T00:00:02Z",
            r#"{"type":"function","name":"lookup","input":"{\"q\": \"a\"}","output":"found","mcp_data":null}"#,
            "null"
        ),
        span("s1", "2025-01-01T00:00:01Z", generation, "null"),
        span(
            "s0",
            "2025-01-01T00:00:00Z",
            r#"{"type":"agent","name":"a","handoffs":[],"tools":["lookup","fail"],"output_type":"str"}"#,
            "null"
        ),
    );
    let ts = Reader::new().read("trace.json", trace.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::OpenaiAgents);
    assert!(ts[0].findings.is_empty(), "{:?}", ts[0].findings);
    assert_eq!(
        calls(&ts),
        vec![
            json!({"name": "lookup", "args": {"q": "a"}, "id": "call_7", "output": "found", "is_error": false}),
            json!({"name": "fail", "args": {}, "id": null, "output": "An error occurred", "is_error": true}),
        ]
    );
    // The same export one item per line (as a `TracingExporter` writes it) is one session.
    let doc: Value = serde_json::from_str(&trace).unwrap();
    let lines: Vec<String> = doc["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect();
    let jsonl = lines.join("\n") + "\n";
    let ts = Reader::new().read("trace.jsonl", jsonl.as_bytes()).unwrap();
    assert_eq!(ts.len(), 1);
    assert_eq!(ts[0].format, Format::OpenaiAgents);
    assert_eq!(calls(&ts)[0]["id"], "call_7");
    assert_eq!(calls(&ts)[1]["is_error"], true);
    let input_list = format!("[{{\"role\":\"user\",\"content\":\"hi\"}},{call},{output}]");
    let ts = Reader::new().read("i.json", input_list.as_bytes()).unwrap();
    assert_eq!(ts[0].format, Format::OpenaiResponses);
    assert_eq!(calls(&ts), want);
}

/// A Bedrock Converse request, response, message list and ConverseStream log are detected as
/// `bedrock-converse` and nothing else (no `ambiguous-format` note); `toolConfig` declares the
/// tools, a `toolResult` for no call is an `orphan-result` note.
#[test]
fn bedrock_converse_is_detected_as_itself_only() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for f in [
        "formats/transcripts/bedrock_converse/weather.request.json",
        "formats/transcripts/bedrock_converse/blank_input.stream.json",
        "formats/transcripts/bedrock_converse/blank_input.stream.jsonl",
        "wild/bedrock_converse/vercel-ai-bedrock-parallel-tool-calls.response.json",
        "wild/bedrock_converse/vercel-ai-bedrock-kimi-k2-read-file.chunks.txt",
    ] {
        let ts = Reader::new().read_file(&dir.join(f)).unwrap();
        assert_eq!(
            (ts.len(), ts[0].format),
            (1, Format::BedrockConverse),
            "{f}"
        );
        let notes: Vec<_> = ts[0].findings.iter().map(|n| n.code).collect();
        assert!(!notes.contains(&"ambiguous-format"), "{f}: {notes:?}");
    }
    let req = Reader::new()
        .read_file(&dir.join("formats/transcripts/bedrock_converse/weather.request.json"))
        .unwrap();
    let tools: Vec<_> = req[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tools, ["get_weather", "book_taxi"]);
    assert_eq!(
        req[0].tools[0].parameters.as_ref().unwrap()["required"],
        json!(["location"])
    );
    let notes: Vec<_> = req[0].findings.iter().map(|n| n.code).collect();
    assert_eq!(notes, ["orphan-result"]);
    // A bare message list (Strands Agents, boto3 loops) with no tool call yet still is Bedrock
    // once a block is keyed `toolUse`; forced, a plain text list reads as 0 calls.
    let bare = br#"[{"role":"user","content":[{"text":"hi"}]},{"role":"assistant","content":[{"toolUse":{"toolUseId":"t","name":"f","input":{"a":1}}}]}]"#;
    let ts = Reader::new().read("m.json", bare).unwrap();
    assert_eq!(
        (ts[0].format, ts[0].calls.len()),
        (Format::BedrockConverse, 1)
    );
    let ts = Reader::new()
        .format(Format::BedrockConverse)
        .read("m.json", br#"[{"role":"user","content":[{"text":"hi"}]}]"#)
        .unwrap();
    assert!(ts[0].calls.is_empty());
    for alias in ["bedrock", "converse", "aws_bedrock", "bedrock-converse"] {
        assert_eq!(alias.parse::<Format>().unwrap(), Format::BedrockConverse);
    }
}
