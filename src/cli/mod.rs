//! The command line: argument parsing, output, watch and exit codes. The only place with
//! process, environment and terminal access; everything else is library code. The `toolspec`
//! binary runs [`main`]; the Python package's `toolspec` command runs [`run`] in-process, and
//! its module renders with [`output`] and [`sources`] as the command does.
#![allow(clippy::print_stdout, clippy::print_stderr)]

pub(crate) mod args;
pub mod commands;
pub(crate) mod git_excludes;
pub(crate) mod judge;
pub mod memory;
pub mod output;
pub mod sources;
pub(crate) mod stdin;
pub(crate) mod watch;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};
use output::exit;

/// Run the command line of this process and return its exit code.
pub fn main() -> ExitCode {
    run(std::env::args_os().collect())
}

/// Run the command line `args` (the program name first) and return the exit code. The
/// `toolspec` command of the Python package calls this with its own arguments (`python/`).
pub fn run(args: Vec<std::ffi::OsString>) -> ExitCode {
    install_panic_hook();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            output::err(&usage_error(&e.to_string(), args.into_iter()));
            return exit::code(exit::ERROR);
        }
        Err(e) => {
            // `--help` and `--version`: toolspec's own text.
            let _ = e.print();
            return exit::code(exit::OK);
        }
    };
    let status = match cli.command {
        Command::Compile(a) => commands::compile::run(a),
        Command::Fmt(a) => commands::fmt::run(a),
        Command::Calls(a) => commands::calls::run(a),
        Command::Init(a) => commands::init::run(a),
        Command::Check(a) => commands::check::run(a),
        Command::Watch(a) => commands::watch::run(a),
        Command::Score(a) => commands::score::run(a),
        Command::Rules(a) => commands::rules::run(&a),
        Command::Lsp(_) => commands::lsp::run(),
        Command::Guard(a) => commands::guard::run(a),
    };
    exit::code(status)
}

/// Print panics as the default hook does, with the message escaped: a bug hit while handling a
/// file (caught per file by the check, which goes on) can quote the file's data in its message
/// (a string slice out of bounds quotes the string).
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "Box<dyn Any>".to_owned());
        let thread = std::thread::current();
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        let backtrace = std::backtrace::Backtrace::capture();
        let backtrace = match backtrace.status() {
            std::backtrace::BacktraceStatus::Captured => format!("stack backtrace:\n{backtrace}\n"),
            _ => "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
                .to_owned(),
        };
        output::err(&panic_text(
            thread.name().unwrap_or("<unnamed>"),
            &location,
            &message,
            &backtrace,
        ));
    }));
}

/// The text of a panic report, the message's data escaped ([`toolspec::text`]).
fn panic_text(thread: &str, location: &str, message: &str, backtrace: &str) -> String {
    let message = toolspec::text::escape_keeping_lines(message);
    let text = format!(
        "\nthread '{}' panicked at {location}:\n{message}\n{backtrace}",
        toolspec::text::escape(thread)
    );
    toolspec::text::guard_lines(&text).into_owned()
}

/// A usage error as clap words it, with the arguments it quotes escaped: an argument (or the
/// value after its `=`) that holds a control character is replaced by its escaped form
/// ([`toolspec::text::escape`]) before the lines are checked, so no argument can add a line.
fn usage_error(text: &str, args: impl Iterator<Item = std::ffi::OsString>) -> String {
    let mut quoted: Vec<String> = Vec::new();
    for arg in args {
        let arg = arg.to_string_lossy().into_owned();
        if let Some((_, value)) = arg.split_once('=') {
            quoted.push(value.to_owned());
        }
        quoted.push(arg);
    }
    quoted.retain(|a| toolspec::text::escape(a) != a.as_str());
    // Longest first, so an argument is replaced before the value inside it.
    quoted.sort_by_key(|a| std::cmp::Reverse(a.len()));
    let mut text = text.to_owned();
    for a in &quoted {
        text = text.replace(a.as_str(), &toolspec::text::escape(a));
    }
    let text = toolspec::text::escape_keeping_lines(&text);
    toolspec::text::guard_lines(&text).into_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn panic_reports_escape_the_message() {
        let text = super::panic_text(
            "main",
            "src/x.rs:1:2",
            "byte index 3 is not a char boundary of `a\n::error::pwned\u{1b}[2J`",
            "",
        );
        assert_eq!(
            text,
            "\nthread 'main' panicked at src/x.rs:1:2:\nbyte index 3 is not a char boundary of `a\n\\u{3a}:error::pwned\\u{1b}[2J`\n"
        );
    }

    #[test]
    fn usage_errors_escape_the_arguments_they_quote() {
        let args = ["toolspec", "check", "--format=x\n::error::pwned\u{1b}[2J"]
            .map(std::ffi::OsString::from);
        let clap = "error: invalid value 'x\n::error::pwned\u{1b}[2J' for '--format'\n\nFor more information, try '--help'.\n";
        let text = super::usage_error(clap, args.into_iter());
        assert_eq!(
            text,
            "error: invalid value 'x\\n::error::pwned\\u{1b}[2J' for '--format'\n\nFor more information, try '--help'.\n"
        );
    }
}
