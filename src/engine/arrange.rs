//! Arrangements: the `either` and `parallel` blocks of a spec as variants of its flat list of
//! expectations, each aligned by the ordinary engine; the best verdict counts.
//!
//! An arrangement chooses one branch of every `either` block (the expectations of the other
//! branches take no part: no candidates, no credit, no findings) and, under `strict` or
//! `in_order`, one order of the members of every `parallel` block it keeps (the alignment sees
//! the members in that order, in the block's place). The engine aligns each arrangement and keeps
//! the best verdict: a passing one before a failing one, then the higher score, then fewer
//! hard failures another alignment might avoid, then the first branch, then the written order.
//! That is optimal over every arrangement, since each alignment is. At most
//! [`MAX_ARRANGEMENTS`] are tried, within one work budget for the whole run
//! ([`ARRANGEMENT_WORK`](super::ARRANGEMENT_WORK): the pairs evaluated, once per choice of
//! branches, and the alignments' work); the compiler refuses a spec with more arrangements, and
//! past either bound the first are tried (every choice of branch in written order first, then
//! the other orders of parallel blocks) with a `too-large` note at the block.
//!
//! Cost: the constraints of each (call, expectation) pair are evaluated once per choice of
//! branches (`prepare.rs`); each order of the parallel blocks is one more alignment of the same
//! candidates (`docs/engine.md`).
//!
//! Critical expectations and blocks are judged here too: an active expectation that is
//! `critical`, or in a `critical` block, and is not met is a hard failure (`critical-unmet`).

use super::align::{Candidate, Slots};
use super::explain::{who, Pending};
use super::verdict::{ExpectationOutcome, Finding, Severity, Status};
use crate::code::Code;
use crate::config::{GroupKind, MatcherConfig, OrderMode, MAX_ARRANGEMENTS};
use crate::source::Span;

/// One arrangement of a spec.
#[derive(Debug, Clone)]
pub(crate) struct Arrangement {
    /// Per expectation: whether it takes part (it is in no branch that was not chosen).
    pub(crate) active: Vec<bool>,
    /// Per expectation: its place in the alignment's order; `None` for the written order.
    pub(crate) rank: Option<Vec<usize>>,
    /// The branch chosen of each `either` block: (index into `groups`, branch).
    pub(crate) chosen: Vec<(usize, usize)>,
    /// Which comes first among equally good verdicts: (choice of branches, in written order;
    /// order of the parallel blocks, the written order first).
    pub(crate) precedence: (usize, usize),
}

impl Arrangement {
    /// Every expectation, in written order: the arrangement of a spec without blocks.
    pub(crate) fn plain(m: usize) -> Self {
        Arrangement {
            active: vec![true; m],
            rank: None,
            chosen: Vec::new(),
            precedence: (0, 0),
        }
    }
}

/// Most arrangements tried (the compiler's bound, [`MAX_ARRANGEMENTS`]).
const MAX: usize = MAX_ARRANGEMENTS as usize;

