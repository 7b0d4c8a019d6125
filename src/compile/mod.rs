//! Compile: `.toolspec` source → [`config::CompiledFile`] (one [`config::MatcherConfig`] per spec).
//!
//! Parses the file, resolves its `include`s through a [`SourceLoader`] (the only way this module
//! reaches outside the text), checks every name, number, regex, label and profile, and lowers the
//! language's defaults into explicit config values. Every problem of the file is reported, each a
//! [`SpecDiagnostic`] with a stable [`Code`](crate::code::Code), a labelled span and help; a file with any error
//! compiles to no config. A syntax error stops its file at the first one.

// Diagnostics are the cold path and the public signatures return them by value (the CLI
// contract); boxing them would cost every caller a deref for no measurable gain.
#![allow(clippy::result_large_err)]

mod diags;
mod includes;
mod loader;
mod lower;
mod regex_lit;
mod suggest;

pub use crate::syntax::SpecDiagnostic;
pub use diags::{MAX_DIAGNOSTICS, MAX_DIAGNOSTICS_PER_FILE};
pub use includes::{MAX_INCLUDED_BYTES, MAX_INCLUDED_FILES, MAX_INCLUDE_DEPTH};
pub use loader::{
    normalize as normalize_path, resolve_include, Buffers, FsLoader, MapLoader, Recording,
    SourceLoader,
};
pub use lower::DEFAULT_FUZZY;
pub use regex_lit::MAX_REGEX_BYTES;

use std::collections::HashMap;

use crate::code::Code;
use crate::config::{self, CompiledFile, CONFIG_VERSION};
use crate::source::{SourceFile, Span};
use crate::syntax::ast::Item;
use crate::syntax::parse;

/// The outcome of [`compile`].
#[derive(Debug, Clone)]
pub struct CompileResult {
    /// The compiled file; `None` iff any diagnostic is an error.
    pub file: Option<config::CompiledFile>,
    /// Every error and warning, in file order (included files' first, where they arise).
    pub diagnostics: Vec<SpecDiagnostic>,
    /// The included files whose `tool` declarations the compiled specs' constraints come from
    /// ([`config::PathCheck::declared`]), for locating those constraints in them.
    pub declarations: Vec<SourceFile>,
}

impl CompileResult {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(SpecDiagnostic::is_error)
    }
}

/// Compile `source`, loading its includes through `loader`.
pub fn compile(source: &SourceFile, loader: &dyn SourceLoader) -> CompileResult {
    let file = match parse(source) {
        Ok(f) => f,
        Err(d) => {
            return CompileResult {
                file: None,
                diagnostics: vec![d],
                declarations: Vec::new(),
            }
        }
    };
    let mut diags = diags::Diags::default();
    let included = includes::resolve(source, &file, loader, &mut diags);
    let mut cx = lower::FileCx {
        diags,
        regexes: Default::default(),
        tools: Vec::new(),
        tool_index: HashMap::new(),
    };

    // Tool declarations: included files first (dependencies before dependants), then this file.
    let mut declared: HashMap<String, (String, Span)> = HashMap::new();
    let decls = included
        .iter()
        .map(|inc| (&inc.source, &inc.file))
        .chain(std::iter::once((source, &file)));
    for (src, f) in decls {
        for item in &f.items {
            let Item::Tool(t) = item else { continue };
            if let Some((first_file, first)) = declared.get(&t.name.name) {
                let mut d = SpecDiagnostic::error(
                    Code::DuplicateTool,
                    src,
                    format!("tool `{}` is declared twice", t.name.name),
                )
                .label(t.name.span, "declared again here");
                if first_file == &src.name {
                    d = d.label(*first, "first declared here");
                }
                cx.diags.push(d.help(format!(
                    "keep one declaration (the first is in `{first_file}`)"
                )));
                continue;
            }
            declared.insert(t.name.name.clone(), (src.name.clone(), t.name.span));
            let lowered = cx.lower_tool(src, t);
            cx.tools.push(lowered);
        }
    }

    let mut specs = Vec::new();
    let mut names: HashMap<&str, Span> = HashMap::new();
    for item in &file.items {
        match item {
            Item::Spec(spec) => {
                if let Some(first) = names.insert(&spec.name.name, spec.name.span) {
                    cx.diags.push(
                        SpecDiagnostic::error(
                            Code::DuplicateSpec,
                            source,
                            format!("spec `{}` is declared twice", spec.name.name),
                        )
                        .label(spec.name.span, "declared again here")
                        .label(first, "first declared here")
                        .help("spec names are unique within a file; rename one"),
                    );
                }
                specs.push(cx.lower_spec(source, spec));
            }
            Item::Unknown(u) => cx.diags.push(includes::unknown_top(source, u)),
            Item::Include(_) | Item::Tool(_) => {}
        }
    }

    let ok = !cx.diags.has_errors();
    let diagnostics = cx.diags.finish();
    let declarations = if ok {
        declaring(&specs, included.into_iter().map(|inc| inc.source))
    } else {
        Vec::new()
    };
    CompileResult {
        file: ok.then(|| CompiledFile {
            version: CONFIG_VERSION,
            source: source.name.clone(),
            specs,
        }),
        diagnostics,
        declarations,
    }
}

/// The files of `included` that a constraint of `specs` comes from.
fn declaring(
    specs: &[config::MatcherConfig],
    included: impl Iterator<Item = SourceFile>,
) -> Vec<SourceFile> {
    let named: std::collections::HashSet<&str> = specs
        .iter()
        .flat_map(|s| &s.expectations)
        .flat_map(|e| &e.args.checks)
        .filter_map(|pc| pc.declared.as_deref())
        .collect();
    if named.is_empty() {
        return Vec::new();
    }
    included
        .filter(|src| named.contains(src.name.as_str()))
        .collect()
}

/// The warning for a transcript glob of `source` that matches no file (the CLI checks globs after
/// discovery; compiling stays free of file-system access).
pub fn glob_matches_nothing(source: &SourceFile, glob: &config::TranscriptGlob) -> SpecDiagnostic {
    SpecDiagnostic::warning(
        Code::GlobMatchesNothing,
        source,
        format!("no transcript matches `{}`", glob.pattern),
    )
    .label(glob.span, "matches no file")
    .help("transcript globs are relative to the spec file's folder; check the path and extension")
}
