//! What README.md promises holds: its run command checks `examples/` with the outcome it
//! describes, its pre-commit snippet names the hooks `.pre-commit-hooks.yaml` defines, and the
//! commands of its GitHub Actions snippet run.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// The fenced code blocks of README.md with the given info string.
fn blocks(lang: &str) -> Vec<String> {
    let text = readme();
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in text.lines() {
        match &mut cur {
            None if line.trim_start() == format!("```{lang}") => cur = Some(String::new()),
            Some(b) if line.trim_start().starts_with("```") => {
                out.push(std::mem::take(b));
                cur = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    out
}

fn toolspec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// "five specs … against ten recorded runs in nine transcript formats, one spec scored as
/// DeepEval scores it. One refund run is wrong on purpose … exits 1."
#[test]
fn the_readme_run_command_checks_the_example_as_described() {
    let sh = blocks("sh");
    assert!(
        sh.iter().any(|b| b.trim() == "cargo run -- check examples"),
        "README shows the run command: {sh:?}"
    );
    assert!(
        sh.iter().any(|b| b.trim() == "cargo test --workspace"),
        "and the test command"
    );
    let text = readme();
    for claim in [
        "five specs",
        "ten",
        "recorded runs in nine transcript formats",
        "exits 1",
    ] {
        assert!(text.contains(claim), "README says {claim:?}");
    }

    let human = toolspec(&["check", "examples"]);
    assert_eq!(human.status.code(), Some(1));
    let out = String::from_utf8(human.stdout).unwrap();
    assert!(out.contains("1 failed"), "{out}");

    let json = toolspec(&["check", "examples", "--format", "json"]);
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    let specs: BTreeSet<_> = results
        .iter()
        .map(|r| (r["spec_file"].to_string(), r["spec"].to_string()))
        .collect();
    let transcripts: BTreeSet<_> = results
        .iter()
        .map(|r| r["transcript"].to_string())
        .collect();
    let formats: BTreeSet<_> = results.iter().map(|r| r["format"].to_string()).collect();
    assert_eq!(specs.len(), 5, "five specs");
    assert_eq!(transcripts.len(), 10, "ten recorded runs");
    assert_eq!(formats.len(), 9, "nine formats: {formats:?}");
    let failed: Vec<_> = results.iter().filter(|r| r["passed"] == false).collect();
    assert_eq!(failed.len(), 1, "one run is wrong on purpose");
    assert!(failed[0]["transcript"]
        .as_str()
        .unwrap()
        .contains("skipped-check"));
    assert!(results.iter().any(|r| r["profile"] == "deepeval"));
    assert!(report["errors"].as_array().unwrap().is_empty());
}

/// The ids in README's `.pre-commit-config.yaml` snippet are hooks of `.pre-commit-hooks.yaml`.
/// The hooks come in two pairs, `language: python` (the default ids) and `language: rust`: in
/// each, one on the staged files (one process, `--strict --force-exclude --whole-rates`) and one
/// on the whole repository with `pass_filenames: false`.
#[test]
fn the_pre_commit_snippet_names_the_defined_hooks() {
    let hooks = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/.pre-commit-hooks.yaml"
    ))
    .unwrap();
    // Each hook: its lines from `- id:` to the next one.
    let mut defined: Vec<(String, String)> = Vec::new();
    for line in hooks.lines() {
        if let Some(id) = line.trim_start().strip_prefix("- id:") {
            defined.push((id.trim().to_owned(), String::new()));
        } else if let Some((_, body)) = defined.last_mut() {
            body.push_str(line.trim());
            body.push('\n');
        }
    }
    assert_eq!(defined.len(), 4, "four hooks: {defined:?}");
    for (language, suffix) in [("python", ""), ("rust", "-rust")] {
        let of: Vec<_> = defined
            .iter()
            .filter(|(_, b)| b.contains(&format!("language: {language}\n")))
            .collect();
        assert_eq!(of.len(), 2, "two {language} hooks: {defined:?}");
        for (id, body) in &of {
            assert!(body.contains("entry: toolspec check"), "{id}: {body}");
            assert!(id.ends_with(suffix), "{id}");
        }
        let whole: Vec<_> = of
            .iter()
            .filter(|(_, b)| b.contains("pass_filenames: false"))
            .collect();
        assert_eq!(whole.len(), 1, "one whole-repository {language} hook");
        let staged = of
            .iter()
            .find(|(_, b)| !b.contains("pass_filenames: false"))
            .unwrap();
        assert!(
            staged.1.contains("files:"),
            "the staged-files hook filters files"
        );
        // One process judges every staged file (pre-commit would otherwise split them over one
        // process per CPU, each judging a spec's rate over its own share), and a spec's rate over
        // all its transcripts, as `toolspec check` does.
        assert!(staged.1.contains("require_serial: true\n"), "{}", staged.1);
        assert!(
            staged
                .1
                .contains("entry: toolspec check --strict --force-exclude --whole-rates\n"),
            "{}",
            staged.1
        );
    }

    let yaml = blocks("yaml");
    let snippet = yaml
        .iter()
        .find(|b| b.contains(".pre-commit-config.yaml"))
        .expect("README has a pre-commit snippet");
    let used: Vec<&str> = snippet
        .lines()
        .filter_map(|l| {
            l.trim_start()
                .trim_start_matches('#')
                .trim_start()
                .strip_prefix("- id:")
        })
        .map(|id| id.split('#').next().unwrap().trim())
        .collect();
    assert_eq!(used.len(), 2, "{snippet}");
    for id in used {
        assert!(defined.iter().any(|(d, _)| d == id), "hook {id} is defined");
    }
}

/// The `toolspec` commands of README's GitHub Actions snippet run as written.
#[test]
fn the_github_actions_snippet_commands_run() {
    let yaml = blocks("yaml");
    let workflow = yaml
        .iter()
        .find(|b| b.contains("runs-on:"))
        .expect("README has a GitHub Actions snippet");
    let commands: Vec<&str> = workflow
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- run: toolspec "))
        .collect();
    assert_eq!(commands.len(), 2, "{workflow}");
    let dir = tempfile::tempdir().unwrap();
    for c in commands {
        let mut args: Vec<String> = c.split_whitespace().map(str::to_owned).collect();
        // Run on the example project; write files into a temporary folder.
        args.insert(1, "examples".into());
        if let Some(i) = args.iter().position(|a| a == "--output-file") {
            args[i + 1] = dir.path().join(&args[i + 1]).display().to_string();
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = toolspec(&args);
        let code = out.status.code();
        if args.contains(&"--exit-zero") {
            assert_eq!(code, Some(0), "{c}");
        } else {
            assert_eq!(code, Some(1), "{c}: the example has a failing run");
        }
    }
    let sarif: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("toolspec.sarif")).expect("the SARIF file is written"),
    )
    .unwrap();
    assert_eq!(sarif["version"], "2.1.0");
}

/// pre-commit's `language: python` hooks install the root `pyproject.toml`, which pins the
/// `toolspec-cli` wheel: the pin is this version, the Python package's (python/Cargo.toml).
#[test]
fn the_pre_commit_package_pins_this_version_of_the_wheel() {
    let root = env!("CARGO_MANIFEST_DIR");
    let shim = std::fs::read_to_string(format!("{root}/pyproject.toml")).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        shim.contains(&format!("dependencies = [\"toolspec-cli=={version}\"]")),
        "{shim}"
    );
    assert!(shim.contains(&format!("version = \"{version}\"")), "{shim}");
    let python = std::fs::read_to_string(format!("{root}/python/Cargo.toml")).unwrap();
    assert!(
        python.contains(&format!("\nversion = \"{version}\"\n")),
        "python/Cargo.toml has the version {version}"
    );
    let package = std::fs::read_to_string(format!("{root}/python/pyproject.toml")).unwrap();
    assert!(package.contains("name = \"toolspec-cli\""), "{package}");
}
