//! Verdicts on a prefix of a run: for a run that may go on, which statements of the spec no
//! continuation can satisfy any more (**violated**), which a continuation may still satisfy
//! (**pending**) and which hold so far (**met**).
//!
//! Input: the compiled spec and the calls made so far, the same as [`super::run`]'s. Output: a
//! [`Prefix`]: the ordinary verdict of those calls (the same [`Run`](super::Run), unchanged) and
//! one [`Statement`] per statement of the spec, its state read off that verdict. Nothing is
//! matched twice: a statement is violated only when the verdict's finding about it is one that
//! every continuation keeps (a monotone fact about the calls already made), decided per construct
//! as `docs/engine.md` (*Verdicts on an unfinished run*) states; everything the alignment could
//! still change is pending. Linear in the calls and the spec beside the verdict's own work.

use serde::{Deserialize, Serialize};

use super::names::NameTable;
use super::verdict::{Status, Verdict};
use super::{has_ref, is_cap, of_server, AsDyn, Calls, Run};
use crate::code::Code;
use crate::config::{
    Anchor, Counted, Edge, ExtraCalls, GroupKind, MatcherConfig, OrderMode, Scope, TurnSel,
};
use crate::source::Span;

/// The state of one statement on a run that may go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// No continuation of the run can satisfy it: the run fails whatever comes next.
    Violated,
    /// Not satisfied yet (or not decidable before the run ends); a continuation may satisfy it.
    Pending,
    /// Satisfied by the calls so far (for a rule about what must not happen: so far).
    Met,
}

impl State {
    /// The word reports print (`violated`).
    pub fn name(self) -> &'static str {
        match self {
            State::Violated => "violated",
            State::Pending => "pending",
            State::Met => "met",
        }
    }
}

/// Which statement of the spec a [`Statement`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "index", rename_all = "snake_case")]
pub enum Subject {
    /// An expectation (index into the spec's expectations).
    Expectation(usize),
    /// A `never` rule (index into the spec's rules).
    Never(usize),
    /// A count: `total_calls`, a count of `*`, an agent's `runs` (index into the spec's counts).
    Count(usize),
    /// A `before` rule (index into the spec's `before` rules).
    Before(usize),
    /// The `answer` constraint.
    Answer,
    /// Under `order strict` or `extra calls: forbid`: every call accounted for by an
    /// expectation.
    EveryCall,
}

/// The state of one statement of the spec on the calls so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    /// The statement.
    #[serde(flatten)]
    pub subject: Subject,
    /// Its state.
    pub state: State,
    /// Where it is written (the spec itself for [`Subject::EveryCall`]).
    pub spec_span: Span,
    /// The call that decided a violation, when one did (0-based).
    #[serde(default)]
    pub call: Option<usize>,
    /// The verdict's findings about it, by index into [`Verdict::findings`].
    pub findings: Vec<usize>,
}

/// The verdict on a prefix of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prefix {
    /// The ordinary verdict of the calls so far ([`super::run`]'s).
    pub verdict: Verdict,
    /// One per statement of the spec, in the order they are written.
    pub statements: Vec<Statement>,
}

impl Prefix {
    /// Whether some statement is violated: the run fails whatever comes next.
    pub fn violated(&self) -> bool {
        self.statements.iter().any(|s| s.state == State::Violated)
    }

    /// How many statements are in `state`.
    pub fn count(&self, state: State) -> usize {
        self.statements.iter().filter(|s| s.state == state).count()
    }
}

/// The verdict on `calls` as a prefix of a run that may go on (see the module's documentation).
pub fn prefix<C: Calls + ?Sized>(config: &MatcherConfig, calls: &C) -> Prefix {
    let calls = &AsDyn(calls);
    let run = Run::new(config, calls);
    let statements = run.statements();
    Prefix {
        verdict: run.into_verdict(),
        statements,
    }
}

impl Run<'_> {
    /// The state of each statement of the spec on these calls taken as a prefix of a run that
    /// may go on ([`prefix()`]), read off this run's verdict; `findings` index the run's findings
    /// ([`Run::finding`]), which are not built for it.
    pub fn statements(&self) -> Vec<Statement> {
        judge(self)
    }
}

