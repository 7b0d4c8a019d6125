//! The reading pipeline: a file's text checked ([`super::text`]), read as one JSON document
//! (or a document of several transcripts) or as JSON lines ([`super::jsonl`]), and finished
//! transcripts handed out.

use crate::code::Code;
use std::io::{BufRead, Read};

use serde_json::Value;

use crate::json::budget::{self, Refusal};
use crate::json::view::Json;

use crate::source::{LineIndex, Span};

use super::archive;
use super::detect;
use super::error::Locator;
use super::jsonl::Lines;
use super::readers;
use super::sink::{field, Sink};
use super::spans::{Seg, SpanTree};
use super::sse;
use super::text::{check_text, check_text_at, check_utf8_at, Line};
use super::{Format, Keep, ReadError, RecordLoc, Transcript, MAX_LINE, PARSED_BUDGET};

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Bytes checked for binary content and UTF-8 before a streamed file's first line is read.
const HEAD_CHECK: usize = 64 << 10;

const JSON_HELP: &str = "fix the JSON at this position (or re-export the transcript)";

const BIG_HELP: &str = "split the transcripts into smaller files (a JSON-lines file is read one line at a time), or keep large payloads (tool outputs, files) out of the log";

/// Read a whole file held in memory.
pub(crate) fn read_bytes(
    name: &str,
    bytes: &[u8],
    forced: Option<Format>,
    keep: &Keep,
    mut emit: impl FnMut(Transcript),
) -> Result<(), ReadError> {
    if archive::is_zip(bytes) {
        // Inspect AI `.eval` logs: a zip archive, told by its bytes, never by its name.
        return archive::read(name, bytes, forced, keep, &mut emit);
    }
    if let Some(rest) = bytes.strip_prefix(BOM) {
        // Windows tools often write a byte-order mark; blank it so offsets stay true.
        let mut owned = Vec::with_capacity(bytes.len());
        owned.extend_from_slice(b"   ");
        owned.extend_from_slice(rest);
        return read_bytes(name, &owned, forced, keep, emit);
    }
    check_text(name, bytes)?;
    let loc = Locator {
        name,
        text: bytes,
        base: 0,
        first_line: 1,
    };
    let first = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let Some(first) = first else {
        return Err(ReadError::Empty {
            file: name.to_string(),
        });
    };
    if matches!(bytes[first], b'{' | b'[') {
        match budget::from_slice(bytes, PARSED_BUDGET) {
            Ok(v) => {
                if super::har::is_har(&v) {
                    return super::har::read(name, bytes, &v, forced, keep, &mut emit);
                }
                if let Some(read) = read_capture(name, &|| bytes, &v, forced, keep, &mut emit) {
                    return read;
                }
                let read = |f: Format, sink: &mut Sink| readers::read_doc(f, &v, sink);
                return read_document(name, &|| bytes, &v, &|| &v, &read, forced, keep, &mut emit);
            }
            Err(Refusal::TooLarge { line, column }) => {
                let at = super::error::offset_of(bytes, line, column);
                return Err(loc.value_too_large("the file's JSON document", at, BIG_HELP));
            }
            Err(Refusal::Json(e)) if e.to_string().starts_with("trailing characters") => {}
            Err(Refusal::Json(e)) => {
                check_utf8_at(name, bytes, 0, 1)?;
                let help = if e.is_eof() {
                    "the file ends before the JSON document is complete: it was probably cut off while being written"
                } else {
                    JSON_HELP
                };
                return Err(loc.json_error(&e, help));
            }
        }
    }
    if !matches!(bytes[first], b'{' | b'[') {
        if let Some(read) = read_yaml(name, bytes, forced, keep, &mut emit) {
            return read;
        }
    }
    let mut lines = Lines::new(name, forced, keep, &mut emit);
    let first_line = &bytes[first..];
    let first_line = &first_line[..memchr::memchr(b'\n', first_line).unwrap_or(first_line.len())];
    let mut events = sse::opens(first_line).then(sse::Events::default);
    // UTF-8 checked once for the whole file ([`crate::source::utf8`]), so that the lines can be
    // parsed as text and serde_json need not check every string it reads again. A file that
    // is not valid UTF-8 is read as bytes, line by line, so that the lines before the bad byte
    // are still read and the error names its line.
    let text = crate::source::utf8(bytes);
    let mut start = 0usize;
    let mut no = 1usize;
    while start < bytes.len() {
        let (end, next, terminated) = match memchr::memchr(b'\n', &bytes[start..]) {
            Some(i) => (start + i, start + i + 1, true),
            None => (bytes.len(), bytes.len(), false),
        };
        if let Some(events) = &mut events {
            events.push(name, no, start, &bytes[start..end], terminated, &mut |p| {
                lines.push(p.no, p.offset, p.line, p.terminated)
            })?;
        } else {
            let line = Line {
                bytes: &bytes[start..end],
                text: text.and_then(|t| t.get(start..end)),
            };
            lines.push(no, start, line, terminated)?;
        }
        start = next;
        no += 1;
    }
    if let Some(events) = &mut events {
        events.finish(&mut |p| lines.push(p.no, p.offset, p.line, p.terminated))?;
    }
    lines.finish()
}

