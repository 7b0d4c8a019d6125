//! One file per command.

pub mod calls;
pub(crate) mod check;
pub mod compile;
pub(crate) mod fmt;
pub(crate) mod guard;
pub(crate) mod init;
pub(crate) mod lsp;
pub(crate) mod rules;
pub(crate) mod score;
pub(crate) mod watch;

use toolspec::guard::RootGuard;

/// The root guard of the working folder's project ([`toolspec::check::settings::project_root`]:
/// the folder of `toolspec.toml`, else the git repository, else the working folder), widened
/// to anywhere by `--allow-outside-root`: what `compile`, `fmt`, `calls` and `init` read
/// through, so that they refuse what `check` refuses.
pub(crate) fn project_guard(allow_outside_root: bool) -> RootGuard {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    RootGuard::for_project(
        &toolspec::check::settings::project_root(&cwd),
        allow_outside_root,
    )
}