/// What a statement needs of finding `k` without building it: its code, call, spec span,
/// expectation (of a built finding; the extra calls' are about no statement's expectation), and
/// whether it is built.
struct Fact<'r> {
    code: &'r str,
    call: Option<usize>,
    spec_span: Option<Span>,
    expectation: Option<usize>,
    built: bool,
}

/// Whether a scope selects the same calls among those made, whatever calls come next: not the
/// last turn (a later user message moves it), not after the last call of a tool (a later call
/// moves it), not after a label's call (a later alignment may choose another).
fn fixed(scope: Option<&Scope>) -> bool {
    scope.is_none_or(|s| {
        !matches!(s.turn, Some(TurnSel::Last(_)))
            && s.after
                .as_ref()
                .is_none_or(|a| a.edge == Edge::First && matches!(a.anchor, Anchor::Tool { .. }))
    })
}

fn judge(run: &Run<'_>) -> Vec<Statement> {
    let (config, calls, verdict) = (run.config, run.calls, run.verdict());
    let forbidden_by = run.forbidden_by();
    let exps = &config.expectations;
    let mut statements = Vec::new();
    let findings: Vec<Fact<'_>> = (0..run.finding_count())
        .map(|k| {
            let (call, spec_span, code) = run.finding_place(k);
            let built = run.finding_built(k);
            Fact {
                code,
                call,
                spec_span,
                expectation: built.and_then(|f| f.expectation),
                built: built.is_some(),
            }
        })
        .collect();
    let findings = &findings;
    let of_code = |code: Code| {
        findings
            .iter()
            .enumerate()
            .filter(move |(_, f)| f.code == code.id())
    };
    let in_group: Vec<bool> = {
        let mut g = vec![false; exps.len()];
        for group in &config.groups {
            let members: Vec<usize> = match &group.kind {
                GroupKind::Either { branches } => branches.iter().flatten().copied().collect(),
                GroupKind::Parallel { members } => members.clone(),
            };
            for j in members {
                if let Some(slot) = g.get_mut(j) {
                    *slot = true;
                }
            }
        }
        g
    };
    // Whether every result so far is in (see [`Calls::settled`]).
    let settled = (0..calls.count()).all(|i| calls.settled(i));
    let mut names = NameTable::new(&config.names);
    let exp_name: Vec<usize> = exps.iter().map(|e| names.id(&e.tool)).collect();

    // Expectations: those of the arrangement the verdict kept.
    for o in &verdict.expectations {
        let j = o.expectation;
        let e = &exps[j];
        let mine: Vec<usize> = findings
            .iter()
            .enumerate()
            .filter(|(_, f)| f.expectation == Some(j))
            .map(|(k, _)| k)
            .collect();
        let mut call = None;
        let state = match o.status {
            Status::Matched | Status::Skipped => State::Met,
            Status::NameOnly | Status::Missing | Status::TooFew => State::Pending,
            Status::TooMany if !is_cap(e) => State::Met,
            Status::TooMany => {
                // A cap: violated when the calls that fully match it are already more than its
                // maximum, and no continuation can give any of them to another expectation or
                // take it out of the cap's scope.
                let beyond: Vec<usize> = mine
                    .iter()
                    .filter(|&&k| {
                        // Built: a call beyond a cap (an extra call's is built on demand).
                        findings[k].code == Code::TooManyCalls.id() && findings[k].built
                    })
                    .filter_map(|&k| findings[k].call)
                    .collect();
                let mut name_only: Vec<usize> = o.failures.iter().map(|f| f.call).collect();
                name_only.sort_unstable();
                name_only.dedup();
                let alone = exp_name.iter().filter(|&&id| id == exp_name[j]).count() == 1;
                let of_results = e.output.is_some() || e.errored.is_some();
                let decidable = alone
                    && !in_group[j]
                    && !has_ref(e)
                    && fixed(e.scope.as_ref())
                    && (!of_results || settled);
                if decidable && beyond.len() > name_only.len() {
                    call = beyond.first().copied();
                    State::Violated
                } else {
                    State::Pending
                }
            }
        };
        statements.push(Statement {
            subject: Subject::Expectation(j),
            state,
            spec_span: e.span,
            call,
            findings: mine,
        });
    }

    // `never` rules: a call made breaks one for good when neither its scope nor a reference can
    // change with later calls.
    for (r, rule) in config.forbidden.iter().enumerate() {
        let mine: Vec<usize> = of_code(Code::ForbiddenCall)
            .filter(|(_, f)| {
                f.call
                    .and_then(|i| forbidden_by.get(i).copied().flatten())
                    .is_some_and(|by| by as usize == r)
            })
            .map(|(k, _)| k)
            .collect();
        let decidable = fixed(rule.scope.as_ref())
            && !rule.args.as_ref().is_some_and(|m| {
                let mut found = false;
                super::for_each_matcher_check(m, &mut |c| {
                    found |= matches!(c, crate::config::Check::Ref { .. });
                });
                found
            });
        // A rule on the error flag is decided once the call's result is in.
        let result_in =
            |k: usize| rule.errored.is_none() || findings[k].call.is_none_or(|i| calls.settled(i));
        let (state, call) = match mine.iter().find(|&&k| result_in(k)) {
            None if mine.is_empty() => (State::Met, None),
            Some(&k) if decidable => (State::Violated, findings[k].call),
            _ => (State::Pending, None),
        };
        statements.push(Statement {
            subject: Subject::Never(r),
            state,
            spec_span: rule.span,
            call,
            findings: mine,
        });
    }

    // Counts: past a maximum for good when the scope is fixed and nothing counted depends on the
    // alignment; short of a minimum, pending.
    for (k, limit) in config.limits.iter().enumerate() {
        let mine: Vec<usize> = findings
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                (f.code == Code::CountOutOfRange.id() || f.code == Code::RunsNotRecorded.id())
                    && f.spec_span == Some(limit.span)
            })
            .map(|(k, _)| k)
            .collect();
        let counts_refs = match &limit.counted {
            Counted::Matching { args, output, .. } => {
                std::iter::once(args).chain(output.as_ref()).any(|m| {
                    let mut found = false;
                    super::for_each_matcher_check(m, &mut |c| {
                        found |= matches!(c, crate::config::Check::Ref { .. });
                    });
                    found
                })
            }
            _ => false,
        };
        // A count of results (`errored`, an output constraint) waits for every result.
        let of_results = matches!(
            &limit.counted,
            Counted::Matching { output, errored, .. } if output.is_some() || errored.is_some()
        );
        let decidable = fixed(limit.scope.as_ref()) && !counts_refs && (!of_results || settled);
        let mut state = if mine.is_empty() {
            State::Met
        } else {
            State::Pending
        };
        let mut call = None;
        for &f in &mine {
            let finding = &findings[f];
            // The format records no starts of sub-agents: no continuation records them.
            if finding.code == Code::RunsNotRecorded.id() {
                state = State::Violated;
            }
            // Past the maximum (the finding names the first call too many).
            if finding.code == Code::CountOutOfRange.id() && finding.call.is_some() && decidable {
                state = State::Violated;
                call = finding.call;
            }
        }
        statements.push(Statement {
            subject: Subject::Count(k),
            state,
            spec_span: limit.span,
            call,
            findings: mine,
        });
    }

    // `before` rules: a call of `then` before any of `first` may still be left unaccounted
    // (a later call of `then` matched instead), so a broken rule is pending.
    for (r, rule) in config.before.iter().enumerate() {
        let mine: Vec<usize> = of_code(Code::BeforeViolation)
            .filter(|(_, f)| f.spec_span == Some(rule.span))
            .map(|(k, _)| k)
            .collect();
        let state = if mine.is_empty() {
            State::Met
        } else {
            State::Pending
        };
        statements.push(Statement {
            subject: Subject::Before(r),
            state,
            spec_span: rule.span,
            call: None,
            findings: mine,
        });
    }

    // The answer is the last assistant text, which a later message replaces.
    if let Some(a) = &config.answer {
        let mine: Vec<usize> = findings
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.code == Code::AnswerMismatch.id() || f.code == Code::AnswerMissing.id()
            })
            .map(|(k, _)| k)
            .collect();
        statements.push(Statement {
            subject: Subject::Answer,
            state: State::Pending,
            spec_span: a.span,
            call: None,
            findings: mine,
        });
    }

    // Every call accounted for, under `strict` or `extra calls: forbid`.
    if config.order == OrderMode::Strict || config.extra_calls == ExtraCalls::Forbid {
        let mine: Vec<usize> = findings
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.code == Code::UnexpectedCall.id()
                    || (f.code == Code::TooManyCalls.id()
                        && f.expectation
                            .is_none_or(|j| !exps.get(j).is_some_and(is_cap)))
            })
            .map(|(k, _)| k)
            .collect();
        let parallel = config
            .groups
            .iter()
            .any(|g| matches!(g.kind, GroupKind::Parallel { .. }));
        let stuck = if config.order == OrderMode::AnyOrder || parallel {
            unplaceable_any_order(config, calls, &mut names, &exp_name)
        } else {
            unplaceable_in_order(config, calls, &mut names, &exp_name)
        };
        let state = if stuck.is_some() {
            State::Violated
        } else if mine.is_empty() {
            State::Met
        } else {
            State::Pending
        };
        statements.push(Statement {
            subject: Subject::EveryCall,
            state,
            spec_span: config.span,
            call: stuck,
            findings: mine,
        });
    }

    // Under `order strict` or `extra calls: forbid` in written order, a call that can only be
    // placed past an expectation whose absence fails the run, with no call of its name made
    // before, fails the run whatever comes next.
    if (config.order == OrderMode::Strict || config.extra_calls == ExtraCalls::Forbid)
        && config.order != OrderMode::AnyOrder
        && !config
            .groups
            .iter()
            .any(|g| matches!(g.kind, GroupKind::Parallel { .. }))
    {
        // Either that expectation stays without a call or the call is left unaccounted: the
        // every-call statement is violated, located at the expectation passed over.
        if let Some((j, i)) = skipped_in_order(config, calls, &mut names, &exp_name, &in_group) {
            if let Some(st) = statements
                .iter_mut()
                .find(|s| s.subject == Subject::EveryCall)
                .filter(|s| s.state != State::Violated || s.call.is_some_and(|c| c > i))
            {
                st.state = State::Violated;
                st.call = Some(i);
                st.spec_span = exps[j].span;
            }
        }
    }

    statements.sort_by_key(|s| (s.spec_span.start, s.spec_span.end));
    statements
}

