//! Hostile projects, through the real binary: specs that include themselves, nest without end or
//! reach outside the repository, and folders with symbolic-link loops. Each gives a clear error,
//! the process does not crash, and the rest of the run goes on.

use crate::hostile_support;

use hostile_support::{run_in, Project, SPEC};

#[test]
fn a_spec_that_includes_itself_is_an_include_cycle_and_other_specs_run() {
    let p = Project::new();
    p.write(
        "loop.toolspec",
        "include \"loop.toolspec\"\n\nspec looping {\n  transcripts \"runs/*\"\n  call lookup\n}\n",
    );
    // Two files including each other, too.
    p.write("a.toolspec", "include \"b.toolspec\"\ntool a_tool()\n");
    p.write("b.toolspec", "include \"a.toolspec\"\ntool b_tool()\n");
    p.write(
        "uses_a.toolspec",
        "include \"a.toolspec\"\nspec uses_a {\n  transcripts \"runs/*\"\n  call lookup\n}\n",
    );
    let run = p.check(&[]);
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    let cycles = run.errors_about("include-cycle");
    assert!(
        cycles
            .iter()
            .any(|e| e["location"]["file"] == "loop.toolspec"),
        "{}",
        run.stdout
    );
    assert!(
        cycles
            .iter()
            .any(|e| e["location"]["file"] == "uses_a.toolspec"
                || e["location"]["file"] == "a.toolspec"
                || e["location"]["file"] == "b.toolspec"),
        "{}",
        run.stdout
    );
    run.assert_good_checked();
}

#[test]
fn a_spec_that_is_not_utf8_is_a_located_error_and_other_specs_run() {
    let p = Project::new();
    // Saved as Latin-1 by an old editor: `é` is the single byte 0xE9.
    p.write(
        "latin1.toolspec",
        b"spec cafe {\n  transcripts \"runs/*\"\n  call caf\xe9()\n}\n",
    );
    let run = p.check(&[]);
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    let errors = run.errors_about("latin1.toolspec");
    assert_eq!(errors.len(), 1, "{}", run.stdout);
    let e = &errors[0];
    assert_eq!(e["code"], "unreadable-spec");
    assert_eq!(
        (&e["location"]["line"], &e["location"]["column"]),
        (&3.into(), &11.into())
    );
    assert!(e["message"].as_str().unwrap().contains("0xE9"), "{e:#}");
    assert!(e["help"].as_str().unwrap().contains("UTF-8"), "{e:#}");
    run.assert_good_checked();
    // `compile` and `fmt` say where, too.
    for cmd in ["compile", "fmt"] {
        let out = run_in(p.root(), &[cmd, "latin1.toolspec"]);
        assert_eq!(out.code, Some(2), "{cmd}: {}", out.stderr);
        assert!(
            out.stderr
                .contains("line 3, column 11: byte 0xE9 is not UTF-8"),
            "{cmd}: {}",
            out.stderr
        );
    }
}

#[test]
fn nesting_100_000_levels_deep_in_a_spec_is_a_diagnostic_not_a_crash() {
    let p = Project::new();
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    p.write(
        "deep.toolspec",
        format!("spec deep {{\n  transcripts \"runs/*\"\n  call lookup(q: {deep})\n}}\n"),
    );
    let objects = format!("{}{}", "{a: ".repeat(100_000), "}".repeat(100_000));
    p.write(
        "deep_output.toolspec",
        format!("spec deep_output {{\n  transcripts \"runs/*\"\n  call lookup -> {objects}\n}}\n"),
    );
    let parens = format!("{}lookup{}", "(".repeat(100_000), ")".repeat(100_000));
    p.write(
        "deep_parens.toolspec",
        format!("spec deep_parens {{\n  transcripts \"runs/*\"\n  call {parens}\n}}\n"),
    );
    let run = p.check(&[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr.len());
    for file in [
        "deep.toolspec",
        "deep_output.toolspec",
        "deep_parens.toolspec",
    ] {
        let report = run.report();
        let errors: Vec<_> = report["errors"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["location"]["file"] == file)
            .collect();
        assert_eq!(errors.len(), 1, "{file}");
        let message = errors[0]["message"].as_str().unwrap();
        assert!(message.contains("nesting too deep"), "{file}: {message}");
    }
    run.assert_good_checked();

    // `fmt` and `compile` parse the same text: a diagnostic there too, not a stack overflow.
    for cmd in [
        &["fmt", "--check", "deep.toolspec"][..],
        &["compile", "deep.toolspec"],
    ] {
        let out = run_in(p.root(), cmd);
        assert_eq!(out.code, Some(2), "{cmd:?}: {}", out.stderr);
        assert!(out.stderr.contains("nesting too deep"), "{cmd:?}");
    }
}

#[test]
fn a_glob_that_escapes_the_repository_is_refused_unless_allowed() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("work/repo");
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::write(
        root.join("runs/good.json"),
        hostile_support::GOOD_TRANSCRIPT,
    )
    .unwrap();
    std::fs::write(root.join("spec.toolspec"), SPEC).unwrap();
    std::fs::write(
        root.join("escape.toolspec"),
        "spec escape {\n  transcripts \"../../**/*.json\"\n  call lookup\n}\n",
    )
    .unwrap();
    std::fs::write(
        outer.path().join("secret.json"),
        hostile_support::GOOD_TRANSCRIPT,
    )
    .unwrap();

    let args = ["check", "--format", "json", "--no-config"];
    let refused = run_in(&root, &args);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    let errors = refused.errors_about("glob-outside-root");
    assert_eq!(errors.len(), 1, "{}", refused.stdout);
    assert_eq!(errors[0]["location"]["file"], "escape.toolspec");
    assert!(errors[0]["help"]
        .as_str()
        .unwrap()
        .contains("--allow-outside-root"));
    assert!(!refused.stdout.contains("secret.json"));
    refused.assert_good_checked();

    let mut allowed_args = args.to_vec();
    allowed_args.push("--allow-outside-root");
    let allowed = run_in(&root, &allowed_args);
    assert!(allowed.errors_about("glob-outside-root").is_empty());
    assert!(
        allowed.result_for("secret.json").is_some(),
        "{}",
        allowed.stdout
    );
    allowed.assert_good_checked();
}

