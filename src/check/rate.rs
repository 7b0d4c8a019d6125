//! Pass rates: the results of each spec with a `pass_rate` → its [`RateResult`], the share of
//! its transcripts that passed against the share it requires.
//!
//! Input: the specs with a `pass_rate` ([`Rated`], from the plan), whether each result passed
//! (by spec), and the transcripts that could not be read (by spec). Output: one [`RateResult`]
//! per spec that took part in the run, in report order (how many failed results the rates
//! account for is counted with every other count, [`crate::report::model::Summary::count`]).
//! Cannot fail.
//!
//! Which specs take part: a spec whose file was named (or found under a folder named), whose
//! globs therefore name all its transcripts, always does: with no transcript judged its rate is
//! not met (a rate over no run says nothing of the agent). A spec brought in only because a
//! transcript named on the command line (or standard input under `--spec`) matches it takes
//! part when it judged one: its rate is over the transcripts given (under `--whole-rates`, over
//! every transcript its globs name, as for a named spec file).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::plan::Spec;
use crate::config::PassRate;
use crate::report::model::{Location, RateResult};

/// A spec with a `pass_rate`.
pub(super) struct Rated {
    file: Arc<str>,
    spec: Arc<str>,
    rate: PassRate,
    location: Location,
    /// Whether it takes part in the run even with no transcript judged.
    always: bool,
}

impl Rated {
    /// The spec, if it has a `pass_rate`; `always` when its globs name all its transcripts.
    pub(super) fn of(spec: &Spec, always: bool) -> Option<Rated> {
        let rate = spec.config.pass_rate?;
        Some(Rated {
            file: spec.file.key.clone(),
            spec: spec.name.clone(),
            rate,
            location: spec.file.locate(rate.span),
            always,
        })
    }
}

/// Counts of one spec's transcripts.
#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
    unread: usize,
}

/// The rate of each spec of `rated` that took part, sorted by spec file and spec. `results`
/// gives each result's (spec file, spec) and whether it passed; `unread` a (spec file, spec)
/// per transcript that could not be read.
pub(super) fn rates<'a>(
    rated: &[Rated],
    results: impl Iterator<Item = ((&'a Arc<str>, &'a Arc<str>), bool)>,
    unread: &[(Arc<str>, Arc<str>)],
) -> Vec<RateResult> {
    let mut tally: BTreeMap<(&str, &str), Tally> = rated
        .iter()
        .map(|r| ((&*r.file, &*r.spec), Tally::default()))
        .collect();
    for ((file, spec), passed) in results {
        if let Some(t) = tally.get_mut(&(&**file, &**spec)) {
            t.total += 1;
            t.passed += usize::from(passed);
        }
    }
    for (file, spec) in unread {
        if let Some(t) = tally.get_mut(&(&**file, &**spec)) {
            t.total += 1;
            t.unread += 1;
        }
    }
    let mut out: Vec<RateResult> = rated
        .iter()
        .filter_map(|r| {
            let t = tally.get(&(&*r.file, &*r.spec))?;
            if t.total == 0 && !r.always {
                return None;
            }
            #[allow(clippy::cast_precision_loss)] // counts far below 2^52
            let rate = (t.total > 0).then(|| t.passed as f64 / t.total as f64);
            Some(RateResult {
                spec_file: r.file.to_string(),
                spec: r.spec.to_string(),
                required: r.rate.min,
                passed: t.passed,
                total: t.total,
                unread: t.unread,
                rate,
                met: r.rate.met(t.passed, t.total),
                location: Some(r.location.clone()),
            })
        })
        .collect();
    out.sort_by(|a, b| (&a.spec_file, &a.spec).cmp(&(&b.spec_file, &b.spec)));
    out.dedup_by(|a, b| (&a.spec_file, &a.spec) == (&b.spec_file, &b.spec));
    out
}
