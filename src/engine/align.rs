//! What the alignment algorithms share: per-expectation slot gains and per-call candidates.
//!
//! An expectation with `repeat = min..max` has `min` *required* slots and `max − min` *optional*
//! slots (unbounded when `max` is). A call may fill a required slot when its name matches (full
//! or name-only credit) and an optional slot only when it satisfies every constraint. Gains are
//! integers: the real gain (credit earned plus penalties avoided) scaled by 10⁶ and rounded, then
//! multiplied by `calls + 1` with 1 added, so that among alignments of equal real gain the one
//! accounting for more calls wins (lexicographic order without floating-point ties).

use crate::config::{Expectation, Scoring};

/// Resolution of real gains in the alignment objective.
const SCALE: f64 = 1e6;
/// Real gains are capped so that sums cannot overflow.
const CAP: f64 = 1e9;

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

fn scaled(real: f64, calls: usize) -> i128 {
    let units = (sane(real) * SCALE).round() as i128;
    units * (calls as i128 + 1) + 1
}

impl Slots {
    /// The slots of `e` under `scoring`, for a transcript of `calls` calls.
    pub(crate) fn of(e: &Expectation, scoring: &Scoring, calls: usize) -> Self {
        let w = sane(e.weight);
        let extra = sane(scoring.extra_call);
        let min = e.repeat.min as usize;
        // A maximum below the minimum is read as the minimum (the compiler rejects it anyway).
        let max = e.repeat.max.map(|m| (m as usize).max(min));
        Slots {
            min,
            max,
            req_full: scaled(
                w * sane(scoring.exact_match) + extra + w * sane(scoring.wrong_or_missing),
                calls,
            ),
            req_name: scaled(w * sane(scoring.name_only) + extra, calls),
            opt_full: scaled(extra, calls),
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
