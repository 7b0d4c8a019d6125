//! `toolspec score --profile deepeval` reproduces every DeepEval `ToolCorrectnessMetric` vector
//! (deepeval 4.3.1, deterministic part): each case under each of its 11 option combinations,
//! score within 1e-9, same success, the same error. The extra vectors (made by
//! `tests/fixtures/vectors/make_extra_vectors.py` with the real DeepEval) add the reason text,
//! `type`, `threshold: null` and `available_tools` with a stub LLM's selection score. The
//! pluggable judge is tested with a fixture script.

use crate::parity_support;

use parity_support::{close, output, reason_modulo_set_order, report, vector_lines};
use serde_json::{json, Value};
use toolspec::score::profiles::{
    peer, score_line, score_line_judged, score_line_reference, Judge, JudgeAnswer, JudgeError,
    JudgeRequest,
};

#[test]
fn every_deepeval_vector_matches() {
    let lines = vector_lines("deepeval");
    let mut bad = Vec::new();
    let mut checked = 0;
    for line in &lines {
        let v: Value = serde_json::from_str(line).unwrap();
        for r in v["results"].as_array().unwrap() {
            checked += 1;
            let input = json!({
                "id": v["id"], "tools_called": v["tools_called"],
                "expected_tools": v["expected_tools"], "options": r["options"],
            });
            let got = output(&score_line(
                peer("deepeval").unwrap(),
                input.to_string().as_bytes(),
            ));
            let ok = if r["error"].is_null() {
                got.get("error").is_none()
                    && close(&got["score"], &r["score"])
                    && got["success"] == r["success"]
                    && got["passed"] == r["success"]
            } else {
                got["error"] == r["error"] && got.get("score").is_none()
            };
            if !ok {
                bad.push(format!(
                    "{} {}: want {r}\n   got {got}",
                    v["id"], r["combo"]
                ));
            }
        }
    }
    report("deepeval", checked, 22_000, &bad);
}

#[test]
fn every_extra_deepeval_vector_matches_reason_included() {
    assert_eq!(
        reason_modulo_set_order("Incomplete tool usage: missing tools ['b', 'a']; y"),
        "Incomplete tool usage: missing tools ['a', 'b']; y"
    );
    // The ordering mode's sets of names are compared as printed.
    let ordering =
        "Incorrect tool usage: missing tools ['b', 'a'] and out-of-order tools ['c', 'd']";
    assert_eq!(reason_modulo_set_order(ordering), ordering);
    let lines = vector_lines("deepeval_extra");
    let (mut bad, mut checked, mut reasons_exact) = (Vec::new(), 0, 0);
    let mut combos = std::collections::BTreeSet::new();
    for line in &lines {
        let v: Value = serde_json::from_str(line).unwrap();
        for r in v["results"].as_array().unwrap() {
            checked += 1;
            combos.insert(r["combo"].as_str().unwrap().to_owned());
            let input = json!({
                "id": v["id"], "input": v["input"], "tools_called": v["tools_called"],
                "expected_tools": v["expected_tools"], "options": r["options"],
            });
            let got = output(&score_line(
                peer("deepeval").unwrap(),
                input.to_string().as_bytes(),
            ));
            let ok = if r["error"].is_null() {
                let (want_reason, got_reason) = (
                    r["reason"].as_str().unwrap(),
                    got["reason"].as_str().unwrap_or_default(),
                );
                reasons_exact += usize::from(want_reason == got_reason);
                got.get("error").is_none()
                    && close(&got["score"], &r["score"])
                    && got["success"] == r["success"]
                    && got["passed"] == r["success"]
                    && reason_modulo_set_order(got_reason) == reason_modulo_set_order(want_reason)
            } else {
                got["error"] == r["error"] && got.get("score").is_none()
            };
            if !ok {
                bad.push(format!(
                    "{} {}: want {r}\n   got {got}",
                    v["id"], r["combo"]
                ));
            }
        }
    }
    assert_eq!(combos.len(), 17 + 30, "{combos:?}");
    report("deepeval extra", checked, 24_017, &bad);
    // Most reasons have at most one item per set, so they are identical byte for byte
    // (20 158 of the 23 987).
    assert!(
        reasons_exact > checked * 4 / 5,
        "{reasons_exact} of {checked}"
    );
}

fn case(options: Value) -> Vec<u8> {
    json!({
        "id": "j", "input": "book a flight",
        "tools_called": [{"name": "search", "input_parameters": {"q": "x"}}],
        "expected_tools": [{"name": "search", "input_parameters": {"q": "x"}}],
        "options": options,
    })
    .to_string()
    .into_bytes()
}

