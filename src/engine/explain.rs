//! Findings: what went wrong, where, and what to do about it.
//!
//! Severity rules, fixed per code (never dependent on whether the pair passed): hard failures
//! (forbidden call, extra call under a `forbid` policy or in strict order, broken `before` rule,
//! a call beyond an `at_most` cap) and unmet expectations (missing call, name-only match, order
//! violation, too many calls) are errors. An extra call is an error when the spec forbids extra
//! calls, a warning when it costs score, information when it costs nothing; a fuzzy check settled
//! by the work bound is a warning; an alignment past its budget is information (`too-large`).
//!
//! Messages number calls from 1 (`call #3` is the third call); the `call` fields are 0-based
//! positions.

use super::align::Candidate;
use super::difflib;
use super::verdict::{ExpectationOutcome, Finding, Severity, Status};
use super::Calls;
use crate::code::Code;
use crate::config::{MatcherConfig, OrderMode};
use crate::source::Span;

/// What the findings are computed from.
pub(crate) struct Context<'a> {
    pub(crate) config: &'a MatcherConfig,
    pub(crate) calls: &'a dyn Calls,
    pub(crate) exp_name: &'a [usize],
    pub(crate) call_name: &'a [u32],
    pub(crate) forbidden_by: &'a [Option<u32>],
    /// The expectation each call is matched to.
    pub(crate) owner: &'a [Option<u32>],
    /// Final candidates per call.
    pub(crate) by_call: &'a [Vec<Candidate>],
    /// Calls beyond an `at_most` cap, (call, expectation), ascending by call.
    pub(crate) over_cap: &'a [(usize, usize)],
    /// The transcript's turns, for the scopes of expectations.
    pub(crate) turns: super::scopes::Turns,
    /// Per expectation: where its scope starts (`after` blocks).
    pub(crate) bounds: &'a [super::scopes::Bound],
    /// Per expectation: whether it takes part (not in an `either` branch left out).
    pub(crate) active: &'a [bool],
}

impl Context<'_> {
    /// Whether call `i` is in the scope of expectation `j` (its turn, agent and anchor, if
    /// written).
    fn in_scope(&self, j: usize, i: usize) -> bool {
        let scope = self
            .config
            .expectations
            .get(j)
            .and_then(|e| e.scope.as_ref());
        let server = self
            .config
            .expectations
            .get(j)
            .and_then(|e| e.namespace.as_deref());
        self.bounds.get(j).is_none_or(|b| b.admits(i))
            && super::scopes::in_scope(scope, self.calls, self.turns, i)
            && super::of_server(server, self.calls, i)
    }
}

pub(crate) fn finding(
    code: Code,
    severity: Severity,
    message: String,
    help: String,
    expectation: Option<usize>,
    spec_span: Option<Span>,
    call: Option<usize>,
) -> Finding {
    Finding {
        code: code.id().into(),
        severity,
        message,
        help,
        expectation,
        spec_span,
        call,
        unverified: false,
    }
}

impl Context<'_> {
    fn who(&self, j: usize) -> String {
        who(self.config, j)
    }
}

/// How messages name expectation `j`: ``#2 `Bash` `` (with its label, if it has one).
pub(crate) fn who(config: &MatcherConfig, j: usize) -> String {
    match config.expectations.get(j) {
        Some(e) => {
            let scope = super::scopes::describe(e.scope.as_ref());
            let tool = e.shown_tool();
            match &e.label {
                Some(l) if l != &e.tool => format!("#{} `{tool}` ({l}){scope}", j + 1),
                _ => format!("#{} `{tool}`{scope}", j + 1),
            }
        }
        None => format!("#{}", j + 1),
    }
}

/// Broken `before` rules: (rule index, offending call of `then`, call of `first` it precedes).
pub(crate) fn before_violations(
    ctx: &Context<'_>,
    outcomes: &[ExpectationOutcome],
) -> Vec<(usize, usize, usize)> {
    super::before::broken_at(&ctx.config.before, |j| {
        outcomes.get(j).map(|o| o.calls.as_slice())
    })
}

