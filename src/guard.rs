//! The root guard: the one way toolspec opens a file it reads (specs, includes, transcripts,
//! settings, snippets).
//!
//! A path is resolved first (symbolic links followed, [`std::fs::canonicalize`]); the real path
//! must lie inside the guard's root (unless the guard allows anywhere: `--allow-outside-root`),
//! and it must be a regular file: FIFOs, sockets, devices and folders are refused without being
//! opened (their type is checked before the open, and the open file is checked again), and so
//! is anything under `/proc`, `/sys` or `/dev`, whose "regular" files are views of the machine.
//! A refusal is an [`io::Error`] carrying a [`Refused`] (see [`Refused::of`]), so every caller's
//! existing error path reports it, with the file's name, as a finding for that file.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The most toolspec reads of a spec or an included file.
pub const SPEC_LIMIT: u64 = 16 << 20;
/// The most toolspec reads of a settings file (`toolspec.toml`).
pub const SETTINGS_LIMIT: u64 = 1 << 20;

/// Where files may be read from.
#[derive(Debug, Clone)]
pub struct RootGuard {
    /// The root, with symbolic links resolved; `None`: anywhere.
    root: Option<PathBuf>,
}

/// Why the guard refused a path (inside an [`io::Error`]; see [`Refused::of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The path resolves outside the root.
    OutsideRoot {
        /// The root.
        root: PathBuf,
    },
    /// Not a regular file.
    NotRegular {
        /// What it is instead (`a FIFO`, `a folder`, ...).
        kind: &'static str,
    },
    /// Larger than the caller reads.
    TooLarge {
        /// The file's size.
        len: u64,
        /// The most the caller reads.
        limit: u64,
    },
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::OutsideRoot { root } => write!(
                f,
                "it resolves outside the project root {} (symbolic links followed); pass --allow-outside-root to read it",
                root.display()
            ),
            Refused::NotRegular { kind } => {
                write!(f, "it is {kind}, not a regular file; toolspec reads only regular files")
            }
            Refused::TooLarge { len, limit } => {
                write!(f, "it is {len} bytes, more than the {limit} bytes read from such a file")
            }
        }
    }
}

impl std::error::Error for Refused {}

impl Refused {
    /// The refusal inside `e`, if `e` is one.
    pub fn of(e: &io::Error) -> Option<&Refused> {
        e.get_ref().and_then(|inner| inner.downcast_ref())
    }

    fn into_io(self) -> io::Error {
        let kind = match self {
            Refused::OutsideRoot { .. } => io::ErrorKind::PermissionDenied,
            Refused::NotRegular { .. } | Refused::TooLarge { .. } => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, self)
    }
}

/// Folders whose files are views of the machine, never project files.
const SYSTEM_TREES: &[&str] = &["/proc", "/sys", "/dev"];

fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

impl RootGuard {
    /// Files under `root` only (resolved; a root that does not exist is taken as written).
    pub fn new(root: &Path) -> RootGuard {
        let abs = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
        RootGuard {
            root: Some(std::fs::canonicalize(&abs).unwrap_or(abs)),
        }
    }

    /// Files anywhere (still regular files only).
    pub fn anywhere() -> RootGuard {
        RootGuard { root: None }
    }

    /// Under `root`, or anywhere when `allow_outside_root`.
    pub fn for_project(root: &Path, allow_outside_root: bool) -> RootGuard {
        if allow_outside_root {
            RootGuard::anywhere()
        } else {
            RootGuard::new(root)
        }
    }

    /// The real path of the folder `path` if the guard lets it be walked: inside the root
    /// (the root itself included). A folder that only holds the root (`..`, `/`) is outside:
    /// walking it would reach everything else under it first. Nothing is opened.
    pub fn check_folder(&self, path: &Path) -> io::Result<PathBuf> {
        let real = std::fs::canonicalize(path)?;
        if let Some(root) = &self.root {
            if !real.starts_with(root) {
                return Err(Refused::OutsideRoot { root: root.clone() }.into_io());
            }
        }
        Ok(real)
    }

