//! `toolspec guard claude-code` and `toolspec guard install claude-code`, through the built
//! binary, on hook events recorded from `examples/runs/coding/claude-code-session.jsonl`
//! (`tests/fixtures/guard/claude-code-session.events.jsonl`: per call of the session its
//! `PreToolUse` and its `PostToolUse` or `PostToolUseFailure`, with the session's inputs and
//! results, between a `SessionStart`, the prompt and a final `Stop`).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};

const EVENTS: &str = "tests/fixtures/guard/claude-code-session.events.jsonl";
const CODING: &str = "examples/prompts/coding.toolspec";
const READ_FIRST: &str = "tests/fixtures/guard/read_first.toolspec";

fn events() -> Vec<Value> {
    std::fs::read_to_string(EVENTS)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn run_in(cwd: &Path, args: &[&str], stdin: &[u8]) -> Output {
    crate::cli_stdin::run(args, cwd, stdin)
}

/// A guard over `spec` (and `name`, if given) keeping its journals in a folder of its own.
struct Guard {
    state: tempfile::TempDir,
    args: Vec<String>,
}

impl Guard {
    fn new(spec: &str, name: Option<&str>) -> Guard {
        let state = tempfile::tempdir().unwrap();
        let mut args: Vec<String> = vec![
            "guard".into(),
            "claude-code".into(),
            "--spec".into(),
            spec.into(),
            "--state".into(),
            state.path().join("guard").display().to_string(),
        ];
        if let Some(n) = name {
            args.extend(["--spec-name".into(), n.into()]);
        }
        Guard { state, args }
    }

    fn coding() -> Guard {
        Guard::new(CODING, Some("claude_code_fix"))
    }

    fn send(&self, event: &Value) -> Output {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        run_in(Path::new("."), &args, event.to_string().as_bytes())
    }

    fn send_all(&self, events: &[Value]) {
        for e in events {
            let out = self.send(e);
            assert_eq!(out.status.code(), Some(0), "{e}: {}", stderr(&out));
            assert_eq!(stdout(&out), "", "{e}: a decision where none was expected");
        }
    }

    fn journal(&self, session: &str) -> PathBuf {
        self.state
            .path()
            .join("guard")
            .join(format!("{session}.jsonl"))
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn answer(o: &Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

fn deny_reason(o: &Output) -> String {
    let v = answer(o);
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The events up to (not including) the `PreToolUse` of call `n` (1-based), and that event.
fn before_call(n: usize) -> (Vec<Value>, Value) {
    let all = events();
    let at = all
        .iter()
        .enumerate()
        .filter(|(_, e)| e["hook_event_name"] == "PreToolUse")
        .nth(n - 1)
        .map(|(i, _)| i)
        .unwrap();
    (all[..at].to_vec(), all[at].clone())
}

fn session() -> String {
    events()[0]["session_id"].as_str().unwrap().to_owned()
}

#[test]
fn the_recorded_session_is_allowed_throughout_and_may_stop() {
    for guard in [Guard::coding(), Guard::new(READ_FIRST, None)] {
        guard.send_all(&events());
        // The journal reads as the session does: nine calls, each with its result.
        let calls = run_in(
            Path::new("."),
            &[
                "calls",
                "--allow-outside-root",
                "--input-format",
                "claude-code",
                &guard.journal(&session()).display().to_string(),
            ],
            b"",
        );
        assert!(
            stdout(&calls).contains("(claude-code, 9 calls)"),
            "{}",
            stdout(&calls)
        );
    }
}

#[test]
fn call_4_rewritten_to_rm_rf_is_denied_naming_the_spec_line() {
    let guard = Guard::coding();
    let (before, mut call) = before_call(4);
    guard.send_all(&before);
    call["tool_input"] = json!({"command": "rm -rf build", "description": "Clean"});
    let reason = deny_reason(&guard.send(&call));
    assert!(
        reason.contains(
            "`never Bash(command: /git push|rm -rf/)` (examples/prompts/coding.toolspec:13)"
        ),
        "{reason}"
    );
    assert!(reason.contains("forbidden-call"), "{reason}");
    // A call denied is not made: the journal does not hold it, and the run goes on.
    let journal = std::fs::read_to_string(guard.journal(&session())).unwrap();
    assert!(!journal.contains("rm -rf build"));
    let (_, original) = before_call(4);
    assert_eq!(stdout(&guard.send(&original)), "");
}

#[test]
fn an_edit_before_any_read_is_denied_where_every_call_must_be_accounted_for() {
    // The session without its Read: the Edit comes right after the Grep.
    let all = events();
    let read = |e: &Value| e["tool_name"] == "Read";
    let (before, _) = before_call(5);
    let before: Vec<Value> = before.into_iter().filter(|e| !read(e)).collect();
    let before: Vec<Value> = before
        .into_iter()
        .filter(|e| e["tool_name"] != "Bash")
        .collect();
    let edit = all
        .iter()
        .find(|e| e["hook_event_name"] == "PreToolUse" && e["tool_name"] == "Edit")
        .unwrap()
        .clone();
    let guard = Guard::new(READ_FIRST, None);
    guard.send_all(&before);
    let reason = deny_reason(&guard.send(&edit));
    assert!(
        reason.contains("this Edit call would break the spec"),
        "{reason}"
    );
    assert!(
        reason.contains("read: at_least 1 call Read(file_path: /\\.ts$/)")
            && reason.contains("tests/fixtures/guard/read_first.toolspec:10"),
        "{reason}"
    );
    // Where extra calls are allowed, the Edit may stay an extra call and a later Read and Edit
    // satisfy `read before edit`: nothing is decided yet (docs/engine.md).
    let lenient = Guard::coding();
    lenient.send_all(&before);
    assert_eq!(stdout(&lenient.send(&edit)), "");
}

#[test]
fn the_run_cut_after_the_edits_cannot_stop_before_the_test_run() {
    let guard = Guard::coding();
    let (before, _) = before_call(8);
    guard.send_all(&before);
    let stop =
        json!({"session_id": session(), "hook_event_name": "Stop", "stop_hook_active": false});
    let v = answer(&guard.send(&stop));
    assert_eq!(v["decision"], "block");
    let reason = v["reason"].as_str().unwrap();
    assert!(
        reason.contains(
            "`call Bash(command: contains \"npm test\") errored false` (examples/prompts/coding.toolspec:10)"
        ),
        "{reason}"
    );
    // The answer is not the hook's to see: never a reason to block.
    assert!(!reason.contains("answer"), "{reason}");
    // Asked to go on, the agent stops again having done nothing: let through, with a note.
    let again =
        json!({"session_id": session(), "hook_event_name": "Stop", "stop_hook_active": true});
    let v = answer(&guard.send(&again));
    assert!(v.get("decision").is_none(), "{v}");
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("made no call since"),
        "{v}"
    );
    // `check --partial` on the journal reports the same statement pending, nothing violated.
    let journal = guard.journal(&session()).display().to_string();
    let partial = run_in(
        Path::new("."),
        &[
            "check",
            "--partial",
            "--allow-outside-root",
            "--spec",
            CODING,
            "--format",
            "json",
            &journal,
        ],
        b"",
    );
    let report: Value = serde_json::from_slice(&partial.stdout).unwrap();
    let ours = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["spec"] == "claude_code_fix")
        .unwrap();
    assert_eq!(ours["partial"]["violated"], 0);
    let pending: Vec<&str> = ours["partial"]["statements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["state"] == "pending")
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert!(
        pending.contains(&"call Bash(command: contains \"npm test\") errored false"),
        "{pending:?}"
    );
    // The rest of the session: the test run passes, and the agent may stop.
    let all = events();
    guard.send_all(&all[before.len()..all.len() - 1]);
    assert_eq!(stdout(&guard.send(&stop)), "");
}

#[test]
fn stop_is_blocked_at_most_three_times_a_turn() {
    let guard = Guard::coding();
    let (before, _) = before_call(8);
    guard.send_all(&before);
    let stop =
        json!({"session_id": session(), "hook_event_name": "Stop", "stop_hook_active": false});
    for _ in 0..3 {
        assert_eq!(answer(&guard.send(&stop))["decision"], "block");
    }
    let v = answer(&guard.send(&stop));
    assert!(v.get("decision").is_none(), "{v}");
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("blocked 3 times"),
        "{v}"
    );
    // A new prompt is a new turn.
    guard.send_all(&[
        json!({"session_id": session(), "hook_event_name": "UserPromptSubmit", "prompt": "go on"}),
    ]);
    assert_eq!(answer(&guard.send(&stop))["decision"], "block");
}

#[test]
fn a_journal_that_starts_late_is_seeded_from_the_transcript() {
    let guard = Guard::coding();
    let transcript = std::path::absolute("examples/runs/coding/claude-code-session.jsonl").unwrap();
    let mut stop =
        json!({"session_id": "late", "hook_event_name": "Stop", "stop_hook_active": false});
    stop["transcript_path"] = json!(transcript.display().to_string());
    // The whole session is in the transcript: the spec expects nothing more.
    assert_eq!(stdout(&guard.send(&stop)), "");
    let journal = std::fs::read_to_string(guard.journal("late")).unwrap();
    assert_eq!(journal.matches("\"tool_use\"").count(), 9);
    // A transcript that is not a session file (`.jsonl`) is not read.
    let other = Guard::coding();
    stop["transcript_path"] = json!(std::path::absolute(CODING).unwrap().display().to_string());
    assert_eq!(answer(&other.send(&stop))["decision"], "block");
}

#[test]
fn install_merges_into_claude_settings_and_is_idempotent() {
    let project = tempfile::tempdir().unwrap();
    let dir = project.path();
    std::fs::write(dir.join("toolspec.toml"), "").unwrap();
    std::fs::write(
        dir.join("coding.toolspec"),
        "spec claude_code_fix {\n  call Bash(command: contains \"npm test\")\n  never Bash(command: /rm -rf/)\n}\n",
    )
    .unwrap();
    std::fs::create_dir(dir.join(".claude")).unwrap();
    let theirs = r#"{
  "permissions": {"allow": ["Bash(npm test:*)"]},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}
    ]
  }
}
"#;
    std::fs::write(dir.join(".claude/settings.json"), theirs).unwrap();
    let args = [
        "guard",
        "install",
        "claude-code",
        "--spec",
        "coding.toolspec",
        "--spec-name",
        "claude_code_fix",
    ];
    let first = run_in(dir, &args, b"");
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(
        stdout(&first).starts_with("wrote .claude/settings.json:"),
        "{}",
        stdout(&first)
    );
    assert!(stdout(&first).contains("  PreToolUse: added"));
    let text = std::fs::read_to_string(dir.join(".claude/settings.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let command = "toolspec guard claude-code --spec coding.toolspec --spec-name claude_code_fix";
    assert_eq!(v["permissions"]["allow"][0], "Bash(npm test:*)");
    assert_eq!(
        v["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "prettier --write"
    );
    assert_eq!(v["hooks"]["PostToolUse"][1]["hooks"][0]["command"], command);
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUseFailure",
        "Stop",
        "SubagentStop",
    ] {
        assert_eq!(
            v["hooks"][event][0]["hooks"][0]["command"], command,
            "{event}"
        );
    }
    let second = run_in(dir, &args, b"");
    assert_eq!(second.status.code(), Some(0));
    assert!(
        stdout(&second).contains("nothing changed"),
        "{}",
        stdout(&second)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(".claude/settings.json")).unwrap(),
        text
    );
    // A spec that does not compile is refused before anything is written.
    std::fs::write(dir.join("broken.toolspec"), "spec {").unwrap();
    let broken = run_in(
        dir,
        &[
            "guard",
            "install",
            "claude-code",
            "--spec",
            "broken.toolspec",
        ],
        b"",
    );
    assert_eq!(broken.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(dir.join(".claude/settings.json")).unwrap(),
        text
    );
    // Settings that are not JSON are not touched.
    std::fs::write(dir.join(".claude/settings.json"), "{ not json").unwrap();
    let bad = run_in(dir, &args, b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("not changed"), "{}", stderr(&bad));
    assert_eq!(
        std::fs::read_to_string(dir.join(".claude/settings.json")).unwrap(),
        "{ not json"
    );
}