/// Every finding of a verdict, sorted (the extra calls' only described, see [`Pending`]); marks
/// expectations whose surplus calls were left out as [`Status::TooMany`].
pub(crate) fn findings(
    ctx: &Context<'_>,
    outcomes: &mut [ExpectationOutcome],
    before_broken: Vec<(usize, usize, usize)>,
) -> Vec<Pending> {
    let cfg = ctx.config;
    // An expectation that is not met is an error, whether or not the score still passes.
    let soft = Severity::Error;
    let mut out: Vec<Pending> = Vec::new();
    let in_order = cfg.order != OrderMode::AnyOrder;

    for (i, rule) in ctx.forbidden_by.iter().enumerate() {
        if let Some(f) = rule.and_then(|r| cfg.forbidden.get(r as usize)) {
            // The arguments the rule saw (compact JSON, cut to a readable length), so the
            // finding says which call it was without opening the transcript.
            let args = ctx.calls.args(i);
            let with = match &*args {
                serde_json::Value::Null => String::new(),
                serde_json::Value::Object(m) if m.is_empty() => " with no arguments".to_owned(),
                v => format!(" with {}", super::json::show(v)),
            };
            // What the rule narrows the call to: failed or not, a part of the run.
            let failed = match f.errored {
                Some(true) => " and failed",
                Some(false) => " and succeeded",
                None => "",
            };
            let scope = super::scopes::describe(f.scope.as_ref());
            out.push(Pending::Ready(Box::new(finding(
                Code::ForbiddenCall,
                Severity::Error,
                format!(
                    "call #{} calls `{}`{with}{failed}, which the spec forbids{scope}",
                    i + 1,
                    ctx.calls.name(i)
                ),
                "the agent must not make this call; if it is acceptable, remove or narrow the \
                 `never` rule"
                    .into(),
                None,
                Some(f.span),
                Some(i),
            ))));
        }
    }

    for (r, then_call, first_call) in before_broken {
        let rule = &cfg.before[r];
        out.push(Pending::Ready(Box::new(finding(
            Code::BeforeViolation,
            Severity::Error,
            format!(
                "{} must come before {}, but call #{} precedes call #{}",
                ctx.who(rule.first),
                ctx.who(rule.then),
                then_call + 1,
                first_call + 1
            ),
            "the spec requires this order; make the agent call them in that order, or drop the \
             `before` rule"
                .into(),
            Some(rule.then),
            Some(rule.span),
            Some(then_call),
        ))));
    }

    // Calls explained by an order violation are not reported again as unexpected.
    let mut explained = vec![false; ctx.calls.count()];
    // In order: the calls that fully match each expectation, ascending (one pass over the
    // candidates, so finding an out-of-order call is not calls × expectations).
    let mut full_calls: Vec<Vec<usize>> =
        vec![Vec::new(); if in_order { outcomes.len() } else { 0 }];
    if in_order {
        for (i, cands) in ctx.by_call.iter().enumerate() {
            for c in cands.iter().filter(|c| c.full) {
                if let Some(list) = full_calls.get_mut(c.exp) {
                    list.push(i);
                }
            }
        }
    }
    // Built on first use: most verdicts have no missing expectation.
    let mut names: Option<NameIndex> = None;
    let mut reasons: Option<OrderIndex> = None;
    for j in 0..outcomes.len() {
        if !ctx.active.get(j).copied().unwrap_or(true) {
            continue;
        }
        let e = &cfg.expectations[j];
        let o = &outcomes[j];
        let short = matches!(
            o.status,
            Status::Missing | Status::TooFew | Status::NameOnly
        );
        if in_order && short {
            // Not one of its own calls (its calls are the ones it owns).
            if let Some(i) = full_calls[j]
                .iter()
                .copied()
                .find(|&i| ctx.owner[i].is_none_or(|k| k as usize != j))
            {
                explained[i] = ctx.owner[i].is_none();
                let index = reasons.get_or_insert_with(|| OrderIndex::new(outcomes));
                let why = order_reason(ctx, index, j, i);
                let severity = soft;
                out.push(Pending::Ready(Box::new(finding(
                    Code::OrderViolation,
                    severity,
                    format!(
                        "call #{} `{}` satisfies expectation {}, but out of order: {why}",
                        i + 1,
                        ctx.calls.name(i),
                        ctx.who(j)
                    ),
                    "this spec checks the order of calls; make the agent follow the written \
                     order, or declare the spec `any order`"
                        .into(),
                    Some(j),
                    Some(e.span),
                    Some(i),
                ))));
            }
        }
        match o.status {
            Status::Missing => out.push(Pending::Ready(Box::new(finding(
                Code::MissingCall,
                soft,
                format!("expected a call to {}, but none matched", ctx.who(j)),
                missing_help(ctx, names.get_or_insert_with(|| NameIndex::new(ctx)), j),
                Some(j),
                Some(e.span),
                None,
            )))),
            Status::TooFew => out.push(Pending::Ready(Box::new(finding(
                Code::MissingCall,
                soft,
                format!(
                    "expected at least {} calls to {}, but only {} matched",
                    e.repeat.min,
                    ctx.who(j),
                    o.calls.len()
                ),
                missing_help(ctx, names.get_or_insert_with(|| NameIndex::new(ctx)), j),
                Some(j),
                Some(e.span),
                None,
            )))),
            _ => {}
        }
        // The failures of each call, grouped once (not a scan of them per call).
        let mut fails_of: std::collections::HashMap<usize, Vec<&crate::engine::Failure>> =
            Default::default();
        for f in &o.failures {
            fails_of.entry(f.call).or_default().push(f);
        }
        for &i in &o.calls {
            let Some(fails) = fails_of.get(&i) else {
                continue;
            };
            let mut text: Vec<String> = fails.iter().take(3).map(|f| f.message.clone()).collect();
            if fails.len() > 3 {
                text.push(format!("and {} more", fails.len() - 3));
            }
            // Under `score per_argument`: how much of the call holds, and what it earned.
            let share = o
                .shares
                .iter()
                .find(|s| s.call == i)
                .map(|s| format!(" ({}; credit {:.2})", s.describe(), s.credit))
                .unwrap_or_default();
            out.push(Pending::Ready(Box::new(finding(
                Code::NameOnlyMatch,
                soft,
                format!(
                    "call #{} matches {} by name only{share}: {}",
                    i + 1,
                    ctx.who(j),
                    text.join("; ")
                ),
                "fix what the agent sends, or relax the constraint in the spec (every failed \
                 constraint is listed in the verdict)"
                    .into(),
                Some(j),
                // The first constraint written in the spec; one that comes from a `tool`
                // declaration is located there by the failure itself.
                fails
                    .iter()
                    .find(|f| f.declared.is_none())
                    .and_then(|f| f.spec_span)
                    .or(Some(e.span)),
                Some(i),
            ))));
            for f in fails.iter().filter(|f| f.bounded && f.check == "ref") {
                out.push(Pending::Ready(Box::new(finding(
                    Code::ReferenceBoundApplied,
                    Severity::Warning,
                    f.message.clone(),
                    format!(
                        "a `[*]` reference collects at most {} elements from one call, visiting \
                         at most {} values; narrow the path to the list that holds the values",
                        super::refs::EACH_BOUND,
                        super::refs::VISIT_BOUND
                    ),
                    Some(j),
                    if f.declared.is_none() {
                        f.spec_span
                    } else {
                        Some(e.span)
                    },
                    Some(i),
                ))));
            }
            for f in fails.iter().filter(|f| f.bounded && f.check != "ref") {
                out.push(Pending::Ready(Box::new(finding(
                    Code::FuzzyBoundApplied,
                    Severity::Warning,
                    f.message.clone(),
                    format!(
                        "exact similarity is computed when len(actual) × len(expected) ≤ {}, \
                         up to {} in all for one spec against one transcript; use a regex or \
                         `contains` constraint on very long strings",
                        super::fuzzy::WORK_BOUND,
                        super::fuzzy::RUN_WORK_BOUND
                    ),
                    Some(j),
                    if f.declared.is_none() {
                        f.spec_span
                    } else {
                        Some(e.span)
                    },
                    Some(i),
                ))));
            }
        }
    }

    // Per name: its first expectation, and the first (not a cap) that is full; computed once,
    // not per unaccounted call.
    let mut first_of_name: std::collections::HashMap<usize, usize> = Default::default();
    let mut full_of_name: std::collections::HashMap<usize, usize> = Default::default();
    for (j, o) in outcomes.iter().enumerate() {
        if !ctx.active.get(j).copied().unwrap_or(true) {
            continue;
        }
        let name = ctx.exp_name[j];
        first_of_name.entry(name).or_insert(j);
        // Not an `at_most` cap: a call beyond one is in `over_cap`, any other does not count.
        let e = &cfg.expectations[j];
        if e.repeat.min > 0 && e.repeat.max.is_some_and(|mx| o.calls.len() >= mx as usize) {
            full_of_name.entry(name).or_insert(j);
        }
    }
    for (i, &done) in explained.iter().enumerate() {
        if ctx.owner[i].is_some() || ctx.forbidden_by[i].is_some() || done {
            continue;
        }
        let name = ctx.calls.name(i);
        if let Ok(k) = ctx.over_cap.binary_search_by_key(&i, |&(c, _)| c) {
            let j = ctx.over_cap[k].1;
            let e = &cfg.expectations[j];
            out.push(Pending::Ready(Box::new(finding(
                Code::TooManyCalls,
                Severity::Error,
                too_many_message(i, name, &ctx.who(j), &e.repeat, &outcomes[j].calls),
                format!(
                    "`at_most {}` is a cap: every call beyond it fails the spec; remove the \
                     surplus calls, or raise the maximum",
                    e.repeat.max.unwrap_or(0)
                ),
                Some(j),
                Some(e.span),
                Some(i),
            ))));
            continue;
        }
        let full_at = full_of_name
            .get(&(ctx.call_name[i] as usize))
            .copied()
            .filter(|&j| ctx.in_scope(j, i));
        if let Some(j) = full_at {
            if outcomes[j].status == Status::Matched {
                outcomes[j].status = Status::TooMany;
            }
            // Built on demand ([`repeat`]), as the unexpected calls are.
            out.push(Pending::Repeat { call: i, exp: j });
            continue;
        }
        out.push(Pending::Unexpected {
            call: i,
            exp: first_of_name
                .get(&(ctx.call_name[i] as usize))
                .copied()
                .filter(|&j| ctx.in_scope(j, i)),
        });
    }

    sort(&mut out);
    out
}

