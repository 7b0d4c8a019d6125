//! The reading pipeline: text checks, document-or-lines, detection, session-or-dataset,
//! and handing finished transcripts out.

use std::io::BufRead;

use serde_json::Value;

use crate::source::{LineIndex, Span};

use super::detect;
use super::error::{offset_of, Locator};
use super::readers::{self, Origin, Session};
use super::sink::Sink;
use super::spans::{Seg, SpanTree};
use super::{Format, Keep, ReadError, ReadFinding, RecordLoc, Transcript};

/// Lines buffered while the format of a JSONL file is still undecided.
const MAX_UNDECIDED_LINES: usize = 512;

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Bytes checked for binary content and UTF-8 before a streamed file's first line is read.
const HEAD_CHECK: usize = 64 << 10;

const JSON_HELP: &str = "fix the JSON at this position (or re-export the transcript)";

/// Read a whole file held in memory.
pub(crate) fn read_bytes(
    name: &str,
    bytes: &[u8],
    forced: Option<Format>,
    keep: &Keep,
    mut emit: impl FnMut(Transcript),
) -> Result<(), ReadError> {
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
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => return read_document(name, bytes, &v, forced, keep, &mut emit),
            Err(e) if e.to_string().starts_with("trailing characters") => {}
            Err(e) => {
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
    let mut lines = Lines::new(name, forced, keep, &mut emit);
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
        let line = Line {
            bytes: &bytes[start..end],
            text: text.and_then(|t| t.get(start..end)),
        };
        lines.push(no, start, line, terminated)?;
        start = next;
        no += 1;
    }
    lines.finish()
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
    let head = &head[..head.len().min(HEAD_CHECK)];
    if let Err(e) = check_text_at(name, head, 0, 1).and_then(|_| check_utf8_at(name, head, 0, 1)) {
        // A multi-byte character cut by the end of the window is not an error.
        let cut = matches!(&e, ReadError::InvalidUtf8 { .. })
            && std::str::from_utf8(head).is_err_and(|u| u.error_len().is_none());
        if !cut {
            return Err(e);
        }
    }
    let mut lines = Lines::new(name, forced, keep, &mut emit);
    let mut seen_text = false;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| ReadError::Io {
                file: name.to_string(),
                source,
            })?;
        if n == 0 {
            break;
        }
        if offset == 0 && buf.starts_with(BOM) {
            buf[..3].copy_from_slice(b"   ");
        }
        let terminated = buf.last() == Some(&b'\n');
        let line = if terminated { &buf[..n - 1] } else { &buf[..] };
        check_text_at(name, line, offset, no)?;
        if !seen_text && line.iter().any(|b| !b.is_ascii_whitespace()) {
            seen_text = true;
            let t = line.trim_ascii_start();
            if matches!(t.first(), Some(b'{' | b'['))
                && serde_json::from_slice::<Value>(line).is_err()
            {
                // A pretty-printed document too big to stream: read it whole.
                // Blank lines before it become spaces so offsets stay true.
                let mut all = vec![b' '; offset];
                all.extend_from_slice(&buf);
                reader
                    .read_to_end(&mut all)
                    .map_err(|source| ReadError::Io {
                        file: name.to_string(),
                        source,
                    })?;
                drop(lines);
                return read_bytes(name, &all, forced, keep, emit);
            }
        }
        let line = Line {
            bytes: line,
            text: crate::source::utf8(line),
        };
        lines.push(no, offset, line, terminated)?;
        offset += n;
        no += 1;
    }
    if !seen_text {
        return Err(ReadError::Empty {
            file: name.to_string(),
        });
    }
    lines.finish()
}

/// Empty and binary checks of a whole text. UTF-8 is checked elsewhere: once per file held in
/// memory and once per streamed line, so that valid lines are parsed as text; a line that is
/// not valid UTF-8 is parsed as bytes (serde_json checks each string), and a separate pass
/// explains a parse error (and checks the text lines a log reader skips).
fn check_text(name: &str, bytes: &[u8]) -> Result<(), ReadError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ReadError::Empty {
            file: name.to_string(),
        });
    }
    check_text_at(name, bytes, 0, 1)
}

