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
mod forbid;
pub mod fuzzy;
mod in_order;
mod json;
mod keep;
mod limits;
pub mod names;
pub mod native;
mod refs;
pub use refs::{EACH_BOUND, VISIT_BOUND};
pub mod per_argument;
pub mod prefix;
mod prepare;
mod resolve;
mod scopes;
mod text_path;
pub mod tokens;
pub mod verdict;

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use crate::code::Code;
use crate::config::{Check, Expectation, ExtraCalls, MatcherConfig, OrderMode, ValueMatcher};
use crate::source::Span;
use crate::transcript::model::{AgentRun, CallTable, ToolCall};
use align::{sane, Candidate, Slots};
use arrange::Arrangement;
use checks::{Evaluator, RefMode};
pub(crate) use json::trimmed;
pub use keep::keep_for;
use native::NativeInputs;
pub use prefix::{prefix, Prefix, State, Statement, Subject};
use prepare::{Named, Prepared, Shared};
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
    /// Whether the result of call `i` (its output and error flag) is as final as the call: true
    /// for a recorded transcript; false for a call a running agent has made and whose result is
    /// not in yet, so that a verdict on a prefix ([`prefix()`]) does not decide on it.
    fn settled(&self, _i: usize) -> bool {
        true
    }
    /// The sub-agent that made call `i` (`None` for the main agent, or when not recorded).
    fn agent(&self, _i: usize) -> Option<&str> {
        None
    }
    /// The MCP server (namespace) of call `i`'s tool, if recorded ([`ToolCall::namespace`]).
    fn namespace(&self, _i: usize) -> Option<&str> {
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
    /// Each start of a sub-agent, in order, if the transcript records them (see [`Recorded`]).
    fn agent_runs(&self) -> Option<&[AgentRun]> {
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
    /// Each start of a sub-agent, if recorded (`None`: the format records none).
    pub agent_runs: Option<&'a [AgentRun]>,
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
    fn settled(&self, i: usize) -> bool {
        self.calls.settled(i)
    }
    fn agent(&self, i: usize) -> Option<&str> {
        self.calls.agent(i)
    }
    fn namespace(&self, i: usize) -> Option<&str> {
        self.calls.namespace(i)
    }
    fn turns(&self) -> Option<u32> {
        self.turns
    }
    fn answer(&self) -> Option<&str> {
        self.answer
    }
    fn agent_runs(&self) -> Option<&[AgentRun]> {
        self.agent_runs
    }
}

/// Calls of a run still going on, some of whose results are not in yet (a guard's journal):
/// `calls`, with call `i` settled ([`Calls::settled`]) only when it is not listed in
/// `unsettled` (sorted) and `calls` has it settled.
pub struct Unsettled<'a> {
    /// The calls.
    pub calls: &'a dyn Calls,
    /// The calls whose result is not in yet, sorted.
    pub unsettled: &'a [usize],
}

