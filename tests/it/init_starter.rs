//! `toolspec init --transcript`: the starter spec inferred from a transcript compiles without a
//! diagnostic and passes (score 1) against that transcript, for every transcript of every format
//! in the repository (`examples/runs/`, `tests/fixtures/formats/transcripts/`, the `init`
//! goldens' transcripts); across them it uses references, `tool` declarations and id regexes.

use std::path::Path;

use toolspec::check::starter::starter_spec;
use toolspec::compile::{compile, FsLoader};
use toolspec::source::SourceFile;
use toolspec::transcript::Reader;

#[test]
fn every_starter_spec_compiles_and_passes_on_its_transcript() {
    let mut paths = super::tree::files(Path::new("examples/runs"));
    paths.extend(super::tree::files(Path::new(
        "tests/fixtures/formats/transcripts",
    )));
    // The `init` goldens' transcripts: ids and declared tools.
    paths.extend(super::tree::files(Path::new(
        "tests/cmd/init_from_transcript.in/prompts",
    )));
    paths.extend(super::tree::files(Path::new(
        "tests/cmd/init_from_anthropic.in/prompts",
    )));
    let (mut checked, mut with_refs, mut with_tools, mut with_regex) = (0, 0, 0, 0);
    let mut formats = std::collections::BTreeSet::new();
    let mut problems = Vec::new();
    for path in &paths {
        let Ok(transcripts) = Reader::new().read_file(path) else {
            continue;
        };
        let Some(t) = transcripts.first() else {
            continue;
        };
        if t.calls.is_empty() {
            continue;
        }
        let text = starter_spec(t, "starter", "run.json");
        let name = format!("{}.toolspec", path.display());
        let formatted = toolspec::syntax::format(&SourceFile::new(name.clone(), text.clone()))
            .unwrap_or_else(|d| panic!("{name}: {d:?}\n{text}"));
        let compiled = compile(
            &SourceFile::new(name.clone(), formatted.clone()),
            &FsLoader::new(toolspec::guard::RootGuard::anywhere()),
        );
        if !compiled.diagnostics.is_empty() {
            problems.push(format!("{name}: {:?}\n{formatted}", compiled.diagnostics));
            continue;
        }
        let config = &compiled.file.unwrap().specs[0];
        let verdict = toolspec::engine::run(config, &t.calls);
        if !verdict.passed || verdict.score != 1.0 {
            problems.push(format!("{name}: {verdict:#?}\n{formatted}"));
            continue;
        }
        checked += 1;
        formats.insert(t.format);
        with_refs += usize::from(formatted.contains(".output.") || formatted.contains(".args."));
        with_tools += usize::from(formatted.starts_with("tool ") || formatted.contains("\ntool "));
        with_regex += usize::from(formatted.contains(": /^"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    assert!(
        formats.len() >= 10,
        "only {} formats: {formats:?}",
        formats.len()
    );
    assert!(checked >= 15, "only {checked} transcripts");
    assert!(with_refs >= 5, "references in only {with_refs} starters");
    assert!(
        with_tools >= 3,
        "tool declarations in only {with_tools} starters"
    );
    assert!(with_regex >= 1, "id regexes in only {with_regex} starters");
}