/// Put findings in the verdict's order (stable: equal keys keep their order).
pub(crate) fn sort(out: &mut [Pending]) {
    out.sort_by(|a, b| a.key().cmp(&b.key()));
}

/// An algorithm that ran past its budget and settled for a valid but possibly sub-optimal result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Budget {
    /// The in-order alignment's steps (`in_order::STATE_BUDGET`).
    InOrder,
    /// The candidate pairs of a run (`engine::PAIR_BUDGET`).
    Pairs,
    /// The any-order assignment's memory: a group's graph could not be allocated.
    AnyOrder,
    /// The alignment preferring critical expectations met and every call accounted for could
    /// not be ranked exactly, or did not fit the arrangements' work budget.
    Preference,
}

/// The note that a budget applied: the pair was checked, but its alignment may not be the best.
pub(crate) fn too_large(budget: Budget) -> Pending {
    let (message, help) = match budget {
        Budget::InOrder => (
            format!(
                "the in-order alignment is too large to search exactly (calls × counted slots \
                 over {}); counts past the budget were aligned greedily, so the matching may not \
                 be the best possible",
                super::in_order::STATE_BUDGET
            ),
            "lower the counts (`exactly`, `at_least`, `between`) or split the transcript",
        ),
        Budget::Pairs => (
            format!(
                "too many (call, expectation) pairs of the same tool to align exactly (more than \
                 {} pairs, or {} edges of the any-order assignment); each call was compared with \
                 an equal share of its tool's expectations, so the matching may not be the best \
                 possible",
                super::PAIR_BUDGET,
                super::FLOW_EDGE_BUDGET
            ),
            "split the spec or the transcript, or give the expectations of one tool distinct \
             names",
        ),
        Budget::Preference => (
            "the verdict failed on a critical expectation or an unaccounted call, and the \
             alignment that would avoid such failures could not be searched (the weights are \
             too large to rank it exactly, or the arrangements' work budget was spent), so \
             another alignment might pass"
                .to_string(),
            "lower the weights, or split the spec or the transcript",
        ),
        Budget::AnyOrder => (
            "the any-order assignment of one tool's calls needed more memory than could be \
             allocated; those calls were left unmatched"
                .to_string(),
            "split the spec or the transcript",
        ),
    };
    Pending::Ready(Box::new(finding(
        Code::TooLarge,
        Severity::Info,
        message,
        help.into(),
        None,
        None,
        None,
    )))
}

