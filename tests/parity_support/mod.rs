//! Shared by the `parity_*` tests: read a gzip-compressed vector file, collect mismatches.
// Each test binary uses a subset of these helpers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};

use flate2::read::GzDecoder;
use serde_json::Value;

/// Every line of `tests/fixtures/vectors/NAME.jsonl.gz`.
pub fn vector_lines(name: &str) -> Vec<String> {
    let file = std::fs::File::open(format!("tests/fixtures/vectors/{name}.jsonl.gz"))
        .expect("vector file");
    BufReader::new(GzDecoder::new(file))
        .lines()
        .map(|l| l.expect("readable vector line"))
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// Parse one output line of `toolspec score`.
pub fn output(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|e| {
        panic!(
            "output is not JSON ({e}): {}",
            String::from_utf8_lossy(bytes)
        )
    })
}

/// Scores agree within 1e-9 (both numbers).
pub fn close(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9,
        _ => false,
    }
}

/// Fails with the first 20 mismatches if there are any.
pub fn report(peer: &str, checked: usize, expected: usize, mismatches: &[String]) {
    assert_eq!(checked, expected, "{peer}: every vector was checked");
    assert!(
        mismatches.is_empty(),
        "{peer}: {} of {checked} vectors differ; first 20:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
