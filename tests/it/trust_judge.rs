//! The judge command comes only from the person running toolspec (`--judge CMD`): a case line,
//! a spec or `toolspec.toml` that names one gets an error and the command never runs; a judge
//! given on the command line is bounded (timeout, output cap) and its failure is that case's or
//! that pair's error, never the end of the run. Tests of the built binary, in temporary folders.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn toolspec(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolspec"));
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A DeepEval case with available tools (so a judge would be asked), with extra options.
fn case(id: &str, extra: &str) -> String {
    format!(
        r#"{{"id": "{id}", "input": "book", "tools_called": [{{"name": "search"}}], "expected_tools": [{{"name": "search"}}], "options": {{"available_tools": [{{"name": "search"}}, {{"name": "book"}}]{extra}}}}}"#
    )
}

const MARKER: &str = "PWNED";

#[test]
fn a_case_line_never_runs_its_judge_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let input = format!(
        "{}\n{}\n",
        case("bad", r#", "judge": "touch PWNED; echo 1""#),
        case("good", "")
    );
    let out = toolspec(
        dir.path(),
        &["score", "--profile", "deepeval"],
        Some(&input),
    );
    assert!(!dir.path().join(MARKER).exists(), "the judge ran");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let got = lines(&out);
    assert_eq!(got.len(), 2, "{}", text(&out));
    assert_eq!(got[0]["id"], "bad");
    let error = got[0]["error"].as_str().unwrap();
    assert!(error.contains("--judge"), "{error}");
    assert_eq!(got[1]["id"], "good");
    assert_eq!(got[1]["score"], 1.0);
    // Even with a judge on the command line, the line's own command is not run.
    let out = toolspec(
        dir.path(),
        &["score", "--profile", "deepeval", "--judge", "echo 0.5"],
        Some(&input),
    );
    assert!(!dir.path().join(MARKER).exists(), "the judge ran");
    let got = lines(&out);
    assert!(got[0]["error"].as_str().unwrap().contains("--judge"));
    assert_eq!(got[1]["score"], 0.5, "{}", text(&out));
}

fn project(spec: &str, settings: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.toolspec"), spec).unwrap();
    std::fs::write(
        dir.path().join("run.json"),
        r#"{"messages": [{"role": "assistant", "content": null, "tool_calls": [{"id": "1", "type": "function", "function": {"name": "search", "arguments": "{}"}}]}], "tools": [{"type": "function", "function": {"name": "search", "description": "s", "parameters": {"type": "object"}}}, {"type": "function", "function": {"name": "book", "description": "b", "parameters": {"type": "object"}}}]}"#,
    )
    .unwrap();
    if let Some(s) = settings {
        std::fs::write(dir.path().join("toolspec.toml"), s).unwrap();
    }
    dir
}

#[test]
fn a_spec_never_runs_its_judge() {
    let dir = project(
        "spec a {\n  transcripts \"run.json\"\n  profile deepeval { judge: \"touch PWNED; echo 1\" }\n  call search\n}\n",
        None,
    );
    for args in [
        &["check", "--color", "never"][..],
        &["check", "--color", "never", "--judge", "echo 1"],
        &["check", "--format", "json"],
        &["compile", "a.toolspec"],
    ] {
        let out = toolspec(dir.path(), args, None);
        assert!(!dir.path().join(MARKER).exists(), "the judge ran: {args:?}");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let all = text(&out);
        assert!(all.contains("command-line-only"), "{args:?}: {all}");
        assert!(all.contains("--judge"), "{args:?}: {all}");
    }
    // Located at the option.
    let out = toolspec(dir.path(), &["check", "--format", "json"], None);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = &report["errors"][0];
    assert_eq!(error["code"], "toolspec::command-line-only", "{report}");
    assert_eq!(error["location"]["line"], 3, "{report}");
}

#[test]
fn toolspec_toml_never_runs_its_judge() {
    let dir = project(
        "spec a {\n  transcripts \"run.json\"\n  call search\n}\n",
        Some("profile = { name = \"deepeval\", judge = \"touch PWNED; echo 1\" }\n"),
    );
    for args in [
        &["check", "--color", "never"][..],
        &["check", "--judge", "echo 1"],
    ] {
        let out = toolspec(dir.path(), args, None);
        assert!(!dir.path().join(MARKER).exists(), "the judge ran");
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let all = text(&out);
        assert!(all.contains("toolspec.toml"), "{all}");
        assert!(all.contains("--judge"), "{all}");
    }
}

#[test]
fn a_working_judge_scores_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let judge = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/parity_judge.sh"
    );
    let out = toolspec(
        dir.path(),
        &[
            "score",
            "--profile",
            "deepeval",
            "--judge",
            &format!("sh {judge}"),
        ],
        Some(&format!("{}\n", case("j", ""))),
    );
    let got = lines(&out);
    assert_eq!(got[0]["score"], 0.25, "{}", text(&out));
    assert!(got[0]["reason"]
        .as_str()
        .unwrap()
        .contains("fixture judge saw 2 available tools"));
}

#[test]
fn a_judge_past_its_timeout_is_stopped_and_the_case_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = format!("{}\n{}\n", case("slow", ""), case("also", ""));
    let out = toolspec(
        dir.path(),
        &[
            "score",
            "--profile",
            "deepeval",
            "--judge",
            "sleep 20",
            "--judge-timeout",
            "1",
            "-j",
            "1",
        ],
        Some(&input),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let got = lines(&out);
    assert_eq!(got.len(), 2);
    for g in &got {
        let error = g["error"].as_str().unwrap();
        assert!(error.contains("--judge-timeout"), "{error}");
    }
}

#[test]
fn a_judge_that_prints_without_end_is_a_bounded_failure() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolspec(
        dir.path(),
        &["score", "--profile", "deepeval", "--judge", "yes 0.5"],
        Some(&format!("{}\n", case("loud", ""))),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let got = lines(&out);
    let error = got[0]["error"].as_str().unwrap();
    assert!(error.contains("more than 64 KiB"), "{error}");
}

#[test]
fn a_failing_judge_is_that_pairs_error_in_check() {
    let dir = project(
        "spec a {\n  transcripts \"run.json\"\n  profile deepeval {}\n  call search\n}\n\nspec b {\n  transcripts \"run.json\"\n  call search\n}\n",
        None,
    );
    let out = toolspec(
        dir.path(),
        &[
            "check",
            "--format",
            "json",
            "--judge",
            "echo nonsense; exit 3",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{report}");
    let a = results.iter().find(|r| r["spec"] == "a").unwrap();
    assert_eq!(a["passed"], false);
    let finding = a["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "profile-error")
        .unwrap_or_else(|| panic!("{a}"));
    assert!(
        finding["message"].as_str().unwrap().contains("exited"),
        "{finding}"
    );
    assert_eq!(finding["location"]["file"], "run.json", "{finding}");
    let b = results.iter().find(|r| r["spec"] == "b").unwrap();
    assert_eq!(b["passed"], true, "{b}");
}
