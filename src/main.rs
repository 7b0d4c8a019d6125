//! The `toolspec` binary: a thin layer over the library (see `cli/`).

mod cli;

/// Scoring and reading build and free many small values per line; mimalloc makes that markedly
/// cheaper than the system allocator (measured in docs/parity.md, "Performance").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
