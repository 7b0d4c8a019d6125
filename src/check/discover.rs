//! Discovery: command-line paths → spec files and explicit transcript files.
//!
//! A folder is walked for `*.toolspec` files with the `ignore` crate, so `.gitignore`, `.ignore`
//! and hidden files are respected as in ripgrep and ruff; symbolic links are not followed, so a
//! link loop cannot trap the walk. A file path (a pre-commit hook passes staged files) must pass
//! the root guard ([`crate::guard`]: resolved inside the project root, a regular file), else it
//! is refused, never opened; a `.toolspec` file is a spec, anything else a transcript.

use std::path::{Path, PathBuf};

use globset::GlobSet;

use crate::guard::{Refused, RootGuard};

/// The extension of spec files.
pub const SPEC_EXTENSION: &str = "toolspec";

/// What the given paths name.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Discovered {
    /// Spec files, sorted, without duplicates.
    pub specs: Vec<PathBuf>,
    /// Transcript files named explicitly, sorted, without duplicates.
    pub transcripts: Vec<PathBuf>,
    /// Paths that could not be used (missing, unreadable folder entries).
    pub problems: Vec<(PathBuf, String)>,
    /// Files the root guard refused (outside the root once links are followed, not regular
    /// files): never opened. The reason is the second element.
    pub refused: Vec<(PathBuf, String)>,
}

/// Whether `path` names a spec file.
pub fn is_spec(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == SPEC_EXTENSION)
}

/// Resolve command-line `paths` (folders walked, files taken as given), skipping `exclude`d
/// paths (matched against absolute paths) unless named explicitly as files. A file must pass
/// `guard` (resolved inside the root, a regular file), else it is `refused`; a folder's spec
/// files are read through the guard later.
pub fn discover(paths: &[PathBuf], exclude: &GlobSet, guard: &RootGuard) -> Discovered {
    let mut found = Discovered::default();
    for path in paths {
        if path.is_dir() {
            walk_specs(path, exclude, &mut found);
        } else if std::fs::symlink_metadata(path).is_ok() {
            if let Err(e) = guard.check(path) {
                let why = match Refused::of(&e) {
                    Some(r) => r.to_string(),
                    None => e.to_string(),
                };
                found.refused.push((path.clone(), why));
            } else if is_spec(path) {
                found.specs.push(path.clone());
            } else {
                found.transcripts.push(path.clone());
            }
        } else {
            found
                .problems
                .push((path.clone(), "no such file or folder".to_owned()));
        }
    }
    for list in [&mut found.specs, &mut found.transcripts] {
        list.sort();
        list.dedup();
    }
    found
}

/// Whether git's global excludes file can apply: some git config file mentions
/// `excludesFile`, or the default file (`$XDG_CONFIG_HOME/git/ignore`, else
/// `~/.config/git/ignore`) exists.
///
/// The walker finds the global excludes file by parsing git's config files with a regular
/// expression it compiles on every run, which costs a pre-commit run about a fifth of its
/// instructions. Most machines have no global excludes file, and this looks for one the cheap
/// way: the walker's own lookup (`git_global`) is kept whenever one may exist, so what is
/// ignored never changes.
pub fn global_excludes_may_apply() -> bool {
    static MAY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *MAY.get_or_init(|| {
        #[allow(deprecated)] // as the walker does; its bugs are corner cases of Windows
        let home = std::env::home_dir();
        excludes_may_apply(|name| std::env::var_os(name).map(PathBuf::from), home)
    })
}

/// [`global_excludes_may_apply`] for the given environment and home folder.
fn excludes_may_apply(var: impl Fn(&str) -> Option<PathBuf>, home: Option<PathBuf>) -> bool {
    let var = |name: &str| var(name).filter(|v| !v.as_os_str().is_empty());
    let xdg = var("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config")));
    let configs = [
        var("GIT_CONFIG_GLOBAL"),
        home.as_ref().map(|h| h.join(".gitconfig")),
        xdg.as_ref().map(|x| x.join("git/config")),
        Some(var("GIT_CONFIG_SYSTEM").unwrap_or_else(|| PathBuf::from("/etc/gitconfig"))),
    ];
    let mentions = |path: &PathBuf| {
        std::fs::read(path).is_ok_and(|bytes| {
            bytes
                .windows(b"excludesfile".len())
                .any(|w| w.eq_ignore_ascii_case(b"excludesfile"))
        })
    };
    configs.iter().flatten().any(mentions) || xdg.is_some_and(|x| x.join("git/ignore").exists())
}