    /// The real path of `path` if the guard lets it be read: inside the root, a regular file,
    /// not a system view. Nothing is opened.
    pub fn check(&self, path: &Path) -> io::Result<PathBuf> {
        let real = std::fs::canonicalize(path)?;
        if let Some(root) = &self.root {
            if !real.starts_with(root) {
                return Err(Refused::OutsideRoot { root: root.clone() }.into_io());
            }
        }
        if SYSTEM_TREES.iter().any(|t| real.starts_with(t)) {
            return Err(Refused::NotRegular {
                kind: "a file of the system (/proc, /sys, /dev)",
            }
            .into_io());
        }
        let meta = std::fs::metadata(&real)?;
        if !meta.is_file() {
            return Err(Refused::NotRegular {
                kind: kind_of(meta.file_type()),
            }
            .into_io());
        }
        Ok(real)
    }

    /// Open `path` for reading, if the guard lets it be read ([`RootGuard::check`]).
    pub fn open(&self, path: &Path) -> io::Result<File> {
        let real = self.check(path)?;
        let file = File::open(&real)?;
        // What was opened is what was checked (the path may have changed in between).
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(Refused::NotRegular {
                kind: kind_of(meta.file_type()),
            }
            .into_io());
        }
        Ok(file)
    }

    /// The bytes of `path` ([`RootGuard::open`]), refused past `limit` bytes.
    pub fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        let file = self.open(path)?;
        let len = file.metadata()?.len();
        if len > limit {
            return Err(Refused::TooLarge { len, limit }.into_io());
        }
        let mut bytes = Vec::with_capacity(len as usize);
        // A file that grew since: read no more than the limit and one byte.
        file.take(limit + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Err(Refused::TooLarge {
                len: bytes.len() as u64,
                limit,
            }
            .into_io());
        }
        Ok(bytes)
    }

    /// The text of `path` as UTF-8 ([`crate::source::ReadTextError`] says where it is not), refused past
    /// `limit` bytes.
    pub fn read_text(
        &self,
        path: &Path,
        limit: u64,
    ) -> Result<String, crate::source::ReadTextError> {
        let bytes = self
            .read(path, limit)
            .map_err(crate::source::ReadTextError::Io)?;
        crate::source::text_of(bytes)
    }
}

/// Open a regular file anywhere ([`RootGuard::anywhere`]): for paths the guard has already let
/// through once (a transcript read again to place findings, a file shown in a snippet).
pub fn open_regular(path: &Path) -> io::Result<File> {
    RootGuard::anywhere().open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn refuses_links_out_of_the_root_fifos_and_system_files() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(outer.path().join("secret"), "s").unwrap();
        std::fs::write(root.join("ok.json"), "{}").unwrap();
        std::os::unix::fs::symlink(outer.path().join("secret"), root.join("link.json")).unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", root.join("env.json")).unwrap();
        let fifo = root.join("fifo.json");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let guard = RootGuard::new(&root);
        assert_eq!(guard.read(&root.join("ok.json"), 10).unwrap(), b"{}");
        let refused = |p: &Path, g: &RootGuard| {
            let e = g.open(p).unwrap_err();
            Refused::of(&e).cloned().unwrap_or_else(|| panic!("{e}"))
        };
        assert!(matches!(
            refused(&root.join("link.json"), &guard),
            Refused::OutsideRoot { .. }
        ));
        assert!(matches!(
            refused(&root.join("env.json"), &guard),
            Refused::OutsideRoot { .. }
        ));
        let anywhere = RootGuard::anywhere();
        assert!(matches!(
            refused(&root.join("env.json"), &anywhere),
            Refused::NotRegular { .. }
        ));
        assert_eq!(
            refused(&fifo, &anywhere),
            Refused::NotRegular { kind: "a FIFO" }
        );
        assert!(matches!(
            Refused::of(&guard.read(&root.join("ok.json"), 1).unwrap_err()),
            Some(Refused::TooLarge { len: 2, limit: 1 })
        ));
        assert!(anywhere.open(&root.join("link.json")).is_ok());
        // Folders: the root and what is under it, not what holds it or a link out of it.
        std::os::unix::fs::symlink(outer.path(), root.join("up")).unwrap();
        assert!(guard.check_folder(&root).is_ok());
        for outside in [outer.path().to_path_buf(), root.join(".."), root.join("up")] {
            let e = guard.check_folder(&outside).unwrap_err();
            assert!(
                matches!(Refused::of(&e), Some(Refused::OutsideRoot { .. })),
                "{}",
                outside.display()
            );
        }
        assert!(anywhere.check_folder(outer.path()).is_ok());
    }
}
