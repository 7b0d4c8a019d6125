//! A report's output does not depend on how the check ran: every format and option, streamed
//! (`report::stream`: results rendered as they are checked, on worker threads in any order,
//! spooled, copied out in report order) on several thread counts, with the spool on disk and in
//! memory, gives the bytes of rendering the collected report (`render`, the same emitter fed
//! in report order from memory); and the collected report does not depend on the thread count.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolspec::check::run::{check, check_with, CheckOptions};
use toolspec::check::settings::LoadedSettings;
use toolspec::report::human::Options;
use toolspec::report::spool::Spool;
use toolspec::report::stream::{Emitter, Streamer};
use toolspec::report::{concise, github, human, json, junit, markdown, sarif, Report};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn on_threads<T: Send>(n: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
        .install(f)
}

/// A project with what exercises the order of results: a dataset file whose records give one
/// pair each per spec, a dataset broken part-way (results before the error, a located error),
/// two spec files naming the same files, a spec that forces another format on a file (read
/// twice), a session with many findings on one line, and a spec that does not compile.
fn mixed_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let data =
        std::fs::read_to_string(root().join("tests/fixtures/datasets/openai_chat.jsonl")).unwrap();
    // 12 records: the fixture's, three times.
    std::fs::write(runs.join("data.jsonl"), data.repeat(3)).unwrap();
    let mut lines: Vec<&str> = data.lines().collect();
    lines.insert(2, "{\"messages\": [");
    std::fs::write(runs.join("broken.jsonl"), lines.join("\n") + "\n").unwrap();
    std::fs::copy(
        root().join("examples/runs/coding/claude-code-session.jsonl"),
        runs.join("session.jsonl"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("refund.toolspec"),
        r#"spec refund {
  transcripts "runs/data.jsonl"
  transcripts "runs/broken.jsonl"
  order in_order
  call lookup_customer(email: /@/)
  call get_order(order_id: /^ORD-1/)
  call issue_refund(amount_cents: 1..=5000)
  never get_refund_policy
}

spec loose {
  transcripts "runs/*.jsonl"
  order any
  extra forbid
  at_least 1 call send_email
}
"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("again.toolspec"),
        r#"spec refund {
  transcripts "runs/data.jsonl"
  format openai-chat
  order any
  call lookup_customer
  call create_return_label(carrier: "ups")
}

spec session {
  transcripts "runs/session.jsonl"
  order in_order
  call Read(file_path: /\.rs$/)
  never Bash
}
"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bad.toolspec"),
        "spec bad {\n  transcripts \"runs/*.jsonl\"\n  odrer any\n}\n",
    )
    .unwrap();
    dir
}

/// Streamed through `emitter` on every thread count and spool, the output is `want`.
fn streams_as<E: Emitter + Sync>(
    name: &str,
    emitter: impl Fn() -> E,
    want: &str,
    whole: &Report,
    project: &Path,
) {
    let settings = LoadedSettings::discover(project).unwrap();
    let opts = CheckOptions::default();
    for threads in [1, 2, 4] {
        for on_disk in [true, false] {
            let spool = if on_disk {
                Spool::spilling_after(0)
            } else {
                Spool::in_memory()
            };
            let streamer = Streamer::with_spool(emitter(), spool);
            let checked = on_threads(threads, || check_with(&opts, &settings, project, &streamer));
            assert_eq!(streamer.spool().on_disk(), on_disk);
            let head = Report {
                results: Vec::new(),
                ..whole.clone()
            };
            assert_eq!(checked.report, head, "{name}: the rest of the report");
            assert_eq!(checked.exit_status(), whole.exit_status());
            let mut out = Vec::new();
            streamer
                .write(&checked.report, &checked.pairs, &mut out)
                .unwrap();
            let got = String::from_utf8(out).unwrap();
            assert!(
                got == want,
                "{}, {name}, {threads} threads, on disk {on_disk}: streamed output differs\n\
                 --- streamed\n{got}\n--- rendered\n{want}",
                project.display()
            );
        }
    }
}

