//! Looking for an alignment that respects the `before` rules.
//!
//! The alignment algorithms do not see `before` rules (they would make the any-order problem
//! NP-hard in general). Instead, when the chosen alignment breaks a rule `first before then`:
//!
//! 1. **Dealing** (one pass): for each group of expectations linked by rules, in an order that
//!    honours every rule among them (if there is one: rules may form a cycle), each takes in
//!    turn as many of the group's calls, earliest first, as it holds now; kept when every call
//!    is a candidate of its new expectation and the group's gain does not drop. A chain of
//!    3 000 reversed rules over one tool is fixed at once.
//! 2. **Exchanges** (one pass over a queue of rules): the calls of `first` and `then` are pooled
//!    and `first` takes the earliest of them, `then` the rest, when every pooled call is a
//!    candidate of both and the two expectations' gain does not drop. Only the rules touching
//!    a changed expectation are looked at again. Work is bounded by [`EXCHANGE_BUDGET`] (calls
//!    moved and candidates read); past it the exchanges stop.
//! 3. **Realignments**, for what exchanges cannot fix: the engine realigns twice, once without
//!    the `then` candidates that do not come after the last `first` call, once without the
//!    `first` candidates that do not come before the first `then` call, and keeps the better
//!    result (fewer broken rules, then more gain). Up to eight rounds, and no more than
//!    [`REALIGN_BUDGET`] candidate pairs realigned in all (eight rounds up to 31 250 pairs, one
//!    round up to 250 000, none beyond).
//!
//! A result is only accepted if it scores as well as the unconstrained optimum: the engine will
//! pick the other of two equally good calls to honour a rule, but it will not declare a call
//! missing to hide a broken rule. A rule still broken is reported as `before-violation`.

use super::align::{Aligner, Assignment, Candidate, Slots};
use crate::config::BeforeRule;

const ROUNDS: usize = 8;

/// Calls moved and candidates read by the exchanges of one run, at most.
pub(crate) const EXCHANGE_BUDGET: usize = 2_000_000;

/// Candidate pairs realigned (over every realignment) of one run, at most.
pub(crate) const REALIGN_BUDGET: usize = 500_000;

/// Rules broken by `assigned`, as indices into `rules`.
pub(crate) fn broken(rules: &[BeforeRule], assigned: &[Vec<usize>]) -> Vec<usize> {
    broken_at(rules, |j| assigned.get(j).map(Vec::as_slice))
        .into_iter()
        .map(|(r, _, _)| r)
        .collect()
}

/// The broken rules with where: (rule, the first call of its `then`, the last call of its
/// `first`), the first coming before the last. Each expectation's first and last calls are
/// found once, so many rules naming an expectation with many calls cost rules + calls.
pub(crate) fn broken_at<'a>(
    rules: &[BeforeRule],
    calls_of: impl Fn(usize) -> Option<&'a [usize]>,
) -> Vec<(usize, usize, usize)> {
    let mut ends: std::collections::HashMap<usize, Option<(usize, usize)>> = Default::default();
    let mut end = |j: usize| {
        *ends.entry(j).or_insert_with(|| {
            let calls = calls_of(j)?;
            Some((*calls.iter().min()?, *calls.iter().max()?))
        })
    };
    let mut out = Vec::new();
    for (r, rule) in rules.iter().enumerate() {
        let (Some((_, last_first)), Some((first_then, _))) = (end(rule.first), end(rule.then))
        else {
            continue;
        };
        if first_then < last_first {
            out.push((r, first_then, last_first));
        }
    }
    out
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
    let mut assigned = assigned;
    deal(rules, slots, by_call, &mut assigned);
    if broken(rules, &assigned).is_empty() {
        return assigned;
    }
    exchange(rules, slots, by_call, &mut assigned, EXCHANGE_BUDGET);
    if broken(rules, &assigned).is_empty() {
        return assigned;
    }
    let pairs: usize = by_call.iter().map(Vec::len).sum();
    let rounds = ROUNDS.min(REALIGN_BUDGET / pairs.max(1).saturating_mul(2));
    let score = |a: &[Vec<usize>]| {
        (
            broken(rules, a).len(),
            std::cmp::Reverse(total_gain(slots, by_call, a)),
        )
    };
    let mut best_score = score(&assigned);
    let mut best = assigned.clone();
    let (mut cands, mut cur) = (by_call.to_vec(), assigned);
    for _ in 0..rounds {
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
            best.clone_from(&cur);
        }
    }
    best
}

/// The gain of expectation `j` holding `calls`, given which of them fully match.
fn gain_of(sl: &Slots, calls: usize, full: usize) -> i128 {
    let q = (calls - full).min(sl.min);
    let req_full = full.min(sl.min - q);
    q as i128 * sl.req_name
        + req_full as i128 * sl.req_full
        + (full - req_full) as i128 * sl.opt_full
}

