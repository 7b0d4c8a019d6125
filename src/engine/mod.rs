//! Engine: [`MatcherConfig`] + ordered tool calls → [`Verdict`]. Pure; no I/O; never panics.
//!
//! Input: a compiled spec and a transcript's normalised calls. Output: a score in [0, 1],
//! pass/fail, for every expectation the calls it matched (or why none did), the calls nothing
//! accounted for, and findings with spans. Nothing can fail: bad data in a config (a reference to
//! an expectation that does not exist, NaN weights) degrades into findings or zero weights.
//!
//! The steps, each in its own file:
//!
//! 1. names (`names.rs`): every tool name normalised once; calls and expectations get name ids;
//! 2. forbidden calls are set aside;
//! 3. candidates: for every (expectation, call) pair with the same name id, up to
//!    [`PAIR_BUDGET`] pairs and, under `order any`, [`FLOW_EDGE_BUDGET`] flow edges (past
//!    either each call gets a share of its name's expectations and the pair a `too-large`
//!    note), whether the call satisfies every constraint (`checks.rs`; paths
//!    step into JSON strings, parsed once per run, `resolve.rs`; fuzzy matching with bounded
//!    work per pair and per run, [`fuzzy`]);
//! 4. alignment maximising total gain (`align.rs`): order-preserving dynamic programme for
//!    strict and in-order specs (`in_order.rs`), min-cost flow for any order (`any_order.rs`);
//! 5. references: if any constraint refers to an earlier expectation, the calls matched to the
//!    referenced expectations in step 4 are pinned, reference constraints are evaluated against
//!    them, and the alignment is run once more (comparisons, membership with `[*]` collections
//!    and references to an optional expectation that matched nothing: `refs.rs`);
//! 6. `before` rules: if the alignment breaks one, a bounded search for one that does not
//!    (`before.rs`: one dealing pass, bounded exchanges, a bounded number of realignments);
//! 7. the verdict: statuses, calls beyond an `at_most` cap (a hard failure), failures of name-only calls, native score
//!    ([`native`]), findings (`explain.rs`); a `critical` expectation not met is a hard failure.
//!
//! A spec with `either` or `parallel` blocks runs these steps once per arrangement of its blocks
//! (`arrange.rs`: the expectations of the branches not chosen left out, the members of parallel
//! blocks aligned in each order), at most [`MAX_ARRANGEMENTS`](crate::config::MAX_ARRANGEMENTS)
//! times, and keeps the best verdict.
//!
//! Semantics and the formula are documented in `docs/scoring.md`; the verdict's shape and the
//! finding codes in `docs/engine.md`.

mod align;
mod any_order;
mod arrange;
mod before;
mod checks;
pub mod difflib;
mod explain;
pub mod fuzzy;
mod in_order;
mod json;
mod keep;
pub mod names;
pub mod native;
mod refs;
pub use refs::{EACH_BOUND, VISIT_BOUND};
pub mod per_argument;
mod resolve;
mod scopes;
mod text_path;
pub mod tokens;
pub mod verdict;

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use crate::code::Code;
use crate::config::{Check, Expectation, ExtraCalls, MatcherConfig, OrderMode, Part};
use crate::source::Span;
use crate::transcript::model::{CallTable, ToolCall};
use align::{sane, Candidate, Slots};
use arrange::Arrangement;
pub use arrange::ARRANGEMENT_BUDGET;
use checks::{Evaluator, RefMode};
pub(crate) use json::trimmed;
pub use keep::keep_for;
use names::NameTable;
use native::NativeInputs;
use resolve::ParseCache;
pub use verdict::{
    Counts, ExpectationOutcome, Failure, FailurePart, Finding, Severity, Status, Verdict,
};

