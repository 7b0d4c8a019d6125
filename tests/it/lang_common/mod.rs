//! Helpers shared by the `lang_*` tests.
#![allow(dead_code)]

use toolspec::compile::{compile, CompileResult, MapLoader, SpecDiagnostic};
use toolspec::source::SourceFile;

/// Every bundled spec file (`specs/**/*.toolspec`), as paths relative to the repository with
/// `/` separators, sorted.
pub(crate) fn bundled_spec_files() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut dirs = vec![root.join("specs")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "toolspec") {
                let rel = p.strip_prefix(root).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// Render a diagnostic as the CLI does, without colours (unicode, 100 columns).
pub(crate) fn render(d: &SpecDiagnostic) -> String {
    let mut s = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .render_report(&mut s, d)
        .expect("rendering into a String cannot fail");
    s
}

/// Compile `text` as `a.toolspec` with `files` available to `include`.
pub(crate) fn compile_with(text: &str, files: &[(&str, &str)]) -> CompileResult {
    let mut loader = MapLoader::new();
    for (name, body) in files {
        loader.insert(name, body);
    }
    compile(&SourceFile::new("a.toolspec", text), &loader)
}

/// Every diagnostic of `text`, rendered and joined.
pub(crate) fn render_all(text: &str, files: &[(&str, &str)]) -> String {
    let r = compile_with(text, files);
    assert_eq!(
        r.file.is_none(),
        r.diagnostics
            .iter()
            .any(toolspec::compile::SpecDiagnostic::is_error),
        "file is None iff there is an error"
    );
    r.diagnostics
        .iter()
        .map(render)
        .collect::<Vec<_>>()
        .join("\n")
}