/// Step 1 of [`respect`]: exchange calls between the two expectations of broken rules, where
/// that loses no gain, until no rule changes or `budget` is spent.
fn exchange(
    rules: &[BeforeRule],
    slots: &[Slots],
    by_call: &[Vec<Candidate>],
    assigned: &mut Assignment,
    budget: usize,
) {
    let m = assigned.len();
    let mut touching: Vec<Vec<usize>> = vec![Vec::new(); m];
    for (r, rule) in rules.iter().enumerate() {
        if rule.first < m && rule.then < m && rule.first != rule.then {
            touching[rule.first].push(r);
            touching[rule.then].push(r);
        }
    }
    let mut queue: std::collections::VecDeque<usize> = (0..rules.len()).collect();
    let mut queued = vec![true; rules.len()];
    let mut work = 0usize;
    while let Some(r) = queue.pop_front() {
        queued[r] = false;
        if work > budget {
            return;
        }
        let (a, b) = (rules[r].first, rules[r].then);
        if a >= m || b >= m || a == b {
            continue;
        }
        let (Some(&last_a), Some(&first_b)) = (assigned[a].last(), assigned[b].first()) else {
            continue;
        };
        if first_b > last_a {
            continue;
        }
        let mut pool: Vec<usize> = assigned[a].iter().chain(&assigned[b]).copied().collect();
        pool.sort_unstable();
        work += pool.len();
        // Whether each pooled call is a candidate of `a` and of `b`, and a full match of each.
        let mut full = Vec::with_capacity(pool.len());
        let mut ok = true;
        for &i in &pool {
            let cands = by_call.get(i).map_or(&[][..], Vec::as_slice);
            work += cands.len();
            let of = |j: usize| cands.iter().find(|c| c.exp == j).map(|c| c.full);
            if let (Some(fa), Some(fb)) = (of(a), of(b)) {
                full.push((fa, fb));
            } else {
                ok = false;
                break;
            }
        }
        if !ok {
            continue;
        }
        let na = assigned[a].len();
        let count = |calls: &[usize], side: fn(&(bool, bool)) -> bool| {
            calls
                .iter()
                .filter(|&&i| pool.binary_search(&i).is_ok_and(|p| side(&full[p])))
                .count()
        };
        let before = gain_of(&slots[a], na, count(&assigned[a], |f| f.0))
            + gain_of(&slots[b], assigned[b].len(), count(&assigned[b], |f| f.1));
        let after = gain_of(&slots[a], na, full[..na].iter().filter(|f| f.0).count())
            + gain_of(
                &slots[b],
                pool.len() - na,
                full[na..].iter().filter(|f| f.1).count(),
            );
        if after < before {
            continue;
        }
        assigned[b] = pool.split_off(na);
        assigned[a] = pool;
        for &x in touching[a].iter().chain(&touching[b]) {
            if !queued[x] {
                queued[x] = true;
                queue.push_back(x);
            }
        }
    }
}

/// Step 1 of [`respect`]: per group of expectations linked by rules, deal the group's calls to
/// its expectations in an order that honours the rules, where that loses no gain.
fn deal(
    rules: &[BeforeRule],
    slots: &[Slots],
    by_call: &[Vec<Candidate>],
    assigned: &mut Assignment,
) {
    let m = assigned.len();
    // Groups: union-find over the rules.
    let mut parent: Vec<usize> = (0..m).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let valid = |r: &BeforeRule| r.first < m && r.then < m && r.first != r.then;
    for r in rules.iter().filter(|r| valid(r)) {
        let (x, y) = (root(&mut parent, r.first), root(&mut parent, r.then));
        parent[x] = y;
    }
    let mut members: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    let mut in_rules = vec![false; m];
    for r in rules.iter().filter(|r| valid(r)) {
        in_rules[r.first] = true;
        in_rules[r.then] = true;
    }
    for j in (0..m).filter(|&j| in_rules[j]) {
        let g = root(&mut parent, j);
        members.entry(g).or_default().push(j);
    }
    // Kahn's algorithm over all rules at once: a topological order per group.
    let mut indegree = vec![0usize; m];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); m];
    for r in rules.iter().filter(|r| valid(r)) {
        out[r.first].push(r.then);
        indegree[r.then] += 1;
    }
    let mut ready: std::collections::VecDeque<usize> = (0..m)
        .filter(|&j| in_rules[j] && indegree[j] == 0)
        .collect();
    let mut rank = vec![usize::MAX; m];
    let mut next = 0;
    while let Some(j) = ready.pop_front() {
        rank[j] = next;
        next += 1;
        for &k in &out[j] {
            indegree[k] -= 1;
            if indegree[k] == 0 {
                ready.push_back(k);
            }
        }
    }
    // Only groups with a broken rule are dealt again.
    let mut to_deal = vec![false; m];
    for r in broken(rules, assigned) {
        if valid(&rules[r]) {
            let g = root(&mut parent, rules[r].first);
            to_deal[g] = true;
        }
    }
    let mut groups: Vec<Vec<usize>> = members
        .into_iter()
        .filter(|(g, _)| to_deal[*g])
        .map(|(_, v)| v)
        .collect();
    groups.sort_unstable();
    for mut group in groups {
        // A cycle leaves some member unranked: no order honours every rule of the group.
        if group.iter().any(|&j| rank[j] == usize::MAX) {
            continue;
        }
        group.sort_unstable_by_key(|&j| rank[j]);
        let mut pool: Vec<usize> = group.iter().flat_map(|&j| assigned[j].clone()).collect();
        pool.sort_unstable();
        let full = |j: usize, i: usize| -> Option<bool> {
            by_call.get(i)?.iter().find(|c| c.exp == j).map(|c| c.full)
        };
        let mut before = 0i128;
        let mut after = 0i128;
        let mut dealt: Vec<Vec<usize>> = Vec::with_capacity(group.len());
        let mut at = 0;
        let mut ok = true;
        for &j in &group {
            let k = assigned[j].len();
            let old_full = assigned[j]
                .iter()
                .filter(|&&i| full(j, i) == Some(true))
                .count();
            before += gain_of(&slots[j], k, old_full);
            let new = pool[at..at + k].to_vec();
            at += k;
            let mut new_full = 0;
            for &i in &new {
                match full(j, i) {
                    Some(f) => new_full += usize::from(f),
                    None => ok = false,
                }
            }
            if !ok {
                break;
            }
            after += gain_of(&slots[j], k, new_full);
            dealt.push(new);
        }
        if ok && after >= before {
            for (&j, calls) in group.iter().zip(dealt) {
                assigned[j] = calls;
            }
        }
    }
}
