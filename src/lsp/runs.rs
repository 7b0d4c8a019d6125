//! What the transcripts a spec's globs match say about its tools: each tool's name, how often it
//! is called and in how many files, the argument keys and output fields its calls have, and the
//! schema and description a transcript declares for it. Read by the readers `check` reads with
//! (`transcript::Reader`, through the project's root guard, with the settings' custom mapping
//! of the file), summarised per file and cached by the file's modification time and size, so a
//! file is read again only when it changes. Never on the typing path: diagnostics do not wait
//! for it; completion and hover read it, and opening a spec warms it in the background.
//!
//! Bounds: at most [`MAX_FILES`] files per question (the first in path order), files of at most
//! [`MAX_FILE_BYTES`] bytes, at most [`MAX_READ_BYTES`] bytes read for one question (files
//! past it are left out until asked again), [`MAX_TOOLS`] tools per file, [`MAX_KEYS`] keys per
//! tool and a declared schema of at most [`MAX_SCHEMA_BYTES`] bytes as JSON; the cache holds at
//! most [`MAX_CACHED`] files (it is emptied when full).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rayon::prelude::*;
use serde_json::Value;

use crate::check::settings::LoadedSettings;
use crate::guard::RootGuard;
use crate::transcript::{Format, Reader, Transcript};

/// Most transcript files one question reads or looks up.
pub const MAX_FILES: usize = 2000;
/// Largest transcript file read.
pub const MAX_FILE_BYTES: u64 = 16 << 20;
/// Most bytes read from files not yet cached, for one question.
pub const MAX_READ_BYTES: u64 = 256 << 20;
/// Most tools kept of one file.
pub const MAX_TOOLS: usize = 512;
/// Most argument keys (and output fields) kept of one tool in one file.
pub const MAX_KEYS: usize = 256;
/// Largest declared schema kept, as JSON text.
pub const MAX_SCHEMA_BYTES: usize = 16 << 10;
/// Most files the cache holds.
pub const MAX_CACHED: usize = 20_000;

/// One tool as the transcripts show it.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolSeen {
    /// Calls of it.
    pub(crate) calls: usize,
    /// Files with a call of it (or a declaration).
    pub(crate) files: usize,
    /// Top-level argument keys, with how many calls have each.
    pub(crate) args: BTreeMap<String, usize>,
    /// Top-level fields of object outputs, with how many calls have each.
    pub(crate) output: BTreeMap<String, usize>,
    /// The parameters' JSON Schema a transcript declares.
    pub(crate) schema: Option<Value>,
    /// The description a transcript declares.
    pub(crate) description: Option<String>,
}

/// The tools of some transcripts.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seen {
    pub(crate) tools: BTreeMap<String, ToolSeen>,
    /// Transcript files summarised.
    pub(crate) files: usize,
    /// Files matched but left out (past a bound, unreadable).
    pub(crate) left_out: usize,
}

impl Seen {
    fn add(&mut self, other: &Seen) {
        for (name, t) in &other.tools {
            let mine = self.tools.entry(name.clone()).or_default();
            mine.calls += t.calls;
            mine.files += t.files;
            for (k, n) in &t.args {
                *mine.args.entry(k.clone()).or_default() += n;
            }
            for (k, n) in &t.output {
                *mine.output.entry(k.clone()).or_default() += n;
            }
            if mine.schema.is_none() {
                mine.schema.clone_from(&t.schema);
            }
            if mine.description.is_none() {
                mine.description.clone_from(&t.description);
            }
        }
        self.files += other.files;
        self.left_out += other.left_out;
    }

