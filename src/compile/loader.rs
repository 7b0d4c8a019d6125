//! Loading included files: from disk through the root guard ([`FsLoader`]) or from memory
//! ([`MapLoader`], for tests and editors).

use std::collections::HashMap;
use std::io;

use crate::guard::RootGuard;
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

/// Reads included files from disk, through a root guard: the one way an `include` reaches a
/// file, whichever way the spec came in (a file `check` found, `toolspec compile FILE`, spec
/// text given to the Python module). The included path is resolved against the including file,
/// then the guard resolves symbolic links and refuses a file outside its root or one that is
/// not a regular file ([`RootGuard`]): a spec is code run in CI on whatever a branch contains,
/// and a refused include is never opened, so its content (a key, a credentials file) cannot
/// reach a diagnostic. The refusal is an [`io::Error`] carrying a [`crate::guard::Refused`].
///
/// Built with [`RootGuard::for_project`] (`--allow-outside-root` widens it to anywhere).
#[derive(Debug, Clone)]
pub struct FsLoader {
    guard: RootGuard,
    /// The folder relative names are relative to (`None`: the process's working folder).
    base: Option<std::path::PathBuf>,
}

impl FsLoader {
    /// Includes read through `guard`.
    pub fn new(guard: RootGuard) -> Self {
        FsLoader { guard, base: None }
    }

    /// The same, for files named relative to `base` rather than the process's working folder
    /// (a spec shown relative to a working folder of the caller's).
    pub fn relative_to(mut self, base: &std::path::Path) -> Self {
        self.base = Some(base.to_path_buf());
        self
    }
}

impl SourceLoader for FsLoader {
    fn load(&self, from: &SourceFile, path: &str) -> io::Result<SourceFile> {
        let name = resolve_include(&from.name, path);
        let at = match &self.base {
            Some(base) => base.join(&name),
            None => std::path::PathBuf::from(&name),
        };
        // Inside the root, a regular file only (a FIFO would never end), of a bounded size.
        let text = self.guard.read_text(&at, crate::guard::SPEC_LIMIT)?;
        Ok(SourceFile::new(name, text))
    }
}

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
