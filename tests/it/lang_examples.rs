//! The bundled examples of the constructs that let a spec say what a run must not do within a
//! part of it, what must hold after a tool's last call, how many calls or sub-agent runs it may
//! take, and what its answer must quote (`specs/65_*.toolspec` onwards): each is checked end to
//! end on its transcripts, in at least two formats, through the same check as `toolspec check`,
//! and each verdict (passed or not, the finding codes that say why) is pinned here.

use std::path::Path;

use toolspec::check::run::{Given, SpecSet};
use toolspec::check::settings::LoadedSettings;

/// One transcript's expected verdict under one spec file: whether the pair passes, and codes
/// of findings that must be there (errors and warnings alike).
struct Case {
    spec: &'static str,
    transcript: &'static str,
    passed: bool,
    codes: &'static [&'static str],
}

const CASES: &[Case] = &[
    // `answer contains REF`, `or` between constraints.
    Case {
        spec: "65_answers_and_alternatives.toolspec",
        transcript: "runs/answers/quoted-openai.request.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "65_answers_and_alternatives.toolspec",
        transcript: "runs/answers/quoted-anthropic.request.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "65_answers_and_alternatives.toolspec",
        transcript: "runs/answers/misquoted-openai.request.json",
        passed: false,
        codes: &["answer-mismatch"],
    },
    Case {
        spec: "65_answers_and_alternatives.toolspec",
        transcript: "runs/answers/bad-note-anthropic.request.json",
        passed: false,
        codes: &["name-only-match"],
    },
];

/// Every case, checked as `toolspec check SPEC TRANSCRIPT` checks it.
#[test]
fn the_examples_check_as_pinned() {
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    let settings = LoadedSettings::defaults(&specs);
    let mut wrong = Vec::new();
    for case in CASES {
        let set = SpecSet::compile(&specs.join(case.spec), None, &settings, &specs, false)
            .unwrap_or_else(|r| panic!("{}: {:?}", case.spec, r.errors));
        let bytes = std::fs::read(specs.join(case.transcript)).unwrap();
        let report = set.check(Given::Bytes(&bytes), None);
        assert!(
            report.errors.is_empty(),
            "{}: {:?}",
            case.transcript,
            report.errors
        );
        let [result] = report.results.as_slice() else {
            panic!("{}: {} results", case.transcript, report.results.len());
        };
        let codes: Vec<&str> = result.findings.iter().map(|f| f.code.as_str()).collect();
        if result.passed != case.passed || case.codes.iter().any(|c| !codes.contains(c)) {
            wrong.push(format!(
                "{} on {}: passed {} (expected {}), codes {codes:?} (expected {:?})",
                case.spec, case.transcript, result.passed, case.passed, case.codes
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Each example spec is checked on transcripts of at least two formats, and each has a passing
/// and a failing transcript.
#[test]
fn every_example_has_two_formats_and_both_verdicts() {
    use toolspec::transcript::Reader;
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    let mut files: Vec<&str> = CASES.iter().map(|c| c.spec).collect();
    files.dedup();
    for spec in files {
        let cases: Vec<&Case> = CASES.iter().filter(|c| c.spec == spec).collect();
        let mut formats: Vec<&str> = cases
            .iter()
            .map(|c| {
                let bytes = std::fs::read(specs.join(c.transcript)).unwrap();
                let t = Reader::new().read(c.transcript, &bytes).unwrap();
                t[0].format.name()
            })
            .collect();
        formats.sort_unstable();
        formats.dedup();
        assert!(formats.len() >= 2, "{spec}: formats {formats:?}");
        assert!(
            cases.iter().any(|c| c.passed) && cases.iter().any(|c| !c.passed),
            "{spec}"
        );
    }
}