fn check_text_at(
    name: &str,
    bytes: &[u8],
    base: usize,
    first_line: usize,
) -> Result<(), ReadError> {
    if base == 0 {
        utf16_check(name, bytes)?;
    }
    let loc = Locator {
        name,
        text: bytes,
        base,
        first_line,
    };
    // NUL anywhere, or other control characters near the start of the file, mean binary data
    // (a JSON parser would also reject them, but with a confusing message). Only a prefix is
    // scanned for the rarer control characters; both scans run at vector speed.
    let sniff = if base == 0 {
        &bytes[..bytes.len().min(4096)]
    } else {
        &[][..]
    };
    let binary = match (memchr::memchr(0, bytes), first_control_byte(sniff)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    if let Some(i) = binary {
        let (line, col) = loc.line_col(i);
        return Err(ReadError::Binary {
            file: name.to_string(),
            line,
            col,
            span: Span::new(base + i, base + i + 1).into(),
        });
    }
    Ok(())
}

/// UTF-16 text (what Windows PowerShell's `>` writes) is named as such rather than called
/// binary: a byte-order mark `FF FE` / `FE FF`, or ASCII with every other byte NUL at the start.
fn utf16_check(name: &str, bytes: &[u8]) -> Result<(), ReadError> {
    let kind = match bytes {
        [0xff, 0xfe, ..] => "UTF-16 (little-endian byte-order mark FF FE)",
        [0xfe, 0xff, ..] => "UTF-16 (big-endian byte-order mark FE FF)",
        [a, 0, b, 0, ..] if a.is_ascii() && *a != 0 && b.is_ascii() && *b != 0 => {
            "UTF-16 little-endian (every other byte is NUL)"
        }
        [0, a, 0, b, ..] if a.is_ascii() && *a != 0 && b.is_ascii() && *b != 0 => {
            "UTF-16 big-endian (every other byte is NUL)"
        }
        _ => return Ok(()),
    };
    Err(ReadError::InvalidUtf8 {
        file: name.to_string(),
        line: 1,
        col: 1,
        message: format!("the file is {kind}, not UTF-8"),
        src: None,
        span: Span::new(0, 2).into(),
    })
}

/// An `InvalidUtf8` error if `bytes` (at file offset `base`, line `first_line`) is not UTF-8.
fn check_utf8_at(
    name: &str,
    bytes: &[u8],
    base: usize,
    first_line: usize,
) -> Result<(), ReadError> {
    let loc = Locator {
        name,
        text: bytes,
        base,
        first_line,
    };
    if let Err(e) = std::str::from_utf8(bytes) {
        let i = e.valid_up_to();
        let (line, col) = loc.line_col(i);
        let len = e.error_len().unwrap_or(bytes.len() - i).max(1);
        return Err(ReadError::InvalidUtf8 {
            file: name.to_string(),
            line,
            col,
            message: format!(
                "byte 0x{:02x} at offset {} is not valid UTF-8",
                bytes[i],
                base + i
            ),
            src: None,
            span: Span::new(base + i, base + i + len).into(),
        });
    }
    Ok(())
}

/// Whether `b` is a control byte no text file holds (NUL, or below 0x20 other than newline,
/// carriage return, tab, form feed and escape).
fn is_control(b: u8) -> bool {
    // Bitwise, not short-circuit, so that the block scan below compiles to vector compares.
    (b == 0) | ((b < 0x20) & (b != b'\n') & (b != b'\r') & (b != b'\t') & (b != 0x0c) & (b != 0x1b))
}

/// The position of the first control byte. Scans 64-byte blocks without branching (so the
/// compiler vectorizes it) and looks closer only in a block that has one: this runs over every
/// byte of every transcript.
fn first_control_byte(bytes: &[u8]) -> Option<usize> {
    let mut blocks = bytes.chunks_exact(64);
    let mut at = 0;
    for block in &mut blocks {
        if block.iter().fold(false, |any, &b| any | is_control(b)) {
            return block.iter().position(|&b| is_control(b)).map(|i| at + i);
        }
        at += 64;
    }
    blocks
        .remainder()
        .iter()
        .position(|&b| is_control(b))
        .map(|i| at + i)
}

fn detection_failed(name: &str, found: String) -> ReadError {
    ReadError::DetectionFailed {
        file: name.to_string(),
        found,
        tried: detect::rejections(),
    }
}

/// A whole-file JSON document: one transcript.
fn read_document(
    name: &str,
    bytes: &[u8],
    v: &Value,
    forced: Option<Format>,
    keep: &Keep,
    emit: &mut impl FnMut(Transcript),
) -> Result<(), ReadError> {
    let format = match forced {
        Some(f) => f,
        None => detect::doc(v).map_err(|tried| detection_failed(name, tried))?,
    };
    if let Some(parts) = readers::split(format, v) {
        return read_parts(bytes, format, parts, keep, emit);
    }
    let mut sink = Sink::keeping(keep);
    readers::read_doc(format, v, &mut sink)
        .map_err(|msg| shape_error(name, bytes, 0, 1, format, msg))?;
    if forced.is_none() {
        ambiguous(v, format, &mut sink);
    }
    sink.resolve(bytes, 0);
    emit(transcript(format, None, sink));
    Ok(())
}

/// An `ambiguous-format` finding for each other format the document also has the marks of:
/// detection picked the first in its order, and the user should know the file could be read
/// otherwise (`--input-format`).
fn ambiguous(v: &Value, format: Format, sink: &mut Sink) {
    for (other, what) in detect::also_matches(v, format) {
        let at = sink.at(&[]);
        sink.finding(
            "ambiguous-format",
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
    for ((path, _), mut sink) in parts.iter().zip(sinks) {
        sink.resolve_with(&tree, 0, whole);
        let span = tree
            .locate(path)
            .map(|(s, e)| Span::new(s, e))
            .unwrap_or(whole);
        let line = index.line_col(bytes, span.start).line;
        emit(transcript(format, Some(RecordLoc { line, span }), sink));
    }
    Ok(())
}

fn shape_error(
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
fn compacted(mut t: Transcript, keep: &Keep) -> Transcript {
    let over = |limit: usize| limit == 0 || t.calls.len() > limit;
    if keep.compact.is_some_and(over) && t.compact.is_none() {
        t.compact = Some(super::CallTable::from_calls(&t.calls));
        t.calls = Vec::new();
    }
    t
}

fn transcript(format: Format, record: Option<RecordLoc>, sink: Sink) -> Transcript {
    let f = sink.finish();
    Transcript {
        format,
        record,
        calls: f.calls,
        compact: f.table,
        tools: f.tools,
        findings: f.findings,
    }
}

/// One line of a file: its bytes, and the same bytes as text if they are valid UTF-8.
#[derive(Clone, Copy)]
struct Line<'t> {
    bytes: &'t [u8],
    text: Option<&'t str>,
}

struct Buffered {
    no: usize,
    span: Span,
    json_base: usize,
    value: Value,
    origin: Origin,
    text: Vec<u8>,
}

enum State {
    Undecided(Vec<Buffered>),
    Session {
        format: Format,
        reader: Box<Session>,
        sink: Box<Sink>,
    },
    Dataset,
}

/// JSON lines (or a log with JSON payloads), fed one line at a time.
struct Lines<'a, F: FnMut(Transcript)> {
    name: &'a str,
    forced: Option<Format>,
    keep: &'a Keep,
    /// What dataset lines are read with: `keep`, never compact (see [`compacted`]).
    line_keep: Keep,
    emit: &'a mut F,
    state: State,
    claude_hint: bool,
    json_lines: usize,
    log_lines: bool,
    torn: Option<ReadFinding>,
    /// Dataset records read so far, and the transcript still open: held until a line that does
    /// not continue it (see [`merge_continuation`]), so a one-line file reads like a document.
    datasets: usize,
    open: Option<Transcript>,
}

impl<'a, F: FnMut(Transcript)> Lines<'a, F> {
    fn new(name: &'a str, forced: Option<Format>, keep: &'a Keep, emit: &'a mut F) -> Self {
        Lines {
            name,
            forced,
            keep,
            line_keep: Keep {
                compact: None,
                ..keep.clone()
            },
            emit,
            state: State::Undecided(Vec::new()),
            claude_hint: false,
            json_lines: 0,
            log_lines: false,
            torn: None,
            datasets: 0,
            open: None,
        }
    }

    /// Read one line. On an error, the dataset record still held open is emitted first: records
    /// read before a broken line are reported next to the error, not lost with it.
    fn push(
        &mut self,
        no: usize,
        offset: usize,
        line: Line<'_>,
        terminated: bool,
    ) -> Result<(), ReadError> {
        let result = self.push_line(no, offset, line, terminated);
        if result.is_err() {
            if let Some(t) = self.open.take() {
                (self.emit)(t);
            }
        }
        result
    }

    fn push_line(
        &mut self,
        no: usize,
        offset: usize,
        line: Line<'_>,
        terminated: bool,
    ) -> Result<(), ReadError> {
        let raw = line.bytes.strip_suffix(b"\r").unwrap_or(line.bytes);
        let Some((origin, json_off)) = classify(raw) else {
            return check_utf8_at(self.name, raw, offset, no);
        };
        if origin != Origin::Unknown {
            self.log_lines = true;
        }
        let json = &raw[json_off..];
        let json_end = json.len()
            - json
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        let json = &json[..json_end];
        // The same bytes as text, where they are known to be UTF-8.
        let json_text = line.text.and_then(|t| t.get(json_off..json_off + json_end));
        let span = Span::new(offset, offset + raw.len());
        // Once the session's format is known, its reader may read the line from its text,
        // building only what a check keeps (a Claude Code session).
        if let (true, Some(text), State::Session { reader, sink, .. }) =
            (self.keep.restricts(), json_text, &mut self.state)
        {
            let before = sink.line.replace(span);
            if reader.line_text(text, !self.keep.no_outputs, sink) {
                self.json_lines += 1;
                return Ok(());
            }
            sink.line = before;
        }
        let parsed = match json_text {
            Some(text) => serde_json::from_str(text),
            None => serde_json::from_slice(json),
        };
        let value: Value = match parsed {
            Ok(v) => v,
            Err(e) => {
                check_utf8_at(self.name, raw, offset, no)?;
                let loc = Locator {
                    name: self.name,
                    text: raw,
                    base: offset,
                    first_line: no,
                };
                let at = json_off + offset_of(json, e.line(), e.column());
                let (line, col) = loc.line_col(at);
                let mcp = self.log_lines || self.current_format() == Some(Format::McpJsonrpc);
                if !terminated && e.is_eof() {
                    if mcp {
                        self.torn = Some(ReadFinding {
                            code: "truncated-last-line",
                            message: format!(
                                "line {no} is cut off mid-record (torn last line); it was skipped"
                            ),
                            span,
                        });
                        return Ok(());
                    }
                    return Err(loc.truncated(&e, 0));
                }
                if self.log_lines {
                    return Ok(());
                }
                return Err(ReadError::InvalidJson {
                    file: self.name.to_string(),
                    line,
                    col,
                    message: super::error::json_message(&e),
                    help: format!(
                        "line {no} of this JSON-lines file is not valid JSON; fix or remove it"
                    ),
                    src: None,
                    span: Span::point(offset + at).into(),
                });
            }
        };
        self.json_lines += 1;
        let json_base = offset + json_off;
        match &mut self.state {
            State::Session { reader, sink, .. } => {
                sink.line = Some(span);
                reader.line(&value, origin, sink);
                Ok(())
            }
            State::Dataset => self.dataset_line(no, span, json_base, json, &value),
            State::Undecided(_) => {
                let b = Buffered {
                    no,
                    span,
                    json_base,
                    value,
                    origin,
                    text: json.to_vec(),
                };
                self.undecided(b)
            }
        }
    }

    fn current_format(&self) -> Option<Format> {
        match &self.state {
            State::Session { format, .. } => Some(*format),
            _ => None,
        }
    }

    fn undecided(&mut self, b: Buffered) -> Result<(), ReadError> {
        let decision = match self.forced {
            Some(f) => Some(
                if f.is_session_format() || detect::line(&b.value) == Some(f) {
                    Some(f)
                } else {
                    None
                },
            ),
            None => match detect::line(&b.value) {
                Some(f) => Some(Some(f)),
                None if detect::claude_code_hint(&b.value) => {
                    self.claude_hint = true;
                    None
                }
                None if b.origin != Origin::Unknown => None,
                None if detect::doc(&b.value).is_ok() => Some(None),
                None => None,
            },
        };
        let State::Undecided(buf) = &mut self.state else {
            return Ok(());
        };
        buf.push(b);
        match decision {
            None if buf.len() < MAX_UNDECIDED_LINES => Ok(()),
            None => {
                let first = &buf[0].value;
                Err(detection_failed(self.name, detect::describe(first)))
            }
            Some(choice) => self.decide(choice),
        }
    }

    /// Leave the undecided state: `Some(format)` = one session; `None` = a dataset.
    fn decide(&mut self, choice: Option<Format>) -> Result<(), ReadError> {
        let buffered = match std::mem::replace(&mut self.state, State::Dataset) {
            State::Undecided(b) => b,
            other => {
                self.state = other;
                return Ok(());
            }
        };
        match choice {
            Some(format) => {
                let first = buffered
                    .iter()
                    .find(|b| detect::line(&b.value).is_some())
                    .or(buffered.first());
                let reader = Box::new(Session::new(format, first.map(|b| &b.value)));
                self.state = State::Session {
                    format,
                    reader,
                    sink: Box::new(Sink::keeping(self.keep)),
                };
                if let State::Session { reader, sink, .. } = &mut self.state {
                    for b in &buffered {
                        sink.line = Some(b.span);
                        reader.line(&b.value, b.origin, sink);
                    }
                }
                Ok(())
            }
            None => {
                for b in buffered {
                    self.dataset_line(b.no, b.span, b.json_base, &b.text, &b.value)?;
                }
                Ok(())
            }
        }
    }

    fn dataset_line(
        &mut self,
        no: usize,
        span: Span,
        json_base: usize,
        json: &[u8],
        v: &Value,
    ) -> Result<(), ReadError> {
        let format = match self.forced {
            Some(f) => f,
            None => detect::doc(v).map_err(|_| {
                Locator {
                    name: self.name,
                    text: json,
                    base: json_base,
                    first_line: no,
                }
                .wrong_shape(
                    0,
                    format!("line {no} of this dataset matches no transcript format (it is {})", detect::describe(v)),
                    "every line of a JSONL dataset must be one transcript; pass --input-format to force one",
                )
            })?,
        };
        // Dataset lines are read in full and made compact as they are handed on: a line that
        // continues the open transcript is recognised by its calls' ids.
        let mut sink = Sink::keeping(&self.line_keep);
        readers::read_doc(format, v, &mut sink)
            .map_err(|msg| shape_error(self.name, json, json_base, no, format, msg))?;
        if self.forced.is_none() {
            ambiguous(v, format, &mut sink);
        }
        sink.resolve(json, json_base);
        let t = transcript(format, Some(RecordLoc { line: no, span }), sink);
        match self.open.take() {
            Some(mut open) if continues(&open, &t) => {
                merge_continuation(&mut open, t);
                self.open = Some(open);
            }
            Some(done) => {
                (self.emit)(compacted(done, self.keep));
                self.open = Some(t);
            }
            None => self.open = Some(t),
        }
        self.datasets += 1;
        Ok(())
    }

    fn finish(mut self) -> Result<(), ReadError> {
        if let State::Undecided(buf) = &self.state {
            if buf.is_empty() {
                return Err(detection_failed(
                    self.name,
                    "text with no JSON records".to_string(),
                ));
            }
            if self.claude_hint || self.forced.is_some() {
                let f = self.forced.unwrap_or(Format::ClaudeCode);
                self.decide(if f.is_session_format() { Some(f) } else { None })?;
            } else if self.log_lines {
                self.decide(Some(Format::McpJsonrpc))?;
            } else {
                let first = &buf[0].value;
                return Err(detection_failed(self.name, detect::describe(first)));
            }
        }
        if let State::Session {
            format,
            reader,
            mut sink,
        } = std::mem::replace(&mut self.state, State::Dataset)
        {
            sink.line = None;
            reader.finish(&mut sink);
            if let Some(t) = self.torn.take() {
                sink.findings
                    .push((t.clone(), super::sink::Loc::Span(t.span)));
            }
            (self.emit)(transcript(format, None, *sink));
        }
        if let Some(mut last) = self.open.take() {
            if self.datasets == 1 {
                last.record = None;
            }
            (self.emit)(compacted(last, self.keep));
        }
        let _ = self.json_lines;
        Ok(())
    }
}

/// Where a line's JSON starts and who sent it: raw JSON lines, Claude Desktop MCP log lines
/// (`… [info] [server] Message from client: {…}`) and stdio captures (`STDIN: {…}`).
/// `None` for lines without JSON (plain log text, `STDERR:` output, blank lines).
fn classify(raw: &[u8]) -> Option<(Origin, usize)> {
    let start = raw.iter().position(|b| !b.is_ascii_whitespace())?;
    let t = &raw[start..];
    if matches!(t[0], b'{' | b'[') {
        return Some((Origin::Unknown, start));
    }
    for (prefix, origin) in [
        (&b"STDIN: "[..], Origin::Client),
        (b"STDOUT: ", Origin::Server),
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            let ws = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
            return Some((origin, start + prefix.len() + ws));
        }
    }
    static MESSAGE_FROM: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"] Message from "));
    if let Some(i) = MESSAGE_FROM.find(t) {
        let rest = &t[i + b"] Message from ".len()..];
        let (origin, skip) = if rest.starts_with(b"client: ") {
            (Origin::Client, 8)
        } else if rest.starts_with(b"server: ") {
            (Origin::Server, 8)
        } else {
            return None;
        };
        return Some((origin, start + i + b"] Message from ".len() + skip));
    }
    None
}

