//! What the alignment algorithms share: per-expectation slot gains and per-call candidates.
//!
//! An expectation with `repeat = min..max` has `min` *required* slots and `max − min` *optional*
//! slots (unbounded when `max` is). A call may fill a required slot when its name matches (full
//! or name-only credit) and an optional slot only when it satisfies every constraint.
//!
//! The objective is lexicographic, encoded in one integer per slot so that no floating-point tie
//! decides anything: first the real gain (credit earned plus penalties avoided, scaled by 10⁶ and
//! rounded), then the number of required slots filled by full matches, then the number of full
//! matches, then the number of calls accounted for, a call that would count against an
//! `at_most` cap if left over counting twice ([`Candidate::capped`]). With `K = 2·(calls + 1)`,
//! a call's gain in a slot is `units·K³ + [required and full]·K² + [full]·K + 1 + [capped]`;
//! each tally is below `K`, so the levels never mix. The secondary levels make the choice among equally scored alignments
//! deterministic in what it reports (the counts do not depend on the order of the calls) and
//! keep binary mode consistent: in binary mode the real gain is the weight of required slots
//! filled by full matches, so "every expectation met" is found whenever it is possible.

use crate::config::{Expectation, Scoring};

/// Resolution of real gains in the alignment objective.
const SCALE: f64 = 1e6;
/// Real gains (and weights) are capped so that sums cannot overflow.
const CAP: f64 = 1e6;

/// The slot structure and gains of one expectation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slots {
    /// Required slots.
    pub(crate) min: usize,
    /// Total slots; `None` is unbounded.
    pub(crate) max: Option<usize>,
    /// Gain of a fully matching call in a required slot.
    pub(crate) req_full: i128,
    /// Gain of a name-only call in a required slot.
    pub(crate) req_name: i128,
    /// Gain of a fully matching call in an optional slot.
    pub(crate) opt_full: i128,
    /// One unit of real gain (`K³`): `total / unit` is the real-gain part of a total.
    pub(crate) unit: i128,
}

/// A call's eligibility for one expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// The expectation.
    pub(crate) exp: usize,
    /// Whether the call satisfies every constraint (else it matches by name only).
    pub(crate) full: bool,
    /// Whether the call satisfies every constraint of some `at_most` expectation (a cap) among
    /// its candidates. Left unassigned, it would count against that cap (`too-many-calls`), so
    /// among alignments otherwise equal, the one that accounts for more such calls wins: the
    /// verdict does not depend on which of two interchangeable calls comes first.
    pub(crate) capped: bool,
}

impl Candidate {
    /// The lowest level of the objective for this call: 1 for being accounted for, 1 more if
    /// it is [`capped`](Self::capped).
    pub(crate) fn bonus(&self) -> i128 {
        i128::from(self.capped)
    }
}

/// The calls (ascending) assigned to each expectation.
pub(crate) type Assignment = Vec<Vec<usize>>;

/// An alignment algorithm over per-call candidates.
pub(crate) type Aligner<'a> = dyn Fn(&[Vec<Candidate>]) -> Assignment + 'a;

/// A non-negative, finite number (negative or NaN weights count as 0).
pub(crate) fn sane(x: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        x.min(CAP)
    } else {
        0.0
    }
}

/// Tie-break levels are exact up to this many calls; beyond, only tie-breaking degrades (sums
/// stay far below `i128::MAX`).
const MAX_LEVEL: usize = 2_000_000;

/// `K`: every tally of a tie-break level stays below it (the lowest level counts a call up to
/// twice).
fn level(calls: usize) -> i128 {
    2 * (calls.min(MAX_LEVEL) as i128 + 1)
}

fn scaled(real: f64, required_full: bool, full: bool, calls: usize) -> i128 {
    let k = level(calls);
    let units = (sane(real) * SCALE).round() as i128;
    units * k * k * k + i128::from(required_full) * k * k + i128::from(full) * k + 1
}

impl Slots {
    /// The slots of `e` under `scoring`, for a transcript of `calls` calls.
    pub(crate) fn of(e: &Expectation, scoring: &Scoring, calls: usize) -> Self {
        let w = sane(e.weight);
        // Binary mode scores "every required slot filled by a full match": that is the gain.
        let (exact, name_only, extra, wrong) = if scoring.binary {
            (1.0, 0.0, 0.0, 0.0)
        } else {
            (
                sane(scoring.exact_match),
                sane(scoring.name_only),
                sane(scoring.extra_call),
                sane(scoring.wrong_or_missing),
            )
        };
        let min = e.repeat.min as usize;
        // A maximum below the minimum is read as the minimum (the compiler rejects it anyway).
        let max = e.repeat.max.map(|m| (m as usize).max(min));
        Slots {
            min,
            max,
            req_full: scaled(w * exact + extra + w * wrong, true, true, calls),
            req_name: scaled(w * name_only + extra, false, false, calls),
            opt_full: scaled(extra, false, true, calls),
            unit: level(calls).pow(3),
        }
    }
}
