//! `SpecSet::check_with` into `report::stream::Verdicts` (what `toolspec.Spec(...).check(...)
//! .passed` runs: no result or finding built) gives the counts, errors and warnings of the full
//! check (`SpecSet::check`, collecting every result) on the same bytes: for the bundled
//! examples, passing and failing, under a peer's profile, and with a denied rule's finding
//! that fails a pair whose score passes.

use std::path::{Path, PathBuf};

use toolspec::check::run::{Given, SpecSet};
use toolspec::check::settings::LoadedSettings;
use toolspec::report::stream::Verdicts;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn same_verdict(spec: &Path, text: Option<&str>, transcript: &Path) -> bool {
    let root = root();
    let settings = LoadedSettings::defaults(&root);
    let set = SpecSet::compile(spec, text.map(str::to_owned), &settings, &root, false)
        .unwrap_or_else(|r| panic!("{}: {:?}", spec.display(), r.errors));
    let bytes = std::fs::read(transcript).unwrap();
    let full = set.check(Given::Bytes(&bytes), None);
    let quick = set.check_with(Given::Bytes(&bytes), None, &Verdicts);
    assert_eq!(quick.pairs.len(), full.results.len());
    // The full report without its results is the report of the verdicts.
    let mut head = full.clone();
    head.results = Vec::new();
    assert_eq!(quick.report, head, "{}", transcript.display());
    assert!(!full.results.is_empty());
    full.errors.is_empty() && full.results.iter().all(|r| r.passed)
}

#[test]
fn the_verdicts_alone_are_those_of_the_full_check() {
    let root = root();
    let mut outcomes = Vec::new();
    for (spec, runs) in [
        ("refund", "refund"),
        ("research", "research"),
        ("coding", "coding"),
    ] {
        let spec = root.join(format!("examples/prompts/{spec}.toolspec"));
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("examples/runs").join(runs))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            outcomes.push(same_verdict(&spec, None, &f));
        }
    }
    // Both verdicts occur among the examples.
    assert!(outcomes.contains(&true) && outcomes.contains(&false));
    // A denied rule's finding fails a pair whose expectations all pass.
    let denied = "spec denied {\n  rules deny missing-result\n  optional call lookup_customer\n}\n";
    let run = root.join("examples/runs/refund/2025-06-03-openai.request.json");
    let spec = root.join("examples/prompts/denied.toolspec");
    // `c1` never gets a result, although the later call does: a `missing-result` finding.
    let bytes = br#"[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup_customer","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"get_order","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c2","content":"ok"}]"#;
    let dir = tempfile::tempdir().unwrap();
    let lone = dir.path().join("lone.json");
    std::fs::write(&lone, bytes).unwrap();
    assert!(same_verdict(&spec, Some(denied), &run));
    assert!(!same_verdict(&spec, Some(denied), &lone));
}
