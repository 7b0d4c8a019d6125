//! The root guard, through the built binary in temporary folders: every path toolspec reads is
//! resolved (symbolic links followed) before the inside-the-root check, only regular files are
//! opened, and a repository's `toolspec.toml` cannot widen what is read. A secret outside the
//! project never appears in any output; a FIFO never hangs a run.
#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SECRET: &str = "SECRET-7f3a9c-do-not-print";

/// A transcript that is valid and checks `search`.
const RUN: &str = r#"{"messages": [{"role": "assistant", "content": null, "tool_calls": [{"id": "1", "type": "function", "function": {"name": "search", "arguments": "{}"}}]}]}"#;

struct Run {
    code: Option<i32>,
    stdout: String,
    all: String,
}

/// Run toolspec in `dir`; a run that does not end within a minute is killed and fails the test
/// (a FIFO opened for reading would block forever).
fn run(dir: &Path, args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "1000")
        .env("TOOLSPEC_TEST_SECRET", SECRET)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("toolspec {args:?} did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        all: format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// `outer/repo` (a git repository with a passing spec and transcript) and `outer/outside`
/// holding a secret that is not valid JSON (were it read, a parse error would quote it).
fn layout() -> (tempfile::TempDir, PathBuf) {
    let outer = tempfile::tempdir().unwrap();
    let repo = outer.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("runs")).unwrap();
    std::fs::create_dir_all(outer.path().join("outside")).unwrap();
    std::fs::write(
        outer.path().join("outside/secret.json"),
        format!("{{\"token\": \"{SECRET}\" oops"),
    )
    .unwrap();
    std::fs::write(repo.join("runs/good.json"), RUN).unwrap();
    std::fs::write(
        repo.join("good.toolspec"),
        "spec good {\n  transcripts \"runs/*.json\"\n  call search\n}\n",
    )
    .unwrap();
    (outer, repo)
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn a_committed_link_out_of_the_project_is_never_read_by_a_glob() {
    let (outer, repo) = layout();
    symlink(outer.path().join("outside"), repo.join("linkout")).unwrap();
    std::fs::write(
        repo.join("leak.toolspec"),
        "spec leak {\n  transcripts \"linkout/*.json\"\n  call search\n}\n",
    )
    .unwrap();
    for args in [
        &["check", "--color", "never"][..],
        &["check", "--format", "json"],
        &["check", "--format", "github"],
        &["check", "leak.toolspec", "--format", "junit"],
    ] {
        let r = run(&repo, args);
        assert!(!r.all.contains(SECRET), "{args:?}: {}", r.all);
        assert!(!r.all.contains("secret.json"), "{args:?}: {}", r.all);
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.all);
        assert!(r.all.contains("glob-outside-root"), "{args:?}: {}", r.all);
    }
    // The other spec still ran and passed.
    let r = run(&repo, &["check", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["summary"]["passed"], 1, "{}", r.all);
}

#[test]
fn a_transcript_named_on_the_command_line_that_links_out_is_refused() {
    let (outer, repo) = layout();
    symlink(
        outer.path().join("outside/secret.json"),
        repo.join("runs/link.json"),
    )
    .unwrap();
    symlink("/proc/self/environ", repo.join("runs/env.json")).unwrap();
    for name in ["runs/link.json", "runs/env.json"] {
        for format in ["human", "json", "github", "junit", "sarif"] {
            let r = run(&repo, &["check", name, "--format", format]);
            assert!(!r.all.contains(SECRET), "{name} {format}: {}", r.all);
            assert_eq!(r.code, Some(2), "{name} {format}: {}", r.all);
            assert!(r.all.contains("path-refused"), "{name} {format}: {}", r.all);
        }
    }
    // Even when the person running toolspec widens the root, a /proc file is not a file.
    let r = run(
        &repo,
        &[
            "check",
            "runs/env.json",
            "--allow-outside-root",
            "--format",
            "json",
        ],
    );
    assert!(!r.all.contains(SECRET), "{}", r.all);
    assert!(r.all.contains("path-refused"), "{}", r.all);
    // The same files matched by the spec's own glob are refused too, and the good one passes.
    let r = run(&repo, &["check", "--format", "json"]);
    assert!(!r.all.contains(SECRET), "{}", r.all);
    assert!(r.all.contains("path-refused"), "{}", r.all);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["summary"]["passed"], 1, "{}", r.all);
}

