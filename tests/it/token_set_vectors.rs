//! `fuzzy tokens` equals rapidfuzz's `fuzz.token_set_ratio(a, b, processor=utils.default_process)`
//! / 100 on every generated pair of `tests/fixtures/vectors/token_set.jsonl.gz` (written by
//! `make_token_set_vectors.py` beside it with the real rapidfuzz from PyPI): words moved,
//! mutated, added and dropped, punctuation, case, Unicode letters and digits. Within 1e-9
//! (rapidfuzz computes `100 − 100·dist/lensum`, toolspec `1 − dist/lensum`).

use std::io::{BufRead, BufReader};

use flate2::read::GzDecoder;
use serde::Deserialize;
use toolspec::engine::tokens::token_set_ratio;

#[derive(Deserialize)]
struct Pair {
    id: u64,
    kind: String,
    a: String,
    b: String,
    ratio: f64,
}

#[test]
fn every_rapidfuzz_pair_matches() {
    let file = std::fs::File::open("tests/fixtures/vectors/token_set.jsonl.gz").unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    // The first line names the rapidfuzz version.
    for line in BufReader::new(GzDecoder::new(file)).lines().skip(1) {
        let p: Pair = serde_json::from_str(&line.unwrap()).unwrap();
        count += 1;
        let got = token_set_ratio(&p.a, &p.b);
        if (got - p.ratio).abs() > 1e-9 {
            failures.push(format!(
                "#{} ({}): {:?} / {:?}: {got} vs rapidfuzz {}",
                p.id, p.kind, p.a, p.b, p.ratio
            ));
        }
    }
    assert!(count >= 2000, "only {count} pairs");
    assert!(
        failures.is_empty(),
        "{} of {count} pairs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
