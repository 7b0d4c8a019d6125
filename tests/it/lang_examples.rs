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
    /// The spec of the file that names the transcript.
    name: &'static str,
    transcript: &'static str,
    passed: bool,
    codes: &'static [&'static str],
}

const CASES: &[Case] = &[
    // `answer contains REF`, `or` between constraints.
    Case {
        spec: "65_answers_and_alternatives.toolspec",
        name: "booking_confirmed",
        transcript: "runs/answers/quoted-openai.request.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "65_answers_and_alternatives.toolspec",
        name: "booking_confirmed",
        transcript: "runs/answers/quoted-anthropic.request.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "65_answers_and_alternatives.toolspec",
        name: "booking_confirmed",
        transcript: "runs/answers/misquoted-openai.request.json",
        passed: false,
        codes: &["answer-mismatch"],
    },
    Case {
        spec: "65_answers_and_alternatives.toolspec",
        name: "booking_confirmed",
        transcript: "runs/answers/bad-note-anthropic.request.json",
        passed: false,
        codes: &["name-only-match"],
    },
    // `never` and counts of `*` inside `agent` and `turn` blocks, `never * errored`.
    Case {
        spec: "66_scoped_rules.toolspec",
        name: "research_handoff",
        transcript: "runs/scoped/research-ok.claude-code.jsonl",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "66_scoped_rules.toolspec",
        name: "research_handoff",
        transcript: "runs/scoped/research-bad.claude-code.jsonl",
        passed: false,
        codes: &["forbidden-call", "count-out-of-range"],
    },
    Case {
        spec: "66_scoped_rules.toolspec",
        name: "research_handoff",
        transcript: "runs/scoped/research-ok.agents-state.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "66_scoped_rules.toolspec",
        name: "research_handoff",
        transcript: "runs/scoped/research-ok.adk-session.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "66_scoped_rules.toolspec",
        name: "research_handoff",
        transcript: "runs/scoped/research-too-many-pages.agents-state.json",
        passed: false,
        codes: &["count-out-of-range"],
    },
    Case {
        spec: "66_scoped_rules.toolspec",
        name: "refund_after_confirmation",
        transcript: "runs/scoped/refund-confirmed.openai.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "66_scoped_rules.toolspec",
        name: "refund_after_confirmation",
        transcript: "runs/scoped/refund-early.anthropic.json",
        passed: false,
        codes: &["forbidden-call", "missing-call"],
    },
    // `never` with a reference.
    Case {
        spec: "67_never_references.toolspec",
        name: "refund_within_eligibility",
        transcript: "runs/never-refs/within.openai.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "67_never_references.toolspec",
        name: "refund_within_eligibility",
        transcript: "runs/never-refs/within.anthropic.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "67_never_references.toolspec",
        name: "refund_within_eligibility",
        transcript: "runs/never-refs/over.anthropic.json",
        passed: false,
        codes: &["forbidden-call", "missing-call"],
    },
    // `after last TOOL { … }`, `after last LABEL { … }`, `total_calls`.
    Case {
        spec: "68_after_last_edit.toolspec",
        name: "tested_after_last_edit",
        transcript: "runs/after/tested.claude-code.jsonl",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "68_after_last_edit.toolspec",
        name: "tested_after_last_edit",
        transcript: "runs/after/tested.anthropic.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "68_after_last_edit.toolspec",
        name: "tested_after_last_edit",
        transcript: "runs/after/untested.claude-code.jsonl",
        passed: false,
        codes: &["missing-call", "count-out-of-range"],
    },
    Case {
        spec: "68_after_last_edit.toolspec",
        name: "tested_after_last_edit",
        transcript: "runs/after/untested.anthropic.json",
        passed: false,
        codes: &["missing-call", "count-out-of-range"],
    },
    Case {
        spec: "68_after_last_edit.toolspec",
        name: "no_edit_after_green",
        transcript: "runs/after/tested.claude-code.jsonl",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "68_after_last_edit.toolspec",
        name: "no_edit_after_green",
        transcript: "runs/after/untested.anthropic.json",
        passed: false,
        codes: &["forbidden-call"],
    },
    Case {
        spec: "68_after_last_edit.toolspec",
        name: "no_edit_after_green",
        transcript: "runs/after/untested.claude-code.jsonl",
        passed: false,
        codes: &["forbidden-call"],
    },
    Case {
        spec: "68_after_last_edit.toolspec",
        name: "edits_after_reading",
        transcript: "runs/after/untested.claude-code.jsonl",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "68_after_last_edit.toolspec",
        name: "edits_after_reading",
        transcript: "runs/after/tested.anthropic.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "68_after_last_edit.toolspec",
        name: "edits_after_reading",
        transcript: "runs/after/blind-edit.claude-code.jsonl",
        passed: false,
        codes: &["missing-call", "anchor-not-called", "forbidden-call"],
    },
    // `agent "NAME" runs`.
    Case {
        spec: "69_agent_runs.toolspec",
        name: "one_research_run",
        transcript: "runs/scoped/research-ok.claude-code.jsonl",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "69_agent_runs.toolspec",
        name: "one_research_run",
        transcript: "runs/scoped/research-ok.agents-state.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "69_agent_runs.toolspec",
        name: "one_research_run",
        transcript: "runs/scoped/research-ok.adk-session.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "69_agent_runs.toolspec",
        name: "one_research_run",
        transcript: "runs/scoped/research-twice.adk-session.json",
        passed: false,
        codes: &["count-out-of-range"],
    },
    Case {
        spec: "69_agent_runs.toolspec",
        name: "one_research_run",
        transcript: "runs/scoped/refund-early.anthropic.json",
        passed: false,
        codes: &["runs-not-recorded"],
    },
    // Constraints of a `tool` declaration in an included file.
    Case {
        spec: "70_declared_constraints.toolspec",
        name: "refund_with_declared_reason",
        transcript: "runs/declared/reason-given.openai.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "70_declared_constraints.toolspec",
        name: "refund_with_declared_reason",
        transcript: "runs/declared/reason-given.anthropic.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "70_declared_constraints.toolspec",
        name: "refund_with_declared_reason",
        transcript: "runs/declared/reason-a-number.openai.json",
        passed: false,
        codes: &["name-only-match"],
    },
    Case {
        spec: "70_declared_constraints.toolspec",
        name: "refund_with_declared_reason",
        transcript: "runs/declared/reason-missing.anthropic.json",
        passed: false,
        codes: &["name-only-match"],
    },
    // `SERVER::TOOL`: one MCP server's tool, whichever format records the server.
    Case {
        spec: "71_mcp_servers.toolspec",
        name: "github_issues_only",
        transcript: "runs/servers/github.codex.jsonl",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "71_mcp_servers.toolspec",
        name: "github_issues_only",
        transcript: "runs/servers/github.responses.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "71_mcp_servers.toolspec",
        name: "github_issues_only",
        transcript: "runs/servers/both.codex.jsonl",
        passed: false,
        codes: &["forbidden-call"],
    },
    Case {
        spec: "71_mcp_servers.toolspec",
        name: "github_issues_only",
        transcript: "runs/servers/jira.responses.json",
        passed: false,
        codes: &["missing-call"],
    },
    // The name alone: the tool of any server.
    Case {
        spec: "71_mcp_servers.toolspec",
        name: "one_search",
        transcript: "runs/servers/jira.responses.json",
        passed: true,
        codes: &[],
    },
    Case {
        spec: "71_mcp_servers.toolspec",
        name: "one_search",
        transcript: "runs/servers/both.codex.jsonl",
        passed: false,
        codes: &["too-many-calls"],
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
        let result = report
            .results
            .iter()
            .find(|r| r.spec == case.name)
            .unwrap_or_else(|| panic!("{}: no result of {}", case.transcript, case.name));
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

/// Each example spec is checked on transcripts of at least two formats, and has a passing and a
/// failing transcript.
#[test]
fn every_example_has_two_formats_and_both_verdicts() {
    use toolspec::transcript::Reader;
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    let mut specs_named: Vec<(&str, &str)> = CASES.iter().map(|c| (c.spec, c.name)).collect();
    specs_named.dedup();
    for (spec, name) in specs_named {
        let cases: Vec<&Case> = CASES
            .iter()
            .filter(|c| c.spec == spec && c.name == name)
            .collect();
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

/// A constraint that comes from a `tool` declaration is located at the declaration, in the
/// included file that declares it, on transcripts of both formats; the finding's related
/// location stays at the expectation, in the spec.
#[test]
fn declared_constraints_are_located_at_the_declaration() {
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    let settings = LoadedSettings::defaults(&specs);
    let spec = specs.join("70_declared_constraints.toolspec");
    let set = SpecSet::compile(&spec, None, &settings, &specs, false)
        .unwrap_or_else(|r| panic!("{:?}", r.errors));
    let shared = std::fs::read_to_string(specs.join("shared/support_tools.toolspec")).unwrap();
    let reason_line = shared
        .lines()
        .position(|l| l.trim_start().starts_with("reason: type string"))
        .unwrap()
        + 1;
    for (transcript, actual) in [
        (
            "runs/declared/reason-a-number.openai.json",
            Some(serde_json::json!(3)),
        ),
        ("runs/declared/reason-missing.anthropic.json", None),
    ] {
        let bytes = std::fs::read(specs.join(transcript)).unwrap();
        let report = set.check(Given::Bytes(&bytes), None);
        let result = &report.results[0];
        assert!(!result.passed, "{transcript}");
        let refund = result
            .expectations
            .iter()
            .find(|x| x.tool == "issue_refund")
            .unwrap();
        let failure = refund
            .failures
            .iter()
            .find(|f| f.path == "reason")
            .unwrap_or_else(|| panic!("{transcript}: {:?}", refund.failures));
        assert!(failure.declared, "{transcript}");
        assert_eq!(failure.actual, actual, "{transcript}");
        let at = failure.location.as_ref().unwrap();
        assert!(
            at.file.ends_with("shared/support_tools.toolspec"),
            "{transcript}: {at:?}"
        );
        assert_eq!(at.line, reason_line, "{transcript}");
        assert_eq!(
            &shared[at.span[0]..at.span[1]],
            "reason: type string",
            "{transcript}"
        );
        // The constraint the expectation writes is located in the spec, as before.
        let finding = result
            .findings
            .iter()
            .find(|f| f.code == "name-only-match")
            .unwrap();
        let related = finding.related.as_ref().unwrap();
        assert!(
            related.file.ends_with("70_declared_constraints.toolspec"),
            "{transcript}: {related:?}"
        );
        assert!(
            !refund.failures.iter().any(|f| !f.declared),
            "{transcript}: only declared constraints fail"
        );
    }
}
