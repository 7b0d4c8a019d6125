//! Turn and agent scopes, and the final answer.
//!
//! An expectation written inside `turn N { … }` / `turn last { … }` / `agent "name" { … }`
//! is paired only with calls of that user turn and made by that agent ([`in_scope`], applied
//! when candidates are built, so the alignment never sees a pair outside the scope). Scopes
//! the transcript cannot answer are findings, never silent misses ([`findings`]): `turn`
//! blocks on a transcript that records no turns (an error: the expectations inside cannot be
//! judged), a turn past its last, an agent that made no call (warnings, with a did-you-mean
//! over the agents it has). The `answer` constraint is checked on the final assistant message
//! with the same code as any value ([`answer`]); it counts as one expectation of weight 1.

use std::collections::BTreeSet;

use serde_json::Value;

use super::checks::Evaluator;
use super::difflib;
use super::json::cut;
use super::verdict::{Finding, Severity};
use super::Calls;
use crate::code::Code;
use crate::config::{Anchor, AnswerCheck, Edge, MatcherConfig, Part, Scope, TurnSel};

/// Characters of the actual answer a finding quotes, at most.
pub(crate) const ANSWER_CHARS: usize = 200;

/// Distinct agent names looked at for a did-you-mean, at most.
const SUGGEST_AGENTS: usize = 200;

/// What the scopes of one run compare with: the transcript's last turn.
#[derive(Clone, Copy)]
pub(crate) struct Turns {
    last: Option<u32>,
}

impl Turns {
    pub(crate) fn of(calls: &dyn Calls) -> Turns {
        Turns {
            last: calls.turns(),
        }
    }
}

/// Where the calls of a scope start: its `after` anchor's call, if it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// No anchor (or one not known yet: taken as admitting every call).
    Any,
    /// The calls after this one.
    After(usize),
    /// The anchor has no call: nothing is after it.
    Nothing,
}

impl Bound {
    /// Whether call (or position) `i` is after the anchor.
    pub(crate) fn admits(self, i: usize) -> bool {
        match self {
            Bound::Any => true,
            Bound::After(p) => i > p,
            Bound::Nothing => false,
        }
    }
}

/// The bounds of a spec's scopes in one run: per expectation, per `never` rule, per count.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bounds {
    pub(crate) exps: Vec<Bound>,
    pub(crate) rules: Vec<Bound>,
    pub(crate) limits: Vec<Bound>,
}

impl Bounds {
    /// The bounds of `config`'s scopes on `calls`: a tool anchor is the first (last) call of
    /// that tool (`tool_id`: its name id, compared with `call_name`) among the calls of the
    /// scope's turn and agent; a label anchor the first (last) call of `pinned` for that
    /// expectation, or [`Bound::Any`] while `pinned` is not known (the first alignment).
    pub(crate) fn of<'c>(
        config: &'c MatcherConfig,
        calls: &dyn Calls,
        turns: Turns,
        call_name: &[u32],
        tool_id: &dyn Fn(&str) -> Option<u32>,
        pinned: Option<&[Vec<usize>]>,
    ) -> Bounds {
        let mut cache: std::collections::HashMap<&Scope, Bound> = Default::default();
        let mut bound = |scope: Option<&'c Scope>| -> Bound {
            let Some(s) = scope.filter(|s| s.after.is_some()) else {
                return Bound::Any;
            };
            *cache
                .entry(s)
                .or_insert_with(|| anchor(s, calls, turns, call_name, tool_id, pinned))
        };
        Bounds {
            exps: config
                .expectations
                .iter()
                .map(|e| bound(e.scope.as_ref()))
                .collect(),
            rules: config
                .forbidden
                .iter()
                .map(|f| bound(f.scope.as_ref()))
                .collect(),
            limits: config
                .limits
                .iter()
                .map(|l| bound(l.scope.as_ref()))
                .collect(),
        }
    }

    /// Whether any scope of `config` is anchored on a label (known after the first alignment).
    pub(crate) fn labelled(config: &MatcherConfig) -> bool {
        anchored_labels(config).next().is_some()
    }
}

