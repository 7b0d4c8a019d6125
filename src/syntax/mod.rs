//! Syntax: `.toolspec` source text → [`ast::File`] with a byte span on every node. The only
//! module that knows pest (`grammar/toolspec.pest`).
//!
//! [`parse`] fails with one [`SpecDiagnostic`] (code `toolspec::syntax`) at the first place the
//! text leaves the grammar, saying in words what was expected. Words in keyword positions that the
//! grammar cannot judge (modes, options, unknown statements) parse fine and are checked by
//! `compile`, which reports all of them. [`format()`] prints a file canonically, comments kept.
//! The [`SpecDiagnostic`] type lives here because parsing is the first stage that produces one;
//! `compile` re-exports it. Its codes are [`crate::code::Code`]s.

// Diagnostics are the cold path and the public signatures return them by value (the CLI
// contract); boxing them would cost every caller a deref for no measurable gain.
#![allow(clippy::result_large_err)]

pub mod ast;
mod depth;
mod diagnostic;
mod expected;
mod format;
mod parser;
pub mod words;

pub use diagnostic::{Renderable, SpecDiagnostic};

use crate::source::SourceFile;

/// Parse `source` into a syntax tree.
pub fn parse(source: &SourceFile) -> Result<ast::File, SpecDiagnostic> {
    depth::check(source)?;
    parser::parse_file(source)
}

/// Format `source` canonically (what `toolspec fmt` writes): idempotent, comments kept.
pub fn format(source: &SourceFile) -> Result<String, SpecDiagnostic> {
    let file = parse(source)?;
    Ok(format::format_file(&source.text, &file))
}

#[cfg(test)]
mod tests {
    use super::ast::*;
    use super::*;
    use crate::code::Code;

    fn parse_str(text: &str) -> File {
        parse(&SourceFile::new("t.toolspec", text)).unwrap()
    }

    fn only_stmt(text: &str) -> Stmt {
        match parse_str(text).items.remove(0) {
            Item::Spec(mut s) => s.stmts.remove(0),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn spans_exclude_trailing_space_and_comments() {
        let text = "spec s {\n  call f(a: 1)   # why\n\n  never g\n}\n";
        let st = only_stmt(text);
        assert_eq!(&text[st.span.start..st.span.end], "call f(a: 1)");
        let file = parse_str(text);
        assert_eq!(file.comments.len(), 1);
        assert_eq!(file.comments[0].text, "# why");
    }

    #[test]
    fn keywords_are_whole_words() {
        // `callx` is not `call x`: it is an unknown statement.
        let st = only_stmt("spec s {\n  callx f\n}\n");
        assert!(matches!(st.kind, StmtKind::Unknown(ref u) if u.word.name == "callx"));
        // A label may be a keyword.
        let st = only_stmt("spec s {\n  order: call f\n}\n");
        assert!(
            matches!(st.kind, StmtKind::Expect(ref e) if e.label.as_ref().unwrap().name == "order")
        );
    }

    #[test]
    fn tool_names_carry_namespaces_and_strings() {
        let st = only_stmt("spec s {\n  call functions.get-order/v2(x: 1)\n}\n");
        let StmtKind::Expect(e) = st.kind else {
            panic!()
        };
        assert_eq!(e.tool.name, "functions.get-order/v2");
        let st = only_stmt("spec s {\n  never \"send mail\"\n}\n");
        let StmtKind::Never { tool, .. } = st.kind else {
            panic!()
        };
        assert_eq!(tool.name, "send mail");
    }

    #[test]
    fn output_and_suffixes_parse_in_place() {
        let st = only_stmt(
            "spec s {\n  call f exact {\"a\": 1} -> subset {\"b\": 2} errored weight 2\n}\n",
        );
        let StmtKind::Expect(e) = st.kind else {
            panic!()
        };
        assert!(matches!(e.args, Some(Body::Exact(_))));
        assert!(matches!(e.output, Some(OutputBody::Subset(_))));
        assert_eq!(e.suffixes.len(), 2);
    }

    #[test]
    fn reference_operators_format_canonically_and_stably() {
        let text = "spec s {\n  a: call f\n  call g(x:<=a.output.n   and >a.args.m, y:not   in a.output.l[*].id, z: in a.output.z)\n}\n";
        let once = format(&SourceFile::new("t.toolspec", text)).unwrap();
        assert!(
            once.contains(
                "call g(x: <= a.output.n and > a.args.m, y: not in a.output.l[*].id, z: in a.output.z)"
            ),
            "{once}"
        );
        let twice = format(&SourceFile::new("t.toolspec", &once)).unwrap();
        assert_eq!(once, twice);
        // `in` is a whole word: `index` stays a (bad) value, not `in dex`.
        assert!(parse(&SourceFile::new(
            "t",
            "spec s {\n  call g(x: index.output.y)\n}\n"
        ))
        .is_ok());
        assert!(parse(&SourceFile::new(
            "t",
            "spec s {\n  call g(x: inx.output.y)\n}\n"
        ))
        .is_ok());
    }

    #[test]
    fn syntax_errors_speak_words() {
        let err = parse(&SourceFile::new("t", "spec s {\n  call f(a: )\n}\n")).unwrap_err();
        assert_eq!(err.code, Code::Syntax);
        assert!(
            err.message.contains("a value or constraint"),
            "{}",
            err.message
        );
        assert!(
            !err.message.contains('_'),
            "rule names leak: {}",
            err.message
        );
    }
}
