//! Optimal order-preserving alignment (strict and in-order modes).
//!
//! The calls matched to expectation `j` all come before those matched to `j + 1`; other calls may
//! come between. A dynamic programme over the calls in transcript order keeps, for every state
//! "on expectation `j`, `k` calls taken", the best total gain; a call either stays unaccounted or
//! fills the next slot of the current expectation or of a later one (a prefix maximum makes
//! "any later one" O(1)). Only the states of expectations whose name matches the call change, and
//! the back-pointers of those changes are all that is stored.
//!
//! Cost: O(n · S) time for the prefix maxima plus O(pairs · K) for the transitions, and
//! O(pairs · K) memory, where `S = Σ_j (K_j + 1)` and `K_j` is the number of counted states of
//! expectation `j`: its maximum if bounded, else its minimum (at least 1), capped by the number of calls
//! whose name matches it. Ties keep the earlier call.

use super::align::{Candidate, Slots};

const NEG: i128 = i128::MIN / 4;

/// Above this many `n · S` steps, large bounded maxima are treated as unbounded and the
/// surplus trimmed afterwards (never needed by realistic specs).
const STATE_BUDGET: usize = 50_000_000;

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
    let counted = |relax: bool| -> (Vec<usize>, Vec<bool>) {
        let mut k = Vec::with_capacity(m);
        let mut loops = Vec::with_capacity(m);
        for (s, &cnt) in slots.iter().zip(&compatible) {
            let max = if relax && s.max.is_some_and(|x| x > s.min + 1) {
                None
            } else {
                s.max
            };
            let kj = match max {
                Some(x) => x.min(cnt),
                None => s.min.max(1).min(cnt),
            };
            k.push(kj);
            // Unbounded: the top state loops (optional slots) once the minimum is reached.
            loops.push(max.is_none() && kj >= s.min);
        }
        (k, loops)
    };
    let (mut k, mut loops) = counted(false);
    if n.saturating_mul(k.iter().map(|x| x + 1).sum::<usize>()) > STATE_BUDGET {
        (k, loops) = counted(true);
    }
    let mut offset = Vec::with_capacity(m + 1);
    let mut total = 0usize;
    for &kj in &k {
        offset.push(total);
        total += kj + 1;
    }
    offset.push(total);
    let exp_of: Vec<usize> = (0..m)
        .flat_map(|j| std::iter::repeat_n(j, k[j] + 1))
        .collect();

    let mut f = vec![NEG; total];
    f[0] = 0;
    // Back-pointers: for call i, (state written, state it came from).
    let mut starts = Vec::with_capacity(n + 1);
    let mut moves: Vec<(u32, u32)> = Vec::new();
    let mut prefix = vec![(NEG, 0usize); total];
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
            let (off, kj) = (offset[j], k[j]);
            let sl = &slots[j];
            // Top state first, then downwards, so every read sees the value before this call.
            let top = off + kj;
            let mut top_best: Option<(i128, usize)> = None;
            if loops[j] && kj > 0 {
                if let Some(g) = sl.gain(kj, c.full) {
                    if f[top] > NEG {
                        top_best = Some((f[top] + g, top));
                    }
                }
            }
            let mut writes: Vec<(usize, i128, usize)> = Vec::new();
            for kk in (0..kj).rev() {
                let Some(g) = sl.gain(kk, c.full) else {
                    continue;
                };
                let (src_val, src) = if kk == 0 {
                    prefix[off]
                } else {
                    (f[off + kk], off + kk)
                };
                if src_val <= NEG {
                    continue;
                }
                let cand = (src_val + g, src);
                if kk + 1 == kj {
                    if top_best.is_none_or(|t| cand.0 > t.0) {
                        top_best = Some(cand);
                    }
                } else {
                    writes.push((off + kk + 1, cand.0, cand.1));
                }
            }
            if let Some((v, src)) = top_best {
                writes.push((top, v, src));
            }
            for (to, v, src) in writes {
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
    fn bounded_maximum_is_respected() {
        let s = [slots(0, Some(2))];
        let by_call = vec![cand(0, true); 5];
        assert_eq!(align(&s, &by_call), vec![vec![0, 1]]);
    }
}