/// The calls the engine checks, in transcript order, whatever holds them: a list of
/// [`ToolCall`]s, or the compact [`CallTable`] a check reads.
pub trait Calls {
    /// Number of calls.
    fn count(&self) -> usize;
    /// The name of call `i`.
    fn name(&self, i: usize) -> &str;
    /// Whether call `i` is marked as failed.
    fn is_error(&self, i: usize) -> bool;
    /// The arguments of call `i`: borrowed when they are held as JSON, parsed when held as text
    /// (`null` when they were not kept).
    fn args(&self, i: usize) -> Cow<'_, Value>;
    /// The output of call `i`, if one is recorded (and kept).
    fn output(&self, i: usize) -> Option<&Value>;
    /// The user turn of call `i` (1-based), if the transcript records turns.
    fn turn(&self, _i: usize) -> Option<u32> {
        None
    }
    /// The sub-agent that made call `i` (`None` for the main agent, or when not recorded).
    fn agent(&self, _i: usize) -> Option<&str> {
        None
    }
    /// How many user turns the transcript has, if it records turns: by default the last turn
    /// a call belongs to (a transcript read from a file knows its own count, see [`Recorded`]).
    fn turns(&self) -> Option<u32> {
        (0..self.count()).filter_map(|i| self.turn(i)).max()
    }
    /// The final assistant message, if the transcript records it.
    fn answer(&self) -> Option<&str> {
        None
    }
}

/// Calls with what their transcript records beside them: its number of user turns and its
/// final answer (see [`crate::transcript::Transcript`]).
pub struct Recorded<'a> {
    /// The calls.
    pub calls: &'a dyn Calls,
    /// How many user turns the transcript records (`None`: none recorded).
    pub turns: Option<u32>,
    /// The final assistant message, if recorded.
    pub answer: Option<&'a str>,
}

impl Calls for Recorded<'_> {
    fn count(&self) -> usize {
        self.calls.count()
    }
    fn name(&self, i: usize) -> &str {
        self.calls.name(i)
    }
    fn is_error(&self, i: usize) -> bool {
        self.calls.is_error(i)
    }
    fn args(&self, i: usize) -> Cow<'_, Value> {
        self.calls.args(i)
    }
    fn output(&self, i: usize) -> Option<&Value> {
        self.calls.output(i)
    }
    fn turn(&self, i: usize) -> Option<u32> {
        self.calls.turn(i)
    }
    fn agent(&self, i: usize) -> Option<&str> {
        self.calls.agent(i)
    }
    fn turns(&self) -> Option<u32> {
        self.turns
    }
    fn answer(&self) -> Option<&str> {
        self.answer
    }
}

impl Calls for [ToolCall] {
    fn count(&self) -> usize {
        self.len()
    }
    fn name(&self, i: usize) -> &str {
        self.get(i).map_or("", |c| c.name.as_str())
    }
    fn is_error(&self, i: usize) -> bool {
        self.get(i).is_some_and(|c| c.is_error)
    }
    fn args(&self, i: usize) -> Cow<'_, Value> {
        match self.get(i) {
            Some(c) => Cow::Borrowed(&c.args),
            None => Cow::Owned(Value::Null),
        }
    }
    fn output(&self, i: usize) -> Option<&Value> {
        self.get(i).and_then(|c| c.output.as_ref())
    }
    fn turn(&self, i: usize) -> Option<u32> {
        self.get(i).and_then(|c| c.turn)
    }
    fn agent(&self, i: usize) -> Option<&str> {
        self.get(i).and_then(|c| c.agent.as_deref())
    }
}

impl<const N: usize> Calls for [ToolCall; N] {
    fn count(&self) -> usize {
        N
    }
    fn name(&self, i: usize) -> &str {
        self.as_slice().name(i)
    }
    fn is_error(&self, i: usize) -> bool {
        self.as_slice().is_error(i)
    }
    fn args(&self, i: usize) -> Cow<'_, Value> {
        self.as_slice().args(i)
    }
    fn output(&self, i: usize) -> Option<&Value> {
        self.as_slice().output(i)
    }
    fn turn(&self, i: usize) -> Option<u32> {
        self.as_slice().turn(i)
    }
    fn agent(&self, i: usize) -> Option<&str> {
        self.as_slice().agent(i)
    }
}

impl Calls for Vec<ToolCall> {
    fn count(&self) -> usize {
        self.len()
    }
    fn name(&self, i: usize) -> &str {
        self.as_slice().name(i)
    }
    fn is_error(&self, i: usize) -> bool {
        self.as_slice().is_error(i)
    }
    fn args(&self, i: usize) -> Cow<'_, Value> {
        self.as_slice().args(i)
    }
    fn output(&self, i: usize) -> Option<&Value> {
        self.as_slice().output(i)
    }
    fn turn(&self, i: usize) -> Option<u32> {
        self.as_slice().turn(i)
    }
    fn agent(&self, i: usize) -> Option<&str> {
        self.as_slice().agent(i)
    }
}

