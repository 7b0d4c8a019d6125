//! Syntax: `.toolspec` source text → [`ast::File`] with a byte span on every node. The only
//! module that knows pest (`grammar/toolspec.pest`).
//!
//! [`parse`] fails with one [`SpecDiagnostic`] (code `toolspec::syntax`) at the first place the
//! text leaves the grammar, saying in words what was expected. Words in keyword positions that the
//! grammar cannot judge (modes, options, unknown statements) parse fine and are checked by
//! `compile`, which reports all of them. [`format()`] prints a file canonically, comments kept.
//! The [`SpecDiagnostic`] type and its [`Code`]s live here because parsing is the first stage that
//! produces them; `compile` re-exports them.

pub mod ast;
mod code;
mod diagnostic;
mod expected;
mod format;
mod nesting;
mod parser;

pub use code::Code;
pub use diagnostic::SpecDiagnostic;

use crate::source::SourceFile;

/// Parse `source` into a syntax tree.
pub fn parse(source: &SourceFile) -> Result<ast::File, SpecDiagnostic> {
    parser::parse_file(source)
}

/// Format `source` canonically (what `toolspec fmt` writes): idempotent, comments kept.
pub fn format(source: &SourceFile) -> Result<String, SpecDiagnostic> {
    let file = parse(source)?;
    Ok(format::format_file(&source.text, &file))
}
