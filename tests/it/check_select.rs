//! `SpecSet::select`: which specs of a file check a transcript given to the library, chosen as
//! `toolspec check PATH` chooses them. A path goes to the specs whose globs name it (the
//! bundled coding file's Claude Code run is not checked against its sibling Codex spec, which
//! would score it 0.0); bytes, a document or a path no glob names go to the file's one spec,
//! and a file of several specs then needs a name, the error naming them; a name always wins.

use std::path::{Path, PathBuf};

use toolspec::check::run::{Given, SpecSet, Unselected};
use toolspec::check::settings::LoadedSettings;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn coding() -> SpecSet {
    let root = root();
    let settings = LoadedSettings::defaults(&root);
    let spec = root.join("examples/prompts/coding.toolspec");
    SpecSet::compile(&spec, None, &settings, &root, false).unwrap()
}

/// The reproduction: checked by path, the Claude Code run meets its spec, and only its spec is
/// checked and counted.
#[test]
fn a_path_is_checked_against_the_specs_whose_globs_name_it() {
    let set = coding();
    let run = root().join("examples/runs/coding/claude-code-session.jsonl");
    let selection = set.select(Given::Path(&run), None).unwrap();
    let report = set.check_selected(&selection, Given::Path(&run), None);
    let specs: Vec<&str> = report.results.iter().map(|r| r.spec.as_str()).collect();
    assert_eq!(specs, ["claude_code_fix"]);
    assert!(report.results[0].passed);
    assert_eq!(report.exit_status(), 0);
    assert_eq!(report.summary.specs, 1);
    // Every spec of the file, as `--spec FILE` checks it, fails on the sibling.
    let all = set.check(Given::Path(&run), None);
    assert_eq!(all.exit_status(), 1);
}

#[test]
fn bytes_need_a_name_when_the_file_holds_several_specs() {
    let set = coding();
    let bytes = std::fs::read(root().join("examples/runs/coding/codex-rollout.jsonl")).unwrap();
    let err = set.select(Given::Bytes(&bytes), None).unwrap_err();
    assert!(matches!(err, Unselected::Ambiguous { path: None, .. }));
    let text = err.to_string();
    assert!(
        text.contains("`claude_code_fix`, `codex_fix`") && text.contains("name the spec"),
        "{text}"
    );
    let named = set.select(Given::Bytes(&bytes), Some("codex_fix")).unwrap();
    let report = set.check_selected(&named, Given::Bytes(&bytes), None);
    assert_eq!(report.results.len(), 1);
    assert!(report.results[0].passed);
}

#[test]
fn a_path_no_glob_names_is_like_bytes_and_a_name_overrides_the_globs() {
    let set = coding();
    let other = root().join("examples/runs/refund/2025-06-03-openai.request.json");
    let err = set.select(Given::Path(&other), None).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("none of their `transcripts` globs names")
            && text.contains("2025-06-03-openai.request.json"),
        "{text}"
    );
    // A name picks its spec even for a run its globs do not name.
    let claude = root().join("examples/runs/coding/claude-code-session.jsonl");
    let codex = set.select(Given::Path(&claude), Some("codex_fix")).unwrap();
    let report = set.check_selected(&codex, Given::Path(&claude), None);
    assert_eq!(report.results.len(), 1);
    assert_eq!(report.results[0].spec, "codex_fix");
    assert!(!report.results[0].passed);
    let unknown = set.select(Given::Path(&claude), Some("codex")).unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "examples/prompts/coding.toolspec has no spec named `codex`; its specs: `claude_code_fix`, `codex_fix`"
    );
}

#[test]
fn a_file_of_one_spec_checks_whatever_it_is_given() {
    let root = root();
    let settings = LoadedSettings::defaults(&root);
    let spec = root.join("examples/prompts/refund.toolspec");
    let set = SpecSet::compile(&spec, None, &settings, &root, false).unwrap();
    let bytes =
        std::fs::read(root.join("examples/runs/refund/2025-06-03-openai.request.json")).unwrap();
    assert_eq!(set.select(Given::Bytes(&bytes), None).unwrap(), set.all());
    let elsewhere = root.join("examples/runs/coding/codex-rollout.jsonl");
    assert_eq!(
        set.select(Given::Path(&elsewhere), None).unwrap(),
        set.all()
    );
}
