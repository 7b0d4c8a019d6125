//! `pass_rate >= r`: a spec judged over its transcripts.
//!
//! - The rate is met exactly when `passed / total ≥ r` (compared as counts, so 7 of 10 meet 0.7)
//!   and at least one transcript was judged.
//! - On a project of `n` recorded runs (OpenAI chat and Anthropic messages, alternating) of
//!   which `k` fail, the report holds the rate, every failing run is listed with warnings only,
//!   and the exit status follows the rate alone, the same whether the results are collected or
//!   streamed into an output format.

use std::path::Path;

use proptest::prelude::*;
use toolspec::check::run::{check, check_with, CheckOptions};
use toolspec::check::settings::LoadedSettings;
use toolspec::config::PassRate;
use toolspec::report::json::JsonEmitter;
use toolspec::report::model::Severity;
use toolspec::report::stream::Streamer;
use toolspec::source::Span;

fn rate(milli: u32) -> PassRate {
    PassRate {
        min: f64::from(milli) / 1000.0,
        span: Span::default(),
    }
}

proptest! {
    /// `met` is the exact comparison of counts, whatever the rounding of `r × total`.
    #[test]
    fn the_rate_is_met_exactly_when_the_counts_say_so(
        milli in 0u32..=1000,
        total in 0usize..2000,
        share in 0.0f64..=1.0,
    ) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let passed = ((total as f64) * share).floor() as usize;
        let exact = total > 0 && 1000 * passed >= milli as usize * total;
        prop_assert_eq!(rate(milli).met(passed, total), exact);
    }
}

/// A run of the booking agent: good, or searching from the wrong airport.
fn run(good: bool, anthropic: bool) -> String {
    let origin = if good { "SFO" } else { "OAK" };
    if anthropic {
        format!(
            r#"{{"model": "claude-sonnet-4-5", "max_tokens": 512, "messages": [
  {{"role": "user", "content": "Book SFO to NRT."}},
  {{"role": "assistant", "content": [{{"type": "tool_use", "id": "toolu_1", "name": "search_flights", "input": {{"origin": "{origin}"}}}}]}},
  {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}}]}}
]}}
"#
        )
    } else {
        format!(
            r#"{{"model": "gpt-4o", "messages": [
  {{"role": "user", "content": "Book SFO to NRT."}},
  {{"role": "assistant", "content": null, "tool_calls": [{{"id": "call_1", "type": "function", "function": {{"name": "search_flights", "arguments": "{{\"origin\": \"{origin}\"}}"}}}}]}},
  {{"role": "tool", "tool_call_id": "call_1", "content": "ok"}}
]}}
"#
        )
    }
}

/// A project of `n` runs, the first `k` failing, checked by a spec with `pass_rate >= r`.
fn project(n: usize, k: usize, r: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("toolspec.toml"), "").unwrap();
    std::fs::write(
        p.join("booking.toolspec"),
        format!(
            "spec booking {{\n  transcripts \"runs/*.json\"\n  pass_rate >= {r}\n  call search_flights(origin: \"SFO\")\n}}\n"
        ),
    )
    .unwrap();
    std::fs::create_dir(p.join("runs")).unwrap();
    for i in 0..n {
        std::fs::write(p.join(format!("runs/{i:03}.json")), run(i >= k, i % 2 == 1)).unwrap();
    }
    dir
}

