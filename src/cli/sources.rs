//! File texts for the human report's snippets: read on demand, kept while they are likely to be
//! shown again, within a byte budget.
//!
//! The human report shows each finding with the lines around it, from the transcript and from
//! the spec. Results are rendered on the worker that checked the transcript, right after it, so
//! a transcript's findings come together and a spec's come throughout the run: keeping the most
//! recently used files is all the reuse there is. Keeping every file for the run, as this cache
//! once did, held the whole corpus in memory when every transcript failed: 355 MB peak for the
//! 330 MB benchmark corpus, against 36 MB now (the JSON report: 28 MB).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Files larger than this get no snippets (their findings still say `file:line:column`): the
/// check streamed them in bounded memory, and showing a snippet must not load them whole.
pub(crate) const SNIPPET_FILE_LIMIT: u64 = 64 << 20;

/// Bytes of file text kept between uses. The file being shown is kept whatever its size (up to
/// [`SNIPPET_FILE_LIMIT`]), so a large transcript pushes the others out rather than going
/// without snippets.
pub(crate) const BUDGET: usize = 4 << 20;

/// File texts for rendering snippets, read on demand and kept least-recently-used first out.
/// Shared by the workers; a file is read outside the lock, so one worker reading a large
/// transcript does not hold up the others.
pub struct SourceCache {
    inner: Mutex<Lru>,
    budget: usize,
    /// Texts that are not files (standard input, a spec given as text): always kept, never
    /// read from disk.
    pinned: Mutex<Vec<(String, Arc<String>)>>,
}

impl Default for SourceCache {
    fn default() -> Self {
        SourceCache::with_budget(BUDGET)
    }
}

#[derive(Default)]
struct Lru {
    /// Text (`None`: unreadable, not UTF-8, or too large) and the tick of its last use.
    files: HashMap<PathBuf, (Option<Arc<String>>, u64)>,
    /// The files holding text, by last use.
    order: BTreeMap<u64, PathBuf>,
    bytes: usize,
    tick: u64,
}

impl SourceCache {
    /// A cache keeping at most `budget` bytes between uses (default [`BUDGET`]).
    pub(crate) fn with_budget(budget: usize) -> Self {
        SourceCache {
            inner: Mutex::default(),
            budget,
            pinned: Mutex::default(),
        }
    }

    /// Show `bytes` (if UTF-8) for `name` instead of reading a file of that name: a transcript
    /// read from standard input.
    pub fn pin(&self, name: &str, bytes: &[u8]) {
        if let Ok(text) = std::str::from_utf8(bytes) {
            self.pin_text(name, Arc::new(text.to_owned()));
        }
    }

    /// Show `text` for `name` instead of reading a file of that name.
    pub fn pin_text(&self, name: &str, text: Arc<String>) {
        if let Ok(mut p) = self.pinned.lock() {
            p.retain(|(n, _)| n != name);
            p.push((name.to_owned(), text));
        }
    }

    /// The text of `name` (a path as shown in the report), if readable as UTF-8 and at most
    /// [`SNIPPET_FILE_LIMIT`] bytes.
    pub fn get(&self, name: &str) -> Option<Arc<String>> {
        if let Some((_, text)) = self.pinned.lock().ok()?.iter().find(|(n, _)| n == name) {
            return Some(text.clone());
        }
        let key = PathBuf::from(name);
        {
            let mut lru = self.inner.lock().ok()?;
            if let Some(text) = lru.touch(&key) {
                return text;
            }
        }
        // Regular files only, through the root guard's open (a file a finding names was read
        // through it already).
        let text = toolspec::guard::RootGuard::anywhere()
            .read(std::path::Path::new(name), SNIPPET_FILE_LIMIT)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(Arc::new);
        let mut lru = self.inner.lock().ok()?;
        lru.insert(key, text.clone(), self.budget);
        Some(text).flatten()
    }
}

impl Lru {
    /// The entry for `key`, marked as just used; `None` if there is none.
    fn touch(&mut self, key: &PathBuf) -> Option<Option<Arc<String>>> {
        self.tick += 1;
        let tick = self.tick;
        let (text, used) = self.files.get_mut(key)?;
        if text.is_some() {
            if let Some(path) = self.order.remove(used) {
                self.order.insert(tick, path);
            }
        }
        *used = tick;
        Some(text.clone())
    }

    /// Keep `text` for `key` (another worker may have read it meanwhile: then theirs stays),
    /// then drop the least recently used texts while over `budget`, `key`'s last.
    fn insert(&mut self, key: PathBuf, text: Option<Arc<String>>, budget: usize) {
        if self.touch(&key).is_some() {
            return;
        }
        let tick = self.tick;
        if let Some(t) = &text {
            self.bytes += t.len();
            self.order.insert(tick, key.clone());
        }
        self.files.insert(key, (text, tick));
        while self.bytes > budget && self.order.len() > 1 {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some((Some(t), _)) = self.files.remove(&oldest) {
                self.bytes -= t.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &tempfile::TempDir, name: &str, len: usize) -> String {
        let path = dir.path().join(name);
        std::fs::write(&path, "x".repeat(len)).unwrap();
        path.to_str().unwrap().to_owned()
    }

    fn held(cache: &SourceCache) -> (usize, usize) {
        let lru = cache.inner.lock().unwrap();
        (lru.bytes, lru.order.len())
    }

    #[test]
    fn a_file_is_read_once_while_it_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let a = file(&dir, "a", 10);
        let cache = SourceCache::with_budget(100);
        let first = cache.get(&a).unwrap();
        std::fs::write(&a, "changed").unwrap();
        assert!(Arc::ptr_eq(&first, &cache.get(&a).unwrap()));
        assert_eq!(cache.get("/no/such/file"), None);
        assert_eq!(held(&cache), (10, 1));
    }

    #[test]
    fn the_least_recently_used_files_go_first_and_the_budget_holds() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            file(&dir, "a", 40),
            file(&dir, "b", 40),
            file(&dir, "c", 40),
        );
        let cache = SourceCache::with_budget(100);
        cache.get(&a);
        cache.get(&b);
        cache.get(&a); // a is now more recent than b
        cache.get(&c); // 120 bytes: b goes
        assert_eq!(held(&cache), (80, 2));
        let lru = cache.inner.lock().unwrap();
        assert!(lru.files.contains_key(&PathBuf::from(&a)));
        assert!(!lru.files.contains_key(&PathBuf::from(&b)));
    }

    #[test]
    fn a_file_larger_than_the_budget_is_kept_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (small, big) = (file(&dir, "small", 10), file(&dir, "big", 500));
        let cache = SourceCache::with_budget(100);
        cache.get(&small);
        assert_eq!(cache.get(&big).map(|t| t.len()), Some(500));
        assert_eq!(held(&cache), (500, 1));
        cache.get(&small);
        assert_eq!(held(&cache), (10, 1));
    }

    #[test]
    fn many_files_never_exceed_the_budget_by_more_than_the_last_one() {
        let dir = tempfile::tempdir().unwrap();
        let cache = SourceCache::with_budget(1000);
        for i in 0..200 {
            let name = file(&dir, &format!("f{i}"), 37 + i % 50);
            assert!(cache.get(&name).is_some());
            let (bytes, _) = held(&cache);
            assert!(bytes <= 1000 + 37 + 49, "{bytes}");
        }
    }
}
