//! A JSON document given as a value (`transcript::Document`: what the Python module reads
//! Python objects into) reads as its text does: every single-document transcript among the
//! format fixtures and the bundled examples gives the same transcripts, findings and spans
//! through `Reader::read_document_with` as through `Reader::read` of the document's text, with
//! a format forced or detected; and a spec set checks it as it checks those bytes. Left
//! unplaced (`Keep::unplaced`, for the verdicts alone), it reads the same calls with empty spans.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolspec::check::run::{Given, SpecSet};
use toolspec::check::settings::LoadedSettings;
use toolspec::report::stream::Verdicts;
use toolspec::transcript::{Document, Reader};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The JSON documents (not JSON lines) under `dir`, as values.
fn documents(dir: &Path) -> Vec<(PathBuf, Value)> {
    super::tree::files(dir)
        .into_iter()
        .filter_map(|p| {
            let v: Value = serde_json::from_slice(&std::fs::read(&p).ok()?).ok()?;
            matches!(v, Value::Object(_) | Value::Array(_)).then_some((p, v))
        })
        .collect()
}

#[test]
fn a_document_reads_as_its_text() {
    let root = root();
    let mut docs = documents(&root.join("tests/fixtures/formats/transcripts"));
    docs.extend(documents(&root.join("examples/runs")));
    assert!(docs.len() >= 20, "{} documents", docs.len());
    let mut read = 0;
    for (path, value) in docs {
        let doc = Document::new(value);
        let by_text = Reader::new().read("t.json", doc.text());
        let mut by_value = Vec::new();
        let got = Reader::new().read_document_with("t.json", &doc, |t| by_value.push(t));
        match by_text {
            Ok(ts) => {
                got.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(by_value, ts, "{}", path.display());
                // Forced to the format it was detected as: the same again.
                let format = ts[0].format;
                let forced = Reader::new().format(format).read("t.json", doc.text());
                let mut by_value = Vec::new();
                Reader::new()
                    .format(format)
                    .read_document_with("t.json", &doc, |t| by_value.push(t))
                    .unwrap();
                assert_eq!(by_value, forced.unwrap(), "{}", path.display());
                read += 1;
            }
            Err(e) => assert_eq!(
                got.unwrap_err().to_string(),
                e.to_string(),
                "{}",
                path.display()
            ),
        }
    }
    assert!(read >= 20, "{read} read");
}

#[test]
fn a_spec_set_checks_a_document_as_its_bytes() {
    let root = root();
    let settings = LoadedSettings::defaults(&root);
    let spec = root.join("examples/prompts/refund.toolspec");
    let set = SpecSet::compile(&spec, None, &settings, &root, false).unwrap();
    let mut checked = 0;
    for (path, value) in documents(&root.join("examples/runs/refund")) {
        let doc = Document::new(value);
        let by_bytes = set.check(Given::Bytes(doc.text()), None);
        let by_value = set.check(Given::Document(&doc), None);
        assert_eq!(by_value, by_bytes, "{}", path.display());
        // The verdicts alone (the text never written): the counts of the full check.
        let fresh = Document::new(doc.value().clone());
        let quick = set.check_with(Given::Document(&fresh), None, &Verdicts);
        let mut head = by_bytes.clone();
        head.results = Vec::new();
        assert_eq!(quick.report, head, "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 3, "{checked} checked");
}

#[test]
fn a_bare_value_is_not_a_document() {
    for v in [Value::from("runs/a.json"), Value::from(3), Value::Null] {
        let doc = Document::new(v);
        let by_text = Reader::new().read("t.json", doc.text()).unwrap_err();
        let by_value = Reader::new()
            .read_document_with("t.json", &doc, |_| {})
            .unwrap_err();
        assert_eq!(by_value.to_string(), by_text.to_string());
    }
}

#[test]
fn an_unplaced_document_reads_alike_without_its_spans() {
    use toolspec::source::Span;
    use toolspec::transcript::Keep;
    let unplaced = Keep {
        unplaced: true,
        ..Keep::default()
    };
    for (path, value) in documents(&root().join("examples/runs")) {
        let doc = Document::new(value);
        let Ok(mut placed) = Reader::new().read("t.json", doc.text()) else {
            continue;
        };
        let mut got = Vec::new();
        Reader::new()
            .keep(unplaced.clone())
            .read_document_with("t.json", &doc, |t| got.push(t))
            .unwrap();
        for t in &mut placed {
            for c in &mut t.calls {
                c.span = Span::default();
            }
            for f in &mut t.findings {
                f.span = Span::default();
            }
        }
        assert_eq!(got, placed, "{}", path.display());
    }
}
