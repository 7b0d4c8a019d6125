//! The command line: argument parsing, discovery, watch, output. The only place with process,
//! environment and terminal access.

use std::process::ExitCode;

/// Run the command line and return the process exit code.
pub fn main() -> ExitCode {
    ExitCode::SUCCESS
}