/// Whether a run that never calls expectation `j` fails whatever else it does: `j` is required
/// (a minimum of at least one, outside `either` and `parallel` blocks and scopes), and either
/// critical or worth more of the score than the threshold leaves room for (credits per call at
/// most 1, a name-only credit at most a full one, so nothing else makes up for its slots).
fn fails_if_missing(config: &MatcherConfig, j: usize, in_group: &[bool]) -> bool {
    let e = &config.expectations[j];
    if e.repeat.min == 0 || in_group[j] || e.scope.is_some() {
        return false;
    }
    if e.critical {
        return true;
    }
    let s = &config.scoring;
    let weight = |w: f64| if w.is_finite() && w > 0.0 { w } else { 0.0 };
    let total: f64 = config
        .expectations
        .iter()
        .map(|x| weight(x.weight) * f64::from(x.repeat.min))
        .sum();
    let share = weight(e.weight) * f64::from(e.repeat.min) / total;
    !s.binary
        && s.exact_match <= 1.0
        && s.name_only <= s.exact_match
        && total > 0.0
        && share.is_finite()
        && share >= (1.0 - s.threshold) + 1e-6
}

/// Under `order strict` or `extra calls: forbid`, in written order: the first expectation whose
/// absence fails the run ([`fails_if_missing`]) that a call is placed past while no call of its
/// name has been made, with that call. Every call must then be placed, in written order, and
/// the leftmost placement ([`unplaceable_in_order`]) puts each call as early as any assignment
/// can: every assignment places the call past the expectation too, so only the calls before it
/// could fill it, and none has its name.
fn skipped_in_order(
    config: &MatcherConfig,
    calls: &dyn Calls,
    names: &mut NameTable,
    exp_name: &[usize],
    in_group: &[bool],
) -> Option<(usize, usize)> {
    let exps = &config.expectations;
    let mut seen: std::collections::HashSet<usize> = Default::default();
    // `at`: where the last call was placed (`None`: no call yet); `passed`: the expectations
    // before it, every one of them looked at.
    let (mut at, mut used, mut passed) = (None::<usize>, 0usize, 0usize);
    for i in 0..calls.count() {
        let id = names.id(calls.name(i));
        let room = |j: usize, used: usize| exps[j].repeat.max.is_none_or(|mx| used < mx as usize);
        let takes =
            |j: usize| exp_name[j] == id && of_server(exps[j].namespace.as_deref(), calls, i);
        if let Some(a) = at {
            if takes(a) && room(a, used) {
                used += 1;
                seen.insert(id);
                continue;
            }
        }
        let from = at.map_or(0, |a| a + 1);
        let Some(next) = (from..exps.len()).find(|&j| takes(j) && room(j, 0)) else {
            // Unplaceable: the every-call statement says so.
            break;
        };
        let passed_over = (passed..next).find(|&j| {
            Some(j) != at && !seen.contains(&exp_name[j]) && fails_if_missing(config, j, in_group)
        });
        if let Some(j) = passed_over {
            return Some((j, i));
        }
        passed = next + 1;
        at = Some(next);
        used = 1;
        seen.insert(id);
    }
    None
}

