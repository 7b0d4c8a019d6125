//! `toolspec check`: the main job.

use std::io::{BufWriter, Write};
use std::path::Path;

use toolspec::check::run::{check_with, CheckOptions, STDIN_NAME};
use toolspec::check::settings::LoadedSettings;
use toolspec::report::concise::ConciseEmitter;
use toolspec::report::github::GithubEmitter;
use toolspec::report::html::HtmlEmitter;
use toolspec::report::human::HumanEmitter;
use toolspec::report::json::JsonEmitter;
use toolspec::report::junit::JunitEmitter;
use toolspec::report::markdown::{GithubWithSummary, MarkdownEmitter};
use toolspec::report::sarif::SarifEmitter;
use toolspec::report::stream::{Emitter, Streamer};
use toolspec::report::{self, Report};

use crate::cli::args::{CheckArgs, OutputFormat, RunArgs};
use crate::cli::memory::with_threads;
use crate::cli::output::{self, exit};
use crate::cli::sources::SourceCache;
use crate::cli::stdin;

/// Run a check and print it in the chosen format; exit 0 (all passed), 1 (some expectation
/// failed) or 2 (something could not be checked).
///
/// Results are rendered as they are checked, spooled to a temporary file, and copied to the
/// output in report order ([`report::stream`]), so memory does not follow the size of the
/// report.
pub(crate) fn run(args: CheckArgs) -> u8 {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            output::err(&format!(
                "error: cannot read the current folder: {}\n",
                output::esc(&e.to_string())
            ));
            return exit::ERROR;
        }
    };
    if args.partial
        && !matches!(
            args.format,
            OutputFormat::Human | OutputFormat::Concise | OutputFormat::Json
        )
    {
        output::err("error: --partial reports in the human, concise and json formats only\n");
        return exit::ERROR;
    }
    let settings = match load_settings(&args.run, &cwd) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let color = args.run.color.enabled() && args.output_file.is_none();
    // `--input-format` names a built-in reader, or else a custom mapping of toolspec.toml.
    let (input_format, input_mapping) = match args.input_format.as_deref() {
        None => (None, None),
        Some(name) => match name.parse() {
            Ok(f) => (Some(f), None),
            Err(_) if settings.mappings.iter().any(|m| m.name == name) => {
                (None, Some(name.to_owned()))
            }
            Err(e) => {
                output::err(&format!(
                    "error: {}\n",
                    output::esc(&unknown_reader(&e, &settings))
                ));
                return exit::ERROR;
            }
        },
    };
    // `-` among the paths: a transcript read from standard input, shown as `<stdin>`.
    let stdin = if args.run.paths.iter().any(|p| stdin::is_stdin(p)) {
        match stdin::read() {
            Ok(bytes) => Some(std::sync::Arc::<[u8]>::from(bytes)),
            Err(e) => {
                output::err(&format!("error: {}\n", output::esc(&e)));
                return exit::ERROR;
            }
        }
    } else {
        None
    };
    let cache = SourceCache::default();
    if let Some(bytes) = &stdin {
        cache.pin(STDIN_NAME, bytes);
    }
    let sources = |name: &str| cache.get(name);
    let human = report::human::Options {
        color,
        verbose: args.verbose,
        width: output::terminal_width(),
        summary: args.summary,
    };
    let opts = match options(&args.run) {
        Ok(o) => CheckOptions {
            paths: o
                .paths
                .iter()
                .filter(|p| !stdin::is_stdin(p))
                .cloned()
                .collect(),
            spec: args.spec.clone(),
            stdin,
            input_format,
            input_mapping,
            name_skipped: args.strict || args.verbose,
            force_exclude: args.force_exclude,
            whole_rates: args.whole_rates,
            partial: args.partial,
            ..o
        },
        Err(status) => return status,
    };
    let run = Run {
        args: &args,
        opts: &opts,
        settings: &settings,
        cwd: &cwd,
    };
    let github = GithubEmitter {
        show_notes: args.show_notes,
    };
    let stderr_human = |head: &Report| report::human::render_run_findings(head, &sources, human);
    match args.format {
        OutputFormat::Json => run.stream(JsonEmitter, short_errors),
        OutputFormat::Human => run.stream(
            HumanEmitter {
                sources: &sources,
                options: human,
            },
            stderr_human,
        ),
        OutputFormat::Concise => run.stream(ConciseEmitter, |_| String::new()),
        OutputFormat::Github => match step_summary() {
            Some(file) => run.stream(
                GithubWithSummary {
                    summary: std::sync::Mutex::new(BufWriter::new(file)),
                    github,
                },
                short_errors,
            ),
            None => run.stream(github, short_errors),
        },
        OutputFormat::Markdown => run.stream(MarkdownEmitter, short_errors),
        OutputFormat::Html => run.stream(HtmlEmitter { sources: &sources }, short_errors),
        OutputFormat::Junit => run.stream(JunitEmitter, short_errors),
        OutputFormat::Sarif => run.stream(
            SarifEmitter::new().showing_notes(args.show_notes),
            short_errors,
        ),
    }
}

