//! Optimal order-preserving alignment (strict and in-order modes).
//!
//! The calls matched to expectation `j` all come before those matched to `j + 1`; other calls may
//! come between. A dynamic programme over the calls in transcript order keeps, for every state
//! "on expectation `j`, holding `q` name-only and `f` full calls", the best total gain; a call
//! either stays unaccounted or joins the current expectation or a later one (a prefix maximum
//! makes "any later one" O(1)). The gain of an expectation depends only on `(q, f)`: name-only
//! calls take required slots, full calls the remaining required slots, then optional ones, so a
//! late name-only call may push an earlier full call from a required slot into an optional one.
//! Only the states of expectations whose name matches the call change, and the back-pointers of
//! those changes are all that is stored.
//!
//! Cost: O(n · S) time for the prefix maxima plus O(pairs · S_j) for the transitions, and as much
//! memory for back-pointers, where `S_j ≤ (min_j + 1) · (K_j + 1)` is the number of states of
//! expectation `j` (`K_j`: its maximum if bounded, else its minimum, at least 1, both capped by
//! the calls whose name matches it) and `S = Σ S_j`. For plain expectations `S_j = 3`. Ties keep
//! the earlier call.

use super::align::{Candidate, Slots};

const NEG: i128 = i128::MIN / 4;

/// Above this many `n · S` steps, large bounded maxima are treated as unbounded and the
/// surplus trimmed afterwards (never needed by realistic specs).
const STATE_BUDGET: usize = 50_000_000;

/// The states of one expectation: every `(q, f)` with `q ≤ min`, `q + f ≤ max`, `f ≤ cap`.
struct States {
    min: usize,
    /// Largest total count tracked; with `looping`, `f == cap` stands for "cap or more".
    cap: usize,
    looping: bool,
    max_total: Option<usize>,
    list: Vec<(usize, usize)>,
    /// `(q, f)` → position in `list` (`usize::MAX`: not a state), row-major by `q`.
    index: Vec<usize>,
}

impl States {
    fn new(s: &Slots, compatible: usize, relax: bool) -> Self {
        let max = if relax && s.max.is_some_and(|x| x > s.min + 1) {
            None
        } else {
            s.max
        };
        let min = s.min.min(compatible);
        let cap = match max {
            Some(x) => x.min(compatible),
            None => s.min.max(1).min(compatible),
        };
        let mut list = Vec::new();
        let mut index = vec![usize::MAX; (min + 1) * (cap + 1)];
        for q in 0..=min {
            for f in 0..=cap {
                // Bounded: at most `cap` calls in all. Unbounded: `f == cap` means "cap or more".
                if max.is_none() || q + f <= cap {
                    index[q * (cap + 1) + f] = list.len();
                    list.push((q, f));
                }
            }
        }
        States {
            min: s.min,
            cap,
            looping: max.is_none(),
            max_total: max,
            list,
            index,
        }
    }

    fn index(&self, q: usize, f: usize) -> Option<usize> {
        if f > self.cap {
            return None;
        }
        self.index
            .get(q * (self.cap + 1) + f)
            .copied()
            .filter(|&i| i != usize::MAX)
    }

    /// The state after adding a call (full or name-only) to `(q, f)`, if allowed.
    fn next(&self, (q, f): (usize, usize), full: bool) -> Option<(usize, usize)> {
        let (q2, f2) = if full { (q, f + 1) } else { (q + 1, f) };
        if q2 > self.min || self.max_total.is_some_and(|m| q2 + f2 > m) {
            return None;
        }
        if full && f2 > self.cap {
            return if self.looping { Some((q, f)) } else { None };
        }
        Some((q2, f2))
    }

    /// Total gain of holding `q` name-only and `f` full calls.
    fn gain(&self, sl: &Slots, (q, f): (usize, usize)) -> i128 {
        let req_full = f.min(self.min.saturating_sub(q));
        q as i128 * sl.req_name
            + req_full as i128 * sl.req_full
            + (f - req_full) as i128 * sl.opt_full
    }
}

