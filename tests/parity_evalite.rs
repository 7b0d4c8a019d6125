//! `toolspec score --profile evalite` reproduces every Evalite `toolCallAccuracy` vector
//! (evalite 1.0.0-beta.16): score, error-or-not and the metadata object, exactly.

mod parity_support;

use parity_support::{close, output, report, vector_lines};
use toolspec::score::profiles::{score_line, ProfileName};

#[test]
fn every_evalite_vector_matches() {
    let lines = vector_lines("evalite");
    let mut bad = Vec::new();
    for line in &lines {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let want = &v["evalite"];
        let got = output(&score_line(ProfileName::Evalite, line.as_bytes()));
        let ok = if want.get("error").is_some_and(|e| !e.is_null()) {
            got["error"] == want["error"]
        } else {
            got.get("error").is_none()
                && close(&got["score"], &want["score"])
                && got["metadata"] == want["metadata"]
                && got["passed"] == (want["score"].as_f64() == Some(1.0))
        };
        if !ok {
            bad.push(format!("{}: want {want}\n   got {got}", v["id"]));
        }
    }
    report("evalite", lines.len(), 4053, &bad);
}
