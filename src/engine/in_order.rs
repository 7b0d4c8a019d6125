//! Optimal order-preserving alignment (strict and in-order modes).
//!
//! The calls matched to expectation `j` all come before those matched to `j + 1`; other calls may
//! come between. A dynamic programme over the calls in transcript order keeps, for every state
//! "on expectation `j`, with `r` required and `o` optional slots filled", the best total gain; a
//! call either stays unaccounted or joins the current expectation or a later one (a prefix
//! maximum makes "any later one" O(1)). Each call fills one slot at a fixed gain: a name-only
//! call a required slot, a full call a required or an optional one (whichever the optimum
//! prefers, so a late name-only call may take a required slot while an earlier full call moves
//! to an optional one). An unbounded maximum needs no `o`: an optional slot is always free. So
//! `exactly n` and `at_least n` have `n + 1` states, `at_most n` has `n + 1`, a plain `call` 2.
//!
//! Cost: O(pairs · (S_j + √S)) time (the transitions, and the prefix maxima from blocks of
//! 128 states), one byte of back-pointer per (candidate pair, state of its expectation), at
//! most O(n · S) in all, where `S = Σ S_j` and `S_j ≤ (min_j + 1) ·
//! (opt_j + 1)` (both capped by the calls whose name matches `j`). `exactly 3000` against 3 000
//! calls is 9 million steps. Past [`STATE_BUDGET`] steps, large bounded maxima are first treated
//! as unbounded (the surplus trimmed afterwards, still optimal in practice), then required
//! counts are tracked only up to a cap (a call beyond it takes a required slot's gain); the
//! alignment stays valid and in order but may not be optimal, and the caller reports it.
//! Ties keep the earlier call.

use super::align::{Candidate, Slots};

const NEG: i128 = i128::MIN / 4;

/// States per block of prefix maxima.
const BLOCK: usize = 128;

/// Steps (`n · S`) of the exact programme; past it, large bounded maxima are treated as
/// unbounded, then required counts are capped (see the module's documentation).
pub(crate) const STATE_BUDGET: usize = 50_000_000;

/// How a state's value was improved by a call (one byte per state and candidate pair).
const UNTOUCHED: u8 = 0;
/// From `(r − 1, o)`: the call took a required slot.
const REQUIRED: u8 = 1;
/// From `(r, o − 1)`: a full call took an optional slot.
const OPTIONAL: u8 = 2;
/// From the same state: a full call took one of unboundedly many optional slots, or (past the
/// budget) a call beyond the tracked required count.
const LOOP: u8 = 3;

/// The states of one expectation: every `(r, o)` with `r ≤ req`, `o ≤ opt`, at `r · (opt + 1) + o`.
#[derive(Debug, Clone, Copy)]
struct States {
    /// Required slots tracked.
    req: usize,
    /// Optional slots tracked (0 when unbounded).
    opt: usize,
    /// The maximum is unbounded: a full call may always take an optional slot.
    opt_loop: bool,
    /// Past the budget: required slots beyond `req` exist but are not counted.
    req_loop: bool,
}

impl States {
    fn new(s: &Slots, compatible: usize, relax: bool, req_cap: usize) -> Self {
        let unbounded = match s.max {
            None => true,
            Some(x) => relax && x > s.min + 1,
        };
        let req_all = s.min.min(compatible);
        let req = req_all.min(req_cap);
        let opt = match s.max {
            Some(x) if !unbounded => (x - s.min).min(compatible),
            _ => 0,
        };
        States {
            req,
            opt,
            opt_loop: unbounded,
            req_loop: req < req_all,
        }
    }

    fn len(&self) -> usize {
        (self.req + 1) * (self.opt + 1)
    }
}

/// The calls (ascending) assigned to each expectation, and whether the budget made the
/// alignment possibly sub-optimal.
pub(crate) fn align(slots: &[Slots], by_call: &[Vec<Candidate>]) -> (Vec<Vec<usize>>, bool) {
    align_within(slots, by_call, STATE_BUDGET)
}

