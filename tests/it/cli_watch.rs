//! `toolspec watch` on real file edits in a temporary folder: an in-place write, an editor's
//! atomic save (write a temporary file, rename it over the transcript), a spec syntax error
//! mid-edit (reported; the last good spec keeps being used), its fix, a rename and a deletion.
//! Every run checks the whole tree as `toolspec check` does, and prints what it prints; reading
//! the files never starts a run; folders the check passes over are not watched. Every step waits for the re-check output with a generous timeout;
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

    // In-place write.
    std::fs::write(root.join("runs/t.json"), FAILING).unwrap();
    let run = w.next_run();
    assert!(run.contains("1 passed, 1 failed"), "{run}");
    assert!(run.contains("missing-call"), "{run}");
    assert!(run.contains("[watch] checked 2 pair(s)"), "{run}");
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
    assert!(run.contains("[watch] checked 2 pair(s)"), "{run}");
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
    assert!(run.contains("[watch] checked 2 pair(s)"), "{run}");
    read_all();

    // Deleting a transcript removes its result.
    std::fs::remove_file(root.join("runs/t.json")).unwrap();
    let run = w.next_run();
    assert!(run.contains("1 passed, 0 failed (1 checked"), "{run}");
    assert!(run.contains("[watch] checked 1 pair(s)"), "{run}");
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

impl Watch {
    /// Wait for the next run and return what it printed as `toolspec check` would print it:
    /// its stdout, and its stderr before what watch adds (the changes since the last run and
    /// the status line). The status line is returned third.
    fn next_state(&mut self) -> (String, String, String) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let (mut out, mut err, mut status) = (String::new(), String::new(), String::new());
        let mut own = false;
        let mut summary = false;
        loop {
            if summary && !status.is_empty() {
                return (out, err.trim_end().to_owned(), status);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((is_err, line)) => {
                    self.seen.push(line.clone());
                    if !is_err {
                        summary |= line.contains(" passed, ") && line.contains(" failed (");
                        out.push_str(&line);
                        out.push('\n');
                    } else if line.starts_with("[watch]") {
                        status = line;
                    } else {
                        own |= line.starts_with("changed since the last run")
                            || line.starts_with("nothing changed since the last run");
                        if !own {
                            err.push_str(&line);
                            err.push('\n');
                        }
                    }
                }
                Err(e) => panic!(
                    "no re-check within 60 s ({e}); output so far:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Wait for the next status line, then for the output to settle; return what was printed.
    fn next_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut text = String::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((is_err, line)) => {
                    self.seen.push(line.clone());
                    text.push_str(&line);
                    text.push('\n');
                    if is_err && line.starts_with("[watch]") {
                        break;
                    }
                }
                Err(e) => panic!("no run within 60 s ({e}):\n{}", self.seen.join("\n")),
            }
        }
        // Anything the run printed on the other pipe, and any further run the same change
        // started, is drained before the next change.
        while let Ok((_, line)) = self.lines.recv_timeout(Duration::from_secs(2)) {
            self.seen.push(line.clone());
            text.push_str(&line);
            text.push('\n');
        }
        text
    }
}

/// What `toolspec check` prints for the tree at `dir` now: (stdout, stderr).
fn check_now(dir: &Path) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["check", "--color", "never"])
        .current_dir(dir)
        .output()
        .expect("run toolspec check");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).trim_end().to_owned(),
    )
}

/// Wait for watch's next run and assert it printed what a fresh `toolspec check` prints:
/// every verdict, rate, count, error and warning.
fn assert_same_as_check(w: &mut Watch, dir: &Path, step: &str) -> String {
    let (out, err, status) = w.next_state();
    let (check_out, check_err) = check_now(dir);
    assert_eq!(
        out, check_out,
        "{step}: watch's report differs from check's"
    );
    assert_eq!(
        err, check_err,
        "{step}: watch's errors and warnings differ from check's"
    );
    out + &status
}

const RATED: &str = "spec s {\n  transcripts \"runs/**/*.json\"\n  pass_rate >= 0.5\n  call search(query: \"rust\")\n}\n";

