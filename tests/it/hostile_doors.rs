//! The root guard at every door a spec, an include or a transcript comes in by, through the
//! built binary: `check`, `compile`, `fmt`, `calls` and `init` read through the same guard with
//! the same rule, so a repository's spec that includes `../../credentials` or
//! `/home/me/.aws/credentials`, or a committed link to such a file, never puts a line of it in
//! any output (stdout, stderr, any report format). A refusal names the path and why; with
//! `--allow-outside-root` the person running toolspec widens what is read (and the file's
//! parse error then quotes it: that is what the guard keeps out).
#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::PathBuf;

use crate::hostile_support::{run_in, Run, GOOD_TRANSCRIPT, SPEC};

/// A fake key, as a credentials file holds it.
const SECRET: &str = "AKIAFAKE0GUARD0DOORS7";

/// `outer/repo` (a git repository with a passing spec and transcript) and `outer/outside`
/// holding a credentials file and a transcript-like file, neither a spec nor JSON: were either
/// read, its parse error would quote it. In the repository: specs that include the credentials
/// by a relative path, by an absolute path and through a committed link, and a transcript that
/// is a link to the file outside.
fn layout() -> (tempfile::TempDir, PathBuf) {
    let outer = tempfile::tempdir().unwrap();
    let repo = outer.path().join("repo");
    let outside = outer.path().join("outside");
    for dir in [repo.join(".git"), repo.join("runs"), outside.clone()] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let creds = outside.join("credentials");
    std::fs::write(&creds, format!("[default]\naws_access_key_id = {SECRET}\n")).unwrap();
    std::fs::write(
        outside.join("secret.json"),
        format!("{{\"aws_access_key_id\": \"{SECRET}\" oops"),
    )
    .unwrap();
    std::fs::write(repo.join("runs/good.json"), GOOD_TRANSCRIPT).unwrap();
    std::fs::write(repo.join("spec.toolspec"), SPEC).unwrap();
    let spec_including = |target: &str| {
        format!("include \"{target}\"\nspec leak {{\n  transcripts \"runs/good.json\"\n  call lookup(q: \"x\")\n}}\n")
    };
    std::fs::write(
        repo.join("rel.toolspec"),
        spec_including("../outside/credentials"),
    )
    .unwrap();
    std::fs::write(
        repo.join("abs.toolspec"),
        spec_including(&creds.display().to_string()),
    )
    .unwrap();
    symlink(&creds, repo.join("creds.toolspec")).unwrap();
    std::fs::write(
        repo.join("linked.toolspec"),
        spec_including("creds.toolspec"),
    )
    .unwrap();
    symlink(outside.join("secret.json"), repo.join("runs/link.json")).unwrap();
    (outer, repo)
}

fn all(r: &Run) -> String {
    format!("{}\n{}", r.stdout, r.stderr)
}

/// Assert `r` refused (exit 2) without a trace of the secret, naming why.
fn assert_refused(r: &Run, args: &[&str], why: &str) {
    let text = all(r);
    assert!(
        !text.contains(SECRET),
        "{args:?} leaked the secret:\n{text}"
    );
    assert!(!text.contains("aws_access_key_id"), "{args:?}:\n{text}");
    assert_eq!(r.code, Some(2), "{args:?}:\n{text}");
    assert!(text.contains(why), "{args:?} does not say `{why}`:\n{text}");
}

const SPECS_INCLUDING: [&str; 3] = ["rel.toolspec", "abs.toolspec", "linked.toolspec"];

#[test]
fn compile_refuses_includes_out_of_the_root_as_check_does() {
    let (_outer, repo) = layout();
    for spec in SPECS_INCLUDING {
        let args = ["compile", "--color", "never", spec];
        let r = run_in(&repo, &args);
        assert_refused(&r, &args, "include-not-found");
        assert!(all(&r).contains("outside the project root"), "{}", all(&r));
        assert!(
            r.stdout.is_empty(),
            "no config for a spec that does not compile"
        );
        for format in ["human", "json", "github", "sarif", "junit"] {
            let args = ["check", spec, "--format", format];
            let r = run_in(&repo, &args);
            assert_refused(&r, &args, "include-not-found");
        }
    }
    // A spec that includes nothing outside compiles, from a sub-folder too.
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    let r = run_in(&repo.join("sub"), &["compile", "../spec.toolspec"]);
    assert_eq!(r.code, Some(0), "{}", all(&r));
    assert!(r.stdout.contains("lookup_once"), "{}", r.stdout);
    // The person running toolspec may widen the root: then the file is read, and its parse
    // error quotes it (what the guard keeps out of every other run).
    let r = run_in(&repo, &["compile", "--allow-outside-root", "rel.toolspec"]);
    assert_eq!(r.code, Some(2), "{}", all(&r));
    assert!(all(&r).contains(SECRET), "{}", all(&r));
}

#[test]
fn a_spec_file_named_on_the_command_line_that_links_out_is_refused_by_every_command() {
    let (_outer, repo) = layout();
    for args in [
        &["compile", "creds.toolspec"][..],
        &["fmt", "--check", "creds.toolspec"],
        &["fmt", "--stdout", "creds.toolspec"],
        &["fmt", "creds.toolspec"],
        &["check", "--format", "json", "creds.toolspec"],
    ] {
        let r = run_in(&repo, args);
        assert_refused(&r, args, "outside the project root");
    }
    // `fmt` wrote nothing through the link.
    assert!(std::fs::symlink_metadata(repo.join("creds.toolspec"))
        .unwrap()
        .file_type()
        .is_symlink());
    // A folder given to `fmt` is walked without following links, as `check`'s walk is.
    let r = run_in(&repo, &["fmt", "--check", "."]);
    assert!(!all(&r).contains(SECRET), "{}", all(&r));
}

