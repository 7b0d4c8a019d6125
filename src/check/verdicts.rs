//! The verdicts of a run, one per thing that can fail it: each result of a spec without a
//! `pass_rate` (and of the built-in rules alone), and each spec's rate with the results it is
//! taken over. What a test runner makes its items of (the pytest plugin): a run fails
//! ([`crate::report::model::Summary::fails`]) exactly when one of them failed.
//!
//! Input: a [`Report`] (sorted, counted). Output: [`Verdict`]s in report order, a rate where its
//! first result is (a rate over no result, at the end). Cannot fail.

use std::collections::BTreeMap;

use crate::report::model::Report;

/// One verdict of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A result that stands alone: `report.results[result]`.
    Pair {
        /// Its place in the report's results.
        result: usize,
    },
    /// A spec's pass rate (`report.rates[rate]`), over the results listed (places in the
    /// report's results, in report order).
    Rate {
        /// Its place in the report's rates.
        rate: usize,
        /// The results it is taken over.
        results: Vec<usize>,
    },
}

impl Verdict {
    /// Whether it passed: the result passed, or the rate was met.
    pub fn passed(&self, report: &Report) -> bool {
        match self {
            Verdict::Pair { result } => report.results[*result].passed,
            Verdict::Rate { rate, .. } => report.rates[*rate].met,
        }
    }
}

/// The verdicts of `report`, in report order.
pub fn verdicts(report: &Report) -> Vec<Verdict> {
    let rate_of: BTreeMap<(&str, &str), usize> = report
        .rates
        .iter()
        .enumerate()
        .map(|(i, r)| ((r.spec_file.as_str(), r.spec.as_str()), i))
        .collect();
    let mut out: Vec<Verdict> = Vec::new();
    // Where each rate is in `out`, once placed.
    let mut placed: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, r) in report.results.iter().enumerate() {
        match rate_of.get(&(r.spec_file.as_str(), r.spec.as_str())) {
            Some(&rate) => {
                let at = *placed.entry(rate).or_insert_with(|| {
                    out.push(Verdict::Rate {
                        rate,
                        results: Vec::new(),
                    });
                    out.len() - 1
                });
                if let Verdict::Rate { results, .. } = &mut out[at] {
                    results.push(i);
                }
            }
            None => out.push(Verdict::Pair { result: i }),
        }
    }
    for rate in 0..report.rates.len() {
        if !placed.contains_key(&rate) {
            out.push(Verdict::Rate {
                rate,
                results: Vec::new(),
            });
        }
    }
    out
}
