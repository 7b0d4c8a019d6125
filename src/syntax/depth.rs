//! A nesting limit, checked before parsing: the parser and the tree walk recurse once per level
//! of `[`, `{`, `(` and `not`, and a hostile file must not exhaust the stack.

use super::SpecDiagnostic;
use crate::code::Code;
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
                format!("nesting too deep: more than {MAX_DEPTH} levels"),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn check_text(text: &str) -> Result<(), SpecDiagnostic> {
        check(&SourceFile::new("t.toolspec", text.to_owned()))
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let many = "[".repeat(500);
        let text = format!("# {many}\nspec s {{ call f(q: \"{many}\\\"{many}\") }}\n");
        assert!(check_text(&text).is_ok());
        let limit = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(check_text(&limit).is_ok());
    }

    #[test]
    fn chains_of_not_count_as_nesting() {
        let text = format!("spec s {{ call f(q: {}1) }}", "not ".repeat(MAX_DEPTH + 1));
        assert!(check_text(&text).is_err());
    }

    #[test]
    fn parse_reports_the_limit_instead_of_overflowing() {
        let text = format!(
            "spec s {{ call f(q: {}1{}) }}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let err = crate::syntax::parse(&SourceFile::new("t.toolspec", text)).unwrap_err();
        assert!(err.message.contains("nesting too deep"), "{}", err.message);
    }
}