/// The expectations `config`'s `after` blocks are anchored on.
pub(crate) fn anchored_labels(config: &MatcherConfig) -> impl Iterator<Item = usize> + '_ {
    config
        .expectations
        .iter()
        .filter_map(|e| e.scope.as_ref())
        .chain(config.forbidden.iter().filter_map(|f| f.scope.as_ref()))
        .chain(config.limits.iter().filter_map(|l| l.scope.as_ref()))
        .filter_map(|s| match s.after.as_ref().map(|a| &a.anchor) {
            Some(Anchor::Label { expectation, .. }) => Some(*expectation),
            _ => None,
        })
}

/// The bound of scope `s` (which has an `after` anchor).
fn anchor(
    s: &Scope,
    calls: &dyn Calls,
    turns: Turns,
    call_name: &[u32],
    tool_id: &dyn Fn(&str) -> Option<u32>,
    pinned: Option<&[Vec<usize>]>,
) -> Bound {
    let Some(after) = &s.after else {
        return Bound::Any;
    };
    let pick = |mut it: Box<dyn DoubleEndedIterator<Item = usize> + '_>| match after.edge {
        Edge::First => it.next(),
        Edge::Last => it.next_back(),
    };
    let at = match &after.anchor {
        Anchor::Tool { tool } => {
            let Some(id) = tool_id(tool) else {
                return Bound::Nothing;
            };
            // The anchor is looked for among the calls of the scope's turn and agent.
            let within = Scope {
                after: None,
                ..s.clone()
            };
            pick(Box::new((0..calls.count()).filter(move |&i| {
                call_name.get(i) == Some(&id) && in_scope(Some(&within), calls, turns, i)
            })))
        }
        Anchor::Label { expectation, .. } => match pinned {
            None => return Bound::Any,
            Some(p) => pick(Box::new(p.get(*expectation).into_iter().flatten().copied())),
        },
    };
    at.map_or(Bound::Nothing, Bound::After)
}

/// Whether call `i` is in `scope` (no scope: every call is).
pub(crate) fn in_scope(scope: Option<&Scope>, calls: &dyn Calls, turns: Turns, i: usize) -> bool {
    let Some(s) = scope else { return true };
    in_turn(s, calls.turn(i), turns) && s.agent.as_deref().is_none_or(|a| calls.agent(i) == Some(a))
}

/// Whether something of user turn `turn` is in the turn of scope `s` (any, when it names none).
pub(crate) fn in_turn(s: &Scope, turn: Option<u32>, turns: Turns) -> bool {
    match s.turn {
        None => true,
        Some(sel) => {
            let want = match sel {
                TurnSel::Nth(n) => Some(n),
                TurnSel::Last(_) => turns.last,
            };
            want.is_some() && turn == want
        }
    }
}

/// What a message says of a scope: ` (in turn 2, by agent "x")`.
pub(crate) fn describe(scope: Option<&Scope>) -> String {
    let parts = parts(scope);
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({parts})")
    }
}

/// What a scope selects, in words: `in turn 2, by agent "x"` (empty for no scope).
pub(crate) fn parts(scope: Option<&Scope>) -> String {
    let Some(s) = scope else {
        return String::new();
    };
    let mut parts = Vec::new();
    match s.turn {
        Some(TurnSel::Nth(n)) => parts.push(format!("in turn {n}")),
        Some(TurnSel::Last(_)) => parts.push("in the last turn".to_owned()),
        None => {}
    }
    if let Some(a) = &s.agent {
        parts.push(format!("by agent {}", quoted(a)));
    }
    if let Some(after) = &s.after {
        let edge = match after.edge {
            Edge::First => "first",
            Edge::Last => "last",
        };
        parts.push(match &after.anchor {
            Anchor::Tool { tool } => format!("after the {edge} `{tool}`"),
            Anchor::Label { label, .. } => format!("after the {edge} call of `{label}`"),
        });
    }
    parts.join(", ")
}

