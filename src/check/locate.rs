//! Line and column of byte offsets in a transcript file, resolved as its transcripts are checked.
//!
//! While a transcript is checked, findings point into its file with byte spans only ([`pending`]
//! locations). Once its results are complete, a [`Locator`] fills in their lines and columns:
//! from the bytes already in memory when the file was read whole, or by streaming the file when
//! it was too large to hold (so a 1 GB transcript is never loaded to place its findings). The
//! locator keeps its place between transcripts, so a file's transcripts, in order, cost one pass
//! over it together.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::report::model::Location;
use crate::source::Span;

/// Marks a location whose byte offset is still to be found from its line and column.
const UNKNOWN_OFFSET: [usize; 2] = [usize::MAX, usize::MAX];

/// A location in `file` known by its byte span; line and column come from [`resolve`].
pub(crate) fn pending(file: &str, span: Span) -> Location {
    Location {
        file: file.to_owned(),
        line: 0,
        column: 0,
        end_line: 0,
        end_column: 0,
        span: [span.start, span.end],
    }
}

/// A location in `file` known by its 1-based line and column (a read error); [`resolve`] finds
/// its byte offset.
pub(crate) fn pending_line_col(file: &str, line: usize, column: usize) -> Location {
    Location {
        file: file.to_owned(),
        line,
        column,
        end_line: line,
        end_column: column,
        span: UNKNOWN_OFFSET,
    }
}

fn is_pending(l: &Location) -> bool {
    l.line == 0 || l.span == UNKNOWN_OFFSET
}

/// Fill in every pending location of `locations`, from `text` (the whole file, if it was read
/// whole) or by streaming `path`. A line/column past the end of the file keeps its line and
/// column at offset 0; if the file cannot be read again, lines and columns fall back to 1:1 (a
/// location is never dropped).
pub(crate) fn resolve<'a>(
    locations: impl IntoIterator<Item = &'a mut Location>,
    text: Option<&[u8]>,
    path: &Path,
) {
    Locator::new(text, path).resolve(locations);
}

/// Places the pending locations of a file, batch after batch (a transcript's results at a
/// time), following the file forward: offsets that only grow from batch to batch (the
/// transcripts of a file, in order) are placed in one pass over it, however many batches. An
/// offset behind the last one placed starts the pass again from the top.
pub(crate) struct Locator<'t> {
    text: Option<&'t [u8]>,
    path: &'t Path,
    /// The file, when it is streamed (opened on first use).
    file: Option<std::fs::File>,
    /// Streamed bytes of the file from `buf_start`.
    buf: Vec<u8>,
    buf_start: usize,
    /// The file could not be read: everything is placed at 1:1.
    broken: bool,
    /// Bytes passed so far, and the line (1-based) and characters since its start there.
    pos: usize,
    line: usize,
    col: usize,
}

/// Bytes read at a time from a streamed file.
const READ_CHUNK: usize = 1 << 20;

impl<'t> Locator<'t> {
    /// A locator over `text` (the whole file, if it was read whole) or streaming `path`.
    pub(crate) fn new(text: Option<&'t [u8]>, path: &'t Path) -> Self {
        Locator {
            text,
            path,
            file: None,
            buf: Vec::new(),
            buf_start: 0,
            broken: false,
            pos: 0,
            line: 1,
            col: 0,
        }
    }

