//! The human format fits the width it is given: every finding line of its default output is at
//! most the width (`COLUMNS`, or 100 off a terminal), at several widths, and what is cut is the
//! least telling part. `--format concise` does not: its lines are whole at any width.

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

/// `--format concise` prints each finding whole on one line whatever the terminal (as ruff's
/// concise format): the same lines at any `COLUMNS`, with the offending values of the call.
#[test]
fn concise_lines_are_whole_at_any_width() {
    let out = check("examples", &[".", "--format", "concise"], None);
    let refund = out
        .lines()
        .find(|l| l.contains(":48:9: name-only-match "))
        .expect("the over-refund finding");
    // The bound comes from the eligibility check, which this run skipped: the finding says so,
    // and shows the amount the call asked for and where the expectation is written.
    assert!(refund.contains("amount_cents: cannot compare"), "{refund}");
    assert!(refund.contains("amount_cents: 14999"), "{refund}");
    assert!(
        refund.ends_with("at prompts/refund.toolspec:14"),
        "{refund}"
    );
    assert!(!out.contains('…'), "{out}");
    for columns in [40, 80, 200] {
        for dir in ["examples", "tests/cmd/report.in"] {
            let at = check(dir, &[".", "--format", "concise"], Some(columns));
            let off = check(dir, &[".", "--format", "concise"], None);
            assert_eq!(at, off, "{dir} at {columns}");
        }
    }
    let out = check(
        "tests/cmd/report.in",
        &[".", "--format", "concise"],
        Some(40),
    );
    assert!(
        out.contains("amount_cents: 14999 is above the maximum 12999; call #2 issue_refund(amount_cents: 14999, "),
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

/// Past 50 pairs the summary per spec is printed without `--summary`: the pass rate, the mean
/// score and the expectations that fail most, counted over a dataset of 60 transcripts.
#[test]
fn the_summary_comes_by_itself_past_fifty_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("toolspec.toml"), "").unwrap();
    std::fs::write(
        root.join("s.toolspec"),
        "spec refund_flow {\n  transcripts \"runs.jsonl\"\n  call lookup(id: 1..=9)\n  \
         call refund(amount: 1..=100)\n}\n",
    )
    .unwrap();
    let lines: Vec<String> = (0..60)
        .map(|i| {
            let amount = if i % 4 == 0 { 500 } else { 50 };
            format!(
                r#"[{{"name": "lookup", "args": {{"id": 1}}}}, {{"name": "refund", "args": {{"amount": {amount}}}}}]"#
            )
        })
        .collect();
    std::fs::write(root.join("runs.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["check", ".", "--color", "never"])
        .current_dir(root)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("s.toolspec::refund_flow   45/60   75.0%        0.94\n  most often not met: #2 refund 15×\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("… and 45 passing pairs (-v lists them)"),
        "{stdout}"
    );
}

/// `--format github` with `$GITHUB_STEP_SUMMARY` set appends the Markdown job summary to that
/// file (what was there stays) and prints the same annotations; the summary is what
/// `--format markdown` prints.
#[test]
fn github_appends_the_job_summary() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("summary.md");
    std::fs::write(&file, "earlier step\n").unwrap();
    let run = |args: &[&str], summary: Option<&std::path::Path>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolspec"));
        cmd.arg("check").args(args).current_dir("examples");
        match summary {
            Some(p) => cmd.env("GITHUB_STEP_SUMMARY", p),
            None => cmd.env_remove("GITHUB_STEP_SUMMARY"),
        };
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = run(&[".", "--format", "github"], None);
    let with = run(&[".", "--format", "github"], Some(&file));
    assert_eq!(plain, with);
    let markdown = run(&[".", "--format", "markdown"], None);
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(written, format!("earlier step\n{markdown}"));
    assert!(markdown.contains("| 4/5 | 80.0% | 0.95 |"), "{markdown}");
}

/// Data in the Markdown summary cannot add markup: a tool name with HTML, a link, a table
/// separator and a line break renders as its text.
#[test]
fn markdown_escapes_data() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("toolspec.toml"), "").unwrap();
    std::fs::write(
        root.join("s.toolspec"),
        "spec s {\n  transcripts \"run.json\"\n  call lookup\n}\n",
    )
    .unwrap();
    let name = "<img src=x onerror=alert(1)> | [x](https://evil) **b** @team\n::error::x";
    let calls = serde_json::json!([{"name": name, "args": {"q": "</td><script>"}}]);
    std::fs::write(root.join("run.json"), calls.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["check", ".", "--format", "markdown"])
        .current_dir(root)
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("unexpected\\-call"), "{md}");
    for raw in ["</td>", "<script>", "](", "**b**", " @team", "| [x"] {
        assert!(!md.contains(raw), "{raw} in:\n{md}");
    }
    // No HTML tag but the line breaks toolspec writes in a cell.
    let tags = md.replace("\\<", "").replace("<br>", "");
    assert!(!tags.contains('<'), "{md}");
    assert!(
        !md.lines().any(|l| l.trim_start().starts_with("::")),
        "{md}"
    );
    // Every table row has its cells: no `|` from the data splits one (the failing pair's row
    // has four, the spec's five).
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| s\\.")).collect();
    assert_eq!(rows.len(), 2, "{md}");
    for line in rows {
        let bars = line.replace("\\|", "").matches('|').count();
        let want = if line.starts_with("| s\\.toolspec::") {
            5
        } else {
            6
        };
        assert_eq!(bars, want, "{line}");
    }
}

/// One result explained on its own (the Python API's `Result.explain()`) is that pair in full
/// and its verdict line, without counts of a run it is not: it said `0 passed, 1 failed (1
/// checked: 0 specs, 0 transcripts)`. The report it comes from counts right.
#[test]
fn one_result_explained_alone_has_no_counts_of_its_own() {
    use toolspec::check::run::{Given, SpecSet};
    use toolspec::check::settings::LoadedSettings;
    use toolspec::report::human;

    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let settings = LoadedSettings::defaults(root);
    let spec = root.join("examples/prompts/refund.toolspec");
    let set = SpecSet::compile(&spec, None, &settings, root, false).expect("compiles");
    let transcript = root.join("examples/runs/refund/2025-06-07-openai-skipped-check.request.json");
    let report = set.check(Given::Path(&transcript), None);
    let s = &report.summary;
    assert_eq!((s.checked, s.specs, s.transcripts), (1, 1, 1), "{s:?}");
    let r = &report.results[0];
    let sources = |name: &str| {
        std::fs::read_to_string(root.join(name))
            .ok()
            .map(Into::into)
    };
    let opts = human::Options {
        color: false,
        verbose: false,
        width: 100,
        summary: false,
    };
    let text = human::render_pair(r, &sources, opts);
    assert!(!text.contains(" passed, "), "{text}");
    assert!(!text.contains(" checked: "), "{text}");
    assert!(text.contains("missing-call"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("FAIL"), "{text}");
    assert_eq!(lines.last(), lines.first(), "{text}");
}
