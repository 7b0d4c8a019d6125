//! An honest report: what the built binary says about a run is true.
//!
//! - A hard failure (forbidden call, broken `before` rule, extra call under `extra forbid`)
//!   names its reason in the pair's header, and no header states a false comparison.

use std::path::Path;
use std::process::{Command, Output};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .output()
        .unwrap()
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8(out.stdout.clone()).unwrap(),
        String::from_utf8(out.stderr.clone()).unwrap(),
    )
}

/// An OpenAI Chat transcript with these calls (name, arguments).
fn transcript(calls: &[(&str, serde_json::Value)]) -> String {
    let calls: Vec<serde_json::Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            serde_json::json!({"id": format!("c{i}"), "type": "function",
                "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    serde_json::json!({"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": calls},
    ]})
    .to_string()
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Every `PASS`/`FAIL` header's `a < b` / `a ≥ b` is true of the numbers it prints.
fn assert_headers_true(stdout: &str) {
    for line in stdout
        .lines()
        .filter(|l| l.starts_with("PASS") || l.starts_with("FAIL"))
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (a, cmp, b) = (words[1], words[2], words[3]);
        let (a, b): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
        match cmp {
            "<" => assert!(a < b, "false header: {line}"),
            "≥" => assert!(a >= b, "false header: {line}"),
            other => panic!("no comparison in {line} ({other})"),
        }
    }
}