    /// Fill in every pending location of `locations` (see [`resolve`]).
    pub(crate) fn resolve<'a>(&mut self, locations: impl IntoIterator<Item = &'a mut Location>) {
        let mut pending: Vec<&mut Location> =
            locations.into_iter().filter(|l| is_pending(l)).collect();
        if pending.is_empty() {
            return;
        }
        // Read errors come with a line and column: find their offsets first.
        let (text, path) = (self.text, self.path);
        pending.retain_mut(|l| {
            if l.span != UNKNOWN_OFFSET {
                return true;
            }
            let at = match text {
                Some(bytes) => line_start(bytes, l.line)
                    .map(|start| start + char_offset(&bytes[start..], l.column)),
                None => streamed_offset_of_line_col(path, l.line, l.column),
            };
            l.span = [at.unwrap_or(0); 2];
            at.is_some()
        });
        let found = self.positions(pending.iter().flat_map(|l| l.span).collect());
        for l in pending {
            (l.line, l.column) = found.at(l.span[0]);
            (l.end_line, l.end_column) = found.at(l.span[1]);
        }
    }

    /// The lines and columns of `offsets` (any order, repeats allowed), as [`Self::resolve`]
    /// places them: every distinct offset, in order, in one pass over the text, so each byte is
    /// looked at once however many places share a long line. For [`Self::resolve`], and for a
    /// caller that places its locations itself, as it builds them.
    pub(crate) fn positions(&mut self, mut offsets: Vec<usize>) -> Positions {
        offsets.sort_unstable();
        offsets.dedup();
        let found = if offsets.is_empty() {
            Vec::new()
        } else {
            self.place(&offsets)
        };
        Positions { offsets, found }
    }

    /// The 1-based (line, column) of each of the sorted, distinct `offsets`, in the sense of
    /// [`LineIndex::line_col`](crate::source::LineIndex::line_col) (offsets past the end are
    /// clamped to it); empty if a streamed file cannot be read.
    fn place(&mut self, offsets: &[usize]) -> Vec<(usize, usize)> {
        if offsets.first().is_some_and(|&o| o < self.pos) {
            self.restart();
        }
        let mut out = Vec::with_capacity(offsets.len());
        for &o in offsets {
            if self.advance_to(o).is_err() {
                self.broken = true;
            }
            if self.broken {
                return Vec::new();
            }
            out.push((self.line, self.col + 1));
        }
        out
    }

    fn restart(&mut self) {
        (self.pos, self.line, self.col) = (0, 1, 0);
        self.buf.clear();
        self.buf_start = 0;
        self.file = None;
    }

    /// Pass the bytes up to `offset` (or the end of the file).
    fn advance_to(&mut self, offset: usize) -> std::io::Result<()> {
        if let Some(text) = self.text {
            let stop = offset.min(text.len()).max(self.pos);
            let seg = &text[self.pos..stop];
            self.pass(seg);
            return Ok(());
        }
        while self.pos < offset {
            let buf_end = self.buf_start + self.buf.len();
            if self.pos == buf_end {
                let file = match &mut self.file {
                    Some(f) => f,
                    None => self.file.insert(crate::guard::open_regular(self.path)?),
                };
                self.buf.resize(READ_CHUNK, 0);
                let n = read_some(file, &mut self.buf)?;
                self.buf.truncate(n);
                self.buf_start = buf_end;
                if n == 0 {
                    return Ok(()); // the end of the file
                }
                continue;
            }
            let stop = offset.min(buf_end);
            let seg = &self.buf[self.pos - self.buf_start..stop - self.buf_start];
            let (line, col) = passed(seg, self.line, self.col);
            (self.line, self.col, self.pos) = (line, col, stop);
        }
        Ok(())
    }

    fn pass(&mut self, seg: &[u8]) {
        (self.line, self.col) = passed(seg, self.line, self.col);
        self.pos += seg.len();
    }
}

/// Line and column after `seg`, from `line` and `col` before it.
fn passed(seg: &[u8], line: usize, col: usize) -> (usize, usize) {
    match memchr::memrchr(b'\n', seg) {
        Some(last) => (
            line + memchr::memchr_iter(b'\n', seg).count(),
            chars(&seg[last + 1..]),
        ),
        None => (line, col + chars(seg)),
    }
}

