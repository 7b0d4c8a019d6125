//! Inputs sized to exhaust memory, through the real binary under a cap on its address space
//! (`ulimit -v`, [`hostile_support::run_limited`]): each is refused or read within its bound
//! with a located error or finding, the process never dies, and the good transcript next to it
//! is still checked.
//!
//! Inputs are generated at test time. Where the input that shows a bound on a real machine
//! takes gigabytes, the test uses a smaller input under a proportionally smaller cap: the cap is
//! what makes an unbounded reading fail, whatever the machine's memory.

use crate::hostile_support;

use hostile_support::{Project, LIMIT_MIB};

/// The cap is real: far below what the binary needs, the run fails (so the tests below, which
/// assert it ends by itself, would see an unbounded allocation).
#[test]
fn the_address_space_cap_applies_to_the_binary() {
    let p = Project::new();
    let starved = p.check_limited(4, &[]);
    assert_ne!(starved.code, Some(0), "{starved:?}");
}

/// A mapping whose filters nest queries from the root (`$`), each run again for every node a
/// filter tests (N^(k+1) visits: a 900-byte file took minutes), is refused before it runs with
/// an error at the file naming the expression; the same shape relative to the node tested
/// (`@`), bounded by the depth, is read; the transcript beside them is still checked.
#[test]
fn nested_queries_from_the_root_in_a_mapping_are_refused_before_they_run() {
    let p = Project::new();
    p.write(
        "toolspec.toml",
        r#"[formats.rooted]
files = ["runs/rooted.json"]
calls = "$[?$[?$[?$[?$[?$[?$[*]]]]]]]"
name = "$.k"

[formats.relative]
files = ["runs/relative.json"]
calls = "$[?@[?@[?@[?@[?@[?@[*]]]]]]]"
name = "$.k"
"#,
    );
    // 900 bytes of small objects: 180 nodes.
    let doc = format!("[{}{{\"k\":1}}]", "{\"k\":\"lookup\"},".repeat(60));
    assert!(doc.len() > 900);
    p.write("runs/rooted.json", &doc);
    p.write("runs/relative.json", &doc);
    let run = hostile_support::run_limited(
        p.root(),
        LIMIT_MIB,
        &["check", "--format", "json", "spec.toolspec"],
    );
    run.assert_not_killed();
    assert_eq!(run.code, Some(2), "{run:?}");
    let errors = run.errors_about("rooted.json");
    assert_eq!(errors.len(), 1, "{}", run.stdout);
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.contains("`$[?$[?$[?$[?$[?$[?$[*]]]]]]]` (formats.rooted.calls) may visit up to"),
        "{message}"
    );
    assert_eq!(errors[0]["location"]["line"], 1, "{:#}", errors[0]);
    // The relative one selects nothing (no element holds an array) and reads no call.
    assert!(
        run.errors_about("relative.json").is_empty(),
        "{}",
        run.stdout
    );
    let relative = run
        .result_for("relative.json")
        .expect("relative.json checked");
    assert_eq!(relative["calls"], 0, "{relative:#}");
    run.assert_good_checked();
}