fn assert_streams_the_same(project: &Path) {
    let settings = LoadedSettings::discover(project).unwrap();
    let opts = CheckOptions::default();
    let read = |name: &str| {
        std::fs::read_to_string(project.join(name))
            .ok()
            .map(Arc::new)
    };
    let whole = on_threads(1, || check(&opts, &settings, project));
    assert!(
        !whole.results.is_empty(),
        "{}: nothing checked",
        project.display()
    );
    for threads in [2, 4] {
        let again = on_threads(threads, || check(&opts, &settings, project));
        assert_eq!(again, whole, "{} on {threads} threads", project.display());
    }
    let w = &whole;
    streams_as("json", || json::JsonEmitter, &json::render(w), w, project);
    streams_as(
        "github",
        github::GithubEmitter::default,
        &github::render(w),
        w,
        project,
    );
    streams_as(
        "junit",
        || junit::JunitEmitter,
        &junit::render(w),
        w,
        project,
    );
    streams_as(
        "sarif",
        sarif::SarifEmitter::new,
        &sarif::render(w),
        w,
        project,
    );
    streams_as(
        "concise",
        || concise::ConciseEmitter,
        &concise::render(w),
        w,
        project,
    );
    streams_as(
        "markdown",
        || markdown::MarkdownEmitter,
        &markdown::render(w),
        w,
        project,
    );
    for color in [false, true] {
        for verbose in [false, true] {
            let options = Options {
                color,
                verbose,
                width: 100,
                summary: verbose,
            };
            streams_as(
                &format!("human color={color} verbose={verbose}"),
                || human::HumanEmitter {
                    sources: &read,
                    options,
                },
                &human::render(w, &read, options).stdout,
                w,
                project,
            );
        }
    }
}

#[test]
fn the_examples_stream_as_they_render() {
    assert_streams_the_same(&root().join("examples"));
}

#[test]
fn a_broken_project_streams_as_it_renders() {
    assert_streams_the_same(&root().join("tests/cmd/broken.in"));
}

/// Pass rates (met, missed, over no transcript, with an unreadable one) are in the head of the
/// report: every format streams them as it renders them, on any number of threads.
#[test]
fn a_project_with_pass_rates_streams_as_it_renders() {
    assert_streams_the_same(&root().join("tests/cmd/rate.in"));
}

#[test]
fn datasets_sessions_and_errors_stream_as_they_render() {
    let dir = mixed_project();
    let report = check(
        &CheckOptions::default(),
        &LoadedSettings::discover(dir.path()).unwrap(),
        dir.path(),
    );
    // The project does what it is meant to exercise.
    let records = |t: &str| {
        report
            .results
            .iter()
            .filter(|r| r.transcript == t && r.record.is_some())
            .count()
    };
    assert!(
        records("runs/data.jsonl") >= 24,
        "{}",
        records("runs/data.jsonl")
    );
    assert!(records("runs/broken.jsonl") >= 2);
    assert!(report.errors.iter().any(|e| e.code == "invalid-json"));
    assert!(report
        .errors
        .iter()
        .any(|e| e.code.contains("unknown-keyword")));
    assert!(report.results.iter().any(|r| !r.passed));
    assert!(report
        .results
        .iter()
        .any(|r| r.findings.len() > 3 && r.transcript == "runs/session.jsonl"));
    assert_streams_the_same(dir.path());
}

/// Above 50 pairs the human format counts passing pairs instead of listing them.
#[test]
fn many_pairs_stream_as_they_render() {
    let dir = mixed_project();
    let data = std::fs::read_to_string(dir.path().join("runs/data.jsonl")).unwrap();
    std::fs::write(dir.path().join("runs/data.jsonl"), data.repeat(6)).unwrap();
    assert_streams_the_same(dir.path());
}
