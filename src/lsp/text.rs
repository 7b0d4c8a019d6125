//! Positions and file names as the protocol writes them: a line and a character offset counted
//! in UTF-16 code units (the protocol's default) or in bytes (UTF-8, when the client offers it
//! at initialization), and `file:` URIs.

use std::path::{Path, PathBuf};

use lsp_types::{Position, Range, Uri};

use crate::source::Span;

/// How a position's `character` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// UTF-16 code units (the protocol's default).
    Utf16,
    /// Bytes.
    Utf8,
}

/// Line starts of a text, to turn byte offsets into positions and back. Each conversion costs
/// the length of one line, at most.
#[derive(Debug, Clone)]
pub(crate) struct Lines {
    starts: Vec<usize>,
    len: usize,
}

impl Lines {
    /// Index `text` (`\n` ends a line; a `\r` before it belongs to no position).
    pub(crate) fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Lines {
            starts,
            len: text.len(),
        }
    }

    /// The position of byte `offset` of `text` (clamped to the text, and back to a character
    /// boundary).
    pub(crate) fn position(&self, text: &str, offset: usize, enc: Encoding) -> Position {
        let mut offset = offset.min(self.len).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let character = match enc {
            Encoding::Utf8 => offset - start,
            Encoding::Utf16 => text[start..offset].chars().map(char::len_utf16).sum(),
        };
        Position::new(
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(character).unwrap_or(u32::MAX),
        )
    }

    /// The range of `span` in `text`.
    pub(crate) fn range(&self, text: &str, span: Span, enc: Encoding) -> Range {
        Range::new(
            self.position(text, span.start, enc),
            self.position(text, span.end, enc),
        )
    }

    /// The byte offset of `pos` in `text`: a line past the end is the end of the text, a
    /// character past the end of its line the line's end (before its `\r\n`), a character
    /// inside a UTF-16 pair or a UTF-8 sequence the start of that character.
    pub(crate) fn offset(&self, text: &str, pos: Position, enc: Encoding) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .map_or(text.len(), |&next| next - 1);
        let line = &text[start..end];
        let line = line.strip_suffix('\r').unwrap_or(line);
        let want = pos.character as usize;
        let mut count = 0;
        for (i, c) in line.char_indices() {
            let width = match enc {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
            if count + width > want {
                return start + i;
            }
            count += width;
        }
        start + line.len()
    }
}

/// The file a `file:` URI names (percent-decoded); `None` for any other URI, or one naming no
/// absolute path.
pub(crate) fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // An authority of `localhost` (or none) names this machine; any other is not a local file.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    let text = String::from_utf8(out).ok()?;
    if text.contains('\0') {
        return None;
    }
    Some(PathBuf::from(text))
}

/// The `file:` URI of the absolute path `path` (bytes outside the unreserved set and `/`
/// percent-encoded).
pub(crate) fn path_uri(path: &Path) -> Option<Uri> {
    let text = path.to_str()?;
    let mut out = String::from("file://");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_count_surrogate_pairs_twice() {
        let text = "a😀b\nxé\r\nz";
        let lines = Lines::new(text);
        let b = text.find('b').unwrap();
        assert_eq!(
            lines.position(text, b, Encoding::Utf16),
            Position::new(0, 3)
        );
        assert_eq!(lines.position(text, b, Encoding::Utf8), Position::new(0, 5));
        assert_eq!(lines.offset(text, Position::new(0, 3), Encoding::Utf16), b);
        // Inside the pair: the character's start.
        assert_eq!(lines.offset(text, Position::new(0, 2), Encoding::Utf16), 1);
        // Past the line's end: before its `\r\n`.
        assert_eq!(
            lines.offset(text, Position::new(1, 40), Encoding::Utf16),
            text.find('\r').unwrap()
        );
        assert_eq!(
            lines.offset(text, Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
        let z = text.find('z').unwrap();
        assert_eq!(
            lines.position(text, z, Encoding::Utf16),
            Position::new(2, 0)
        );
        // Inside a UTF-8 sequence: back to its start.
        let e = text.find('é').unwrap();
        assert_eq!(
            lines.position(text, e + 1, Encoding::Utf8),
            lines.position(text, e, Encoding::Utf8)
        );
    }

    #[test]
    fn file_uris_round_trip() {
        let p = Path::new("/tmp/a b/ü#.toolspec");
        let uri = path_uri(p).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%BC%23.toolspec");
        assert_eq!(uri_path(&uri).unwrap(), p);
        let other: Uri = "https://example.com/a".parse().unwrap();
        assert_eq!(uri_path(&other), None);
        let nul: Uri = "file:///a%00b".parse().unwrap();
        assert_eq!(uri_path(&nul), None);
    }
}
