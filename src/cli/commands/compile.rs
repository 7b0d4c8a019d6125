//! `toolspec compile FILE...`: print the matcher config of spec files as JSON.

use toolspec::compile::{compile, FsLoader};
use toolspec::source::SourceFile;

use crate::cli::args::CompileArgs;
use crate::cli::output::{self, exit};

/// One file: its `CompiledFile` object; several: an array of them. Diagnostics go to stderr;
/// a file with errors is left out and the exit status is 2.
pub(crate) fn run(args: CompileArgs) -> u8 {
    let color = args.color.enabled_stderr();
    let mut status = exit::OK;
    let mut compiled = Vec::new();
    for path in &args.files {
        let name = path.display().to_string();
        let text = match toolspec::guard::read_text(path) {
            Ok(t) => t,
            Err(e) => {
                output::err(&format!(
                    "error: cannot read {}: {}\n",
                    output::esc(&name),
                    output::esc(&e.to_string())
                ));
                status = exit::ERROR;
                continue;
            }
        };
        let result = compile(&SourceFile::new(name, text), &FsLoader);
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
