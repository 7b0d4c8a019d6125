//! The command line: argument parsing, output, watch and exit codes. The only place with
//! process, environment and terminal access; everything else is library code.

pub mod args;
pub mod watch;

use std::process::ExitCode;

use clap::Parser;

/// Run the command line and return the process exit code.
pub fn main() -> ExitCode {
    let _cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    ExitCode::SUCCESS
}