/// Read what is there (retrying interrupted reads).
fn read_some(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

/// Byte offset where 1-based `line` starts in `text`, if it has that many lines.
fn line_start(text: &[u8], line: usize) -> Option<usize> {
    match line.checked_sub(1)? {
        0 => Some(0),
        n => memchr::memchr_iter(b'\n', text).nth(n - 1).map(|i| i + 1),
    }
}

/// Offset in `bytes` where the 1-based `column`-th character starts (characters counted as
/// UTF-8 sequence starts, on across line ends); the end of `bytes` if it has fewer.
fn char_offset(bytes: &[u8], column: usize) -> usize {
    let mut skip = column.saturating_sub(1);
    for (i, &b) in bytes.iter().enumerate() {
        if (b & 0xC0) != 0x80 {
            if skip == 0 {
                return i;
            }
            skip -= 1;
        }
    }
    bytes.len()
}

/// The offset of 1-based `line` and `column`, streaming the file (never holding a line whole);
/// `None` if the file has fewer lines or cannot be read.
fn streamed_offset_of_line_col(path: &Path, line: usize, column: usize) -> Option<usize> {
    let mut reader = BufReader::with_capacity(1 << 16, crate::guard::open_regular(path).ok()?);
    let (mut cur, mut pos) = (1usize, 0usize);
    while cur < line {
        let buf = reader.fill_buf().ok()?;
        if buf.is_empty() {
            return None;
        }
        let n = match memchr::memchr(b'\n', buf) {
            Some(i) => {
                cur += 1;
                i + 1
            }
            None => buf.len(),
        };
        reader.consume(n);
        pos += n;
    }
    let mut skip = column.saturating_sub(1);
    loop {
        let buf = reader.fill_buf().ok()?;
        if buf.is_empty() {
            return Some(pos);
        }
        for (i, &b) in buf.iter().enumerate() {
            if (b & 0xC0) != 0x80 {
                if skip == 0 {
                    return Some(pos + i);
                }
                skip -= 1;
            }
        }
        let n = buf.len();
        reader.consume(n);
        pos += n;
    }
}

/// Characters in `bytes` (UTF-8 sequence starts; a stray byte counts as one).
fn chars(bytes: &[u8]) -> usize {
    // The bytes less the UTF-8 continuation bytes (0b10xx_xxxx, below -0x40 as `i8`), summed
    // in chunks the compiler turns into vector code.
    let continuation: usize = bytes
        .chunks(255)
        .map(|c| {
            let n: u8 = c.iter().map(|&b| u8::from((b as i8) < -0x40)).sum();
            usize::from(n)
        })
        .sum();
    bytes.len() - continuation
}

/// Lines and columns of a set of offsets, from [`Locator::positions`].
pub(crate) struct Positions {
    /// The offsets asked for, sorted and distinct.
    offsets: Vec<usize>,
    /// Their (line, column), in the same order; empty if a streamed file cannot be read.
    found: Vec<(usize, usize)>,
}

impl Positions {
    /// The 1-based (line, column) of `offset`; 1:1 if it was not asked for or not placed.
    pub(crate) fn at(&self, offset: usize) -> (usize, usize) {
        self.offsets
            .binary_search(&offset)
            .ok()
            .and_then(|i| self.found.get(i))
            .copied()
            .unwrap_or((1, 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::LineIndex;
    use std::io::Write;

    #[test]
    fn chars_counts_utf8_sequence_starts_in_long_runs() {
        for unit in ["a", "é", "€", "😀", "a\u{e9}\u{20ac}\u{1f600}\n"] {
            for n in [0, 1, 63, 64, 254, 255, 256, 1000] {
                let text = unit.repeat(n);
                assert_eq!(
                    chars(text.as_bytes()),
                    text.chars().count(),
                    "{unit:?} x {n}"
                );
            }
        }
    }

    fn whole(text: &[u8], spans: &[(usize, usize)]) -> Vec<Location> {
        let mut locs: Vec<Location> = spans
            .iter()
            .map(|&(s, e)| pending("f", Span::new(s, e)))
            .collect();
        resolve(locs.iter_mut(), Some(text), Path::new("/nonexistent"));
        locs
    }

    fn streamed(text: &[u8], spans: &[(usize, usize)]) -> Vec<Location> {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text).unwrap();
        let mut locs: Vec<Location> = spans
            .iter()
            .map(|&(s, e)| pending("f", Span::new(s, e)))
            .collect();
        resolve(locs.iter_mut(), None, f.path());
        locs
    }

    #[test]
    fn streaming_agrees_with_the_whole_text_everywhere() {
        let text = "{\"a\": \"é\"}\n\n  {\"b\": [1,\n2]}\nlast line without newline ü".as_bytes();
        let spans: Vec<(usize, usize)> = (0..=text.len() + 3)
            .map(|s| (s, (s + 7).min(text.len() + 5)))
            .collect();
        let a = whole(text, &spans);
        let b = streamed(text, &spans);
        assert_eq!(a, b);
        // Every offset (past the end: clamped) is placed as LineIndex::line_col places it.
        let index = LineIndex::new(text);
        for (l, &(s, e)) in a.iter().zip(&spans) {
            let (start, end) = (index.line_col(text, s), index.line_col(text, e));
            assert_eq!((l.line, l.column), (start.line, start.col), "offset {s}");
            assert_eq!(
                (l.end_line, l.end_column),
                (end.line, end.col),
                "offset {e}"
            );
        }
    }

    #[test]
    fn offsets_across_chunk_boundaries() {
        // Lines of 1000 bytes, so that the 1 MiB read buffer splits lines.
        let line = format!("{}\n", "x".repeat(999));
        let text = line.repeat(3000);
        let spans = [
            (0, 0),
            (1 << 20, (1 << 20) + 1),
            (2_999_999, 3_000_000),
            (1_048_575, 1_048_577),
        ];
        assert_eq!(
            whole(text.as_bytes(), &spans),
            streamed(text.as_bytes(), &spans)
        );
        let s = &streamed(text.as_bytes(), &spans)[1];
        assert_eq!(
            (s.line, s.column),
            ((1 << 20) / 1000 + 1, (1 << 20) % 1000 + 1)
        );
    }

    /// Batch after batch (a file's transcripts), forward, backward (a second format reading the
    /// file again) and past the end: the same places as one pass, from memory and streamed.
    #[test]
    fn batches_in_any_order_agree_with_one_pass() {
        let line = "{\"é\": 1, \"x\": \"ü\"}\n";
        let text = format!(
            "{}no newline at the end {}",
            line.repeat(5000),
            "ä".repeat(10)
        );
        let text = text.as_bytes();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text).unwrap();
        let n = text.len();
        let batches: Vec<Vec<(usize, usize)>> = vec![
            vec![(0, 5), (3, 3)],
            vec![(30, 40), (29, 2000)],
            vec![(1 << 20, (1 << 20) + 9), (50_000, 50_001)],
            vec![(7, 8)], // behind: starts over
            vec![(n - 1, n), (n, n + 10)],
            vec![(n + 5, n + 6)],
            vec![(100, 120)],
        ];
        let all: Vec<(usize, usize)> = batches.iter().flatten().copied().collect();
        let want = whole(text, &all);
        for src in [Some(text), None] {
            let mut locator = Locator::new(src, f.path());
            let mut got = Vec::new();
            for b in &batches {
                let mut locs: Vec<Location> = b
                    .iter()
                    .map(|&(s, e)| pending("f", Span::new(s, e)))
                    .collect();
                locator.resolve(locs.iter_mut());
                got.extend(locs);
            }
            assert_eq!(got, want, "streamed: {}", src.is_none());
        }
    }

    #[test]
    fn an_unreadable_file_places_everything_at_the_start() {
        let mut locs = [pending("f", Span::new(10, 20))];
        Locator::new(None, Path::new("/nonexistent/file")).resolve(locs.iter_mut());
        assert_eq!((locs[0].line, locs[0].column), (1, 1));
        assert_eq!((locs[0].end_line, locs[0].end_column), (1, 1));
    }

    #[test]
    fn line_and_column_become_offsets() {
        let text = "ab\ncdé f\n".as_bytes();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text).unwrap();
        for src in [Some(text), None] {
            let mut locs = [pending_line_col("f", 2, 4), pending_line_col("f", 9, 1)];
            resolve(locs.iter_mut(), src, f.path());
            assert_eq!(locs[0].span, [7, 7], "{src:?}");
            assert_eq!((locs[0].line, locs[0].column), (2, 4));
            // A line past the end keeps its line and column, at offset 0.
            assert_eq!((locs[1].line, locs[1].column, locs[1].span), (9, 1, [0, 0]));
        }
    }
}