/// The first call that no order-preserving assignment of the calls made so far to expectations
/// of their name (each up to its maximum) can place, if one cannot be placed. Every alignment of
/// every continuation is such an assignment restricted to these calls (scopes, constraints and
/// branches not chosen only take candidates away), so past that call one of them stays
/// unaccounted (or forbidden) for good. Leftmost placement is optimal: it leaves every later
/// expectation, and the most room in the current one, to the calls after.
fn unplaceable_in_order(
    config: &MatcherConfig,
    calls: &dyn Calls,
    names: &mut NameTable,
    exp_name: &[usize],
) -> Option<usize> {
    let exps = &config.expectations;
    let (mut at, mut used) = (0usize, 0usize);
    for i in 0..calls.count() {
        let id = names.id(calls.name(i));
        let room = |j: usize, used: usize| exps[j].repeat.max.is_none_or(|mx| used < mx as usize);
        // An expectation of that name, and of the call's server where it names one.
        let takes =
            |j: usize| exp_name[j] == id && of_server(exps[j].namespace.as_deref(), calls, i);
        if at < exps.len() && takes(at) && room(at, used) {
            used += 1;
            continue;
        }
        match (at + 1..exps.len()).find(|&j| takes(j) && room(j, 0)) {
            Some(next) => {
                at = next;
                used = 1;
            }
            None => return Some(i),
        }
    }
    None
}

