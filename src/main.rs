//! The `toolspec` binary: the library's command line ([`toolspec::cli`]).
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    toolspec::cli::main()
}