#[test]
fn a_spec_file_that_links_out_is_refused() {
    let (outer, repo) = layout();
    std::fs::write(
        outer.path().join("outside/creds.toolspec"),
        format!("spec {SECRET} oops"),
    )
    .unwrap();
    symlink(
        outer.path().join("outside/creds.toolspec"),
        repo.join("linked.toolspec"),
    )
    .unwrap();
    let r = run(&repo, &["check", "linked.toolspec", "--format", "json"]);
    assert!(!r.all.contains(SECRET), "{}", r.all);
    assert!(r.all.contains("path-refused"), "{}", r.all);
}

#[test]
fn a_repository_cannot_allow_itself_outside_the_root() {
    let (outer, repo) = layout();
    symlink(outer.path().join("outside"), repo.join("linkout")).unwrap();
    std::fs::write(
        repo.join("leak.toolspec"),
        "spec leak {\n  transcripts \"linkout/*.json\"\n  call search\n}\n",
    )
    .unwrap();
    std::fs::write(repo.join("toolspec.toml"), "allow_outside_root = true\n").unwrap();
    let r = run(&repo, &["check", "--color", "never"]);
    assert_eq!(r.code, Some(2), "{}", r.all);
    assert!(!r.all.contains(SECRET), "{}", r.all);
    assert!(r.all.contains("toolspec.toml"), "{}", r.all);
    assert!(r.all.contains("allow_outside_root = true"), "{}", r.all);
    assert!(r.all.contains("on the command line"), "{}", r.all);
}

#[test]
fn settings_files_are_bounded_regular_files() {
    let (outer, repo) = layout();
    // Too large.
    std::fs::write(
        repo.join("toolspec.toml"),
        format!("# {}\n", "x".repeat(2 << 20)),
    )
    .unwrap();
    let r = run(&repo, &["check"]);
    assert_eq!(r.code, Some(2), "{}", r.all);
    assert!(r.all.contains("toolspec.toml"), "{}", r.all);
    assert!(r.all.contains("bytes"), "{}", r.all);
    // A link to a file elsewhere (a TOML error would quote it).
    std::fs::remove_file(repo.join("toolspec.toml")).unwrap();
    symlink(
        outer.path().join("outside/secret.json"),
        repo.join("toolspec.toml"),
    )
    .unwrap();
    let r = run(&repo, &["check"]);
    assert_eq!(r.code, Some(2), "{}", r.all);
    assert!(!r.all.contains(SECRET), "{}", r.all);
    // A FIFO: refused, not waited on.
    std::fs::remove_file(repo.join("toolspec.toml")).unwrap();
    mkfifo(&repo.join("toolspec.toml"));
    let r = run(&repo, &["check"]);
    assert_eq!(r.code, Some(2), "{}", r.all);
    assert!(r.all.contains("FIFO"), "{}", r.all);
}

#[test]
fn a_fifo_as_transcript_or_include_is_refused_and_the_run_ends() {
    let (_outer, repo) = layout();
    mkfifo(&repo.join("runs/pipe.json"));
    mkfifo(&repo.join("shared.toolspec"));
    // Named on the command line.
    let r = run(&repo, &["check", "runs/pipe.json", "--format", "json"]);
    assert_eq!(r.code, Some(2), "{}", r.all);
    assert!(r.all.contains("FIFO"), "{}", r.all);
    // Named by a glob literally.
    std::fs::write(
        repo.join("piped.toolspec"),
        "spec piped {\n  transcripts \"runs/pipe.json\"\n  call search\n}\n",
    )
    .unwrap();
    let r = run(&repo, &["check", "piped.toolspec", "--format", "json"]);
    assert_eq!(r.code, Some(2), "{}", r.all);
    assert!(r.all.contains("FIFO"), "{}", r.all);
    std::fs::remove_file(repo.join("piped.toolspec")).unwrap();
    // Included.
    std::fs::write(
        repo.join("inc.toolspec"),
        "include \"shared.toolspec\"\n\nspec inc {\n  transcripts \"runs/good.json\"\n  call search\n}\n",
    )
    .unwrap();
    let r = run(&repo, &["check", "--format", "json"]);
    assert_eq!(r.code, Some(2), "{}", r.all);
    assert!(r.all.contains("include-not-found"), "{}", r.all);
    assert!(r.all.contains("FIFO"), "{}", r.all);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["summary"]["passed"], 1, "{}", r.all);
    // `compile` and `fmt` name their files directly: a FIFO is refused there too.
    let r = run(&repo, &["compile", "shared.toolspec"]);
    assert_eq!(r.code, Some(2), "{}", r.all);
    let r = run(&repo, &["fmt", "--check", "shared.toolspec"]);
    assert_eq!(r.code, Some(2), "{}", r.all);
    let r = run(&repo, &["calls", "runs/pipe.json"]);
    assert_eq!(r.code, Some(2), "{}", r.all);
}