impl Calls for CallTable {
    fn count(&self) -> usize {
        self.len()
    }
    fn name(&self, i: usize) -> &str {
        CallTable::name(self, i)
    }
    fn is_error(&self, i: usize) -> bool {
        CallTable::is_error(self, i)
    }
    fn args(&self, i: usize) -> Cow<'_, Value> {
        Cow::Owned(CallTable::args(self, i))
    }
    fn output(&self, i: usize) -> Option<&Value> {
        CallTable::output(self, i)
    }
    fn turn(&self, i: usize) -> Option<u32> {
        CallTable::turn(self, i)
    }
    fn agent(&self, i: usize) -> Option<&str> {
        CallTable::agent(self, i)
    }
}

/// Check `calls` (in transcript order) against `config`: a `&[ToolCall]` (or a `Vec` or an
/// array of them), or a compact [`CallTable`].
pub fn run<C: Calls + ?Sized>(config: &MatcherConfig, calls: &C) -> Verdict {
    Run::new(config, &AsDyn(calls)).into_verdict()
}

/// A sized handle on any [`Calls`], so that slices too are seen as `&dyn Calls`.
struct AsDyn<'a, C: ?Sized>(&'a C);

impl<C: Calls + ?Sized> Calls for AsDyn<'_, C> {
    fn count(&self) -> usize {
        self.0.count()
    }
    fn name(&self, i: usize) -> &str {
        self.0.name(i)
    }
    fn is_error(&self, i: usize) -> bool {
        self.0.is_error(i)
    }
    fn args(&self, i: usize) -> Cow<'_, Value> {
        self.0.args(i)
    }
    fn output(&self, i: usize) -> Option<&Value> {
        self.0.output(i)
    }
    fn turn(&self, i: usize) -> Option<u32> {
        self.0.turn(i)
    }
    fn agent(&self, i: usize) -> Option<&str> {
        self.0.agent(i)
    }
    fn turns(&self) -> Option<u32> {
        self.0.turns()
    }
    fn answer(&self) -> Option<&str> {
        self.0.answer()
    }
}

/// One spec checked against one transcript, its findings built on demand: what
/// [`run`] collects into a [`Verdict`], for a caller that writes findings out as it goes (the
/// streamed check) and need not hold them all.
pub struct Run<'a> {
    config: &'a MatcherConfig,
    calls: &'a dyn Calls,
    cache: ParseCache,
    fuzzy: fuzzy::RunFuzzy,
    refcx: refs::RefCx,
    assigned: Vec<Vec<usize>>,
    strict_extras: bool,
    /// The findings in the verdict's order, most built, the plentiful ones (extra calls) only
    /// described.
    pending: Vec<explain::Pending>,
    verdict: Verdict,
}

impl std::fmt::Debug for Run<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("verdict", &self.verdict)
            .field("findings", &self.pending.len())
            .finish()
    }
}

impl<'a> Run<'a> {
    /// Check `calls` against `config`. The verdict is complete but for its findings, which are
    /// handed out one at a time ([`Run::finding`]), in the verdict's order.
    pub fn new(config: &'a MatcherConfig, calls: &'a dyn Calls) -> Run<'a> {
        if config.groups.is_empty() {
            return Run::arranged(
                config,
                calls,
                &Arrangement::plain(config.expectations.len()),
            );
        }
        // Every arrangement of the `either` and `parallel` blocks, the best verdict kept
        // (passing first, then the higher score, then the first tried).
        let (mut all, mut truncated) = arrange::arrangements(config);
        let affordable = (arrange::ARRANGEMENT_BUDGET / calls.count().max(1)).max(1);
        if all.len() > affordable {
            all.truncate(affordable);
            truncated = true;
        }
        let mut best: Option<(Run<'a>, usize)> = None;
        let mut branch_best: HashMap<(usize, usize), f64> = HashMap::new();
        for (k, arr) in all.iter().enumerate() {
            let run = Run::arranged(config, calls, arr);
            let v = &run.verdict;
            for &gb in &arr.chosen {
                let s = branch_best.entry(gb).or_insert(v.score);
                *s = s.max(v.score);
            }
            let better = best.as_ref().is_none_or(|(b, kb)| {
                let (bv, bp) = (&b.verdict, all[*kb].precedence);
                (v.passed, v.score) > (bv.passed, bv.score)
                    || ((v.passed, v.score) == (bv.passed, bv.score) && arr.precedence < bp)
            });
            if better {
                best = Some((run, k));
            }
        }
        let Some((mut run, k)) = best else {
            return Run::arranged(
                config,
                calls,
                &Arrangement::plain(config.expectations.len()),
            );
        };
        let arr = &all[k];
        run.verdict
            .expectations
            .retain(|o| arr.active.get(o.expectation).copied().unwrap_or(true));
        let best_of = |g: usize, b: usize| branch_best.get(&(g, b)).copied();
        run.pending
            .extend(arrange::branch_notes(config, &arr.chosen, &best_of));
        if truncated {
            run.pending
                .push(explain::too_large(explain::Budget::Arrangements));
        }
        explain::sort(&mut run.pending);
        run
    }

