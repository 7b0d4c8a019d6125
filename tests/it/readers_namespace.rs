//! The MCP server of a call's tool, where the format records it beside the name: a call's
//! `namespace` (docs/formats.md, Output model). The name stays the tool's, as the model called
//! it (the wild samples' truth names Codex's namespaced calls so), and the namespace tells two
//! servers' tools of one short name apart: in the full and the compact form of a transcript,
//! in `toolspec calls --json`, and read back from it.

use std::process::Command;

use serde_json::{json, Value};
use toolspec::transcript::{Format, Keep, Reader};

/// A Codex 0.128 rollout of `calls` (namespace or none, name, arguments, output), as Codex
/// writes it: the session's meta line, the user's prompt, then each call and its output.
fn rollout(calls: &[(Option<&str>, &str, Value, &str)]) -> String {
    let mut lines = vec![
        json!({"timestamp": "2026-05-11T10:28:45.482Z", "type": "session_meta", "payload": {
            "id": "019e1695-0522-7c83-8b39-0dd379793f80", "timestamp": "2026-05-11T10:28:45.482Z",
            "cwd": "/work", "originator": "codex_cli_rs", "cli_version": "0.128.0",
            "source": "cli", "model_provider": "openai"}}),
        json!({"timestamp": "2026-05-11T10:28:46.000Z", "type": "event_msg", "payload": {
            "type": "user_message", "message": "compare the two pages", "images": []}}),
    ];
    for (i, (namespace, name, args, output)) in calls.iter().enumerate() {
        let id = format!("call_{i:024}");
        let mut call = json!({"type": "function_call", "name": name,
            "arguments": args.to_string(), "call_id": id});
        if let Some(ns) = namespace {
            call["namespace"] = json!(ns);
        }
        lines.push(json!({"timestamp": "2026-05-11T10:29:00.000Z", "type": "response_item", "payload": call}));
        lines.push(
            json!({"timestamp": "2026-05-11T10:29:01.000Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": id, "output": output}}),
        );
    }
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

fn two_servers() -> String {
    rollout(&[
        (
            Some("mcp__node_repl__"),
            "js",
            json!({"code": "1 + 1"}),
            "2",
        ),
        (
            Some("mcp__browser__"),
            "js",
            json!({"code": "document.title"}),
            "\"Docs\"",
        ),
        (
            Some("codex_app"),
            "automation_update",
            json!({"mode": "view"}),
            "{}",
        ),
        (
            None,
            "exec_command",
            json!({"cmd": "git log -1"}),
            "Process exited with code 0\nOutput:\nabc\n",
        ),
    ])
}

/// (name, namespace) of each call.
fn seen(calls: &[toolspec::transcript::ToolCall]) -> Vec<(String, Option<String>)> {
    calls
        .iter()
        .map(|c| (c.name.clone(), c.namespace.clone()))
        .collect()
}

fn want() -> Vec<(String, Option<String>)> {
    [
        ("js", Some("node_repl")),
        ("js", Some("browser")),
        ("automation_update", Some("codex_app")),
        ("exec_command", None),
    ]
    .iter()
    .map(|(n, s)| ((*n).to_owned(), s.map(str::to_owned)))
    .collect()
}

#[test]
fn two_servers_tools_of_one_name_keep_their_servers() {
    let text = two_servers();
    let ts = Reader::new()
        .read("rollout.jsonl", text.as_bytes())
        .unwrap();
    assert_eq!(ts.len(), 1);
    assert_eq!(ts[0].format, Format::CodexCli);
    assert_eq!(seen(&ts[0].calls), want());
    assert_eq!(ts[0].calls[1].output, Some(json!("\"Docs\"")));
    // The compact form of a long session keeps them too.
    let compact = Reader::new()
        .keep(Keep {
            compact: Some(0),
            ..Keep::default()
        })
        .read("rollout.jsonl", text.as_bytes())
        .unwrap();
    let table = compact[0].compact.as_ref().expect("compact");
    assert_eq!(seen(&table.to_calls()), want());
}

#[test]
fn a_responses_mcp_call_names_its_server_in_a_document_and_a_stream() {
    let item = json!({"id": "mcp_1", "type": "mcp_call", "server_label": "deepwiki",
        "name": "ask_question", "arguments": "{\"repoName\": \"rust-lang/rust\"}",
        "output": "It is a compiler.", "error": null, "status": "completed"});
    let response = json!({"id": "resp_1", "object": "response", "status": "completed",
        "tools": [{"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.deepwiki.com/mcp"}],
        "output": [item.clone()]});
    let stream = [
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
            "item": {"id": "mcp_1", "type": "mcp_call", "server_label": "deepwiki", "name": "ask_question", "arguments": "", "status": "in_progress"}}),
        json!({"type": "response.mcp_call_arguments.delta", "sequence_number": 2, "output_index": 0, "item_id": "mcp_1", "delta": "{\"repoName\": \"rust-lang/rust\"}"}),
        json!({"type": "response.output_item.done", "sequence_number": 3, "output_index": 0, "item": item}),
    ]
    .iter()
    .map(|e| ["event: ", e["type"].as_str().unwrap(), "\ndata: ", &e.to_string(), "\n\n"].concat())
    .collect::<String>();
    for (name, text) in [
        ("response.json", response.to_string()),
        ("response.sse", stream),
    ] {
        let ts = Reader::new().read(name, text.as_bytes()).unwrap();
        assert_eq!(ts.len(), 1, "{name}");
        let c = &ts[0].calls;
        assert_eq!(c.len(), 1, "{name}: {c:?}");
        assert_eq!(
            (c[0].name.as_str(), c[0].namespace.as_deref()),
            ("ask_question", Some("deepwiki")),
            "{name}"
        );
        assert_eq!(c[0].args, json!({"repoName": "rust-lang/rust"}), "{name}");
    }
}

/// `toolspec calls --json` writes the namespace, and reading that output back gives it again;
/// the table shows `SERVER::TOOL`.
#[test]
fn calls_output_writes_the_namespace_and_reads_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let rollout = dir.path().join("rollout.jsonl");
    std::fs::write(&rollout, two_servers()).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
            .args(args)
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let json_text = run(&["calls", "--json", "rollout.jsonl"]);
    let calls: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(calls[0]["namespace"], "node_repl");
    assert_eq!(calls[1]["namespace"], "browser");
    assert!(calls[3].get("namespace").is_none(), "{json_text}");
    std::fs::write(dir.path().join("calls.json"), &json_text).unwrap();
    let ts = Reader::new()
        .read("calls.json", json_text.as_bytes())
        .unwrap();
    assert_eq!(ts[0].format, Format::ToolspecCalls);
    assert_eq!(seen(&ts[0].calls), want());
    let table = run(&["calls", "rollout.jsonl"]);
    assert!(table.contains("node_repl::js"), "{table}");
    assert!(table.contains("browser::js"), "{table}");
}
