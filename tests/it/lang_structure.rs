//! `either`, `parallel` and `critical` in the language: how they lower (a flat list of
//! expectations plus groups), how `fmt` prints them, and that a config without them is unchanged.

use crate::lang_common;

use lang_common::compile_with;
use serde_json::json;
use toolspec::config::{GroupKind, MatcherConfig};
use toolspec::source::SourceFile;
use toolspec::syntax::format;

fn lower(text: &str) -> MatcherConfig {
    let r = compile_with(text, &[]);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    r.file.unwrap().specs.remove(0)
}

/// Branch members and parallel members are indices into the one flat list, in written order;
/// labels inside blocks are found by references after them.
#[test]
fn blocks_lower_to_groups_over_the_flat_list() {
    let c = lower(
        "spec s {\n  call a\n  critical either {\n    h: call hold\n    call pay(id: h.output.id)\n  } or {\n    call direct\n    parallel {\n      call x\n      call y\n    }\n  }\n  id: critical at_least 1 call verify\n}\n",
    );
    let tools: Vec<&str> = c.expectations.iter().map(|e| e.tool.as_str()).collect();
    assert_eq!(tools, ["a", "hold", "pay", "direct", "x", "y", "verify"]);
    assert_eq!(c.groups.len(), 2);
    assert!(c.groups[0].critical);
    assert_eq!(
        c.groups[0].kind,
        GroupKind::Either {
            branches: vec![vec![1, 2], vec![3, 4, 5]]
        }
    );
    assert_eq!(
        c.groups[1].kind,
        GroupKind::Parallel {
            members: vec![4, 5]
        }
    );
    assert!(c.expectations[6].critical);
    assert_eq!(c.expectations[6].repeat.min, 1);
    assert_eq!(c.arrangements(), 3);
    let v = serde_json::to_value(&c.groups[1]).unwrap();
    assert_eq!(v["kind"], json!("parallel"));
    assert_eq!(v["members"], json!([4, 5]));
    assert!(v.get("critical").is_none(), "false is left out: {v}");
}

/// A spec without blocks serializes exactly as before: no `groups`, no `critical` keys.
#[test]
fn configs_without_blocks_have_no_new_keys() {
    let c = lower("spec s {\n  call a\n  call b\n}\n");
    let text = serde_json::to_string(&c).unwrap();
    assert!(
        !text.contains("groups") && !text.contains("critical"),
        "{text}"
    );
}

/// `fmt` puts blocks one statement per line, `} or {` between branches, `critical` after the
/// label; comments stay in their block; formatting twice changes nothing.
#[test]
fn fmt_prints_blocks_canonically() {
    let ugly = "spec s {\n  critical either {   # paths\n  call a\n  } or { call b\n  parallel { call c\n call d } }\n    lbl:   critical   optional call e\n  parallel {\n    # inside\n    call f\n  }\n}\n";
    let once = format(&SourceFile::new("a.toolspec", ugly)).unwrap();
    assert_eq!(
        once,
        "spec s {\n  critical either {  # paths\n    call a\n  } or {\n    call b\n    parallel {\n      call c\n      call d\n    }\n  }\n  lbl: critical optional call e\n  parallel {\n    # inside\n    call f\n  }\n}\n"
    );
    let twice = format(&SourceFile::new("a.toolspec", once.clone())).unwrap();
    assert_eq!(once, twice);
}

/// The block keywords stay usable as labels and tool names.
#[test]
fn block_keywords_are_still_names() {
    let c = lower("spec s {\n  parallel: call either\n  critical: call or\n  call critical\n}\n");
    let tools: Vec<&str> = c.expectations.iter().map(|e| e.tool.as_str()).collect();
    assert_eq!(tools, ["either", "or", "critical"]);
    assert_eq!(c.expectations[0].label.as_deref(), Some("parallel"));
    assert!(c.expectations.iter().all(|e| !e.critical));
}
