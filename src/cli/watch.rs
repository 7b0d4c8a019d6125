//! File watching for `toolspec watch`: debounced, filtered change batches from the folders the
//! check reads.
//!
//! notify-debouncer-full merges an editor's save (write, or temp file + rename) into one batch
//! and drops probe files. Only events that change content count: reading a watched file emits
//! `Access(Open)`, and reacting to that would make the watch re-trigger on its own reads.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify_debouncer_full::notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify_debouncer_full::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};

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

/// A stream of changed-path batches from a set of folders, each watched alone (not
/// recursively): the caller says which folders, and changes them as the tree changes, so a
/// folder the check passes over (ignored, excluded) costs no watch at all.
pub(crate) struct Watcher {
    debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    watched: BTreeSet<PathBuf>,
    rx: mpsc::Receiver<Result<BTreeSet<PathBuf>, String>>,
}

impl Watcher {
    /// A watcher of no folder yet, batching changes that arrive within `debounce` of each other.
    pub(crate) fn new(debounce: Duration) -> Result<Watcher, String> {
        let (tx, rx) = mpsc::channel();
        let debouncer = new_debouncer(debounce, None, move |res: DebounceEventResult| {
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
        Ok(Watcher {
            debouncer,
            watched: BTreeSet::new(),
            rx,
        })
    }

    /// Watch exactly `folders`: stop watching the others, start on the new ones, and watch
    /// again those among `changed` (a folder removed and made again under the same name is a
    /// new folder; its old watch went with it). Returns what could not be watched (a folder
    /// that vanished meanwhile is not a problem: its removal is seen in its parent).
    pub(crate) fn watch_exactly(
        &mut self,
        folders: &BTreeSet<PathBuf>,
        changed: &BTreeSet<PathBuf>,
    ) -> Vec<String> {
        for gone in self.watched.difference(folders) {
            let _ = self.debouncer.unwatch(gone);
        }
        self.watched.retain(|f| folders.contains(f));
        let mut problems = Vec::new();
        for f in folders {
            if self.watched.contains(f) && !changed.contains(f) {
                continue;
            }
            match self.debouncer.watch(f, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    self.watched.insert(f.clone());
                }
                Err(e) if f.is_dir() => {
                    self.watched.remove(f);
                    problems.push(format!("cannot watch {}: {e}", f.display()));
                }
                Err(_) => {
                    self.watched.remove(f);
                }
            }
        }
        problems
    }

    /// How many folders are watched.
    pub(crate) fn len(&self) -> usize {
        self.watched.len()
    }

    /// Block until the next batch of changed paths (or a watcher error).
    pub(crate) fn next_batch(&self) -> Option<Result<BTreeSet<PathBuf>, String>> {
        self.rx.recv().ok()
    }
}

/// The nearest folder at or above `path` that exists (`path` made absolute first).
pub(crate) fn existing_folder(path: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    abs.ancestors().find(|a| a.is_dir()).map(Path::to_path_buf)
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
}
