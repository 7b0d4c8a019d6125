//! Binding: a spec's transcript globs (relative to the spec file's folder) → transcript files.
//!
//! Each glob is split into a literal folder prefix and a wildcard rest (`../runs/**/*.jsonl` from
//! `prompts/` becomes the folder `runs/` and the pattern `**/*.jsonl`). A prefix outside the
//! project root is refused unless allowed, so a spec cannot make toolspec read `../../**`.
//! Only the prefix folder is walked. Spec globs name transcripts deliberately, so `.gitignore`
//! does not hide them (recorded runs are often ignored by git); hidden folders such as `.git` are
//! still skipped and links to folders are not followed. `*` stays within one folder; `**` crosses
//! folders. A matched link or special file is handed on: the root guard ([`crate::guard`])
//! resolves it and refuses it with a finding unless it is a regular file inside the root.

use std::path::{Path, PathBuf};

use super::paths::{self, normalize};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// A compiled transcript glob of one spec.
#[derive(Debug, Clone)]
pub struct BoundGlob {
    /// The pattern as written in the spec.
    pub pattern: String,
    /// The absolute literal part: a folder to walk, or the file itself when there is no wildcard.
    pub prefix: PathBuf,
    /// Matches absolute, normalised paths: the prefix (escaped) joined to the wildcard rest,
    /// where `*` and `?` stay within one folder, `**` crosses folders, `\\` escapes the next
    /// character and case matters.
    pub matcher: Option<GlobSet>,
    /// The project root with symbolic links resolved, unless the glob may leave it: the
    /// prefix must resolve inside it too when the glob is expanded (a committed link
    /// `runs -> /elsewhere` leaves the root as surely as `../..`).
    root_real: Option<PathBuf>,
}

/// Why a glob cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GlobError {
    /// The literal part leaves the project root.
    #[error("`{pattern}` reaches outside the project root {root}")]
    OutsideRoot {
        /// The pattern.
        pattern: String,
        /// The root.
        root: String,
    },
    /// Not a valid glob.
    #[error("`{pattern}` is not a valid glob: {message}")]
    Invalid {
        /// The pattern.
        pattern: String,
        /// The glob parser's message.
        message: String,
    },
}

