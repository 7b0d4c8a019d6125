//! Link options for the `toolspec` binary that make its start-up cheaper. A pre-commit hook runs
//! `toolspec check` once per commit, so start-up is most of its cost. Only the package's
//! binaries are affected: the library, tests and benches are built as usual.
//!
//! 1. **Position-dependent executable** (Linux, glibc, x86_64 and aarch64). As a
//!    position-independent executable, the binary carries ~11 700 relative relocations that the
//!    dynamic loader applies at every start, writing to ~55 pages of read-only data (one
//!    copy-on-write page fault each). Linked without `-pie`, the addresses are fixed at link time
//!    and those pages are read straight from the page cache: `toolspec --version` went from
//!    1.25× to 1.04× the start-up of a minimal clap binary (docs/performance.md, "pre-commit").
//!    The cost is address-space layout randomization of the executable image itself (libraries,
//!    heap and stack are still randomized), the same trade as Go's default on Linux. Packagers
//!    who require PIE set `TOOLSPEC_PIE=1`. A `crt-static` build is left alone: it is linked as
//!    a static PIE, which `-no-pie` would break.
//!
//! 2. **Function order** (x86_64 Linux, glibc, where rustc ≥ 1.90 links with its own LLD).
//!    `linker/toolspec.order` lists the functions a `toolspec check` start-up runs, as
//!    `scripts/link-order.sh` found them; LLD lays them out together at the start of `.text`.
//!    The kernel maps code 64 KiB at a time on first touch, and the functions a check runs were
//!    spread over 73 such windows of a 4.8 MB `.text`; laid out together they take 27, which
//!    saves ~47 page faults a run. Names the file lists but the binary lacks (another toolchain,
//!    changed code) are ignored. `TOOLSPEC_LINK_ORDER=0` turns it off; so does a `RUSTFLAGS`
//!    that picks another linker.

use std::env;
use std::path::Path;
use std::process::Command;

/// The function order, relative to the package root.
const ORDER_FILE: &str = "linker/toolspec.order";

fn main() {
    println!("cargo:rerun-if-env-changed=TOOLSPEC_PIE");
    println!("cargo:rerun-if-env-changed=TOOLSPEC_LINK_ORDER");
    println!("cargo:rerun-if-changed={ORDER_FILE}");
    let var = |name: &str| env::var(name).unwrap_or_default();
    let (os, target_env, arch) = (
        var("CARGO_CFG_TARGET_OS"),
        var("CARGO_CFG_TARGET_ENV"),
        var("CARGO_CFG_TARGET_ARCH"),
    );
    let crt_static = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    let glibc = os == "linux" && target_env == "gnu" && !crt_static;

    if glibc && matches!(arch.as_str(), "x86_64" | "aarch64") && !switched_on("TOOLSPEC_PIE") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }

    if glibc && arch == "x86_64" && !switched_off("TOOLSPEC_LINK_ORDER") && links_with_rust_lld() {
        let order = Path::new(&var("CARGO_MANIFEST_DIR")).join(ORDER_FILE);
        // `-Wl,` splits its argument at commas.
        if let Some(order) = order
            .to_str()
            .filter(|p| order.is_file() && !p.contains(','))
        {
            println!("cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={order}");
            println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
        }
    }
}

/// `NAME` is set to something other than empty or `0`.
fn switched_on(name: &str) -> bool {
    env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// `NAME` is set to `0`, `off`, `no` or `false`.
fn switched_off(name: &str) -> bool {
    env::var(name).is_ok_and(|v| matches!(v.as_str(), "0" | "off" | "no" | "false"))
}

/// rustc links x86_64 Linux binaries with its bundled LLD by default since 1.90 (rustup's
/// builds: the sysroot has `gcc-ld/ld.lld`, through which it runs), unless the flags choose
/// another linker. A distribution's rustc built without LLD links with the system's linker,
/// which may not know the option. Anything unclear answers no: the option is only an
/// optimization, and must never fail a build.
fn links_with_rust_lld() -> bool {
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let other_linker = [
        "linker-features",
        "linker-flavor",
        "link-self-contained",
        "fuse-ld",
    ];
    if flags
        .split('\x1f')
        .any(|f| other_linker.iter().any(|o| f.contains(o)))
    {
        return false;
    }
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let ask = |args: &[&str]| {
        Command::new(&rustc)
            .args(args)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let minor = ask(&["-vV"]).and_then(|text| {
        text.lines()
            .find_map(|l| l.strip_prefix("release: 1."))
            .and_then(|rest| rest.split('.').next())
            .and_then(|m| m.parse::<u32>().ok())
    });
    let target = env::var("TARGET").unwrap_or_default();
    let bundled = ask(&["--print", "sysroot"]).is_some_and(|sysroot| {
        Path::new(&sysroot)
            .join("lib/rustlib")
            .join(&target)
            .join("bin/gcc-ld/ld.lld")
            .is_file()
    });
    minor.is_some_and(|m| m >= 90) && bundled
}
