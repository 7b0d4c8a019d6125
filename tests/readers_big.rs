// A binary of its own: its counting `#[global_allocator]` would count every other test's allocations.
//! A large JSONL file made at test time by the corpus generator (`tests/fixtures/gen/gen_big.py`,
//! a copy of the shared corpus's `gen_big.py` and `corpuskit.py`, standard library only) is
//! streamed: every transcript equals the generator's truth, and the heap stays bounded while a
//! file over the whole-file limit (64 MiB) is read. Nothing generated is committed.
//!
//! Needs `python3` (CPython ≥ 3.8). Without it the test says so and passes, except under CI
//! (`CI` set), where a missing interpreter is a failure: CI must run it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use serde_json::Value;
use toolspec::transcript::{Reader, Transcript};

/// Counts live heap bytes and their peak, so the test can see what streaming costs.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// `GlobalAlloc` is an unsafe trait; the allocator only counts and forwards to `System`.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new) };
        if !q.is_null() {
            if new >= layout.size() {
                let now = LIVE.fetch_add(new - layout.size(), Relaxed) + new - layout.size();
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The formats whose generated files are single documents: their bundles are JSONL datasets.
/// (OTel bundles are left out: an OTLP JSONL file is one collector session by rule, not a
/// dataset — docs/formats.md, "Dataset or session".)
const DOCUMENT_FORMATS: &str =
    "openai_chat,openai_responses,anthropic_messages,vercel_ai_sdk,langchain,gemini,deepeval";

fn python() -> Option<String> {
    let candidates = std::env::var("TOOLSPEC_PYTHON")
        .map_or_else(|_| vec!["python3".into(), "python".into()], |p| vec![p]);
    candidates.into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import sys; assert sys.version_info >= (3, 8)"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Run the generator into `out`; false (with a message) if there is no Python.
fn generate(out: &Path, args: &[&str]) -> bool {
    let Some(py) = python() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 is needed for this test and CI must have it"
        );
        eprintln!("SKIPPED: python3 (>= 3.8) not found; set TOOLSPEC_PYTHON to run this test");
        return false;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gen/gen_big.py");
    let status = Command::new(py)
        .arg(script)
        .arg("--out")
        .arg(out)
        .args(args)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run gen_big.py");
    assert!(status.success(), "gen_big.py failed: {status}");
    true
}

/// The calls in the truth files' shape: the `turn` and `agent` a reader records besides
/// (`docs/formats.md`) are not part of the truth files.
fn calls_json(t: &Transcript) -> Value {
    let calls: Vec<_> = t
        .calls
        .iter()
        .map(|c| toolspec::transcript::ToolCall {
            turn: None,
            agent: None,
            namespace: None,
            ..c.clone()
        })
        .collect();
    serde_json::to_value(calls).unwrap()
}

/// (transcript line, truth line) of every bundle.
fn bundle_lines(bundles: &Path) -> Vec<(String, String)> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(bundles)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".jsonl") && !n.ends_with(".truth.jsonl")
        })
        .collect();
    names.sort();
    let mut out = Vec::new();
    for n in names {
        let truth = n.with_extension("truth.jsonl");
        let lines = std::fs::read_to_string(&n).unwrap();
        let truths = std::fs::read_to_string(&truth).unwrap();
        let (lines, truths): (Vec<_>, Vec<_>) = (lines.lines().collect(), truths.lines().collect());
        assert_eq!(lines.len(), truths.len(), "{}", n.display());
        out.extend(
            lines
                .into_iter()
                .zip(truths)
                .map(|(l, t)| (l.to_owned(), t.to_owned())),
        );
    }
    out
}