/// A finding of a verdict, built ([`Pending::Ready`]) or only described: a transcript may have
/// 100 000 extra calls, each with an `unexpected-call` finding, and those are built one at a
/// time when they are written out ([`unexpected`]).
pub(crate) enum Pending {
    /// Boxed: most findings of a long transcript are the other kind, which is small.
    Ready(Box<Finding>),
    /// Call `call`, which nothing accounts for; `exp` is the first expectation of its name.
    Unexpected { call: usize, exp: Option<usize> },
    /// Call `call`, another call to the tool of expectation `exp`, which is already met.
    Repeat { call: usize, exp: usize },
}

/// Add `extra` findings to `pending` (in the verdict's order), keeping that order.
pub(crate) fn merge(pending: &mut Vec<Pending>, extra: Vec<Finding>) {
    if extra.is_empty() {
        return;
    }
    pending.extend(extra.into_iter().map(|f| Pending::Ready(Box::new(f))));
    pending.sort_by(|a, b| a.key().cmp(&b.key()));
}

impl Pending {
    /// The verdict's order: by call position, then expectation, then code.
    fn key(&self) -> (usize, usize, &str) {
        match self {
            Pending::Ready(f) => (
                f.call.unwrap_or(usize::MAX),
                f.expectation.unwrap_or(usize::MAX),
                &f.code,
            ),
            Pending::Unexpected { call, exp } => {
                (*call, exp.unwrap_or(usize::MAX), Code::UnexpectedCall.id())
            }
            Pending::Repeat { call, exp } => (*call, *exp, Code::TooManyCalls.id()),
        }
    }
}

