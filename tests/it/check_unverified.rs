//! Findings that leave part of a spec unchecked (`unverified`: an `agent` block whose name made
//! no call, ...) are shown on passing pairs in every text format, counted among the summary's
//! warnings in every format, and fail the run under `--strict`.

use std::process::{Command, Output};

/// `toolspec check . ARGS` in the fixture whose spec caps the calls of a misspelt agent
/// (`agent "general-purpos" { at_most 1 call Bash }` on a run whose `general-purpose` agent
/// made five).
fn check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["check", ".", "--color", "never"])
        .args(args)
        .current_dir("tests/cmd/agent_typo.in")
        .env("COLUMNS", "100")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The reproduction: the cap checks no call and the pair passes, but every format says so, the
/// JSON summary counts the warning, and `--strict` fails the run.
#[test]
fn a_misspelt_agent_is_a_warning_everywhere() {
    let human = check(&[]);
    assert_eq!(human.status.code(), Some(0));
    let text = stdout(&human);
    assert!(text.contains("warning[unknown-agent]"), "{text}");
    assert!(text.contains("did you mean \"general-purpose\"?"), "{text}");
    assert!(text.contains("; 1 warning (1 unverified)"), "{text}");

    let concise = stdout(&check(&["--format", "concise"]));
    assert!(concise.contains(": unknown-agent "), "{concise}");
    assert!(concise.contains("; 1 warning (1 unverified)"), "{concise}");

    let json: serde_json::Value =
        serde_json::from_slice(&check(&["--format", "json"]).stdout).unwrap();
    assert_eq!(json["summary"]["passed"], 1);
    assert_eq!(json["summary"]["warnings"], 1);
    assert_eq!(json["summary"]["unverified"], 1);
    let findings = json["results"][0]["findings"].as_array().unwrap();
    let marked: Vec<_> = findings
        .iter()
        .filter(|f| f["unverified"] == true)
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(marked, ["unknown-agent"]);

    let github = stdout(&check(&["--format", "github"]));
    assert!(github.contains("::warning file="), "{github}");
    assert!(
        github.ends_with("0 errors, 1 warning (1 unverified)\n"),
        "{github}"
    );

    let markdown = stdout(&check(&["--format", "markdown"]));
    assert!(markdown.contains("1 warning (1 unverified)"), "{markdown}");

    let strict = check(&["--strict"]);
    assert_eq!(strict.status.code(), Some(1));
    let err = String::from_utf8(strict.stderr).unwrap();
    assert!(err.contains("--strict: 1 unverified finding"), "{err}");
    // `--exit-zero` still turns it into 0.
    assert_eq!(check(&["--strict", "--exit-zero"]).status.code(), Some(0));
}

/// With the agent's name spelt right, the same cap fails the pair: the warning above is about
/// a constraint that really was not applied.
#[test]
fn the_cap_applies_to_the_right_name() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::Path::new("tests/cmd/agent_typo.in");
    std::fs::create_dir(dir.path().join("runs")).unwrap();
    for f in ["toolspec.toml", "runs/task-session.jsonl"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    let spec = std::fs::read_to_string(src.join("research.toolspec")).unwrap();
    std::fs::write(
        dir.path().join("research.toolspec"),
        spec.replace("\"general-purpos\"", "\"general-purpose\""),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["check", ".", "--color", "never", "--strict"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("too-many-calls"), "{text}");
    assert!(!text.contains("unverified"), "{text}");
}
