//! `check` reads calls compact (`transcript::Keep::compact`: a `CallTable` with interned names,
//! no ids, arguments as JSON text) and builds each result's findings one at a time as the
//! reporter writes them (`engine::Run`, `PairSink::pair_streamed`). This pins that the compact,
//! streamed path changes nothing, on one Claude Code session with over a thousand calls (copies of
//! real sessions with renamed ids, and copies left as they are, which the reader drops as
//! repeats of a resumed session):
//!
//! - the engine's verdict on the compact table is the verdict on the full calls, for specs in
//!   any order, in order, with references, `before` rules, forbidden calls and output checks,
//!   and every finding `Run` builds on demand is the one `engine::run` lists;
//! - every output format, streamed, gives the bytes of rendering the library's collected
//!   `Report` (built through the default `PairSink::pair_streamed`, which collects).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolspec::check::run::{check, check_with, CheckOptions};
use toolspec::check::settings::LoadedSettings;
use toolspec::compile::{compile, FsLoader};
use toolspec::engine;
use toolspec::report::human::Options;
use toolspec::report::stream::{Emitter, Streamer};
use toolspec::report::{github, human, json, junit, sarif};
use toolspec::source::SourceFile;
use toolspec::transcript::{Keep, Reader, Transcript};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const SESSIONS: [&str; 4] = [
    "examples/runs/coding/claude-code-session.jsonl",
    "tests/fixtures/corpus/transcripts/claude_code/coding_session.jsonl",
    "tests/fixtures/corpus/transcripts/claude_code/research_session.jsonl",
    "tests/fixtures/corpus/real/claude_code/agentcmd-full-session-three.jsonl",
];

/// One session made of many: each pass renames the call and message ids (new calls), every
/// fifth pass keeps them (repeats of calls already seen, dropped by the reader).
fn many_calls() -> String {
    let texts: Vec<String> = SESSIONS
        .iter()
        .map(|p| std::fs::read_to_string(root().join(p)).unwrap())
        .collect();
    let mut out = String::new();
    for k in 0..40 {
        for t in &texts {
            if k % 5 == 4 {
                out.push_str(t);
            } else {
                out.push_str(
                    &t.replace("\"toolu_", &format!("\"toolu_p{k}_"))
                        .replace("\"msg_", &format!("\"msg_p{k}_")),
                );
            }
            if !out.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}

const SPECS: &str = r#"spec coding_session {
  transcripts "runs/many.jsonl"
  order any
  at_least 1 call Read(file_path: type string)
  at_least 1 call Bash(command: /test/)
  never git_push
}

spec strict_refs {
  transcripts "runs/many.jsonl"
  order in_order
  extra forbid
  read: at_least 1 call Read(file_path: /\.(py|ts|go|rs)$/)
  edit: at_least 1 call Edit(file_path: read.args.file_path)
  at_most 3 call Grep
  call TodoWrite
  read before edit
  never Bash(command: /rm -rf/)
}

spec outputs {
  transcripts "runs/many.jsonl"
  order any
  at_least 2 call Bash(command: /./) -> /ok|pass|PASS/
  call WebFetch(url: /^https/)
  never Write
}
"#;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("runs")).unwrap();
    std::fs::write(dir.path().join("runs/many.jsonl"), many_calls()).unwrap();
    std::fs::write(dir.path().join("many.toolspec"), SPECS).unwrap();
    dir
}

fn read(bytes: &[u8], keep: &Keep) -> Transcript {
    let mut out = Vec::new();
    Reader::new()
        .keep(keep.clone())
        .read_with("many.jsonl", bytes, |t| out.push(t))
        .unwrap();
    assert_eq!(out.len(), 1);
    out.remove(0)
}

