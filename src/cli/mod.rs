//! The command line: argument parsing, output, watch and exit codes. The only place with
//! process, environment and terminal access; everything else is library code.

pub mod args;
pub mod commands;
pub mod judge;
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
        Err(e) => {
            let _ = e.print();
            return exit::code(if e.use_stderr() {
                exit::ERROR
            } else {
                exit::OK
            });
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
