//! `toolspec guard claude-code` (a Claude Code hook: one event on standard input, the answer on
//! standard output) and `toolspec guard install claude-code` (the hook entries written into
//! `.claude/settings.json`). The decisions are the library's ([`toolspec::live`]); this file
//! reads standard input, finds the specs and the state folder, locks and writes the journal, and
//! prints the answer (`docs/guard.md`).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use toolspec::check::run::{Given, SpecSet};
use toolspec::check::settings::{project_root, LoadedSettings};
use toolspec::guard::RootGuard;
use toolspec::live::{self, event::MAX_EVENT_BYTES, journal, Event, Specs};

use crate::cli::args::{GuardArgs, GuardCommand, GuardRunArgs, InstallTarget};
use crate::cli::output::{self, exit};

/// Run `toolspec guard …`.
pub(crate) fn run(args: GuardArgs) -> u8 {
    match args.command {
        GuardCommand::ClaudeCode(a) => claude_code(&a),
        GuardCommand::Install {
            target: InstallTarget::ClaudeCode(a),
        } => install(&a),
    }
}

/// The project: its root (where relative paths of the guard are resolved, and the default
/// state folder is), and its settings.
struct Project {
    root: PathBuf,
    settings: LoadedSettings,
    cwd: PathBuf,
}

fn project() -> Result<Project, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current folder: {e}"))?;
    let root = std::path::absolute(project_root(&cwd)).unwrap_or_else(|_| cwd.clone());
    let settings = LoadedSettings::discover(&cwd).map_err(|e| e.to_string())?;
    Ok(Project {
        root,
        settings,
        cwd,
    })
}

/// The spec files and names the guard enforces: the command line's, else `[guard]`'s.
fn chosen(p: &Project, a: &GuardRunArgs) -> (Vec<PathBuf>, Vec<String>) {
    let settings_root = std::path::absolute(&p.settings.root).unwrap_or_else(|_| p.root.clone());
    let g = &p.settings.settings.guard;
    let specs = if a.specs.is_empty() {
        g.specs.iter().map(|s| settings_root.join(s)).collect()
    } else {
        a.specs.iter().map(|s| p.root.join(s)).collect()
    };
    let names = if a.spec_names.is_empty() {
        g.names.clone()
    } else {
        a.spec_names.clone()
    };
    (specs, names)
}

/// Compile the spec files and choose their specs.
fn compile(p: &Project, files: &[PathBuf], names: &[String]) -> Result<Vec<Specs>, String> {
    if files.is_empty() {
        return Err(
            "no spec to enforce: pass --spec FILE, or set `specs` in the `[guard]` table of toolspec.toml"
                .to_owned(),
        );
    }
    let mut out = Vec::new();
    let mut found = vec![false; names.len()];
    for f in files {
        let set = SpecSet::compile(f, None, &p.settings, &p.cwd, false).map_err(|report| {
            let errors: Vec<String> = report
                .errors
                .iter()
                .map(|e| match &e.location {
                    Some(l) => format!("{}:{}:{}: {}", l.file, l.line, l.column, e.message),
                    None => e.message.clone(),
                })
                .collect();
            format!("{} does not compile: {}", f.display(), errors.join("; "))
        })?;
        let selections = if names.is_empty() {
            vec![set.all()]
        } else {
            let mut chosen = Vec::new();
            for (k, n) in names.iter().enumerate() {
                if set.names().any(|m| m == n) {
                    found[k] = true;
                    chosen.push(
                        set.select(Given::Bytes(b""), Some(n))
                            .map_err(|e| e.to_string())?,
                    );
                }
            }
            chosen
        };
        out.push(Specs { set, selections });
    }
    if let Some(k) = found.iter().position(|f| !f) {
        return Err(format!(
            "no spec named `{}` in the spec files given",
            names[k]
        ));
    }
    Ok(out)
}

