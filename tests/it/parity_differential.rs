//! `toolspec score --profile X` against answers recorded from the real peers
//! (`tests/fixtures/differential/`, written by `make.py` there with the shared oracles): the
//! reproductions of known differences, and the differential sets of the adversarial generator
//! (`gen.py`, many seeds, every class). A line agrees when the verdict, the score (bit for bit)
//! and the peer's text fields are the same, or when both refuse it. Each peer must agree on at
//! least 99.5 % of its lines ([`floor`]), and every line that does not must be a [`known`]
//! difference (`docs/parity.md`, "Remaining differences").

use std::io::{BufRead, BufReader};

use flate2::read::GzDecoder;
use serde_json::Value;
use toolspec::json::read::{read, Runtime};
use toolspec::json::value::Val;
use toolspec::score::profiles::{peer, score_line, score_line_reference};

use crate::parity_support::reason_modulo_set_order;

/// Whether a line that disagrees with its peer is one of the differences `docs/parity.md`
/// lists ("Remaining differences"): for promptfoo, an expected value that promptfoo renders as
/// a template, reads or runs (toolspec never does).
fn known(profile: &str, got: &Value) -> bool {
    let error = got["error"].as_str().unwrap_or_default();
    profile == "promptfoo" && error.contains("is a Nunjucks template")
}

/// The least share of lines that agree: 99.5 % for every peer.
fn floor(_profile: &str) -> f64 {
    0.995
}

/// A JSON line (a peer's answer, toolspec's, or a recorded vector) as a serde_json value,
/// nesting past serde_json's own reading limit included; `NaN` and infinities are `null`.
fn json(text: &str) -> Value {
    let deep = Runtime::Python {
        strict: true,
        depth: 1 << 20,
    };
    let (v, _) = read(text, deep).unwrap_or_else(|e| panic!("{e:?}: {text}"));
    to_json(&v)
}

fn to_json(v: &Val<'_>) -> Value {
    match v {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(*b),
        Val::Int(i) => Value::from(*i),
        Val::UInt(u) => Value::from(*u),
        Val::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Val::BigInt(d) => Value::String(format!("bigint:{d}")),
        Val::Str(s) => Value::String(s.to_string()),
        Val::Arr(items) => Value::Array(items.iter().map(to_json).collect()),
        Val::Obj(members) => Value::Object(
            members
                .iter()
                .map(|(k, x)| (k.to_string(), to_json(x)))
                .collect(),
        ),
    }
}

/// A score's bits (`null`, for a score JavaScript printed as `null`, is its own value).
fn bits(v: &Value) -> Option<u64> {
    v.as_f64().map(f64::to_bits)
}

/// Whether toolspec's line `got` says what the peer's answer `want` says: both refuse the
/// case, or the verdict, the score (bit for bit) and the peer's text fields are equal.
fn agrees(profile: &str, want: &Value, got: &Value) -> bool {
    let peer_error = match profile {
        "agentevals" | "deepeval" | "galtea" => !want["error"].is_null(),
        _ => want.get("error").is_some(),
    };
    let ours = got.get("error").is_some();
    if peer_error || ours {
        return peer_error && ours;
    }
    let score = |key: &str| bits(&want[key]) == bits(&got["score"]);
    match profile {
        "axion" => {
            score("score")
                && want["passed"] == got["passed"]
                && want["explanation"] == got["explanation"]
        }
        "deepeval" => {
            let reason = |v: &Value| reason_modulo_set_order(v.as_str().unwrap_or_default());
            score("score")
                && want["success"] == got["success"]
                && reason(&want["reason"]) == reason(&got["reason"])
        }
        "evalite" => score("score") && want["metadata"] == got["metadata"],
        "agentevals" => want["score"] == got["passed"],
        "galtea" => {
            score("score")
                && [
                    "reason",
                    "canonical_used",
                    "canonical_expected",
                    "missing",
                    "extra",
                ]
                .iter()
                .all(|k| want[*k] == got[*k])
        }
        "promptfoo" => {
            score("score") && want["pass"] == got["passed"] && want["reason"] == got["reason"]
        }
        _ => false,
    }
}

/// The id of a case line (as text), for messages.
fn id_of(case: &str) -> String {
    match read(case, Runtime::PY312) {
        Ok((v, _)) => match v.get("id") {
            Some(Val::Str(s)) => s.to_string(),
            Some(other) => format!("{:?}", to_json(other)),
            None => String::new(),
        },
        Err(_) => String::new(),
    }
}

/// Scores every `(case, peer answer)` of `profile` with `score_line` (and checks that the
/// reference reader, the tape bypassed, prints the same bytes); the cases that disagree: their
/// id, both answers, and whether the difference is [`known`].
fn disagreements(profile: &str, vectors: &[(String, Value)]) -> Vec<(String, String, bool)> {
    let p = peer(profile).unwrap();
    let mut bad = Vec::new();
    for (case, want) in vectors {
        let out = score_line(p, case.as_bytes());
        assert_eq!(
            out,
            score_line_reference(p, case.as_bytes()),
            "{profile}: the two readers differ on {case}"
        );
        let got = json(std::str::from_utf8(&out).unwrap());
        if !agrees(profile, want, &got) {
            let cut = |v: &Value| v.to_string().chars().take(500).collect::<String>();
            bad.push((
                id_of(case),
                format!("want {}\n   got {}", cut(want), cut(&got)),
                known(profile, &got),
            ));
        }
    }
    bad
}