/// An extra call's severity: from the spec alone (does it forbid extra calls, does it charge
/// for them), never from whether the pair passed.
fn extra_severity(cfg: &MatcherConfig, strict_extras: bool) -> Severity {
    if strict_extras {
        Severity::Error
    } else if cfg.scoring.extra_call > 0.0 {
        Severity::Warning
    } else {
        Severity::Info
    }
}

/// What the findings about extra calls (`unexpected-call`, a repeat's `too-many-calls`) are
/// built from.
pub(crate) struct Extras<'a> {
    pub(crate) config: &'a MatcherConfig,
    pub(crate) calls: &'a dyn Calls,
    pub(crate) strict_extras: bool,
    /// Why call `.1` does not satisfy expectation `.0` (empty when it does), with references
    /// judged against the final partners.
    pub(crate) failures: &'a dyn Fn(usize, usize) -> Vec<crate::engine::Failure>,
}

/// The `unexpected-call` finding of call `i`, which nothing accounts for; `exp` is the first
/// expectation with its name.
pub(crate) fn unexpected(x: &Extras<'_>, i: usize, exp: Option<usize>) -> Finding {
    let cfg = x.config;
    let in_order = cfg.order != OrderMode::AnyOrder;
    let name = x.calls.name(i);
    let who = |j: usize| who(cfg, j);
    // A call of an expected tool that breaks a constraint says which: that is usually why
    // it was left out.
    let broken = exp.map(|j| (x.failures)(j, i)).unwrap_or_default();
    let help = match exp {
        Some(j) if !broken.is_empty() => {
            let why: Vec<&str> = broken.iter().map(|f| f.message.as_str()).collect();
            format!(
                "it has the name of expectation {}, but {}",
                who(j),
                why.join("; ")
            )
        }
        Some(j) => {
            format!(
                "it has the name of expectation {}, but that expectation's slots are taken by \
                 better-matching calls{}",
                who(j),
                if in_order {
                    " or it is out of order"
                } else {
                    ""
                }
            )
        }
        None if x.strict_extras => {
            "add an expectation for it, or allow extra calls in the spec".into()
        }
        None => "extra calls are allowed by this spec".into(),
    };
    finding(
        Code::UnexpectedCall,
        extra_severity(cfg, x.strict_extras),
        format!(
            "call #{} `{name}` is not accounted for by any expectation",
            i + 1
        ),
        help,
        exp,
        None,
        Some(i),
    )
}

/// The `too-many-calls` finding of call `i`, another call to the tool of expectation `j`
/// (matched by the calls `matched`), which is already met.
pub(crate) fn repeat(x: &Extras<'_>, i: usize, j: usize, matched: &[usize]) -> Finding {
    let cfg = x.config;
    let e = &cfg.expectations[j];
    let broken = (x.failures)(j, i);
    let help = if !broken.is_empty() {
        let why: Vec<&str> = broken.iter().map(|f| f.message.as_str()).collect();
        format!("it would not match anyway: {}", why.join("; "))
    } else if e.repeat == crate::config::Repeat::ONCE {
        "a plain `call` expects one call; write `at_least 1 call` if repeats are fine".into()
    } else {
        "remove the repeated call, or raise the expectation's maximum".into()
    };
    finding(
        Code::TooManyCalls,
        // A repeat of a met plain `call` is an extra call: it weighs as one.
        extra_severity(cfg, x.strict_extras),
        too_many_message(i, x.calls.name(i), &who(cfg, j), &e.repeat, matched),
        help,
        Some(j),
        Some(e.span),
        Some(i),
    )
}