/// After every kind of change — a transcript added, edited, renamed into a new folder, edited
/// there, removed; a spec edited; `toolspec.toml` excluding a folder; `.gitignore` ignoring
/// one; the whole project removed and made again — watch prints exactly what a fresh `toolspec
/// check` of the tree prints: verdicts, the `pass_rate` verdict, counts, errors, warnings.
#[test]
fn watch_prints_what_check_prints_after_every_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let make = |root: &Path| {
        std::fs::create_dir_all(root.join("runs")).unwrap();
        std::fs::create_dir_all(root.join("drafts")).unwrap();
        std::fs::create_dir_all(root.join("old")).unwrap();
        std::fs::write(root.join("s.toolspec"), RATED).unwrap();
        std::fs::write(
            root.join("drafts/d.toolspec"),
            SPEC.replace("spec s", "spec d"),
        )
        .unwrap();
        std::fs::write(
            root.join("old/o.toolspec"),
            SPEC.replace("spec s", "spec o"),
        )
        .unwrap();
        std::fs::write(root.join("runs/a.json"), PASSING).unwrap();
        std::fs::write(root.join("runs/b.json"), FAILING).unwrap();
    };
    make(&root);
    let mut w = Watch::start(&root);
    let first = assert_same_as_check(&mut w, &root, "first run");
    assert!(first.contains("1/2"), "{first}");

    // A failing run added: the rate is 1/3, below 50 %, and the spec fails.
    std::fs::write(root.join("runs/c.json"), FAILING).unwrap();
    let run = assert_same_as_check(&mut w, &root, "a transcript added");
    assert!(run.contains("1/3"), "{run}");

    std::fs::write(root.join("runs/c.json"), PASSING).unwrap();
    let run = assert_same_as_check(&mut w, &root, "a transcript edited");
    assert!(run.contains("2/3"), "{run}");

    // Renamed into a folder made for it, then edited there.
    std::fs::create_dir(root.join("runs/sub")).unwrap();
    std::fs::rename(root.join("runs/b.json"), root.join("runs/sub/b.json")).unwrap();
    let run = assert_same_as_check(&mut w, &root, "a transcript renamed into a new folder");
    assert!(run.contains("runs/sub/b.json"), "{run}");
    std::fs::write(root.join("runs/sub/b.json"), PASSING).unwrap();
    let run = assert_same_as_check(&mut w, &root, "a transcript edited in the new folder");
    assert!(run.contains("3/3"), "{run}");

    std::fs::remove_file(root.join("runs/a.json")).unwrap();
    let run = assert_same_as_check(&mut w, &root, "a transcript removed");
    assert!(run.contains("2/2"), "{run}");

    std::fs::write(
        root.join("s.toolspec"),
        RATED.replace("query: \"rust\"", "query: \"go\""),
    )
    .unwrap();
    assert_same_as_check(&mut w, &root, "the spec edited");

    std::fs::write(root.join("toolspec.toml"), "exclude = [\"drafts/**\"]\n").unwrap();
    let run = assert_same_as_check(&mut w, &root, "toolspec.toml excludes a folder");
    assert!(run.contains("2 spec file(s)"), "{run}");

    std::fs::write(root.join(".gitignore"), "old/\n").unwrap();
    let run = assert_same_as_check(&mut w, &root, ".gitignore ignores a folder");
    assert!(run.contains("1 spec file(s)"), "{run}");

    // The project removed, then made again: watched again, checked as it is now.
    std::fs::remove_dir_all(&root).unwrap();
    w.next_status();
    make(&root);
    let run = assert_same_as_check(&mut w, &root, "the project made again");
    assert!(run.contains("1/2"), "{run}");
    std::fs::write(root.join("runs/c.json"), FAILING).unwrap();
    let run = assert_same_as_check(&mut w, &root, "a transcript added to the new project");
    assert!(run.contains("1/3"), "{run}");
}

/// The reproduction of a stale rate: with a `pass_rate >= 0.5` spec at `1/2 passed (50.0 %) ≥
/// 50 % required — PASS`, a failing run added made watch print the old rate and verdict while
/// `toolspec check` said `1/3` and failed. Watch prints the new rate and verdict, names the
/// new pair and the rate among the changes, and never says nothing changed.
#[test]
fn a_failing_run_added_under_a_pass_rate_turns_the_rate_to_fail() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::write(root.join("s.toolspec"), RATED).unwrap();
    std::fs::write(root.join("runs/a.json"), PASSING).unwrap();
    std::fs::write(root.join("runs/b.json"), FAILING).unwrap();
    let mut w = Watch::start(root);
    let first = assert_same_as_check(&mut w, root, "first run");
    assert!(
        first.contains("s.toolspec::s: 1/2 passed (50.0 %) ≥ 50 % required — PASS"),
        "{first}"
    );

    std::fs::write(root.join("runs/c.json"), FAILING).unwrap();
    let run = w.next_run();
    assert!(
        run.contains("s.toolspec::s: 1/3 passed (33.3 %) < 50 % required — FAIL"),
        "{run}"
    );
    assert!(!run.contains("1/2 passed"), "{run}");
    assert!(run.contains("pass_rate met by 0 of 1 spec"), "{run}");
    assert!(run.contains("[watch] checked 3 pair(s)"), "{run}");
    assert!(!run.contains("nothing changed since the last run"), "{run}");
    assert!(run.contains("s  runs/c.json  new: FAIL\n"), "{run}");
    assert!(
        run.contains("s  pass_rate    PASS 1/2 → FAIL 1/3\n"),
        "{run}"
    );
    let (check_out, _) = check_now(root);
    assert!(check_out.contains("1/3 passed (33.3 %) < 50 % required — FAIL"));
}