/// The calls (ascending) assigned to each expectation.
pub(crate) fn align(slots: &[Slots], by_call: &[Vec<Candidate>]) -> Vec<Vec<usize>> {
    let m = slots.len();
    let n = by_call.len();
    let mut out = vec![Vec::new(); m];
    if m == 0 || n == 0 {
        return out;
    }
    let mut compatible = vec![0usize; m];
    for c in by_call.iter().flatten() {
        compatible[c.exp] += 1;
    }
    let build = |relax: bool| -> Vec<States> {
        slots
            .iter()
            .zip(&compatible)
            .map(|(s, &c)| States::new(s, c, relax))
            .collect()
    };
    let mut states = build(false);
    if n.saturating_mul(states.iter().map(|s| s.list.len()).sum::<usize>()) > STATE_BUDGET {
        states = build(true);
    }
    let mut offset = Vec::with_capacity(m + 1);
    let mut total = 0usize;
    for st in &states {
        offset.push(total);
        total += st.list.len();
    }
    let exp_of: Vec<usize> = (0..m)
        .flat_map(|j| std::iter::repeat_n(j, states[j].list.len()))
        .collect();

    let mut f = vec![NEG; total];
    f[0] = 0;
    // Back-pointers: for call i, (state written, state it came from).
    let mut starts = Vec::with_capacity(n + 1);
    let mut moves: Vec<(u32, u32)> = Vec::new();
    let mut prefix = vec![(NEG, 0usize); total];
    let mut writes: Vec<(usize, i128, usize)> = Vec::new();
    for cands in by_call {
        starts.push(moves.len());
        if cands.is_empty() {
            continue;
        }
        let mut best = (NEG, 0usize);
        for (s, p) in prefix.iter_mut().enumerate() {
            if f[s] > best.0 {
                best = (f[s], s);
            }
            *p = best;
        }
        for c in cands {
            let j = c.exp;
            let (off, st, sl) = (offset[j], &states[j], &slots[j]);
            writes.clear();
            for (si, &state) in st.list.iter().enumerate() {
                // State (0, 0) is entered from the best state of any earlier expectation.
                let (val, src) = if si == 0 {
                    prefix[off]
                } else {
                    (f[off + si], off + si)
                };
                if val <= NEG {
                    continue;
                }
                let Some(to) = st.next(state, c.full) else {
                    continue;
                };
                let Some(ti) = st.index(to.0, to.1) else {
                    continue;
                };
                // A loop at the top state stands for one more full call in an optional slot.
                let delta = if to == state {
                    sl.opt_full
                } else {
                    st.gain(sl, to) - st.gain(sl, state)
                };
                let v = val + delta;
                match writes.iter_mut().find(|w| w.0 == off + ti) {
                    Some(w) if v > w.1 => *w = (off + ti, v, src),
                    Some(_) => {}
                    None => writes.push((off + ti, v, src)),
                }
            }
            for &(to, v, src) in &writes {
                if v > f[to] {
                    f[to] = v;
                    moves.push((to as u32, src as u32));
                }
            }
        }
    }
    starts.push(moves.len());

    let mut cur = (0..total)
        .max_by_key(|&s| (f[s], std::cmp::Reverse(s)))
        .unwrap_or(0);
    for i in (0..n).rev() {
        let taken = moves[starts[i]..starts[i + 1]]
            .iter()
            .rev()
            .find(|&&(to, _)| to as usize == cur);
        if let Some(&(_, from)) = taken {
            out[exp_of[cur]].push(i);
            cur = from as usize;
        }
    }
    for (calls, s) in out.iter_mut().zip(slots) {
        calls.reverse();
        if let Some(max) = s.max {
            calls.truncate(max);
        }
    }
    out
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
        vec![Candidate { exp, full }]
    }

    #[test]
    fn keeps_order_and_skips_between() {
        let s = [slots(1, Some(1)), slots(1, Some(1))];
        // B, A, x, B: A then B is only possible as calls 1 and 3.
        let by_call = vec![cand(1, true), cand(0, true), vec![], cand(1, true)];
        assert_eq!(align(&s, &by_call), vec![vec![1], vec![3]]);
    }

    #[test]
    fn prefers_full_over_name_only_and_earlier_on_ties() {
        let s = [slots(1, Some(1))];
        let by_call = vec![cand(0, false), cand(0, true), cand(0, true)];
        assert_eq!(align(&s, &by_call), vec![vec![1]]);
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
        assert_eq!(align(&s, &by_call), vec![vec![0, 2, 3], vec![4]]);
    }

    #[test]
    fn huge_bounded_maxima_are_relaxed_then_trimmed() {
        // 8 000 calls × 8 001 states would exceed the budget: the maximum is relaxed, then the
        // surplus trimmed.
        let s = [slots(0, Some(7_000))];
        let by_call = vec![cand(0, true); 8_000];
        let got = align(&s, &by_call);
        assert_eq!(got[0].len(), 7_000);
        assert_eq!(got[0][0], 0);
    }

    #[test]
    fn large_bounded_repeats_stay_correct() {
        let s = [slots(2, Some(300))];
        let mut by_call = vec![cand(0, true); 400];
        by_call[5] = cand(0, false);
        let got = align(&s, &by_call);
        assert_eq!(got[0].len(), 300);
        assert!(
            !got[0].contains(&5),
            "a name-only call never displaces a full one here"
        );
    }

    #[test]
    fn bounded_maximum_is_respected() {
        let s = [slots(0, Some(2))];
        let by_call = vec![cand(0, true); 5];
        assert_eq!(align(&s, &by_call), vec![vec![0, 1]]);
    }
}