    /// Check `calls` against one arrangement of `config`'s blocks: the expectations it leaves
    /// out get no candidate and no credit, and in-order alignment takes the expectations in its
    /// order.
    fn arranged(config: &'a MatcherConfig, calls: &'a dyn Calls, arr: &Arrangement) -> Run<'a> {
        let exps = &config.expectations;
        let active = |j: usize| arr.active.get(j).copied().unwrap_or(true);
        let (m, n) = (exps.len(), calls.count());
        let cache = ParseCache::default();
        let fuzzy = fuzzy::RunFuzzy::default();
        let refcx = refs::RefCx::new(config, &arr.active);

        let mut names = NameTable::new(&config.names);
        let exp_name: Vec<usize> = exps.iter().map(|e| names.id(&e.tool)).collect();
        let forbidden_name: Vec<usize> =
            config.forbidden.iter().map(|f| names.id(&f.tool)).collect();
        // Ids are dense, in order of first sight: the spec's names hold the first ones, and the
        // per-name lists below are indexed by id and sized by the spec, not the transcript (a
        // call whose name the spec does not use has none).
        let spec_names = names.len();
        // Per call: 4-byte name ids and rule indices, so a transcript of 200 000 calls costs a
        // few megabytes of working lists, not tens.
        let call_name: Vec<u32> = (0..n).map(|i| small(names.id(calls.name(i)))).collect();

        let plain = Evaluator {
            calls,
            cache: &cache,
            fuzzy: &fuzzy,
            refs: RefMode::Unavailable,
            refcx: &refcx,
        };
        // The `never` rules of each name, in spec order: a call is compared with the rules of
        // its name only (not calls × rules), and the first that matches forbids it.
        let mut rules_of: Vec<Vec<usize>> = vec![Vec::new(); spec_names];
        for (r, &name) in forbidden_name.iter().enumerate() {
            rules_of[name].push(r);
        }
        let forbidden_by: Vec<Option<u32>> = (0..n)
            .map(|i| {
                let rules = of_name(&rules_of, call_name[i]);
                let rule = rules.iter().copied().find(|&r| {
                    config.forbidden[r].args.as_ref().is_none_or(|a| {
                        plain
                            .with_args(i, |ev, args| ev.matcher(a, Some(args), Part::Args, i, None))
                    })
                });
                rule.map(small)
            })
            .collect();

        let mut exps_by_name: Vec<Vec<usize>> = vec![Vec::new(); spec_names];
        for (j, &id) in exp_name.iter().enumerate().filter(|&(j, _)| active(j)) {
            exps_by_name[id].push(j);
        }
        let slots: Vec<Slots> = exps
            .iter()
            .map(|e| Slots::of(e, &config.scoring, n))
            .collect();

