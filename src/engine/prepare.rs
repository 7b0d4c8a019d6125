//! What one choice of `either` branches fixes, whatever the order of the `parallel` blocks: tool
//! names as ids, the forbidden calls, the slots and the first pass's candidates (every
//! name-compatible (call, expectation) pair, its constraints evaluated once).
//!
//! The orders of a spec's parallel blocks differ only in the order the alignment takes the
//! expectations in, so every order of one choice aligns these same candidates: the constraints
//! of a pair are evaluated once per choice of branches, not once per arrangement.

use super::align::{Candidate, Slots};
use super::checks::{Evaluator, RefMode};
use super::forbid::Forbid;
use super::names::NameTable;
use super::refs::RefCx;
use super::resolve::ParseCache;
use super::scopes;
use super::scopes::Bounds;
use super::{flow_edges, fuzzy, is_cap, of_name, small, Calls, FLOW_EDGE_BUDGET, PAIR_BUDGET};
use crate::config::{MatcherConfig, OrderMode};

/// What the arrangements of one run share: the JSON strings parsed and the fuzzy decisions
/// made, with their one work budget for the run however many arrangements are tried.
#[derive(Default)]
pub(crate) struct Shared {
    pub(crate) cache: ParseCache,
    pub(crate) fuzzy: fuzzy::RunFuzzy,
    /// References to an expectation that may match nothing apply even when it matched nothing
    /// (and then fail, as a reference to a missing call does): the run that tells whether a
    /// verdict rests on references that did not apply (`Run::new`).
    pub(crate) refs_always_apply: bool,
}

/// The candidates of one choice of branches.
pub(crate) struct Prepared {
    /// Which choice of branches (`Arrangement::precedence.0`).
    pub(crate) choice: usize,
    /// What reference checks share (it depends on the branches chosen).
    pub(crate) refcx: RefCx,
    /// Name id per expectation.
    pub(crate) exp_name: Vec<usize>,
    /// Name id per call.
    pub(crate) call_name: Vec<u32>,
    /// Per call: the `never` rule that forbids it (rules with a reference aside).
    pub(crate) forbidden_by: Vec<Option<u32>>,
    /// The `never` rules, for those with a reference (decided during the alignment).
    pub(crate) forbid: Forbid,
    /// The name id of each tool an `after` block is anchored on.
    pub(crate) anchor_name: std::collections::HashMap<String, u32>,
    /// Where the scopes of `after` blocks start, those anchored on a label taken as admitting
    /// every call.
    pub(crate) bounds: Bounds,
    /// Per expectation: its slots and their gains.
    pub(crate) slots: Vec<Slots>,
    /// Per call: the expectations it may fill, references taken as satisfied.
    pub(crate) by_call: Vec<Vec<Candidate>>,
    /// Whether each call was compared with a share of its name's expectations only
    /// ([`PAIR_BUDGET`], [`FLOW_EDGE_BUDGET`]).
    pub(crate) windowed: bool,
    /// The transcript's turns, for scoped expectations.
    pub(crate) turns: scopes::Turns,
    /// The work of one alignment of these candidates (see [`Prepared::alignment_work`]).
    pub(crate) alignment_work: usize,
}

/// The first phase of [`Prepared`]: names, forbidden calls and how many pairs the candidates
/// will evaluate, before any is.
pub(crate) struct Named<'r> {
    config: &'r MatcherConfig,
    calls: &'r dyn Calls,
    choice: usize,
    refcx: RefCx,
    exp_name: Vec<usize>,
    call_name: Vec<u32>,
    forbidden_by: Vec<Option<u32>>,
    forbid: Forbid,
    anchor_name: std::collections::HashMap<String, u32>,
    bounds: Bounds,
    exps_by_name: Vec<Vec<usize>>,
    calls_of: Vec<usize>,
    slots: Vec<Slots>,
    budget_pairs: Option<usize>,
    /// The (call, expectation) pairs whose constraints [`Named::evaluate`] evaluates.
    pub(crate) pairs: usize,
}

impl<'r> Named<'r> {
    /// The names of the expectations `active` keeps (a missing entry takes part), and the
    /// calls the spec forbids.
    pub(crate) fn new(
        config: &'r MatcherConfig,
        calls: &'r dyn Calls,
        active: &[bool],
        choice: usize,
        shared: &Shared,
    ) -> Named<'r> {
        let exps = &config.expectations;
        let is_active = |j: usize| active.get(j).copied().unwrap_or(true);
        let n = calls.count();
        let refcx = RefCx::new(config, active, shared.refs_always_apply);

