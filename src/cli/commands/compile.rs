//! `toolspec compile FILE...`: print the matcher config of spec files as JSON.

use std::path::Path;

use toolspec::compile::{compile, CompileResult, FsLoader};
use toolspec::guard::RootGuard;
use toolspec::source::SourceFile;

use crate::cli::args::CompileArgs;
use crate::cli::output::{self, exit};

/// One file: its `CompiledFile` object; several: an array of them. Diagnostics go to stderr;
/// a file with errors is left out and the exit status is 2. Files and their includes are read
/// through the project's root guard, as `check` reads them.
pub(crate) fn run(args: CompileArgs) -> u8 {
    let color = args.color.enabled_stderr();
    let guard = super::project_guard(args.allow_outside_root);
    let mut status = exit::OK;
    let mut compiled = Vec::new();
    for path in &args.files {
        let result = match compile_spec(path, None, &guard) {
            Ok(r) => r,
            Err(e) => {
                output::err(&format!("error: {}\n", output::esc(&e)));
                status = exit::ERROR;
                continue;
            }
        };
        for d in &result.diagnostics {
            output::err(&output::render(&d.renderable(), color));
        }
        match result.file {
            Some(file) => compiled.push(file),
            None => status = exit::ERROR,
        }
    }
    let json = if args.files.len() == 1 {
        compiled.first().map(toolspec::text::json::to_string_pretty)
    } else {
        Some(toolspec::text::json::to_string_pretty(&compiled))
    };
    if let Some(Ok(json)) = json {
        output::out(&json);
        output::out("\n");
    }
    status
}

/// Compile the spec file `path`, or `text` as its content (nothing is then read at `path`):
/// the file and its includes are read through `guard`. `Err`: the file cannot be read (the
/// message names it and says why, never quoting it). `toolspec compile` and the Python
/// module's `compile` both compile through here.
pub fn compile_spec(
    path: &Path,
    text: Option<String>,
    guard: &RootGuard,
) -> Result<CompileResult, String> {
    let name = path.display().to_string();
    let text = match text {
        Some(t) => t,
        None => guard
            .read_text(path, toolspec::guard::SPEC_LIMIT)
            .map_err(|e| format!("cannot read {name}: {e}"))?,
    };
    Ok(compile(
        &SourceFile::new(name, text),
        &FsLoader::new(guard.clone()),
    ))
}