#[test]
fn an_include_that_escapes_the_repository_is_refused_unless_allowed() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("work/repo");
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::write(
        root.join("runs/good.json"),
        hostile_support::GOOD_TRANSCRIPT,
    )
    .unwrap();
    std::fs::write(root.join("spec.toolspec"), SPEC).unwrap();
    // Not a spec: were it read, the parse error would quote it.
    std::fs::write(
        outer.path().join("credentials"),
        "aws_secret = hunter2-sk-live\n",
    )
    .unwrap();
    std::fs::write(
        root.join("leak.toolspec"),
        "include \"../../credentials\"\nspec leak {\n  transcripts \"runs/*.json\"\n  call lookup\n}\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        // Through a symbolic link inside the repository, too.
        std::os::unix::fs::symlink(
            outer.path().join("credentials"),
            root.join("creds.toolspec"),
        )
        .unwrap();
        std::fs::write(
            root.join("linked.toolspec"),
            "include \"creds.toolspec\"\nspec linked {\n  transcripts \"runs/*.json\"\n  call lookup\n}\n",
        )
        .unwrap();
    }

    let args = ["check", "--format", "json", "--no-config"];
    let refused = run_in(&root, &args);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    let errors = refused.errors_about("include-not-found");
    let expected = if cfg!(unix) { 2 } else { 1 };
    assert_eq!(errors.len(), expected, "{}", refused.stdout);
    for e in &errors {
        assert!(
            e["help"].as_str().unwrap().contains("--allow-outside-root"),
            "{e}"
        );
        assert!(e["message"]
            .as_str()
            .unwrap()
            .contains("cannot read included file"));
    }
    assert!(!refused.stdout.contains("hunter2"), "{}", refused.stdout);
    assert!(!refused.stderr.contains("hunter2"), "{}", refused.stderr);
    refused.assert_good_checked();

    let mut allowed_args = args.to_vec();
    allowed_args.push("--allow-outside-root");
    let allowed = run_in(&root, &allowed_args);
    assert!(
        allowed.errors_about("include-not-found").is_empty(),
        "{}",
        allowed.stdout
    );
    allowed.assert_good_checked();
    // What the refusal keeps out of the report: once allowed, the file is read, and the human
    // report quotes it.
    let human = run_in(&root, &["check", "--no-config", "--allow-outside-root"]);
    assert!(
        format!("{}{}", human.stdout, human.stderr).contains("hunter2"),
        "{}\n{}",
        human.stdout,
        human.stderr
    );
    let human = run_in(&root, &["check", "--no-config"]);
    assert!(!format!("{}{}", human.stdout, human.stderr).contains("hunter2"));
}

#[cfg(unix)]
#[test]
fn symlink_loops_during_discovery_and_globbing_end() {
    use std::os::unix::fs::symlink;
    let p = Project::with_spec(
        "spec deep_glob {\n  transcripts \"runs/**/*.json\"\n  call lookup(q: \"x\")\n}\n",
    );
    // A folder that contains itself, two links pointing at each other, a link to the root.
    symlink(p.path("runs"), p.path("runs/again")).unwrap();
    symlink(p.path("runs/b"), p.path("runs/a")).unwrap();
    symlink(p.path("runs/a"), p.path("runs/b")).unwrap();
    std::fs::create_dir_all(p.path("specs/nested")).unwrap();
    symlink(p.root(), p.path("specs/nested/up")).unwrap();

    let run = p.check(&[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.report()["summary"]["spec_files"], 1);
    assert_eq!(run.report()["results"].as_array().unwrap().len(), 1);
    run.assert_good_checked();

    // Named explicitly, a link loop is a clear path error and the other paths still run.
    let run = p.check(&["runs/a", "runs/good.json"]);
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.errors_about("runs/a").len(), 1, "{}", run.stdout);
    run.assert_good_checked();
}

#[cfg(unix)]
#[test]
fn watch_starts_over_symlink_loops_and_sees_a_save() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::fs::symlink;
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let p = Project::new();
    symlink(p.root(), p.path("runs/up")).unwrap();
    symlink(p.path("runs/b"), p.path("runs/a")).unwrap();
    symlink(p.path("runs/a"), p.path("runs/b")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["watch", "--no-config", "--no-clear", "--color", "never"])
        .current_dir(p.root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait_for_report = || loop {
        // Generous: this only keeps a broken watch from hanging the test suite.
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) if line.starts_with("[watch]") => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    };
    let first = wait_for_report();
    if first {
        std::fs::write(
            p.path("runs/good.json"),
            hostile_support::GOOD_TRANSCRIPT.replace("find x", "find y"),
        )
        .unwrap();
    }
    let second = first && wait_for_report();
    let _ = child.kill();
    let _ = child.wait();
    assert!(first, "no first report");
    assert!(second, "no report after a save");
}

/// The `ulimit -v` harness leaves room for an ordinary run: a small project checks under
/// [`hostile_support::LIMIT_MIB`] (so a reproduction that fails under it fails for its input).
#[test]
fn an_ordinary_run_fits_under_the_memory_limit_of_the_harness() {
    let p = Project::new();
    let run = p.check_limited(hostile_support::LIMIT_MIB, &["-j", "4"]);
    run.assert_not_killed();
    run.assert_good_checked();
}
