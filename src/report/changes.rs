//! What changed between two runs of the same check (`watch`): errors that appeared or went
//! away first, then the pairs whose verdict or score changed, appeared or went away
//! (`refund_flow  runs/a.json  FAIL → PASS`).
//!
//! Input: a [`Snapshot`] of each run (the verdict and score of every pair, the errors). Output:
//! the lines to print (data escaped). Cannot fail.

use std::collections::{BTreeMap, BTreeSet};

use super::brief;
use super::model::{Report, Severity};
use crate::text::escape;

/// Lines listed at most; the rest are counted.
pub const MAX_LINES: usize = 20;

/// A pair: spec file, spec, transcript, record.
type PairKey = (String, String, String, Option<usize>);

/// What a later run is compared with: each pair's verdict and score, and the errors.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    /// (spec file, spec, transcript, record) → (passed, score).
    pairs: BTreeMap<PairKey, (bool, f64)>,
    /// Each error and warning of the run as it is shown: its severity, code, place, message.
    errors: BTreeSet<(Severity, String, String, String)>,
    /// (spec file, spec) → (rate met, passed, total), for each spec with a `pass_rate`.
    rates: BTreeMap<(String, String), (bool, usize, usize)>,
}

impl Snapshot {
    /// The snapshot of a run.
    pub fn of(report: &Report) -> Snapshot {
        Snapshot {
            pairs: report
                .results
                .iter()
                .map(|r| {
                    (
                        (
                            r.spec_file.clone(),
                            r.spec.clone(),
                            r.transcript.clone(),
                            r.record,
                        ),
                        (r.passed, r.score),
                    )
                })
                .collect(),
            errors: report
                .errors
                .iter()
                .chain(&report.warnings)
                .map(|f| {
                    (
                        f.severity,
                        f.code.clone(),
                        f.location
                            .as_ref()
                            .map(brief::place_col)
                            .unwrap_or_default(),
                        f.message.clone(),
                    )
                })
                .collect(),
            rates: report
                .rates
                .iter()
                .map(|r| {
                    (
                        (r.spec_file.clone(), r.spec.clone()),
                        (r.met, r.passed, r.total),
                    )
                })
                .collect(),
        }
    }