fn has_wildcard(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

impl BoundGlob {
    /// Compile `pattern`, relative to `base` (the spec file's folder), refusing a literal part
    /// outside `root` unless `allow_outside_root`.
    pub fn new(
        pattern: &str,
        base: &Path,
        root: &Path,
        allow_outside_root: bool,
    ) -> Result<BoundGlob, GlobError> {
        let base = std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf());
        let root = normalize(&std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf()));
        let mut prefix = if Path::new(pattern).is_absolute() {
            PathBuf::from("/")
        } else {
            normalize(&base)
        };
        let mut rest: Vec<&str> = Vec::new();
        for comp in pattern.split('/') {
            match comp {
                "" | "." if rest.is_empty() => {}
                ".." if rest.is_empty() => {
                    prefix.pop();
                }
                ".." => {
                    return Err(GlobError::Invalid {
                        pattern: pattern.to_owned(),
                        message: "`..` may only appear before the first wildcard".to_owned(),
                    })
                }
                c if rest.is_empty() && !has_wildcard(c) => prefix.push(c),
                c => rest.push(c),
            }
        }
        if !allow_outside_root && !prefix.starts_with(&root) {
            return Err(GlobError::OutsideRoot {
                pattern: pattern.to_owned(),
                root: root.display().to_string(),
            });
        }
        let matcher = if rest.is_empty() {
            None
        } else {
            let prefix_str = prefix.to_string_lossy();
            let full = format!(
                "{}/{}",
                globset::escape(prefix_str.trim_end_matches('/')),
                rest.join("/")
            );
            let invalid = |message: String| GlobError::Invalid {
                pattern: pattern.to_owned(),
                message,
            };
            let glob = GlobBuilder::new(&full)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|e| invalid(e.kind().to_string()))?;
            // A set, not `Glob::compile_matcher`: a glob whose regex is too large is an
            // `invalid-glob` finding, where the matcher would panic.
            let set = GlobSetBuilder::new()
                .add(glob)
                .build()
                .map_err(|e| invalid(e.kind().to_string()))?;
            Some(set)
        };
        let root_real = (!allow_outside_root).then(|| std::fs::canonicalize(&root).unwrap_or(root));
        Ok(BoundGlob {
            pattern: pattern.to_owned(),
            prefix,
            matcher,
            root_real,
        })
    }

    /// Whether the (any-form) `path` is matched by this glob.
    pub fn matches(&self, path: &Path) -> bool {
        let Ok(abs) = std::path::absolute(path) else {
            return false;
        };
        let abs = normalize(&abs);
        match &self.matcher {
            Some(m) => m.is_match(&abs),
            None => abs == self.prefix,
        }
    }

    /// Every existing file the glob matches, sorted (absolute paths); an error if its literal
    /// part resolves outside the project root (symbolic links followed), where nothing is
    /// walked. Links below the literal part are not followed. `git_global`: whether git's global
    /// excludes file may apply ([`paths::walker`]). The folders where a new file would change the
    /// answer are added to `folders`: those walked, the literal part's parent folder (where it
    /// is made again after a deletion), or the nearest existing folder above a missing one.
    pub fn expand(
        &self,
        git_global: bool,
        folders: &mut Vec<PathBuf>,
    ) -> Result<Vec<PathBuf>, GlobError> {
        if let Some(root) = &self.root_real {
            if let Ok(real) = std::fs::canonicalize(&self.prefix) {
                if !real.starts_with(root) {
                    return Err(GlobError::OutsideRoot {
                        pattern: self.pattern.clone(),
                        root: root.display().to_string(),
                    });
                }
            }
        }
        folders.extend(
            self.prefix
                .ancestors()
                .skip(1)
                .find(|a| a.is_dir())
                .filter(|a| {
                    self.root_real.as_ref().is_none_or(|root| {
                        std::fs::canonicalize(a).is_ok_and(|real| real.starts_with(root))
                    })
                })
                .map(Path::to_path_buf),
        );
        // Anything but a folder is handed on, links and FIFOs included: the root guard opens
        // regular files inside the root only, and refuses the rest with a finding.
        let not_a_folder = |t: std::fs::FileType| !t.is_dir();
        let Some(matcher) = &self.matcher else {
            let named = std::fs::symlink_metadata(&self.prefix)
                .is_ok_and(|m| not_a_folder(m.file_type()) && !self.prefix.is_dir());
            return Ok(if named {
                vec![self.prefix.clone()]
            } else {
                Vec::new()
            });
        };
        if !self.prefix.is_dir() {
            return Ok(Vec::new());
        }
        let walker = paths::walker(&self.prefix, git_global)
            .standard_filters(false)
            .hidden(true)
            .follow_links(false)
            .build();
        let mut out: Vec<PathBuf> = walker
            .filter_map(Result::ok)
            .filter(|e| {
                if e.file_type().is_some_and(|t| t.is_dir()) {
                    folders.push(e.path().to_path_buf());
                }
                e.file_type()
                    .is_some_and(|t| not_a_folder(t) && !(t.is_symlink() && e.path().is_dir()))
            })
            .map(ignore::DirEntry::into_path)
            .filter(|p| matcher.is_match(p))
            .collect();
        out.sort();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        for f in [
            "prompts/refund.toolspec",
            "prompts/runs/a.jsonl",
            "prompts/runs/b.json",
            "prompts/runs/deep/c.jsonl",
            "runs/shared.jsonl",
            "prompts/runs/.hidden/d.jsonl",
        ] {
            fs::create_dir_all(r.join(f).parent().unwrap()).unwrap();
            fs::write(r.join(f), "").unwrap();
        }
        fs::write(r.join("prompts/.gitignore"), "runs/\n").unwrap();
        dir
    }

    #[test]
    fn single_star_stays_in_its_folder_and_double_star_crosses() {
        let dir = tree();
        let r = dir.path();
        let base = r.join("prompts");
        let g = BoundGlob::new("runs/*.jsonl", &base, r, false).unwrap();
        assert_eq!(
            g.expand(true, &mut Vec::new()).unwrap(),
            [r.join("prompts/runs/a.jsonl")]
        );
        let g = BoundGlob::new("./runs/**/*.jsonl", &base, r, false).unwrap();
        assert_eq!(
            g.expand(true, &mut Vec::new()).unwrap(),
            [
                r.join("prompts/runs/a.jsonl"),
                r.join("prompts/runs/deep/c.jsonl")
            ]
        );
        assert!(g.matches(&r.join("prompts/runs/deep/c.jsonl")));
        assert!(!g.matches(&r.join("prompts/runs/b.json")));
    }

    #[test]
    fn parent_folders_and_literal_files_resolve() {
        let dir = tree();
        let r = dir.path();
        let g = BoundGlob::new("../runs/shared.jsonl", &r.join("prompts"), r, false).unwrap();
        assert!(g.matcher.is_none());
        assert_eq!(
            g.expand(true, &mut Vec::new()).unwrap(),
            [r.join("runs/shared.jsonl")]
        );
        assert!(g.matches(&r.join("prompts/../runs/shared.jsonl")));
    }

    #[test]
    fn escaping_the_root_is_refused_unless_allowed() {
        let dir = tree();
        let r = dir.path().join("prompts");
        let err = BoundGlob::new("../../**", &r, &r, false).unwrap_err();
        assert!(matches!(err, GlobError::OutsideRoot { .. }), "{err}");
        assert!(BoundGlob::new("../../**", &r, &r, true).is_ok());
        let err = BoundGlob::new("runs/*/../x", &r, &r, false).unwrap_err();
        assert!(matches!(err, GlobError::Invalid { .. }));
    }

    #[test]
    fn glob_semantics_are_the_documented_ones() {
        let base = Path::new("/w");
        let m = |g: &str, p: &str| {
            BoundGlob::new(g, base, base, false)
                .unwrap()
                .matches(Path::new(p))
        };
        // `*` and `?` stay within one folder; `**` crosses folders, zero included.
        assert!(m("runs/*.jsonl", "/w/runs/a.jsonl"));
        assert!(!m("runs/*.jsonl", "/w/runs/sub/a.jsonl"));
        assert!(m("runs/?.jsonl", "/w/runs/a.jsonl"));
        assert!(!m("runs?a.jsonl", "/w/runs/a.jsonl"));
        assert!(m("runs/**/*.jsonl", "/w/runs/a.jsonl"));
        assert!(m("runs/**/*.jsonl", "/w/runs/x/y/a.jsonl"));
        assert!(m("**/deep/*.log", "/w/1/2/deep/a.log"));
        assert!(m("runs/**", "/w/runs/x/y"));
        // A backslash escapes the next character; case matters; classes and alternatives work.
        assert!(m("\\*lit", "/w/*lit"));
        assert!(!m("\\*lit", "/w/alit"));
        assert!(!m("runs/*.jsonl", "/w/runs/A.JSONL"));
        assert!(m("runs/[a-c]*", "/w/runs/beta"));
        assert!(!m("runs/[a-c]*", "/w/runs/delta"));
        assert!(m("{x,y}/**", "/w/y/1"));
    }

    #[test]
    fn folders_with_glob_characters_are_escaped() {
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("a[1]");
        fs::create_dir_all(&odd).unwrap();
        fs::write(odd.join("t.jsonl"), "").unwrap();
        let g = BoundGlob::new("*.jsonl", &odd, dir.path(), false).unwrap();
        assert_eq!(
            g.expand(true, &mut Vec::new()).unwrap(),
            [odd.join("t.jsonl")]
        );
    }
}
