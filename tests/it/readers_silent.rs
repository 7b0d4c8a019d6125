//! Never a silent misread, over every transcript copy in `tests/fixtures/` (the shared corpus's
//! synthetic and real files, the wild set, our own variant fixtures and datasets): a file read
//! without error but without a single call is warned about by `calls` and `check`, naming the
//! format it was read as and what to do; a file another reader also finds calls in carries an
//! `ambiguous-format` note naming that reader (or that reader finds the same calls); and a file
//! no format matches lists each format's reason once.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use toolspec::transcript::{Format, ReadError, Reader, Transcript};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every transcript file of the fixture folders that hold transcripts (truth files, notes and
/// the generator left out).
fn transcript_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = ["corpus", "wild", "formats", "datasets"]
        .iter()
        .map(|d| fixtures().join(d))
        .collect();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if name != "truth" {
                    stack.push(p);
                }
            } else if !(name.ends_with(".truth.json")
                || name.ends_with(".truth.jsonl")
                || name.ends_with(".md")
                || name.ends_with(".py"))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn calls(ts: &[Transcript]) -> Vec<Value> {
    ts.iter()
        .flat_map(|t| &t.calls)
        .map(|c| json!([c.name, c.args, c.id, c.output, c.is_error]))
        .collect()
}

#[test]
fn a_file_read_as_another_format_says_so() {
    let files = transcript_files();
    assert!(files.len() >= 100, "{} files", files.len());
    let mut silent = Vec::new();
    for file in &files {
        let Ok(detected) = Reader::new().read_file(file) else {
            continue;
        };
        let format = detected[0].format;
        let got = calls(&detected);
        let noted: Vec<&str> = detected
            .iter()
            .flat_map(|t| &t.findings)
            .filter(|f| f.code == "ambiguous-format")
            .map(|f| f.message.as_str())
            .collect();
        for other in Format::ALL {
            if other == format {
                continue;
            }
            let Ok(ts) = Reader::new().format(other).read_file(file) else {
                continue;
            };
            let theirs = calls(&ts);
            let named = noted
                .iter()
                .any(|m| m.contains(&format!("--input-format {other}")));
            if !theirs.is_empty() && theirs != got && !named {
                silent.push(format!(
                    "{}: read as {format} ({} calls); as {other}: {} calls, and no note says so",
                    file.strip_prefix(fixtures()).unwrap().display(),
                    got.len(),
                    theirs.len()
                ));
            }
        }
    }
    assert!(silent.is_empty(), "{}", silent.join("\n"));
}

/// Every file that reads without error but without a single call: `calls` says so on stderr
/// (`no-calls-read`, the format it was read as, and `--input-format`), and so does `check`
/// (a `no-calls-read` warning naming the format). Files with calls get no such warning.
#[test]
fn a_file_read_without_calls_is_never_silent() {
    let bin = env!("CARGO_BIN_EXE_toolspec");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toolspec"), "spec s {\n  order any\n}\n").unwrap();
    let mut empty = 0;
    let mut problems = Vec::new();
    for file in transcript_files() {
        let Ok(ts) = Reader::new().read_file(&file) else {
            continue;
        };
        let none = ts.iter().all(|t| t.calls.is_empty());
        let shown = file.strip_prefix(fixtures()).unwrap().display().to_string();
        let out = Command::new(bin)
            .args(["calls", "--json", "--color", "never"])
            .arg(&file)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The rendering wraps at the terminal width (where a line breaks depends on the path's
        // length): compare the words.
        let words = stderr
            .split(|c: char| c.is_whitespace() || c == '│')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let says = words.contains("no-calls-read")
            && words.contains(&format!("read as {}", ts[0].format))
            && stderr.contains("--input-format");
        if none != says {
            problems.push(format!(
                "{shown}: calls, {} calls read, stderr: {stderr}",
                calls(&ts).len()
            ));
        }
        if !none {
            continue;
        }
        empty += 1;
        let out = Command::new(bin)
            .args([
                "check",
                "--spec",
                "s.toolspec",
                "--format",
                "json",
                "--allow-outside-root",
            ])
            .arg(&file)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let warned = report["warnings"].as_array().is_some_and(|w| {
            w.iter().any(|f| {
                f["code"] == "no-calls-read"
                    && f["message"]
                        .as_str()
                        .is_some_and(|m| m.contains(&format!("read as {}", ts[0].format)))
            })
        });
        if !warned {
            problems.push(format!(
                "{shown}: check gives no no-calls-read warning: {report}"
            ));
        }
    }
    // The corpus holds files of runs without a tool call (a gemini-cli compress replay, an
    // approval request): the warning must have been exercised.
    assert!(empty >= 2, "{empty} files without calls");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A file no format matches says what it holds once and lists each format's reason once, on
/// one line (a report shows a finding's help as one line).
#[test]
fn an_unknown_format_lists_each_reason_once() {
    let e = Reader::new()
        .read("x.json", br#"{"events": [{"kind": "tool"}]}"#)
        .unwrap_err();
    let ReadError::DetectionFailed { tried, .. } = &e else {
        panic!("{e}")
    };
    let help = miette::Diagnostic::help(&e).unwrap().to_string();
    assert!(!help.contains('\n'), "{help}");
    for r in tried {
        assert_eq!(
            help.matches(&format!("{} (", r.format)).count(),
            1,
            "{help}"
        );
        assert_eq!(help.matches(r.reason.as_str()).count(), 1, "{help}");
    }
    assert_eq!(e.to_string().matches("`events`").count(), 1, "{e}");
}
