//! Looking for an alignment that respects the `before` rules.
//!
//! The alignment algorithms do not see `before` rules (they would make the any-order problem
//! NP-hard in general). Instead, when the chosen alignment breaks a rule `first before then`, the
//! engine realigns twice: once without the `then` candidates that do not come after the last
//! `first` call, once without the `first` candidates that do not come before the first `then`
//! call, and keeps the better result (fewer broken rules, then more gain). Up to eight rounds. A
//! result is only accepted if it scores as well as the unconstrained optimum: the engine will
//! pick the other of two equally good calls to honour a rule, but it will not declare a call
//! missing to hide a broken rule. A rule still broken is reported as `before-violation`.

use super::align::{Aligner, Assignment, Candidate, Slots};
use crate::config::BeforeRule;

const ROUNDS: usize = 8;

/// Rules broken by `assigned`, as indices into `rules`.
pub(crate) fn broken(rules: &[BeforeRule], assigned: &[Vec<usize>]) -> Vec<usize> {
    rules
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let (Some(a), Some(b)) = (assigned.get(r.first), assigned.get(r.then)) else {
                return false;
            };
            matches!((a.iter().max(), b.iter().min()), (Some(x), Some(y)) if y < x)
        })
        .map(|(i, _)| i)
        .collect()
}

/// The total gain of an alignment (what the algorithms maximise).
pub(crate) fn total_gain(
    slots: &[Slots],
    by_call: &[Vec<Candidate>],
    assigned: &[Vec<usize>],
) -> i128 {
    let mut total = 0i128;
    for (j, calls) in assigned.iter().enumerate() {
        let sl = &slots[j];
        let full = calls
            .iter()
            .filter(|&&i| by_call[i].iter().any(|c| c.exp == j && c.full))
            .count();
        let q = (calls.len() - full).min(sl.min);
        let req_full = full.min(sl.min - q);
        total += q as i128 * sl.req_name
            + req_full as i128 * sl.req_full
            + (full - req_full) as i128 * sl.opt_full;
    }
    total
}

/// `assigned`, or a better alignment under `rules` found by excluding offending candidates.
pub(crate) fn respect(
    rules: &[BeforeRule],
    slots: &[Slots],
    by_call: &[Vec<Candidate>],
    assigned: Assignment,
    align: &Aligner<'_>,
) -> Assignment {
    let unit = slots.first().map_or(1, |s| s.unit.max(1));
    let floor = total_gain(slots, by_call, &assigned) / unit;
    let score = |a: &[Vec<usize>]| {
        (
            broken(rules, a).len(),
            std::cmp::Reverse(total_gain(slots, by_call, a)),
        )
    };
    let mut best_score = score(&assigned);
    let mut best = assigned.clone();
    let (mut cands, mut cur) = (by_call.to_vec(), assigned);
    for _ in 0..ROUNDS {
        let Some(&r) = broken(rules, &cur).first() else {
            break;
        };
        let rule = &rules[r];
        let last_first = cur[rule.first].iter().copied().max().unwrap_or(0);
        let first_then = cur[rule.then].iter().copied().min().unwrap_or(0);
        let mut later_then = cands.clone();
        for (i, c) in later_then.iter_mut().enumerate() {
            if i <= last_first {
                c.retain(|c| c.exp != rule.then);
            }
        }
        let mut earlier_first = cands.clone();
        for (i, c) in earlier_first.iter_mut().enumerate() {
            if i >= first_then {
                c.retain(|c| c.exp != rule.first);
            }
        }
        let a = align(&later_then);
        let b = align(&earlier_first);
        (cands, cur) = if score(&a) <= score(&b) {
            (later_then, a)
        } else {
            (earlier_first, b)
        };
        let s = score(&cur);
        if s < best_score && total_gain(slots, by_call, &cur) / unit >= floor {
            best_score = s;
            best = cur.clone();
        }
    }
    best
}
