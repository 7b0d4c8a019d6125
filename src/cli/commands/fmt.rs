//! `toolspec fmt`: format spec files canonically, in place, or check that they are.

use std::path::PathBuf;

use toolspec::check::discover;
use toolspec::source::SourceFile;

use crate::cli::args::FmtArgs;
use crate::cli::output::{self, exit};

/// Format every spec named or found under the paths. A file with a syntax error is reported and
/// skipped; the others are still formatted.
pub(crate) fn run(args: FmtArgs) -> u8 {
    let color = args.color.enabled_stderr();
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    // What `check` may read, `fmt` may read (and write).
    let guard = super::project_guard(args.allow_outside_root);
    let found = discover::discover(
        &paths,
        &globset::GlobSet::empty(),
        &guard,
        crate::cli::git_excludes::may_apply(),
    );
    let mut status = exit::OK;
    for (path, problem) in found.problems.iter().chain(&found.refused) {
        output::err(&format!(
            "error: {}: {}\n",
            output::esc(&path.display().to_string()),
            output::esc(&problem.clone())
        ));
        status = exit::ERROR;
    }
    let mut unformatted = 0;
    for path in found
        .specs
        .iter()
        .chain(found.transcripts.iter().filter(|p| discover::is_spec(p)))
    {
        let name = path.display().to_string();
        let shown = output::esc(&name);
        let text = match guard.read_text(path, toolspec::guard::SPEC_LIMIT) {
            Ok(t) => t,
            Err(e) => {
                output::err(&format!(
                    "error: cannot read {shown}: {}\n",
                    output::esc(&e.to_string())
                ));
                status = exit::ERROR;
                continue;
            }
        };
        let formatted = match toolspec::syntax::format(&SourceFile::new(name.clone(), text.clone()))
        {
            Ok(f) => f,
            Err(d) => {
                output::err(&output::render(&d.renderable(), color));
                status = exit::ERROR;
                continue;
            }
        };
        if args.stdout {
            output::out(&formatted);
        } else if formatted != text {
            if args.check {
                output::out(&format!("would reformat {shown}\n"));
                unformatted += 1;
            } else if let Err(e) = write_atomically(path, &formatted) {
                output::err(&format!(
                    "error: cannot write {shown}: {}\n",
                    output::esc(&e.to_string())
                ));
                status = exit::ERROR;
            } else {
                output::out(&format!("formatted {shown}\n"));
            }
        }
    }
    if unformatted > 0 && status == exit::OK {
        status = exit::FAILED;
    }
    status
}

/// Write through a temporary file and a rename, so an interrupted write never truncates a spec.
fn write_atomically(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("toolspec.fmt-tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}
