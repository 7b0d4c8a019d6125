//! `toolspec watch`: check the tree, then check it again after every change.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toolspec::check::paths::{absolute, normalize};
use toolspec::check::run::{check_with, CheckOptions, Checked, LastGood};
use toolspec::check::settings::LoadedSettings;
use toolspec::report::changes::Snapshot;
use toolspec::report::stream::Collect;
use toolspec::report::Report;

use crate::cli::args::{OutputFormat, WatchArgs};
use crate::cli::commands::check::{load_settings, options, render};
use crate::cli::memory::with_threads;
use crate::cli::output::{self, exit};
use crate::cli::watch::{existing_folder, Watcher};

/// Never returns on findings: only a watcher failure (or Ctrl-C) ends it.
///
/// Every run is a whole check of the tree through the planner `toolspec check` uses, so what
/// it prints after any change is what `toolspec check` would print then. The folders watched
/// are those the run reports it read ([`Checked::folders`]), the project root and the folder
/// above it (so a root removed and made again is seen), set again after every run.
pub(crate) fn run(args: WatchArgs) -> u8 {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            output::err(&format!(
                "error: cannot read the current folder: {}\n",
                output::esc(&e.to_string())
            ));
            return exit::ERROR;
        }
    };
    let color = args.run.color.enabled();
    let last_good = LastGood::default();
    let base = match options(&args.run) {
        Ok(o) => CheckOptions {
            last_good: Some(last_good.clone()),
            ..o
        },
        Err(status) => return status,
    };
    let mut watcher = match Watcher::new(Duration::from_millis(args.debounce)) {
        Ok(w) => w,
        Err(e) => {
            output::err(&format!("error: {}\n", output::esc(&e.clone())));
            return exit::ERROR;
        }
    };
    let mut first = true;
    let mut last: Option<Snapshot> = None;
    let mut changed: BTreeSet<PathBuf> = BTreeSet::new();
    // The folders of the last run, and the folders whose changes count (at or under a root).
    let mut folders: BTreeSet<PathBuf> = BTreeSet::new();
    let mut roots: Vec<PathBuf> = vec![cwd.clone()];
    loop {
        // The working folder may have been removed and made again since the last run: the
        // process would still be in the old one.
        let _ = std::env::set_current_dir(&cwd);
        // The settings are read again for every run, as `toolspec check` reads them.
        match load_settings(&args.run, &cwd) {
            Ok(settings) => {
                let root = absolute(&settings.root);
                roots = vec![cwd.clone(), root.clone()];
                // The watches are in place before the run, so no save made during it is missed.
                let mut wanted = folders.clone();
                wanted.extend(around(&root));
                wanted.extend(around(&cwd));
                let problems = watcher.watch_exactly(&wanted, &changed);
                if first && !problems.is_empty() {
                    output::err(&format!("error: {}\n", output::esc(&problems.join("; "))));
                    return exit::ERROR;
                }
                let checked = with_threads(args.run.threads, || {
                    check_with(&base, &settings, &cwd, &Collect)
                });
                let Checked {
                    mut report,
                    pairs,
                    folders: read,
                } = checked;
                report.results = pairs;
                // Watch what this run read: a folder made by the last change is watched now.
                let before = std::mem::replace(&mut folders, read.into_iter().collect());
                if folders != before {
                    let mut wanted = folders.clone();
                    wanted.extend(around(&root));
                    wanted.extend(around(&cwd));
                    for problem in watcher.watch_exactly(&wanted, &changed) {
                        output::err(&format!("warning: {}\n", output::esc(&problem)));
                    }
                }
                let now = Snapshot::of(&report);
                let changes = last.as_ref().map(|l| now.changes_since(l));
                show(
                    &report,
                    &args,
                    color,
                    &settings,
                    changes.as_deref(),
                    watcher.len(),
                );
                last = Some(now);
            }
            // The error is printed; the run waits for the settings to be fixed.
            Err(status) if first => return status,
            Err(_) => output::err(
                "[watch] the settings cannot be read; waiting for changes (Ctrl-C to stop)\n",
            ),
        }
        first = false;
        changed = loop {
            match watcher.next_batch() {
                None => return exit::OK,
                Some(Err(e)) => output::err(&format!(
                    "warning: file watcher: {}\n",
                    output::esc(&e.clone())
                )),
                Some(Ok(paths)) => {
                    let paths: BTreeSet<PathBuf> = paths
                        .into_iter()
                        .map(|p| normalize(&p))
                        .filter(|p| !is_noise(p) && counts(p, &roots, &folders))
                        .collect();
                    if !paths.is_empty() {
                        break paths;
                    }
                }
            }
        };
    }
}

/// The folders watched beside those a run reads for `root`: the folder itself, or the nearest
/// one above it that exists (where it is made again), and the folder above it.
fn around(root: &Path) -> Vec<PathBuf> {
    let Some(found) = existing_folder(root) else {
        return Vec::new();
    };
    let mut out = vec![found.clone()];
    out.extend(found.parent().map(Path::to_path_buf));
    out
}

/// Whether a change at `path` can change a run: it lies in a folder the last run read, or it
/// is a root or holds one (the folder above a root is watched for the root alone).
fn counts(path: &Path, roots: &[PathBuf], folders: &BTreeSet<PathBuf>) -> bool {
    roots
        .iter()
        .any(|r| r.starts_with(path) || path.parent() == Some(r.as_path()))
        || path.parent().is_some_and(|p| folders.contains(p))
        || folders.contains(path)
}

/// Editor and VCS files that never matter.
fn is_noise(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    p.components().any(|c| c.as_os_str() == ".git")
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with(".fmt-tmp")
        || name == "4913"
}

/// Print a run: the run's errors and warnings first, then the report, then (after a re-run,
/// on stderr) what changed since the last run, then the status line.
fn show(
    report: &Report,
    args: &WatchArgs,
    color: bool,
    settings: &LoadedSettings,
    changes: Option<&[String]>,
    watched: usize,
) {
    let (stdout, stderr) = render(report, OutputFormat::Human, color, false);
    if !args.no_clear {
        output::out("\x1b[2J\x1b[H");
    }
    output::err(&stderr);
    output::out(&stdout);
    if let Some(changes) = changes {
        let mut text = String::new();
        if changes.is_empty() {
            text.push_str("\nnothing changed since the last run\n");
        } else {
            text.push_str("\nchanged since the last run:\n");
            for line in changes {
                text.push_str("  ");
                text.push_str(line);
                text.push('\n');
            }
        }
        // On stderr, before the status line: what a re-run says about itself.
        output::err(&toolspec::text::guard_lines(&text));
    }
    let root = settings.root.display().to_string();
    let root = output::esc(&root);
    output::err(&format!(
        "[watch] checked {} pair(s); {} spec file(s) under {root}; {watched} folder(s) watched; waiting for changes (Ctrl-C to stop)\n",
        report.results.len(),
        report.summary.spec_files
    ));
}