        let mut names = NameTable::new(&config.names);
        let exp_name: Vec<usize> = exps.iter().map(|e| names.id(&e.tool)).collect();
        let forbidden_name: Vec<usize> =
            config.forbidden.iter().map(|f| names.id(&f.tool)).collect();
        // The tools `after` blocks are anchored on.
        let anchor_name: std::collections::HashMap<String, u32> = anchor_tools(config)
            .map(|t| (t.to_owned(), small(names.id(t))))
            .collect();
        // Ids are dense, in order of first sight: the spec's names hold the first ones, and the
        // per-name lists below are indexed by id and sized by the spec, not the transcript (a
        // call whose name the spec does not use has none).
        let spec_names = names.len();
        // Per call: 4-byte name ids and rule indices, so a transcript of 200 000 calls costs a
        // few megabytes of working lists, not tens.
        let call_name: Vec<u32> = (0..n).map(|i| small(names.id(calls.name(i)))).collect();

        let mut exps_by_name: Vec<Vec<usize>> = vec![Vec::new(); spec_names];
        for (j, &id) in exp_name.iter().enumerate().filter(|&(j, _)| is_active(j)) {
            exps_by_name[id].push(j);
        }
        let slots: Vec<Slots> = exps
            .iter()
            .map(|e| Slots::of(e, &config.scoring, n))
            .collect();
        let shared_eval = Evaluator {
            calls,
            cache: &shared.cache,
            fuzzy: &shared.fuzzy,
            refs: RefMode::Unavailable,
            refcx: &refcx,
        };
        // The `never` rules: a call is compared with the rules of its name and of any tool
        // (`never *`), and the first that matches forbids it; the rules with a reference wait
        // for the alignment (`forbid.rs`).
        let turns = scopes::Turns::of(calls);
        // Where the scopes of `after` blocks start; those anchored on a label are known once
        // the first alignment has matched it (`Pass::align`).
        let bounds = Bounds::of(
            config,
            calls,
            turns,
            &call_name,
            &|t| anchor_name.get(t).copied(),
            None,
        );
        let forbid = Forbid::new(config, &forbidden_name, spec_names);
        let forbidden_by = forbid.immediate(config, &shared_eval, turns, &bounds.rules, &call_name);
        // The pairs of the same name (forbidden calls take no part), before any is evaluated.
        let mut calls_of: Vec<usize> = vec![0; spec_names];
        for i in (0..n).filter(|&i| forbidden_by[i].is_none()) {
            if !of_name(&exps_by_name, call_name[i]).is_empty() {
                calls_of[call_name[i] as usize] += 1;
            }
        }
        let pairs = calls_of
            .iter()
            .zip(&exps_by_name)
            .fold(0usize, |acc, (&c, js)| {
                acc.saturating_add(c.saturating_mul(js.len()))
            });
        let budget_pairs = if config.order == OrderMode::AnyOrder
            && flow_edges(&calls_of, &exps_by_name, &slots) > FLOW_EDGE_BUDGET
        {
            Some(FLOW_EDGE_BUDGET / 2)
        } else if pairs > PAIR_BUDGET {
            Some(PAIR_BUDGET)
        } else {
            None
        };
        Named {
            config,
            calls,
            choice,
            refcx,
            exp_name,
            call_name,
            forbidden_by,
            forbid,
            anchor_name,
            bounds,
            exps_by_name,
            calls_of,
            slots,
            budget_pairs,
            pairs: budget_pairs.map_or(pairs, |b| pairs.min(b)),
        }
    }

    /// The candidates: every pair's constraints evaluated, references taken as satisfied.
    pub(crate) fn evaluate(self, shared: &Shared) -> Prepared {
        let Named {
            config,
            calls,
            choice,
            refcx,
            exp_name,
            call_name,
            forbidden_by,
            forbid,
            anchor_name,
            bounds,
            exps_by_name,
            calls_of,
            slots,
            budget_pairs,
            pairs: _,
        } = self;
        let exps = &config.expectations;
        let n = calls.count();
        let spec_names = exps_by_name.len();
        let with_exps: usize = calls_of.iter().sum();

        // Pass 1: reference constraints are taken as satisfied.
        let optimistic = Evaluator {
            calls,
            cache: &shared.cache,
            fuzzy: &shared.fuzzy,
            refs: RefMode::Optimistic,
            refcx: &refcx,
        };
        // Candidate pairs: every (call, expectation) of the same name, up to PAIR_BUDGET in
        // all, and under `order any` up to FLOW_EDGE_BUDGET edges of the flow graph; past
        // either, each call keeps a window of its name's expectations: under `order any` one
        // that turns with the call's rank among the calls of that name, so every expectation
        // stays reachable; in order, a band along the diagonal.
        let per_call = budget_pairs.map_or(usize::MAX, |b| (b / with_exps.max(1)).max(1));
        let turns = scopes::Turns::of(calls);
        let mut rank: Vec<usize> = vec![0; spec_names];
        let by_call: Vec<Vec<Candidate>> = (0..n)
            .map(|i| {
                if forbidden_by[i].is_some() {
                    return Vec::new();
                }
                let id = call_name[i] as usize;
                let js = of_name(&exps_by_name, call_name[i]);
                if js.is_empty() {
                    return Vec::new();
                }
                let r = &mut rank[id];
                let first = if js.len() <= per_call {
                    0
                } else if config.order == OrderMode::AnyOrder {
                    // Turning: consecutive calls see consecutive shares.
                    (*r).wrapping_mul(per_call) % js.len()
                } else {
                    // A band along the diagonal: the r-th of c calls sees the expectations
                    // around the (r·k/c)-th, where an in-order alignment would put it.
                    let c = calls_of[id].max(1);
                    let centre = ((*r as u128 * js.len() as u128) / c as u128) as usize;
                    centre.saturating_sub(per_call / 2).min(js.len() - per_call)
                };
                *r += 1;
                // The expectations of a name are listed ascending: a whole list is its own
                // window (the usual case), and only a part of one is sorted anew.
                let window: std::borrow::Cow<'_, [usize]> = if js.len() <= per_call {
                    std::borrow::Cow::Borrowed(js)
                } else {
                    let mut w: Vec<usize> = js
                        .iter()
                        .cycle()
                        .skip(first)
                        .take(per_call)
                        .copied()
                        .collect();
                    w.sort_unstable();
                    std::borrow::Cow::Owned(w)
                };
                let mut cands: Vec<Candidate> = window
                    .iter()
                    .copied()
                    // A scoped expectation pairs only with the calls of its turn and agent, after
                    // its anchor; one that names a server, only with calls of that server.
                    .filter(|&j| {
                        bounds.exps[j].admits(i)
                            && scopes::in_scope(exps[j].scope.as_ref(), calls, turns, i)
                            && super::of_server(exps[j].namespace.as_deref(), calls, i)
                    })
                    .map(|j| Candidate {
                        exp: j,
                        full: optimistic.satisfies(&exps[j], i),
                        capped: false,
                    })
                    .collect();
                let capped = cands.iter().any(|c| c.full && is_cap(&exps[c.exp]));
                for c in &mut cands {
                    c.capped = capped;
                }
                cands
            })
            .collect();
        let alignment_work = alignment_work(config.order, &slots, &by_call);
        Prepared {
            choice,
            refcx,
            exp_name,
            call_name,
            forbidden_by,
            forbid,
            anchor_name,
            bounds,
            slots,
            by_call,
            windowed: per_call != usize::MAX,
            turns,
            alignment_work,
        }
    }
}