/// A walker of `dir` that skips the git global excludes lookup when none can apply.
pub fn walker(dir: &Path) -> ignore::WalkBuilder {
    let mut w = ignore::WalkBuilder::new(dir);
    w.git_global(global_excludes_may_apply());
    w
}

/// Every spec file under `dir`, honouring ignore files.
pub fn walk_specs(dir: &Path, exclude: &GlobSet, found: &mut Discovered) {
    let walker = walker(dir).follow_links(false).require_git(false).build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                let p = entry.path();
                if entry.file_type().is_some_and(|t| t.is_file())
                    && is_spec(p)
                    && !is_excluded(p, exclude)
                {
                    found.specs.push(strip_dot(p));
                }
            }
            Err(err) => found.problems.push((dir.to_path_buf(), err.to_string())),
        }
    }
}

/// Whether `path` matches an exclude glob (globs are absolute, see [`crate::check::bind`]).
pub fn is_excluded(path: &Path, exclude: &GlobSet) -> bool {
    if exclude.is_empty() {
        return false;
    }
    match std::path::absolute(path) {
        Ok(abs) => exclude.is_match(crate::check::bind::normalize(&abs)),
        Err(_) => false,
    }
}

fn strip_dot(p: &Path) -> PathBuf {
    p.strip_prefix(".").unwrap_or(p).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// The global excludes lookup is skipped only when no config names an excludes file and
    /// the default one does not exist.
    #[test]
    fn global_excludes_are_looked_for_the_cheap_way() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let system = dir.path().join("gitconfig");
        fs::create_dir_all(home.join(".config/git")).unwrap();
        let env = |global: Option<PathBuf>| {
            let system = system.clone();
            move |name: &str| match name {
                "GIT_CONFIG_GLOBAL" => global.clone(),
                "GIT_CONFIG_SYSTEM" => Some(system.clone()),
                _ => None,
            }
        };
        let may = |global: Option<PathBuf>| excludes_may_apply(env(global), Some(home.clone()));
        fs::write(home.join(".gitconfig"), "[user]\n\tname = x\n").unwrap();
        assert!(!may(None));
        fs::write(&system, "[core]\n  ExcludesFile = ~/.gitignore_global\n").unwrap();
        assert!(may(None), "the system config names one");
        fs::remove_file(&system).unwrap();
        let global = dir.path().join("global.gitconfig");
        fs::write(&global, "[core]\n\texcludesfile=/tmp/x\n").unwrap();
        assert!(may(Some(global)), "GIT_CONFIG_GLOBAL names one");
        fs::write(home.join(".config/git/ignore"), "*.swp\n").unwrap();
        assert!(may(None), "the default file exists");
    }

    #[test]
    fn walks_folders_respecting_gitignore_and_takes_files_as_given() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("prompts")).unwrap();
        fs::create_dir_all(root.join("node_modules/x")).unwrap();
        fs::write(root.join(".gitignore"), "node_modules/\n").unwrap();
        fs::write(root.join("prompts/a.toolspec"), "").unwrap();
        fs::write(root.join("node_modules/x/b.toolspec"), "").unwrap();
        fs::write(root.join("run.jsonl"), "").unwrap();
        let found = discover(
            &[
                root.to_path_buf(),
                root.join("run.jsonl"),
                root.join("missing"),
            ],
            &GlobSet::empty(),
            &RootGuard::new(root),
        );
        assert_eq!(found.specs, [root.join("prompts/a.toolspec")]);
        assert_eq!(found.transcripts, [root.join("run.jsonl")]);
        assert_eq!(found.problems.len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_do_not_trap_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a")).unwrap();
        std::os::unix::fs::symlink(root, root.join("a/loop")).unwrap();
        fs::write(root.join("a/s.toolspec"), "").unwrap();
        let found = discover(
            &[root.to_path_buf()],
            &GlobSet::empty(),
            &RootGuard::new(root),
        );
        assert_eq!(found.specs, [root.join("a/s.toolspec")]);
    }
}