/// The arrangements of `config`, in the order they are tried, and whether there were more
/// than [`MAX_ARRANGEMENTS`] (only the first are returned).
pub(crate) fn arrangements(config: &MatcherConfig) -> (Vec<Arrangement>, bool) {
    let m = config.expectations.len();
    let eithers: Vec<(usize, &Vec<Vec<usize>>)> = config
        .groups
        .iter()
        .enumerate()
        .filter_map(|(g, grp)| match &grp.kind {
            GroupKind::Either { branches } if !branches.is_empty() => Some((g, branches)),
            _ => None,
        })
        .collect();
    let parallels: Vec<&Vec<usize>> = if config.order == OrderMode::AnyOrder {
        Vec::new()
    } else {
        config
            .groups
            .iter()
            .filter_map(|grp| match &grp.kind {
                GroupKind::Parallel { members } => Some(members),
                GroupKind::Either { .. } => None,
            })
            .collect()
    };
    // Every choice of branches (at most MAX), with the parallel blocks it keeps.
    struct Choice {
        active: Vec<bool>,
        chosen: Vec<(usize, usize)>,
        groups: Vec<Vec<usize>>,
        orders: Vec<usize>,
    }
    let mut choices: Vec<Choice> = Vec::new();
    let radices: Vec<usize> = eithers.iter().map(|(_, b)| b.len()).collect();
    let mut choice = vec![0usize; eithers.len()];
    let mut more = false;
    loop {
        if choices.len() == MAX {
            more = true;
            break;
        }
        let mut active = vec![true; m];
        for (&(_, branches), &c) in eithers.iter().zip(&choice) {
            for (b, members) in branches.iter().enumerate() {
                if b != c {
                    for &j in members {
                        if let Some(a) = active.get_mut(j) {
                            *a = false;
                        }
                    }
                }
            }
        }
        let chosen: Vec<(usize, usize)> = eithers.iter().map(|e| e.0).zip(choice.clone()).collect();
        // The members of each parallel block that take part, written order, no repeats.
        let groups: Vec<Vec<usize>> = parallels
            .iter()
            .map(|members| {
                let mut ms: Vec<usize> = members
                    .iter()
                    .copied()
                    .filter(|&j| active.get(j).copied().unwrap_or(false))
                    .collect();
                ms.sort_unstable();
                ms.dedup();
                ms
            })
            .filter(|ms| ms.len() >= 2)
            .collect();
        let orders: Vec<usize> = groups
            .iter()
            .map(|ms| factorial_capped(ms.len(), MAX + 1))
            .collect();
        choices.push(Choice {
            active,
            chosen,
            groups,
            orders,
        });
        if !advance(&mut choice, &radices) {
            break;
        }
    }
    // Every choice of branches in written order first, then the other orders of parallel
    // blocks: if only the first arrangements are tried, every branch is among them.
    let mut out = Vec::new();
    for phase in 0..2 {
        for (ci, c) in choices.iter().enumerate() {
            let mut seq = 0usize;
            let mut perm = vec![0usize; c.groups.len()];
            if phase == 1 && !advance(&mut perm, &c.orders) {
                continue;
            }
            loop {
                if out.len() == MAX {
                    return (out, true);
                }
                let rank = (phase == 1).then(|| {
                    let mut rank: Vec<usize> = (0..m).collect();
                    for (ms, &k) in c.groups.iter().zip(&perm) {
                        let mut places: Vec<usize> = ms.iter().map(|&j| rank[j]).collect();
                        places.sort_unstable();
                        for (place, j) in places.into_iter().zip(nth_permutation(ms, k)) {
                            rank[j] = place;
                        }
                    }
                    rank
                });
                seq += phase;
                out.push(Arrangement {
                    active: c.active.clone(),
                    rank,
                    chosen: c.chosen.clone(),
                    precedence: (ci, seq),
                });
                if phase == 0 || !advance(&mut perm, &c.orders) {
                    break;
                }
            }
        }
    }
    (out, more)
}

/// The next combination of a mixed-radix counter; `false` after the last.
fn advance(digits: &mut [usize], radices: &[usize]) -> bool {
    for (d, &r) in digits.iter_mut().zip(radices) {
        *d += 1;
        if *d < r {
            return true;
        }
        *d = 0;
    }
    false
}

/// `k!`, or `cap` if it is larger.
fn factorial_capped(k: usize, cap: usize) -> usize {
    let mut f = 1usize;
    for i in 2..=k {
        f = f.saturating_mul(i);
        if f >= cap {
            return cap;
        }
    }
    f
}

/// The `k`-th permutation of `items` in lexicographic order of positions (0 is `items` itself).
fn nth_permutation(items: &[usize], mut k: usize) -> Vec<usize> {
    let mut pool: Vec<usize> = items.to_vec();
    let mut out = Vec::with_capacity(pool.len());
    while !pool.is_empty() {
        let rest = factorial_capped(pool.len() - 1, usize::MAX);
        let i = (k / rest).min(pool.len() - 1);
        k %= rest;
        out.push(pool.remove(i));
    }
    out
}

/// The in-order alignment of expectations taken in the order `rank` gives them.
pub(crate) fn align_ranked(
    slots: &[Slots],
    by_call: &[Vec<Candidate>],
    rank: &[usize],
) -> (Vec<Vec<usize>>, bool) {
    let m = slots.len();
    let mut ranked = slots.to_vec();
    for (j, s) in slots.iter().enumerate() {
        if let Some(&r) = rank.get(j).filter(|&&r| r < m) {
            ranked[r] = *s;
        }
    }
    let by_rank: Vec<Vec<Candidate>> = by_call
        .iter()
        .map(|cands| {
            let mut cs: Vec<Candidate> = cands
                .iter()
                .map(|c| Candidate {
                    exp: rank.get(c.exp).copied().unwrap_or(c.exp),
                    ..*c
                })
                .collect();
            cs.sort_unstable_by_key(|c| c.exp);
            cs
        })
        .collect();
    let (out, approximate) = super::in_order::align(&ranked, &by_rank);
    let assigned = (0..m)
        .map(|j| {
            let r = rank.get(j).copied().unwrap_or(j);
            out.get(r).cloned().unwrap_or_default()
        })
        .collect();
    (assigned, approximate)
}