fn check_project(dir: &Path) -> (toolspec::report::Report, u8) {
    let settings = LoadedSettings::discover(dir).unwrap();
    let report = check(&CheckOptions::default(), &settings, dir);
    let streamed = check_with(
        &CheckOptions::default(),
        &settings,
        dir,
        &Streamer::new(JsonEmitter),
    );
    // One path: the collected report and the streamed check decide the same status.
    assert_eq!(report.exit_status(), streamed.exit_status());
    assert_eq!(report.summary, streamed.report.summary);
    // The verdicts a test runner makes its items of (the pytest plugin): one per result of a
    // spec without a rate, one per rate over all its results; one fails exactly when the run
    // does.
    let verdicts = toolspec::check::verdicts::verdicts(&report);
    assert_eq!(
        verdicts.iter().any(|v| !v.passed(&report)),
        report.summary.fails()
    );
    let covered: usize = verdicts
        .iter()
        .map(|v| match v {
            toolspec::check::verdicts::Verdict::Pair { .. } => 1,
            toolspec::check::verdicts::Verdict::Rate { results, .. } => results.len(),
        })
        .sum();
    assert_eq!(covered, report.results.len());
    assert_eq!(
        verdicts
            .iter()
            .filter(|v| matches!(v, toolspec::check::verdicts::Verdict::Rate { .. }))
            .count(),
        report.rates.len()
    );
    let status = report.exit_status();
    (report, status)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// The exit status follows the rate; every failing run is listed, with warnings only.
    #[test]
    fn the_exit_status_follows_the_rate(n in 1usize..12, fail in 0.0f64..=1.0, milli in 0u32..=1000) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let k = ((n as f64) * fail).round() as usize;
        let r = f64::from(milli) / 1000.0;
        let dir = project(n, k, &r.to_string());
        let (report, status) = check_project(dir.path());
        prop_assert!(report.errors.is_empty(), "{:?}", report.errors);
        prop_assert_eq!(report.rates.len(), 1);
        let rate = &report.rates[0];
        prop_assert_eq!((rate.passed, rate.total, rate.unread), (n - k, n, 0));
        let met = 1000 * (n - k) >= milli as usize * n;
        prop_assert_eq!(rate.met, met);
        prop_assert_eq!(status, u8::from(!met));
        let failing: Vec<_> = report.results.iter().filter(|r| !r.passed).collect();
        prop_assert_eq!(failing.len(), k);
        for f in failing {
            prop_assert_eq!(f.pass_rate, Some(r));
            prop_assert!(!f.findings.is_empty());
            prop_assert!(f.findings.iter().all(|x| x.severity != Severity::Error));
        }
        prop_assert_eq!(report.summary.failed_within_rate, k);
    }
}

/// Without `pass_rate` the same runs fail the check on the first failing run: the rate changes
/// nothing else.
#[test]
fn without_a_rate_one_failing_run_fails_the_check() {
    let dir = project(4, 1, "0.5");
    let text = std::fs::read_to_string(dir.path().join("booking.toolspec")).unwrap();
    std::fs::write(
        dir.path().join("booking.toolspec"),
        text.replace("  pass_rate >= 0.5\n", ""),
    )
    .unwrap();
    let (report, status) = check_project(dir.path());
    assert_eq!(status, 1);
    assert!(report.rates.is_empty());
    assert_eq!(report.summary.failed_within_rate, 0);
    let failing = report.results.iter().find(|r| !r.passed).unwrap();
    assert_eq!(failing.pass_rate, None);
    assert!(failing
        .findings
        .iter()
        .any(|x| x.severity == Severity::Error));
}

/// Through `SpecSet` (what `--spec FILE TRANSCRIPT` and the Python API use), the rate is over the
/// one transcript checked.
#[test]
fn a_spec_set_judges_the_rate_over_the_transcript_given() {
    let dir = project(0, 0, "0.5");
    let settings = LoadedSettings::discover(dir.path()).unwrap();
    let set = toolspec::check::run::SpecSet::compile(
        &dir.path().join("booking.toolspec"),
        None,
        &settings,
        dir.path(),
        false,
    )
    .unwrap();
    for (good, status) in [(true, 0), (false, 1)] {
        let text = run(good, false);
        let report = set.check(toolspec::check::run::Given::Bytes(text.as_bytes()), None);
        assert_eq!(report.rates.len(), 1);
        assert_eq!(report.rates[0].total, 1);
        assert_eq!(report.rates[0].met, good);
        assert_eq!(report.exit_status(), status);
    }
}