// The hostile review of docs/security.md (*toolspec guard*): one test per property.

#[test]
fn an_error_fails_closed_for_pre_tool_use_and_open_elsewhere() {
    let guard = Guard::coding();
    let (_, call) = before_call(2);
    // An event that is not JSON, or too large: the call is blocked (exit 2, reason on stderr).
    for bad in [&b"{ nope"[..], &vec![b' '; (16 << 20) + 2]] {
        let args: Vec<&str> = guard.args.iter().map(String::as_str).collect();
        let out = run_in(Path::new("."), &args, bad);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains("so the call is blocked"),
            "{}",
            stderr(&out)
        );
    }
    // A journal that cannot be read: a PreToolUse is blocked, a Stop is not.
    std::fs::create_dir_all(guard.journal("x").parent().unwrap()).unwrap();
    std::fs::write(guard.journal(&session()), "not a journal line\n").unwrap();
    let out = guard.send(&call);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("journal"), "{}", stderr(&out));
    let stop = json!({"session_id": session(), "hook_event_name": "Stop"});
    assert_eq!(guard.send(&stop).status.code(), Some(1));
    // A spec that does not compile: blocked too.
    let broken = tempfile::tempdir().unwrap();
    std::fs::write(broken.path().join("b.toolspec"), "spec {").unwrap();
    let g = Guard::new(
        &broken.path().join("b.toolspec").display().to_string(),
        None,
    );
    assert_eq!(g.send(&call).status.code(), Some(2));
}

