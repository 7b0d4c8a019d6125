//! Text handling: a file's bytes checked for what no transcript holds (binary data, UTF-16,
//! bytes that are not UTF-8), each line as bytes and as text, and where a line's JSON starts
//! (raw JSON lines, or the payload of an MCP log line).

use crate::source::Span;

use super::error::Locator;
use super::readers::Origin;
use super::ReadError;

/// Empty and binary checks of a whole text. UTF-8 is checked elsewhere: once per file held in
/// memory and once per streamed line, so that valid lines are parsed as text; a line that is
/// not valid UTF-8 is parsed as bytes (serde_json checks each string), and a separate pass
/// explains a parse error (and checks the text lines a log reader skips).
pub(super) fn check_text(name: &str, bytes: &[u8]) -> Result<(), ReadError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ReadError::Empty {
            file: name.to_string(),
        });
    }
    check_text_at(name, bytes, 0, 1)
}

pub(super) fn check_text_at(
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
pub(super) fn check_utf8_at(
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
    (b == 0)
        || ((b < 0x20)
            && (b != b'\n')
            && (b != b'\r')
            && (b != b'\t')
            && (b != 0x0c)
            && (b != 0x1b))
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

/// One line of a file: its bytes, and the same bytes as text if they are valid UTF-8.
#[derive(Clone, Copy)]
pub(super) struct Line<'t> {
    pub bytes: &'t [u8],
    pub text: Option<&'t str>,
}

/// Where a line's JSON starts and who sent it: raw JSON lines, Claude Desktop MCP log lines
/// (`… [info] [server] Message from client: {…}`) and stdio captures (`STDIN: {…}`).
/// `None` for lines without JSON (plain log text, `STDERR:` output, blank lines).
pub(super) fn classify(raw: &[u8]) -> Option<(Origin, usize)> {
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
