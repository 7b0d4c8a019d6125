//! Inspect AI `.eval` logs: a zip archive of JSON entries (`header.json`, `samples/<id>_epoch_<n>.json`,
//! `summaries.json`, `reductions.json`, `_journal/…`). Each `samples/…json` entry is one sample,
//! read by the same rules as a sample of the JSON log ([`readers::inspect_ai::read_sample`]):
//! one transcript per sample, in the archive's order. Only `header.json` (to know the archive
//! is an Inspect log) and the sample entries are inflated; the journal, summaries and
//! reductions are never read, and no name from the archive touches the filesystem.
//!
//! A zip is hostile input: at most [`MAX_ENTRIES`] entries, each inflated to at most
//! [`MAX_ENTRY`] bytes and all of them to at most [`MAX_TOTAL`] bytes, counting the bytes
//! actually inflated (the sizes an archive declares can lie), and each parsed within
//! [`PARSED_BUDGET`] (64 KiB compressed can inflate to 64 MiB of small objects, which serde_json
//! would build into 2–4 GB of values). One entry is held at a time: its text is dropped once
//! parsed, its value once read. Encrypted entries and compression methods other than stored,
//! deflate and zstd are refused. Past a bound, or on a damaged archive, a located error.

use std::borrow::Cow;
use std::io::Read;

use ::zip::{CompressionMethod, ZipArchive};

use crate::json::budget::{self, Refusal};
use crate::source::Span;

use super::driver::{detection_failed, transcript};
use super::error::Locator;
use super::readers::inspect_ai;
use super::sink::Sink;
use super::spans::SpanTree;
use super::{Format, Keep, ReadError, RecordLoc, Transcript, PARSED_BUDGET};

/// Most entries an archive may list.
pub(crate) const MAX_ENTRIES: usize = 100_000;
/// Most bytes one entry may inflate to.
pub(crate) const MAX_ENTRY: u64 = 64 << 20;
/// Most bytes all the entries read may inflate to, together.
pub(crate) const MAX_TOTAL: u64 = 512 << 20;

/// The local file header signature every zip archive starts with.
const MAGIC: &[u8] = b"PK\x03\x04";

const HELP: &str = "pass an Inspect AI `.eval` log as written by `inspect eval`, or convert it with `inspect log convert --to json`";

/// Whether `bytes` start like a zip archive.
pub(crate) fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Which entries of an archive are read.
#[derive(PartialEq)]
enum Entry {
    Header,
    Sample,
    Other,
}

fn kind(name: &[u8]) -> Entry {
    if name == b"header.json" {
        Entry::Header
    } else if name.starts_with(b"samples/") && name.ends_with(b".json") {
        Entry::Sample
    } else {
        Entry::Other
    }
}

/// Read a zip archive held in memory as an Inspect AI `.eval` log.
pub(crate) fn read(
    name: &str,
    bytes: &[u8],
    forced: Option<Format>,
    keep: &Keep,
    emit: &mut impl FnMut(Transcript),
) -> Result<(), ReadError> {
    let loc = Locator {
        name,
        text: bytes,
        base: 0,
        first_line: 1,
    };
    let err = |at: u64, msg: String| loc.wrong_shape(clamp(at, bytes), msg, HELP);
    if let Some(f) = forced.filter(|f| *f != Format::InspectAi) {
        return Err(err(
            0,
            format!("not a {f} transcript: the file is a zip archive"),
        ));
    }
    let mut zip = ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| err(0, format!("a zip archive that cannot be read: {e}")))?;
    if zip.len() > MAX_ENTRIES {
        return Err(err(
            zip.central_directory_start(),
            format!(
                "the zip archive lists {} entries, more than the {MAX_ENTRIES} toolspec reads",
                zip.len()
            ),
        ));
    }
    let names: Vec<Vec<u8>> = zip.file_names_raw().map(<[u8]>::to_vec).collect();
    let kinds: Vec<Entry> = names.iter().map(|n| kind(n)).collect();
    if !kinds.iter().any(|k| *k != Entry::Other) {
        if forced.is_some() {
            return Err(err(
                0,
                "not an Inspect AI `.eval` log: the zip archive has no `header.json` and no `samples/…json` entry".into(),
            ));
        }
        let listed: Vec<String> = names
            .iter()
            .take(5)
            .map(|n| format!("`{}`", String::from_utf8_lossy(n).escape_debug()))
            .collect();
        return Err(detection_failed(
            name,
            format!(
                "a zip archive without `header.json` or `samples/…json` entries (it holds {}{}), not an Inspect AI `.eval` log",
                listed.join(", "),
                if zip.len() > 5 { ", …" } else { "" }
            ),
        ));
    }
    // A re-logged sample appends a second entry of the same name; Inspect reads the last.
    let mut last = std::collections::HashMap::new();
    for (i, n) in names.iter().enumerate() {
        last.insert(&n[..], i);
    }
    // One sample reads as the JSON log of one sample does: one transcript, not a record of one.
    let samples = last
        .iter()
        .filter(|(n, _)| kind(n) == Entry::Sample)
        .count();
    let mut total = 0u64;
    for (i, k) in kinds.iter().enumerate() {
        if *k == Entry::Other || last.get(&names[i][..]) != Some(&i) {
            continue;
        }
        let (entry_name, span, text) = inflate(&mut zip, i, &mut total, bytes, &err)?;
        let entry_err =
            |msg: String| err(span.start as u64, format!("entry `{entry_name}`: {msg}"));
        // Within the budget of one parsed value, as a file's document is: the text's size
        // alone (64 MiB) would let an entry of small objects take 36 times that.
        let v = budget::from_slice(&text, PARSED_BUDGET).map_err(|e| match e {
            Refusal::Json(e) => entry_err(format!("invalid JSON: {e}")),
            Refusal::TooLarge { .. } => too_large(&loc, span, &entry_name, text.len()),
        })?;
        drop(text);
        if *k == Entry::Header {
            if !v.get("eval").is_some_and(serde_json::Value::is_object) {
                return Err(entry_err(
                    "not an Inspect AI log header (no `eval` object)".into(),
                ));
            }
            continue;
        }
        if !v.is_object() {
            return Err(entry_err("a sample entry that is not a JSON object".into()));
        }
        let mut sink = Sink::keeping(keep);
        inspect_ai::read_sample(&v, &[], &mut sink);
        // Paths inside an entry have no place in the archive's bytes: every call and finding
        // of a sample is located at its entry.
        if let Some(depth) = sink.path_depth() {
            sink.resolve_with(&SpanTree::build(b"", depth), 0, span);
        }
        emit(transcript(
            Format::InspectAi,
            (samples > 1).then_some(RecordLoc { line: 1, span }),
            sink,
        ));
    }
    Ok(())
}

