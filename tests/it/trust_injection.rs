//! No injection: data (file names, tool names, argument values, snippets, error texts) never
//! puts a control sequence or a GitHub workflow command in any output of the built binary.
//!
//! A project whose spec file, transcript files and tool names hold a line break followed by
//! `::error ...`, ESC sequences (clear screen, OSC title, OSC 8 link), an 8-bit CSI, a bidi
//! override and the older `##[` command form is run through every command and output format
//! with `--color never`. No line of stdout or stderr may start (after blanks, as the runner
//! reads it) with `::` unless it is one of toolspec's own annotations of `--format github`,
//! whose properties must then parse to exactly what toolspec meant; no raw control character
//! may appear; JSON documents must still parse.

use std::path::Path;
use std::process::{Command, Output};

/// What an attacker puts in names and values (no `/`: it also goes into file names).
const NASTY: &str = "\n::error file=x::pwned\r::warning::cr\u{1b}[2J\u{1b}]0;title\u{7}\u{1b}]8;;http:e.test\u{1b}\\link\u{1b}]8;;\u{1b}\\\u{9b}31m\u{85}\u{202e}\u{2066}\u{2028}##[error]v1";

/// Characters that must never appear raw (written out here, independently of the library).
fn forbidden(c: char) -> bool {
    let u = c as u32;
    (u < 0x20 && c != '\n')
        || (0x7f..=0x9f).contains(&u)
        || (0x202a..=0x202e).contains(&u)
        || (0x2066..=0x2069).contains(&u)
        || [0x61c, 0x200e, 0x200f, 0x2028, 0x2029].contains(&u)
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("runs")).unwrap();
    let spec = "spec s {\n  transcripts \"runs/*.json\"\n  call lookup(id: \"1\")\n  never close_account\n}\n";
    std::fs::write(root.join(format!("s{NASTY}.toolspec")), spec).unwrap();
    let call = |id: &str, name: &str, args: serde_json::Value| {
        serde_json::json!({"id": id, "type": "function",
            "function": {"name": name, "arguments": args.to_string()}})
    };
    let transcript = serde_json::json!({"messages": [
        {"role": "user", "content": format!("hello {NASTY}")},
        {"role": "assistant", "content": null, "tool_calls": [
            call("c1", &format!("look{NASTY}up"), serde_json::json!({"id": NASTY})),
            call("c2", "close_account", serde_json::json!({"why": NASTY})),
            call("c3", NASTY, serde_json::json!({})),
        ]},
    ]});
    // Pretty, so snippets show lines holding the raw bidi and line-separator characters.
    let text = serde_json::to_string_pretty(&transcript).unwrap();
    std::fs::write(root.join(format!("runs/t{NASTY}.json")), text).unwrap();
    // Invalid JSON whose snippet holds raw bidi characters, a `##[` and a line starting `::`.
    std::fs::write(
        root.join(format!("runs/bad{NASTY}.json")),
        "{\"messages\": [\n::error::snippet \u{202e} ##[error]x\n  oops\n",
    )
    .unwrap();
    // A spec that does not compile, with the same characters in its text.
    std::fs::write(
        root.join(format!("broken{NASTY}.toolspec")),
        "spec b {\n  transcripts \"none/*.json\"\n  # \u{202e}\u{85} ##[error]c\n  call (\u{2028}\n}\n",
    )
    .unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "60")
        .output()
        .unwrap()
}

/// The properties a GitHub runner reads from a `::command props::message` line, unescaped, or
/// `None` if the line is not one of toolspec's annotations.
fn github_properties(line: &str) -> Option<Vec<(String, String)>> {
    let line = line.trim_start();
    let rest = ["::error ", "::warning ", "::notice "]
        .iter()
        .find_map(|p| line.strip_prefix(p))?;
    let end = rest.find("::")?;
    let unescape = |v: &str| {
        v.replace("%0D", "\r")
            .replace("%0A", "\n")
            .replace("%3A", ":")
            .replace("%2C", ",")
            .replace("%25", "%")
    };
    let props = rest[..end]
        .split(',')
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (k.to_owned(), unescape(v))
        })
        .collect();
    Some(props)
}

fn assert_clean(what: &str, text: &str, github: bool) {
    if let Some(c) = text.chars().find(|&c| forbidden(c)) {
        panic!(
            "{what}: raw U+{:04X} in the output:\n{}",
            c as u32,
            text.escape_debug()
        );
    }
    assert!(!text.contains("##["), "{what}: a `##[` command:\n{text}");
    for line in text.split('\n') {
        if !line.trim_start().starts_with("::") {
            continue;
        }
        let props = github.then(|| github_properties(line)).flatten();
        let Some(props) = props else {
            panic!("{what}: a line starts a workflow command:\n{line}\n\nin:\n{text}");
        };
        for (k, v) in &props {
            assert!(
                ["file", "line", "col", "endLine", "endColumn", "title"].contains(&k.as_str()),
                "{what}: property {k:?} is not toolspec's: {line}"
            );
            // No property value holds a control character once the runner unescapes it.
            assert!(
                !v.chars().any(|c| c == '\n' || c == '\r' || forbidden(c)),
                "{what}: property {k}={v:?} in {line}"
            );
        }
    }
}