/// Whether a file that is not JSON is YAML: `Some(true)` when `name` is a YAML file's, or `text`
/// opens as a YAML document does (`---`, `%YAML`) or as a VCR cassette (`interactions:`,
/// `http_interactions:`), blank lines and `#` comments before it skipped; `Some(false)` when a
/// cassette's list only comes later, after other keys (`whole`: `text` is the whole file), a
/// weaker sign, which a log could also show; `None` otherwise.
fn yaml_marked(name: &str, text: &[u8], whole: bool) -> Option<bool> {
    let yaml_name = std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    if yaml_name {
        return Some(true);
    }
    let first = text
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .find(|l| !l.is_empty() && !l.starts_with(b"#"));
    let opens = |l: &[u8]| {
        l == b"---"
            || l.starts_with(b"--- ")
            || l.starts_with(b"%YAML")
            || l.starts_with(b"interactions:")
            || l.starts_with(b"http_interactions:")
    };
    if first.is_some_and(opens) {
        return Some(true);
    }
    let later = whole
        && [&b"\ninteractions:"[..], b"\nhttp_interactions:"]
            .iter()
            .any(|k| memchr::memmem::find(text, k).is_some());
    later.then_some(false)
}

/// A file that is not JSON but is marked as YAML ([`yaml_marked`]) read as one YAML document:
/// a VCR cassette is read ([`super::vcr`]); a YAML document that is not one is
/// `unknown-format`, and a text that is not YAML `invalid-yaml`. `None` for a file not marked
/// as YAML, or only weakly and not a cassette (read as lines, as before).
fn read_yaml(
    name: &str,
    bytes: &[u8],
    forced: Option<Format>,
    keep: &Keep,
    emit: &mut impl FnMut(Transcript),
) -> Option<Result<(), ReadError>> {
    let strong = yaml_marked(name, bytes, true)?;
    let parsed = match super::yaml::parse(
        name,
        bytes,
        2,
        "fix the YAML at this position: toolspec reads YAML files that are VCR cassettes (docs/formats.md)",
    ) {
        Ok(p) => p,
        Err(e) => return strong.then_some(Err(e)),
    };
    if !strong && super::vcr::interactions(&parsed.value).is_none() {
        return None;
    }
    Some(super::vcr::read(name, bytes, &parsed, forced, keep, emit))
}

