//! Source files and byte spans.
//!
//! Every stage keeps positions as byte offsets ([`Span`]); line and column are computed only when
//! something is reported, with a [`LineIndex`] built once per file.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

/// `bytes` as text if they are UTF-8, validated with SIMD (`simdutf8`, 16-32 bytes per step
/// against the standard library's 8). It decides as `std::str::from_utf8` does; callers that
/// report an error get its place from `std::str::from_utf8`.
pub(crate) fn utf8(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

/// A half-open byte range `start..end` in one source file (a spec or a transcript).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end` (swapped if given backwards).
    pub fn new(start: usize, end: usize) -> Self {
        if end < start {
            Span {
                start: end,
                end: start,
            }
        } else {
            Span { start, end }
        }
    }

    /// An empty span at `offset`.
    pub fn point(offset: usize) -> Self {
        Span {
            start: offset,
            end: offset,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(span: Span) -> Self {
        miette::SourceSpan::new(span.start.into(), span.len())
    }
}

impl From<std::ops::Range<usize>> for Span {
    fn from(r: std::ops::Range<usize>) -> Self {
        Span::new(r.start, r.end)
    }
}

/// A 1-based line and column (column counted in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LineCol {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in Unicode scalar values.
    pub col: usize,
}

/// Offsets of line starts in a text, for turning byte offsets into [`LineCol`].
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Index the line starts of `text` (`\n` ends a line; `\r\n` too).
    pub fn new(text: &[u8]) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i + 1));
        LineIndex { starts }
    }

    /// Number of lines (a trailing newline starts an empty last line).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte offset where 1-based `line` starts, if it exists.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line.checked_sub(1)?).copied()
    }

    /// Line and column of `offset` in `text` (the text this index was built from).
    /// Offsets past the end are clamped; an offset inside a UTF-8 sequence counts as its character.
    pub fn line_col(&self, text: &[u8], offset: usize) -> LineCol {
        let offset = offset.min(text.len());
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let col = text[start..offset]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count();
        LineCol {
            line: line + 1,
            col: col + 1,
        }
    }
}

/// A named source text: a spec or transcript file as read from disk.
#[derive(Clone)]
pub struct SourceFile {
    /// Path as given by the user or found by discovery (relative where possible).
    pub name: String,
    /// The whole text.
    pub text: String,
    /// The copy of name and text that diagnostics point into, made once, on the first one.
    shared: OnceLock<Arc<miette::NamedSource<String>>>,
}

impl std::fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceFile")
            .field("name", &self.name)
            .field("text", &self.text)
            .finish()
    }
}

impl SourceFile {
    /// A source named `name` holding `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        SourceFile {
            name: name.into(),
            text: text.into(),
            shared: OnceLock::new(),
        }
    }

    /// The miette source that diagnostics pointing into this file render from: one copy of the
    /// file, made on the first call and shared by every later one (and by clones of this
    /// `SourceFile`), so that 20 000 diagnostics of a 250 KB file hold 250 KB, not 5 GB. Made
    /// from `name` and `text` as they are at that first call.
    pub fn shared_source(&self) -> Arc<miette::NamedSource<String>> {
        self.shared
            .get_or_init(|| Arc::new(miette::NamedSource::new(&self.name, self.text.clone())))
            .clone()
    }
}

/// Why a source text could not be read.
#[derive(Debug)]
pub enum ReadTextError {
    /// The file could not be read.
    Io(std::io::Error),
    /// The file is not UTF-8: the first byte where decoding stopped, and where it is.
    NotUtf8 {
        /// Byte offset of that byte.
        offset: usize,
        /// Its line and column (the column counts the valid characters before it, plus one).
        at: LineCol,
        /// The byte.
        byte: u8,
    },
}

impl std::fmt::Display for ReadTextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadTextError::Io(e) => e.fmt(f),
            ReadTextError::NotUtf8 { at, byte, .. } => write!(
                f,
                "line {}, column {}: byte 0x{byte:02X} is not UTF-8 (toolspec reads specs and settings as UTF-8 text)",
                at.line, at.col
            ),
        }
    }
}

impl std::error::Error for ReadTextError {}

impl From<ReadTextError> for std::io::Error {
    fn from(e: ReadTextError) -> std::io::Error {
        match e {
            ReadTextError::Io(e) => e,
            e @ ReadTextError::NotUtf8 { .. } => {
                std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string())
            }
        }
    }
}

/// Read a text file (a spec) as UTF-8. Where it is not UTF-8, the error says where
/// (`std::fs::read_to_string` only says that it is not).
pub fn read_text(path: &std::path::Path) -> Result<String, ReadTextError> {
    let bytes = std::fs::read(path).map_err(ReadTextError::Io)?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        ReadTextError::NotUtf8 {
            offset,
            at: LineIndex::new(bytes).line_col(bytes, offset),
            byte: bytes[offset],
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_text_says_where_a_file_is_not_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("latin1.toolspec");
        std::fs::write(&path, b"spec s {\n  call caf\xe9()\n}\n").unwrap();
        let e = read_text(&path).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2, column 11: byte 0xE9 is not UTF-8 (toolspec reads specs and settings as UTF-8 text)"
        );
        assert!(matches!(e, ReadTextError::NotUtf8 { offset: 19, .. }));
        std::fs::write(&path, "spec s {}\n").unwrap();
        assert_eq!(read_text(&path).unwrap(), "spec s {}\n");
        assert!(matches!(
            read_text(&dir.path().join("missing")),
            Err(ReadTextError::Io(_))
        ));
    }

    #[test]
    fn line_col_counts_from_one_and_in_characters() {
        let text = "ab\ncé d\n\nx".as_bytes();
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), LineCol { line: 1, col: 1 });
        assert_eq!(idx.line_col(text, 3), LineCol { line: 2, col: 1 });
        // 'é' is two bytes; the space after it is the third character.
        assert_eq!(idx.line_col(text, 6), LineCol { line: 2, col: 3 });
        assert_eq!(idx.line_col(text, 9), LineCol { line: 3, col: 1 });
        assert_eq!(idx.line_col(text, 10), LineCol { line: 4, col: 1 });
        assert_eq!(idx.line_col(text, 999), LineCol { line: 4, col: 2 });
        assert_eq!(idx.line_count(), 4);
        assert_eq!(idx.line_start(2), Some(3));
        assert_eq!(idx.line_start(0), None);
    }

    #[test]
    fn span_join_and_new_normalise() {
        assert_eq!(Span::new(5, 2), Span { start: 2, end: 5 });
        assert_eq!(Span::new(1, 3).join(Span::new(7, 9)), Span::new(1, 9));
        assert!(Span::point(4).is_empty());
    }
}
