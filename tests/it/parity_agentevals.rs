//! `toolspec score --profile agentevals` reproduces every agentevals trajectory-match vector
//! against the Python package (agentevals 0.0.9, the reference): same boolean, same
//! error-or-not, for every trajectory mode × args mode, overrides included.

use crate::parity_support;

use parity_support::{output, report, vector_lines};
use serde_json::Value;
use toolspec::score::profiles::{peer, score_line};

#[test]
fn every_agentevals_vector_matches_python() {
    check_file("agentevals", 8128);
}

/// Argument strings that LangChain's `json.loads(strict=False)` reads and strict JSON does not
/// (raw control characters, `NaN`, `Infinity`, `1e400`), `NaN` under every matcher, integers
/// near 2^64 against floats (`tests/fixtures/vectors/make_extra_vectors.py`, real agentevals).
#[test]
fn every_extra_agentevals_vector_matches_python() {
    check_file("agentevals_extra", 3191);
}

fn check_file(name: &str, expected: usize) {
    let lines = vector_lines(name);
    let mut bad = Vec::new();
    for line in &lines {
        let v: Value = serde_json::from_str(line).unwrap();
        let want = &v["agentevals"];
        let got = output(&score_line(peer("agentevals").unwrap(), line.as_bytes()));
        let ok = if want.get("error").is_some_and(|e| !e.is_null()) {
            got.get("error").is_some()
        } else {
            let pass = want["score"].as_bool().unwrap();
            got.get("error").is_none()
                && got["passed"] == pass
                && got["score"].as_f64() == Some(if pass { 1.0 } else { 0.0 })
                && got["key"]
                    == format!(
                        "trajectory_{}_match",
                        // Absent: agentevals' default.
                        v.get("trajectory_match_mode")
                            .map_or(Some("strict"), Value::as_str)
                            .unwrap()
                    )
        };
        if !ok {
            bad.push(format!(
                "{} ({} / {}): want {want}\n   got {got}",
                v["id"], v["trajectory_match_mode"], v["tool_args_match_mode"]
            ));
        }
    }
    report(name, lines.len(), expected, &bad);
}
