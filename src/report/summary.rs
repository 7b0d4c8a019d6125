//! Summaries of a run per spec: how many pairs passed (`passed/total` and %), the mean score,
//! and the expectations and `never` rules that fail most, with counts.
//!
//! Input: a [`Digest`] of each result (what a summary needs of it: a few words, kept by the
//! emitters that summarise as their per-result meta, so a run of 100 000 transcripts keeps no
//! result). Output: [`SpecSummary`] rows, in spec order, and their text table ([`table`]).
//! Cannot fail.

use std::collections::BTreeMap;

use super::brief;
use super::model::{percent, PairResult, RateResult};
use crate::text::escape;

/// How many of a spec's most failed expectations a summary names.
pub const MOST_FAILED: usize = 3;

/// What a summary needs of one result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Digest {
    /// The spec, as `spec_file::spec` (escaped).
    pub spec: String,
    /// Whether the pair passed.
    pub passed: bool,
    /// Its score.
    pub score: f64,
    /// Of a failed pair, the expectations and `never` rules it failed, as the reports name them
    /// (`#3 check_refund_eligibility (eligibility)`, `never close_account`; escaped). None for a
    /// pair that passed: what it left unmet (a second call of a plain `call` where extra calls
    /// are allowed, a miss below a lenient threshold) did not fail it.
    pub failed: Vec<String>,
}

impl Digest {
    /// The digest of a result.
    pub fn of(r: &PairResult) -> Digest {
        if r.passed {
            return Digest {
                spec: spec_name(&r.spec_file, &r.spec),
                passed: true,
                score: r.score,
                failed: Vec::new(),
            };
        }
        let mut failed: Vec<String> = r
            .expectations
            .iter()
            .filter(|x| !x.passed)
            .filter_map(|x| brief::expectation(r, x.index))
            .collect();
        failed.extend(
            r.rules
                .iter()
                .filter(|rule| !rule.passed)
                .map(|rule| format!("never {}", escape(&rule.tool))),
        );
        Digest {
            spec: spec_name(&r.spec_file, &r.spec),
            passed: r.passed,
            score: r.score,
            failed,
        }
    }
}

/// A spec as a summary names it, `spec_file::spec` (escaped); the built-in rules alone, which
/// have no spec file ([`PairResult::is_rules_only`]), as `rules`, as their pairs' lines say.
fn spec_name(spec_file: &str, spec: &str) -> String {
    if spec_file.is_empty() {
        escape(spec).into_owned()
    } else {
        format!("{}::{}", escape(spec_file), escape(spec))
    }
}

/// One spec's row.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecSummary {
    /// `spec_file::spec` (escaped).
    pub spec: String,
    /// Pairs that passed.
    pub passed: usize,
    /// Pairs checked.
    pub total: usize,
    /// Mean score over its pairs.
    pub mean_score: f64,
    /// Expectations and rules by how many pairs they failed, most first (ties in name order),
    /// at most [`MOST_FAILED`].
    pub most_failed: Vec<(String, usize)>,
    /// For a spec with a `pass_rate`: its rate ([`with_rates`]), which counts the transcripts
    /// that could not be read too.
    pub pass_rate: Option<RateResult>,
}

/// The rows with each spec's `pass_rate` verdict, if it has one.
pub fn with_rates(mut rows: Vec<SpecSummary>, rates: &[RateResult]) -> Vec<SpecSummary> {
    for row in &mut rows {
        row.pass_rate = rates
            .iter()
            .find(|r| spec_name(&r.spec_file, &r.spec) == row.spec)
            .cloned();
    }
    rows
}

impl SpecSummary {
    /// The pass rate in percent.
    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            #[allow(clippy::cast_precision_loss)] // counts far below 2^52
            {
                100.0 * self.passed as f64 / self.total as f64
            }
        }
    }
}

/// The rows of a run's summary, one per spec, in spec order.
pub fn summarize<'a>(digests: impl IntoIterator<Item = &'a Digest>) -> Vec<SpecSummary> {
    struct Acc<'a> {
        passed: usize,
        total: usize,
        score: f64,
        failed: BTreeMap<&'a str, usize>,
    }
    let mut specs: BTreeMap<&str, Acc<'_>> = BTreeMap::new();
    for d in digests {
        let acc = specs.entry(d.spec.as_str()).or_insert_with(|| Acc {
            passed: 0,
            total: 0,
            score: 0.0,
            failed: BTreeMap::new(),
        });
        acc.total += 1;
        acc.passed += usize::from(d.passed);
        acc.score += d.score;
        for name in &d.failed {
            *acc.failed.entry(name.as_str()).or_default() += 1;
        }
    }
    specs
        .into_iter()
        .map(|(spec, acc)| {
            let mut most: Vec<(String, usize)> = acc
                .failed
                .into_iter()
                .map(|(name, n)| (name.to_owned(), n))
                .collect();
            // Stable: names in order among equal counts.
            most.sort_by_key(|m| std::cmp::Reverse(m.1));
            most.truncate(MOST_FAILED);
            #[allow(clippy::cast_precision_loss)] // counts far below 2^52
            let mean_score = acc.score / acc.total.max(1) as f64;
            SpecSummary {
                spec: spec.to_owned(),
                passed: acc.passed,
                total: acc.total,
                mean_score,
                most_failed: most,
                pass_rate: None,
            }
        })
        .collect()
}

