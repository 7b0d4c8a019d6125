//! What the alignment algorithms share: per-expectation slot gains and per-call candidates.
//!
//! An expectation with `repeat = min..max` has `min` *required* slots and `max − min` *optional*
//! slots (unbounded when `max` is). A call may fill a required slot when its name matches (full
//! or name-only credit) and an optional slot only when it satisfies every constraint.
//!
//! The objective is lexicographic, encoded in one integer per slot so that no floating-point tie
//! decides anything: first the real gain (credit earned plus penalties avoided, scaled by 10⁶ and
//! rounded), then the number of required slots filled by full matches, then the number of full
//! matches, then the number of calls accounted for. With `K = calls + 1`, a slot's gain is
//! `units·K³ + [required and full]·K² + [full]·K + 1`; each tally is below `K`, so the levels
//! never mix. The secondary levels make the choice among equally scored alignments
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
}

/// A call's eligibility for one expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// The expectation.
    pub(crate) exp: usize,
    /// Whether the call satisfies every constraint (else it matches by name only).
    pub(crate) full: bool,
}

/// A non-negative, finite number (negative or NaN weights count as 0).
pub(crate) fn sane(x: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        x.min(CAP)
    } else {
        0.0
    }
}

fn scaled(real: f64, required_full: bool, full: bool, calls: usize) -> i128 {
    let k = calls as i128 + 1;
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
        }
    }

    /// The gain of a call filling slot number `k` (0-based, in fill order), if it may fill it.
    pub(crate) fn gain(&self, k: usize, full: bool) -> Option<i128> {
        if k < self.min {
            Some(if full { self.req_full } else { self.req_name })
        } else if self.max.is_none_or(|m| k < m) && full {
            Some(self.opt_full)
        } else {
            None
        }
    }
}
