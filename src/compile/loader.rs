//! Loading included files: from disk ([`FsLoader`]) or from memory ([`MapLoader`], for tests and
//! editors).

use std::collections::HashMap;
use std::io;

use crate::source::SourceFile;

/// Reads the file an `include` names. Paths are resolved relative to the including file; the
/// returned file's `name` identifies it (two includes of the same file must give the same name,
/// which is how include cycles are found).
pub trait SourceLoader {
    /// Load `path` as included from `from`.
    fn load(&self, from: &SourceFile, path: &str) -> io::Result<SourceFile>;
}

/// `path` joined to the folder of `from` (unless absolute), with `.` and `..` resolved lexically.
pub fn resolve_include(from: &str, path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_owned()
    } else {
        match from.rfind('/') {
            Some(i) => format!("{}/{}", &from[..i], path),
            None => path.to_owned(),
        }
    };
    normalize(&joined)
}

/// Resolve `.` and `..` components of a `/`-separated path without touching the file system.
pub fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if matches!(parts.last(), Some(p) if *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    let body = parts.join("/");
    if absolute {
        format!("/{body}")
    } else {
        body
    }
}

/// Reads included files from disk.
#[derive(Debug, Clone, Copy, Default)]
pub struct FsLoader;

impl SourceLoader for FsLoader {
    fn load(&self, from: &SourceFile, path: &str) -> io::Result<SourceFile> {
        let name = resolve_include(&from.name, path);
        // A regular file only (a FIFO would never end), and of a bounded size.
        let text = crate::guard::RootGuard::anywhere()
            .read_text(std::path::Path::new(&name), crate::guard::SPEC_LIMIT)?;
        Ok(SourceFile::new(name, text))
    }
}

/// Reads included files from disk, but only inside a project: an include whose file lies
/// outside `root` (after following symbolic links) is refused, as `toolspec check` refuses a
/// transcript glob that leaves the project. A spec is code run in CI on whatever a branch
/// contains, and a refused include cannot echo a file from elsewhere on the machine (a key, a
/// credentials file) into a diagnostic.
/// A spec file named on the command line from outside the project may include files from its
/// own folder (see [`ProjectLoader::for_spec`]).
#[derive(Debug, Clone)]
pub struct ProjectLoader {
    /// The project root, with symbolic links resolved.
    root: std::path::PathBuf,
    /// The folder of a spec file that lies outside the root, if any.
    spec_folder: Option<std::path::PathBuf>,
}

impl ProjectLoader {
    /// Includes may reach files under `root` only.
    pub fn new(root: &std::path::Path) -> Self {
        ProjectLoader {
            root: real_path(root),
            spec_folder: None,
        }
    }

    /// For the spec file `spec`: if it lies outside the root, its own folder is allowed too.
    pub fn for_spec(mut self, spec: &std::path::Path) -> Self {
        let spec = real_path(spec);
        if !spec.starts_with(&self.root) {
            self.spec_folder = spec.parent().map(std::path::Path::to_path_buf);
        }
        self
    }
}

fn real_path(p: &std::path::Path) -> std::path::PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

impl SourceLoader for ProjectLoader {
    fn load(&self, from: &SourceFile, path: &str) -> io::Result<SourceFile> {
        let name = resolve_include(&from.name, path);
        let real = std::fs::canonicalize(&name)?;
        let inside = real.starts_with(&self.root)
            || self
                .spec_folder
                .as_ref()
                .is_some_and(|f| real.starts_with(f));
        if !inside {
            let outside = OutsideRoot {
                name,
                root: self.root.clone(),
            };
            return Err(io::Error::new(io::ErrorKind::PermissionDenied, outside));
        }
        FsLoader.load(from, path)
    }
}

/// The error of a [`ProjectLoader`] refusing a file outside the project (inside an
/// [`io::Error`] of kind `PermissionDenied`; see [`OutsideRoot::of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutsideRoot {
    /// The included path, resolved against the including file.
    pub name: String,
    /// The project root.
    pub root: std::path::PathBuf,
}

impl OutsideRoot {
    /// The refusal inside `e`, if `e` is one.
    pub fn of(e: &io::Error) -> Option<&OutsideRoot> {
        e.get_ref().and_then(|inner| inner.downcast_ref())
    }
}

impl std::fmt::Display for OutsideRoot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is outside the project root {}",
            self.name,
            self.root.display()
        )
    }
}

impl std::error::Error for OutsideRoot {}

/// Serves included files from memory, keyed by their resolved path.
#[derive(Debug, Clone, Default)]
pub struct MapLoader {
    files: HashMap<String, String>,
}

impl MapLoader {
    /// An empty loader.
    pub fn new() -> Self {
        MapLoader::default()
    }

    /// Add (or replace) a file; builder style.
    pub fn with(mut self, name: &str, text: &str) -> Self {
        self.insert(name, text);
        self
    }

    /// Add (or replace) a file.
    pub fn insert(&mut self, name: &str, text: &str) {
        self.files.insert(normalize(name), text.to_owned());
    }
}

impl SourceLoader for MapLoader {
    fn load(&self, from: &SourceFile, path: &str) -> io::Result<SourceFile> {
        let name = resolve_include(&from.name, path);
        match self.files.get(&name) {
            Some(text) => Ok(SourceFile::new(name, text.clone())),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no file `{name}`"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_to_the_including_file() {
        assert_eq!(
            resolve_include("specs/a.toolspec", "b.toolspec"),
            "specs/b.toolspec"
        );
        assert_eq!(
            resolve_include("specs/a.toolspec", "../c/d.toolspec"),
            "c/d.toolspec"
        );
        assert_eq!(
            resolve_include("a.toolspec", "./x/../b.toolspec"),
            "b.toolspec"
        );
        assert_eq!(
            resolve_include("/r/a.toolspec", "/abs.toolspec"),
            "/abs.toolspec"
        );
        assert_eq!(normalize("../../a"), "../../a");
    }

    #[test]
    fn map_loader_serves_and_misses() {
        let l = MapLoader::new().with("specs/tools.toolspec", "tool x()");
        let from = SourceFile::new("specs/a.toolspec", "");
        assert_eq!(
            l.load(&from, "tools.toolspec").unwrap().name,
            "specs/tools.toolspec"
        );
        assert_eq!(
            l.load(&from, "nope.toolspec").unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
