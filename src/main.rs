//! The `toolspec` binary: a thin layer over the library (see `cli/`).
#![forbid(unsafe_code)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
