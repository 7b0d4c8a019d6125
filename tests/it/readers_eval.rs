//! Inspect AI `.eval` logs (zip archives): detected by their bytes as `inspect-ai` and nothing
//! else, each sample entry read by the JSON log's sample rules, and a hostile archive stopped at
//! its bounds with a located error.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use toolspec::transcript::{Format, ReadError, Reader, Transcript};

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

fn calls(ts: &[Transcript]) -> Vec<Value> {
    ts.iter()
        .flat_map(|t| &t.calls)
        .map(|c| {
            json!({"name": c.name, "args": c.args, "id": c.id, "output": c.output, "is_error": c.is_error})
        })
        .collect()
}

fn read_err(path: &Path, format: Option<Format>) -> ReadError {
    Reader::new().format(format).read_file(path).unwrap_err()
}

/// Both `.eval` fixtures (a deflate archive from inspect_ai's tests, a zstd archive written by
/// inspect-ai 0.3.285) are detected as `inspect-ai`, with no other format's marks, calls
/// located at their sample's entry; forced to any other format, a zip is a
/// `wrong-shape` error, not a misread.
#[test]
fn eval_archives_are_detected_as_inspect_logs_and_nothing_else() {
    for (name, samples, n) in [
        ("formats/transcripts/inspect_ai/mockllm-add.eval", 1, 2),
        (
            "wild/inspect_ai/inspect-ai-message-deduplication.eval",
            1,
            5,
        ),
    ] {
        let path = fixture(name);
        let bytes = std::fs::read(&path).unwrap();
        let ts = Reader::new().read_file(&path).unwrap();
        assert_eq!(ts.len(), samples, "{name}");
        assert_eq!(calls(&ts).len(), n, "{name}");
        for t in &ts {
            assert_eq!(t.format, Format::InspectAi, "{name}");
            assert!(t.findings.is_empty(), "{name}: {:?}", t.findings);
            // One sample: one transcript, as a JSON log of one sample reads; its calls are
            // located at the sample's entry.
            assert!(t.record.is_none());
            let at = t.calls[0].span;
            assert!(bytes[at.start..].starts_with(b"PK\x03\x04"));
            assert!(t.calls.iter().all(|c| c.span == at));
        }
        for other in Format::ALL.iter().filter(|f| **f != Format::InspectAi) {
            let e = read_err(&path, Some(*other));
            assert_eq!(e.code(), "wrong-shape", "{name} as {other}");
            assert!(e.to_string().contains("zip archive"), "{e}");
        }
        let forced = Reader::new()
            .format(Format::InspectAi)
            .read_file(&path)
            .unwrap();
        assert_eq!(calls(&forced), calls(&ts));
    }
}

/// A `.eval` log and its `inspect log convert --to json` form give the same calls.
#[test]
fn an_eval_archive_reads_as_its_json_log() {
    let zip = Reader::new()
        .read_file(&fixture("formats/transcripts/inspect_ai/mockllm-add.eval"))
        .unwrap();
    let json = Reader::new()
        .read_file(&fixture(
            "formats/transcripts/inspect_ai/mockllm-add.eval-log.json",
        ))
        .unwrap();
    assert_eq!(calls(&zip), calls(&json));
    assert_eq!(
        calls(&zip)
            .iter()
            .map(|c| (c["name"].clone(), c["args"].clone(), c["output"].clone()))
            .collect::<Vec<_>>(),
        [
            (json!("add"), json!({"x": 1, "y": 2}), json!("3")),
            (json!("add"), json!({"x": 3, "y": 4}), json!("7")),
        ]
    );
}

/// A zip that is not an Inspect log is `unknown-format` naming its entries; forced to
/// `inspect-ai`, `wrong-shape`. Bytes that start like a zip and are not one are `wrong-shape`.
#[test]
fn other_zips_are_located_errors() {
    let path = fixture("zip/not-inspect.zip");
    let e = read_err(&path, None);
    assert_eq!(e.code(), "unknown-format");
    assert!(e.to_string().contains("`README.txt`, `data/a.json`"), "{e}");
    assert_eq!(
        read_err(&path, Some(Format::InspectAi)).code(),
        "wrong-shape"
    );
    let e = Reader::new()
        .read("x.eval", b"PK\x03\x04 not really a zip")
        .unwrap_err();
    assert_eq!(e.code(), "wrong-shape");
    assert!(e.to_string().contains("cannot be read"), "{e}");
}

/// A zip bomb: a 72 KB archive whose sample entry inflates to 70 MiB stops at the 64 MiB an
/// entry may inflate to; the same archive declaring a 2-byte entry is refused as damaged
/// (the bytes inflated are counted, not the sizes declared). Streamed (standard input), the same.
#[test]
fn a_zip_bomb_stops_at_the_entry_bound() {
    let bomb = fixture("zip/bomb.eval");
    assert!(std::fs::metadata(&bomb).unwrap().len() < 100_000);
    let e = read_err(&bomb, None);
    assert_eq!(e.code(), "wrong-shape");
    assert!(
        e.to_string()
            .contains("entry `samples/1_epoch_1.json` inflates to more than 64 MiB"),
        "{e}"
    );
    let bytes = std::fs::read(&bomb).unwrap();
    let e = Reader::new()
        .read_stream("-", &bytes[..], |_| {})
        .unwrap_err();
    assert!(
        e.to_string().contains("inflates to more than 64 MiB"),
        "{e}"
    );
    let e = read_err(&fixture("zip/bomb-lying-size.eval"), None);
    assert_eq!(e.code(), "wrong-shape");
    assert!(e.to_string().contains("damaged zip entry"), "{e}");
}

/// An archive of several samples (inspect_ai's `log_streaming.eval`: 2 samples × 2 epochs) gives
/// one transcript per sample entry, in the archive's order, each located at its own entry.
#[test]
fn several_samples_are_several_transcripts() {
    let path = fixture("zip/inspect-ai-log-streaming.eval");
    let bytes = std::fs::read(&path).unwrap();
    let ts = Reader::new().read_file(&path).unwrap();
    assert_eq!(ts.len(), 4);
    let mut starts = Vec::new();
    for t in &ts {
        assert_eq!(t.format, Format::InspectAi);
        let r = t.record.unwrap();
        assert!(bytes[r.span.start..].starts_with(b"PK\x03\x04"));
        let name_len = usize::from(u16::from_le_bytes([
            bytes[r.span.start + 26],
            bytes[r.span.start + 27],
        ]));
        let name = &bytes[r.span.start + 30..r.span.start + 30 + name_len];
        starts.push(String::from_utf8(name.to_vec()).unwrap());
    }
    assert_eq!(
        starts,
        [
            "samples/2_epoch_2.json",
            "samples/2_epoch_1.json",
            "samples/1_epoch_1.json",
            "samples/1_epoch_2.json"
        ]
    );
}

/// A re-logged sample (a second entry of the same name) is read once, from its last entry, as
/// Inspect reads it; an encrypted entry is refused with a located error naming it.
#[test]
fn relogged_samples_read_once_and_encrypted_entries_are_refused() {
    let ts = Reader::new()
        .read_file(&fixture("zip/relogged-sample.eval"))
        .unwrap();
    assert_eq!(
        calls(&ts),
        [
            json!({"name": "bash", "args": {"cmd": "relogged"}, "id": "c1", "output": "ok", "is_error": false})
        ]
    );
    let e = read_err(&fixture("zip/encrypted-sample.eval"), None);
    assert_eq!(e.code(), "wrong-shape");
    assert!(
        e.to_string()
            .contains("entry `samples/1_epoch_1.json` is encrypted"),
        "{e}"
    );
}