/// After a run was added, watch said `nothing changed since the last run`. A run added is a
/// change (`new: PASS`), and so is one removed (`gone`); only a save that changes no verdict,
/// score, rate or error is "nothing changed" — and then it says so.
#[test]
fn a_run_added_or_removed_is_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::write(root.join("s.toolspec"), RATED).unwrap();
    std::fs::write(root.join("runs/a.json"), PASSING).unwrap();
    let mut w = Watch::start(root);
    let first = w.next_run();
    assert!(first.contains("1/1 passed"), "{first}");

    std::fs::write(root.join("runs/d.json"), PASSING).unwrap();
    let run = w.next_run();
    assert!(!run.contains("nothing changed since the last run"), "{run}");
    assert!(run.contains("s  runs/d.json  new: PASS\n"), "{run}");
    assert!(
        run.contains("s  pass_rate    PASS 1/1 → PASS 2/2\n"),
        "{run}"
    );
    assert!(run.contains("2 passed, 0 failed (2 checked"), "{run}");

    std::fs::remove_file(root.join("runs/a.json")).unwrap();
    let run = w.next_run();
    assert!(!run.contains("nothing changed since the last run"), "{run}");
    assert!(run.contains("s  runs/a.json  gone\n"), "{run}");
    assert!(run.contains("1 passed, 0 failed (1 checked"), "{run}");

    // The same content saved again: a run, and nothing to report.
    std::fs::write(root.join("runs/d.json"), PASSING).unwrap();
    let run = w.next_run();
    assert!(run.contains("nothing changed since the last run"), "{run}");
    assert!(run.contains("1 passed, 0 failed (1 checked"), "{run}");
}

/// The folders a check passes over are not watched: 5 000 git-ignored packages (10 000
/// folders, where a recursive watch set 10 004 inotify watches) and 300 folders
/// `toolspec.toml` excludes cost no inotify watch, and neither does an ignored folder made
/// later; the folders the check reads are watched. The count is asserted, never a time.
#[cfg(target_os = "linux")]
#[test]
fn ignored_and_excluded_folders_are_not_watched() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::write(root.join("s.toolspec"), SPEC).unwrap();
    std::fs::write(root.join("runs/t.json"), PASSING).unwrap();
    std::fs::write(root.join(".gitignore"), "node_modules/\n").unwrap();
    std::fs::write(root.join("toolspec.toml"), "exclude = [\"vendor/**\"]\n").unwrap();
    for i in 0..5_000 {
        std::fs::create_dir_all(root.join(format!("node_modules/p{i}/lib"))).unwrap();
    }
    for i in 0..300 {
        std::fs::create_dir_all(root.join(format!("vendor/v{i}"))).unwrap();
    }
    let watches = |pid: u32| -> usize {
        std::fs::read_dir(format!("/proc/{pid}/fdinfo"))
            .unwrap()
            .filter_map(Result::ok)
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .map(|info| {
                info.lines()
                    .filter(|l| l.starts_with("inotify wd:"))
                    .count()
            })
            .sum()
    };
    let mut w = Watch::start(root);
    let run = w.next_run();
    assert!(run.contains("1 passed, 0 failed"), "{run}");
    let first = watches(w.child.id());
    // The project's folder, runs/ and the folder above the project.
    assert!((2..10).contains(&first), "{first} inotify watches:\n{run}");
    // The count watch prints is the count it holds.
    assert!(
        run.contains(&format!("; {first} folder(s) watched;")),
        "{first} inotify watches:\n{run}"
    );
    // A transcript in the watched folder still counts; an ignored folder made later does not
    // get a watch.
    std::fs::create_dir_all(root.join("node_modules/later/lib")).unwrap();
    std::fs::write(root.join("runs/t.json"), FAILING).unwrap();
    let run = w.next_run();
    assert!(run.contains("0 passed, 1 failed"), "{run}");
    assert_eq!(watches(w.child.id()), first, "{run}");
}