/// In any order: the first call of a name beyond the sum of the maxima of that name's
/// expectations, or of a server none of them admits (`SERVER::TOOL`), if there is one.
fn unplaceable_any_order(
    config: &MatcherConfig,
    calls: &dyn Calls,
    names: &mut NameTable,
    exp_name: &[usize],
) -> Option<usize> {
    let mut room: std::collections::HashMap<usize, Option<usize>> = Default::default();
    for (j, e) in config.expectations.iter().enumerate() {
        let r = room.entry(exp_name[j]).or_insert(Some(0));
        *r = match (*r, e.repeat.max) {
            (Some(a), Some(b)) => Some(a.saturating_add(b as usize)),
            _ => None,
        };
    }
    // Per name, the servers its expectations admit (`None`: any, as one of them names none).
    let mut servers: std::collections::HashMap<usize, Option<Vec<&str>>> = Default::default();
    for (j, e) in config.expectations.iter().enumerate() {
        let s = servers.entry(exp_name[j]).or_insert(Some(Vec::new()));
        match (s.as_mut(), e.namespace.as_deref()) {
            (Some(list), Some(ns)) => list.push(ns),
            (Some(_), None) => *s = None,
            (None, _) => {}
        }
    }
    for i in 0..calls.count() {
        let id = names.id(calls.name(i));
        let admitted = match servers.get(&id) {
            Some(Some(list)) => calls.namespace(i).is_some_and(|ns| list.contains(&ns)),
            _ => true,
        };
        if !admitted {
            return Some(i);
        }
        match room.get_mut(&id) {
            Some(None) => {}
            Some(Some(left)) if *left > 0 => *left -= 1,
            _ => return Some(i),
        }
    }
    None
}