#[test]
fn a_hard_failure_names_its_reason_in_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ok = serde_json::json!({"id": "1"});
    write(
        d,
        "runs/forbidden.json",
        &transcript(&[
            ("lookup", ok.clone()),
            ("close_account", serde_json::json!({"account": "A-1"})),
        ]),
    );
    write(
        d,
        "runs/order.json",
        &transcript(&[("refund", ok.clone()), ("lookup", ok.clone())]),
    );
    write(
        d,
        "runs/extra.json",
        &transcript(&[("lookup", ok.clone()), ("chat", ok.clone())]),
    );
    write(
        d,
        "s.toolspec",
        "spec never_rule {\n  transcripts \"runs/forbidden.json\"\n  threshold 0.5\n  call lookup(id: \"1\")\n  never close_account\n}\n\
         spec before_rule {\n  transcripts \"runs/order.json\"\n  order any\n  threshold 0.5\n  a: call lookup(id: \"1\")\n  b: call refund(id: \"1\")\n  a before b\n}\n\
         spec no_extras {\n  transcripts \"runs/extra.json\"\n  extra forbid\n  threshold 0.1\n  call lookup(id: \"1\")\n}\n",
    );
    let out = run(d, &["check", "--color", "never"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert_headers_true(&stdout);
    for (spec, reason) in [
        ("never_rule", "but forbidden call `close_account`"),
        ("before_rule", "but broken `before` rule"),
        ("no_extras", "but extra call `chat`"),
    ] {
        let header = stdout
            .lines()
            .find(|l| l.starts_with("FAIL") && l.contains(&format!("::{spec} ")))
            .unwrap_or_else(|| panic!("no FAIL line for {spec}:\n{stdout}"));
        assert!(header.contains(reason), "{spec}: {header}");
    }

    // The machine formats say the same.
    let out = run(d, &["check", "--color", "never", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&text(&out).0).unwrap();
    let failures: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["failure"].as_str().unwrap_or(""))
        .collect();
    assert!(
        failures.contains(&"forbidden call `close_account`"),
        "{failures:?}"
    );
    let out = run(d, &["check", "--color", "never", "--format", "junit"]);
    let junit = text(&out).0;
    assert!(
        junit.contains("score 1.00 ≥ 0.50 but forbidden call `close_account`"),
        "{junit}"
    );
    assert!(!junit.contains("score 1.00 &lt; threshold"), "{junit}");
}

/// A (spec, transcript) pair is checked once however it was named: the spec file and its
/// transcript both on the command line (a pre-commit hook with both staged), either named
/// twice or through `./`, a folder and a file in it, overlapping globs.
#[test]
fn a_pair_is_checked_once_however_it_was_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "runs/a.json",
        &transcript(&[("lookup", serde_json::json!({"id": "1"}))]),
    );
    write(
        d,
        "s.toolspec",
        "spec s {\n  transcripts \"runs/*.json\", \"runs/a.*\", \"./runs/a.json\"\n  call lookup(id: \"1\")\n}\n",
    );
    for args in [
        vec!["s.toolspec", "runs/a.json"],
        vec!["./s.toolspec", "s.toolspec", "runs/a.json", "./runs/a.json"],
        vec![".", "s.toolspec", "runs/a.json"],
        vec!["runs/a.json", "runs/a.json"],
        vec!["s.toolspec"],
    ] {
        let mut all = vec!["check", "--color", "never", "--format", "json"];
        all.extend(&args);
        let out = run(d, &all);
        let (stdout, stderr) = text(&out);
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(
            v["results"].as_array().unwrap().len(),
            1,
            "{args:?}: {stdout}"
        );
        assert_eq!(v["summary"]["checked"], 1, "{args:?}");
        assert_eq!(v["summary"]["specs"], 1, "{args:?}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}

/// A transcript file that is read without error but without one call says which reader read
/// it and what to do; `--strict` turns that warning, a glob that matches nothing and a run that
/// checks nothing into a failing exit (1).
#[test]
fn warnings_say_what_happened_and_fail_under_strict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A pydantic-ai message dump, which detection takes for Vercel AI SDK.
    write(
        d,
        "runs/a.json",
        r#"{"messages": [{"role": "user", "content": "find flights"}, {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "search_flights", "args": {}}]}]}"#,
    );
    write(
        d,
        "s.toolspec",
        "spec s {\n  transcripts \"runs/*.json\"\n  optional call search_flights\n}\n",
    );
    let out = run(d, &["check", "--color", "never"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("no-calls-read"), "{stderr}");
    assert!(
        stderr.contains("read as vercel-ai-sdk (by detection), with 0 tool calls"),
        "{stderr}"
    );
    assert!(stderr.contains("read it with another reader"), "{stderr}");
    let out = run(d, &["check", "--color", "never", "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    // `--exit-zero` still wins over a failing exit.
    let out = run(d, &["check", "--strict", "--exit-zero"]);
    assert_eq!(out.status.code(), Some(0));

    // A glob that matches nothing: a warning, and a failure under --strict.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "s.toolspec",
        "spec s {\n  transcripts \"rnus/*.json\"\n  call lookup\n}\n",
    );
    let out = run(d, &["check", "--color", "never"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("no transcript matches `rnus/*.json`"),
        "{stderr}"
    );
    // Nothing was checked at all: said in so many words.
    assert!(
        stderr.contains("no spec × transcript pair was checked: no transcript matched the specs"),
        "{stderr}"
    );
    for format in ["human", "json", "github"] {
        let out = run(d, &["check", "--strict", "--format", format]);
        assert_eq!(out.status.code(), Some(1), "{format}: {:?}", text(&out));
    }

    // No spec at all.
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["check", "--color", "never"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr.contains("no spec × transcript pair was checked: no spec file was found"),
        "{stderr}"
    );
    let out = run(dir.path(), &["check", "--strict"]);
    assert_eq!(out.status.code(), Some(1));
}

/// A forbidden call's finding shows the call's arguments (compact, cut to a readable length),
/// not "with these arguments".
#[test]
fn a_forbidden_call_shows_its_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long = "x".repeat(500);
    write(
        d,
        "runs/a.json",
        &transcript(&[
            ("close_account", serde_json::json!({"account": "A-1"})),
            ("delete_all", serde_json::json!({"note": long})),
        ]),
    );
    write(
        d,
        "s.toolspec",
        "spec s {\n  transcripts \"runs/*.json\"\n  never close_account\n  never delete_all\n}\n",
    );
    let out = run(d, &["check", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&text(&out).0).unwrap();
    let messages: Vec<&str> = v["results"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "forbidden-call")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(
        messages[0],
        "call #1 calls `close_account` with {\"account\":\"A-1\"}, which the spec forbids"
    );
    assert!(
        messages[1].contains("with {\"note\":\"xxx"),
        "{}",
        messages[1]
    );
    assert!(
        messages[1].contains("…, which the spec forbids"),
        "{}",
        messages[1]
    );
    assert!(messages[1].chars().count() < 200, "{}", messages[1]);
}

/// A finding's severity is fixed by its code (and the spec), not by whether the pair passed:
/// the same `missing-call` and `too-many-calls` in a passing and in a failing pair are the same
/// severity.
#[test]
fn severity_does_not_depend_on_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ok = serde_json::json!({"id": "1"});
    write(
        d,
        "runs/a.json",
        &transcript(&[("lookup", ok.clone()), ("lookup", ok.clone())]),
    );
    let body = "  transcripts \"runs/*.json\"\n  call lookup(id: \"1\")\n  call refund\n  call notify\n  call close\n  call archive\n";
    write(
        d,
        "s.toolspec",
        &format!("spec lenient {{\n  threshold 0.1\n{body}}}\nspec exacting {{\n{body}}}\n"),
    );
    let out = run(d, &["check", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&text(&out).0).unwrap();
    let results = v["results"].as_array().unwrap();
    let verdicts: Vec<(bool, &str)> = results
        .iter()
        .map(|r| (r["passed"].as_bool().unwrap(), r["spec"].as_str().unwrap()))
        .collect();
    assert!(verdicts.contains(&(true, "lenient")), "{verdicts:?}");
    assert!(verdicts.contains(&(false, "exacting")), "{verdicts:?}");
    // A repeat of a met plain `call` is an extra call: its severity is the extra-call policy's
    // (here: allowed and free, a note), the same in both pairs.
    for (code, severity) in [("missing-call", "error"), ("too-many-calls", "note")] {
        let severities: std::collections::BTreeSet<&str> = results
            .iter()
            .flat_map(|r| r["findings"].as_array().unwrap())
            .filter(|f| f["code"] == code)
            .map(|f| f["severity"].as_str().unwrap())
            .collect();
        assert_eq!(
            severities.into_iter().collect::<Vec<_>>(),
            vec![severity],
            "{code}"
        );
    }
}

/// The help of a missing call never contradicts the finding: it does not say "never calls
/// `hold_seat`; did you mean `hold_seat` (call #1)?" when that call was forbidden, and it does
/// not offer a call that another expectation matched.
#[test]
fn did_you_mean_never_contradicts_the_finding() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "runs/a.json",
        &transcript(&[
            ("hold_seat", serde_json::json!({"seat": "99Z"})),
            ("hold_seats", serde_json::json!({})),
            ("lookup_fight", serde_json::json!({})),
        ]),
    );
    write(
        d,
        "s.toolspec",
        "spec s {\n  transcripts \"runs/*.json\"\n  order any\n  call hold_seat(seat: \"1A\")\n  call hold_seats\n  call lookup_flight\n  never hold_seat(seat: \"99Z\")\n}\n",
    );
    let out = run(d, &["check", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&text(&out).0).unwrap();
    let findings = v["results"][0]["findings"].as_array().unwrap();
    let help_of = |tool: &str| {
        findings
            .iter()
            .find(|f| {
                f["code"] == "missing-call"
                    && f["message"]
                        .as_str()
                        .unwrap()
                        .contains(&format!("`{tool}`"))
            })
            .map_or_else(
                || panic!("no missing-call for {tool}: {findings:#?}"),
                |f| f["help"].as_str().unwrap_or("").to_owned(),
            )
    };
    let hold = help_of("hold_seat");
    assert!(!hold.contains("never calls"), "{hold}");
    assert!(!hold.contains("did you mean"), "{hold}");
    assert!(
        hold.contains("#1") && hold.contains("`never` rule"),
        "{hold}"
    );
    // `hold_seats` (call #2) is matched to its own expectation: not offered for `hold_seat`;
    // a genuinely similar unexplained call still is.
    let flight = help_of("lookup_flight");
    assert!(
        flight.contains("did you mean `lookup_fight` (call #3)"),
        "{flight}"
    );
}