/// The job summary file of a GitHub Actions step (`$GITHUB_STEP_SUMMARY`, set by the runner),
/// opened for appending, when it is set; a file that cannot be opened is said on stderr and
/// left out.
fn step_summary() -> Option<std::fs::File> {
    let path = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())?;
    match std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
    {
        Ok(file) => Some(file),
        Err(e) => {
            output::err(&format!(
                "warning: cannot append the job summary to {}: {}\n",
                output::esc(&Path::new(&path).display().to_string()),
                output::esc(&e.to_string())
            ));
            None
        }
    }
}

/// A check about to run, whatever its output format.
struct Run<'a> {
    args: &'a CheckArgs,
    opts: &'a CheckOptions,
    settings: &'a LoadedSettings,
    cwd: &'a Path,
}

impl Run<'_> {
    /// Check, streaming the results in `emitter`'s format; print `stderr(report without its
    /// results)` and write the document. Gives the exit status.
    fn stream<E: Emitter + Sync>(self, emitter: E, stderr: impl Fn(&Report) -> String) -> u8 {
        let args = self.args;
        let streamer = Streamer::new(emitter);
        let checked = with_threads(args.run.threads, || {
            check_with(self.opts, self.settings, self.cwd, &streamer)
        });
        let head = &checked.report;
        output::err(&stderr(head));
        let status = if args.strict {
            checked.strict_exit_status()
        } else {
            checked.exit_status()
        };
        if args.strict && status != checked.exit_status() {
            output::err(&strict_failure(&head.summary));
        }
        write_output(args, status, |out| {
            streamer.write(head, &checked.pairs, out)
        })
    }
}

/// Why `--strict` fails a run that would pass: its warnings about the run, and its findings
/// that leave part of a spec unchecked (`unverified`).
fn strict_failure(s: &toolspec::report::model::Summary) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let verb = |n: usize| if n == 1 { "fails" } else { "fail" };
    let about_run = s.warnings - s.unverified;
    let unverified = |u: usize| {
        format!(
            "{u} unverified finding{} (part of a spec was not checked)",
            plural(u)
        )
    };
    match (about_run, s.unverified) {
        (r, 0) => format!(
            "error: --strict: {r} warning{} about the run {} it\n",
            plural(r),
            verb(r)
        ),
        (0, u) => format!("error: --strict: {} {} the run\n", unverified(u), verb(u)),
        (r, u) => format!(
            "error: --strict: {r} warning{} about the run and {} fail it\n",
            plural(r),
            unverified(u)
        ),
    }
}

/// Write stdout (or `--output-file`) with `write`, and give the exit status: `status`, or 2 if
/// the output cannot be written (a closed stdout pipe is not an error), 0 for a failed check
/// under `--exit-zero`.
fn write_output(
    args: &CheckArgs,
    status: u8,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> u8 {
    if let Some(path) = &args.output_file {
        let written = std::fs::File::create(path).and_then(|f| {
            let mut out = BufWriter::with_capacity(1 << 16, f);
            write(&mut out)?;
            out.flush()
        });
        if let Err(e) = written {
            output::err(&format!(
                "error: cannot write {}: {}\n",
                output::esc(&path.display().to_string()),
                output::esc(&e.to_string())
            ));
            return exit::ERROR;
        }
    } else {
        let stdout = std::io::stdout().lock();
        let mut out = BufWriter::with_capacity(1 << 16, stdout);
        let written = write(&mut out).and_then(|()| out.flush());
        match written {
            // `toolspec check | head` closes the pipe early: not an error.
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                output::err(&format!(
                    "error: cannot write the report: {}\n",
                    output::esc(&e.to_string())
                ));
                return exit::ERROR;
            }
            _ => {}
        }
    }
    if args.exit_zero && status == exit::FAILED {
        exit::OK
    } else {
        status
    }
}

