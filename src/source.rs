//! Source files and byte spans.
//!
//! Every stage keeps positions as byte offsets ([`Span`]); line and column are computed only when
//! something is reported, with a [`LineIndex`] built once per file.

use std::sync::{Arc, OnceLock};

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
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
            .finish_non_exhaustive()
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

/// The lines around a span, cut out of a file, that report their true line numbers.
#[derive(Debug, Clone)]
pub struct Excerpt {
    /// The file's name, escaped ([`crate::text`]).
    name: Option<String>,
    text: String,
    /// 0-based line number of the excerpt's first line in the file.
    first_line: usize,
    /// The stretches of the file cut out: start and end in the file, start in the excerpt.
    pieces: Vec<(usize, usize, usize)>,
}

/// Longest stretch of one line shown on each side of a span.
const LINE_WINDOW: usize = 160;
/// How far from the span an excerpt looks for line breaks (with memchr): cutting an excerpt
/// costs at most this much per finding, however long the file or its lines (a finding 40 MB
/// into a file, or the 1 000th finding on a 50 MB single-line document, costs what the first
/// does).
const SCAN: usize = 64 << 10;

/// Where the line around `at` starts and ends, looked for at most [`SCAN`] bytes away; a
/// boundary not found that close is the window's edge (`false`: the line goes on).
fn line_bounds(bytes: &[u8], at: usize) -> ((usize, bool), (usize, bool)) {
    let lo = at.saturating_sub(SCAN);
    let start = match memchr::memrchr(b'\n', &bytes[lo..at]) {
        Some(i) => (lo + i + 1, true),
        None => (lo, lo == 0),
    };
    let hi = (at + SCAN).min(bytes.len());
    let end = match memchr::memchr(b'\n', &bytes[at..hi]) {
        Some(i) => (at + i, true),
        None => (hi, hi == bytes.len()),
    };
    (start, end)
}

impl Excerpt {
    /// Cut the lines around `start..end` of `text` (one line of context each side; very long
    /// lines clipped around the span) and return the excerpt and the span within it. `line` is
    /// the 1-based line of `start` (the finding's location), so nothing is counted from the
    /// start of the file: the work is bounded by [`SCAN`], not by the file.
    pub fn new(
        name: &str,
        text: &str,
        line: usize,
        start: usize,
        end: usize,
    ) -> (Excerpt, SourceSpan) {
        let bytes = text.as_bytes();
        let start = floor_char(text, start.min(text.len()));
        let mut end = floor_char(text, end.clamp(start, text.len()));
        let ((line_a, a_exact), (line_b, b_exact)) = line_bounds(bytes, start);
        if end - start > LINE_WINDOW || end > line_b {
            // A whole record (often one long JSONL line): point at its start, within its first
            // line, rather than underlining kilobytes.
            end = floor_char(text, line_b.min(start + LINE_WINDOW));
        }
        // The lines shown: the span's, and one of context on each side when its boundary is
        // known (a line cut at the window has no neighbour in reach).
        // Each with whether its start is the line's true start.
        let mut lines = vec![(line_a, line_b, a_exact)];
        if a_exact && line_a > 0 {
            let ((pa, pa_exact), _) = line_bounds(bytes, line_a - 1);
            lines.insert(0, (pa, line_a - 1, pa_exact));
        }
        if b_exact && line_b < bytes.len() {
            let (_, (pb, _)) = line_bounds(bytes, line_b + 1);
            lines.push((line_b + 1, pb, true));
        }
        let first_line =
            line.saturating_sub(1) - usize::from(lines.len() > 1 && lines[0].0 < line_a);
        let mut excerpt = String::new();
        let mut pieces = Vec::with_capacity(lines.len());
        let (mut span_start, mut span_end) = (0, 0);
        for (i, &(la, lb, la_exact)) in lines.iter().enumerate() {
            let (mut a, mut b) = (la, lb);
            if b - a > 2 * LINE_WINDOW {
                // The span's line around the span; a neighbour from its start, or from its end
                // when its start is out of reach.
                let (focus_a, focus_b) = if start <= lb && end >= la {
                    (start.max(la), end.min(lb))
                } else if la_exact {
                    (a, a)
                } else {
                    (b, b)
                };
                a = floor_char(text, focus_a.saturating_sub(LINE_WINDOW).max(la));
                b = floor_char(text, (focus_b + LINE_WINDOW).min(lb));
            }
            let (a, b) = (floor_char(text, a), floor_char(text, b.max(a)));
            pieces.push((a, b, excerpt.len()));
            let offset = excerpt.len() as isize - a as isize;
            if (a..=b).contains(&start) {
                span_start = (start as isize + offset) as usize;
            }
            if (a..=b).contains(&end) {
                span_end = (end as isize + offset) as usize;
            }
            excerpt.push_str(&text[a..b]);
            if i + 1 < lines.len() {
                excerpt.push('\n');
            }
        }
        let span_end = span_end.max(span_start);
        (
            Excerpt {
                name: Some(crate::text::escape(name).into_owned()),
                // Same byte lengths: the pieces and the span still hold.
                text: crate::text::mask_source(&excerpt).into_owned(),
                first_line,
                pieces,
            },
            SourceSpan::new(span_start.into(), span_end - span_start),
        )
    }
}