#[test]
fn a_transcript_that_links_out_is_refused_by_calls_and_init() {
    let (_outer, repo) = layout();
    std::fs::write(repo.join("agent.md"), "Find x.\n").unwrap();
    for args in [
        &["calls", "runs/link.json"][..],
        &["calls", "--json", "runs/link.json"],
        &["init", "agent.md", "--transcript", "runs/link.json"],
        &["check", "--spec", "spec.toolspec", "runs/link.json"],
    ] {
        let r = run_in(&repo, args);
        assert_refused(&r, args, "outside the project root");
    }
    assert!(!repo.join("agent.toolspec").exists(), "init wrote a spec");
    // Inside the root, both read.
    let r = run_in(&repo, &["calls", "--json", "runs/good.json"]);
    assert_eq!(r.code, Some(0), "{}", all(&r));
    let r = run_in(
        &repo,
        &["init", "agent.md", "--transcript", "runs/good.json"],
    );
    assert_eq!(r.code, Some(0), "{}", all(&r));
    // Widened on the command line, `calls` reads the file (and its error quotes it).
    let r = run_in(&repo, &["calls", "--allow-outside-root", "runs/link.json"]);
    assert!(all(&r).contains(SECRET), "{}", all(&r));
}

#[test]
fn a_path_outside_the_root_is_refused_before_anything_under_it_is_walked() {
    let (outer, repo) = layout();
    // A folder outside (here the one holding the repository): refused as a whole, with one
    // error, instead of being walked for specs each refused in turn (`check /` walked the
    // whole machine).
    for folder in [
        "/",
        "..",
        &outer.path().join("outside").display().to_string(),
    ] {
        for args in [
            &["check", "--format", "json", folder][..],
            &["fmt", "--check", folder],
        ] {
            let r = run_in(&repo, args);
            assert_refused(&r, args, "outside the project root");
            if args[0] == "check" {
                let report = r.report();
                let errors = report["errors"].as_array().unwrap();
                assert_eq!(errors.len(), 1, "{errors:#?}");
                assert_eq!(errors[0]["code"], "path-refused", "{errors:#?}");
            }
        }
    }
}

#[test]
fn the_other_specs_of_a_run_still_run_when_an_include_is_refused() {
    let (_outer, repo) = layout();
    let r = run_in(&repo, &["check", "--format", "json"]);
    assert_refused(&r, &["check"], "include-not-found");
    let errors = r.errors_about("include-not-found");
    assert_eq!(errors.len(), SPECS_INCLUDING.len(), "{}", r.stdout);
    for e in &errors {
        let label = e.to_string();
        assert!(label.contains("outside the project root"), "{label}");
    }
    let report = r.report();
    assert_eq!(report["summary"]["passed"], 1, "{}", r.stdout);
}

/// The project root `compile`, `fmt`, `calls` and `init` use is the one `check` finds: the
/// folder of `toolspec.toml`, else the git repository, else the working folder.
#[test]
fn every_command_finds_the_root_as_check_does() {
    let (_outer, repo) = layout();
    let project = repo.join("project");
    std::fs::create_dir_all(project.join("prompts")).unwrap();
    std::fs::write(project.join("toolspec.toml"), "").unwrap();
    // Inside the repository, outside the settings file's folder: outside the project.
    std::fs::write(
        project.join("prompts/up.toolspec"),
        "include \"../../spec.toolspec\"\n",
    )
    .unwrap();
    let r = run_in(&project.join("prompts"), &["compile", "up.toolspec"]);
    assert_eq!(r.code, Some(2), "{}", all(&r));
    assert!(all(&r).contains("outside the project root"), "{}", all(&r));
    let r = run_in(
        &project.join("prompts"),
        &["check", "--format", "json", "up.toolspec"],
    );
    assert_eq!(r.errors_about("include-not-found").len(), 1, "{}", r.stdout);
}

/// `watch /` reports the folder refused, as `check /` does, and does not watch it: its inotify
/// watches are those of the project (a handful), not one per folder of the machine.
#[cfg(target_os = "linux")]
#[test]
fn watch_neither_checks_nor_watches_a_folder_outside_the_root() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let (_outer, repo) = layout();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["watch", "--no-clear", "--color", "never", "/"])
        .current_dir(&repo)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // The first run ends with the `[watch]` status line on stderr.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = String::new();
    while !seen.contains("[watch]") {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = rx.recv_timeout(left) else {
            let _ = child.kill();
            panic!("watch / never finished its first run:\n{seen}");
        };
        seen.push_str(&line);
        seen.push('\n');
    }
    let watches: usize = std::fs::read_dir(format!("/proc/{}/fdinfo", child.id()))
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .map(|info| {
            info.lines()
                .filter(|l| l.starts_with("inotify wd:"))
                .count()
        })
        .sum();
    let _ = child.kill();
    let _ = child.wait();
    assert!(seen.contains("path-refused"), "{seen}");
    assert!(!seen.contains(SECRET), "{seen}");
    assert!(watches > 0 && watches < 100, "{watches} inotify watches");
}
