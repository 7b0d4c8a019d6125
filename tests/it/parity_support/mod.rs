//! Shared by the `parity_*` and profile cost tests: read a gzip-compressed vector file, run
//! `toolspec score`, collect mismatches.
// Each test binary uses a subset of these helpers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};

use flate2::read::GzDecoder;
use serde_json::Value;

/// Every line of `tests/fixtures/vectors/NAME.jsonl.gz`.
pub(crate) fn vector_lines(name: &str) -> Vec<String> {
    let file = std::fs::File::open(format!("tests/fixtures/vectors/{name}.jsonl.gz"))
        .expect("vector file");
    BufReader::new(GzDecoder::new(file))
        .lines()
        .map(|l| l.expect("readable vector line"))
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// Parse one output line of `toolspec score`.
pub(crate) fn output(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|e| {
        panic!(
            "output is not JSON ({e}): {}",
            String::from_utf8_lossy(bytes)
        )
    })
}

/// Scores agree within 1e-9 (both numbers).
pub(crate) fn close(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9,
        _ => false,
    }
}

/// Fails with the first 20 mismatches if there are any.
pub(crate) fn report(peer: &str, checked: usize, expected: usize, mismatches: &[String]) {
    assert_eq!(checked, expected, "{peer}: every vector was checked");
    assert!(
        mismatches.is_empty(),
        "{peer}: {} of {checked} vectors differ; first 20:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A DeepEval reason with the items of its default (unordered) mode's `missing tools [...]`
/// sorted: that list is a Python set of `ToolCall`s, whose hash takes `hash(None)` of an
/// absent output, an address in CPython 3.11, so its order changes from run to run even with
/// `PYTHONHASHSEED=0` (`docs/parity.md`). Everything else, the ordering mode's sets of names
/// included (`json::pyset`), must be byte for byte the same.
pub(crate) fn reason_modulo_set_order(reason: &str) -> String {
    if !reason.contains("Incomplete tool usage: ") {
        return reason.to_owned();
    }
    let mut out = String::with_capacity(reason.len());
    let mut rest = reason;
    loop {
        let next = ["missing tools ["]
            .iter()
            .filter_map(|m| rest.find(m).map(|i| (i, m.len())))
            .min();
        let Some((at, len)) = next else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at + len]);
        rest = &rest[at + len..];
        if let Some((mut items, end)) = split_list(rest) {
            items.sort_unstable();
            out.push_str(&items.join(", "));
            out.push(']');
            rest = &rest[end + 1..];
        } else {
            out.push_str(rest);
            return out;
        }
    }
}

/// The top-level items of a Python list repr whose `[` was just read, and the index of its `]`.
fn split_list(s: &str) -> Option<(Vec<&str>, usize)> {
    let b = s.as_bytes();
    let (mut depth, mut quote, mut start, mut i) = (0usize, None::<u8>, 0usize, 0usize);
    let mut items = Vec::new();
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) => {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'[' | b'(' | b'{' => depth += 1,
                b']' if depth == 0 => {
                    if i > start {
                        items.push(&s[start..i]);
                    }
                    return Some((items, i));
                }
                b']' | b')' | b'}' => depth = depth.saturating_sub(1),
                b',' if depth == 0 && b.get(i + 1) == Some(&b' ') => {
                    items.push(&s[start..i]);
                    start = i + 2;
                    i += 1;
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// `toolspec score --profile PROFILE` over `lines` (case lines, or JSON values written one per
/// line) on stdin: one JSON output per case.
pub(crate) fn score<L: ToString>(profile: &str, lines: &[L]) -> Vec<Value> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["score", "--profile", profile])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolspec runs");
    let mut input = String::new();
    for l in lines {
        input.push_str(&l.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    let got: Vec<Value> = text
        .split('\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(got.len(), lines.len(), "one output line per case: {text}");
    got
}

/// A DeepEval tool list `[{"name": ...}]` of `names`.
pub(crate) fn tools(names: impl Iterator<Item = String>) -> Value {
    Value::Array(names.map(|n| serde_json::json!({ "name": n })).collect())
}