/// A judge given by the caller (the command line's `--judge`) scores tool selection, and the
/// final score is the minimum of both parts; a `judge` option in the line is an error line.
#[test]
fn the_judge_scores_tool_selection_and_min_composes() {
    struct Fixed(Result<f64, &'static str>);
    impl Judge for Fixed {
        fn ask(&self, request: &JudgeRequest<'_, '_>) -> Result<JudgeAnswer, JudgeError> {
            let v: Value = serde_json::from_str(&request.to_json()).unwrap();
            let n = v["available_tools"].as_array().unwrap().len();
            self.0
                .map(|score| JudgeAnswer {
                    score,
                    reason: format!("fixture judge saw {n} available tools"),
                })
                .map_err(|e| JudgeError(e.to_owned()))
        }
    }
    let judged = |options: Value, judge: &Fixed| {
        output(&score_line_judged(
            peer("deepeval").unwrap(),
            &case(options),
            Some(judge),
        ))
    };
    let got = judged(
        json!({"available_tools": [{"name": "search"}, {"name": "book"}]}),
        &Fixed(Ok(0.25)),
    );
    assert_eq!(got["score"], 0.25, "{got}");
    assert_eq!(got["success"], false);
    assert!(
        got["reason"]
            .as_str()
            .unwrap()
            .contains("Tool Selection Reason: fixture judge saw 2 available tools"),
        "{got}"
    );
    // Without available tools the judge is not asked, as in DeepEval.
    let got = judged(json!({}), &Fixed(Err("exited with 3")));
    assert_eq!(got["score"], 1.0, "{got}");
    // A failing judge makes the case an error line.
    let got = judged(
        json!({"available_tools": [{"name": "a"}]}),
        &Fixed(Err("exited with 3")),
    );
    assert!(got["error"].as_str().unwrap().contains("exited"), "{got}");
    // Without a judge the selection part scores 1.
    let got = output(&score_line(
        peer("deepeval").unwrap(),
        &case(json!({"available_tools": [{"name": "a"}]})),
    ));
    assert_eq!(got["score"], 1.0, "{got}");
    // A judge command in the line is never run: the case is an error line saying to pass
    // `--judge`, whatever the reader.
    let line = case(json!({"available_tools": [{"name": "a"}], "judge": "exit 3"}));
    for out in [
        score_line(peer("deepeval").unwrap(), &line),
        score_line_reference(peer("deepeval").unwrap(), &line),
    ] {
        let got = output(&out);
        assert_eq!(got["id"], "j", "{got}");
        assert!(got["error"].as_str().unwrap().contains("--judge"), "{got}");
    }
}

/// The oracle reads `options` as `case.get("options") or {}`: a line without options, or with
/// `null`, is scored with DeepEval's defaults (threshold 0.5), like `{}`.
#[test]
fn absent_or_null_options_are_deepeval_defaults() {
    let score = |extra: &str| {
        let line = format!(
            r#"{{"id":1,"tools_called":[{{"name":"a"}}],"expected_tools":[{{"name":"a"}},{{"name":"b"}}]{extra}}}"#
        );
        output(&score_line(peer("deepeval").unwrap(), line.as_bytes()))
    };
    let want = score(r#","options":{}"#);
    assert_eq!(want["threshold"], 0.5, "{want}");
    assert_eq!(want["success"], true, "{want}");
    assert_eq!(score(""), want);
    assert_eq!(score(r#","options":null"#), want);
}

#[test]
fn reasons_follow_deepeval_templates() {
    let got = output(&score_line(peer("deepeval").unwrap(), &case(json!({}))));
    assert_eq!(
        got["reason"],
        "[\n\t Tool Calling Reason: All expected tools ['search'] were called (order not considered).\n\t Tool Selection Reason: No available tools were provided to assess tool selection criteria\n]\n"
    );
    let line = json!({"id": 1, "tools_called": [], "expected_tools": [{"name": "a", "input_parameters": {"k": 1.5}, "output": "r"}], "options": {}});
    let got = output(&score_line(
        peer("deepeval").unwrap(),
        line.to_string().as_bytes(),
    ));
    assert!(got["reason"].as_str().unwrap().contains(
        "Incomplete tool usage: missing tools [ToolCall(\n    name=\"a\",\n    type=\"FUNCTION\",\n    input_parameters={\n        \"k\": 1.5\n    },\n    output='r'\n)]; expected ['a'], called []."
    ), "{got}");
}
