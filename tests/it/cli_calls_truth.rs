//! `toolspec calls --json FILE` prints exactly the truth file of every transcript of the corpus
//! (synthetic, real-world and our own variant fixtures): the user-facing path of the readers.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// (transcript, truth) pairs: `<root>/<transcripts>/<format>/<name>` and
/// `<root>/<truth>/<format>/<name>.truth.json`.
fn pairs(transcripts: &Path, truth: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for format in std::fs::read_dir(transcripts).unwrap().flatten() {
        if !format.path().is_dir() || format.file_name() == "truth" {
            continue;
        }
        for f in std::fs::read_dir(format.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") || name.ends_with(".truth.json") {
                continue;
            }
            let t = truth
                .join(format.file_name())
                .join(format!("{name}.truth.json"));
            out.push((f.path(), t));
        }
    }
    out.sort();
    out
}

#[test]
fn calls_json_equals_every_truth_file() {
    let root = Path::new("tests/fixtures");
    let mut all = pairs(&root.join("corpus/transcripts"), &root.join("corpus/truth"));
    all.extend(pairs(
        &root.join("corpus/real"),
        &root.join("corpus/real/truth"),
    ));
    all.extend(pairs(
        &root.join("formats/transcripts"),
        &root.join("formats/truth"),
    ));
    assert!(
        all.len() >= 80,
        "the fixtures are all there ({})",
        all.len()
    );
    let mut failures = Vec::new();
    for (file, truth) in &all {
        let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
            .args(["calls", "--json"])
            .arg(file)
            .output()
            .unwrap();
        let expected: Value = serde_json::from_slice(&std::fs::read(truth).unwrap()).unwrap();
        match serde_json::from_slice::<Value>(&out.stdout).map(truth_shape) {
            Ok(got) if got == expected && out.status.success() => {}
            Ok(_) => failures.push(format!("{}: differs from its truth file", file.display())),
            Err(e) => failures.push(format!(
                "{}: no JSON ({e}); stderr: {}",
                file.display(),
                String::from_utf8_lossy(&out.stderr)
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The calls in the truth files' shape `{name, args, id, output, is_error}`: the `turn`,
/// `agent` and `namespace` (MCP server) a reader records besides (`docs/formats.md`) are not
/// part of the truth files.
fn truth_shape(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Array(items) => items.iter_mut().for_each(strip),
            Value::Object(call) => {
                call.remove("turn");
                call.remove("agent");
                call.remove("namespace");
            }
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// JSONL datasets (one transcript per line: fine-tuning files, batch inputs, bundles):
/// `calls --json` prints one truth array per line, equal to `<name>.truth.jsonl` line by line.
#[test]
fn calls_json_of_a_dataset_is_one_truth_array_per_line() {
    let dir = Path::new("tests/fixtures/datasets");
    let mut checked = 0;
    let mut failures = Vec::new();
    for f in std::fs::read_dir(dir).unwrap().flatten() {
        let name = f.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".jsonl") else {
            continue;
        };
        if stem.ends_with(".truth") {
            continue;
        }
        let truth: Vec<Value> = std::fs::read_to_string(dir.join(format!("{stem}.truth.jsonl")))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
            .args(["calls", "--json"])
            .arg(f.path())
            .output()
            .unwrap();
        let got: Value = serde_json::from_slice(&out.stdout).map_or(Value::Null, truth_shape);
        if !out.status.success() || got != Value::Array(truth) {
            failures.push(format!(
                "{name}: differs from {stem}.truth.jsonl; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        checked += 1;
    }
    assert!(checked >= 2, "the dataset fixtures are there ({checked})");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
