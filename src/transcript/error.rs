//! Errors that stop a file from being read (a per-call problem is a [`super::ReadFinding`] instead).

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode, SourceSpan};

use crate::code::Code;
use crate::source::{LineIndex, Span};

use super::Format;

/// Largest file (in bytes) whose text is attached to an error for rendering a snippet.
const MAX_SNIPPET_SOURCE: usize = 4 << 20;

/// Why a format did not match a file (one entry of [`ReadError::DetectionFailed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The format that was tried.
    pub format: Format,
    /// Why it did not match, in plain words.
    pub reason: String,
}

/// A file that cannot be read. Every variant names the file; located variants carry the byte
/// span and print `file:line:col:` first.
///
/// Its miette code is `toolspec::read::` followed by its [`Code`]'s name, `-` written `_`
/// (`toolspec::read::invalid_json`).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{file}: cannot read file: {source}")]
    Io {
        /// File name.
        file: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file is empty or only whitespace.
    #[error("{file}: empty file: no transcript to read")]
    Empty {
        /// File name.
        file: String,
    },
    /// The file is not UTF-8 text.
    #[error("{file}:{line}:{col}: invalid UTF-8: {message}")]
    InvalidUtf8 {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What is wrong.
        message: String,
        /// Text of the file, when small enough to show.
        src: Option<NamedSource<String>>,
        /// The offending bytes.
        span: SourceSpan,
    },
    /// The file holds binary data (NUL bytes or control characters), not text.
    #[error("{file}:{line}:{col}: binary data: this is not a text transcript")]
    Binary {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// The first binary byte.
        span: SourceSpan,
    },
    /// The JSON is malformed.
    #[error("{file}:{line}:{col}: invalid JSON: {message}")]
    InvalidJson {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// serde_json's explanation, without its own position suffix.
        message: String,
        /// What to do about it.
        help: String,
        /// Text of the file, when small enough to show.
        src: Option<NamedSource<String>>,
        /// Where parsing stopped.
        span: SourceSpan,
    },
    /// The YAML is malformed (or holds what JSON cannot).
    #[error("{file}:{line}:{col}: invalid YAML: {message}")]
    InvalidYaml {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What is wrong.
        message: String,
        /// What to do about it.
        help: String,
        /// Text of the file, when small enough to show.
        src: Option<NamedSource<String>>,
        /// Where parsing stopped.
        span: SourceSpan,
    },
    /// The last line of a JSON-lines file was cut off mid-record.
    #[error("{file}:{line}:{col}: truncated last line: {message}")]
    Truncated {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// serde_json's explanation.
        message: String,
        /// Text of the file, when small enough to show.
        src: Option<NamedSource<String>>,
        /// The partial line.
        span: SourceSpan,
    },
    /// Valid JSON of the wrong shape for the (detected or forced) format.
    #[error("{file}:{line}:{col}: {message}")]
    WrongShape {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What was expected and what was found.
        message: String,
        /// What to do about it.
        help: String,
        /// The offending value.
        span: SourceSpan,
    },
    /// A line longer than toolspec reads of one line.
    #[error("{file}:{line}:{col}: {message}")]
    LineTooLong {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// How long, and the bound.
        message: String,
        /// What to do about it.
        help: String,
        /// The line's start.
        span: SourceSpan,
    },
    /// JSON that would take more memory once parsed than toolspec gives one document, line or
    /// archive entry.
    #[error("{file}:{line}:{col}: {message}")]
    ValueTooLarge {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What was being read, and the bound.
        message: String,
        /// What to do about it.
        help: String,
        /// Where reading stopped.
        span: SourceSpan,
    },
    /// No format matched the content.
    #[error("{file}: unknown transcript format: {}", summarize(.found, .tried))]
    DetectionFailed {
        /// File name.
        file: String,
        /// What the file holds, in words (`an object with keys `id`, `message``), said once.
        found: String,
        /// Every format tried and what it looks for, once each.
        tried: Vec<Rejection>,
    },
}