/// Read a JSON document already parsed: what [`read_bytes`] does for its text from the parse
/// on. Its text is asked for only to place calls or to locate an error.
pub(crate) fn read_parsed(
    name: &str,
    doc: &super::Document,
    forced: Option<Format>,
    keep: &Keep,
    mut emit: impl FnMut(Transcript),
) -> Result<(), ReadError> {
    if let Some(nodes) = doc.nodes() {
        // Built value by value: read as it is by the formats that read nodes, the others read
        // the `Value` built from it.
        let tape = nodes.tape();
        let root = tape.root();
        if is_capture(root) {
            if let Some(read) =
                read_capture(name, &|| doc.text(), doc.value(), forced, keep, &mut emit)
            {
                return read;
            }
        }
        if root.is_container() {
            let read = |f: Format, sink: &mut Sink| match f.def().nodes {
                Some(read) => read(root, sink),
                None => readers::read_doc(f, doc.value(), sink),
            };
            let text = || doc.text();
            return read_document(
                name,
                &text,
                root,
                &|| doc.value(),
                &read,
                forced,
                keep,
                &mut emit,
            );
        }
    }
    let v = doc.value();
    if !matches!(v, Value::Object(_) | Value::Array(_)) {
        // A bare string or number is not a document: the file reading says what it is.
        return read_bytes(name, doc.text(), forced, keep, emit);
    }
    if let Some(read) = read_capture(name, &|| doc.text(), v, forced, keep, &mut emit) {
        return read;
    }
    let read = |f: Format, sink: &mut Sink| readers::read_doc(f, v, sink);
    read_document(
        name,
        &|| doc.text(),
        v,
        &|| v,
        &read,
        forced,
        keep,
        &mut emit,
    )
}

/// Stream a large file line by line.
pub(crate) fn read_stream(
    name: &str,
    mut reader: impl BufRead,
    forced: Option<Format>,
    keep: &Keep,
    mut emit: impl FnMut(Transcript),
) -> Result<(), ReadError> {
    let mut buf = Vec::new();
    let mut offset = 0usize;
    let mut no = 1usize;
    // A binary file may hold no newline at all: judge its first bytes before reading a whole
    // "line" of it into memory.
    let head = reader.fill_buf().map_err(|source| ReadError::Io {
        file: name.to_string(),
        source,
    })?;
    if archive::is_zip(head) {
        // A zip archive is read whole, up to the whole-file bound.
        let limit = super::WHOLE_FILE_LIMIT;
        let mut bytes = Vec::new();
        (&mut reader)
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| ReadError::Io {
                file: name.to_string(),
                source,
            })?;
        if bytes.len() as u64 > limit {
            return Err(Locator {
                name,
                text: &bytes,
                base: 0,
                first_line: 1,
            }
            .wrong_shape(
                0,
                format!("a zip archive larger than {} MiB, the most toolspec reads of one", limit >> 20),
                "split the evaluation into smaller logs, or convert it with `inspect log convert --to json`",
            ));
        }
        return read_bytes(name, &bytes, forced, keep, emit);
    }
    let head = &head[..head.len().min(HEAD_CHECK)];
    if let Err(e) = check_text_at(name, head, 0, 1).and_then(|()| check_utf8_at(name, head, 0, 1)) {
        // A multi-byte character cut by the end of the window is not an error.
        let cut = matches!(&e, ReadError::InvalidUtf8 { .. })
            && std::str::from_utf8(head).is_err_and(|u| u.error_len().is_none());
        if !cut {
            return Err(e);
        }
    }
    let mut lines = Lines::new(name, forced, keep, &mut emit);
    let mut seen_text = false;
    let mut events: Option<sse::Events> = None;
    let io = |source| ReadError::Io {
        file: name.to_string(),
        source,
    };
    loop {
        buf.clear();
        let n = match read_line_within(&mut reader, &mut buf, MAX_LINE).map_err(io)? {
            LineRead::End => break,
            LineRead::Line(n) => n,
            LineRead::TooLong(seen) => {
                let loc = Locator {
                    name,
                    text: &[],
                    base: 0,
                    first_line: 1,
                };
                return Err(lines.stop(loc.line_too_long(offset, no, seen)));
            }
        };
        if offset == 0 && buf.starts_with(BOM) {
            buf[..3].copy_from_slice(b"   ");
        }
        let terminated = buf.last() == Some(&b'\n');
        let line = if terminated { &buf[..n - 1] } else { &buf[..] };
        check_text_at(name, line, offset, no)?;
        if !seen_text && line.iter().any(|b| !b.is_ascii_whitespace()) {
            seen_text = true;
            let t = line.trim_ascii_start();
            let json = matches!(t.first(), Some(b'{' | b'['));
            let whole = if json {
                // A pretty-printed document too big to stream.
                matches!(
                    budget::from_slice(line, PARSED_BUDGET),
                    Err(Refusal::Json(_))
                )
                .then_some("JSON")
            } else {
                // A YAML document (a VCR cassette) is one value too.
                (!sse::opens(t) && yaml_marked(name, t, false).is_some()).then_some("YAML")
            };
            if let Some(kind) = whole {
                // Read whole, up to the bound of a line. Blank lines before it become spaces
                // so offsets stay true.
                let mut all = vec![b' '; offset];
                all.extend_from_slice(&buf);
                let room = MAX_LINE.saturating_sub(all.len() as u64);
                (&mut reader)
                    .take(room + 1)
                    .read_to_end(&mut all)
                    .map_err(io)?;
                if all.len() as u64 > MAX_LINE {
                    return Err(ReadError::ValueTooLarge {
                        file: name.to_string(),
                        line: no,
                        col: 1,
                        message: format!(
                            "the file's {kind} document is larger than {} MiB, the most toolspec reads whole of a file that is not JSON lines",
                            MAX_LINE >> 20
                        ),
                        help: BIG_HELP.to_owned(),
                        span: Span::point(offset).into(),
                    });
                }
                drop(lines);
                return read_bytes(name, &all, forced, keep, emit);
            }
            if sse::opens(t) {
                events = Some(sse::Events::default());
            }
        }
        if let Some(events) = &mut events {
            events.push(name, no, offset, line, terminated, &mut |p| {
                lines.push(p.no, p.offset, p.line, p.terminated)
            })?;
        } else {
            let line = Line {
                bytes: line,
                text: crate::source::utf8(line),
            };
            lines.push(no, offset, line, terminated)?;
        }
        offset += n;
        no += 1;
    }
    if !seen_text {
        return Err(ReadError::Empty {
            file: name.to_string(),
        });
    }
    if let Some(events) = &mut events {
        events.finish(&mut |p| lines.push(p.no, p.offset, p.line, p.terminated))?;
    }
    lines.finish()
}

