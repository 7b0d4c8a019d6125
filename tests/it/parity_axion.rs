//! `toolspec score --profile axion` reproduces every Axion `ToolCorrectness` vector, at both
//! pinned revisions (v0.2.2 and HEAD 7ab96dc, field `rev`): score within 1e-9, same pass/fail,
//! same threshold, the explanation byte for byte, same error-or-not.

use crate::parity_support;

use parity_support::{close, output, report, vector_lines};
use serde_json::Value;
use toolspec::score::profiles::{peer, score_line};

#[test]
fn every_axion_vector_matches_at_both_revisions() {
    let lines = vector_lines("axion");
    let mut bad = Vec::new();
    let mut revs = std::collections::BTreeMap::new();
    for line in &lines {
        let v: Value = serde_json::from_str(line).unwrap();
        *revs
            .entry(v["rev"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
        let want = &v["axion"];
        let got = output(&score_line(peer("axion").unwrap(), line.as_bytes()));
        let ok = if want.get("error").is_some() {
            got.get("error").is_some()
        } else {
            got.get("error").is_none()
                && close(&got["score"], &want["score"])
                && got["passed"] == want["passed"]
                && close(&got["threshold"], &want["threshold"])
                && got["explanation"] == want["explanation"]
        };
        if !ok {
            bad.push(format!(
                "{} ({}): want {want}\n   got {got}",
                v["id"], v["rev"]
            ));
        }
    }
    assert_eq!(revs.len(), 2, "both revisions are covered: {revs:?}");
    report("axion", lines.len(), 11_842, &bad);
}