#[test]
fn a_session_id_never_leaves_the_state_folder() {
    let guard = Guard::coding();
    let (_, mut call) = before_call(2);
    call["session_id"] = json!("../../escaped/x");
    assert_eq!(guard.send(&call).status.code(), Some(0));
    let state = guard.state.path().join("guard");
    let names: Vec<String> = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["%2E%2E%2F%2E%2E%2Fescaped%2Fx.jsonl"]);
    assert!(!guard.state.path().join("escaped").exists());
}

#[cfg(unix)]
#[test]
fn journals_are_owner_only_and_links_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let guard = Guard::coding();
    let (_, call) = before_call(2);
    guard.send(&call);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&guard.journal(&session())), 0o600);
    assert_eq!(mode(&guard.state.path().join("guard")), 0o700);
    // A journal that is a symbolic link (to a file elsewhere) is neither read nor written.
    let elsewhere = guard.state.path().join("elsewhere.txt");
    std::fs::write(&elsewhere, "keep").unwrap();
    std::os::unix::fs::symlink(&elsewhere, guard.journal("linked")).unwrap();
    let mut linked = call.clone();
    linked["session_id"] = json!("linked");
    let out = guard.send(&linked);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "keep");
}

#[test]
fn events_at_once_each_land_whole_in_the_journal() {
    let guard = Guard::coding();
    let (_, call) = before_call(2);
    let children: Vec<_> = (0..8)
        .map(|i| {
            let mut e = call.clone();
            e["tool_use_id"] = json!(format!("parallel-{i}"));
            let args = guard.args.clone();
            std::thread::spawn(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                run_in(Path::new("."), &args, e.to_string().as_bytes())
            })
        })
        .collect();
    for c in children {
        assert_eq!(c.join().unwrap().status.code(), Some(0));
    }
    let journal = std::fs::read_to_string(guard.journal(&session())).unwrap();
    let ids: std::collections::BTreeSet<String> = journal
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "assistant")
        .map(|v| {
            v["message"]["content"][0]["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(ids.len(), 8);
}

#[test]
fn answers_carry_no_control_sequences() {
    let guard = Guard::coding();
    let (_, mut call) = before_call(2);
    call["tool_name"] = json!("Bash");
    call["tool_input"] = json!({"command": "rm -rf x\u{1b}[2J\u{7}"});
    let out = guard.send(&call);
    assert!(!out.stdout.iter().any(|&b| b == 0x1b || b == 0x07));
    let reason = deny_reason(&out);
    assert!(reason.contains("rm -rf x"), "{reason}");
    // An error quoting the event's data escapes it too.
    let args: Vec<&str> = guard.args.iter().map(String::as_str).collect();
    let out = run_in(
        Path::new("."),
        &args,
        "{\"session_id\":\"\u{1b}]0;x\u{7}\"".as_bytes(),
    );
    assert!(
        !out.stderr.iter().any(|&b| b == 0x1b || b == 0x07),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_journal_past_its_bound_is_an_error_that_names_it() {
    let guard = Guard::coding();
    let (_, call) = before_call(2);
    guard.send(&call);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(guard.journal(&session()))
        .unwrap();
    f.set_len((64 << 20) + 1).unwrap();
    let out = guard.send(&call);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("past the guard's bound"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains(".jsonl"), "{}", stderr(&out));
}
