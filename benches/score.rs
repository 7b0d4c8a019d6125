//! `toolspec score` throughput per profile, against the parse floor, in one run.
//!
//! For each profile, the input lines are the conformance vectors (tests/fixtures/vectors, with the
//! expected-result fields removed so only the peer's input is parsed), repeated until a
//! measurement lasts about `TOOLSPEC_BENCH_SECS` seconds (default 0.5). Reported per profile:
//! cases/s scoring with `score_stream` on one thread and on all threads (output to a sink,
//! JSON parsing included), next to `serde_json::from_slice::<Value>` of the same lines on one
//! thread and on all threads, plus cases per CPU-second (from /proc/self/stat, when available).
//!
//! Run: `cargo bench --bench score` (optionally `-- evalite` to run one profile;
//! `TOOLSPEC_BENCH_SCORE_ONLY=1` skips all but the single-thread scoring, for profiling).

use std::io::{BufRead, BufReader};
use std::time::Instant;

use flate2::read::GzDecoder;
use rayon::prelude::*;
use serde_json::{Map, Value};
use toolspec::score::profiles::{score_stream, PEERS};

fn vector_lines(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/vectors/{name}.jsonl.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    BufReader::new(GzDecoder::new(file))
        .lines()
        .map_while(Result::ok)
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(&l).ok())
        .collect()
}

fn without(mut v: Value, keys: &[&str]) -> Value {
    if let Some(m) = v.as_object_mut() {
        for k in keys {
            m.remove(*k);
        }
    }
    v
}

/// The peer's input lines for a profile (what `toolspec score` reads).
fn inputs(profile: &str) -> Vec<String> {
    let strip = |name: &str, keys: &[&str]| -> Vec<String> {
        vector_lines(name)
            .into_iter()
            .map(|v| without(v, keys).to_string())
            .collect()
    };
    match profile {
        "evalite" => strip("evalite", &["evalite", "kind"]),
        "axion" => strip("axion", &["axion", "kind"]),
        "agentevals" => strip("agentevals", &["agentevals", "agentevals_js", "kind"]),
        "galtea" => strip("galtea", &["galtea", "kind"]),
        "deepeval" => vector_lines("deepeval")
            .into_iter()
            .flat_map(|v| {
                let results = v["results"].as_array().cloned().unwrap_or_default();
                results.into_iter().map(move |r| {
                    let mut m = Map::new();
                    m.insert("id".into(), v["id"].clone());
                    m.insert("tools_called".into(), v["tools_called"].clone());
                    m.insert("expected_tools".into(), v["expected_tools"].clone());
                    m.insert("options".into(), r["options"].clone());
                    Value::Object(m).to_string()
                })
            })
            .collect(),
        "promptfoo" => vector_lines("promptfoo")
            .into_iter()
            .map(|v| without(v, &["promptfoo", "kind"]).to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// Process CPU time (user + system) in seconds, from /proc/self/stat.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

struct Rate {
    wall: f64,
    per_cpu: Option<f64>,
}

/// Run `f` (which processes `n` cases) repeatedly for about `secs`; return cases/s.
fn measure(n: usize, secs: f64, mut f: impl FnMut()) -> Rate {
    f(); // warm-up
    let start = Instant::now();
    let cpu0 = cpu_seconds();
    let mut reps = 0usize;
    while reps == 0 || start.elapsed().as_secs_f64() < secs {
        f();
        reps += 1;
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => Some(b - a),
        _ => None,
    };
    let cases = (n * reps) as f64;
    Rate {
        wall: cases / wall,
        per_cpu: cpu.map(|c| cases / c),
    }
}

fn fmt(r: &Rate) -> String {
    match r.per_cpu {
        Some(c) => format!("{:>10.0}/s ({:>10.0}/CPU-s)", r.wall, c),
        None => format!("{:>10.0}/s", r.wall),
    }
}

fn main() {
    let secs: f64 = std::env::var("TOOLSPEC_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.5);
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let threads = rayon::current_num_threads();
    println!("toolspec score throughput ({threads} threads available, ~{secs}s per measurement)");
    println!(
        "{:<11} {:>7}  {:>30}  {:>30}  {:>30}  {:>30}",
        "profile",
        "cases",
        "score 1 thread",
        "score all threads",
        "Value parse 1 thread",
        "Value parse all threads"
    );
    for peer in PEERS {
        let name = peer.name();
        if !filter.is_empty() && !filter.iter().any(|f| f == name) {
            continue;
        }
        let lines = inputs(name);
        if lines.is_empty() {
            continue;
        }
        let mut blob = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for l in &lines {
            blob.push_str(l);
            blob.push('\n');
        }
        let n = lines.len();
        let score1 = measure(n, secs, || {
            let s = score_stream(peer, blob.as_bytes(), std::io::sink(), 1).expect("scored");
            assert_eq!(s.cases, n);
        });
        if std::env::var_os("TOOLSPEC_BENCH_SCORE_ONLY").is_some() {
            println!("{:<11} {:>7}  {}", name, n, fmt(&score1));
            continue;
        }
        let score_all = measure(n, secs, || {
            let s = score_stream(peer, blob.as_bytes(), std::io::sink(), 0).expect("scored");
            assert_eq!(s.cases, n);
        });
        let parse1 = measure(n, secs, || {
            for l in &lines {
                let v: Value = serde_json::from_slice(l.as_bytes()).expect("json");
                std::hint::black_box(v);
            }
        });
        let parse_all = measure(n, secs, || {
            lines.par_iter().for_each(|l| {
                let v: Value = serde_json::from_slice(l.as_bytes()).expect("json");
                std::hint::black_box(v);
            });
        });
        println!(
            "{:<11} {:>7}  {}  {}  {}  {}",
            name,
            n,
            fmt(&score1),
            fmt(&score_all),
            fmt(&parse1),
            fmt(&parse_all)
        );
        println!(
            "{:<11} ratio score/parse: 1 thread {:.2}x, all threads {:.2}x",
            "",
            score1.wall / parse1.wall,
            score_all.wall / parse_all.wall
        );
    }
}
