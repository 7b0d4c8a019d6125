//! Link the `toolspec` binary as a position-dependent executable on Linux (glibc).
//!
//! A pre-commit hook runs `toolspec check` once per commit, so its start-up is most of its
//! cost. As a position-independent executable, the binary carries ~11 700 relative relocations
//! that the dynamic loader applies at every start, writing to ~55 pages of read-only data (one
//! copy-on-write page fault each). Linked without `-pie`, the addresses are fixed at link time
//! and those pages are read straight from the page cache: `toolspec --version` went from 1.25×
//! to 1.04× the start-up of a minimal clap binary (docs/performance.md, "pre-commit").
//!
//! The cost is address-space layout randomization of the executable image itself (libraries,
//! heap and stack are still randomized), the same trade as Go's default on Linux. Packagers who
//! require PIE set `TOOLSPEC_PIE=1` when building. Only the package's binaries are affected:
//! the library, tests and benches are built as usual.

fn main() {
    println!("cargo:rerun-if-env-changed=TOOLSPEC_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let pie_wanted = std::env::var_os("TOOLSPEC_PIE").is_some_and(|v| !v.is_empty() && v != "0");
    if os == "linux" && env == "gnu" && matches!(arch.as_str(), "x86_64" | "aarch64") && !pie_wanted
    {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
