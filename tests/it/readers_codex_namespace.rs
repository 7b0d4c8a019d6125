//! Codex 0.128 records the MCP server (or app) of a tool as the `namespace` of its
//! `function_call`: two servers' tools of one short name are two tools, named with their
//! namespace (docs/formats.md, **Codex**), and a spec tells them apart by name or, with
//! `names strip "mcp__*__"`, matches the short name on any server.

use std::process::Command;

use serde_json::{json, Value};
use toolspec::transcript::{Format, Reader};

/// A Codex 0.128 rollout generated from `calls` (namespace or none, name, arguments, output):
/// the session's meta line, the user's prompt, then each call and its output, as Codex writes
/// them (`response_item` lines; the output's header says the exit code).
fn rollout(calls: &[(Option<&str>, &str, Value, &str)]) -> String {
    let mut lines = vec![
        json!({"timestamp": "2026-05-11T10:28:45.482Z", "type": "session_meta", "payload": {
            "id": "019e1695-0522-7c83-8b39-0dd379793f80", "timestamp": "2026-05-11T10:28:45.482Z",
            "cwd": "/work", "originator": "codex_cli_rs", "cli_version": "0.128.0",
            "source": "cli", "model_provider": "openai"}}),
        json!({"timestamp": "2026-05-11T10:28:46.000Z", "type": "event_msg", "payload": {
            "type": "user_message", "message": "find the open issues about login", "images": []}}),
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
    lines.iter().map(|l| format!("{l}\n")).collect::<String>()
}

fn session() -> String {
    rollout(&[
        (
            Some("mcp__github__"),
            "search",
            json!({"query": "login is:open"}),
            "[{\"number\": 12}]",
        ),
        (
            Some("mcp__jira__"),
            "search",
            json!({"jql": "text ~ login"}),
            "[{\"key\": \"AUTH-7\"}]",
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
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nabc\n",
        ),
    ])
}

#[test]
fn two_servers_tools_of_one_short_name_are_two_tools() {
    let text = session();
    let ts = Reader::new()
        .read("rollout.jsonl", text.as_bytes())
        .unwrap();
    assert_eq!(ts.len(), 1);
    assert_eq!(ts[0].format, Format::CodexCli);
    let names: Vec<&str> = ts[0].calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "mcp__github__search",
            "mcp__jira__search",
            "codex_app.automation_update",
            "exec_command"
        ]
    );
    assert_eq!(ts[0].calls[1].args, json!({"jql": "text ~ login"}));
    assert_eq!(
        ts[0].calls[1].output,
        Some(json!("[{\"key\": \"AUTH-7\"}]"))
    );
}

/// Through the binary: a spec naming one server's tool passes on that server's call and fails
/// where only the other server's tool of the same short name was called; `strip "mcp__*__"`
/// matches the short name on either server.
#[test]
fn a_spec_tells_the_servers_apart_or_strips_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::write(root.join("runs/rollout.jsonl"), session()).unwrap();
    let jira_only = rollout(&[(
        Some("mcp__jira__"),
        "search",
        json!({"jql": "text ~ login"}),
        "[]",
    )]);
    std::fs::write(root.join("runs/jira-only.jsonl"), jira_only).unwrap();
    let spec = |name: &str, body: &str| {
        std::fs::write(
            root.join(format!("{name}.toolspec")),
            format!("spec {name} {{\n  transcripts \"runs/*.jsonl\"\n{body}}}\n"),
        )
        .unwrap();
    };
    spec(
        "github",
        "  call mcp__github__search(query: contains \"login\")\n",
    );
    spec("short", "  names strip \"mcp__*__\"\n  call search\n");
    let run = |spec: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
            .args(["check", "--no-config", "--format", "json", spec])
            .current_dir(root)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        (out.status.code(), report)
    };
    let verdicts = |report: &Value| -> Vec<(String, bool)> {
        let mut v: Vec<(String, bool)> = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["transcript"].as_str().unwrap_or_default().to_string(),
                    r["passed"].as_bool().unwrap_or(false),
                )
            })
            .collect();
        v.sort();
        v
    };
    let (code, report) = run("github.toolspec");
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(
        verdicts(&report),
        [
            ("runs/jira-only.jsonl".to_string(), false),
            ("runs/rollout.jsonl".to_string(), true)
        ],
        "{report:#}"
    );
    let (code, report) = run("short.toolspec");
    assert_eq!(code, Some(0), "{report:#}");
    assert!(
        verdicts(&report).iter().all(|(_, passed)| *passed),
        "{report:#}"
    );
}
