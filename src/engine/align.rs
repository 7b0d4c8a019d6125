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

/// What a person prefers of a verdict beyond its score, ranked above every gain: critical
/// expectations met (each of their required slots filled by a full match) and, where every
/// unaccounted call fails the pair, every call accounted for. An alignment that maximises the
/// slots of [`Preference::slots`] meets as many of both as any alignment can, and among those
/// gains the most; so if some alignment avoids these hard failures, it finds one, and the best.
#[derive(Debug, Clone)]
pub(crate) struct Preference {
    /// Per expectation: whether it is critical (itself, or through its block).
    pub(crate) critical: Vec<bool>,
    /// Whether each call accounted for counts (`order strict`, `extra calls: forbid`).
    pub(crate) every_call: bool,
}

impl Preference {
    /// `slots` with one preference unit above any total gain added to each slot that meets
    /// the preference: a required slot of a critical expectation filled by a full match, and
    /// with [`Preference::every_call`] any slot (a call accounted for). `None` when the sums
    /// could leave the exact range of the gains (weights near their cap with millions of
    /// calls).
    pub(crate) fn slots(&self, slots: &[Slots], by_call: &[Vec<Candidate>]) -> Option<Vec<Slots>> {
        // The most any alignment gains: each call in its best slot.
        let mut most: i128 = 0;
        for cands in by_call {
            let best = cands
                .iter()
                .filter_map(|c| {
                    let s = slots.get(c.exp)?;
                    let g = if c.full {
                        s.req_full.max(s.opt_full)
                    } else {
                        s.req_name
                    };
                    Some(g + c.bonus())
                })
                .max()
                .unwrap_or(0);
            most = most.checked_add(best.max(0))?;
        }
        // A multiple of the real-gain unit, so that `total / unit` (the `before` search's
        // measure) ranks the preference first and the real gain next.
        let unit = slots.first().map_or(1, |s| s.unit.max(1));
        let big = (most / unit).checked_add(1)?.checked_mul(unit)?;
        // Each call adds at most two units (accounted for, in a critical required slot).
        let calls = i128::try_from(by_call.len()).ok()?;
        let top = big
            .checked_mul(calls.checked_mul(2)?.checked_add(1)?)?
            .checked_add(most)?;
        if top > i128::MAX / 8 {
            return None;
        }
        let every = if self.every_call { big } else { 0 };
        Some(
            slots
                .iter()
                .enumerate()
                .map(|(j, s)| {
                    let critical = if self.critical.get(j).copied().unwrap_or(false) {
                        big
                    } else {
                        0
                    };
                    Slots {
                        req_full: s.req_full + every + critical,
                        req_name: s.req_name + every,
                        opt_full: s.opt_full + every,
                        ..*s
                    }
                })
                .collect(),
        )
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