impl Calls for Unsettled<'_> {
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
    fn settled(&self, i: usize) -> bool {
        self.unsettled.binary_search(&i).is_err() && self.calls.settled(i)
    }
    fn agent(&self, i: usize) -> Option<&str> {
        self.calls.agent(i)
    }
    fn namespace(&self, i: usize) -> Option<&str> {
        self.calls.namespace(i)
    }
    fn turns(&self) -> Option<u32> {
        self.calls.turns()
    }
    fn answer(&self) -> Option<&str> {
        self.calls.answer()
    }
    fn agent_runs(&self) -> Option<&[AgentRun]> {
        self.calls.agent_runs()
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
    fn namespace(&self, i: usize) -> Option<&str> {
        self.get(i).and_then(|c| c.namespace.as_deref())
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
    fn namespace(&self, i: usize) -> Option<&str> {
        self.as_slice().namespace(i)
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
    fn namespace(&self, i: usize) -> Option<&str> {
        self.as_slice().namespace(i)
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
    fn namespace(&self, i: usize) -> Option<&str> {
        CallTable::namespace(self, i)
    }
}

/// Whether call `i` is of the server an expectation or a `never` rule names (`SERVER::TOOL`,
/// its `namespace`): exactly that namespace; any call when it names none.
pub(crate) fn of_server(namespace: Option<&str>, calls: &dyn Calls, i: usize) -> bool {
    namespace.is_none_or(|ns| calls.namespace(i) == Some(ns))
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
    fn settled(&self, i: usize) -> bool {
        self.0.settled(i)
    }
    fn agent(&self, i: usize) -> Option<&str> {
        self.0.agent(i)
    }
    fn namespace(&self, i: usize) -> Option<&str> {
        self.0.namespace(i)
    }
    fn turns(&self) -> Option<u32> {
        self.0.turns()
    }
    fn answer(&self) -> Option<&str> {
        self.0.answer()
    }
    fn agent_runs(&self) -> Option<&[AgentRun]> {
        self.0.agent_runs()
    }
}

/// One spec checked against one transcript, its findings built on demand: what
/// [`run`] collects into a [`Verdict`], for a caller that writes findings out as it goes (the
/// streamed check) and need not hold them all.
pub struct Run<'a> {
    config: &'a MatcherConfig,
    calls: &'a dyn Calls,
    shared: Shared,
    prep: Rc<Prepared>,
    assigned: Vec<Vec<usize>>,
    /// The calls the `never` rules forbid, when rules with a reference forbade more than
    /// `prep`'s.
    forbidden: Option<Vec<Option<u32>>>,
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

/// Work of all the arrangements of one run but the first, at most: a unit per (call,
/// expectation) pair evaluated, per call and pair aligned, and in order per state of the
/// alignment's programme each pair updates and per state its look-up of the best earlier state
/// scans (`prepare.rs`). The first arrangement is always tried, within an ordinary run's budgets;
/// past this, the arrangements not yet tried are not, and the pair gets a `too-large` note at the
/// block that says how many were. A 6-member block among 30 plain expectations of 6 tools over
/// 2 777 calls of those tools costs about 940 000 units an order: about 210 of its 720 orders are
/// tried.
pub const ARRANGEMENT_WORK: usize = 200_000_000;

/// The work the arrangements of a run may still spend (`None`: unbounded).
struct Work(Option<usize>);

impl Work {
    /// Spend `units` if that many are left (then `true`); otherwise spend nothing.
    fn spend(&mut self, units: usize) -> bool {
        match &mut self.0 {
            None => true,
            Some(left) => match left.checked_sub(units) {
                Some(l) => {
                    *left = l;
                    true
                }
                None => false,
            },
        }
    }
}

/// One alignment of an arrangement, and how it was judged (without findings).
struct Tried {
    aligned: Aligned,
    /// The ranking's decision and score (`Judged::ranking`).
    passed: bool,
    score: f64,
    /// The verdict's score, as reported (with `score per_argument`'s shares).
    shown: f64,
    /// Hard failures another alignment might avoid: critical expectations not met, and
    /// unaccounted calls where every one fails the pair.
    avoidable: usize,
}

impl Tried {
    /// Whether `self` is a better verdict than `other`: it passes where `other` fails; else
    /// it scores more; else (equal scores, within the threshold's tolerance) it has fewer
    /// avoidable hard failures.
    fn beats(&self, other: &Tried) -> bool {
        if self.passed != other.passed {
            return self.passed;
        }
        if !native::same_score(self.score, other.score) {
            return self.score > other.score;
        }
        self.avoidable < other.avoidable
    }
}

/// An alignment: the calls of each expectation, the candidates it was made from when the
/// references changed them, and the budget that made it approximate, if one did.
struct Aligned {
    assigned: Vec<Vec<usize>>,
    realigned: Option<Vec<Vec<Candidate>>>,
    /// The forbidden calls, when `never` rules with a reference forbade more than the others.
    forbidden: Option<Vec<Option<u32>>>,
    /// Where the scopes start, when an `after` block is anchored on a label (known once its
    /// expectation's calls are pinned).
    bounds: Option<scopes::Bounds>,
    too_large: Option<explain::Budget>,
}

/// The verdict of one alignment, its findings built or not.
struct Judged {
    verdict: Verdict,
    /// The verdict's score and decision with every name-only call at `name_only`: what
    /// alignments and arrangements are ranked by, so `score per_argument` never changes the
    /// pairing (`docs/scoring.md`, *Partial credit per argument*).
    ranking: native::NativeScore,
    pending: Vec<explain::Pending>,
    strict_extras: bool,
    avoidable: usize,
}

/// One arrangement of a run: the spec, the calls, what the run shares and the candidates of
/// the arrangement's choice of branches.
struct Pass<'r> {
    config: &'r MatcherConfig,
    calls: &'r dyn Calls,
    shared: &'r Shared,
    prep: &'r Prepared,
    arr: &'r Arrangement,
}

impl<'a> Run<'a> {
    /// Check `calls` against `config`. The verdict is complete but for its findings, which are
    /// handed out one at a time ([`Run::finding`]), in the verdict's order.
    pub fn new(config: &'a MatcherConfig, calls: &'a dyn Calls) -> Run<'a> {
        let mut run = Run::with(config, calls, Shared::default());
        run.mark_unverified_references();
        run
    }

    /// A pair that passes with `reference-not-applied` notes is run again with every reference
    /// applied (one to an expectation that matched nothing then fails); if that run fails, the
    /// pass rests on constraints that were not checked, and the notes are marked
    /// [`Finding::unverified`]. At most doubles the work of such a pair, within the same
    /// budgets; a pair without such notes, or that fails, is not run again.
    fn mark_unverified_references(&mut self) {
        if !self.verdict.passed {
            return;
        }
        let notes: Vec<usize> = (0..self.pending.len())
            .filter(|&k| self.finding_place(k).2 == Code::ReferenceNotApplied.id())
            .collect();
        if notes.is_empty() {
            return;
        }
        let applied = Shared {
            refs_always_apply: true,
            ..Shared::default()
        };
        if Run::with(self.config, self.calls, applied).verdict.passed {
            return;
        }
        for k in notes {
            if let Some(explain::Pending::Ready(f)) = self.pending.get_mut(k) {
                f.unverified = true;
            }
        }
    }

    /// [`Run::new`] with what the arrangements share given, without marking the references.
    fn with(config: &'a MatcherConfig, calls: &'a dyn Calls, shared: Shared) -> Run<'a> {
        // Every arrangement of the `either` and `parallel` blocks (one for a spec without
        // blocks), the best verdict kept: passing first, then the higher score, then fewer
        // avoidable hard failures, then the first tried.
        let (mut all, more) = if config.groups.is_empty() {
            (Vec::new(), false)
        } else {
            arrange::arrangements(config)
        };
        let mut truncated = more;
        if all.is_empty() {
            all.push(Arrangement::plain(config.expectations.len()));
        }
        // The first arrangement is an ordinary run, whatever its size; the others share one
        // budget.
        let mut first = Work(None);
        let mut rest = Work(Some(ARRANGEMENT_WORK));
        let mut prep: Option<Rc<Prepared>> = None;
        let mut best: Option<(Tried, Rc<Prepared>, usize)> = None;
        let mut branch_best: HashMap<(usize, usize), f64> = HashMap::new();
        let mut tried_count = 0usize;
        for (k, arr) in all.iter().enumerate() {
            let work = if k == 0 { &mut first } else { &mut rest };
            let p = match &prep {
                Some(p) if p.choice == arr.precedence.0 => Rc::clone(p),
                _ => {
                    let named = Named::new(config, calls, &arr.active, arr.precedence.0, &shared);
                    if !work.spend(named.pairs) {
                        truncated = true;
                        break;
                    }
                    let p = Rc::new(named.evaluate(&shared));
                    prep = Some(Rc::clone(&p));
                    p
                }
            };
            if !work.spend(p.alignment_work) {
                truncated = true;
                break;
            }
            let pass = Pass {
                config,
                calls,
                shared: &shared,
                prep: &p,
                arr,
            };
            let tried = pass.try_with(work);
            tried_count += 1;
            for &gb in &arr.chosen {
                let s = branch_best.entry(gb).or_insert(tried.shown);
                *s = s.max(tried.shown);
            }
            if best.as_ref().is_none_or(|(b, _, _)| tried.beats(b)) {
                best = Some((tried, p, k));
            }
        }
        // The first arrangement's budget is unbounded, so it is always tried.
        let (tried, p, arr) = if let Some((tried, p, k)) = best {
            (tried, p, &all[k])
        } else {
            let arr = &all[0];
            let p = Rc::new(Named::new(config, calls, &arr.active, 0, &shared).evaluate(&shared));
            let pass = Pass {
                config,
                calls,
                shared: &shared,
                prep: &p,
                arr,
            };
            let tried = pass.try_with(&mut Work(None));
            (tried, p, arr)
        };
        let pass = Pass {
            config,
            calls,
            shared: &shared,
            prep: &p,
            arr,
        };
        let judged = pass.judge(&tried.aligned, true);
        let mut run = Run::from_judged(config, calls, shared, Rc::clone(&p), tried.aligned, judged);
        if config.groups.is_empty() {
            return run;
        }
        run.verdict
            .expectations
            .retain(|o| arr.active.get(o.expectation).copied().unwrap_or(true));
        let best_of = |g: usize, b: usize| branch_best.get(&(g, b)).copied();
        run.pending
            .extend(arrange::branch_notes(config, &arr.chosen, &best_of));
        if truncated {
            run.pending
                .push(arrange::too_many(config, tried_count, all.len(), more));
        }
        explain::sort(&mut run.pending);
        run
    }

    fn from_judged(
        config: &'a MatcherConfig,
        calls: &'a dyn Calls,
        shared: Shared,
        prep: Rc<Prepared>,
        aligned: Aligned,
        judged: Judged,
    ) -> Run<'a> {
        Run {
            config,
            calls,
            shared,
            prep,
            assigned: aligned.assigned,
            forbidden: aligned.forbidden,
            strict_extras: judged.strict_extras,
            pending: judged.pending,
            verdict: judged.verdict,
        }
    }

    /// Per call, the `never` rule that forbids it (index into the spec's rules).
    pub(crate) fn forbidden_by(&self) -> &[Option<u32>] {
        self.forbidden.as_deref().unwrap_or(&self.prep.forbidden_by)
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

    /// Finding `k` when it is built already (every finding but those about extra calls).
    pub(crate) fn finding_built(&self, k: usize) -> Option<&Finding> {
        match self.pending.get(k) {
            Some(explain::Pending::Ready(f)) => Some(f),
            _ => None,
        }
    }

    /// Whether finding `k` is [`Finding::unverified`], without building it.
    pub fn finding_unverified(&self, k: usize) -> bool {
        matches!(self.pending.get(k), Some(explain::Pending::Ready(f)) if f.unverified)
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
            cache: &self.shared.cache,
            fuzzy: &self.shared.fuzzy,
            refs: RefMode::Partners(&self.assigned),
            refcx: &self.prep.refcx,
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

impl Pass<'_> {
    /// An evaluator of this run's constraints.
    fn evaluator<'e>(&'e self, refs: RefMode<'e>) -> Evaluator<'e> {
        Evaluator {
            calls: self.calls,
            cache: &self.shared.cache,
            fuzzy: &self.shared.fuzzy,
            refs,
            refcx: &self.prep.refcx,
        }
    }

    /// The arrangement aligned and judged: the optimal alignment, and when its verdict fails
    /// on a hard failure another alignment might avoid (a critical expectation not met, an
    /// unaccounted call where each fails the pair), the best alignment that avoids as many of
    /// them as can be ([`align::Preference`]), kept if its verdict is better. The second
    /// alignment is paid from `work`; without enough, the verdict gets a `too-large` note.
    fn try_with(&self, work: &mut Work) -> Tried {
        let aligned = self.align(&self.prep.slots);
        let judged = self.judge(&aligned, false);
        let mut tried = Tried {
            aligned,
            passed: judged.ranking.passed,
            score: judged.ranking.score,
            shown: judged.verdict.score,
            avoidable: judged.avoidable,
        };
        if tried.passed || tried.avoidable == 0 {
            return tried;
        }
        let critical = arrange::critical(self.config, &self.arr.active);
        let preference = align::Preference {
            critical: critical.iter().map(Option::is_some).collect(),
            every_call: judged.strict_extras,
        };
        // Without the slots (gains too large to rank a preference above them exactly) or the
        // work, the optimal alignment stays, and the note says the search was not exhaustive.
        let slots = preference.slots(&self.prep.slots, &self.prep.by_call);
        let Some(slots) = slots.filter(|_| work.spend(self.prep.alignment_work)) else {
            tried
                .aligned
                .too_large
                .get_or_insert(explain::Budget::Preference);
            return tried;
        };
        let aligned = self.align(&slots);
        let judged = self.judge(&aligned, false);
        let other = Tried {
            aligned,
            passed: judged.ranking.passed,
            score: judged.ranking.score,
            shown: judged.verdict.score,
            avoidable: judged.avoidable,
        };
        if other.beats(&tried) {
            other
        } else {
            tried
        }
    }

    /// The alignment of the arrangement's candidates with slot gains `slots`: a first pass
    /// with references taken as satisfied, a second with the referenced expectations' calls
    /// pinned and the references judged against them, then the `before` rules.
    fn align(&self, slots: &[Slots]) -> Aligned {
        let config = self.config;
        let exps = &config.expectations;
        let n = self.calls.count();
        let arr = self.arr;
        // Set when an alignment ran past a budget (reported as a `too-large` note).
        let too_large: std::cell::Cell<Option<explain::Budget>> =
            std::cell::Cell::new(self.prep.windowed.then_some(explain::Budget::Pairs));
        let align = |by_call: &[Vec<Candidate>]| match config.order {
            OrderMode::Strict | OrderMode::InOrder => {
                let (a, approximate) = match &arr.rank {
                    Some(rank) => arrange::align_ranked(slots, by_call, rank),
                    None => in_order::align(slots, by_call),
                };
                if approximate {
                    too_large.set(Some(explain::Budget::InOrder));
                }
                a
            }
            OrderMode::AnyOrder => {
                let (a, approximate) = any_order::align(slots, by_call, &self.prep.exp_name);
                if approximate {
                    too_large.set(Some(explain::Budget::AnyOrder));
                }
                a
            }
        };
        let mut assigned = align(&self.prep.by_call);

        // Pass 2: pin the referenced expectations' calls, evaluate references against them, realign.
        let referenced = referenced_expectations(config);
        let mut realigned = None;
        let mut forbidden = None;
        let mut bounds = None;
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
            let against = self.evaluator(RefMode::Partners(&pinned));
            let mut by_call = self.prep.by_call.clone();
            // `after` blocks anchored on a label start after its pinned calls: the candidates
            // before them leave.
            let labelled = scopes::Bounds::labelled(config).then(|| {
                scopes::Bounds::of(
                    config,
                    self.calls,
                    self.prep.turns,
                    &self.prep.call_name,
                    &|t| self.prep.anchor_name.get(t).copied(),
                    Some(&pinned),
                )
            });
            if let Some(b) = &labelled {
                for (i, cands) in by_call.iter_mut().enumerate() {
                    cands.retain(|c| b.exps[c.exp].admits(i));
                }
            }
            let rule_bounds = labelled.as_ref().unwrap_or(&self.prep.bounds);
            // `never` rules with references (or anchored on a label), against the pinned calls:
            // a call they forbid is matched to nothing.
            if self.prep.forbid.any_deferred {
                let mut by = self.prep.forbidden_by.clone();
                let newly = self.prep.forbid.deferred_pass(
                    config,
                    &against,
                    self.prep.turns,
                    &rule_bounds.rules,
                    &self.prep.call_name,
                    &mut by,
                );
                for &i in &newly {
                    by_call[i].clear();
                }
                if !newly.is_empty() {
                    forbidden = Some(by);
                }
            }
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
            realigned = Some(by_call);
            bounds = labelled;
        }
        if !config.before.is_empty() {
            let by_call = realigned.as_deref().unwrap_or(&self.prep.by_call);
            assigned = before::respect(&config.before, slots, by_call, assigned, &align);
        }
        Aligned {
            assigned,
            realigned,
            forbidden,
            bounds,
            too_large: too_large.get(),
        }
    }

    /// The verdict of an alignment, with its findings when `findings` is set (they are built
    /// only for the arrangement kept).
    fn judge(&self, aligned: &Aligned, findings: bool) -> Judged {
        let config = self.config;
        let calls = self.calls;
        let arr = self.arr;
        let prep = self.prep;
        let exps = &config.expectations;
        let active = |j: usize| arr.active.get(j).copied().unwrap_or(true);
        let (m, n) = (exps.len(), calls.count());
        let assigned = &aligned.assigned;
        let by_call = aligned.realigned.as_deref().unwrap_or(&prep.by_call);
        let slots = &prep.slots;
        let forbidden_by = aligned.forbidden.as_deref().unwrap_or(&prep.forbidden_by);
        let bounds = aligned.bounds.as_ref().unwrap_or(&prep.bounds);
        // The verdict, with references judged against the final partners.
        let judge = self.evaluator(RefMode::Partners(assigned));
        let mut owner = vec![None; n];
        let mut outcomes = Vec::with_capacity(m);
        let mut inputs = NativeInputs {
            all_met: true,
            ..NativeInputs::default()
        };
        let mut plain_earned = 0.0;
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
                    tool: e.shown_tool(),
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
            let full_credit = w * sane(config.scoring.exact_match) * req_full as f64;
            let credit = full_credit + name_credit;
            let unmet = min - req_full;
            inputs.earned += credit;
            plain_earned += full_credit + w * sane(config.scoring.name_only) * req_name as f64;
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
                tool: e.shown_tool(),
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
        let over_cap = over_cap(exps, assigned, &owner, forbidden_by, by_call);
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
            exp_name: &prep.exp_name,
            call_name: &prep.call_name,
            forbidden_by,
            owner: &owner,
            by_call,
            over_cap: &over_cap,
            turns: prep.turns,
            bounds: &bounds.exps,
            active: &arr.active,
        };
        let before_broken = explain::before_violations(&ctx, &outcomes);
        let (scope_findings, unjudged) = scopes::findings(config, calls);
        let limit_findings = limits::check(config, &judge, prep.turns, &bounds.limits);
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
                plain_earned += exact;
            } else {
                inputs.unmet_weight += 1.0;
                inputs.all_met = false;
            }
        }
        let critical = arrange::critical(config, &arr.active);
        let mut pending = if findings {
            explain::findings(&ctx, &mut outcomes, before_broken.clone())
        } else {
            Vec::new()
        };
        let critical_unmet = arrange::critical_findings(config, &outcomes, &arr.active, &critical);
        inputs.hard_failure = counts.forbidden > 0
            || !over_cap.is_empty()
            || (strict_extras && counts.extra > 0)
            || !before_broken.is_empty()
            || unjudged
            || !critical_unmet.is_empty()
            || !limit_findings.is_empty();
        let result = native::score(&config.scoring, &inputs);
        let ranking = native::score(
            &config.scoring,
            &NativeInputs {
                earned: plain_earned,
                ..inputs
            },
        );
        let avoidable = critical_unmet.len() + if strict_extras { counts.extra } else { 0 };
        if !findings {
            return Judged {
                verdict: Verdict {
                    score: result.score,
                    passed: result.passed,
                    threshold: native::threshold(&config.scoring),
                    counts,
                    expectations: outcomes,
                    unaccounted,
                    findings: Vec::new(),
                },
                pending,
                ranking,
                strict_extras,
                avoidable,
            };
        }
        explain::merge(
            &mut pending,
            refs::not_applied(config, assigned, &arr.active),
        );
        explain::merge(&mut pending, limit_findings);
        let extra = scope_findings
            .into_iter()
            .chain(scopes::anchor_findings(config, bounds))
            .chain(answer.and_then(|(_, f)| f))
            .map(|f| explain::Pending::Ready(Box::new(f)));
        pending.extend(extra);
        if !critical_unmet.is_empty() {
            pending.extend(critical_unmet);
            explain::sort(&mut pending);
        }
        if let Some(budget) = aligned.too_large {
            pending.push(explain::too_large(budget));
        }
        Judged {
            verdict: Verdict {
                score: result.score,
                passed: result.passed,
                threshold: native::threshold(&config.scoring),
                counts,
                expectations: outcomes,
                unaccounted,
                findings: Vec::new(),
            },
            pending,
            ranking,
            strict_extras,
            avoidable,
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

/// Which expectations a reference constraint of an expectation or a `never` rule reads from
/// (their calls are pinned before the second alignment; the answer's and the counts' references
/// read the final alignment).
fn referenced_expectations(config: &MatcherConfig) -> Vec<bool> {
    let mut out = vec![false; config.expectations.len()];
    let mut mark = |c: &Check| {
        if let Check::Ref { expectation, .. } = c {
            if let Some(slot) = out.get_mut(*expectation) {
                *slot = true;
            }
        }
    };
    for e in &config.expectations {
        for_each_check(e, &mut mark);
    }
    for m in config.forbidden.iter().filter_map(|f| f.args.as_ref()) {
        for_each_matcher_check(m, &mut mark);
    }
    // The expectations `after` blocks are anchored on: their calls are pinned too.
    for k in scopes::anchored_labels(config) {
        if let Some(slot) = out.get_mut(k) {
            *slot = true;
        }
    }
    out
}

fn has_ref(e: &Expectation) -> bool {
    let mut found = false;
    for_each_check(e, &mut |c| found |= matches!(c, Check::Ref { .. }));
    found
}

/// Visit `c` and every check inside it.
fn walk_check(c: &Check, f: &mut dyn FnMut(&Check)) {
    f(c);
    match c {
        Check::Not { check } => walk_check(check, f),
        Check::AllOf { checks } | Check::AnyOf { checks } => {
            for c in checks {
                walk_check(c, f);
            }
        }
        _ => {}
    }
}

/// Visit every check of `m`, nested ones included.
fn for_each_matcher_check(m: &ValueMatcher, f: &mut dyn FnMut(&Check)) {
    for pc in &m.checks {
        walk_check(&pc.check, f);
    }
}

/// Visit every check of `e`, nested ones included.
fn for_each_check(e: &Expectation, f: &mut dyn FnMut(&Check)) {
    for m in std::iter::once(&e.args).chain(e.output.as_ref()) {
        for_each_matcher_check(m, f);
    }
}

/// Visit every check of a spec: its expectations', its `never` rules', its answer's.
fn for_each_spec_check(config: &MatcherConfig, f: &mut dyn FnMut(&Check)) {
    for e in &config.expectations {
        for_each_check(e, f);
    }
    for r in &config.forbidden {
        if let Some(m) = &r.args {
            for_each_matcher_check(m, f);
        }
    }
    if let Some(a) = &config.answer {
        for_each_matcher_check(&a.matcher, f);
    }
    for l in &config.limits {
        if let crate::config::Counted::Matching { args, output, .. } = &l.counted {
            for m in std::iter::once(args).chain(output.as_ref()) {
                for_each_matcher_check(m, f);
            }
        }
    }
}
