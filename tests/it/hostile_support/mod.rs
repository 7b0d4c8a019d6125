//! Shared helpers of the hostile-input tests: a throw-away project (spec + transcripts in a temp
//! folder) and a run of the real `toolspec` binary over it, with the JSON report parsed.
//!
//! Large inputs are generated here at test time, never committed.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A good OpenAI Chat transcript with one `lookup(q: "x")` call, answered.
pub(crate) const GOOD_TRANSCRIPT: &str = r#"{"model":"gpt-4o","messages":[
{"role":"user","content":"find x"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"x\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":"found"}]}
"#;

/// A spec that checks every file under `runs/` for one `lookup(q: "x")` call.
pub(crate) const SPEC: &str = r#"spec lookup_once {
  transcripts "runs/*"
  call lookup(q: "x")
}
"#;

/// A temporary project: `spec.toolspec` + `runs/good.json`.
pub(crate) struct Project {
    /// Keeps the folder alive.
    pub dir: tempfile::TempDir,
}

impl Project {
    /// A project with [`SPEC`] and one good transcript.
    pub(crate) fn new() -> Project {
        Project::with_spec(SPEC)
    }

    /// A project with this spec text and one good transcript.
    pub(crate) fn with_spec(spec: &str) -> Project {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("runs")).expect("runs folder");
        std::fs::write(dir.path().join("spec.toolspec"), spec).expect("spec");
        std::fs::write(dir.path().join("runs/good.json"), GOOD_TRANSCRIPT).expect("transcript");
        Project { dir }
    }

    /// The project folder.
    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// A path inside the project.
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Write a file inside the project (folders created).
    pub(crate) fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("folder");
        }
        std::fs::write(&p, bytes).expect("write");
        p
    }

    /// `toolspec check --format json --no-config ARGS...` in the project folder.
    pub(crate) fn check(&self, args: &[&str]) -> Run {
        let mut all = vec!["check", "--format", "json", "--no-config"];
        all.extend_from_slice(args);
        run_in(self.root(), &all)
    }

    /// [`Project::check`] with the process's address space capped at `limit_mib` MiB
    /// ([`run_limited`]).
    pub(crate) fn check_limited(&self, limit_mib: u64, args: &[&str]) -> Run {
        let mut all = vec!["check", "--format", "json", "--no-config"];
        all.extend_from_slice(args);
        run_limited(self.root(), limit_mib, &all)
    }
}

/// The outcome of one run of the binary.
#[derive(Debug)]
pub(crate) struct Run {
    /// Exit code (`None` if killed by a signal: a crash).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// The JSON report printed on stdout.
    pub(crate) fn report(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not a JSON report ({e})\nstdout: {}\nstderr: {}",
                self.stdout, self.stderr
            )
        })
    }

    /// The report's errors with code `needle` (with or without `toolspec::`), or located in a file whose path ends with
    /// `/needle` (or is `needle`); an error without a location is taken to be in the file its
    /// message starts with.
    pub(crate) fn errors_about(&self, needle: &str) -> Vec<Value> {
        let report = self.report();
        let slash = format!("/{needle}");
        report["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| {
                let file = e["location"]["file"].as_str().unwrap_or_else(|| {
                    // Errors without a location name their file first: `path: message`.
                    e["message"]
                        .as_str()
                        .and_then(|m| m.split(':').next())
                        .unwrap_or("")
                });
                let code = e["code"].as_str().unwrap_or("");
                // Spec diagnostics carry the `toolspec::` prefix of their miette code.
                code == needle
                    || code.strip_prefix("toolspec::") == Some(needle)
                    || file == needle
                    || file.ends_with(&slash)
            })
            .cloned()
            .collect()
    }

    /// The result for the transcript whose display path ends with `name`.
    pub(crate) fn result_for(&self, name: &str) -> Option<Value> {
        let report = self.report();
        report["results"]
            .as_array()?
            .iter()
            .find(|r| r["transcript"].as_str().is_some_and(|t| t.ends_with(name)))
            .cloned()
    }

    /// Assert the process ended by itself with an exit code of the tool's (0, 1 or 2), not by a
    /// signal or an abort (an allocation failure aborts with SIGABRT; under `sh` that shows as
    /// no exit code, or as 128 + the signal when the shell reports it).
    pub(crate) fn assert_not_killed(&self) {
        assert!(
            matches!(self.code, Some(0..=2)),
            "the run did not end by itself (exit {:?})\nstderr: {}",
            self.code,
            self.stderr
        );
    }

    /// Assert the good transcript was still checked, and passed: the rest of the run went on.
    pub(crate) fn assert_good_checked(&self) {
        let good = self
            .result_for("good.json")
            .unwrap_or_else(|| panic!("good.json was not checked:\n{}", self.stdout));
        assert_eq!(good["passed"], true, "{good:#}");
    }
}

/// Run the binary with `args` in `cwd`.
pub(crate) fn run_in(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("run toolspec");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The default limit of [`run_limited`] runs: room for the binary, its threads' stacks and
/// allocator arenas, and a hostile input's budgets, but far below what an unbounded input takes.
pub(crate) const LIMIT_MIB: u64 = 1024;

/// Run the binary with `args` in `cwd`, its address space capped at `limit_mib` MiB
/// (`ulimit -v`, through `sh -c '…; exec toolspec "$@"'`): an input that would need more fails
/// an allocation, which aborts the process unless the tool bounds it. Use
/// [`Run::assert_not_killed`] and the report to see that it did.
pub(crate) fn run_limited(cwd: &Path, limit_mib: u64, args: &[&str]) -> Run {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {}; exec \"$0\" \"$@\"",
            limit_mib * 1024
        ))
        .arg(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("run toolspec under sh");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