fn check_output(what: &str, out: &Output, github: bool) -> (String, String) {
    let stdout = String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8");
    let stderr = String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8");
    assert_clean(&format!("{what} (stdout)"), &stdout, github);
    assert_clean(&format!("{what} (stderr)"), &stderr, false);
    (stdout, stderr)
}

#[test]
fn check_in_every_format_writes_no_control_sequence_or_workflow_command_from_data() {
    let dir = project();
    // The full rendering (`-v`) too.
    let out = run(dir.path(), &["check", ".", "--color", "never", "-v"]);
    check_output("check -v", &out, false);
    for format in [
        "human", "concise", "json", "junit", "sarif", "github", "markdown",
    ] {
        let out = run(
            dir.path(),
            &["check", ".", "--color", "never", "--format", format],
        );
        let what = format!("check --format {format}");
        assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
        let (stdout, stderr) = check_output(&what, &out, format == "github");
        if matches!(format, "json" | "sarif") {
            let v: serde_json::Value = serde_json::from_str(&stdout)
                .unwrap_or_else(|e| panic!("{what}: not JSON ({e}):\n{stdout}"));
            // The JSON keeps the exact names.
            assert!(v.to_string().contains("::error file=x::pwned"), "{what}");
        }
        if format == "json" {
            let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            let transcript = v["results"][0]["transcript"].as_str().unwrap();
            assert_eq!(transcript, format!("runs/t{NASTY}.json"));
        }
        if format == "human" {
            // The data is shown, escaped, not dropped.
            assert!(
                stdout.contains("runs/t\\n::error file=x::pwned\\r"),
                "{stdout}"
            );
            assert!(stdout.contains("\\u{1b}[2J"), "{stdout}");
            assert!(stdout.contains("\\u{202e}"), "{stdout}");
            assert!(stderr.contains("runs/bad\\n::error"), "{stderr}");
        }
        if format == "github" {
            // Toolspec's own annotations are there, with the file name as one property.
            assert!(
                stdout
                    .lines()
                    .any(|l| github_properties(l)
                        .is_some_and(|p| p.iter().any(|(k, v)| k == "file"
                            && v.starts_with("runs/t\\n::error file=x::pwned\\r")))),
                "{stdout}"
            );
        }
    }
    // The notes of passing pairs, when asked for, go through the same escaping.
    for format in ["github", "sarif"] {
        let out = run(
            dir.path(),
            &[
                "check",
                ".",
                "--color",
                "never",
                "--format",
                format,
                "--show-notes",
            ],
        );
        let what = format!("check --format {format} --show-notes");
        assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
        check_output(&what, &out, format == "github");
    }
}

#[test]
fn calls_and_other_commands_write_no_control_sequence_from_data() {
    let dir = project();
    let t = format!("runs/t{NASTY}.json");
    let bad = format!("runs/bad{NASTY}.json");
    let spec = format!("s{NASTY}.toolspec");
    let broken = format!("broken{NASTY}.toolspec");
    let missing = format!("gone{NASTY}.json");

    let out = run(dir.path(), &["calls", "--color", "never", &t, &bad]);
    assert_eq!(out.status.code(), Some(2));
    let (stdout, _) = check_output("calls", &out, false);
    assert!(stdout.contains("look\\n::error"), "{stdout}");

    let out = run(
        dir.path(),
        &["calls", "--json", "--color", "never", &t, &bad],
    );
    let (stdout, _) = check_output("calls --json", &out, false);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v[&t][2]["name"], NASTY);

    let out = run(dir.path(), &["compile", "--color", "never", &spec, &broken]);
    assert_eq!(out.status.code(), Some(2));
    let (stdout, stderr) = check_output("compile", &out, false);
    serde_json::from_str::<serde_json::Value>(&stdout).unwrap();
    assert!(stderr.contains("broken\\n::error"), "{stderr}");

    for args in [
        vec!["fmt", "--check", "--color", "never", "."],
        vec!["fmt", "--stdout", "--color", "never", &broken],
        vec!["check", "--color", "never", &missing],
        vec![
            "check", "--color", "never", "--format", "json", &missing, &bad,
        ],
        vec!["check", "--color", "never", "--format", "github", &bad],
        vec!["check", "--color", "never", "--format", NASTY],
        vec!["init", "--color", "never", &missing],
        vec!["init", &missing],
        vec!["score", "--profile", NASTY],
        vec!["score", "--profile", "deepeval", &missing],
    ] {
        let out = run(dir.path(), &args);
        check_output(&format!("{args:?}"), &out, args.contains(&"github"));
    }
}

/// `score` prints the cases' names back in its JSON lines (DeepEval's reason names the tools):
/// escaped there too, and every line still parses to the same strings.
#[test]
fn score_lines_hold_no_raw_control_or_command() {
    use std::io::Write;
    let case = serde_json::json!({
        "id": NASTY,
        "tools_called": [{"name": NASTY}],
        "expected_tools": [{"name": format!("x{NASTY}")}],
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["score", "--profile", "deepeval", "-j", "1"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{case}").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let (stdout, _) = check_output("score", &out, false);
    let line: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(line["id"], NASTY);
    assert!(
        line["reason"].as_str().unwrap().contains("##[error]v1"),
        "{line}"
    );
}