/// What [`read_line_within`] read.
enum LineRead {
    /// The input is at its end.
    End,
    /// A line of this many bytes, its newline included (the last line may have none).
    Line(usize),
    /// A line longer than the bound, consumed to its end (or the input's) without being kept:
    /// its length, without its newline.
    TooLong(u64),
}

/// Read the next line (its newline included) into `buf`, if it is at most `limit` bytes
/// without its newline; a longer one is read to its end and dropped, so that memory stays
/// within the bound whatever the line.
fn read_line_within(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    limit: u64,
) -> std::io::Result<LineRead> {
    // Bytes seen, the newline included: at most `room` are kept.
    let room = limit.saturating_add(1);
    let mut seen = 0u64;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match seen {
                0 => LineRead::End,
                n if n > limit => LineRead::TooLong(n),
                _ => LineRead::Line(buf.len()),
            });
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        seen += take as u64;
        if seen <= room {
            if buf.capacity() - buf.len() < take {
                // Grown by doubling, but never past the bound.
                let want = (buf.len() + take).max(2 * buf.capacity());
                let want = want.min(usize::try_from(room).unwrap_or(usize::MAX));
                buf.reserve_exact(want - buf.len());
            }
            buf.extend_from_slice(&chunk[..take]);
        } else if !buf.is_empty() {
            // Past the bound: what was kept goes, the rest is only counted.
            *buf = Vec::new();
        }
        reader.consume(take);
        if done {
            // Its length without the newline.
            let len = seen - 1;
            return Ok(if len > limit {
                LineRead::TooLong(len)
            } else {
                LineRead::Line(buf.len())
            });
        }
    }
}

pub(super) fn detection_failed(name: &str, found: String) -> ReadError {
    ReadError::DetectionFailed {
        file: name.to_string(),
        found,
        tried: detect::rejections(),
    }
}

