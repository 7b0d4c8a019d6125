//! `toolspec score --profile galtea` agrees with the Galtea oracle (a reimplementation of
//! Galtea's published description, `../shared/oracles/galtea/oracle.py`) on 1516 cases: seeded
//! cases with mangled names under every normalisation profile, plus hand-written edge cases.
//! Score, success, reason, canonical sets and the differences must be identical.

use crate::parity_support;

use parity_support::{close, output, report, vector_lines};
use serde_json::Value;
use toolspec::score::profiles::{peer, score_line};

#[test]
fn every_galtea_vector_matches_the_oracle() {
    let lines = vector_lines("galtea");
    let mut bad = Vec::new();
    for line in &lines {
        let v: Value = serde_json::from_str(line).unwrap();
        let want = &v["galtea"];
        let got = output(&score_line(peer("galtea").unwrap(), line.as_bytes()));
        let ok = if want["error"].is_null() {
            close(&got["score"], &want["score"])
                && [
                    "success",
                    "reason",
                    "canonical_used",
                    "canonical_expected",
                    "missing",
                    "extra",
                ]
                .iter()
                .all(|k| got[k] == want[k])
                && got["passed"] == want["success"]
        } else {
            got.get("error").is_some()
        };
        if !ok {
            bad.push(format!("{}: want {want}\n   got {got}", v["id"]));
        }
    }
    report("galtea", lines.len(), 1516, &bad);
}