/// Whether dataset line `next` continues transcript `open`: request logs resend the whole
/// history with every request, so a line that repeats a call of the open transcript — same id,
/// same name, same arguments — is the same conversation, one request later. Repeating an id alone
/// is not enough: datasets of separate examples (fine-tuning files) often reuse ids such as
/// `call_1` for different calls, and a shared id whose call differs means a different conversation.
fn continues(open: &Transcript, next: &Transcript) -> bool {
    if open.format != next.format {
        return false;
    }
    let known: std::collections::HashMap<&str, &super::ToolCall> = open
        .calls
        .iter()
        .filter_map(|c| c.id.as_deref().map(|id| (id, c)))
        .collect();
    let mut shared = false;
    for c in &next.calls {
        if let Some(k) = c.id.as_deref().and_then(|id| known.get(id)) {
            if k.name != c.name || k.args != c.args {
                return false;
            }
            shared = true;
        }
    }
    shared
}

/// Fold a continuation line into the open transcript: calls already seen keep their first
/// record (and gain a result if they had none); new calls, their findings and tools are added;
/// the record grows to cover both lines. Calls without ids cannot be matched and are added.
fn merge_continuation(open: &mut Transcript, next: Transcript) {
    let mut index: std::collections::HashMap<String, usize> = open
        .calls
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.id.clone().map(|id| (id, i)))
        .collect();
    let mut added = Vec::new();
    for c in next.calls {
        match c.id.as_ref().and_then(|id| index.get(id)) {
            Some(&i) => {
                let known = &mut open.calls[i];
                if known.output.is_none() && c.output.is_some() {
                    known.output = c.output;
                    known.is_error = c.is_error;
                }
            }
            None => {
                if let Some(id) = &c.id {
                    index.insert(id.clone(), open.calls.len());
                }
                added.push(c.span);
                open.calls.push(c);
            }
        }
    }
    open.findings.extend(next.findings.into_iter().filter(|f| {
        added
            .iter()
            .any(|s| s.start <= f.span.start && f.span.end <= s.end)
    }));
    for t in next.tools {
        if !open.tools.iter().any(|k| k.name == t.name) {
            open.tools.push(t);
        }
    }
    if let (Some(a), Some(b)) = (&mut open.record, next.record) {
        a.span = a.span.join(b.span);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_scan_finds_the_first_control_byte_anywhere() {
        let naive = |b: &[u8]| {
            b.iter().position(|&c| {
                c == 0 || (c < 0x20 && !matches!(c, b'\n' | b'\r' | b'\t' | 0x0c | 0x1b))
            })
        };
        let text = b"{\"a\": \"line\tone\r\n\x1b[0m\x0c\"}\n".repeat(9);
        assert_eq!(first_control_byte(&text), None);
        for len in [0, 1, 63, 64, 65, 200] {
            for at in 0..len {
                for bad in [0u8, 1, 0x1f, 0x0b] {
                    let mut t = text[..len.min(text.len())].to_vec();
                    t.resize(len, b' ');
                    t[at] = bad;
                    assert_eq!(first_control_byte(&t), naive(&t), "len {len} at {at}");
                    assert_eq!(first_control_byte(&t), Some(at));
                }
            }
        }
    }
}