        // Pass 1: reference constraints are taken as satisfied.
        let optimistic = Evaluator {
            refs: RefMode::Optimistic,
            ..plain
        };
        // Candidate pairs: every (call, expectation) of the same name, up to PAIR_BUDGET in
        // all, and under `order any` up to FLOW_EDGE_BUDGET edges of the flow graph; past
        // either, each call keeps a window of its name's expectations: under `order any` one
        // that turns with the call's rank among the calls of that name, so every expectation
        // stays reachable; in order, a band along the diagonal.
        let mut calls_of: Vec<usize> = vec![0; spec_names];
        for i in (0..n).filter(|&i| forbidden_by[i].is_none()) {
            if !of_name(&exps_by_name, call_name[i]).is_empty() {
                calls_of[call_name[i] as usize] += 1;
            }
        }
        let with_exps: usize = calls_of.iter().sum();
        let pairs = calls_of
            .iter()
            .zip(&exps_by_name)
            .fold(0usize, |acc, (&c, js)| {
                acc.saturating_add(c.saturating_mul(js.len()))
            });
        let budget = if config.order == OrderMode::AnyOrder
            && flow_edges(&calls_of, &exps_by_name, &slots) > FLOW_EDGE_BUDGET
        {
            Some(FLOW_EDGE_BUDGET / 2)
        } else if pairs > PAIR_BUDGET {
            Some(PAIR_BUDGET)
        } else {
            None
        };
        let per_call = budget.map_or(usize::MAX, |b| (b / with_exps.max(1)).max(1));
        let turns = scopes::Turns::of(calls);
        let mut rank: Vec<usize> = vec![0; spec_names];
        let mut by_call: Vec<Vec<Candidate>> = (0..n)
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
                    // A scoped expectation pairs only with the calls of its turn and agent.
                    .filter(|&j| scopes::in_scope(exps[j].scope.as_ref(), calls, turns, i))
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
        // Set when an alignment ran past a budget (reported as a `too-large` note).
        let too_large: std::cell::Cell<Option<explain::Budget>> =
            std::cell::Cell::new((per_call != usize::MAX).then_some(explain::Budget::Pairs));
        let align = |by_call: &[Vec<Candidate>]| match config.order {
            OrderMode::Strict | OrderMode::InOrder => {
                let (a, approximate) = match &arr.rank {
                    Some(rank) => arrange::align_ranked(&slots, by_call, rank),
                    None => in_order::align(&slots, by_call),
                };
                if approximate {
                    too_large.set(Some(explain::Budget::InOrder));
                }
                a
            }
            OrderMode::AnyOrder => {
                let (a, approximate) = any_order::align(&slots, by_call, &exp_name);
                if approximate {
                    too_large.set(Some(explain::Budget::AnyOrder));
                }
                a
            }
        };
        let mut assigned = align(&by_call);

        // Pass 2: pin the referenced expectations' calls, evaluate references against them, realign.
        let referenced = referenced_expectations(exps);
        if referenced.iter().any(|&r| r) {
            let pinned = assigned.clone();
            let mut pinned_to = vec![None; n];
            for (k, calls_k) in pinned.iter().enumerate() {
                if referenced[k] {
                    for &i in calls_k {
                        pinned_to[i] = Some(k);
                    }
                }
            }
            let with_refs: Vec<bool> = exps.iter().map(has_ref).collect();
            let against = Evaluator {
                refs: RefMode::Partners(&pinned),
                ..plain
            };
            for (i, cands) in by_call.iter_mut().enumerate() {
                cands.retain(|c| match pinned_to[i] {
                    Some(k) => c.exp == k,
                    None => !referenced[c.exp],
                });
                for c in cands.iter_mut() {
                    if with_refs[c.exp] {
                        c.full = against.satisfies(&exps[c.exp], i);
                    }
                }
            }
            assigned = align(&by_call);
        }
        if !config.before.is_empty() {
            assigned = before::respect(&config.before, &slots, &by_call, assigned, &align);
        }

