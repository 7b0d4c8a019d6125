//! Helpers shared by the `lang_*` tests.
#![allow(dead_code)]

use toolspec::compile::{compile, CompileResult, MapLoader, SpecDiagnostic};
use toolspec::source::SourceFile;

/// Render a diagnostic as the CLI does, without colours (unicode, 100 columns).
pub fn render(d: &SpecDiagnostic) -> String {
    let mut s = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .render_report(&mut s, d)
        .expect("rendering into a String cannot fail");
    s
}

/// Compile `text` as `a.toolspec` with `files` available to `include`.
pub fn compile_with(text: &str, files: &[(&str, &str)]) -> CompileResult {
    let mut loader = MapLoader::new();
    for (name, body) in files {
        loader.insert(name, body);
    }
    compile(&SourceFile::new("a.toolspec", text), &loader)
}

/// Every diagnostic of `text`, rendered and joined.
pub fn render_all(text: &str, files: &[(&str, &str)]) -> String {
    let r = compile_with(text, files);
    assert_eq!(
        r.file.is_none(),
        r.diagnostics.iter().any(|d| d.is_error()),
        "file is None iff there is an error"
    );
    r.diagnostics
        .iter()
        .map(render)
        .collect::<Vec<_>>()
        .join("\n")
}