/// The findings about the spec's scopes that this transcript cannot answer, and whether one
/// of them fails the pair (scoped turns on a transcript that records none).
pub(crate) fn findings(config: &MatcherConfig, calls: &dyn Calls) -> (Vec<Finding>, bool) {
    let scopes: Vec<&Scope> = config
        .expectations
        .iter()
        .filter_map(|e| e.scope.as_ref())
        .collect();
    let mut out = Vec::new();
    if scopes.is_empty() {
        return (out, false);
    }
    let mut hard = false;
    let turns = calls.turns();
    // Turns: one finding per distinct block (by where it is written).
    let mut seen = BTreeSet::new();
    for s in scopes.iter().filter(|s| s.turn.is_some()) {
        if !seen.insert((s.turn_span.start, s.turn_span.end)) {
            continue;
        }
        match (turns, s.turn) {
            (None, _) if !hard => {
                hard = true;
                out.push(scope_finding(
                    Code::ScopesNotRecorded,
                    Severity::Error,
                    "the spec has `turn` blocks, but this transcript records no user turns, so \
                     the expectations inside cannot be judged"
                        .into(),
                    "`docs/formats.md` lists the formats whose readers record turns (user \
                     messages); a transcript with no user message has none. Check this \
                     transcript with a spec without `turn` blocks"
                        .into(),
                    s.turn_span,
                ));
            }
            (Some(n), Some(TurnSel::Nth(k))) if k > n => out.push(scope_finding(
                Code::TurnOutOfRange,
                Severity::Warning,
                format!(
                    "`turn {k}`: the transcript has {n} user turn{}",
                    if n == 1 { "" } else { "s" }
                ),
                format!("turns are numbered from 1; the last is {n} (`turn last`)"),
                s.turn_span,
            )),
            _ => {}
        }
    }
    // Agents: the names the transcript has, once.
    let mut agents: Vec<&str> = Vec::new();
    let mut known = std::collections::HashSet::new();
    for i in 0..calls.count() {
        if let Some(a) = calls.agent(i) {
            if known.insert(a) {
                agents.push(a);
            }
        }
    }
    let mut seen = BTreeSet::new();
    for s in &scopes {
        let Some(name) = &s.agent else { continue };
        if known.contains(name.as_str()) || !seen.insert(name.as_str()) {
            continue;
        }
        let help = if agents.is_empty() {
            "no call of this transcript is recorded as made by a sub-agent (`docs/formats.md` \
             lists the formats whose readers record agents)"
                .to_owned()
        } else {
            let lower = name.to_lowercase();
            let best = agents
                .iter()
                .take(SUGGEST_AGENTS)
                .map(|a| {
                    (
                        difflib::ratio(&cut(&a.to_lowercase(), 100), &cut(&lower, 100)),
                        *a,
                    )
                })
                .filter(|(r, _)| *r >= 0.6)
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let list: Vec<String> = agents.iter().take(10).map(|a| quoted(a)).collect();
            let more = if agents.len() > 10 {
                format!(" and {} more", agents.len() - 10)
            } else {
                String::new()
            };
            match best {
                Some((_, a)) => format!(
                    "did you mean {}? The transcript's agents: {}{more}",
                    quoted(a),
                    list.join(", ")
                ),
                None => format!("the transcript's agents: {}{more}", list.join(", ")),
            }
        };
        out.push(scope_finding(
            Code::UnknownAgent,
            Severity::Warning,
            format!(
                "no call of this transcript was made by agent {}",
                quoted(name)
            ),
            help,
            s.agent_span,
        ));
    }
    (out, hard)
}