        // The verdict, with references judged against the final partners.
        let judge = Evaluator {
            refs: RefMode::Partners(&assigned),
            ..plain
        };
        let mut owner = vec![None; n];
        let mut outcomes = Vec::with_capacity(m);
        let mut inputs = NativeInputs {
            all_met: true,
            ..NativeInputs::default()
        };
        let mut counts = Counts {
            calls: n,
            expectations: (0..m).filter(|&j| active(j)).count(),
            ..Counts::default()
        };
        for (j, e) in exps.iter().enumerate() {
            let calls_j = &assigned[j];
            if !active(j) {
                // In a branch not chosen: no credit, nothing required (removed from the
                // verdict by `Run::new`).
                outcomes.push(ExpectationOutcome {
                    expectation: j,
                    tool: e.tool.clone(),
                    label: e.label.clone(),
                    status: Status::Skipped,
                    calls: Vec::new(),
                    credit: 0.0,
                    max_credit: 0.0,
                    failures: Vec::new(),
                    shares: Vec::new(),
                });
                continue;
            }
            let mut failures = Vec::new();
            let mut full = 0usize;
            let mut shares = Vec::new();
            let w = sane(e.weight);
            let credits = (
                sane(config.scoring.exact_match),
                sane(config.scoring.name_only),
                w,
            );
            for &i in calls_j {
                owner[i] = Some(small(j));
                let f = judge.failures(e, i);
                if f.is_empty() {
                    full += 1;
                } else if config.scoring.per_argument && !config.scoring.binary {
                    shares.push(per_argument::share_of(e, i, f.iter(), credits));
                }
                failures.extend(f);
            }
            let k = calls_j.len();
            let name_only = k - full;
            let min = slots[j].min;
            // Name-only calls can only fill required slots; full matches fill the rest.
            let req_name = name_only.min(min);
            let req_full = full.min(min - req_name);
            // Under `score per_argument` each name-only call earns its own share.
            let name_credit = if shares.is_empty() {
                w * sane(config.scoring.name_only) * req_name as f64
            } else {
                shares.iter().take(req_name).map(|s| s.credit).sum()
            };
            let credit = w * sane(config.scoring.exact_match) * req_full as f64 + name_credit;
            let unmet = min - req_full;
            inputs.earned += credit;
            inputs.required_weight += w * min as f64;
            inputs.unmet_weight += w * unmet as f64;
            inputs.all_met &= unmet == 0;
            counts.exact += full;
            counts.name_only += name_only;
            counts.missing += min - k.min(min);
            let status = if k == 0 {
                if min == 0 {
                    Status::Skipped
                } else {
                    Status::Missing
                }
            } else if k < min {
                Status::TooFew
            } else if name_only > 0 {
                Status::NameOnly
            } else {
                Status::Matched
            };
            outcomes.push(ExpectationOutcome {
                expectation: j,
                tool: e.tool.clone(),
                label: e.label.clone(),
                status,
                calls: calls_j.clone(),
                credit,
                max_credit: w * sane(config.scoring.exact_match) * min as f64,
                failures,
                shares,
            });
        }
        let unaccounted: Vec<usize> = (0..n).filter(|&i| owner[i].is_none()).collect();
        let over_cap = over_cap(exps, &assigned, &owner, &forbidden_by, &by_call);
        for &(_, j) in &over_cap {
            outcomes[j].status = Status::TooMany;
        }
        counts.forbidden = forbidden_by.iter().filter(|f| f.is_some()).count();
        counts.extra = unaccounted.len() - counts.forbidden;
        inputs.unaccounted = unaccounted.len();

        let strict_extras =
            config.order == OrderMode::Strict || config.extra_calls == ExtraCalls::Forbid;
        let ctx = explain::Context {
            config,
            calls,
            exp_name: &exp_name,
            call_name: &call_name,
            forbidden_by: &forbidden_by,
            owner: &owner,
            by_call: &by_call,
            over_cap: &over_cap,
            turns,
            active: &arr.active,
        };
        let before_broken = explain::before_violations(&ctx, &outcomes);
        let (scope_findings, unjudged) = scopes::findings(config, calls);
        // The answer counts as one expectation of weight 1 (`docs/scoring.md`).
        let answer = config
            .answer
            .as_ref()
            .map(|a| scopes::answer(a, calls, &judge));
        if let Some((holds, _)) = &answer {
            let exact = sane(config.scoring.exact_match);
            inputs.required_weight += 1.0;
            if *holds {
                inputs.earned += exact;
            } else {
                inputs.unmet_weight += 1.0;
                inputs.all_met = false;
            }
        }
        let critical = arrange::critical(config, &arr.active);
        let mut pending = explain::findings(&ctx, &mut outcomes, before_broken.clone());
        let critical_unmet = arrange::critical_findings(config, &outcomes, &arr.active, &critical);
        inputs.hard_failure = counts.forbidden > 0
            || !over_cap.is_empty()
            || (strict_extras && counts.extra > 0)
            || !before_broken.is_empty()
            || unjudged
            || !critical_unmet.is_empty();
        let result = native::score(&config.scoring, &inputs);
        explain::merge(
            &mut pending,
            refs::not_applied(config, &assigned, &arr.active),
        );
        let extra = scope_findings
            .into_iter()
            .chain(answer.and_then(|(_, f)| f))
            .map(|f| explain::Pending::Ready(Box::new(f)));
        pending.extend(extra);
        if !critical_unmet.is_empty() {
            pending.extend(critical_unmet);
            explain::sort(&mut pending);
        }
        if let Some(budget) = too_large.get() {
            pending.push(explain::too_large(budget));
        }