/// The check options from the shared run arguments; an unusable `--judge-timeout` is printed
/// (exit 2).
pub(crate) fn options(run: &RunArgs) -> Result<CheckOptions, u8> {
    let judge =
        crate::cli::judge::from_args(run.judge.as_deref(), run.judge_timeout).map_err(|e| {
            output::err(&format!("error: {e}\n"));
            exit::ERROR
        })?;
    let code = |c: &String| {
        toolspec::rules::Rule::named(c)
            .map(|r| r.code)
            .ok_or_else(|| {
                output::err(&format!(
                    "error: `{}` is not a rule (`toolspec rules` lists them: {})\n",
                    output::esc(c),
                    toolspec::check::settings::rule_names()
                ));
                exit::ERROR
            })
    };
    let select = match &run.select {
        Some(list) => Some(list.iter().map(code).collect::<Result<Vec<_>, u8>>()?),
        None => None,
    };
    let ignore = run
        .ignore
        .iter()
        .map(code)
        .collect::<Result<Vec<_>, u8>>()?;
    Ok(CheckOptions {
        paths: run.paths.clone(),
        select,
        ignore,
        allow_outside_root: run.allow_outside_root,
        judge: judge.map(|j| {
            std::sync::Arc::new(j) as std::sync::Arc<dyn toolspec::score::profiles::Judge>
        }),
        last_good: None,
        no_git_global_excludes: !crate::cli::git_excludes::may_apply(),
        ..CheckOptions::default()
    })
}

/// Settings from `--config`, `--no-config` or discovery; errors are printed (exit 2).
pub(crate) fn load_settings(run: &RunArgs, cwd: &Path) -> Result<LoadedSettings, u8> {
    let loaded = if run.no_config {
        Ok(LoadedSettings::defaults(cwd))
    } else if let Some(path) = &run.config {
        LoadedSettings::load(path)
    } else {
        LoadedSettings::discover(cwd)
    };
    loaded.map_err(|e| {
        output::err(&output::render(&e, run.color.enabled_stderr()));
        exit::ERROR
    })
}

/// Render a report: (stdout, stderr). Machine formats put everything in the document on stdout
/// and repeat run errors on stderr as one line each.
pub(crate) fn render(
    report: &Report,
    format: OutputFormat,
    color: bool,
    verbose: bool,
) -> (String, String) {
    let short_errors = || short_errors(report);
    match format {
        OutputFormat::Human => {
            let cache = SourceCache::default();
            let sources = |name: &str| cache.get(name);
            let h = report::human::render(
                report,
                &sources,
                report::human::Options {
                    color,
                    verbose,
                    width: output::terminal_width(),
                    summary: false,
                },
            );
            (h.stdout, h.stderr)
        }
        OutputFormat::Concise => (report::concise::render(report), String::new()),
        OutputFormat::Json => (report::json::render(report), short_errors()),
        OutputFormat::Junit => (report::junit::render(report), short_errors()),
        OutputFormat::Sarif => (report::sarif::render(report), short_errors()),
        OutputFormat::Github => (report::github::render(report), short_errors()),
        OutputFormat::Markdown => (report::markdown::render(report), short_errors()),
        OutputFormat::Html => {
            let cache = SourceCache::default();
            let sources = |name: &str| cache.get(name);
            (report::html::render(report, &sources), short_errors())
        }
    }
}

/// What machine formats print on stderr: each run error on one line, its data escaped.
fn short_errors(report: &Report) -> String {
    use output::esc;
    report
        .errors
        .iter()
        .map(|f| match &f.location {
            Some(l) => format!(
                "error[{}]: {}:{}:{}: {}\n",
                esc(&f.code),
                esc(&l.file),
                l.line,
                l.column,
                esc(&f.message)
            ),
            None => format!("error[{}]: {}\n", esc(&f.code), esc(&f.message)),
        })
        .collect()
}

/// An `--input-format` name that is neither a reader nor a custom mapping: the readers, and the
/// mappings of the settings if there are any.
pub(crate) fn unknown_reader(
    e: &toolspec::transcript::UnknownFormat,
    settings: &LoadedSettings,
) -> String {
    let names: Vec<String> = settings
        .mappings
        .iter()
        .map(|m| format!("`{}`", m.name))
        .collect();
    if names.is_empty() {
        e.to_string()
    } else {
        format!(
            "{e}, nor a custom mapping of toolspec.toml ({})",
            names.join(", ")
        )
    }
}
