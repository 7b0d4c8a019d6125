//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Declare which tools an AI agent must call, and lint recorded transcripts against it.
#[derive(Debug, Parser)]
#[command(name = "toolspec", version, about, max_term_width = 100)]
pub(crate) struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Check transcripts against the specs that name them (the main job).
    ///
    /// PATHS may be folders (searched for *.toolspec files, respecting .gitignore), spec files
    /// (checked against all their transcripts) or transcript files (checked against every spec
    /// whose globs name them, as a pre-commit hook passes them). Default: the current folder.
    Check(CheckArgs),
    /// Check once, then re-check on every change until interrupted.
    Watch(WatchArgs),
    /// Print the matcher config compiled from spec files, as JSON.
    Compile(CompileArgs),
    /// Format spec files canonically (comments kept).
    Fmt(FmtArgs),
    /// Print the tool calls extracted from transcript files.
    Calls(CallsArgs),
    /// Score JSON-lines cases with an existing metric's semantics (a profile).
    Score(ScoreArgs),
    /// Write a starter spec next to a prompt file.
    Init(InitArgs),
    /// List the built-in rules (code, default, description), or print one rule's documentation.
    Rules(RulesArgs),
    /// Run the language server on standard input and output (for editors: diagnostics,
    /// formatting, completion, hover, definitions).
    Lsp(LspArgs),
    /// Enforce specs while an agent runs: answer its hook events (docs/guard.md).
    Guard(GuardArgs),
}

/// `toolspec guard`.
#[derive(Debug, Args)]
pub(crate) struct GuardArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: GuardCommand,
}

/// `toolspec guard` commands.
#[derive(Debug, Subcommand)]
pub(crate) enum GuardCommand {
    /// Answer one Claude Code hook event, read as JSON on stdin: deny a tool call that would
    /// break a spec for good, block a stop while the spec expects more (docs/guard.md).
    ClaudeCode(GuardRunArgs),
    /// Write the guard's hook entries into an agent's settings.
    Install {
        /// The agent.
        #[command(subcommand)]
        target: InstallTarget,
    },
}

/// `toolspec guard install` targets.
#[derive(Debug, Subcommand)]
pub(crate) enum InstallTarget {
    /// Merge the hooks into .claude/settings.json at the project root (others' entries kept).
    ClaudeCode(GuardRunArgs),
}

/// Options of `toolspec guard claude-code` and `toolspec guard install claude-code`.
#[derive(Debug, Args)]
pub(crate) struct GuardRunArgs {
    /// A spec file to enforce, relative to the project root (over `[guard] specs` of
    /// toolspec.toml). Repeatable.
    #[arg(long = "spec", value_name = "FILE")]
    pub specs: Vec<PathBuf>,
    /// Only the specs of this name in those files (over `[guard] names`). Repeatable.
    #[arg(long = "spec-name", value_name = "NAME")]
    pub spec_names: Vec<String>,
    /// The folder of the sessions' journals (over `[guard] state`; default
    /// .toolspec/guard at the project root).
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
}

/// `toolspec lsp`.
#[derive(Debug, Args)]
pub(crate) struct LspArgs {}

/// `toolspec rules`.
#[derive(Debug, Args)]
pub(crate) struct RulesArgs {
    /// A rule's code (`schema-violation`): print its documentation.
    pub code: Option<String>,
}