/// Entry `i`'s name, its span in the archive and its inflated bytes, within the bounds.
fn inflate(
    zip: &mut ZipArchive<std::io::Cursor<&[u8]>>,
    i: usize,
    total: &mut u64,
    bytes: &[u8],
    err: &impl Fn(u64, String) -> ReadError,
) -> Result<(String, Span, Vec<u8>), ReadError> {
    let damaged = |at: u64, e: &dyn std::fmt::Display| err(at, format!("a damaged zip entry: {e}"));
    let (name, start, end, method) = {
        let raw = zip.by_index_raw(i).map_err(|e| damaged(0, &e))?;
        let start = raw.header_start();
        let name: Cow<'_, str> = String::from_utf8_lossy(raw.name_raw());
        let name = name.escape_debug().to_string();
        if raw.encrypted() {
            return Err(err(
                start,
                format!("entry `{name}` is encrypted; toolspec reads no encrypted archive"),
            ));
        }
        let end = raw.data_start().unwrap_or(start) + raw.compressed_size();
        (name, start, end, raw.compression())
    };
    let span = Span::new(
        clamp(start, bytes),
        clamp(end, bytes).max(clamp(start, bytes)),
    );
    let left = MAX_ENTRY.min(MAX_TOTAL - *total);
    let mut out = Vec::new();
    let read = match method {
        CompressionMethod::Stored | CompressionMethod::Deflated => {
            let f = zip.by_index(i).map_err(|e| damaged(start, &e))?;
            f.take(left + 1).read_to_end(&mut out).map(|_| ())
        }
        m if m == CompressionMethod::ZSTD => {
            let mut compressed = Vec::new();
            let mut raw = zip.by_index_raw(i).map_err(|e| damaged(start, &e))?;
            raw.read_to_end(&mut compressed).map_err(|e| damaged(start, &e))?;
            zstd(&compressed, left + 1, &mut out)
        }
        m => {
            return Err(err(
                start,
                format!("entry `{name}` is compressed with {m:?}; toolspec reads stored, deflate and zstd entries"),
            ))
        }
    };
    read.map_err(|e| damaged(start, &e))?;
    let n = out.len() as u64;
    if n > left {
        let what = if left == MAX_ENTRY {
            format!("entry `{name}` inflates to more than {} MiB, the most toolspec inflates one entry to", MAX_ENTRY >> 20)
        } else {
            format!("the entries read inflate to more than {} MiB, the most toolspec inflates an archive to", MAX_TOTAL >> 20)
        };
        return Err(err(start, what));
    }
    *total += n;
    Ok((name, span, out))
}

/// Inflate zstd frames (Inspect writes several per entry) into `out`, at most `limit` bytes.
fn zstd(mut input: &[u8], limit: u64, out: &mut Vec<u8>) -> std::io::Result<()> {
    while !input.is_empty() && (out.len() as u64) < limit {
        let dec = ruzstd::decoding::StreamingDecoder::new(&mut input)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
        let room = limit - out.len() as u64;
        dec.take(room).read_to_end(out)?;
    }
    Ok(())
}

/// Entry `name` (at `span` of the archive, `len` bytes inflated) would take more than
/// [`PARSED_BUDGET`] once parsed.
fn too_large(loc: &Locator<'_>, span: Span, name: &str, len: usize) -> ReadError {
    let (line, col) = loc.line_col(span.start);
    ReadError::ValueTooLarge {
        file: loc.name.to_owned(),
        line,
        col,
        message: format!(
            "entry `{name}` takes more than {} MiB of memory once parsed ({len} bytes of JSON inflated), the most toolspec gives one document, line or archive entry",
            PARSED_BUDGET >> 20
        ),
        help: HELP.to_owned(),
        span: span.into(),
    }
}

fn clamp(at: u64, bytes: &[u8]) -> usize {
    usize::try_from(at).unwrap_or(usize::MAX).min(bytes.len())
}