/// Why call `i`, which satisfies expectation `j`, could not be matched to it in order.
fn order_reason(ctx: &Context<'_>, index: &OrderIndex, j: usize, i: usize) -> String {
    // The nearest earlier expectation whose last call comes after call `i`.
    if let Some(p) = index.last.rightmost_above(j, i as i64) {
        let c = index.last.value(p);
        return format!(
            "it comes before call #{} matched to the earlier expectation {}",
            c + 1,
            ctx.who(p)
        );
    }
    // The nearest later expectation whose first call comes before call `i`.
    if let Some(q) = index.first.leftmost_above(j + 1, -(i as i64)) {
        let c = -index.first.value(q);
        return format!(
            "it comes after call #{} matched to the later expectation {}",
            c + 1,
            ctx.who(q)
        );
    }
    match ctx.owner[i] {
        Some(k) => format!(
            "it is matched to expectation {} instead",
            ctx.who(k as usize)
        ),
        None => "taking it would break the order of the other matches".into(),
    }
}

/// The first and last calls of every expectation, as trees of maxima, so that the nearest
/// earlier expectation ending after a call (or later one starting before it) is found in
/// O(log expectations), not by a scan of the expectations per out-of-order call.
struct OrderIndex {
    /// Per expectation, its last call (-1 without calls).
    last: MaxTree,
    /// Per expectation, minus its first call (`i64::MIN` without calls).
    first: MaxTree,
}

impl OrderIndex {
    fn new(outcomes: &[ExpectationOutcome]) -> Self {
        let last = outcomes
            .iter()
            .map(|o| o.calls.last().map_or(-1, |&c| c as i64))
            .collect();
        let first = outcomes
            .iter()
            .map(|o| o.calls.first().map_or(i64::MIN, |&c| -(c as i64)))
            .collect();
        OrderIndex {
            last: MaxTree::new(last),
            first: MaxTree::new(first),
        }
    }
}

/// A segment tree of maxima over fixed values, answering "the nearest position before (after)
/// a bound whose value exceeds x".
struct MaxTree {
    /// Leaves from `size`, padded with `i64::MIN`; node `k` holds the maximum of `2k`, `2k + 1`.
    tree: Vec<i64>,
    size: usize,
}

impl MaxTree {
    fn new(values: Vec<i64>) -> Self {
        let size = values.len().next_power_of_two().max(1);
        let mut tree = vec![i64::MIN; 2 * size];
        tree[size..size + values.len()].copy_from_slice(&values);
        for k in (1..size).rev() {
            tree[k] = tree[2 * k].max(tree[2 * k + 1]);
        }
        MaxTree { tree, size }
    }

    fn value(&self, p: usize) -> i64 {
        self.tree[self.size + p]
    }

    /// The largest position `< end` whose value is `> x`.
    fn rightmost_above(&self, end: usize, x: i64) -> Option<usize> {
        self.descend(1, 0, self.size, &|lo, hi| lo < end && hi > 0, x, true)
            .filter(|&p| p < end)
    }

    /// The smallest position `>= start` whose value is `> x`.
    fn leftmost_above(&self, start: usize, x: i64) -> Option<usize> {
        self.descend(1, 0, self.size, &|_, hi| hi > start, x, false)
            .filter(|&p| p >= start)
    }

    /// The first position (from the right if `right`) in node `k` (covering `lo..hi`) with a
    /// value above `x`, among nodes `within` admits (a leaf is admitted only inside the range).
    fn descend(
        &self,
        k: usize,
        lo: usize,
        hi: usize,
        within: &dyn Fn(usize, usize) -> bool,
        x: i64,
        right: bool,
    ) -> Option<usize> {
        if self.tree[k] <= x || !within(lo, hi) {
            return None;
        }
        if hi - lo == 1 {
            return within(lo, lo + 1).then_some(lo);
        }
        let mid = usize::midpoint(lo, hi);
        let (a, b) = ((2 * k, lo, mid), (2 * k + 1, mid, hi));
        let (first, second) = if right { (b, a) } else { (a, b) };
        self.descend(first.0, first.1, first.2, within, x, right)
            .or_else(|| self.descend(second.0, second.1, second.2, within, x, right))
    }
}