/// The summary as a text table: a header, a row per spec (`passed/total`, rate, mean score),
/// and under a spec with failures the expectations that fail most.
///
/// ```text
/// spec                                  passed    rate  mean score
/// prompts/refund.toolspec::refund_flow     4/5   80.0%        0.95
///   most often not met: #3 check_refund_eligibility (eligibility) 1×, #4 issue_refund (refund) 1×
/// ```
pub fn table(rows: &[SpecSummary]) -> String {
    let spec_w = rows
        .iter()
        .map(|r| r.spec.chars().count())
        .chain(["spec".len()])
        .max()
        .unwrap_or(4);
    let counts: Vec<String> = rows
        .iter()
        .map(|r| format!("{}/{}", r.passed, r.total))
        .collect();
    let count_w = counts
        .iter()
        .map(String::len)
        .chain(["passed".len()])
        .max()
        .unwrap_or(6);
    // A column for the specs with a `pass_rate`, when there is one.
    let rated = rows.iter().any(|r| r.pass_rate.is_some());
    let mut out = format!(
        "{:<spec_w$}  {:>count_w$}  {:>6}  {:>10}{}\n",
        "spec",
        "passed",
        "rate",
        "mean score",
        if rated { "  pass_rate" } else { "" }
    );
    for (r, count) in rows.iter().zip(&counts) {
        let pad = spec_w - r.spec.chars().count();
        let verdict = match &r.pass_rate {
            Some(p) => format!(
                "  {} {} {}",
                if p.met { "≥" } else { "<" },
                percent(p.required),
                if p.met { "PASS" } else { "FAIL" }
            ),
            None => String::new(),
        };
        out.push_str(&format!(
            "{}{:pad$}  {count:>count_w$}  {:>5.1}%  {:>10.2}{verdict}\n",
            r.spec,
            "",
            r.rate(),
            r.mean_score
        ));
        if !r.most_failed.is_empty() {
            let most: Vec<String> = r
                .most_failed
                .iter()
                .map(|(name, n)| format!("{name} {n}×"))
                .collect();
            out.push_str(&format!("  most often not met: {}\n", most.join(", ")));
        }
    }
    crate::text::guard_lines(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(spec: &str, passed: bool, score: f64, failed: &[&str]) -> Digest {
        Digest {
            spec: spec.into(),
            passed,
            score,
            failed: failed.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// Pass rate, mean score and the most failed expectations, per spec in spec order.
    #[test]
    fn rows_count_per_spec() {
        let ds = [
            digest("b.toolspec::b", true, 1.0, &[]),
            digest("a.toolspec::a", false, 0.5, &["#2 y", "never z"]),
            digest("a.toolspec::a", false, 0.25, &["#2 y", "#1 x"]),
            digest("a.toolspec::a", true, 1.0, &[]),
            digest("a.toolspec::a", false, 0.75, &["#4 w", "#3 v"]),
        ];
        let rows = summarize(&ds);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].spec, "a.toolspec::a");
        assert_eq!((rows[0].passed, rows[0].total), (1, 4));
        assert!((rows[0].rate() - 25.0).abs() < 1e-9);
        assert!((rows[0].mean_score - 0.625).abs() < 1e-9);
        assert_eq!(
            rows[0].most_failed,
            vec![("#2 y".into(), 2), ("#1 x".into(), 1), ("#3 v".into(), 1)]
        );
        assert_eq!((rows[1].passed, rows[1].total), (1, 1));
        assert!(rows[1].most_failed.is_empty());
        let text = table(&rows);
        assert_eq!(
            text,
            "spec           passed    rate  mean score\n\
             a.toolspec::a     1/4   25.0%        0.62\n  \
             most often not met: #2 y 2×, #1 x 1×, #3 v 1×\n\
             b.toolspec::b     1/1  100.0%        1.00\n"
        );
    }
}
