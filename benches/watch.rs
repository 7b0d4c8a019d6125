//! `toolspec watch` latency: from a saved transcript to the re-checked report, against the
//! debounce interval (target: within debounce + 10 ms).
//!
//! Starts the real binary (`toolspec watch --no-clear --debounce D`) on a small project in a temp
//! folder, waits for its first report, then saves a transcript `TOOLSPEC_BENCH_SAVES` times
//! (default 40; alternately passing and failing, in place and by atomic rename) and times each
//! save → the `[watch]` line printed after the new report. Prints p50 / p90 / max per debounce.
//!
//! Run: `cargo bench --bench watch` (optionally `-- 20 50 100` for the debounce values in ms).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const SPEC: &str = r#"spec lookup_once {
  transcripts "runs/*.json"
  call lookup(q: "x")
}
"#;

fn transcript(q: &str) -> String {
    format!(
        r#"{{"model":"gpt-4o","messages":[{{"role":"user","content":"find"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"c1","type":"function","function":{{"name":"lookup","arguments":"{{\"q\":\"{q}\"}}"}}}}]}},{{"role":"tool","tool_call_id":"c1","content":"ok"}}]}}"#
    )
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn measure(debounce_ms: u64, saves: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::write(root.join("spec.toolspec"), SPEC).unwrap();
    std::fs::write(root.join("runs/a.json"), transcript("x")).unwrap();
    for i in 0..20 {
        std::fs::write(root.join(format!("runs/other{i}.json")), transcript("x")).unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args([
            "watch",
            "--no-config",
            "--no-clear",
            "--color",
            "never",
            "--debounce",
            &debounce_ms.to_string(),
        ])
        .current_dir(root)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start toolspec watch");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("[watch]") && tx.send(Instant::now()).is_err() {
                break;
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("first report");
    let mut lat = Vec::new();
    let target = root.join("runs/a.json");
    for i in 0..saves {
        // Let the previous batch settle, then drain anything late.
        std::thread::sleep(Duration::from_millis(debounce_ms * 2 + 20));
        while rx.try_recv().is_ok() {}
        let text = transcript(if i % 2 == 0 { "y" } else { "x" });
        let start = Instant::now();
        save(&target, &text, i % 4 == 3);
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(at) => lat.push(at.duration_since(start).as_secs_f64() * 1e3),
            Err(_) => println!("save {i}: no re-check within 10 s"),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    lat.sort_by(f64::total_cmp);
    if lat.is_empty() {
        return;
    }
    let p50 = percentile(&lat, 0.5);
    println!(
        "debounce {:>4} ms: save -> re-checked report p50 {:>7.1} ms, p90 {:>7.1} ms, max {:>7.1} ms \
         (n={}); p50 - debounce = {:+.1} ms (target <= +10 ms)",
        debounce_ms,
        p50,
        percentile(&lat, 0.9),
        lat[lat.len() - 1],
        lat.len(),
        p50 - debounce_ms as f64
    );
}

/// Save like an editor: in place, or to a temp file renamed over the target (atomic save).
fn save(target: &Path, text: &str, atomic: bool) {
    if atomic {
        let tmp = target.with_extension("json.tmp-save");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, target).unwrap();
    } else {
        std::fs::write(target, text).unwrap();
    }
}

fn main() {
    let saves: usize = std::env::var("TOOLSPEC_BENCH_SAVES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let mut debounces: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    if debounces.is_empty() {
        debounces = vec![50];
    }
    for d in debounces {
        measure(d, saves);
    }
}
