//! `toolspec watch`: check once, then re-check what each saved change affects.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toolspec::check::discover::is_spec;
use toolspec::check::paths::{display_path, normalize};
use toolspec::check::run::{check, CheckOptions, LastGood};
use toolspec::check::settings::{LoadedSettings, SETTINGS_FILES};
use toolspec::code::Code;
use toolspec::report::changes::Snapshot;
use toolspec::report::Report;

use crate::cli::args::{OutputFormat, WatchArgs};
use crate::cli::commands::check::{load_settings, options, render, with_threads};
use crate::cli::output::{self, exit};
use crate::cli::watch::{watch_roots, Watcher};

/// Never returns on findings: only a watcher failure (or Ctrl-C) ends it.
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
    let mut settings = match load_settings(&args.run, &cwd) {
        Ok(s) => s,
        Err(status) => return status,
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
    let full = |settings: &LoadedSettings| {
        with_threads(args.run.threads, || check(&base, settings, &cwd)).unwrap_or_default()
    };
    let mut roots = if args.run.paths.is_empty() {
        vec![cwd.clone()]
    } else {
        args.run.paths.clone()
    };
    // What lies outside the project root is refused by the check (unless --allow-outside-root)
    // and not watched either: `watch /` would set a watch on every folder of the machine.
    let guard = toolspec::guard::RootGuard::for_project(
        &std::path::absolute(&settings.root).unwrap_or_else(|_| settings.root.clone()),
        args.run.allow_outside_root,
    );
    roots.retain(|p| {
        let folder = if p.is_dir() {
            Some(p.as_path())
        } else {
            p.parent()
        };
        folder.is_some_and(|f| {
            guard
                .check_folder(if f.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    f
                })
                .is_ok()
        })
    });
    roots.push(settings.root.clone());
    let roots = watch_roots(&roots);
    let watcher = match Watcher::new(&roots, Duration::from_millis(args.debounce)) {
        Ok(w) => w,
        Err(e) => {
            output::err(&format!("error: {}\n", output::esc(&e.clone())));
            return exit::ERROR;
        }
    };
    // The watcher is in place before the first run, so no save made after it starts is missed.
    let mut report = full(&settings);
    show(&report, &args, color, &settings, None, None);
    let mut last = Snapshot::of(&report);
    while let Some(batch) = watcher.next_batch() {
        let changed = match batch {
            Ok(paths) => paths,
            Err(e) => {
                output::err(&format!(
                    "warning: file watcher: {}\n",
                    output::esc(&e.clone())
                ));
                continue;
            }
        };
        let changed: BTreeSet<PathBuf> = changed
            .into_iter()
            .map(|p| normalize(&p))
            .filter(|p| !is_noise(p))
            .collect();
        if changed.is_empty() {
            continue;
        }
        let settings_changed = changed.iter().any(|p| {
            p.file_name()
                .is_some_and(|n| SETTINGS_FILES.iter().any(|s| n == *s))
        });
        if settings_changed && !args.run.no_config && args.run.config.is_none() {
            if let Ok(s) = LoadedSettings::discover(&cwd) {
                settings = s;
            }
        }
        let mut rechecked = None;
        if settings_changed || changed.iter().any(|p| is_spec(p)) {
            report = full(&settings);
        } else {
            // Only transcripts changed: re-check the pairs that name them, keep the rest.
            let shown: BTreeSet<String> = changed.iter().map(|p| display_path(p, &cwd)).collect();
            let existing: Vec<PathBuf> = changed.iter().filter(|p| p.is_file()).cloned().collect();
            let affected = report.results.iter().any(|r| shown.contains(&r.transcript));
            if existing.is_empty() && !affected {
                continue;
            }
            let mut partial = if existing.is_empty() {
                Report::default()
            } else {
                let opts = CheckOptions {
                    paths: existing,
                    ..base.clone()
                };
                with_threads(args.run.threads, || check(&opts, &settings, &cwd)).unwrap_or_default()
            };
            // A file no spec names is not news while watching.
            partial.warnings.retain(|w| {
                w.code != Code::UnclaimedTranscript.id() && w.code != Code::NothingChecked.id()
            });
            if partial.results.is_empty() && !affected && partial.errors.is_empty() {
                continue;
            }
            report.results.retain(|r| !shown.contains(&r.transcript));
            report
                .errors
                .retain(|e| e.location.as_ref().is_none_or(|l| !shown.contains(&l.file)));
            let n = partial.results.len();
            report.results.extend(partial.results);
            report.errors.extend(partial.errors);
            report.sort();
            report.recount();
            rechecked = Some((n, shown));
        }
        let now = Snapshot::of(&report);
        let changes = now.changes_since(&last);
        last = now;
        show(
            &report,
            &args,
            color,
            &settings,
            rechecked.as_ref(),
            Some(&changes),
        );
    }
    exit::OK
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
/// on stderr) what changed since the last run, then the status line. `rechecked`: after a
/// transcript-only change, how many pairs were checked again and which transcripts changed (the
/// status line says so: the rest was not re-read).
fn show(
    report: &Report,
    args: &WatchArgs,
    color: bool,
    settings: &LoadedSettings,
    rechecked: Option<&(usize, BTreeSet<String>)>,
    changes: Option<&[String]>,
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
    let what = match rechecked {
        None => format!("checked {} pair(s)", report.results.len()),
        Some((n, changed)) => format!(
            "re-checked {n} of {} pair(s) (changed: {})",
            report.results.len(),
            changed
                .iter()
                .map(|c| output::esc(c))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    output::err(&format!(
        "[watch] {what}; {} spec file(s) under {root}; waiting for changes (Ctrl-C to stop)\n",
        report.summary.spec_files
    ));
}