/// Help for an expectation that got too few calls: where the right-named calls went, or which
/// called tool has a similar name.
///
/// The help never contradicts the finding: a call of the tool itself is never offered as a
/// similar name, and neither is a call that something else explains (forbidden, or matched to
/// another expectation).
fn missing_help(ctx: &Context<'_>, index: &NameIndex, j: usize) -> String {
    let list = |calls: &[usize]| {
        let mut shown: Vec<String> = calls
            .iter()
            .take(5)
            .map(|i| format!("#{}", i + 1))
            .collect();
        if calls.len() > 5 {
            shown.push(format!("and {} more", calls.len() - 5));
        }
        shown.join(", ")
    };
    let (named, forbidden) = index.calls_of(ctx.exp_name[j]);
    let server = ctx.config.expectations[j].namespace.as_deref();
    if let Some(ns) = server {
        if !named.is_empty()
            && !named
                .iter()
                .any(|&i| super::of_server(server, ctx.calls, i))
        {
            let seen: Vec<String> = named
                .iter()
                .take(5)
                .map(|&i| match ctx.calls.namespace(i) {
                    Some(other) => format!("`{other}`"),
                    None => "none".to_owned(),
                })
                .collect();
            return format!(
                "calls to this tool exist ({}), but of another server than `{ns}` (theirs: {})",
                list(named),
                seen.join(", ")
            );
        }
    }
    let scope = ctx.config.expectations[j].scope.as_ref();
    if scope.is_some() && !named.is_empty() && !named.iter().any(|&i| ctx.in_scope(j, i)) {
        return format!(
            "calls to this tool exist ({}), but none in its scope{}",
            list(named),
            super::scopes::describe(scope)
        );
    }
    if !named.is_empty() {
        return format!(
            "calls to this tool exist ({}) but are matched elsewhere or cannot be matched here",
            list(named)
        );
    }
    if !forbidden.is_empty() {
        return format!(
            "the calls to this tool ({}) are forbidden by a `never` rule of the spec, so none \
             can count for this expectation",
            list(forbidden)
        );
    }
    let want = &ctx.config.expectations[j].tool;
    let want_lower = want.to_lowercase();
    let lb = want_lower.chars().count();
    let mut best: Option<(f64, usize)> = None;
    // Only a call nothing else explains is worth suggesting: each distinct called name once,
    // with its first such call. Bounded work: at most 2 000 distinct names, and the length
    // bound first; and for all the missing expectations of a pair, `SUGGEST_BUDGET`.
    let others = index
        .unexplained
        .iter()
        .filter(|n| n.id as usize != ctx.exp_name[j]);
    let mut spent = false;
    for n in others.take(2_000) {
        let la = n.chars;
        let cost = 1 + if 2.0 * la.min(lb) as f64 / ((la + lb).max(1) as f64) < 0.6 {
            0
        } else {
            la.saturating_mul(lb)
        };
        let left = index.budget.get();
        if cost > left {
            spent = true;
            best = None;
            break;
        }
        index.budget.set(left - cost);
        if cost == 1 {
            continue;
        }
        let r = difflib::ratio(&n.lower, &want_lower);
        if r >= 0.6 && best.is_none_or(|(b, _)| r > b) {
            best = Some((r, n.call));
        }
    }
    match best {
        Some((_, i)) => format!(
            "the transcript never calls `{want}`; did you mean `{}` (call #{})? Names are \
             compared under the spec's name rules (case, separators, prefixes)",
            ctx.calls.name(i),
            i + 1
        ),
        None if spent => format!(
            "the transcript never calls `{want}` (similar called names are not looked for: \
             this check's budget of {SUGGEST_BUDGET} name comparisons is spent)"
        ),
        None => format!("the transcript never calls `{want}`"),
    }
}

/// The work of the did-you-mean help of all the missing expectations of one spec against one
/// transcript: one unit per called name looked at, and `len(name) × len(expected name)` per
/// similarity computed (20 000 missing expectations against 2 000 similar names would be 40
/// million similarities).
pub(crate) const SUGGEST_BUDGET: usize = 10_000_000;

