//! `toolspec score --profile deepeval` reproduces every DeepEval `ToolCorrectnessMetric` vector
//! (deepeval 4.3.1, deterministic part): each case under each of its 11 option combinations,
//! score within 1e-9, same success, same error-or-not. The pluggable judge is tested with a
//! fixture script.

mod parity_support;

use parity_support::{close, output, report, vector_lines};
use serde_json::{json, Value};
use toolspec::score::profiles::{score_line, ProfileName};

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
                ProfileName::Deepeval,
                input.to_string().as_bytes(),
            ));
            let ok = if !r["error"].is_null() {
                got.get("error").is_some()
            } else {
                got.get("error").is_none()
                    && close(&got["score"], &r["score"])
                    && got["success"] == r["success"]
                    && got["passed"] == r["success"]
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

#[test]
fn the_judge_scores_tool_selection_and_min_composes() {
    let judge = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/parity_judge.sh"
    );
    let got = output(&score_line(
        ProfileName::Deepeval,
        &case(json!({"available_tools": [{"name": "search"}, {"name": "book"}], "judge": judge})),
    ));
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
    let got = output(&score_line(
        ProfileName::Deepeval,
        &case(json!({"judge": "exit 3"})),
    ));
    assert_eq!(got["score"], 1.0, "{got}");
    // A failing judge makes the case an error line.
    let got = output(&score_line(
        ProfileName::Deepeval,
        &case(json!({"available_tools": [{"name": "a"}], "judge": "exit 3"})),
    ));
    assert!(got["error"].as_str().unwrap().contains("exited"), "{got}");
    // Without a judge the selection part scores 1.
    let got = output(&score_line(
        ProfileName::Deepeval,
        &case(json!({"available_tools": [{"name": "a"}]})),
    ));
    assert_eq!(got["score"], 1.0, "{got}");
}

#[test]
fn reasons_follow_deepeval_templates() {
    let got = output(&score_line(ProfileName::Deepeval, &case(json!({}))));
    assert_eq!(
        got["reason"],
        "[\n\t Tool Calling Reason: All expected tools ['search'] were called (order not considered).\n\t Tool Selection Reason: No available tools were provided to assess tool selection criteria\n]\n"
    );
    let line = json!({"id": 1, "tools_called": [], "expected_tools": [{"name": "a", "input_parameters": {"k": 1.5}, "output": "r"}], "options": {}});
    let got = output(&score_line(
        ProfileName::Deepeval,
        line.to_string().as_bytes(),
    ));
    assert!(got["reason"].as_str().unwrap().contains(
        "Incomplete tool usage: missing tools [ToolCall(\n    name=\"a\",\n    type=\"FUNCTION\",\n    input_parameters={\n        \"k\": 1.5\n    },\n    output='r'\n)]; expected ['a'], called []."
    ), "{got}");
}
