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
    /// Texts that replace files on disk (an editor's open buffers).
    buffers: Option<std::sync::Arc<Buffers>>,
}

/// Texts that replace the files on disk they are the buffers of (an editor's open documents),
/// keyed by the file's real path ([`std::fs::canonicalize`]). A buffer is read in place of its
/// file only where the guard lets the file itself be read: a buffer widens nothing.
pub type Buffers = HashMap<std::path::PathBuf, std::sync::Arc<str>>;

impl FsLoader {
    /// Includes read through `guard`.
    pub fn new(guard: RootGuard) -> Self {
        FsLoader {
            guard,
            base: None,
            buffers: None,
        }
    }

    /// The same, reading `buffers` in place of the files they hold (an editor's open
    /// documents), wherever the guard lets the file itself be read.
    pub fn with_buffers(mut self, buffers: std::sync::Arc<Buffers>) -> Self {
        self.buffers = Some(buffers);
        self
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
        if let Some(buffers) = self.buffers.as_deref().filter(|b| !b.is_empty()) {
            // The guard judges the file on disk; its buffer is read in its place, within the
            // same size limit.
            if let Some(text) = self
                .guard
                .check(&at)
                .ok()
                .and_then(|real| buffers.get(&real))
            {
                if text.len() as u64 > crate::guard::SPEC_LIMIT {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        crate::guard::Refused::TooLarge {
                            len: text.len() as u64,
                            limit: crate::guard::SPEC_LIMIT,
                        },
                    ));
                }
                return Ok(SourceFile::new(name, &**text));
            }
        }
        // Inside the root, a regular file only (a FIFO would never end), of a bounded size.
        let text = self.guard.read_text(&at, crate::guard::SPEC_LIMIT)?;
        Ok(SourceFile::new(name, text))
    }
}

/// A loader that remembers the name of every file it loaded: the files a compiled spec depends
/// on beside its own (what a cache of compiled specs must see change).
pub struct Recording<'l> {
    inner: &'l dyn SourceLoader,
    loaded: std::cell::RefCell<Vec<String>>,
}

impl<'l> Recording<'l> {
    /// Load through `inner`, remembering what was loaded.
    pub fn new(inner: &'l dyn SourceLoader) -> Self {
        Recording {
            inner,
            loaded: std::cell::RefCell::default(),
        }
    }

    /// The names of the files loaded, in load order, each once.
    pub fn into_loaded(self) -> Vec<String> {
        self.loaded.into_inner()
    }
}

impl SourceLoader for Recording<'_> {
    fn load(&self, from: &SourceFile, path: &str) -> io::Result<SourceFile> {
        let file = self.inner.load(from, path)?;
        let mut loaded = self.loaded.borrow_mut();
        if !loaded.contains(&file.name) {
            loaded.push(file.name.clone());
        }
        Ok(file)
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
    fn a_recording_loader_names_each_file_loaded_once() {
        let inner = MapLoader::new()
            .with("a/b.toolspec", "x")
            .with("a/c.toolspec", "y");
        let rec = Recording::new(&inner);
        let from = SourceFile::new("a/main.toolspec", "");
        assert!(rec.load(&from, "b.toolspec").is_ok());
        assert!(rec.load(&from, "./b.toolspec").is_ok());
        assert!(rec.load(&from, "missing.toolspec").is_err());
        assert!(rec.load(&from, "c.toolspec").is_ok());
        assert_eq!(rec.into_loaded(), ["a/b.toolspec", "a/c.toolspec"]);
    }

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
