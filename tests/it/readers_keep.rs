//! What a reader leaves out when told that no output is needed (`Keep::no_outputs`, set by the
//! check runner when no spec looks at outputs): for every transcript in the fixtures, in every
//! format, the calls, declared tools and findings are those of a full read, with every output
//! `None`; and with filters that pass every call, they are exactly those of a full read. Under
//! a restricted `Keep`, Claude Code lines are parsed without building what the reader never
//! reads (`transcript::readers::claude_code`), so this pins that this parse changes nothing
//! else.
//!
//! And the compact form (`Keep::compact`, what `check` reads): for every file, every
//! transcript's `CallTable` gives back the calls of the full read (without ids), under the same
//! filters.

use std::path::{Path, PathBuf};

use toolspec::transcript::{Keep, Reader, Transcript};

/// The transcripts under `dir` (not their truth files).
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    out.extend(super::tree::files(dir).into_iter().filter(|p| {
        !p.to_string_lossy().ends_with(".truth.json")
            && p.extension()
                .is_some_and(|x| x == "json" || x == "jsonl" || x == "log")
    }));
}

fn read(path: &Path, keep: &Keep) -> Result<Vec<Transcript>, String> {
    let bytes = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    Reader::new()
        .keep(keep.clone())
        .read_with(&path.display().to_string(), &bytes, |t| out.push(t))
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[test]
fn without_outputs_everything_but_the_outputs_is_read_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut all = Vec::new();
    for sub in ["corpus", "formats"] {
        files(&root.join(sub), &mut all);
    }
    all.sort();
    let no_outputs = Keep {
        no_outputs: true,
        ..Keep::default()
    };
    // Filters that pass every name: nothing is left out, but the reader may prune what it never
    // reads, so this read must equal the full one exactly.
    let everything: toolspec::transcript::NameFilter = std::sync::Arc::new(|_: &str| true);
    let filtered = Keep {
        args: Some(everything.clone()),
        outputs: Some(everything),
        no_outputs: false,
        compact: None,
        unplaced: false,
    };
    let (mut compared, mut sessions) = (0, 0);
    for path in &all {
        let full = read(path, &Keep::default());
        assert_eq!(
            read(path, &filtered),
            full,
            "{}: a read with filters that pass everything differs",
            path.display()
        );
        let lean = read(path, &no_outputs);
        let (full, lean) = match (full, lean) {
            (Ok(f), Ok(l)) => (f, l),
            (Err(f), Err(l)) => {
                assert_eq!(f, l, "{}: different errors", path.display());
                continue;
            }
            (f, l) => panic!("{}: {f:?} vs {l:?}", path.display()),
        };
        let mut expected = full.clone();
        for t in &mut expected {
            for c in &mut t.calls {
                c.output = None;
            }
        }
        assert_eq!(lean, expected, "{}", path.display());
        assert!(lean
            .iter()
            .flat_map(|t| &t.calls)
            .all(|c| c.output.is_none()));
        compared += 1;
        if path.to_string_lossy().contains("claude_code") {
            sessions += 1;
        }
    }
    assert!(compared > 100, "only {compared} transcripts compared");
    assert!(
        sessions >= 7,
        "only {sessions} Claude Code sessions compared"
    );
}

#[test]
fn compact_calls_are_the_full_calls_without_ids() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut all = Vec::new();
    for sub in ["corpus", "formats"] {
        files(&root.join(sub), &mut all);
    }
    all.sort();
    let some: toolspec::transcript::NameFilter =
        std::sync::Arc::new(|n: &str| n.len().is_multiple_of(2) || n.starts_with('R'));
    let mut compared = 0;
    for (keep, filtered) in [
        (Keep::default(), false),
        (
            Keep {
                args: Some(some.clone()),
                outputs: Some(some.clone()),
                ..Keep::default()
            },
            true,
        ),
    ] {
        let compact = Keep {
            compact: Some(0),
            ..keep.clone()
        };
        // Made compact part-way through (after three calls): the same table.
        let later = Keep {
            compact: Some(3),
            ..keep.clone()
        };
        for path in &all {
            let (full, small) = match (read(path, &keep), read(path, &compact)) {
                (Ok(f), Ok(s)) => (f, s),
                (Err(f), Err(s)) => {
                    assert_eq!(f, s, "{}: different errors", path.display());
                    continue;
                }
                (f, s) => panic!("{}: {f:?} vs {s:?}", path.display()),
            };
            assert_eq!(full.len(), small.len(), "{}", path.display());
            let part_way = read(path, &later).unwrap();
            for (p, s) in part_way.iter().zip(&small) {
                if s.compact.as_ref().is_some_and(|t| t.len() > 3) {
                    assert_eq!(p.compact, s.compact, "{}", path.display());
                } else {
                    assert_eq!(p.compact, None);
                }
            }
            for (f, s) in full.into_iter().zip(small) {
                let table = s.compact.clone().expect("a compact read gives a table");
                assert!(s.calls.is_empty());
                let mut want = f.calls.clone();
                for c in &mut want {
                    c.id = None;
                }
                assert_eq!(
                    table.to_calls(),
                    want,
                    "{} (filtered: {filtered})",
                    path.display()
                );
                assert_eq!(table.len(), f.calls.len());
                assert_eq!(
                    (s.format, s.record, &s.tools, &s.findings),
                    (f.format, f.record, &f.tools, &f.findings),
                    "{}",
                    path.display()
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 200, "only {compared} transcripts compared");
}