impl Diagnostic for ReadError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(format!(
            "toolspec::read::{}",
            self.code().replace('-', "_")
        )))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(match self {
            ReadError::Io { .. } => Box::new("check that the path exists and is readable"),
            ReadError::Empty { .. } => {
                Box::new("a transcript file holds a JSON document, JSON lines, or an MCP log")
            }
            ReadError::InvalidUtf8 { .. } => {
                Box::new("transcripts are UTF-8 JSON; re-export the file as UTF-8")
            }
            ReadError::Binary { .. } => Box::new(
                "pass a JSON, JSONL or log file; compressed files must be decompressed first",
            ),
            ReadError::InvalidJson { help, .. }
            | ReadError::InvalidYaml { help, .. }
            | ReadError::WrongShape { help, .. }
            | ReadError::LineTooLong { help, .. }
            | ReadError::ValueTooLarge { help, .. } => Box::new(help),
            ReadError::Truncated { .. } => Box::new(
                "the file ends in the middle of a record (was it still being written?); remove the partial last line or let the writer finish",
            ),
            ReadError::DetectionFailed { tried, .. } => Box::new(format!(
                "pass --input-format NAME to read it as a given format, or as a custom mapping (`[formats.NAME]` of toolspec.toml, docs/formats.md); formats tried: {}",
                list_rejections(tried)
            )),
        })
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        match self {
            ReadError::InvalidUtf8 { src, .. }
            | ReadError::InvalidJson { src, .. }
            | ReadError::InvalidYaml { src, .. }
            | ReadError::Truncated { src, .. } => src.as_ref().map(|s| s as &dyn SourceCode),
            _ => None,
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let (label, span) = match self {
            ReadError::InvalidUtf8 { span, .. } => ("not UTF-8", span),
            ReadError::InvalidJson { span, .. }
            | ReadError::InvalidYaml { span, .. }
            | ReadError::WrongShape { span, .. }
            | ReadError::ValueTooLarge { span, .. } => ("here", span),
            ReadError::LineTooLong { span, .. } => ("this line", span),
            ReadError::Truncated { span, .. } => ("incomplete record", span),
            _ => return None,
        };
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            Some(label.to_owned()),
            *span,
        ))))
    }
}

fn summarize(found: &str, tried: &[Rejection]) -> String {
    format!("found {found}; none of {} formats matched", tried.len())
}

/// Each format once with what it looks for, on one line (reports show a finding's help as one
/// line: a line break would be shown escaped).
fn list_rejections(tried: &[Rejection]) -> String {
    tried
        .iter()
        .map(|r| format!("{} ({})", r.format, r.reason))
        .collect::<Vec<_>>()
        .join("; ")
}

impl ReadError {
    /// The stable code of this error, as reports print it (its name is also the suffix of the
    /// miette code).
    pub fn code(&self) -> &'static str {
        let code = match self {
            ReadError::Io { .. } => Code::Io,
            ReadError::Empty { .. } => Code::Empty,
            ReadError::InvalidUtf8 { .. } => Code::InvalidUtf8,
            ReadError::Binary { .. } => Code::Binary,
            ReadError::InvalidJson { .. } => Code::InvalidJson,
            ReadError::InvalidYaml { .. } => Code::InvalidYaml,
            ReadError::Truncated { .. } => Code::Truncated,
            ReadError::WrongShape { .. } => Code::WrongShape,
            ReadError::LineTooLong { .. } => Code::LineTooLong,
            ReadError::ValueTooLarge { .. } => Code::ValueTooLarge,
            ReadError::DetectionFailed { .. } => Code::UnknownFormat,
        };
        code.id()
    }

    /// The file the error is about.
    pub fn file(&self) -> &str {
        match self {
            ReadError::Io { file, .. }
            | ReadError::Empty { file }
            | ReadError::InvalidUtf8 { file, .. }
            | ReadError::Binary { file, .. }
            | ReadError::InvalidJson { file, .. }
            | ReadError::InvalidYaml { file, .. }
            | ReadError::Truncated { file, .. }
            | ReadError::WrongShape { file, .. }
            | ReadError::LineTooLong { file, .. }
            | ReadError::ValueTooLarge { file, .. }
            | ReadError::DetectionFailed { file, .. } => file,
        }
    }

    /// The 1-based line and column, for located errors.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        match self {
            ReadError::InvalidUtf8 { line, col, .. }
            | ReadError::Binary { line, col, .. }
            | ReadError::InvalidJson { line, col, .. }
            | ReadError::InvalidYaml { line, col, .. }
            | ReadError::Truncated { line, col, .. }
            | ReadError::WrongShape { line, col, .. }
            | ReadError::LineTooLong { line, col, .. }
            | ReadError::ValueTooLarge { line, col, .. } => Some((*line, *col)),
            _ => None,
        }
    }
}