        Run {
            config,
            calls,
            cache,
            fuzzy,
            refcx,
            assigned,
            strict_extras,
            pending,
            verdict: Verdict {
                score: result.score,
                passed: result.passed,
                threshold: native::threshold(&config.scoring),
                counts,
                expectations: outcomes,
                unaccounted,
                findings: Vec::new(),
            },
        }
    }

    /// The verdict, without its findings (see [`Run::finding`]).
    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }

    /// How many findings the verdict has.
    pub fn finding_count(&self) -> usize {
        self.pending.len()
    }

    /// Where finding `k` (in the verdict's order) points, without building it: the call it is
    /// about, where in the spec, and its code.
    pub fn finding_place(&self, k: usize) -> (Option<usize>, Option<Span>, &str) {
        match self.pending.get(k) {
            Some(explain::Pending::Ready(f)) => (f.call, f.spec_span, f.code.as_str()),
            Some(explain::Pending::Unexpected { call, .. }) => {
                (Some(*call), None, Code::UnexpectedCall.id())
            }
            Some(explain::Pending::Repeat { call, exp }) => (
                Some(*call),
                self.config.expectations.get(*exp).map(|e| e.span),
                Code::TooManyCalls.id(),
            ),
            None => (None, None, ""),
        }
    }

    /// Finding `k`, in the verdict's order (`None` past the end). Built on demand, so that a
    /// transcript with 100 000 extra calls needs no list of 100 000 findings.
    pub fn finding(&self, k: usize) -> Option<Finding> {
        match self.pending.get(k)? {
            explain::Pending::Ready(f) => Some((**f).clone()),
            &explain::Pending::Unexpected { call, exp } => {
                Some(self.extras(|x| explain::unexpected(x, call, exp)))
            }
            &explain::Pending::Repeat { call, exp } => {
                let matched = self
                    .verdict
                    .expectations
                    .get(exp)
                    .map_or(&[][..], |o| &o.calls[..]);
                Some(self.extras(|x| explain::repeat(x, call, exp, matched)))
            }
        }
    }

    /// `build` given what the findings about extra calls are told from.
    fn extras<T>(&self, build: impl FnOnce(&explain::Extras<'_>) -> T) -> T {
        let judge = Evaluator {
            calls: self.calls,
            cache: &self.cache,
            fuzzy: &self.fuzzy,
            refs: RefMode::Partners(&self.assigned),
            refcx: &self.refcx,
        };
        let exps = &self.config.expectations;
        let why = |j: usize, i: usize| judge.failures(&exps[j], i);
        build(&explain::Extras {
            config: self.config,
            calls: self.calls,
            strict_extras: self.strict_extras,
            failures: &why,
        })
    }

    /// The whole verdict, findings included.
    pub fn into_verdict(self) -> Verdict {
        let findings = (0..self.pending.len())
            .filter_map(|k| self.finding(k))
            .collect();
        Verdict {
            findings,
            ..self.verdict
        }
    }
}

/// Candidate (call, expectation) pairs of one run, at most (16 bytes each, one constraint
/// evaluation, and in order a byte per state of the expectation for back-pointers). Past it, each call keeps an equal share of its name's expectations and the pair
/// gets a `too-large` note.
pub const PAIR_BUDGET: usize = 1_000_000;

/// Edges of the any-order flow graph of one run, at most (about 200 bytes each with the
/// search's working lists), as estimated before the candidates are evaluated. Past it, each
/// call keeps an equal share of its name's expectations (half this many pairs in all, each at
/// most two edges) and the pair gets a `too-large` note.
pub const FLOW_EDGE_BUDGET: usize = 1_000_000;