/// The `anchor-not-called` warnings: one per `after` block whose anchor has no call (by where
/// its anchor is written), so that the expectations inside it are not unmet in silence.
pub(crate) fn anchor_findings(config: &MatcherConfig, bounds: &Bounds) -> Vec<Finding> {
    let scopes = config
        .expectations
        .iter()
        .map(|e| e.scope.as_ref())
        .zip(&bounds.exps)
        .chain(
            config
                .forbidden
                .iter()
                .map(|f| f.scope.as_ref())
                .zip(&bounds.rules),
        )
        .chain(
            config
                .limits
                .iter()
                .map(|l| l.scope.as_ref())
                .zip(&bounds.limits),
        );
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (scope, bound) in scopes {
        let Some(s) = scope else { continue };
        let Some(after) = &s.after else { continue };
        if *bound != Bound::Nothing || !seen.insert((after.span.start, after.span.end)) {
            continue;
        }
        let edge = match after.edge {
            Edge::First => "first",
            Edge::Last => "last",
        };
        let within = Scope {
            after: None,
            ..s.clone()
        };
        let (written, what) = match &after.anchor {
            Anchor::Tool { tool } => (
                tool.as_str(),
                format!("no call of `{tool}`{}", describe(Some(&within))),
            ),
            Anchor::Label { label, .. } => {
                (label.as_str(), format!("no call was matched to `{label}`"))
            }
        };
        out.push(finding(
            Code::AnchorNotCalled,
            Severity::Warning,
            format!("`after {edge} {written}`: {what} in this transcript, so no call is after it"),
            "the expectations inside the block are unmet, its `never` rules forbid nothing and \
             its counts count nothing; check the anchor's name (a tool, or a label of the spec)"
                .into(),
            after.span,
        ));
    }
    out
}

/// The outcome of the `answer` constraint: whether it holds, and a finding when it does not.
pub(crate) fn answer(
    check: &AnswerCheck,
    calls: &dyn Calls,
    judge: &Evaluator<'_>,
) -> (bool, Option<Finding>) {
    let Some(text) = calls.answer() else {
        return (
            false,
            Some(finding(
                Code::AnswerMissing,
                Severity::Error,
                "the spec checks the final answer, but this transcript records no final \
                 assistant message"
                    .into(),
                "`docs/formats.md` lists the formats whose readers record the final answer \
                 (the text of the last assistant message that has text)"
                    .into(),
                check.span,
            )),
        );
    };
    let value = Value::String(text.to_owned());
    let mut failures = Vec::new();
    // Past the last call: a reference reads from any call matched before the answer.
    let at = calls.count();
    if judge.matcher(
        &check.matcher,
        Some(&value),
        Part::Output,
        at,
        Some(&mut failures),
    ) {
        return (true, None);
    }
    let why: Vec<String> = failures
        .iter()
        .map(|f| {
            f.message
                .strip_prefix("output: ")
                .unwrap_or(&f.message)
                .to_owned()
        })
        .collect();
    let shown = quoted(&cut(text, ANSWER_CHARS));
    let size = text.chars().count();
    (
        false,
        Some(finding(
            Code::AnswerMismatch,
            Severity::Error,
            format!("the final answer fails the spec: {}", why.join("; ")),
            format!("the final answer (the last assistant text, {size} characters) begins {shown}"),
            check.span,
        )),
    )
}

/// `s` as a JSON string (quoted and escaped).
fn quoted(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// A finding about the spec at `span`, about no expectation or call.
fn finding(
    code: Code,
    severity: Severity,
    message: String,
    help: String,
    span: crate::source::Span,
) -> Finding {
    super::explain::finding(code, severity, message, help, None, Some(span), None)
}

/// A finding about a scope of the spec at `span` that this transcript cannot answer: what the
/// scope holds was checked against no call ([`Finding::unverified`]).
fn scope_finding(
    code: Code,
    severity: Severity,
    message: String,
    help: String,
    span: crate::source::Span,
) -> Finding {
    Finding {
        unverified: true,
        ..finding(code, severity, message, help, span)
    }
}