    /// What changed since `before`, a line each: errors, then warnings, that appeared or went
    /// away, then pairs; empty when nothing did.
    ///
    /// ```text
    ///   error  bad.toolspec:4:3  unknown-keyword  new
    ///   refund_flow  runs/a.json    FAIL → PASS
    ///   refund_flow  runs/b.json    FAIL 0.50 → 0.75
    ///   research     runs/new.json  new: PASS
    /// ```
    pub fn changes_since(&self, before: &Snapshot) -> Vec<String> {
        let mut lines = Vec::new();
        let line = |sev: &Severity, code: &str, at: &str, what: &str| {
            let at = if at.is_empty() {
                String::new()
            } else {
                format!("{}  ", escape(at))
            };
            format!("{}  {at}{}  {what}", sev.name(), escape(code))
        };
        let mut run: Vec<(Severity, String)> = Vec::new();
        for (sev, code, at, _) in self.errors.difference(&before.errors) {
            run.push((*sev, line(sev, code, at, "new")));
        }
        for (sev, code, at, _) in before.errors.difference(&self.errors) {
            run.push((*sev, line(sev, code, at, "gone")));
        }
        // Errors first, then warnings (each new before gone).
        run.sort_by_key(|(sev, _)| *sev);
        lines.extend(run.into_iter().map(|(_, line)| line));
        let word = |passed: bool| if passed { "PASS" } else { "FAIL" };
        let mut pairs: Vec<(String, String, String)> = Vec::new();
        let keys: BTreeSet<_> = self.pairs.keys().chain(before.pairs.keys()).collect();
        for key in keys {
            let (_, spec, transcript, record) = key;
            let change = match (before.pairs.get(key), self.pairs.get(key)) {
                (Some(&(was, _)), Some(&(now, _))) if was != now => {
                    format!("{} → {}", word(was), word(now))
                }
                (Some(&(was, a)), Some(&(_, b))) if (a - b).abs() > 1e-9 => {
                    format!("{} {a:.2} → {b:.2}", word(was))
                }
                (None, Some(&(now, _))) => format!("new: {}", word(now)),
                (Some(_), None) => "gone".to_owned(),
                _ => continue,
            };
            let target = match record {
                Some(line) => format!("{}:{line}", escape(transcript)),
                None => escape(transcript).into_owned(),
            };
            pairs.push((escape(spec).into_owned(), target, change));
        }
        // A spec's pass rate that changed: `booking  pass_rate  FAIL → PASS (19/20)`.
        let keys: BTreeSet<_> = self.rates.keys().chain(before.rates.keys()).collect();
        for key in keys {
            let change = match (before.rates.get(key), self.rates.get(key)) {
                (Some(&(was, a, n)), Some(&(now, b, m))) if was != now || (a, n) != (b, m) => {
                    format!("{} {a}/{n} → {} {b}/{m}", word(was), word(now))
                }
                (None, Some(&(now, b, m))) => format!("new: {} {b}/{m}", word(now)),
                (Some(_), None) => "gone".to_owned(),
                _ => continue,
            };
            pairs.push((escape(&key.1).into_owned(), "pass_rate".to_owned(), change));
        }
        let spec_w = pairs.iter().map(|p| p.0.chars().count()).max().unwrap_or(0);
        let target_w = pairs.iter().map(|p| p.1.chars().count()).max().unwrap_or(0);
        for (spec, target, change) in pairs {
            let pad_s = spec_w - spec.chars().count();
            let pad_t = target_w - target.chars().count();
            lines.push(format!(
                "{spec}{:pad_s$}  {target}{:pad_t$}  {change}",
                "", ""
            ));
        }
        if lines.len() > MAX_LINES {
            let more = lines.len() - MAX_LINES;
            lines.truncate(MAX_LINES);
            lines.push(format!("… and {more} more"));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{Finding, Location, PairResult};

    fn pair(spec: &str, transcript: &str, passed: bool, score: f64) -> PairResult {
        PairResult {
            spec_file: "s.toolspec".into(),
            spec: spec.into(),
            transcript: transcript.into(),
            record: None,
            format: "openai-chat".into(),
            profile: None,
            score,
            threshold: 1.0,
            passed,
            failure: None,
            calls: 0,
            counts: serde_json::Value::Null,
            expectations: Vec::new(),
            rules: Vec::new(),
            findings: Vec::new(),
            profile_details: None,
            pass_rate: None,
            partial: None,
        }
    }

    fn error(code: &str) -> Finding {
        Finding {
            code: code.into(),
            severity: Severity::Error,
            message: "m".into(),
            help: None,
            location: Some(Location {
                file: "bad.toolspec".into(),
                line: 4,
                column: 3,
                end_line: 4,
                end_column: 8,
                span: [0, 1],
            }),
            label: None,
            related: None,
            expectation: None,
            call: None,
            unverified: false,
        }
    }

    /// Errors first, then each pair whose verdict or score changed, appeared or went away.
    #[test]
    fn changes_list_errors_first_then_pairs() {
        let before = Report {
            results: vec![
                pair("refund_flow", "runs/a.json", false, 0.75),
                pair("refund_flow", "runs/b.json", false, 0.5),
                pair("refund_flow", "runs/c.json", true, 1.0),
                pair("research", "runs/old.json", true, 1.0),
            ],
            errors: vec![error("toolspec::gone-one")],
            ..Report::default()
        };
        let after = Report {
            results: vec![
                pair("refund_flow", "runs/a.json", true, 1.0),
                pair("refund_flow", "runs/b.json", false, 0.75),
                pair("refund_flow", "runs/c.json", true, 1.0),
                pair("research", "runs/new.json", false, 0.0),
            ],
            errors: vec![error("toolspec::unknown-keyword")],
            ..Report::default()
        };
        let lines = Snapshot::of(&after).changes_since(&Snapshot::of(&before));
        assert_eq!(
            lines,
            [
                "error  bad.toolspec:4:3  toolspec::unknown-keyword  new",
                "error  bad.toolspec:4:3  toolspec::gone-one  gone",
                "refund_flow  runs/a.json    FAIL → PASS",
                "refund_flow  runs/b.json    FAIL 0.50 → 0.75",
                "research     runs/new.json  new: FAIL",
                "research     runs/old.json  gone",
            ]
        );
        assert!(Snapshot::of(&after)
            .changes_since(&Snapshot::of(&after))
            .is_empty());
    }

    /// A spec's pass rate that changed is a line of its own, with its counts.
    #[test]
    fn a_changed_pass_rate_is_listed() {
        let rate = |passed: usize, met: bool| crate::report::model::RateResult {
            spec_file: "b.toolspec".into(),
            spec: "booking".into(),
            required: 0.9,
            passed,
            total: 20,
            unread: 0,
            rate: Some(0.05 * passed as f64),
            met,
            location: None,
        };
        let before = Report {
            rates: vec![rate(17, false)],
            ..Report::default()
        };
        let after = Report {
            rates: vec![rate(19, true)],
            ..Report::default()
        };
        let lines = Snapshot::of(&after).changes_since(&Snapshot::of(&before));
        assert_eq!(lines, ["booking  pass_rate  FAIL 17/20 → PASS 19/20"]);
        assert!(Snapshot::of(&after)
            .changes_since(&Snapshot::of(&after))
            .is_empty());
    }
}