/// Options shared by `check` and `watch`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Folders, spec files or transcript files.
    pub paths: Vec<PathBuf>,
    /// Use this settings file instead of looking for toolspec.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Ignore any toolspec.toml.
    #[arg(long)]
    pub no_config: bool,
    /// Let spec globs and includes reach outside the project root (e.g. `../../**`).
    #[arg(long)]
    pub allow_outside_root: bool,
    /// Judge command for DeepEval's tool-selection part, run with `sh -c` once per pair that
    /// asks (see docs/parity.md). Only the command line sets it.
    #[arg(long, value_name = "CMD")]
    pub judge: Option<String>,
    /// Seconds a judge command may take before it is stopped (its pair gets an error).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::cli::judge::DEFAULT_TIMEOUT_SECS)]
    pub judge_timeout: f64,
    /// Worker threads (default: all cores, fewer if the memory available holds fewer workers
    /// reading their largest file, 1.5 GiB each). Output is identical for any value.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
    /// When to use colours.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Only these built-in rules (codes, comma-separated; over `[rules] select` of
    /// toolspec.toml). `toolspec rules` lists them.
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub select: Option<Vec<String>>,
    /// Not these built-in rules (codes, comma-separated; besides `[rules] ignore`).
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub ignore: Vec<String>,
}

/// `toolspec check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Paths and settings.
    #[command(flatten)]
    pub run: RunArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Write the report to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Exit 0 even when expectations fail (errors that stop the run still exit 2).
    #[arg(long)]
    pub exit_zero: bool,
    /// Treat warnings as failures: those about the run (a glob that matches nothing, nothing
    /// checked at all, a transcript read with no tool calls, ...) and findings that leave part of
    /// a spec unchecked (an `agent` name no call has, ...): exit 1 when there are any.
    #[arg(long)]
    pub strict: bool,
    /// Leave out the files named in PATHS that toolspec.toml's `exclude` matches, as a folder
    /// walk leaves them out (the pre-commit hooks pass it: they name every staged file).
    #[arg(long)]
    pub force_exclude: bool,
    /// A spec with a `pass_rate` that a transcript named in PATHS brings in is judged over all
    /// the transcripts its globs name, as when its spec file is checked, not over those named
    /// alone (the pre-commit hooks pass it: they name only the staged files).
    #[arg(long)]
    pub whole_rates: bool,
    /// Judge each transcript as the beginning of a run that may go on: report which statements
    /// of the spec are violated (no continuation can satisfy them), pending or met, and exit 1
    /// only when one is violated. Formats: human, concise, json.
    #[arg(long)]
    pub partial: bool,
    /// GitHub and SARIF: also report the notes of passing pairs (an extra call a spec allows,
    /// ...); by default a passing pair gives annotations only for its warnings and errors.
    #[arg(long)]
    pub show_notes: bool,
    /// Show each finding in full, with the transcript and spec snippets, and passing pairs'
    /// findings too.
    #[arg(long, short)]
    pub verbose: bool,
    /// Print a summary per spec: pass rate, mean score, the expectations that fail most (always
    /// printed past 50 pairs).
    #[arg(long)]
    pub summary: bool,
    /// Check the transcripts named in PATHS (`-`: standard input) against every spec in FILE,
    /// whatever its `transcripts` globs say.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// Read every transcript as this format instead of detecting it (over a spec's `format`
    /// and toolspec.toml's `[formats]`), or with the custom mapping `[formats.NAME]` of
    /// toolspec.toml.
    #[arg(long, value_name = "NAME")]
    pub input_format: Option<String>,
}

/// `toolspec watch`.
#[derive(Debug, Args)]
pub(crate) struct WatchArgs {
    /// Paths and settings.
    #[command(flatten)]
    pub run: RunArgs,
    /// Quiet period after a change before re-checking, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 50)]
    pub debounce: u64,
    /// Do not clear the screen between runs.
    #[arg(long)]
    pub no_clear: bool,
}