/// The state folder: made owner-only (0700) if new; a symbolic link is refused.
fn state_folder(p: &Project, a: &GuardRunArgs) -> Result<PathBuf, String> {
    let settings_root = std::path::absolute(&p.settings.root).unwrap_or_else(|_| p.root.clone());
    let dir = match (&a.state, &p.settings.settings.guard.state) {
        (Some(d), _) => p.cwd.join(d),
        (None, Some(d)) => settings_root.join(d),
        (None, None) => p.root.join(".toolspec").join("guard"),
    };
    if let Ok(m) = std::fs::symlink_metadata(&dir) {
        if !m.is_dir() {
            return Err(format!(
                "the state folder {} is not a folder (a symbolic link is refused)",
                dir.display()
            ));
        }
        return Ok(dir);
    }
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(&dir)
        .map_err(|e| format!("cannot make the state folder {}: {e}", dir.display()))?;
    Ok(dir)
}

/// The session's journal, opened for reading and appending (made owner-only, 0600, if new),
/// locked for this event; a symbolic link or anything but a regular file is refused.
fn open_journal(path: &Path) -> Result<(File, bool), String> {
    let shown = path.display();
    let existed = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => true,
        Ok(_) => {
            return Err(format!(
                "the journal {shown} is not a regular file (a symbolic link is refused)"
            ))
        }
        Err(_) => false,
    };
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let file = o
        .open(path)
        .map_err(|e| format!("cannot open the journal {shown}: {e}"))?;
    // What was opened is what was looked at (the name may have changed in between).
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let opened = file.metadata().map_err(|e| e.to_string())?;
        let named = std::fs::symlink_metadata(path).map_err(|e| e.to_string())?;
        if !named.is_file() || (opened.dev(), opened.ino()) != (named.dev(), named.ino()) {
            return Err(format!("the journal {shown} changed while it was opened"));
        }
    }
    file.lock()
        .map_err(|e| format!("cannot lock the journal {shown}: {e}"))?;
    Ok((file, existed))
}

/// Answer one event; the exit code Claude Code reads.
fn claude_code(a: &GuardRunArgs) -> u8 {
    let mut bytes = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_EVENT_BYTES as u64 + 1)
        .read_to_end(&mut bytes);
    let event = match read {
        Ok(_) => Event::parse(&bytes),
        Err(e) => Err(format!("cannot read standard input: {e}")),
    };
    // The event's name, read even from an event the guard cannot take, so that an error fails
    // closed only where it should.
    let name = match &event {
        Ok(e) => Some(e.name.clone()),
        Err(_) => serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|v| v.get("hook_event_name")?.as_str().map(str::to_owned)),
    };
    let outcome = event.and_then(|e| handle(a, &e));
    let response = live::respond(name.as_deref(), &outcome);
    output::out(&response.stdout);
    output::err(&response.stderr);
    response.exit
}

fn handle(a: &GuardRunArgs, event: &Event) -> Result<live::Outcome, String> {
    let p = project()?;
    let (files, names) = chosen(&p, a);
    let specs = compile(&p, &files, &names)?;
    let dir = state_folder(&p, a)?;
    let path = dir.join(live::journal_file_name(&event.session_id));
    let (mut file, _) = open_journal(&path)?;
    let shown = path.display().to_string();
    let len = file.metadata().map_err(|e| e.to_string())?.len() as usize;
    if len > journal::MAX_JOURNAL_BYTES {
        return Err(format!("{shown}: {}", journal::too_large(len)));
    }
    let mut text = Vec::with_capacity(len);
    file.read_to_end(&mut text)
        .map_err(|e| format!("cannot read the journal {shown}: {e}"))?;
    if text.is_empty() {
        // A session the guard joins late: its transcript so far seeds the journal.
        if let Some(seed) = event.transcript_path.as_deref().and_then(seed) {
            text = seed.into_bytes();
        }
    } else {
        let whole = journal::Journal::read(&text).map_or(text.len(), |j| j.whole);
        if whole < text.len() {
            // A line cut by a crash: dropped.
            text.truncate(whole);
            file.set_len(whole as u64)
                .map_err(|e| format!("cannot mend the journal {shown}: {e}"))?;
        }
    }
    let outcome = live::decide(&specs, &text, event).map_err(|e| format!("{shown}: {e}"))?;
    let written = file.metadata().map_err(|e| e.to_string())?.len() as usize;
    let mut add = Vec::new();
    if written < text.len() {
        // The seed, not written yet.
        add.extend_from_slice(&text[written..]);
    }
    add.extend_from_slice(outcome.append.as_bytes());
    if !add.is_empty() {
        file.seek(SeekFrom::End(0))
            .and_then(|_| file.write_all(&add))
            .map_err(|e| format!("cannot write the journal {shown}: {e}"))?;
    }
    Ok(outcome)
}

