//! Inputs sized to exhaust work rather than memory, through the real binary under the address
//! space cap of the other hostile tests (`hostile_support::run_limited`): each stops at its
//! stated budget with a located finding, and the rest of the run still holds the other results.
//! What is asserted is the result and the budget's note, never a time (the timings are in
//! `benches/`).

use serde_json::json;

use crate::hostile_support::{Project, LIMIT_MIB};

/// A 6-member `parallel` block among 30 expectations of 6 tools, over 2 777 calls of those
/// tools (13–27 s of CPU for this one spec × transcript when each of the 720 orders had a
/// budget of its own): the orders share one work budget for the run (`ARRANGEMENT_WORK`), so
/// only the first are tried, the pair passes on the best of them, and a `too-large` note at
/// the block says how many were tried; the good transcript is still checked.
#[test]
fn a_parallel_block_over_a_long_session_tries_the_orders_its_budget_holds() {
    let tool = |j: usize| format!("t{}", j % 6);
    let mut spec = String::from(
        "spec lookup_once {\n  transcripts \"runs/good.json\"\n  call lookup(q: \"x\")\n}\n",
    );
    spec.push_str("spec par {\n  transcripts \"runs/par.json\"\n");
    for j in 0..30 {
        if j == 12 {
            spec.push_str("  parallel {\n");
        }
        spec.push_str(&format!("    call {}\n", tool(j)));
        if j == 17 {
            spec.push_str("  }\n");
        }
    }
    spec.push_str("}\n");
    let p = Project::with_spec(&spec);
    let calls: Vec<serde_json::Value> = (0..2_777)
        .map(|i| {
            json!({"id": format!("c{i}"), "type": "function",
                   "function": {"name": tool(i), "arguments": "{}"}})
        })
        .collect();
    p.write(
        "runs/par.json",
        json!({"model": "m", "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": null, "tool_calls": calls}
        ]})
        .to_string(),
    );
    let run = p.check_limited(LIMIT_MIB, &[]);
    run.assert_not_killed();
    let par = run.result_for("par.json").expect("par.json checked");
    assert_eq!(par["spec"], "par", "{par:#}");
    assert_eq!(par["passed"], true, "{par:#}");
    assert_eq!(par["score"], 1.0, "{par:#}");
    let findings = par["findings"].as_array().expect("findings");
    let notes: Vec<&serde_json::Value> = findings
        .iter()
        .filter(|f| f["code"] == "too-large")
        .collect();
    assert_eq!(notes.len(), 1, "{findings:#?}");
    let message = notes[0]["message"].as_str().unwrap();
    let tried: usize = message
        .strip_prefix("tried ")
        .and_then(|m| m.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{message}"));
    assert!(message.contains(" of the 720 arrangements"), "{message}");
    assert!((2..720).contains(&tried), "{message}");
    // At the block: the line of `parallel {` in the spec.
    let block_line = spec.lines().position(|l| l.trim() == "parallel {").unwrap() + 1;
    assert_eq!(
        notes[0]["related"]["file"], "spec.toolspec",
        "{:#}",
        notes[0]
    );
    assert_eq!(notes[0]["related"]["line"], block_line, "{:#}", notes[0]);
    run.assert_good_checked();
}
