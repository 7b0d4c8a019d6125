//! Paths: lexical normalisation, how a path is shown, and the folder walker, shared by discovery
//! ([`super::discover`]) and binding ([`super::bind`]), which use this module and not each
//! other.
//!
//! Input: paths. Output: normalised absolute paths, display names relative to the working
//! folder, a configured walker. Cannot fail (a path that cannot be made absolute is kept as it
//! is).

use std::path::{Component, Path, PathBuf};

/// Lexically normalise an absolute path: drop `.`, resolve `..` (never above `/`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `p` made absolute (against the working folder) and normalised.
pub fn absolute(p: &Path) -> PathBuf {
    normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

/// Express `path` relative to `cwd` (with `..` steps when it lies elsewhere), for display and
/// for machine formats: output never depends on where the project sits on disk.
pub fn display_path(path: &Path, cwd: &Path) -> String {
    let abs = |p: &Path| normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()));
    let (path, cwd) = (abs(path), abs(cwd));
    let common = path
        .components()
        .zip(cwd.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return path.to_string_lossy().into_owned();
    }
    let mut parts: Vec<String> =
        std::iter::repeat_n("..".to_owned(), cwd.components().count() - common).collect();
    parts.extend(
        path.components()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// A walker of `dir`. `git_global` says whether git's global excludes file may apply (the
/// caller knows: the library does not read the environment, see
/// [`crate::check::run::CheckOptions::no_git_global_excludes`]); when it cannot, the walker skips
/// looking for it, which would parse git's config files with a regular expression compiled on
/// every run (about a fifth of a pre-commit run's instructions).
pub fn walker(dir: &Path, git_global: bool) -> ignore::WalkBuilder {
    let mut w = ignore::WalkBuilder::new(dir);
    w.git_global(git_global);
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_paths_are_relative_to_the_working_folder() {
        let cwd = Path::new("/repo/examples");
        assert_eq!(
            display_path(Path::new("/repo/examples/a/b.json"), cwd),
            "a/b.json"
        );
        assert_eq!(
            display_path(Path::new("/repo/specs/x.toolspec"), cwd),
            "../specs/x.toolspec"
        );
        assert_eq!(display_path(Path::new("/repo/examples"), cwd), ".");
        assert_eq!(display_path(Path::new("/repo/examples/./c/../d"), cwd), "d");
    }
}
