//! A guard run before the grammar: brackets nested deeper than [`MAX_NESTING`] are refused.
//!
//! The pest parser, the tree walk and every later stage recurse once per nesting level (JSON
//! literals, output matchers, parentheses), so a hostile file with 100 000 `[` would otherwise
//! overflow the stack of a worker thread, which no error handling can catch. JSON transcripts get
//! the same limit from serde_json (128 levels).

// A diagnostic is built at most once per file, never in a loop: boxing it would only add noise
// (the same choice as the parser's).
#![allow(clippy::result_large_err)]

use super::{Code, SpecDiagnostic};
use crate::source::{SourceFile, Span};

/// Deepest bracket nesting (`(`, `[`, `{` together) a spec file may use.
pub const MAX_NESTING: usize = 128;

/// The diagnostic for the first bracket that opens level `MAX_NESTING + 1`, if any. Brackets in
/// string literals and comments do not count; an unbalanced bracket in a regular expression
/// literal counts once, which the limit leaves room for.
pub(crate) fn check(source: &SourceFile) -> Result<(), SpecDiagnostic> {
    let bytes = source.text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(too_deep(source, i));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

fn too_deep(source: &SourceFile, at: usize) -> SpecDiagnostic {
    SpecDiagnostic::error(
        Code::Syntax,
        source,
        format!("nesting too deep: more than {MAX_NESTING} levels of brackets"),
    )
    .label(Span::new(at, at + 1), "this bracket opens one level too many")
    .help(format!(
        "specs nest values at most {MAX_NESTING} levels deep; flatten the value or check it with a path (`a.b.c: ...`)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_text(text: &str) -> Result<(), SpecDiagnostic> {
        check(&SourceFile::new("t.toolspec", text.to_owned()))
    }

    #[test]
    fn deep_brackets_are_refused_at_the_first_bracket_too_many() {
        let text = format!(
            "spec s {{ call f(q: {}1{}) }}",
            "[".repeat(200),
            "]".repeat(200)
        );
        let err = check_text(&text).unwrap_err();
        // `spec s {` and `f(` open two levels; the 127th `[` opens level 129.
        let first = text.find('[').unwrap();
        assert_eq!(err.span(), Some(Span::new(first + 126, first + 127)));
        assert!(err.message.contains("nesting too deep"));
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let many = "[".repeat(500);
        let text = format!("# {many}\nspec s {{ call f(q: \"{many}\\\"{many}\") }}\n");
        assert!(check_text(&text).is_ok());
        let limit = format!("{}{}", "[".repeat(MAX_NESTING), "]".repeat(MAX_NESTING));
        assert!(check_text(&limit).is_ok());
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
