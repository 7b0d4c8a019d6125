//! Data-driven: every transcript of the corpus (synthetic, real, and our own variant fixtures)
//! read with format detection must give exactly its truth file's calls.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolspec::transcript::{Reader, Transcript};

/// (transcript, truth) pairs under `root/<transcripts>/<format>/` and `root/<truth>/<format>/`.
fn pairs(root: &Path, transcripts: &str, truth: &str) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let Ok(formats) = std::fs::read_dir(root.join(transcripts)) else {
        return out;
    };
    for fmt in formats.flatten() {
        if !fmt.path().is_dir() || fmt.file_name() == "truth" {
            continue;
        }
        for f in std::fs::read_dir(fmt.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().to_string();
            if name.ends_with(".truth.json") || name.ends_with(".md") {
                continue;
            }
            let t = root
                .join(truth)
                .join(fmt.file_name())
                .join(format!("{name}.truth.json"));
            out.push((f.path(), t));
        }
    }
    out.sort();
    out
}

/// The calls in the truth files' shape: the `turn`, `agent` and `namespace` a reader records
/// besides (`docs/formats.md`) are not part of the truth files.
fn calls_json(ts: &[Transcript]) -> Value {
    let calls: Vec<_> = ts
        .iter()
        .flat_map(|t| t.calls.iter())
        .map(|c| toolspec::transcript::ToolCall {
            turn: None,
            agent: None,
            namespace: None,
            ..c.clone()
        })
        .collect();
    serde_json::to_value(calls).unwrap()
}

fn check(root: &Path, transcripts: &str, truth: &str) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let all = pairs(root, transcripts, truth);
    for (file, truth_file) in &all {
        let expected: Value = if let Ok(b) = std::fs::read(truth_file) {
            serde_json::from_slice(&b).unwrap()
        } else {
            failures.push(format!(
                "{}: no truth file {}",
                file.display(),
                truth_file.display()
            ));
            continue;
        };
        let fmt_dir = file
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace('_', "-");
        match Reader::new().read_file(file) {
            Err(e) => failures.push(format!("{}: read error: {e}", file.display())),
            Ok(ts) => {
                let got = calls_json(&ts);
                if ts.iter().any(|t| t.format.to_string() != fmt_dir) {
                    failures.push(format!(
                        "{}: detected as {} (folder says {fmt_dir})",
                        file.display(),
                        ts[0].format
                    ));
                }
                if got != expected {
                    let (g, e) = (got.as_array().unwrap(), expected.as_array().unwrap());
                    let mut detail = format!("{} calls, expected {}", g.len(), e.len());
                    if let Some(i) = (0..g.len().min(e.len())).find(|&i| g[i] != e[i]) {
                        detail.push_str(&format!(
                            "; first difference at call {i}:\n    got      {}\n    expected {}",
                            g[i], e[i]
                        ));
                    } else if g.len() != e.len() {
                        let extra = if g.len() > e.len() {
                            &g[e.len()]
                        } else {
                            &e[g.len()]
                        };
                        detail.push_str(&format!("; first extra/missing: {extra}"));
                    }
                    failures.push(format!("{}: {detail}", file.display()));
                }
                let mut streamed = Vec::new();
                let bytes = std::fs::read(file).unwrap();
                match toolspec::transcript::Reader::new()
                    .read_stream("f", &bytes[..], |t| streamed.push(t))
                {
                    Ok(()) if calls_json(&streamed) == got => {}
                    Ok(()) => failures.push(format!("{}: streamed read differs", file.display())),
                    Err(e) => {
                        failures.push(format!("{}: streamed read failed: {e}", file.display()));
                    }
                }
                for t in &ts {
                    for c in &t.calls {
                        assert!(
                            c.span.end > c.span.start || c.span.end == 0,
                            "{}: empty span",
                            file.display()
                        );
                    }
                }
            }
        }
    }
    (all.len(), failures)
}

#[test]
fn every_corpus_transcript_matches_its_truth() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut failures = Vec::new();
    let mut total = 0;
    for (dir, t, g) in [
        ("corpus", "transcripts", "truth"),
        ("corpus/real", ".", "truth"),
        ("formats", "transcripts", "truth"),
    ] {
        let (n, f) = check(&root.join(dir), t, g);
        total += n;
        failures.extend(f);
    }
    if let Ok(extra) = std::env::var("TOOLSPEC_EXTRA_CORPUS") {
        let (n, f) = check(Path::new(&extra), "transcripts", "truth");
        total += n;
        failures.extend(f);
    }
    eprintln!("checked {total} transcripts");
    assert!(
        total >= 56,
        "expected the whole corpus, found {total} transcripts"
    );
    assert!(
        failures.is_empty(),
        "{} of {total} transcripts differ from truth:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// docs/formats.md maps every FORMATS.md variant to its fixtures: each path it names exists,
/// and every fixture of our own (`formats/`) and every dataset is listed, so a new one gets a row.
#[test]
fn every_variant_row_names_existing_fixtures_and_every_own_fixture_has_a_row() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/formats.md")).unwrap();
    let section = doc
        .split("## Fixtures per variant")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("docs/formats.md has a `Fixtures per variant` section");
    let named: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("| "))
        .flat_map(|l| l.rsplit('|').nth(1).unwrap_or("").split('`'))
        .filter(|p| p.contains('/') && p.contains('.'))
        .collect();
    assert!(named.len() >= 60, "{} fixtures named", named.len());
    let fixtures = root.join("tests/fixtures");
    let missing: Vec<_> = named
        .iter()
        .filter(|p| !fixtures.join(p).is_file())
        .collect();
    assert!(missing.is_empty(), "named but missing: {missing:?}");
    let mut own: Vec<String> = Vec::new();
    for (dir, skip) in [("formats/transcripts", ""), ("datasets", ".truth.jsonl")] {
        for f in walk(&fixtures.join(dir)) {
            let rel = f
                .strip_prefix(&fixtures)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if skip.is_empty() || !rel.ends_with(skip) {
                own.push(rel);
            }
        }
    }
    let unlisted: Vec<_> = own
        .iter()
        .filter(|f| !named.contains(&f.as_str()))
        .collect();
    assert!(unlisted.is_empty(), "fixtures without a row: {unlisted:?}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}
