//! `toolspec watch` on real file edits in a temporary folder: an in-place write, an editor's
//! atomic save (write a temporary file, rename it over the transcript), a spec syntax error
//! mid-edit (reported; the last good spec keeps being used), its fix, a rename and a deletion.
//! A transcript change re-checks only its own pairs (the status line counts them); reading the
//! files never starts a run. Every step waits for the re-check output with a generous timeout;
//! nothing asserts on timing.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

const PASSING: &str =
    r#"{"tools_called": [{"name": "search", "input_parameters": {"query": "rust"}}]}"#;
const FAILING: &str = r#"{"tools_called": [{"name": "browse", "input_parameters": {}}]}"#;
const SPEC: &str = "spec s {\n  transcripts \"runs/*.json\"\n  call search(query: \"rust\")\n}\n";

/// Lines from the child's stdout and stderr, tagged.
struct Watch {
    child: Child,
    lines: Receiver<(bool, String)>,
    seen: Vec<String>,
}

impl Watch {
    fn start(dir: &Path) -> Watch {
        Watch::start_with(dir, &["--no-clear"])
    }

    fn start_with(dir: &Path, extra: &[&str]) -> Watch {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolspec"))
            // A save's events must land in one batch even on a loaded machine: a generous debounce
            // (it only delays each re-check; nothing here asserts on time).
            .args(["watch", "--color", "never", "--debounce", "250"])
            .args(extra)
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start toolspec watch");
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        let err = child.stderr.take().unwrap();
        let tx2 = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send((false, line));
            }
        });
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx2.send((true, line));
            }
        });
        Watch {
            child,
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// Wait for the end of the next run — its summary line on stdout and the `[watch]` status
    /// line on stderr (the two pipes are read independently, so either may come first) — and
    /// return what was printed since the previous one (the status line included).
    fn next_run(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut text = String::new();
        let (mut summary, mut status) = (false, false);
        loop {
            if summary && status {
                return text;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((is_err, line)) => {
                    self.seen.push(line.clone());
                    if is_err && line.starts_with("[watch]") {
                        status = true;
                    }
                    if !is_err && line.contains(" passed, ") && line.contains(" failed (") {
                        summary = true;
                    }
                    text.push_str(&line);
                    text.push('\n');
                }
                Err(e) => panic!(
                    "no re-check within 60 s ({e}); output so far:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn watch_rechecks_on_every_kind_of_save() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::write(root.join("s.toolspec"), SPEC).unwrap();
    std::fs::write(root.join("runs/t.json"), PASSING).unwrap();
    std::fs::write(root.join("runs/u.json"), PASSING).unwrap();
    // Reading every file, as an editor or toolspec itself does, changes nothing.
    let read_all = || {
        for f in ["s.toolspec", "runs/t.json", "runs/u.json", "runs/v.json"] {
            let _ = std::fs::read(root.join(f));
        }
    };

    let mut w = Watch::start(root);
    let first = w.next_run();
    assert!(first.contains("2 passed, 0 failed"), "{first}");
    assert!(first.contains("[watch] checked 2 pair(s)"), "{first}");
    read_all();

    // Transcript edits first (a spec edit re-runs everything, so its events must not be pending
    // when a partial re-check is asserted).

    // In-place write: only that transcript's pair is checked again.
    std::fs::write(root.join("runs/t.json"), FAILING).unwrap();
    let run = w.next_run();
    assert!(run.contains("1 passed, 1 failed"), "{run}");
    assert!(run.contains("missing-call"), "{run}");
    assert!(run.contains("re-checked 1 of 2 pair(s)"), "{run}");
    assert!(run.contains("runs/t.json"), "{run}");
    // What changed since the last run, in one line.
    assert!(
        run.contains("changed since the last run:\n  s  runs/t.json  PASS → FAIL\n"),
        "{run}"
    );
    read_all();

    // Atomic save: write elsewhere, rename over the transcript.
    std::fs::write(root.join("runs/.t.json.tmp"), PASSING).unwrap();
    std::fs::rename(root.join("runs/.t.json.tmp"), root.join("runs/t.json")).unwrap();
    let run = w.next_run();
    assert!(run.contains("2 passed, 0 failed"), "{run}");
    assert!(run.contains("re-checked 1 of 2 pair(s)"), "{run}");
    assert!(run.contains("  s  runs/t.json  FAIL → PASS\n"), "{run}");
    read_all();

    // A rename: the old name's result goes, the new name is checked.
    std::fs::rename(root.join("runs/u.json"), root.join("runs/v.json")).unwrap();
    let run = w.next_run();
    let pairs: Vec<&str> = run
        .lines()
        .filter(|l| l.starts_with("PASS") || l.starts_with("FAIL"))
        .collect();
    assert!(pairs.iter().any(|l| l.ends_with("runs/v.json")), "{run}");
    assert!(!pairs.iter().any(|l| l.ends_with("runs/u.json")), "{run}");
    assert!(run.contains("2 passed, 0 failed (2 checked"), "{run}");
    assert!(run.contains("re-checked 1 of 2 pair(s)"), "{run}");
    read_all();

    // Deleting a transcript removes its result.
    std::fs::remove_file(root.join("runs/t.json")).unwrap();
    let run = w.next_run();
    assert!(run.contains("1 passed, 0 failed (1 checked"), "{run}");
    assert!(run.contains("re-checked 0 of 1 pair(s)"), "{run}");
    read_all();

    // A syntax error mid-edit: shown, and the last good spec still checks the transcript.
    std::fs::write(root.join("s.toolspec"), "spec s {\n  call search(\n").unwrap();
    let run = w.next_run();
    assert!(run.contains("toolspec::syntax"), "{run}");
    assert!(run.contains("using-last-good-spec"), "{run}");
    // The new error is listed first among the changes.
    let changes = run
        .split("changed since the last run:\n")
        .nth(1)
        .unwrap_or_default();
    assert!(changes.starts_with("  error  s.toolspec:"), "{run}");
    assert!(run.contains("1 passed, 0 failed"), "{run}");
    assert!(run.contains("[watch] checked 1 pair(s)"), "{run}");

    // The fix: the new spec is used (it now expects another tool, so the run fails).
    std::fs::write(
        root.join("s.toolspec"),
        SPEC.replace("call search(query: \"rust\")", "call fetch"),
    )
    .unwrap();
    let run = w.next_run();
    // The syntax error is not reported any more; the changes say it went away.
    assert!(!run.contains("expected `)`"), "{run}");
    assert!(
        run.contains("  error  s.toolspec:2:15  toolspec::syntax  gone\n"),
        "{run}"
    );
    assert!(run.contains("  s  runs/v.json  PASS → FAIL\n"), "{run}");
    assert!(run.contains("0 passed, 1 failed"), "{run}");
}

/// Without `--no-clear` the screen is cleared before every run (ANSI clear + home).
#[test]
fn watch_clears_the_screen_between_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::write(root.join("s.toolspec"), SPEC).unwrap();
    std::fs::write(root.join("runs/t.json"), PASSING).unwrap();
    let mut w = Watch::start_with(root, &[]);
    let first = w.next_run();
    assert!(first.contains("\x1b[2J\x1b[HPASS"), "{first:?}");
    std::fs::write(root.join("runs/t.json"), FAILING).unwrap();
    let run = w.next_run();
    assert!(run.contains("\x1b[2J\x1b[HFAIL"), "{run:?}");
    assert!(run.contains("0 passed, 1 failed"), "{run}");
}
