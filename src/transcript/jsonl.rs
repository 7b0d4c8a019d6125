//! JSON lines (or a log with JSON payloads) fed one line at a time: a state machine that
//! buffers lines while the format is undecided, then reads them as one session (one event per
//! line) or as a dataset (one transcript per line, continuation lines merged).

use crate::code::Code;
use serde_json::Value;

use crate::json::budget::{self, Refusal};
use crate::source::Span;

use super::detect;
use super::driver::{ambiguous, compacted, detection_failed, shape_error, transcript};
use super::error::{offset_of, Locator};
use super::readers::{self, Origin, Session};
use super::sink::Sink;
use super::text::{check_utf8_at, classify, Line};
use super::{Format, Keep, ReadError, ReadFinding, RecordLoc, Transcript, PARSED_BUDGET};

/// Lines buffered while the format of a JSONL file is still undecided.
const MAX_UNDECIDED_LINES: usize = 512;

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
pub(super) struct Lines<'a, F: FnMut(Transcript)> {
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
    pub(super) fn new(
        name: &'a str,
        forced: Option<Format>,
        keep: &'a Keep,
        emit: &'a mut F,
    ) -> Self {
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
    pub(super) fn push(
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

    /// Stop reading at `error`: the dataset record still held open is emitted first, as on an
    /// error of [`Self::push`].
    pub(super) fn stop(&mut self, error: ReadError) -> ReadError {
        if let Some(t) = self.open.take() {
            (self.emit)(t);
        }
        error
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
            Some(text) => budget::from_str(text, PARSED_BUDGET),
            None => budget::from_slice(json, PARSED_BUDGET),
        };
        let value: Value = match parsed {
            Ok(v) => v,
            Err(Refusal::TooLarge { line, column }) => {
                let loc = Locator {
                    name: self.name,
                    text: raw,
                    base: offset,
                    first_line: no,
                };
                let at = json_off + offset_of(json, line, column);
                return Err(loc.value_too_large(
                    &format!("line {no}"),
                    at,
                    "the records before it were read; split the record, or keep large payloads (tool outputs, files) out of the log",
                ));
            }
            Err(Refusal::Json(e)) => {
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
                            code: Code::TruncatedLastLine.id(),
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
                sink.keep_written_args(|| &value, || json);
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
                None if b.origin != Origin::Unknown || detect::is_filter_chunk(&b.value) => None,
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
        if let Some(format) = choice {
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
                    sink.keep_written_args(|| &b.value, || &b.text);
                }
            }
            Ok(())
        } else {
            for b in buffered {
                self.dataset_line(b.no, b.span, b.json_base, &b.text, &b.value)?;
            }
            Ok(())
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
        sink.keep_written_args(|| v, || json);
        if self.forced.is_none() {
            ambiguous(v, format, &detect::Marks::of_doc(v), &mut sink);
        }
        sink.resolve(|| json, json_base);
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

    pub(super) fn finish(mut self) -> Result<(), ReadError> {
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
    open.answered.resize(open.calls.len(), false);
    for (j, c) in next.calls.into_iter().enumerate() {
        let got = next.answered.get(j).copied().unwrap_or(false);
        if let Some(&i) = c.id.as_ref().and_then(|id| index.get(id)) {
            if got {
                open.answered[i] = true;
            }
            let known = &mut open.calls[i];
            if known.output.is_none() && c.output.is_some() {
                known.output = c.output;
                known.is_error = c.is_error;
            }
        } else {
            if let Some(id) = &c.id {
                index.insert(id.clone(), open.calls.len());
            }
            added.push(c.span);
            open.answered.push(got);
            open.calls.push(c);
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
