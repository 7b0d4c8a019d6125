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
    all.extend(pairs(&root.join("corpus/real"), &root.join("corpus/real/truth")));
    all.extend(pairs(&root.join("formats/transcripts"), &root.join("formats/truth")));
    assert!(all.len() >= 80, "the fixtures are all there ({})", all.len());
    let mut failures = Vec::new();
    for (file, truth) in &all {
        let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
            .args(["calls", "--json"])
            .arg(file)
            .output()
            .unwrap();
        let expected: Value = serde_json::from_slice(&std::fs::read(truth).unwrap()).unwrap();
        match serde_json::from_slice::<Value>(&out.stdout) {
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