fn align_within(
    slots: &[Slots],
    by_call: &[Vec<Candidate>],
    budget: usize,
) -> (Vec<Vec<usize>>, bool) {
    let m = slots.len();
    let n = by_call.len();
    let mut out = vec![Vec::new(); m];
    if m == 0 || n == 0 {
        return (out, false);
    }
    let mut compatible = vec![0usize; m];
    for c in by_call.iter().flatten() {
        if let Some(x) = compatible.get_mut(c.exp) {
            *x += 1;
        }
    }
    let build = |relax: bool, cap: usize| -> Vec<States> {
        slots
            .iter()
            .zip(&compatible)
            .map(|(s, &c)| States::new(s, c, relax, cap))
            .collect()
    };
    let steps = |st: &[States]| n.saturating_mul(st.iter().map(States::len).sum::<usize>());
    let mut states = build(false, usize::MAX);
    let mut approximate = false;
    if steps(&states) > budget {
        states = build(true, usize::MAX);
    }
    if steps(&states) > budget {
        // The largest cap on required counts that fits (at least 1).
        let (mut lo, mut hi) = (
            1usize,
            slots.iter().map(|s| s.min).max().unwrap_or(1).max(1),
        );
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if steps(&build(true, mid)) <= budget {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        states = build(true, lo);
        approximate = states.iter().any(|s| s.req_loop);
    }
    let mut offset = Vec::with_capacity(m + 1);
    let mut total = 0usize;
    for st in &states {
        offset.push(total);
        total += st.len();
    }
    let mut exp_of = Vec::with_capacity(total);
    for (j, st) in states.iter().enumerate() {
        exp_of.extend(std::iter::repeat_n(j, st.len()));
    }

    let mut f = vec![NEG; total];
    f[0] = 0;
    // The best state of each block of BLOCK states (the earliest of equal ones), so that a
    // prefix maximum costs `total / BLOCK + BLOCK`, not `total`.
    let mut blocks = vec![(NEG, 0usize); total.div_ceil(BLOCK)];
    blocks[0] = (0, 0);
    // Back-pointers: per call, its candidate pairs (expectation, first byte in `kinds`, the
    // state a first call came from); per pair, one byte per state of its expectation.
    let mut starts: Vec<usize> = Vec::with_capacity(n + 1);
    let mut pairs: Vec<(u32, usize, u32)> = Vec::new();
    let mut kinds: Vec<u8> = Vec::new();
    for cands in by_call {
        starts.push(pairs.len());
        if cands.is_empty() {
            continue;
        }
        // The best state up to each candidate expectation's first state (the earliest of equal
        // ones): the blocks' best before it, then its own block up to it.
        let mut entries: Vec<(usize, i128, usize)> = cands
            .iter()
            .filter_map(|c| offset.get(c.exp).map(|&o| (o, NEG, 0)))
            .collect();
        entries.sort_unstable();
        let mut acc = (NEG, 0usize);
        let mut merged = 0usize;
        for e in &mut entries {
            let block = e.0 / BLOCK;
            while merged < block {
                if blocks[merged].0 > acc.0 {
                    acc = blocks[merged];
                }
                merged += 1;
            }
            let mut best = acc;
            for (s, &v) in f.iter().enumerate().take(e.0 + 1).skip(block * BLOCK) {
                if v > best.0 {
                    best = (v, s);
                }
            }
            (e.1, e.2) = best;
        }
        for c in cands {
            let j = c.exp;
            let (Some(&off), Some(st), Some(sl)) = (offset.get(j), states.get(j), slots.get(j))
            else {
                continue;
            };
            let Some(&(_, entry, entry_src)) = entries.iter().find(|e| e.0 == off) else {
                continue;
            };
            let len = st.len();
            let start = kinds.len();
            if kinds.try_reserve(len).is_err() {
                // Out of memory for back-pointers: leave this call unaccounted for `j`.
                approximate = true;
                continue;
            }
            kinds.resize(start + len, UNTOUCHED);
            let (fj, kj) = (&mut f[off..off + len], &mut kinds[start..]);
            let req_gain = if c.full { sl.req_full } else { sl.req_name } + c.bonus();
            let opt_gain = sl.opt_full + c.bonus();
            let w = st.opt + 1;
            // The gain of staying in the same state, if a call may: a full call taking one of
            // unboundedly many optional slots, or (past the budget) any call beyond the tracked
            // required count.
            let loop_gain = |r: usize| -> Option<i128> {
                let opt = (c.full && st.opt_loop).then_some(opt_gain);
                if st.req_loop && r == st.req {
                    Some(opt.map_or(req_gain, |g| g.max(req_gain)))
                } else {
                    opt
                }
            };
            // Targets in decreasing order: every source is a lower state or the same one, so
            // each reads the value from before this call. State 0's value is the entry's.
            for r in (0..=st.req).rev() {
                let looping = loop_gain(r);
                for o in (0..w).rev() {
                    let t = r * w + o;
                    let mut cand = (NEG, UNTOUCHED);
                    if r >= 1 {
                        let v = if t == w { entry } else { fj[t - w] };
                        if v > NEG {
                            cand = (v + req_gain, REQUIRED);
                        }
                    }
                    if c.full && o >= 1 {
                        let v = if t == 1 { entry } else { fj[t - 1] };
                        if v > NEG && v + opt_gain > cand.0 {
                            cand = (v + opt_gain, OPTIONAL);
                        }
                    }
                    if let Some(g) = looping {
                        let v = if t == 0 { entry } else { fj[t] };
                        if v > NEG && v + g > cand.0 {
                            cand = (v + g, LOOP);
                        }
                    }
                    if cand.0 > fj[t] {
                        fj[t] = cand.0;
                        kj[t] = cand.1;
                        let (g, b) = (off + t, &mut blocks[(off + t) / BLOCK]);
                        if cand.0 > b.0 || (cand.0 == b.0 && g < b.1) {
                            *b = (cand.0, g);
                        }
                    }
                }
            }
            pairs.push((small(j), start, small(entry_src)));
        }
    }
    starts.push(pairs.len());

    let mut cur = (0..total)
        .max_by_key(|&s| (f[s], std::cmp::Reverse(s)))
        .unwrap_or(0);
    for i in (0..n).rev() {
        let j = exp_of[cur];
        let Some(&(_, start, entry_src)) = pairs[starts[i]..starts[i + 1]]
            .iter()
            .find(|p| p.0 as usize == j)
        else {
            continue;
        };
        let (off, w) = (offset[j], states[j].opt + 1);
        let t = cur - off;
        let from = match kinds[start + t] {
            REQUIRED => t - w,
            OPTIONAL => t - 1,
            LOOP => t,
            _ => continue,
        };
        out[j].push(i);
        cur = if from == 0 {
            entry_src as usize
        } else {
            off + from
        };
    }
    for (calls, s) in out.iter_mut().zip(slots) {
        calls.reverse();
        if let Some(max) = s.max {
            calls.truncate(max);
        }
    }
    (out, approximate)
}

/// An index as 4 bytes (states and expectations of one run are far below 2³²).
fn small(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(min: usize, max: Option<usize>) -> Slots {
        Slots {
            min,
            max,
            req_full: 1000,
            req_name: 500,
            opt_full: 1,
            unit: 1,
        }
    }

    fn cand(exp: usize, full: bool) -> Vec<Candidate> {
        vec![Candidate {
            exp,
            full,
            capped: false,
        }]
    }

    #[test]
    fn keeps_order_and_skips_between() {
        let s = [slots(1, Some(1)), slots(1, Some(1))];
        // B, A, x, B: A then B is only possible as calls 1 and 3.
        let by_call = vec![cand(1, true), cand(0, true), vec![], cand(1, true)];
        assert_eq!(align(&s, &by_call).0, vec![vec![1], vec![3]]);
    }

    #[test]
    fn prefers_full_over_name_only_and_earlier_on_ties() {
        let s = [slots(1, Some(1))];
        let by_call = vec![cand(0, false), cand(0, true), cand(0, true)];
        assert_eq!(align(&s, &by_call).0, vec![vec![1]]);
    }

    #[test]
    fn repeats_fill_required_then_optional_slots() {
        let s = [slots(2, None), slots(1, Some(1))];
        let by_call = vec![
            cand(0, true),
            cand(0, false),
            cand(0, true),
            cand(0, true),
            cand(1, true),
        ];
        // Required: two slots; the name-only call may only fill a required one, so the best is
        // full, full (required) + full (optional), and the name-only call stays out.
        assert_eq!(align(&s, &by_call).0, vec![vec![0, 2, 3], vec![4]]);
    }

    #[test]
    fn huge_bounded_maxima_are_relaxed_then_trimmed() {
        // 8 000 calls × 8 001 states would exceed the budget: the maximum is relaxed, then the
        // surplus trimmed.
        let s = [slots(0, Some(7_000))];
        let by_call = vec![cand(0, true); 8_000];
        let got = align(&s, &by_call).0;
        assert_eq!(got[0].len(), 7_000);
        assert_eq!(got[0][0], 0);
    }

    #[test]
    fn large_bounded_repeats_stay_correct() {
        let s = [slots(2, Some(300))];
        let mut by_call = vec![cand(0, true); 400];
        by_call[5] = cand(0, false);
        let got = align(&s, &by_call).0;
        assert_eq!(got[0].len(), 300);
        assert!(
            !got[0].contains(&5),
            "a name-only call never displaces a full one here"
        );
    }

    #[test]
    fn past_the_budget_counts_are_capped_and_the_result_stays_valid() {
        // `exactly 50` and `exactly 30` against 80 full calls: 80 × (51 + 31) steps exactly;
        // with a budget of 2 000 the required counts are tracked up to a cap.
        let s = [slots(50, Some(50)), slots(30, Some(30))];
        let by_call = vec![
            vec![
                Candidate {
                    exp: 0,
                    full: true,
                    capped: false
                },
                Candidate {
                    exp: 1,
                    full: true,
                    capped: false
                }
            ];
            80
        ];
        let (exact, approx) = align_within(&s, &by_call, usize::MAX);
        assert!(!approx);
        assert_eq!(exact[0], (0..50).collect::<Vec<_>>());
        assert_eq!(exact[1], (50..80).collect::<Vec<_>>());
        let (got, approx) = align_within(&s, &by_call, 2_000);
        assert!(approx);
        assert!(got[0].len() <= 50 && got[1].len() <= 30);
        let last0 = got[0].last().copied();
        assert!(
            got[1].iter().all(|&i| last0.is_none_or(|l| i > l)),
            "{got:?}"
        );
    }

    #[test]
    fn exactly_n_against_n_calls_is_exact_and_in_budget() {
        let s = [slots(3_000, Some(3_000))];
        let mut by_call = vec![cand(0, true); 3_000];
        by_call[7] = cand(0, false);
        let (got, approx) = align(&s, &by_call);
        assert!(!approx);
        assert_eq!(got[0].len(), 3_000);
    }

    #[test]
    fn bounded_maximum_is_respected() {
        let s = [slots(0, Some(2))];
        let by_call = vec![cand(0, true); 5];
        assert_eq!(align(&s, &by_call).0, vec![vec![0, 1]]);
    }
}