#[test]
fn the_compact_table_gives_the_verdicts_of_the_full_calls() {
    let text = many_calls();
    let full = read(text.as_bytes(), &Keep::default());
    let compact = read(
        text.as_bytes(),
        &Keep {
            compact: Some(0),
            ..Keep::default()
        },
    );
    // Made compact once it passes 500 calls (as `check` does past COMPACT_ABOVE): the same.
    let later = read(
        text.as_bytes(),
        &Keep {
            compact: Some(500),
            ..Keep::default()
        },
    );
    assert_eq!(later.compact, compact.compact);
    let table = compact.compact.as_ref().unwrap();
    assert!(compact.calls.is_empty());
    assert!(table.len() > 1_000, "only {} calls", table.len());
    assert_eq!(table.len(), full.calls.len());
    assert_eq!(compact.findings, full.findings);
    let source = SourceFile::new("many.toolspec", SPECS);
    let specs = compile(
        &source,
        &FsLoader::new(toolspec::guard::RootGuard::anywhere()),
    )
    .file
    .unwrap()
    .specs;
    assert_eq!(specs.len(), 3);
    for config in &specs {
        let want = engine::run(config, &full.calls);
        assert_eq!(engine::run(config, table), want, "spec {}", config.name);
        // Built on demand, one at a time, in the verdict's order.
        let run = engine::Run::new(config, table);
        assert_eq!(run.finding_count(), want.findings.len());
        for (k, f) in want.findings.iter().enumerate() {
            assert_eq!(run.finding(k).as_ref(), Some(f), "spec {}", config.name);
            let (call, spec_span, code) = run.finding_place(k);
            assert_eq!(
                (call, spec_span, code),
                (f.call, f.spec_span, f.code.as_str())
            );
        }
        assert_eq!(run.finding(want.findings.len()), None);
        assert!(
            want.findings.len() > 100,
            "spec {}: {} findings",
            config.name,
            want.findings.len()
        );
    }
}

/// Check `project` streaming through `emitter`, and give the document.
fn streamed<E: Emitter + Sync>(
    emitter: E,
    opts: &CheckOptions,
    settings: &LoadedSettings,
    project: &Path,
) -> String {
    let streamer = Streamer::new(emitter);
    let checked = check_with(opts, settings, project, &streamer);
    let mut out = Vec::new();
    streamer
        .write(&checked.report, &checked.pairs, &mut out)
        .unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn every_format_streams_a_session_of_many_calls_as_the_report_renders() {
    let dir = project();
    let project = dir.path();
    let settings = LoadedSettings::discover(project).unwrap();
    let opts = CheckOptions::default();
    let whole = check(&opts, &settings, project);
    assert_eq!(whole.results.len(), 3);
    assert!(whole.errors.is_empty(), "{:?}", whole.errors);
    assert!(whole.results.iter().any(|r| !r.passed));
    assert!(whole.results.iter().all(|r| r.findings.len() > 100));
    let read_source = |name: &str| {
        std::fs::read_to_string(Path::new(project).join(name))
            .ok()
            .map(Arc::new)
    };
    let run = |name: &str, got: String, want: String| {
        assert!(got == want, "{name}: the streamed output differs");
    };
    let (o, s) = (&opts, &settings);
    run(
        "json",
        streamed(json::JsonEmitter, o, s, project),
        json::render(&whole),
    );
    run(
        "github",
        streamed(github::GithubEmitter::default(), o, s, project),
        github::render(&whole),
    );
    run(
        "junit",
        streamed(junit::JunitEmitter, o, s, project),
        junit::render(&whole),
    );
    run(
        "sarif",
        streamed(sarif::SarifEmitter::new(), o, s, project),
        sarif::render(&whole),
    );
    for verbose in [false, true] {
        let options = Options {
            color: false,
            verbose,
            width: 100,
            summary: verbose,
        };
        let emitter = human::HumanEmitter {
            sources: &read_source,
            options,
        };
        run(
            "human",
            streamed(emitter, o, s, project),
            human::render(&whole, &read_source, options).stdout,
        );
    }
}