/// A distinct called name of the calls nothing explains.
struct Unexplained {
    /// Lowercased, as compared.
    lower: String,
    /// Its length in characters.
    chars: usize,
    /// Interned (normalised) name.
    id: u32,
    /// Its first call that nothing explains.
    call: usize,
}

/// The calls of each tool name, built once for the help of every missing expectation (a scan
/// of every call per expectation was expectations × calls).
struct NameIndex {
    /// Per interned name: its calls that no `never` rule forbids, and those it does, ascending.
    by_name: std::collections::HashMap<u32, (Vec<usize>, Vec<usize>)>,
    /// Each distinct called name (as written) of the calls nothing explains (not forbidden,
    /// not matched), in order of first appearance.
    unexplained: Vec<Unexplained>,
    /// What is left of [`SUGGEST_BUDGET`].
    budget: std::cell::Cell<usize>,
}

impl NameIndex {
    fn new(ctx: &Context<'_>) -> Self {
        let mut by_name: std::collections::HashMap<u32, (Vec<usize>, Vec<usize>)> =
            Default::default();
        let mut seen = std::collections::HashSet::new();
        let mut unexplained = Vec::new();
        for i in 0..ctx.calls.count() {
            let id = ctx.call_name[i];
            let lists = by_name.entry(id).or_default();
            if ctx.forbidden_by[i].is_some() {
                lists.1.push(i);
                continue;
            }
            lists.0.push(i);
            if ctx.owner[i].is_none() {
                let name = ctx.calls.name(i);
                if seen.insert(name) {
                    unexplained.push(Unexplained {
                        lower: name.to_lowercase(),
                        chars: name.chars().count(),
                        id,
                        call: i,
                    });
                }
            }
        }
        NameIndex {
            by_name,
            unexplained,
            budget: std::cell::Cell::new(SUGGEST_BUDGET),
        }
    }

    /// The calls of interned name `name`: (not forbidden, forbidden).
    fn calls_of(&self, name: usize) -> (&[usize], &[usize]) {
        u32::try_from(name)
            .ok()
            .and_then(|n| self.by_name.get(&n))
            .map_or((&[], &[]), |(a, b)| (a.as_slice(), b.as_slice()))
    }
}

/// The message for a call beyond an expectation's maximum. A plain `call` states no limit in
/// words, so its message says what happened rather than quoting a maximum the user never wrote.
fn too_many_message(
    call: usize,
    name: &str,
    who: &str,
    repeat: &crate::config::Repeat,
    matched: &[usize],
) -> String {
    if *repeat == crate::config::Repeat::ONCE {
        let first = matched
            .first()
            .map(|c| format!(" by call #{}", c + 1))
            .unwrap_or_default();
        format!(
            "call #{} is another call to `{name}`: {who} expects one call and is already met{first}",
            call + 1
        )
    } else {
        format!(
            "call #{} is one call to `{name}` too many: {who} allows at most {}",
            call + 1,
            repeat.max.unwrap_or(0)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{too_many_message, MaxTree};
    use crate::config::Repeat;

    /// The tree answers what a scan of the values answers, at every bound and threshold.
    #[test]
    fn max_tree_finds_what_a_scan_finds() {
        let mut seed = 7u64;
        for len in [0usize, 1, 2, 3, 5, 8, 13, 64, 100] {
            let values: Vec<i64> = (0..len)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 33) % 40) as i64 - 5
                })
                .collect();
            let t = MaxTree::new(values.clone());
            for bound in 0..=len + 1 {
                for x in -7..40 {
                    let right = (0..bound.min(len)).rev().find(|&p| values[p] > x);
                    assert_eq!(t.rightmost_above(bound, x), right, "{values:?} {bound} {x}");
                    let left = (bound..len).find(|&p| values[p] > x);
                    assert_eq!(t.leftmost_above(bound, x), left, "{values:?} {bound} {x}");
                }
            }
        }
    }

    #[test]
    fn a_plain_call_is_not_said_to_have_a_maximum() {
        let m = too_many_message(3, "Bash", "#4 `Bash`", &Repeat::ONCE, &[7]);
        assert_eq!(
            m,
            "call #4 is another call to `Bash`: #4 `Bash` expects one call and is already met by call #8"
        );
        let counted = Repeat {
            min: 0,
            max: Some(2),
        };
        let m = too_many_message(5, "search", "#1 `search`", &counted, &[1, 2]);
        assert_eq!(
            m,
            "call #6 is one call to `search` too many: #1 `search` allows at most 2"
        );
    }
}