/// A whole-file JSON document: one transcript. `v` is the document as detection sees it,
/// `value` the same as a serde_json value (asked for only by the formats that hold several
/// transcripts), and `read` reads it in a format.
#[allow(clippy::too_many_arguments)]
fn read_document<'t, 's, J: Json<'s>>(
    name: &str,
    text: &dyn Fn() -> &'t [u8],
    v: J,
    value: &dyn Fn() -> &'s Value,
    read: &dyn Fn(Format, &mut Sink) -> Result<(), String>,
    forced: Option<Format>,
    keep: &Keep,
    emit: &mut impl FnMut(Transcript),
) -> Result<(), ReadError> {
    // The marks of the messages serve detection and the ambiguity check alike.
    let (format, marks) = if let Some(f) = forced {
        (f, None)
    } else {
        let marks = detect::Marks::of_doc(v);
        let f = detect::doc_marked(v, &marks).map_err(|tried| detection_failed(name, tried))?;
        (f, Some(marks))
    };
    if format.def().parts.is_some() {
        if let Some(parts) = readers::split(format, value()) {
            return read_parts(text(), format, parts, keep, emit);
        }
    }
    let mut sink = Sink::keeping(keep);
    read(format, &mut sink).map_err(|msg| shape_error(name, text(), 0, 1, format, msg))?;
    sink.keep_written_args(value, text);
    if let Some(marks) = &marks {
        ambiguous(v, format, marks, &mut sink);
    }
    sink.resolve(text, 0);
    emit(transcript(format, None, sink));
    Ok(())
}

/// Whether `v` is a capture of one API call: a `request` object beside a `response` object (or
/// an array: a streamed response's chunks), what proxies, recorders and test fixtures keep.
fn is_capture<'s, J: Json<'s>>(v: J) -> bool {
    v.get("request").is_some_and(J::is_obj)
        && v.get("response").is_some_and(|r| r.is_obj() || r.is_arr())
}

/// A `{request, response}` capture ([`is_capture`]) whose response (else request) is of a
/// format toolspec reads as one conversation: the request (the history sent) then the response
/// (the model's answer), read into one transcript, calls resent in both counted once (FORMATS
/// §0). `None` when `v` is no such capture.
fn read_capture<'t>(
    name: &str,
    text: &dyn Fn() -> &'t [u8],
    v: &Value,
    forced: Option<Format>,
    keep: &Keep,
    emit: &mut impl FnMut(Transcript),
) -> Option<Result<(), ReadError>> {
    if !is_capture(v) {
        return None;
    }
    let (request, response) = (field(v, "request")?, field(v, "response")?);
    // Formats of several transcripts, and sessions, are not captures of one call.
    let one = |f: Format| f.def().parts.is_none() && !f.is_session_format();
    let format = match forced {
        Some(f) => f,
        None => detect::doc(response)
            .ok()
            .filter(|f| one(*f))
            .or_else(|| detect::doc(request).ok().filter(|f| one(*f)))?,
    };
    if !one(format) {
        return None;
    }
    let mut sink = Sink::keeping(keep);
    sink.prefix = vec![Seg::K("request")];
    // A request need not hold a message (a first call): only the response must read.
    let _ = readers::read_doc(format, request, &mut sink);
    sink.prefix = vec![Seg::K("response")];
    let read = readers::read_doc(format, response, &mut sink);
    sink.prefix.clear();
    if let Err(msg) = read {
        return Some(Err(shape_error(name, text(), 0, 1, format, msg)));
    }
    sink.keep_written_args(|| v, text);
    sink.resolve(text, 0);
    emit(transcript(format, None, sink));
    Some(Ok(()))
}

/// An `ambiguous-format` finding for each other format the document also has the marks of:
/// detection picked the first in its order, and the user should know the file could be read
/// otherwise (`--input-format`).
pub(super) fn ambiguous<'s, J: Json<'s>>(
    v: J,
    format: Format,
    marks: &detect::Marks,
    sink: &mut Sink,
) {
    for (other, what) in detect::also_matches(v, format, marks) {
        let at = sink.at(&[]);
        sink.finding(
            Code::AmbiguousFormat,
            format!(
                "this file also has the marks of {other} ({what}); it was read as {format}, which comes first in the detection order (docs/formats.md); pass --input-format {other} to read it as {other}"
            ),
            at,
        );
    }
}

