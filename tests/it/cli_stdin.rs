//! Standard input as a transcript (`calls -`, `check --spec FILE -`) and `check --spec` with
//! transcript paths, through the built binary.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs the binary in `cwd` with `stdin` written to it (by a thread, so a large input cannot
/// dead-lock against the output).
pub(crate) fn run(args: &[&str], cwd: &Path, stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run toolspec");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The reader may stop early (past the limit): a broken pipe is expected then.
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

const RUN: &str = "examples/runs/refund/2025-06-07-openai-skipped-check.request.json";

#[test]
fn calls_from_stdin_are_the_calls_of_the_file_shown_as_stdin() {
    let here = Path::new(".");
    let bytes = std::fs::read(RUN).unwrap();
    let from_file = run(&["calls", "--json", RUN], here, b"");
    let from_stdin = run(&["calls", "--json", "-"], here, &bytes);
    assert!(from_stdin.status.success());
    assert_eq!(from_stdin.stdout, from_file.stdout);
    let table = run(&["calls", "-"], here, &bytes);
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.starts_with("<stdin> (openai-chat, 7 calls)"), "{text}");
    // Forced reader: the old spelling still works on `calls`.
    for flag in ["--input-format", "--format"] {
        let forced = run(&["calls", flag, "toolspec-calls", "-"], here, &bytes);
        assert_eq!(forced.status.code(), Some(2));
        let err = String::from_utf8(forced.stderr).unwrap();
        assert!(
            err.contains("<stdin>:1:1: not a toolspec-calls transcript"),
            "{err}"
        );
    }
}

#[test]
fn stdin_past_the_limit_is_an_error_before_anything_is_read() {
    let mut big = b"[".to_vec();
    big.resize((64 << 20) + 10, b' ');
    for args in [
        &["calls", "-"][..],
        &["check", "--spec", "examples/prompts/refund.toolspec", "-"][..],
    ] {
        let out = run(args, Path::new("."), &big);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("standard input holds more than 64 MiB"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn check_spec_applies_to_stdin_and_to_paths_its_globs_do_not_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(
        root.join("s.toolspec"),
        "spec s {\n  transcripts \"runs/*.json\"\n  call lookup(id: 7)\n}\n",
    )
    .unwrap();
    let good = br#"[{"name": "lookup", "args": {"id": 7}}]"#;
    let bad = br#"[{"name": "lookup", "args": {"id": 8}}]"#;
    std::fs::write(root.join("fresh.json"), good).unwrap();
    let out = run(
        &["check", "--spec", "s.toolspec", "-", "--format", "json"],
        root,
        good,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["results"][0]["transcript"], "<stdin>");
    assert_eq!(report["summary"]["checked"], 1);
    let out = run(
        &["check", "--spec", "s.toolspec", "-", "fresh.json"],
        root,
        bad,
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("PASS") && text.contains("fresh.json"),
        "{text}"
    );
    assert!(text.contains("FAIL") && text.contains("<stdin>"), "{text}");
    // Without --spec the file is named by no glob, and stdin by none at all.
    let out = run(&["check", "fresh.json"], root, b"");
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("unclaimed-transcript"));
    let out = run(&["check", "-"], root, good);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("stdin-without-spec"));
}

#[test]
fn the_root_guard_still_refuses_paths_outside_the_project_under_spec() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.json");
    std::fs::write(&secret, br#"[{"name": "leak", "args": {"k": "SECRET"}}]"#).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(root.join("s.toolspec"), "spec s {\n  call lookup()\n}\n").unwrap();
    let secret = secret.to_str().unwrap();
    let out = run(
        &["check", "--spec", "s.toolspec", secret, "--color", "never"],
        root,
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains("not read"), "{all}");
    assert!(!all.contains("SECRET") && !all.contains("leak"), "{all}");
    // The spec file itself goes through the guard too.
    let spec = outside.path().join("o.toolspec");
    std::fs::write(&spec, "spec o {\n  call lookup()\n}\n").unwrap();
    let out = run(
        &["check", "--spec", spec.to_str().unwrap(), "-"],
        root,
        br#"[{"name": "lookup", "args": {}}]"#,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not read"));
}

/// A spec without `transcripts` still checks what `--spec` is given: no warning that it
/// "checks nothing", and the summary counts in the singular.
#[test]
fn check_spec_without_globs_checks_the_named_transcript_without_a_false_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toolspec"), "spec s {\n  order any\n  call b\n}\n").unwrap();
    std::fs::write(d.join("run.json"), r#"[{"name": "b", "args": {}}]"#).unwrap();
    let out = run(&["check", "--spec", "s.toolspec", "run.json"], d, b"");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(!stderr.contains("spec-without-transcripts"), "{stderr}");
    assert!(!stdout.contains("spec-without-transcripts"), "{stdout}");
    assert!(
        stdout.contains("1 passed, 0 failed (1 checked: 1 spec, 1 transcript)"),
        "{stdout}"
    );
}