/// The tests of this binary measure the one heap, so they run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn generated_corpus_is_streamed_equal_to_its_truth_with_bounded_memory() {
    let _one = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let gen = dir.path().join("gen");
    let formats = format!("{DOCUMENT_FORMATS},claude_code,codex_cli");
    if !generate(
        &gen,
        &[
            "--n",
            "140",
            "--seed",
            "7",
            "--scale",
            "3",
            "--bundle",
            "--formats",
            &formats,
        ],
    ) {
        return;
    }

    // Sessions (Claude Code, Codex): each generated file, streamed line by line, is its truth.
    let mut sessions = 0;
    for fmt in ["claude_code", "codex_cli"] {
        for f in std::fs::read_dir(gen.join("transcripts").join(fmt))
            .unwrap()
            .flatten()
        {
            let name = f.file_name().to_string_lossy().into_owned();
            let truth: Value = serde_json::from_slice(
                &std::fs::read(
                    gen.join("truth")
                        .join(fmt)
                        .join(format!("{name}.truth.json")),
                )
                .unwrap(),
            )
            .unwrap();
            let mut got = Vec::new();
            Reader::new()
                .read_stream(&name, BufReader::new(File::open(f.path()).unwrap()), |t| {
                    got.push(t);
                })
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got.len(), 1, "{fmt}/{name} is one session");
            assert_eq!(calls_json(&got[0]), truth, "{fmt}/{name}");
            sessions += 1;
        }
    }
    assert!(sessions >= 10, "{sessions} sessions generated");

    // One dataset over the whole-file limit: the bundles of every document format, interleaved
    // and repeated. Each line is its own transcript and must equal its truth line.
    let lines = bundle_lines(&gen.join("bundles"));
    assert!(lines.len() >= 100, "{} bundle lines", lines.len());
    let big = dir.path().join("big.jsonl");
    let mut truths: Vec<&str> = Vec::new();
    {
        let mut w = BufWriter::new(File::create(&big).unwrap());
        let mut written = 0usize;
        while written <= 80 << 20 {
            for (l, t) in &lines {
                writeln!(w, "{l}").unwrap();
                written += l.len() + 1;
                truths.push(t);
            }
        }
    }
    let size = std::fs::metadata(&big).unwrap().len() as usize;
    assert!(size > 64 << 20, "{size} bytes is over the whole-file limit");
    let longest = BufReader::new(File::open(&big).unwrap())
        .lines()
        .map(|l| l.unwrap().len())
        .max()
        .unwrap();

    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let mut n = 0usize;
    let mut mismatches = Vec::new();
    Reader::new()
        .read_file_with(&big, |t| {
            let rec = t.record.expect("a dataset line is a record");
            assert_eq!(rec.line, n + 1, "records come out in order");
            // Compare without keeping anything: the transcript is dropped here.
            if mismatches.len() < 5
                && calls_json(&t) != serde_json::from_str::<Value>(truths[n]).unwrap()
            {
                mismatches.push(format!("line {}: {}", n + 1, t.format));
            }
            n += 1;
        })
        .unwrap();
    let peak = PEAK.load(Relaxed) - before;
    assert_eq!(n, truths.len(), "one transcript per line");
    assert!(mismatches.is_empty(), "differ from truth: {mismatches:?}");
    // Bounded: a few buffers and one line's values, not the file (80+ MiB): the read buffer
    // (1 MiB) plus room for one line's parse tree and transcript.
    let bound = (8 << 20) + 8 * longest;
    assert!(
        peak < bound,
        "peak heap {peak} bytes while streaming {size} bytes (bound {bound}, longest line {longest})"
    );
    eprintln!(
        "streamed {size} bytes, {n} transcripts; peak heap {:.1} MiB (longest line {} KiB)",
        peak as f64 / f64::from(1 << 20),
        longest >> 10
    );
}

/// The memory budget of a parsed value (`toolspec::json::budget`) counts at least what the
/// value holds on the heap, and what parsing it needs at its peak stays within a quarter more,
/// for the shapes where a value is many times its text: the estimate is what bounds a reader's
/// memory, so it must not be low.
#[test]
fn the_parsed_value_budget_is_an_upper_bound_of_the_heap_it_takes() {
    use toolspec::json::budget;
    let _one = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let n = 20_000;
    let shapes = [
        (
            "small objects",
            format!("[{}{{\"a\":0}}]", "{\"a\":0},".repeat(n)),
        ),
        ("empty arrays", format!("[{}[]]", "[],".repeat(n))),
        ("one-element arrays", format!("[{}[1]]", "[1],".repeat(n))),
        ("empty objects", format!("[{}{{}}]", "{},".repeat(n))),
        ("short strings", format!("[{}\"x\"]", "\"x\",".repeat(n))),
        ("numbers", format!("[{}0]", "0,".repeat(n))),
        (
            "objects of many keys",
            format!(
                "{{{}}}",
                (0..n)
                    .map(|i| format!("\"k{i}\":[{i}]"))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        ),
        (
            "objects of five keys",
            format!(
                "[{}]",
                vec![r#"{"a":1,"b":"x","c":[],"d":{},"e":null}"#; n / 4].join(",")
            ),
        ),
        ("a long string", format!("\"{}\"", "y".repeat(n * 8))),
        (
            "nested",
            format!(
                "[{}]",
                vec![format!("{}0{}", "[{\"a\":".repeat(60), "}]".repeat(60)); 100].join(",")
            ),
        ),
    ];
    for (what, text) in shapes {
        let before = LIVE.load(Relaxed);
        PEAK.store(before, Relaxed);
        let v = budget::from_str(&text, usize::MAX).unwrap();
        let held = LIVE.load(Relaxed) - before;
        let peak = PEAK.load(Relaxed) - before;
        let cost = budget::cost(&v);
        let plain = {
            let before = LIVE.load(Relaxed);
            let w: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(w, v, "{what}");
            LIVE.load(Relaxed) - before
        };
        eprintln!(
            "{what}: {} bytes of text, held {held} (serde_json {plain}), peak {peak}, counted {cost}",
            text.len()
        );
        assert!(cost >= held, "{what}: counted {cost} < held {held}");
        assert!(
            cost >= plain,
            "{what}: counted {cost} < serde_json's {plain}"
        );
        assert!(
            peak <= cost + cost / 4,
            "{what}: peak {peak} > counted {cost} + 25 %"
        );
        assert!(budget::from_str(&text, cost).is_ok(), "{what}");
    }
}