/// Where in a file an error points: file-level byte span, and line/column computed on demand.
pub(crate) struct Locator<'a> {
    pub name: &'a str,
    /// The bytes the offsets are relative to (the whole file, or one streamed line).
    pub text: &'a [u8],
    /// Offset of `text[0]` in the file.
    pub base: usize,
    /// 1-based line number of `text`'s first line.
    pub first_line: usize,
}

impl Locator<'_> {
    /// Line and column of an offset into `text`.
    pub(super) fn line_col(&self, offset: usize) -> (usize, usize) {
        let idx = LineIndex::new(self.text);
        let lc = idx.line_col(self.text, offset);
        (self.first_line + lc.line - 1, lc.col)
    }

    fn source(&self) -> Option<NamedSource<String>> {
        if self.base != 0 || self.text.len() > MAX_SNIPPET_SOURCE {
            return None;
        }
        std::str::from_utf8(self.text)
            .ok()
            .map(|t| NamedSource::new(self.name, t.to_string()))
    }

    fn span(&self, offset: usize, len: usize) -> SourceSpan {
        Span::new(self.base + offset, self.base + offset + len).into()
    }

    /// A serde_json error at a 1-based line/column inside `text`.
    pub(super) fn json_error(&self, err: &serde_json::Error, help: &str) -> ReadError {
        let offset = offset_of(self.text, err.line(), err.column());
        let (line, col) = self.line_col(offset);
        let message = strip_position(&err.to_string());
        if err.is_eof() && self.base != 0 {
            return ReadError::Truncated {
                file: self.name.to_string(),
                line,
                col,
                message,
                src: None,
                span: self.span(offset.min(self.text.len()), 0),
            };
        }
        let message = plain_json_message(message);
        ReadError::InvalidJson {
            file: self.name.to_string(),
            line,
            col,
            message,
            help: help.to_string(),
            src: self.source(),
            span: self.span(offset.min(self.text.len()), 0),
        }
    }

    /// A YAML text refused by [`crate::json::yaml::from_str`]: invalid, or past
    /// [`super::PARSED_BUDGET`] (then `what` names what was being read); `help` is for an
    /// invalid text.
    pub(super) fn yaml_error(
        &self,
        refusal: &crate::json::yaml::Refusal,
        what: &str,
        help: &str,
    ) -> ReadError {
        use crate::json::yaml::Refusal;
        match refusal {
            Refusal::TooLarge { at } => {
                let (line, col) = self.line_col(*at);
                ReadError::ValueTooLarge {
                    file: self.name.to_string(),
                    line,
                    col,
                    message: format!(
                        "{what} takes more than {} MiB of memory once parsed ({} bytes of YAML, aliases counted as the copies they make), the most toolspec gives one document; reading stopped here",
                        super::PARSED_BUDGET >> 20,
                        self.text.len()
                    ),
                    help: "split the file into smaller ones, or keep large payloads (and aliases of them) out of it".to_owned(),
                    span: self.span((*at).min(self.text.len()), 0),
                }
            }
            Refusal::Invalid { message, at } => {
                let (line, col) = self.line_col(*at);
                ReadError::InvalidYaml {
                    file: self.name.to_string(),
                    line,
                    col,
                    message: message.clone(),
                    help: help.to_string(),
                    src: self.source(),
                    span: self.span((*at).min(self.text.len()), 0),
                }
            }
        }
    }

    /// A truncated record spanning `text[start..]`.
    pub(super) fn truncated(&self, err: &serde_json::Error, start: usize) -> ReadError {
        let offset = offset_of(self.text, err.line(), err.column()).max(start);
        let (line, col) = self.line_col(offset);
        ReadError::Truncated {
            file: self.name.to_string(),
            line,
            col,
            message: strip_position(&err.to_string()),
            src: self.source(),
            span: self.span(start, self.text.len().saturating_sub(start)),
        }
    }

    /// Valid JSON of the wrong shape, at byte `offset` (relative to `text`).
    pub(super) fn wrong_shape(&self, offset: usize, message: String, help: &str) -> ReadError {
        let (line, col) = self.line_col(offset);
        ReadError::WrongShape {
            file: self.name.to_string(),
            line,
            col,
            message,
            help: help.to_string(),
            span: self.span(offset, 1.min(self.text.len().saturating_sub(offset))),
        }
    }
}