/// Every reproduction of the differences toolspec had with the peers (duplicate keys, integers
/// past 64 bits and `-0` on every reading path, `NaN` and `Infinity`, deep nesting, Galtea's
/// options, promptfoo's `(none)`, Evalite's call lists and calls of every JSON type, lone
/// surrogates in every peer: compared, printed, ordered and measured as the runtime holds
/// them; DeepEval's sets of names and the sums DeepEval and Axion make over a set of keys, in
/// CPython's order under `PYTHONHASHSEED=0`), with the real peers' answers: all agree.
#[test]
fn reproductions_agree_with_the_peers() {
    let text = std::fs::read_to_string("tests/fixtures/differential/reproductions.jsonl").unwrap();
    let mut by_peer: Vec<(String, Vec<(String, Value)>)> = Vec::new();
    for line in text.lines() {
        let v = json(line);
        let profile = v["peer"].as_str().unwrap().to_owned();
        let case = v["case"].as_str().unwrap().to_owned();
        match by_peer.iter_mut().find(|(p, _)| *p == profile) {
            Some((_, list)) => list.push((case, v["peer_out"].clone())),
            None => by_peer.push((profile, vec![(case, v["peer_out"].clone())])),
        }
    }
    assert_eq!(by_peer.len(), 6, "every peer has reproductions");
    let mut bad = Vec::new();
    for (profile, vectors) in &by_peer {
        for (id, diff, _) in disagreements(profile, vectors) {
            bad.push(format!("{profile} {id}:\n  {diff}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A character of the block toolspec keeps lone surrogates in, written in a line (as itself or
/// as a surrogate pair), would be read back as a surrogate: every profile refuses the line
/// with a reason, the only lines a peer scores that toolspec does not (`docs/parity.md`).
#[test]
fn characters_of_the_block_kept_for_lone_surrogates_are_refused() {
    let raw = "{\"id\":1,\"tools_called\":[\"a\u{10f000}\"],\"expected_tools\":[\"a\"]}";
    let pair = r#"{"id":1,"tools_called":["a\udbfc\udc00"],"expected_tools":["a"]}"#;
    for p in toolspec::score::profiles::PEERS {
        for line in [raw, pair] {
            let out = String::from_utf8(score_line(p, line.as_bytes())).unwrap();
            assert!(
                out.contains("U+10F000 is in the private-use block toolspec keeps for lone"),
                "{}: {out}",
                p.name()
            );
        }
    }
    // Other private-use characters are read as they are.
    let line = "{\"id\":1,\"tools_called\":[\"\u{10fffd}\"],\"expected_tools\":[\"\u{10fffd}\"]}";
    let out = String::from_utf8(score_line(peer("galtea").unwrap(), line.as_bytes())).unwrap();
    assert!(out.contains("\"score\":1"), "{out}");
}

/// The recorded differential set of `profile`: (case, peer answer).
fn recorded(profile: &str) -> Vec<(String, Value)> {
    let file = std::fs::File::open(format!("tests/fixtures/differential/{profile}.jsonl.gz"))
        .expect("recorded set");
    BufReader::new(GzDecoder::new(file))
        .lines()
        .map(|l| {
            let v = json(&l.unwrap());
            (v["case"].as_str().unwrap().to_owned(), v["peer"].clone())
        })
        .collect()
}

/// One peer's recorded set: at least [`floor`] of its lines agree, and each line that does
/// not is a [`known`] difference. Run on a thread with a large stack: the test's own JSON
/// values (a peer's answer can nest 2 000 levels) are compared and dropped by recursion.
fn check_recorded(profile: &'static str) {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || check_recorded_here(profile))
        .unwrap()
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

fn check_recorded_here(profile: &str) {
    let vectors = recorded(profile);
    let bad = disagreements(profile, &vectors);
    let unlisted: Vec<String> = bad
        .iter()
        .filter(|(_, _, known)| !known)
        .map(|(id, d, _)| format!("{id}:\n  {d}"))
        .collect();
    let share = 1.0 - bad.len() as f64 / vectors.len() as f64;
    let all = std::env::var("DIFF_ALL").is_ok();
    assert!(
        unlisted.is_empty() && share >= floor(profile),
        "{profile}: {} of {} lines disagree ({:.2} % agree), {} not known; first 20:\n{}",
        bad.len(),
        vectors.len(),
        share * 100.0,
        unlisted.len(),
        unlisted
            .iter()
            .take(if all { usize::MAX } else { 20 })
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn deepeval_recorded_set() {
    check_recorded("deepeval");
}

#[test]
fn evalite_recorded_set() {
    check_recorded("evalite");
}

#[test]
fn agentevals_recorded_set() {
    check_recorded("agentevals");
}

#[test]
fn axion_recorded_set() {
    check_recorded("axion");
}

#[test]
fn galtea_recorded_set() {
    check_recorded("galtea");
}

#[test]
fn promptfoo_recorded_set() {
    check_recorded("promptfoo");
}
