//! `toolspec score --profile evalite` reproduces every Evalite `toolCallAccuracy` vector
//! (evalite 1.0.0-beta.16): score, error-or-not and the metadata object, exactly.

use crate::parity_support;

use parity_support::{close, output, report, vector_lines};
use toolspec::score::profiles::{peer, score_line};

#[test]
fn every_evalite_vector_matches() {
    check_file("evalite", 4053);
}

/// Weights JavaScript coerces (hex/octal/binary strings, its white space set, arrays through
/// their string) and `__proto__` keys, which flexible mode's `stableSerialize` drops
/// (`tests/fixtures/vectors/make_extra_vectors.py`, the real Evalite).
#[test]
fn every_extra_evalite_vector_matches() {
    check_file("evalite_extra", 184);
}

fn check_file(name: &str, expected: usize) {
    let lines = vector_lines(name);
    let mut bad = Vec::new();
    for line in &lines {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let want = &v["evalite"];
        let got = output(&score_line(peer("evalite").unwrap(), line.as_bytes()));
        let ok = if want.get("error").is_some_and(|e| !e.is_null()) {
            got["error"] == want["error"]
        } else {
            got.get("error").is_none()
                && (close(&got["score"], &want["score"])
                    || (want["score"].is_null() && got["score"].is_null()))
                && got["metadata"] == want["metadata"]
                && got["passed"] == (want["score"].as_f64() == Some(1.0))
        };
        if !ok {
            bad.push(format!("{}: want {want}\n   got {got}", v["id"]));
        }
    }
    report(name, lines.len(), expected, &bad);
}

/// Large cases take the hashed path of flexible mode; repeating every call list six times must
/// scale the counts by six and keep the score (the closed form is linear in the multisets).
#[test]
fn hashed_flexible_path_agrees_with_the_small_path() {
    let mut checked = 0;
    for line in vector_lines("evalite") {
        let mut v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let meta = v["evalite"]["metadata"].clone();
        if v["mode"] != "flexible" || meta.get("exactMatches").is_none() {
            continue;
        }
        let (a, e) = (
            v["actualCalls"].as_array().unwrap().clone(),
            v["expectedCalls"].as_array().unwrap().clone(),
        );
        if a.len() + e.len() > 32 || (a.len() + e.len()) * 6 <= 32 {
            continue;
        }
        v["actualCalls"] =
            serde_json::Value::Array(a.iter().cycle().take(a.len() * 6).cloned().collect());
        v["expectedCalls"] =
            serde_json::Value::Array(e.iter().cycle().take(e.len() * 6).cloned().collect());
        let got = output(&score_line(
            peer("evalite").unwrap(),
            v.to_string().as_bytes(),
        ));
        for k in ["exactMatches", "nameOnlyMatches", "extras", "missing"] {
            assert_eq!(
                got["metadata"][k].as_u64().unwrap(),
                meta[k].as_u64().unwrap() * 6,
                "{k} of {}: {got}",
                v["id"]
            );
        }
        assert!(
            close(&got["score"], &v["evalite"]["score"]),
            "{}: {got}",
            v["id"]
        );
        checked += 1;
    }
    assert!(checked > 1000, "{checked}");
}

/// `score_stream` on all threads writes exactly what `score_line` gives, line by line, in order.
#[test]
fn parallel_stream_equals_line_by_line() {
    let lines = vector_lines("evalite");
    let input = lines.join("\n") + "\n";
    let mut out = Vec::new();
    let summary = toolspec::score::profiles::score_stream(
        peer("evalite").unwrap(),
        input.as_bytes(),
        &mut out,
        0,
    )
    .unwrap();
    assert_eq!(summary.cases, lines.len());
    assert_eq!(summary.errors, 1, "one vector is an invalid mode");
    let got: Vec<&[u8]> = out
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(got.len(), lines.len());
    for (line, g) in lines.iter().zip(got) {
        assert_eq!(score_line(peer("evalite").unwrap(), line.as_bytes()), g);
    }
}
