//! `toolspec init PROMPT`: write a starter spec beside a prompt, optionally from a transcript.

use std::path::Path;

use toolspec::check::paths::display_path;
use toolspec::check::starter::starter_spec;
use toolspec::compile::{compile, FsLoader};
use toolspec::guard::RootGuard;
use toolspec::source::SourceFile;
use toolspec::transcript;

use crate::cli::args::InitArgs;
use crate::cli::output::{self, exit};

/// Write `PROMPT_STEM.toolspec` beside the prompt. With `--transcript`, the transcript's declared
/// tools and one expectation per call, in order, with references to earlier calls and regexes
/// for ids (`toolspec::check::starter`); otherwise a commented skeleton. The result is formatted and compiled before it is written, so it is always valid.
pub(crate) fn run(args: InitArgs) -> u8 {
    if !args.prompt.is_file() {
        output::err(&format!(
            "error: no such prompt file: {}\n",
            output::esc(&args.prompt.display().to_string())
        ));
        return exit::ERROR;
    }
    let spec_path = args.prompt.with_extension("toolspec");
    if spec_path.exists() && !args.force {
        output::err(&format!(
            "error: {} already exists (use --force to overwrite)\n",
            output::esc(&spec_path.display().to_string())
        ));
        return exit::ERROR;
    }
    let stem = args
        .prompt
        .file_stem()
        .map_or_else(|| "agent".into(), |s| s.to_string_lossy().into_owned());
    let name = ident(&stem);
    let dir = args.prompt.parent().unwrap_or(Path::new("")).to_path_buf();
    // What `check` may read, `init` may read.
    let guard = super::project_guard(args.allow_outside_root);
    let text = match &args.transcript {
        None => skeleton(&args.prompt, &name, &stem),
        Some(t) => match from_transcript(&args.prompt, &name, &dir, t, &guard) {
            Ok(text) => text,
            Err(e) => {
                output::err(&e);
                return exit::ERROR;
            }
        },
    };
    let source = SourceFile::new(spec_path.display().to_string(), text);
    let text = toolspec::syntax::format(&source).unwrap_or(source.text.clone());
    let checked = compile(
        &SourceFile::new(source.name.clone(), text.clone()),
        &FsLoader::new(guard),
    );
    if checked.has_errors() {
        for d in &checked.diagnostics {
            output::err(&output::render(d, false));
        }
        output::err(
            "error: the generated spec does not compile (this is a bug in toolspec init)\n",
        );
        return exit::ERROR;
    }
    if let Err(e) = std::fs::write(&spec_path, &text) {
        output::err(&format!(
            "error: cannot write {}: {}\n",
            output::esc(&spec_path.display().to_string()),
            output::esc(&e.to_string())
        ));
        return exit::ERROR;
    }
    output::out(&format!(
        "wrote {}\n",
        output::esc(&spec_path.display().to_string())
    ));
    exit::OK
}

fn skeleton(prompt: &Path, name: &str, stem: &str) -> String {
    format!(
        "# What {prompt} must make the agent do. Language: docs/language.md\n\
         spec {name} {{\n\
         \x20 transcripts \"runs/{stem}/*.json\", \"runs/{stem}/*.jsonl\"\n\
         \x20 order in_order\n\
         \x20 args subset\n\
         \n\
         \x20 # call lookup_order(order_id: \"ORD-1\")\n\
         \x20 # optional call send_email(to: /@example\\.com$/)\n\
         \x20 # never delete_account\n\
         }}\n",
        prompt = output::esc(&prompt.display().to_string())
    )
}

fn from_transcript(
    prompt: &Path,
    name: &str,
    dir: &Path,
    t: &Path,
    guard: &RootGuard,
) -> Result<String, String> {
    let transcripts = transcript::Reader::new()
        .guard(guard)
        .read_file(t)
        .map_err(|e| output::render(&e, false))?;
    let Some(first) = transcripts.first() else {
        return Err(format!(
            "error: {} holds no transcript\n",
            output::esc(&t.display().to_string())
        ));
    };
    let rel = display_path(t, dir);
    let mut out = format!(
        "# What {} must make the agent do, drafted from {} ({}).\n\
         # Loosen what may vary between runs. Language: docs/language.md\n",
        output::esc(&prompt.display().to_string()),
        output::esc(&t.display().to_string()),
        first.format,
    );
    out.push_str(&starter_spec(first, name, &rel));
    Ok(out)
}

fn ident(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}
