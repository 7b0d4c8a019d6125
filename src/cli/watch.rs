//! File watching for `toolspec watch`: debounced, filtered change batches.
//!
//! notify-debouncer-full merges an editor's save (write, or temp file + rename) into one batch
//! and drops probe files. Only events that change content count: reading a watched file emits
//! `Access(Open)`, and reacting to that would make the watch re-trigger on its own reads.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify_debouncer_full::notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify_debouncer_full::notify::RecursiveMode;
use notify_debouncer_full::{new_debouncer, DebounceEventResult};

/// Whether an event kind means a file's content or existence changed.
pub(crate) fn is_change(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(_)
            | EventKind::Remove(_)
            | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Name(_) | ModifyKind::Any)
            | EventKind::Access(AccessKind::Close(AccessMode::Write))
    )
}

/// A stream of changed-path batches under some folders.
pub(crate) struct Watcher {
    _debouncer: Box<dyn std::any::Any>,
    rx: mpsc::Receiver<Result<BTreeSet<PathBuf>, String>>,
}

impl Watcher {
    /// Watch `roots` recursively, batching changes that arrive within `debounce` of each other.
    pub(crate) fn new(roots: &[PathBuf], debounce: Duration) -> Result<Watcher, String> {
        let (tx, rx) = mpsc::channel();
        let mut debouncer = new_debouncer(debounce, None, move |res: DebounceEventResult| {
            let batch = match res {
                Ok(events) => Ok(events
                    .iter()
                    .filter(|e| is_change(e.event.kind))
                    .flat_map(|e| e.event.paths.iter().cloned())
                    .collect::<BTreeSet<_>>()),
                Err(errors) => Err(errors
                    .iter()
                    .map(std::string::ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")),
            };
            if matches!(&batch, Ok(paths) if paths.is_empty()) {
                return;
            }
            let _ = tx.send(batch);
        })
        .map_err(|e| e.to_string())?;
        for root in roots {
            debouncer
                .watch(root, RecursiveMode::Recursive)
                .map_err(|e| format!("cannot watch {}: {e}", root.display()))?;
        }
        Ok(Watcher {
            _debouncer: Box::new(debouncer),
            rx,
        })
    }

    /// Block until the next batch of changed paths (or a watcher error).
    pub(crate) fn next_batch(&self) -> Option<Result<BTreeSet<PathBuf>, String>> {
        self.rx.recv().ok()
    }
}

/// The folders to watch for `paths`: folders themselves, and the parent folder of files (so that
/// an editor's rename-over-save of a file is seen).
pub(crate) fn watch_roots(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = paths
        .iter()
        .map(|p| {
            let abs = std::path::absolute(p).unwrap_or_else(|_| p.clone());
            if abs.is_dir() {
                abs
            } else {
                abs.parent().map(Path::to_path_buf).unwrap_or(abs)
            }
        })
        .collect();
    roots.sort();
    roots.dedup();
    // A folder inside another watched folder is already covered.
    let mut kept: Vec<PathBuf> = Vec::new();
    for r in roots {
        if !kept.iter().any(|k| r.starts_with(k)) {
            kept.push(r);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify_debouncer_full::notify::event::{CreateKind, DataChange, MetadataKind};

    #[test]
    fn only_content_changes_count() {
        assert!(is_change(EventKind::Create(CreateKind::File)));
        assert!(is_change(EventKind::Modify(ModifyKind::Data(
            DataChange::Content
        ))));
        assert!(is_change(EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(!is_change(EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(!is_change(EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(!is_change(EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Any
        ))));
    }

    #[test]
    fn nested_roots_collapse() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::create_dir_all(a.join("b")).unwrap();
        std::fs::write(a.join("b/x.toolspec"), "").unwrap();
        let roots = watch_roots(&[a.clone(), a.join("b"), a.join("b/x.toolspec")]);
        assert_eq!(roots, [a]);
    }
}
