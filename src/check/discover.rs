//! Discovery: command-line paths → spec files and explicit transcript files.
//!
//! A folder is walked for `*.toolspec` files with the `ignore` crate, so `.gitignore`, `.ignore`
//! and hidden files are respected as in ripgrep and ruff; symbolic links are not followed, so a
//! link loop cannot trap the walk. A folder must resolve inside the project root, else it is
//! refused before it is walked. A file path (a pre-commit hook passes staged files) must pass
//! the root guard ([`crate::guard`]: resolved inside the project root, a regular file), else it
//! is refused, never opened; a `.toolspec` file is a spec, anything else a transcript.

use std::path::{Path, PathBuf};

use globset::GlobSet;

use super::paths;
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
    /// Files under a folder walked that may be transcripts ([`is_candidate`]): what the
    /// built-in rules check when no spec names them. Sorted, without duplicates.
    pub candidates: Vec<PathBuf>,
    /// Paths that could not be used (missing, unreadable folder entries).
    pub problems: Vec<(PathBuf, String)>,
    /// Files the root guard refused (outside the root once links are followed, not regular
    /// files): never opened. The reason is the second element.
    pub refused: Vec<(PathBuf, String)>,
    /// The folders walked, but those whose files are all excluded ([`folder_excluded`]):
    /// where a new or changed file changes what the walk finds (`watch` watches these).
    pub folders: Vec<PathBuf>,
}

/// The extensions of files a folder walk takes as possible transcripts: JSON and JSON lines,
/// logs, the native extensions of formats toolspec reads (SWE-agent `.traj`, Inspect AI
/// `.eval`, Letta agent files `.af`), HTTP recordings (HAR files `.har`, VCR cassettes `.yaml`/`.yml`) and provider streams
/// saved as server-sent events or text (`.sse`, `.txt`). A file that does not read as a transcript is passed over (named under
/// `--strict` and `-v`).
pub const CANDIDATE_EXTENSIONS: &[&str] = &[
    "json", "jsonl", "ndjson", "log", "traj", "eval", "af", "har", "yaml", "yml", "sse", "txt",
];

/// Whether a file found under a folder may be a transcript (by its extension).
pub fn is_candidate(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| CANDIDATE_EXTENSIONS.contains(&e))
}

/// Whether `path` names a spec file.
pub fn is_spec(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == SPEC_EXTENSION)
}

/// Resolve command-line `paths` (folders walked, files taken as given), skipping `exclude`d
/// paths (matched against absolute paths) unless named explicitly as files. A file must pass
/// `guard` (resolved inside the root, a regular file), and a folder must resolve inside the
/// root, else it is `refused`; a folder's spec files are read through the guard later.
/// `git_global`: whether git's global excludes file may apply to the walk ([`paths::walker`]).
pub fn discover(
    paths: &[PathBuf],
    exclude: &GlobSet,
    guard: &RootGuard,
    git_global: bool,
) -> Discovered {
    let mut found = Discovered::default();
    let why = |e: std::io::Error| match Refused::of(&e) {
        Some(r) => r.to_string(),
        None => e.to_string(),
    };
    for path in paths {
        if path.is_dir() {
            // A folder outside the root is refused whole, before its walk: walking `/` to
            // refuse every file under it would take minutes.
            match guard.check_folder(path) {
                Ok(_) => walk_specs(path, exclude, git_global, &mut found),
                Err(e) => found.refused.push((path.clone(), why(e))),
            }
        } else if std::fs::symlink_metadata(path).is_ok() {
            found
                .folders
                .extend(paths::absolute(path).parent().map(Path::to_path_buf));
            if let Err(e) = guard.check(path) {
                found.refused.push((path.clone(), why(e)));
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
    for list in [
        &mut found.specs,
        &mut found.transcripts,
        &mut found.candidates,
        &mut found.folders,
    ] {
        list.sort();
        list.dedup();
    }
    found
}

/// Every spec file under `dir`, and every file that may be a transcript ([`is_candidate`]),
/// honouring ignore files (git's global excludes file too if `git_global`).
pub fn walk_specs(dir: &Path, exclude: &GlobSet, git_global: bool, found: &mut Discovered) {
    let walker = paths::walker(dir, git_global)
        .follow_links(false)
        .require_git(false)
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                let p = entry.path();
                if entry.file_type().is_some_and(|t| t.is_dir()) && !folder_excluded(p, exclude) {
                    found.folders.push(paths::absolute(p));
                }
                if !entry.file_type().is_some_and(|t| t.is_file()) || is_excluded(p, exclude) {
                    continue;
                }
                if is_spec(p) {
                    found.specs.push(strip_dot(p));
                } else if is_candidate(p) {
                    found.candidates.push(strip_dot(p));
                }
            }
            Err(err) => found.problems.push((dir.to_path_buf(), err.to_string())),
        }
    }
}

/// Whether `path` matches an exclude glob (globs are absolute, see [`super::bind`]).
pub fn is_excluded(path: &Path, exclude: &GlobSet) -> bool {
    if exclude.is_empty() {
        return false;
    }
    match std::path::absolute(path) {
        Ok(abs) => exclude.is_match(paths::normalize(&abs)),
        Err(_) => false,
    }
}

/// Whether every file under the folder `path` is excluded, as far as probing tells: the folder
/// matches an exclude glob, or a file in it, a spec file in it and a file one folder down all
/// do (`vendor/**` excludes `vendor`; `vendor/*` and `vendor/*.json` do not).
pub fn folder_excluded(path: &Path, exclude: &GlobSet) -> bool {
    !exclude.is_empty()
        && (is_excluded(path, exclude)
            || ["probe", "probe.toolspec", "probe/probe.json"]
                .iter()
                .all(|p| is_excluded(&path.join(p), exclude)))
}

fn strip_dot(p: &Path) -> PathBuf {
    p.strip_prefix(".").unwrap_or(p).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
            true,
        );
        assert_eq!(found.specs, [root.join("prompts/a.toolspec")]);
        assert_eq!(found.transcripts, [root.join("run.jsonl")]);
        assert_eq!(found.problems.len(), 1);
        // The folders walked: not the ignored one.
        assert_eq!(found.folders, [root.to_path_buf(), root.join("prompts")]);
    }

    /// A folder is passed over only when every file under it is excluded.
    #[test]
    fn excluded_folders_are_those_whose_files_all_are() {
        let set = |globs: &[&str]| {
            let mut b = globset::GlobSetBuilder::new();
            for g in globs {
                b.add(
                    globset::GlobBuilder::new(g)
                        .literal_separator(true)
                        .build()
                        .unwrap(),
                );
            }
            b.build().unwrap()
        };
        let vendor = Path::new("/r/vendor");
        assert!(folder_excluded(vendor, &set(&["/r/vendor/**"])));
        assert!(folder_excluded(vendor, &set(&["/r/vendor"])));
        assert!(folder_excluded(vendor, &set(&["/r/**/vendor/**"])));
        assert!(!folder_excluded(vendor, &set(&["/r/vendor/*"])));
        assert!(!folder_excluded(vendor, &set(&["/r/vendor/**/*.json"])));
        assert!(!folder_excluded(vendor, &set(&["/r/other/**"])));
        assert!(!folder_excluded(vendor, &GlobSet::empty()));
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
            true,
        );
        assert_eq!(found.specs, [root.join("a/s.toolspec")]);
    }
}
