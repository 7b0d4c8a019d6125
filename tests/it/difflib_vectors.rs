//! The fuzzy similarity equals CPython's `difflib.SequenceMatcher(None, a, b).ratio()` on all
//! 5 000 conformance pairs (bit for bit: M equal, ratio within 1e-12), with and without autojunk.

use std::io::{BufRead, BufReader};

use flate2::read::GzDecoder;
use serde::Deserialize;
use toolspec::engine::difflib::SequenceMatcher;

#[derive(Deserialize)]
struct Pair {
    id: u64,
    kind: String,
    a: String,
    b: String,
    ratio: f64,
    matches: usize,
    ratio_nojunk: f64,
}

#[test]
fn every_cpython_pair_matches() {
    let file = std::fs::File::open("tests/fixtures/vectors/difflib.jsonl.gz").unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in BufReader::new(GzDecoder::new(file)).lines() {
        let p: Pair = serde_json::from_str(&line.unwrap()).unwrap();
        count += 1;
        let m = SequenceMatcher::new(&p.a, &p.b);
        let (got_m, got) = (m.matches(), m.ratio());
        let nojunk = SequenceMatcher::with_autojunk(&p.a, &p.b, false).ratio();
        if got_m != p.matches
            || (got - p.ratio).abs() > 1e-12
            || (nojunk - p.ratio_nojunk).abs() > 1e-12
        {
            failures.push(format!(
                "#{} ({}): M {} vs {}, ratio {} vs {}, nojunk {} vs {}",
                p.id, p.kind, got_m, p.matches, got, p.ratio, nojunk, p.ratio_nojunk
            ));
        }
    }
    assert_eq!(count, 5000, "the vector file is complete");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