/// Why an expectation is critical: itself, or the block it is in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Critical {
    /// `Some("either")` / `Some("parallel")` for a critical block, `None` for the expectation.
    block: Option<&'static str>,
    /// Where the critical expectation or block is written.
    span: Span,
}

/// Per expectation: why it is critical, if it is (a block's reason only for the expectations
/// that take part in this arrangement).
pub(crate) fn critical(config: &MatcherConfig, active: &[bool]) -> Vec<Option<Critical>> {
    let mut out: Vec<Option<Critical>> = config
        .expectations
        .iter()
        .map(|e| {
            e.critical.then_some(Critical {
                block: None,
                span: e.span,
            })
        })
        .collect();
    for g in config.groups.iter().filter(|g| g.critical) {
        let (what, members): (&'static str, Vec<usize>) = match &g.kind {
            GroupKind::Either { branches } => {
                ("either", branches.iter().flatten().copied().collect())
            }
            GroupKind::Parallel { members } => ("parallel", members.clone()),
        };
        for j in members {
            if let Some(slot) = out.get_mut(j) {
                if slot.is_none() && active.get(j).copied().unwrap_or(false) {
                    *slot = Some(Critical {
                        block: Some(what),
                        span: g.span,
                    });
                }
            }
        }
    }
    out
}

/// Whether an outcome leaves its expectation unmet.
fn unmet(o: &ExpectationOutcome) -> bool {
    matches!(
        o.status,
        Status::Missing | Status::TooFew | Status::NameOnly
    )
}

/// The `critical-unmet` findings: one per active critical expectation that is not met.
pub(crate) fn critical_findings(
    config: &MatcherConfig,
    outcomes: &[ExpectationOutcome],
    active: &[bool],
    why: &[Option<Critical>],
) -> Vec<Pending> {
    let mut out = Vec::new();
    for o in outcomes {
        let j = o.expectation;
        let (Some(Some(c)), true) = (why.get(j), active.get(j).copied().unwrap_or(false)) else {
            continue;
        };
        if !unmet(o) {
            continue;
        }
        let message = match c.block {
            None => format!(
                "critical expectation {} is not met: the pair fails whatever the score",
                who(config, j)
            ),
            Some(block) => format!(
                "expectation {} of a critical `{block}` block is not met: the pair fails \
                 whatever the score",
                who(config, j)
            ),
        };
        out.push(Pending::Ready(Box::new(Finding {
            code: Code::CriticalUnmet.id().into(),
            severity: Severity::Error,
            message,
            help: "a critical expectation must hold in every passing run; the finding of the \
                   expectation itself says what went wrong"
                .into(),
            expectation: Some(j),
            spec_span: Some(c.span),
            call: None,
            unverified: false,
        })));
    }
    out
}

/// The `too-large` note of a run that tried `tried` of its arrangements (of `total` listed, and
/// `more` if the spec has more than [`MAX_ARRANGEMENTS`]), at the block whose orders were cut
/// (the first `parallel` block, else the first `either`).
pub(crate) fn too_many(config: &MatcherConfig, tried: usize, total: usize, more: bool) -> Pending {
    let block = config
        .groups
        .iter()
        .find(|g| matches!(g.kind, GroupKind::Parallel { .. }))
        .or(config.groups.first());
    let of = if more {
        format!("more than {total}")
    } else {
        total.to_string()
    };
    Pending::Ready(Box::new(super::explain::finding(
        Code::TooLarge,
        Severity::Info,
        format!(
            "tried {tried} of the {of} arrangements of the `either` and `parallel` blocks (at \
             most {MAX}, within {} units of work for all but the first: pairs evaluated, calls \
             and pairs aligned); every choice of branch comes first in written order, then the \
             orders of the parallel blocks, so the matching may not be the best possible",
            super::ARRANGEMENT_WORK
        ),
        "split large `parallel` blocks, the spec or the transcript".into(),
        None,
        block.map(|g| g.span),
        None,
    )))
}