/// A document holding several transcripts (a DeepEval test run or list of test cases): one
/// transcript per part, located by the part's first line and byte span; one span index for all.
fn read_parts(
    bytes: &[u8],
    format: Format,
    parts: Vec<(Vec<Seg>, &Value)>,
    keep: &Keep,
    emit: &mut impl FnMut(Transcript),
) -> Result<(), ReadError> {
    let mut sinks = Vec::with_capacity(parts.len());
    for (path, part) in &parts {
        let mut sink = Sink::keeping(keep);
        readers::read_part(format, part, path, &mut sink);
        sinks.push(sink);
    }
    let depth = sinks
        .iter()
        .filter_map(Sink::path_depth)
        .chain(parts.iter().map(|(p, _)| p.len()))
        .max()
        .unwrap_or(1);
    let tree = SpanTree::build(bytes, depth);
    let index = LineIndex::new(bytes);
    let whole = Span::new(0, bytes.len());
    for ((path, part), mut sink) in parts.iter().zip(sinks) {
        sink.resolve_with(&tree, 0, whole);
        let span = tree.locate(path).map_or(whole, |(s, e)| Span::new(s, e));
        sink.keep_written_args(|| part, || &bytes[span.start..span.end]);
        let line = index.line_col(bytes, span.start).line;
        emit(transcript(format, Some(RecordLoc { line, span }), sink));
    }
    Ok(())
}

pub(super) fn shape_error(
    name: &str,
    text: &[u8],
    base: usize,
    first_line: usize,
    format: Format,
    msg: String,
) -> ReadError {
    let loc = Locator {
        name,
        text,
        base,
        first_line,
    };
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    loc.wrong_shape(
        start,
        format!("not a {format} transcript: {msg}"),
        "check the --input-format given, or leave it out to detect the format",
    )
}

/// `t` with its calls in compact form if `keep` asks for it (`Some(0)`: always; else past the
/// limit).
pub(super) fn compacted(mut t: Transcript, keep: &Keep) -> Transcript {
    let over = |limit: usize| limit == 0 || t.calls.len() > limit;
    if keep.compact.is_some_and(over) && t.compact.is_none() {
        t.compact = Some(super::CallTable::from_calls(&t.calls));
        t.calls = Vec::new();
    }
    t
}

pub(super) fn transcript(format: Format, record: Option<RecordLoc>, sink: Sink) -> Transcript {
    let f = sink.finish();
    Transcript {
        format,
        record,
        calls: f.calls,
        compact: f.table,
        tools: f.tools,
        answered: f.answered,
        findings: f.findings,
        turns: f.turns,
        answer: f.answer,
        agent_runs: f.agent_runs,
    }
}

#[cfg(test)]
mod tests {
    use super::{read_line_within, LineRead};

    fn lines(text: &[u8], limit: u64, chunk: usize) -> Vec<String> {
        let mut reader = std::io::BufReader::with_capacity(chunk, text);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            buf.clear();
            match read_line_within(&mut reader, &mut buf, limit).unwrap() {
                LineRead::End => return out,
                LineRead::Line(n) => {
                    assert_eq!(n, buf.len());
                    assert!(buf.capacity() as u64 <= (limit + 1).max(8));
                    out.push(String::from_utf8(buf.clone()).unwrap());
                }
                LineRead::TooLong(seen) => out.push(format!("<{seen}>")),
            }
        }
    }

    /// Lines within the bound come whole (their newline included, the last one without);
    /// a longer line is counted, not kept, and reading goes on after it, whatever the reads.
    #[test]
    fn a_line_past_the_bound_is_skipped_and_counted() {
        let text = b"short\nthis line is too long\n\nok\nlast, too long at the end";
        for chunk in [1, 3, 8, 64] {
            assert_eq!(
                lines(text, 10, chunk),
                ["short\n", "<21>", "\n", "ok\n", "<25>"],
                "reads of {chunk}"
            );
        }
        assert_eq!(lines(b"exactly 10", 10, 4), ["exactly 10"]);
        assert_eq!(
            lines(b"exactly 10\neleven more\n", 10, 4),
            ["exactly 10\n", "<11>"]
        );
    }
}
