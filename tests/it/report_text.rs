//! The text formats fit the width they are given: every line of `--format concise` and every
//! finding line of the human format's default output is at most the width (`COLUMNS`, or 100
//! off a terminal), at several widths; and what is cut is the least telling part (the over-refund
//! finding still shows the offending `amount_cents`).

use std::process::Command;

fn check(dir: &str, args: &[&str], columns: Option<usize>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolspec"));
    cmd.arg("check")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1");
    match columns {
        Some(c) => cmd.env("COLUMNS", c.to_string()),
        None => cmd.env_remove("COLUMNS"),
    };
    let out = cmd.output().expect("run toolspec");
    String::from_utf8(out.stdout).unwrap()
}

fn width(line: &str) -> usize {
    line.chars().count()
}

#[test]
fn concise_lines_fit_the_width() {
    // Off a terminal, without COLUMNS: 100.
    let out = check("examples", &[".", "--format", "concise"], None);
    for line in out.lines() {
        assert!(width(line) <= 100, "{} columns: {line}", width(line));
    }
    let refund = out
        .lines()
        .find(|l| l.contains(":48:9: name-only-match "))
        .expect("the over-refund finding");
    assert!(refund.contains("amount_cents: 14999"), "{refund}");
    for columns in [80, 120, 200] {
        let out = check(
            "tests/cmd/report.in",
            &[".", "--format", "concise"],
            Some(columns),
        );
        for line in out.lines() {
            assert!(width(line) <= columns, "{columns}: {line}");
        }
    }
    // A wide terminal shows whole messages.
    let out = check(
        "tests/cmd/report.in",
        &[".", "--format", "concise"],
        Some(200),
    );
    assert!(
        out.contains("amount_cents: 14999 is above the maximum 12999; call #2 issue_refund fails #2 issue_refund (refund)\n"),
        "{out}"
    );
}

#[test]
fn human_finding_lines_fit_the_width() {
    for columns in [40, 60, 100, 160] {
        for dir in ["examples", "tests/cmd/report.in"] {
            let out = check(dir, &["."], Some(columns));
            // Findings are indented; the verdict lines carry whole paths and are not cut.
            let findings: Vec<&str> = out.lines().filter(|l| l.starts_with("  ")).collect();
            assert!(!findings.is_empty(), "{dir}: {out}");
            for line in findings {
                assert!(width(line) <= columns, "{dir} at {columns}: {line}");
            }
        }
    }
    let out = check("examples", &["."], None);
    assert!(
        out.contains(
            "  error[name-only-match] line 48: call #3 issue_refund(amount_cents: 14999, "
        ),
        "{out}"
    );
}