/// The journal lines seeded from a session's transcript, when it can be read: a `.jsonl` file,
/// that one file alone opened ([`RootGuard`] rooted at it: regular file, not a view of the
/// system), at most [`journal::MAX_JOURNAL_BYTES`]. A transcript that cannot be read seeds
/// nothing: the journal starts empty.
fn seed(transcript: &str) -> Option<String> {
    let path = Path::new(transcript);
    if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
        return None;
    }
    let bytes = RootGuard::new(path)
        .read(path, journal::MAX_JOURNAL_BYTES as u64)
        .ok()?;
    journal::seed(transcript, &bytes).ok()
}

/// `toolspec guard install claude-code`.
fn install(a: &GuardRunArgs) -> u8 {
    let p = match project() {
        Ok(p) => p,
        Err(e) => {
            output::err(&format!("error: {}\n", output::esc(&e)));
            return exit::ERROR;
        }
    };
    // The specs are checked to compile now rather than at the first event.
    let (files, names) = chosen(&p, a);
    if !a.specs.is_empty() || !p.settings.settings.guard.specs.is_empty() {
        if let Err(e) = compile(&p, &files, &names) {
            output::err(&format!("error: {}\n", output::esc(&e)));
            return exit::ERROR;
        }
    } else {
        output::err("error: no spec to enforce: pass --spec FILE, or set `specs` in the `[guard]` table of toolspec.toml\n");
        return exit::ERROR;
    }
    // The command names the spec files as given (relative to the project root, where the guard
    // resolves them).
    let specs: Vec<String> = a
        .specs
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let command = live::install::command(&specs, &a.spec_names);
    let dir = p.root.join(".claude");
    let path = dir.join("settings.json");
    let shown = toolspec::check::paths::display_path(&path, &p.cwd);
    let existing = match std::fs::read_to_string(&path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            output::err(&format!(
                "error: cannot read {}: {}\n",
                output::esc(&shown),
                output::esc(&e.to_string())
            ));
            return exit::ERROR;
        }
    };
    let installed = match live::install::install(existing.as_deref(), &command) {
        Ok(i) => i,
        Err(e) => {
            output::err(&format!(
                "error: {}: {}; not changed\n",
                output::esc(&shown),
                output::esc(&e)
            ));
            return exit::ERROR;
        }
    };
    if installed.changed() {
        let written =
            std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, &installed.text));
        if let Err(e) = written {
            output::err(&format!(
                "error: cannot write {}: {}\n",
                output::esc(&shown),
                output::esc(&e.to_string())
            ));
            return exit::ERROR;
        }
    }
    let mut text = if installed.changed() {
        format!("wrote {}:\n", output::esc(&shown))
    } else {
        format!(
            "{} already has the guard's hooks; nothing changed:\n",
            output::esc(&shown)
        )
    };
    for (event, change) in &installed.changes {
        let what = match change {
            live::install::Change::Added => "added",
            live::install::Change::Updated => "updated",
            live::install::Change::Kept => "already there",
        };
        text.push_str(&format!("  {event}: {what}\n"));
    }
    text.push_str(&format!("  command: {}\n", output::esc(&command)));
    output::out(&text);
    exit::OK
}