/// The work of one alignment of `by_call`, in the units of [`super::ARRANGEMENT_WORK`]: a unit
/// per call and per candidate pair; in order, per pair the states of its expectation it
/// updates and the best earlier state it looks up (up to a block of 128 states), and per call
/// the blocks of states it merges (`in_order.rs`).
fn alignment_work(order: OrderMode, slots: &[Slots], by_call: &[Vec<Candidate>]) -> usize {
    let mut compatible = vec![0usize; slots.len()];
    let mut pairs = 0usize;
    for c in by_call.iter().flatten() {
        pairs += 1;
        if let Some(x) = compatible.get_mut(c.exp) {
            *x += 1;
        }
    }
    let base = by_call.len().saturating_add(pairs);
    if order == OrderMode::AnyOrder {
        return base;
    }
    // States per expectation, as the programme counts them before any budget applies.
    let states: Vec<usize> = slots
        .iter()
        .zip(&compatible)
        .map(|(s, &c)| {
            let req = s.min.min(c);
            let opt = match s.max {
                Some(x) => x.saturating_sub(s.min).min(c),
                None => 0,
            };
            (req + 1).saturating_mul(opt + 1)
        })
        .collect();
    let total: usize = states.iter().fold(0, |a, &s| a.saturating_add(s));
    let per_pair = by_call.iter().flatten().fold(0usize, |acc, c| {
        let s = states.get(c.exp).copied().unwrap_or(1);
        acc.saturating_add(s.min(super::in_order::STATE_BUDGET))
            .saturating_add(LOOKUP)
    });
    let per_call = by_call
        .iter()
        .filter(|c| !c.is_empty())
        .count()
        .saturating_mul(total / LOOKUP + 1);
    base.saturating_add(per_pair).saturating_add(per_call)
}

/// States a pair's look-up of the best earlier state scans, on average (half a block).
const LOOKUP: usize = 64;

/// The tools `config`'s `after` blocks are anchored on (a name that is not a label).
fn anchor_tools(config: &MatcherConfig) -> impl Iterator<Item = &str> {
    config
        .expectations
        .iter()
        .filter_map(|e| e.scope.as_ref())
        .chain(config.forbidden.iter().filter_map(|f| f.scope.as_ref()))
        .chain(config.limits.iter().filter_map(|l| l.scope.as_ref()))
        .filter_map(|s| match s.after.as_ref().map(|a| &a.anchor) {
            Some(crate::config::Anchor::Tool { tool }) => Some(tool.as_str()),
            _ => None,
        })
}