/// `toolspec compile`.
#[derive(Debug, Args)]
pub(crate) struct CompileArgs {
    /// Spec files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Read files outside the project root (the folder of toolspec.toml, else the git
    /// repository, else the working folder), as `check --allow-outside-root` does.
    #[arg(long)]
    pub allow_outside_root: bool,
    /// When to use colours in diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `toolspec fmt`.
#[derive(Debug, Args)]
pub(crate) struct FmtArgs {
    /// Spec files or folders (default: the current folder).
    pub paths: Vec<PathBuf>,
    /// Read files outside the project root (the folder of toolspec.toml, else the git
    /// repository, else the working folder), as `check --allow-outside-root` does.
    #[arg(long)]
    pub allow_outside_root: bool,
    /// Do not write; exit 1 if any file is not formatted.
    #[arg(long)]
    pub check: bool,
    /// Print the formatted text instead of writing it.
    #[arg(long, conflicts_with = "check")]
    pub stdout: bool,
    /// When to use colours in diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `toolspec calls`.
#[derive(Debug, Args)]
pub(crate) struct CallsArgs {
    /// Transcript files (`-`: standard input, shown as `<stdin>`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print JSON (an array of calls per file) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Read files outside the project root (the folder of toolspec.toml, else the git
    /// repository, else the working folder), as `check --allow-outside-root` does.
    #[arg(long)]
    pub allow_outside_root: bool,
    /// Read as this format instead of detecting it, or with the custom mapping `[formats.NAME]`
    /// of toolspec.toml.
    #[arg(long = "input-format", alias = "format", value_name = "NAME")]
    pub input_format: Option<String>,
    /// When to use colours in diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `toolspec score`.
#[derive(Debug, Args)]
pub(crate) struct ScoreArgs {
    /// The metric to reproduce: axion, deepeval, evalite, agentevals, galtea, promptfoo.
    #[arg(long, short)]
    pub profile: String,
    /// JSON-lines cases (default: stdin).
    pub file: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
    /// Judge command for DeepEval's tool-selection part, run with `sh -c` once per case that
    /// has `available_tools` (see docs/parity.md). Only the command line sets it; a case line
    /// with a `judge` option is an error line.
    #[arg(long, value_name = "CMD")]
    pub judge: Option<String>,
    /// Seconds a judge command may take before it is stopped (its case becomes an error line).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::cli::judge::DEFAULT_TIMEOUT_SECS)]
    pub judge_timeout: f64,
}

/// `toolspec init`.
#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// The prompt file the spec describes; the spec is written beside it.
    pub prompt: PathBuf,
    /// A transcript to derive the expected calls from.
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,
    /// Overwrite an existing spec.
    #[arg(long)]
    pub force: bool,
    /// Read files outside the project root (the folder of toolspec.toml, else the git
    /// repository, else the working folder), as `check --allow-outside-root` does.
    #[arg(long)]
    pub allow_outside_root: bool,
}

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputFormat {
    /// For people: per failing pair its findings, each with the call and what it fails, in one
    /// or two lines fitted to the terminal (`-v`: rendered with snippets); the pairs; a summary.
    Human,
    /// One line per finding, `path:line:col: code message`, then the summary.
    Concise,
    /// One JSON document with a stable schema.
    Json,
    /// JUnit XML: a test case per expectation × transcript.
    Junit,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions workflow annotations (and the Markdown job summary appended to
    /// $GITHUB_STEP_SUMMARY when it is set).
    Github,
    /// A Markdown job summary: counts, a table per spec, the failing pairs.
    Markdown,
    /// One self-contained HTML page (no network): the table per spec, charts, and per
    /// transcript its timeline of calls beside the spec; use with --output-file.
    Html,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    /// Colour when writing to a terminal and NO_COLOR is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// Whether to colour stdout.
    pub(crate) fn enabled(self) -> bool {
        use std::io::IsTerminal;
        self.decide(std::io::stdout().is_terminal())
    }

    /// Whether to colour stderr.
    pub(crate) fn enabled_stderr(self) -> bool {
        use std::io::IsTerminal;
        self.decide(std::io::stderr().is_terminal())
    }

    /// Decide from the flag, the environment (NO_COLOR, CLICOLOR_FORCE, CLICOLOR, TERM) and
    /// whether the stream is a terminal.
    fn decide(self, is_terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
                if env("NO_COLOR").is_some() {
                    return false;
                }
                if env("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                    return true;
                }
                if env("CLICOLOR").is_some_and(|v| v == "0")
                    || env("TERM").is_some_and(|v| v == "dumb")
                {
                    return false;
                }
                is_terminal
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
