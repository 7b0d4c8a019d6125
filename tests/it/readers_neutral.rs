//! toolspec's own calls format (what `calls --json` prints): it is detected as itself and as
//! nothing else, it validates against `docs/schema/calls.schema.json`, and `calls --json` of
//! it gives it back, for every corpus transcript.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use toolspec::transcript::{Format, Reader};

/// `toolspec calls --json PATH` (the copy lies in a temporary folder, outside the project: the
/// test names it, as a user widening the root does).
fn calls_json(path: &Path) -> Option<Vec<u8>> {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args([
            "calls",
            "--json",
            "--color",
            "never",
            "--allow-outside-root",
        ])
        .arg(path)
        .output()
        .expect("run toolspec");
    out.status.success().then_some(out.stdout)
}

fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = [
        "tests/fixtures/corpus/transcripts",
        "tests/fixtures/corpus/real",
        "tests/fixtures/formats/transcripts",
        "tests/fixtures/wild",
    ]
    .iter()
    .map(PathBuf::from)
    .filter(|d| d.is_dir())
    .collect();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let skip = p.file_name().is_some_and(|n| n == "truth")
                || p.extension().is_some_and(|x| x == "md" || x == "py");
            if skip {
                continue;
            }
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn calls_json_round_trips_and_validates_for_every_corpus_transcript() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string("docs/schema/calls.schema.json").unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for file in corpus() {
        let Some(first) = calls_json(&file) else {
            continue; // a file the corpus keeps as unreadable
        };
        let value: Value = serde_json::from_slice(&first).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{}: {}",
            file.display(),
            errors.join("\n")
        );
        let copy = dir.path().join("calls.json");
        std::fs::write(&copy, &first).unwrap();
        let second = calls_json(&copy).unwrap_or_else(|| panic!("{}", file.display()));
        assert_eq!(
            String::from_utf8_lossy(&second),
            String::from_utf8_lossy(&first),
            "{}",
            file.display()
        );
        let ts = Reader::new().read("calls.json", &first).unwrap();
        assert!(ts.iter().all(|t| t.format == Format::ToolspecCalls));
        checked += 1;
    }
    assert!(checked > 50, "only {checked} corpus transcripts read");
}

#[test]
fn the_format_is_detected_as_itself_in_json_and_jsonl() {
    let calls = json!([
        {"name": "search", "args": {"q": "a"}, "id": "c1", "output": "found", "is_error": false},
        {"name": "apply_patch", "args": "{\"not\": \"decoded\"}", "id": null, "output": null, "is_error": true},
        {"name": "minimal", "args": null}
    ]);
    let ts = Reader::new()
        .read("c.json", &serde_json::to_vec(&calls).unwrap())
        .unwrap();
    assert_eq!(ts.len(), 1);
    let t = &ts[0];
    assert_eq!(t.format, Format::ToolspecCalls);
    assert!(t.findings.is_empty(), "{:?}", t.findings);
    assert_eq!(t.calls.len(), 3);
    assert_eq!(t.calls[0].output, Some(json!("found")));
    assert_eq!(t.calls[0].id.as_deref(), Some("c1"));
    // A string is kept as the string it was printed as.
    assert_eq!(t.calls[1].args, json!("{\"not\": \"decoded\"}"));
    assert!(t.calls[1].is_error);
    // JSON lines: one call per line is one transcript.
    let lines: String = calls
        .as_array()
        .unwrap()
        .iter()
        .fold(String::new(), |mut out, c| {
            out.push_str(&format!("{c}\n"));
            out
        });
    let jl = Reader::new().read("c.jsonl", lines.as_bytes()).unwrap();
    assert_eq!(jl.len(), 1);
    assert_eq!(jl[0].format, Format::ToolspecCalls);
    assert_eq!(
        jl[0].calls,
        t.calls
            .iter()
            .map(|c| {
                let mut c = c.clone();
                c.span = jl[0].calls.iter().find(|d| d.name == c.name).unwrap().span;
                c
            })
            .collect::<Vec<_>>()
    );
    // A dataset: an array of arrays, one transcript each (an empty one included).
    let ds = json!([[{"name": "a", "args": {}}], []]);
    let ts = Reader::new()
        .read("d.json", &serde_json::to_vec(&ds).unwrap())
        .unwrap();
    assert_eq!(ts.len(), 2);
    assert!(ts
        .iter()
        .all(|t| t.format == Format::ToolspecCalls && t.record.is_some()));
    assert_eq!((ts[0].calls.len(), ts[1].calls.len()), (1, 0));
    // JSON lines of arrays: a dataset, detected or forced alike.
    let jl = "[{\"name\": \"a\", \"args\": {}}]\n[{\"name\": \"b\", \"args\": {}}]\n";
    for forced in [None, Some(Format::ToolspecCalls)] {
        let ts = Reader::new()
            .format(forced)
            .read("d.jsonl", jl.as_bytes())
            .unwrap();
        let names: Vec<_> = ts.iter().map(|t| t.calls[0].name.as_str()).collect();
        assert_eq!(names, ["a", "b"], "{forced:?}");
        assert!(ts.iter().all(|t| t.record.is_some()));
    }
    // Forced, an item that is not a call is said, never skipped silently.
    let ts = Reader::new()
        .format(Some(Format::ToolspecCalls))
        .read("d.json", br#"[[{"name": "a", "args": {}}, 7]]"#)
        .unwrap();
    assert_eq!(ts[0].calls.len(), 1);
    assert_eq!(ts[0].findings[0].code, "unreadable-call");
    let e = Reader::new()
        .format(Some(Format::ToolspecCalls))
        .read("c.json", br#"[{"name": "a", "args": {}}, 7]"#)
        .unwrap_err();
    assert_eq!(e.code(), "wrong-shape");
    // A transcript with no calls.
    let t = Reader::new().read("e.json", b"[]").unwrap();
    assert_eq!((t[0].format, t[0].calls.len()), (Format::ToolspecCalls, 0));
}

#[test]
fn lookalikes_are_not_read_as_the_calls_format() {
    // One key more than a call has (LangChain tool calls carry `type`), Gemini function calls
    // inside parts, a DeepEval `tools_called` list: each stays what it is, or is not read.
    let langchain = json!([{"name": "f", "args": {}, "id": "1", "type": "tool_call"}]);
    let deepeval = json!({"tools_called": [{"name": "f", "input_parameters": {}}]});
    let gemini = json!([{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}]);
    let numeric_name = json!([{"name": 1, "args": {}}]);
    for (doc, want) in [
        (langchain, None),
        (deepeval, Some(Format::Deepeval)),
        (gemini, Some(Format::Gemini)),
        (numeric_name, None),
    ] {
        let got = Reader::new()
            .read("x.json", &serde_json::to_vec(&doc).unwrap())
            .ok()
            .map(|ts| ts[0].format);
        assert_ne!(got, Some(Format::ToolspecCalls), "{doc}");
        if want.is_some() {
            assert_eq!(got, want, "{doc}");
        }
    }
    // Every other format's corpus file stays itself (tests/it/readers_corpus.rs checks the
    // formats); here: none of them is read as the calls format.
    for file in corpus() {
        let bytes = std::fs::read(&file).unwrap();
        if let Ok(ts) = Reader::new().read(&file.display().to_string(), &bytes) {
            assert!(
                ts.iter().all(|t| t.format != Format::ToolspecCalls),
                "{}",
                file.display()
            );
        }
    }
}