/// An upper bound of the any-order flow's call→slot edges: per tool name, each slot node keeps
/// at most `min(calls, capacity)` incoming edges (`any_order.rs`).
fn flow_edges(calls_of: &[usize], exps_by_name: &[Vec<usize>], slots: &[Slots]) -> usize {
    let mut total = 0usize;
    for (&c, js) in calls_of.iter().zip(exps_by_name) {
        let mut capacity = 0usize;
        let mut nodes = 0usize;
        for &j in js {
            let s = &slots[j];
            let opt = s.max.map_or(c, |mx| mx.saturating_sub(s.min).min(c));
            capacity = capacity.saturating_add(s.min.min(c)).saturating_add(opt);
            nodes += usize::from(s.min > 0) + usize::from(opt > 0);
        }
        total = total.saturating_add(nodes.saturating_mul(c.min(capacity)));
    }
    total
}

/// The list of name `id` in per-name lists sized by the spec's names (empty for a name only
/// calls use).
fn of_name(lists: &[Vec<usize>], id: u32) -> &[usize] {
    lists.get(id as usize).map_or(&[][..], Vec::as_slice)
}

/// An index or id as 4 bytes (ids and indices of one run are far below 2³²; a larger one,
/// which no file can lead to, reads as the largest).
fn small(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Whether `e` is a cap: `at_most n` (and `optional`, which is `at_most 1`), a count with no
/// minimum and a maximum. A call beyond a cap fails the expectation.
fn is_cap(e: &Expectation) -> bool {
    e.repeat.min == 0 && e.repeat.max.is_some()
}

/// The calls beyond a cap, as (call, expectation), ascending by call: for every `at_most n`
/// expectation, count the calls it matched and the unmatched calls that would match it (same
/// name, every constraint satisfied, not forbidden, not matched to another expectation); past
/// `n`, the surplus is that many of the unmatched ones, the last in transcript order. A call is
/// counted against its first cap only.
fn over_cap(
    exps: &[Expectation],
    assigned: &[Vec<usize>],
    owner: &[Option<u32>],
    forbidden_by: &[Option<u32>],
    by_call: &[Vec<Candidate>],
) -> Vec<(usize, usize)> {
    let capped: Vec<bool> = exps.iter().map(is_cap).collect();
    if !capped.iter().any(|&c| c) {
        return Vec::new();
    }
    let mut surplus: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, cands) in by_call.iter().enumerate() {
        if owner[i].is_some() || forbidden_by[i].is_some() {
            continue;
        }
        for c in cands {
            if c.full && capped.get(c.exp).copied().unwrap_or(false) {
                surplus.entry(c.exp).or_default().push(i);
            }
        }
    }
    let mut flagged: HashMap<usize, usize> = HashMap::new();
    for (j, unowned) in surplus {
        let max = exps[j].repeat.max.unwrap_or(u32::MAX) as usize;
        let owned = assigned.get(j).map_or(&[][..], Vec::as_slice);
        if owned.len() + unowned.len() <= max {
            continue;
        }
        // The surplus: that many of the unmatched calls, the last ones.
        let surplus = owned.len() + unowned.len() - max;
        for &i in &unowned[unowned.len().saturating_sub(surplus)..] {
            let slot = flagged.entry(i).or_insert(j);
            *slot = (*slot).min(j);
        }
    }
    let mut out: Vec<(usize, usize)> = flagged.into_iter().collect();
    out.sort_unstable();
    out
}

/// Which expectations some reference constraint reads from.
fn referenced_expectations(exps: &[Expectation]) -> Vec<bool> {
    let mut out = vec![false; exps.len()];
    for e in exps {
        for_each_check(e, &mut |c| {
            if let Check::Ref { expectation, .. } = c {
                if let Some(slot) = out.get_mut(*expectation) {
                    *slot = true;
                }
            }
        });
    }
    out
}

fn has_ref(e: &Expectation) -> bool {
    let mut found = false;
    for_each_check(e, &mut |c| found |= matches!(c, Check::Ref { .. }));
    found
}

/// Visit every check of `e`, nested ones included.
fn for_each_check(e: &Expectation, f: &mut dyn FnMut(&Check)) {
    fn walk(c: &Check, f: &mut dyn FnMut(&Check)) {
        f(c);
        match c {
            Check::Not { check } => walk(check, f),
            Check::AllOf { checks } => checks.iter().for_each(|c| walk(c, f)),
            _ => {}
        }
    }
    for m in std::iter::once(&e.args).chain(e.output.as_ref()) {
        for pc in &m.checks {
            walk(&pc.check, f);
        }
    }
}
