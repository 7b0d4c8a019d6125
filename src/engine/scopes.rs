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
use crate::config::{AnswerCheck, MatcherConfig, Part, Scope, TurnSel};

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

/// Whether call `i` is in `scope` (no scope: every call is).
pub(crate) fn in_scope(scope: Option<&Scope>, calls: &dyn Calls, turns: Turns, i: usize) -> bool {
    let Some(s) = scope else { return true };
    let turn_ok = match s.turn {
        None => true,
        Some(sel) => {
            let want = match sel {
                TurnSel::Nth(n) => Some(n),
                TurnSel::Last(_) => turns.last,
            };
            want.is_some() && calls.turn(i) == want
        }
    };
    turn_ok && s.agent.as_deref().is_none_or(|a| calls.agent(i) == Some(a))
}

/// What a message says of a scope: ` (in turn 2, by agent "x")`.
pub(crate) fn describe(scope: Option<&Scope>) -> String {
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
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
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