    /// One transcript's calls and declarations added.
    fn transcript(&mut self, t: &Transcript) {
        for c in &t.calls {
            if !self.tools.contains_key(&c.name) && self.tools.len() >= MAX_TOOLS {
                continue;
            }
            let seen = self.tools.entry(c.name.clone()).or_default();
            seen.calls += 1;
            keys(&mut seen.args, &c.args);
            if let Some(out) = &c.output {
                keys(&mut seen.output, out);
            }
        }
        for d in &t.tools {
            if !self.tools.contains_key(&d.name) && self.tools.len() >= MAX_TOOLS {
                continue;
            }
            let seen = self.tools.entry(d.name.clone()).or_default();
            if seen.schema.is_none() {
                seen.schema = d
                    .parameters
                    .as_ref()
                    .filter(|p| p.to_string().len() <= MAX_SCHEMA_BYTES)
                    .cloned();
            }
            if seen.description.is_none() {
                seen.description.clone_from(&d.description);
            }
        }
    }
}

fn keys(into: &mut BTreeMap<String, usize>, value: &Value) {
    if let Value::Object(map) = value {
        for k in map.keys() {
            if into.contains_key(k) || into.len() < MAX_KEYS {
                *into.entry(k.clone()).or_default() += 1;
            }
        }
    }
}

/// The summaries of transcript files, by path, with the stamp they were read at.
#[derive(Default)]
pub(crate) struct Runs {
    cache: Mutex<HashMap<PathBuf, (Stamp, Arc<Seen>)>>,
}

/// A file's modification time and size.
type Stamp = (Option<SystemTime>, u64);

impl Runs {
    /// What the files say, merged: each from the cache while its stamp holds, else read now
    /// (within the bounds). `format`: the spec's `format`, read with instead of detection.
    pub(crate) fn seen(
        &self,
        files: &[PathBuf],
        guard: &RootGuard,
        settings: &LoadedSettings,
        format: Option<Format>,
    ) -> Seen {
        let mut total = Seen::default();
        total.left_out += files.len().saturating_sub(MAX_FILES);
        let files = &files[..files.len().min(MAX_FILES)];
        let mut missing: Vec<(&PathBuf, Stamp)> = Vec::new();
        {
            let cache = self
                .cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for f in files {
                let Ok(meta) = std::fs::metadata(f) else {
                    total.left_out += 1;
                    continue;
                };
                let stamp = (meta.modified().ok(), meta.len());
                match cache.get(f) {
                    Some((s, seen)) if *s == stamp => total.add(seen),
                    _ => missing.push((f, stamp)),
                }
            }
        }
        // The budget of bytes to read now, in path order.
        let mut budget = MAX_READ_BYTES;
        let mut read: Vec<(&PathBuf, Stamp)> = Vec::new();
        for (f, stamp) in missing {
            if stamp.1 > MAX_FILE_BYTES || stamp.1 > budget {
                total.left_out += 1;
                continue;
            }
            budget -= stamp.1;
            read.push((f, stamp));
        }
        let fresh: Vec<(PathBuf, Stamp, Option<Seen>)> = read
            .par_iter()
            .map(|(f, stamp)| ((*f).clone(), *stamp, summarise(f, guard, settings, format)))
            .collect();
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.len() + fresh.len() > MAX_CACHED {
            cache.clear();
        }
        for (f, stamp, seen) in fresh {
            match seen {
                Some(seen) => {
                    total.add(&seen);
                    cache.insert(f, (stamp, Arc::new(seen)));
                }
                None => total.left_out += 1,
            }
        }
        total
    }
}

/// One file's tools; `None` when it cannot be read.
fn summarise(
    path: &Path,
    guard: &RootGuard,
    settings: &LoadedSettings,
    format: Option<Format>,
) -> Option<Seen> {
    let mapping = settings.mapping_for(path);
    let mut seen = Seen::default();
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Reader::new()
            .format(format)
            .mapping(mapping.map(|m| &**m))
            .guard(guard)
            .read_file_with(path, |t| seen.transcript(&t))
            .is_ok()
    }));
    if !matches!(read, Ok(true)) {
        return None;
    }
    for t in seen.tools.values_mut() {
        t.files = 1;
    }
    seen.files = 1;
    Some(seen)
}
