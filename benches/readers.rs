//! Reading throughput per format, against plain `serde_json` → `Value` parsing of the same
//! bytes (JSONL split on newlines and parsed per line, as a reader must).
//!
//! `cargo bench --bench readers [-- DIR]`: DIR holds `<format>/<files>` (default: the test
//! fixtures; e.g. `python3 gen_big.py --out /tmp/big --n 600` then `-- /tmp/big/transcripts`).
//! Prints MB/s (input bytes / wall time, best of several rounds) and the ratio.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Files of one format: (path, bytes).
type Set = Vec<(PathBuf, Vec<u8>)>;

fn files(dir: &Path) -> Vec<(String, Set)> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut dirs: Vec<_> = rd
        .flatten()
        .filter(|e| e.path().is_dir() && e.file_name() != "truth")
        .collect();
    dirs.sort_by_key(std::fs::DirEntry::file_name);
    for d in dirs {
        let mut fs = Vec::new();
        for f in std::fs::read_dir(d.path()).unwrap().flatten() {
            let p = f.path();
            if p.is_file() && !p.to_string_lossy().ends_with(".md") {
                fs.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
        out.push((d.file_name().to_string_lossy().to_string(), fs));
    }
    out
}

fn baseline(bytes: &[u8]) -> usize {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => usize::from(std::hint::black_box(v).is_object()),
        Err(_) => bytes
            .split(|&b| b == b'\n')
            .filter_map(|line| {
                let start = line.iter().position(|&b| b == b'{' || b == b'[')?;
                serde_json::from_slice::<Value>(&line[start..]).ok()
            })
            .map(|v| usize::from(std::hint::black_box(v).is_object()))
            .sum(),
    }
}

fn ours(bytes: &[u8]) -> usize {
    toolspec::transcript::Reader::new()
        .read("bench", bytes)
        .map_or(0, |ts| ts.iter().map(|t| t.calls.len()).sum())
}

/// MB/s of one round of at least `min`.
fn round(set: &[(PathBuf, Vec<u8>)], f: fn(&[u8]) -> usize, min: Duration) -> f64 {
    let bytes: usize = set.iter().map(|(_, b)| b.len()).sum();
    let start = Instant::now();
    let mut done = 0usize;
    while start.elapsed() < min {
        for (_, b) in set {
            std::hint::black_box(f(b));
        }
        done += bytes;
    }
    done as f64 / start.elapsed().as_secs_f64() / 1e6
}

/// Best MB/s of (baseline, ours), rounds interleaved so a change in machine load hits both.
fn measure(set: &[(PathBuf, Vec<u8>)], min: Duration) -> (f64, f64) {
    let (mut base, mut ours_best) = (0f64, 0f64);
    for _ in 0..7 {
        base = base.max(round(set, baseline, min));
        ours_best = ours_best.max(round(set, ours, min));
    }
    (base, ours_best)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs: Vec<PathBuf> = if args.is_empty() {
        vec![
            root.join("tests/fixtures/corpus/transcripts"),
            root.join("tests/fixtures/corpus/real"),
            root.join("tests/fixtures/formats/transcripts"),
        ]
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    let mut by_format: std::collections::BTreeMap<String, Vec<(PathBuf, Vec<u8>)>> =
        Default::default();
    for d in &dirs {
        for (fmt, fs) in files(d) {
            by_format.entry(fmt).or_default().extend(fs);
        }
    }
    let min = Duration::from_millis(40);
    println!(
        "{:<20} {:>9} {:>12} {:>12} {:>7}",
        "format", "KiB", "serde Value", "toolspec", "ratio"
    );
    let (mut tb, mut tt) = (0f64, 0f64);
    for (fmt, set) in &by_format {
        let kib = set.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / 1024.0;
        let (base, ours_mbs) = measure(set, min);
        tb += kib / base;
        tt += kib / ours_mbs;
        println!(
            "{fmt:<20} {kib:>9.0} {base:>8.0} MB/s {ours_mbs:>7.0} MB/s {:>6.0}%",
            100.0 * ours_mbs / base
        );
    }
    println!(
        "{:<20} {:>9} {:>12} {:>12} {:>6.0}%",
        "all (time-weighted)",
        "",
        "",
        "",
        100.0 * tb / tt
    );
}