/// The `either-branch` notes of the chosen arrangement: per `either` block, which branch was
/// scored, and the best score each other branch reached.
pub(crate) fn branch_notes(
    config: &MatcherConfig,
    chosen: &[(usize, usize)],
    best_of: &dyn Fn(usize, usize) -> Option<f64>,
) -> Vec<Pending> {
    let mut out = Vec::new();
    for &(g, b) in chosen {
        let Some(group) = config.groups.get(g) else {
            continue;
        };
        let GroupKind::Either { branches } = &group.kind else {
            continue;
        };
        let name = |b: usize| match branches.get(b).and_then(|br| br.first()) {
            Some(&j) => format!("branch {} ({})", b + 1, who(config, j)),
            None => format!("branch {}", b + 1),
        };
        let others: Vec<String> = (0..branches.len())
            .filter(|&o| o != b)
            .map(|o| match best_of(g, o) {
                Some(s) => format!("{} reached at best {s:.2}", name(o)),
                None => format!("{} was not tried", name(o)),
            })
            .collect();
        let score = best_of(g, b).map_or(String::new(), |s| format!(": {s:.2}"));
        out.push(Pending::Ready(Box::new(Finding {
            code: Code::EitherBranch.id().into(),
            severity: Severity::Info,
            message: format!(
                "either block of {} branches: scored {}{score}; {}",
                branches.len(),
                name(b),
                others.join("; ")
            ),
            help: "only the chosen branch's expectations count; the others are left out of the \
                   score and the findings"
                .into(),
            expectation: branches.get(b).and_then(|br| br.first()).copied(),
            spec_span: Some(group.span),
            call: None,
            unverified: false,
        })));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_listed_in_order() {
        let all: Vec<Vec<usize>> = (0..6).map(|k| nth_permutation(&[4, 5, 6], k)).collect();
        assert_eq!(
            all,
            vec![
                vec![4, 5, 6],
                vec![4, 6, 5],
                vec![5, 4, 6],
                vec![5, 6, 4],
                vec![6, 4, 5],
                vec![6, 5, 4]
            ]
        );
    }

    #[test]
    fn every_branch_comes_before_the_other_orders() {
        use crate::config::{Group, OrderMode, Repeat, Scoring, ValueMatcher};
        let e = |t: &str| crate::config::Expectation {
            label: None,
            tool: t.into(),
            namespace: None,
            args_mode: crate::config::ArgsMode::Ignore,
            args: ValueMatcher::any(),
            output: None,
            errored: None,
            repeat: Repeat::ONCE,
            weight: 1.0,
            span: Span::default(),
            name_span: Span::default(),
            critical: false,
            scope: None,
        };
        let group = |kind| Group {
            kind,
            critical: false,
            span: Span::default(),
        };
        let config = MatcherConfig {
            version: crate::config::CONFIG_VERSION,
            name: "s".into(),
            span: Span::default(),
            transcripts: Vec::new(),
            format: None,
            order: OrderMode::InOrder,
            before: Vec::new(),
            expectations: ["a", "b", "c", "d", "e"].map(e).to_vec(),
            forbidden: Vec::new(),
            extra_calls: crate::config::ExtraCalls::Allow,
            names: crate::config::NameRules::default(),
            scoring: Scoring::default(),
            profile: None,
            deny_rules: Vec::new(),
            limits: Vec::new(),
            answer: None,
            pass_rate: None,
            groups: vec![
                group(GroupKind::Either {
                    branches: vec![vec![0, 1, 2], vec![3]],
                }),
                group(GroupKind::Parallel {
                    members: vec![0, 1, 2],
                }),
            ],
        };
        let (all, more) = arrangements(&config);
        assert!(!more);
        assert_eq!(all.len() as u128, config.arrangements());
        assert_eq!(all.len(), 7);
        assert!(all[0].rank.is_none() && all[1].rank.is_none());
        assert_eq!(all[0].chosen, vec![(0, 0)]);
        assert_eq!(all[1].chosen, vec![(0, 1)]);
        assert_eq!(all[1].active, vec![false, false, false, true, true]);
        assert_eq!(all[2].rank.as_deref(), Some(&[0, 2, 1, 3, 4][..]));
        assert!(all[2..].iter().all(|a| a.precedence.0 == 0));
    }

    #[test]
    fn counter_visits_every_combination() {
        let mut d = vec![0, 0];
        let mut n = 1;
        while advance(&mut d, &[2, 3]) {
            n += 1;
        }
        assert_eq!(n, 6);
    }
}