impl Locator<'_> {
    /// Line `no` (starting at byte `offset` of the file, relative to `text`'s start) is longer
    /// than [`super::MAX_LINE`]: `seen` bytes, read without being kept.
    pub(super) fn line_too_long(&self, offset: usize, no: usize, seen: u64) -> ReadError {
        ReadError::LineTooLong {
            file: self.name.to_string(),
            line: no,
            col: 1,
            message: format!(
                "line too long: line {no} is longer than {} MiB ({seen} bytes), the most toolspec reads of one line",
                super::MAX_LINE >> 20
            ),
            help: "the records before it were read; split the record, or keep large payloads (tool outputs, files) out of the log".to_owned(),
            span: self.span(offset, 0),
        }
    }

    /// The JSON of `what` (`the file's JSON document`, `line 3`) would take more than
    /// [`super::PARSED_BUDGET`] once parsed; reading stopped at byte `offset` of `text`.
    pub(super) fn value_too_large(&self, what: &str, offset: usize, help: &str) -> ReadError {
        let (line, col) = self.line_col(offset);
        ReadError::ValueTooLarge {
            file: self.name.to_string(),
            line,
            col,
            message: format!(
                "{what} takes more than {} MiB of memory once parsed ({} bytes of JSON), the most toolspec gives one document, line or archive entry; reading stopped here",
                super::PARSED_BUDGET >> 20,
                self.text.len()
            ),
            help: help.to_owned(),
            span: self.span(offset.min(self.text.len()), 0),
        }
    }
}

/// Byte offset of serde_json's 1-based (line, column) in `text` (column = bytes into the line;
/// 0 means "at the end of the previous line").
pub(crate) fn offset_of(text: &[u8], line: usize, column: usize) -> usize {
    let mut start = 0usize;
    for _ in 1..line.max(1) {
        match memchr::memchr(b'\n', &text[start..]) {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    (start + column.saturating_sub(1)).min(text.len())
}

/// serde_json's message for `err`, without its position (reported separately) and with the
/// recursion limit said in the user's terms.
pub(crate) fn json_message(err: &serde_json::Error) -> String {
    plain_json_message(strip_position(&err.to_string()))
}

fn plain_json_message(message: String) -> String {
    if message.contains("recursion limit") {
        "nesting too deep (more than 128 levels of arrays/objects)".to_string()
    } else {
        message
    }
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn too_deep_json_lines_say_so_like_whole_documents() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let text = format!("{{\"a\":1}}\n{deep}\n");
        let err = crate::transcript::Reader::new()
            .read("deep.jsonl", text.as_bytes())
            .unwrap_err();
        let shown = err.to_string();
        assert!(shown.contains("nesting too deep"), "{shown}");
        assert!(!shown.contains("recursion limit"), "{shown}");
    }
}
