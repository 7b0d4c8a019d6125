//! A nesting limit, checked before parsing: the parser and the tree walk recurse once per level
//! of `[`, `{`, `(` and `not`, and a hostile file must not exhaust the stack.

use super::{Code, SpecDiagnostic};
use crate::source::{SourceFile, Span};

/// Deepest nesting accepted. Real specs nest a handful of levels.
pub(crate) const MAX_DEPTH: usize = 64;

/// Fail with a syntax diagnostic at the first place nesting exceeds [`MAX_DEPTH`].
pub(crate) fn check(source: &SourceFile) -> Result<(), SpecDiagnostic> {
    let b = source.text.as_bytes();
    let mut depth = 0usize;
    let mut nots = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'[' | b'{' | b'(' => depth += 1,
            b']' | b'}' | b')' => depth = depth.saturating_sub(1),
            b'n' if b[i..].starts_with(b"not")
                && (i == 0 || !is_word(b[i - 1]))
                && b.get(i + 3).is_none_or(|&c| !is_word(c)) =>
            {
                nots += 1;
                i += 2;
            }
            c if c.is_ascii_whitespace() => {}
            _ => nots = 0,
        }
        if depth + nots > MAX_DEPTH {
            let at = i.min(b.len().saturating_sub(1));
            let end = (at + 1..=b.len())
                .find(|&e| source.text.is_char_boundary(e))
                .unwrap_or(b.len());
            return Err(SpecDiagnostic::error(
                Code::Syntax,
                source,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            )
            .label(Span::new(at, end), "too deep")
            .help("flatten the value; specs rarely need more than a few levels"));
        }
        i += 1;
    }
    Ok(())
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.'
}
