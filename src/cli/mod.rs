//! The command line: argument parsing, output, watch and exit codes. The only place with
//! process, environment and terminal access; everything else is library code.

pub mod args;
pub mod commands;
pub mod output;
pub mod sources;
pub mod watch;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};
use output::exit;

/// Run the command line and return the process exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            output::err(&usage_error(&e.to_string(), std::env::args_os()));
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
    };
    exit::code(status)
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