impl Excerpt {
    /// An excerpt made elsewhere: `text` (already masked) is the file's text from its
    /// 0-based line `first_line` on, whole lines; `offset` is where `text` starts in the file.
    pub fn from_parts(
        name: Option<String>,
        text: String,
        first_line: usize,
        offset: usize,
    ) -> Excerpt {
        let pieces = vec![(offset, offset + text.len(), 0)];
        Excerpt {
            name,
            text,
            first_line,
            pieces,
        }
    }

    /// The same excerpt without a file name (a source that has none).
    pub fn unnamed(mut self) -> Excerpt {
        self.name = None;
        self
    }

    /// Where `start..end` of the file is in the excerpt, if the excerpt holds all of it.
    pub fn map(&self, start: usize, end: usize) -> Option<SourceSpan> {
        let &(a, _, at) = self
            .pieces
            .iter()
            .find(|&&(a, b, _)| a <= start && end <= b && start <= end)?;
        Some(SourceSpan::new((at + start - a).into(), end - start))
    }
}

/// Whether the lines a renderer shows for `start..end` of `text` (the lines the span touches
/// and one line each side) are all at most `2 * LINE_WINDOW` bytes long, so that they can be
/// shown whole. Where they are not, show an [`Excerpt`] (a miette renderer given a line of
/// more than 65 535 columns panics). The work is the length of those lines, at most.
pub fn lines_fit(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let start = start.min(bytes.len());
    let end = end.clamp(start, bytes.len());
    let max = 2 * LINE_WINDOW;
    // Back to the start of the line before the span's (two line breaks back), looking at most
    // one line's worth beyond the limit.
    let mut a = start;
    for _ in 0..2 {
        let lo = a.saturating_sub(max + 1);
        match memchr::memrchr(b'\n', &bytes[lo..a]) {
            Some(i) => a = lo + i,
            None if lo == 0 => {
                a = 0;
                break;
            }
            None => return false,
        }
    }
    // Forward to the end of the line after the span's.
    let mut b = end;
    for round in 0..2 {
        let from = if round == 0 {
            b
        } else {
            (b + 1).min(bytes.len())
        };
        let hi = (from + max + 1).min(bytes.len());
        match memchr::memchr(b'\n', &bytes[from..hi]) {
            Some(i) => b = from + i,
            None if hi == bytes.len() => {
                b = bytes.len();
                break;
            }
            None => return false,
        }
    }
    // Each line's length, from the line break before it (or the start of the text) to the one
    // after it (or the end).
    let mut after_break = if bytes.get(a) == Some(&b'\n') {
        a + 1
    } else {
        a
    };
    for nl in memchr::memchr_iter(b'\n', &bytes[a..b])
        .map(|i| a + i)
        .chain([b])
    {
        if nl.saturating_sub(after_break) > max {
            return false;
        }
        after_break = nl + 1;
    }
    true
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text.as_str().read_span(span, before, after)?;
        let (data, span) = (inner.data(), *inner.span());
        let (line, column, count) = (
            inner.line() + self.first_line,
            inner.column(),
            inner.line_count(),
        );
        Ok(Box::new(match &self.name {
            Some(name) => {
                MietteSpanContents::new_named(name.clone(), data, span, line, column, count)
            }
            None => MietteSpanContents::new(data, span, line, column, count),
        }))
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

/// `bytes` as UTF-8 text, or where they are not.
pub(crate) fn text_of(bytes: Vec<u8>) -> Result<String, ReadTextError> {
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
        let e = crate::guard::RootGuard::anywhere()
            .read_text(&path, crate::guard::SPEC_LIMIT)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2, column 11: byte 0xE9 is not UTF-8 (toolspec reads specs and settings as UTF-8 text)"
        );
        assert!(matches!(e, ReadTextError::NotUtf8 { offset: 19, .. }));
        std::fs::write(&path, "spec s {}\n").unwrap();
        assert_eq!(
            crate::guard::RootGuard::anywhere()
                .read_text(&path, crate::guard::SPEC_LIMIT)
                .unwrap(),
            "spec s {}\n"
        );
        assert!(matches!(
            crate::guard::RootGuard::anywhere()
                .read_text(&dir.path().join("missing"), crate::guard::SPEC_LIMIT),
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
    fn excerpts_keep_true_line_numbers_and_clip_long_lines() {
        let text = format!(
            "l1\nl2\n{}TARGET{}\nl4\nl5",
            "x".repeat(5000),
            "y".repeat(5000)
        );
        let start = text.find("TARGET").unwrap();
        let (ex, span) = Excerpt::new("t.json", &text, 3, start, start + 6);
        assert_eq!(ex.first_line, 1);
        assert!(ex.text.len() < 1000, "{}", ex.text.len());
        assert_eq!(
            &ex.text[span.offset()..span.offset() + span.len()],
            "TARGET"
        );
        let contents = ex.read_span(&span, 0, 0).unwrap();
        assert_eq!(contents.line(), 2);
    }

    /// Past the scan window a line's start is not looked for: the excerpt is the window around
    /// the span, with the line number the finding gives, and no neighbour line.
    #[test]
    fn excerpts_of_very_long_lines_cost_the_window_only() {
        let text = format!(
            "a\nb\n{}TARGET{}\nz",
            "x".repeat(100_000),
            "y".repeat(100_000)
        );
        let start = text.find("TARGET").unwrap();
        let (ex, span) = Excerpt::new("t.json", &text, 3, start, start + 6);
        assert_eq!(ex.first_line, 2);
        assert!(!ex.text.contains('\n') && ex.text.len() <= 2 * LINE_WINDOW + 6);
        assert_eq!(
            &ex.text[span.offset()..span.offset() + span.len()],
            "TARGET"
        );
        assert_eq!(ex.read_span(&span, 0, 0).unwrap().line(), 2);
        // The last line of a file, and a span at its very end.
        let (ex, span) = Excerpt::new("t.json", &text, 4, text.len() - 1, text.len());
        assert_eq!(ex.first_line, 2);
        assert!(
            ex.text.ends_with("\nz"),
            "{:?}",
            &ex.text[ex.text.len() - 5..]
        );
        assert_eq!(&ex.text[span.offset()..span.offset() + span.len()], "z");
    }

    #[test]
    fn lines_fit_looks_at_the_span_lines_and_their_neighbours() {
        let long = "x".repeat(400);
        let text = format!("a\nb\nc\n{long}\nd\ne\n");
        let at = |s: &str| text.find(s).unwrap();
        assert!(lines_fit(&text, at("a"), at("a") + 1));
        assert!(lines_fit(&text, at("b"), at("b") + 1));
        assert!(!lines_fit(&text, at("c"), at("c") + 1));
        assert!(!lines_fit(&text, at("d"), at("d") + 1));
        assert!(lines_fit(&text, at("e"), at("e") + 1));
        assert!(!lines_fit(&text, at("a"), at("e")));
        let exact = format!("a\n{}\nb", "y".repeat(2 * LINE_WINDOW));
        assert!(lines_fit(&exact, 0, 1));
        assert!(lines_fit(&exact, exact.len() - 1, exact.len()));
        let over = format!("a\n{}\nb", "y".repeat(2 * LINE_WINDOW + 1));
        assert!(!lines_fit(&over, 0, 1));
        assert!(lines_fit("", 0, 0));
    }

    #[test]
    fn excerpts_map_the_spans_they_hold() {
        let text = format!("one\ntwo {}\nthree", "z".repeat(1000));
        let at = text.find("two").unwrap();
        let (ex, span) = Excerpt::new("t", &text, 2, at, at + 3);
        assert_eq!(ex.map(at, at + 3), Some(span));
        let one = ex.map(0, 3).unwrap();
        assert_eq!(&ex.text[one.offset()..one.offset() + one.len()], "one");
        assert_eq!(ex.map(at + 900, at + 903), None);
    }

    #[test]
    fn span_join_and_new_normalise() {
        assert_eq!(Span::new(5, 2), Span { start: 2, end: 5 });
        assert_eq!(Span::new(1, 3).join(Span::new(7, 9)), Span::new(1, 9));
        assert!(Span::point(4).is_empty());
    }
}
