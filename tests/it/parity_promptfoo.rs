//! `toolspec score --profile promptfoo` reproduces promptfoo 0.123.1 `tool-call-f1` on 1515
//! cases scored by the real library (`tests/fixtures/vectors/make_promptfoo_vectors.py`): every
//! output shape it reads, mixed text with JSON blocks and code fences, thresholds, `not-`, and
//! its errors. Score within 1e-9, same pass, same reason text.

use crate::parity_support;

use parity_support::{close, output, report, vector_lines};
use serde_json::Value;
use toolspec::score::profiles::{peer, score_line};

#[test]
fn every_promptfoo_vector_matches() {
    let lines = vector_lines("promptfoo");
    let mut bad = Vec::new();
    for line in &lines {
        let v: Value = serde_json::from_str(line).unwrap();
        let want = &v["promptfoo"];
        let got = output(&score_line(peer("promptfoo").unwrap(), line.as_bytes()));
        let ok = if want.get("error").is_some() {
            got["error"] == want["error"]
        } else {
            got.get("error").is_none()
                && close(&got["score"], &want["score"])
                && got["passed"] == want["pass"]
                && got["reason"] == want["reason"]
        };
        if !ok {
            bad.push(format!("{}: want {want}\n   got {got}", v["id"]));
        }
    }
    report("promptfoo", lines.len(), 1515, &bad);
}
