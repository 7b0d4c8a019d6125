//! A finding in brief: the words the short text formats (the human format's default, `concise`)
//! print for it, from the finding and its pair's result, so that what a call is and what it
//! fails reads without opening the transcript.
//!
//! Input: a [`Finding`] and the [`PairResult`] it belongs to (its expectations' failed
//! constraints, its rules). Output: short phrases, data escaped ([`crate::text::escape`]).
//! Cannot fail.

use super::call;
use super::model::{ConstraintFailure, Finding, Location, PairResult};
use crate::code::Code;
use crate::text::escape;

/// The constraints the finding's call fails for the finding's expectation, in spec order.
pub fn failures<'a>(r: &'a PairResult, f: &Finding) -> Vec<&'a ConstraintFailure> {
    let (Some(e), Some(c)) = (f.expectation, &f.call) else {
        return Vec::new();
    };
    r.expectations
        .iter()
        .find(|x| x.index == e)
        .map(|x| x.failures.iter().filter(|g| g.call == c.index).collect())
        .unwrap_or_default()
}

/// An expectation as the reports name it: `#4 issue_refund (refund)`.
pub fn expectation(r: &PairResult, index: usize) -> Option<String> {
    let x = r.expectations.iter().find(|x| x.index == index)?;
    Some(match &x.label {
        Some(l) => format!("#{} {} ({})", index + 1, escape(&x.tool), escape(l)),
        None => format!("#{} {}", index + 1, escape(&x.tool)),
    })
}

/// The finding's call as one line of at most `width` characters: `call #3 issue_refund(…)`,
/// the arguments its failed constraints are about first. `None` when it is about no call.
pub fn call_text(r: &PairResult, f: &Finding, width: usize) -> Option<String> {
    let c = f.call.as_ref()?;
    let failed = failures(r, f);
    let first: Vec<&str> = failed
        .iter()
        .filter_map(|g| call::first_key(&g.path))
        .collect();
    let head = format!("call #{} ", c.index + 1);
    let room = width.saturating_sub(head.chars().count());
    Some(format!(
        "{head}{}",
        call::show(&c.name, &c.arguments, &first, room)
    ))
}

/// What the finding's call did wrong, in a phrase, the most telling words first: the
/// constraints it fails, then the expectation they belong to and where it is written
/// (`amount_cents: 14999 is above the maximum 12999; expectation #4 issue_refund (refund) at
/// prompts/refund.toolspec:13`); the `never` rule it breaks; or else the finding's message
/// without the call it names (the line above shows the call) and the spec line it comes from.
pub fn detail(r: &PairResult, f: &Finding) -> String {
    let at = f
        .related
        .as_ref()
        .map(|l| format!(" at {}", place(l)))
        .unwrap_or_default();
    let failed = failures(r, f);
    if !failed.is_empty() {
        let what: Vec<String> = failed
            .iter()
            .map(|g| escape(&g.message).into_owned())
            .collect();
        let exp = f
            .expectation
            .and_then(|e| expectation(r, e))
            .map(|e| format!("; expectation {e}{at}"))
            .unwrap_or_default();
        return format!("{}{exp}", what.join("; "));
    }
    if f.code == Code::ForbiddenCall.id() {
        if let Some(rule) = f.call.as_ref().and_then(|c| {
            r.rules
                .iter()
                .find(|rule| rule.calls.iter().any(|x| x.index == c.index))
        }) {
            return format!("forbidden by `never {}`{at}", escape(&rule.tool));
        }
    }
    let mut message = f.message.as_str();
    if let Some(c) = &f.call {
        let named = format!("call #{} ", c.index + 1);
        if let Some(rest) = message.strip_prefix(&named) {
            message = rest;
            let quoted = format!("`{}` ", c.name);
            message = message.strip_prefix(&quoted).unwrap_or(message);
        }
    }
    let (noun, _) = f.related_role();
    match &f.related {
        Some(l) => format!("{}; {noun} at {}", escape(message), place(l)),
        None => escape(message).into_owned(),
    }
}

/// A place as `file:line`.
pub fn place(l: &Location) -> String {
    format!("{}:{}", escape(&l.file), l.line)
}

/// A place as `file:line:column`.
pub fn place_col(l: &Location) -> String {
    format!("{}:{}:{}", escape(&l.file), l.line, l.column)
}

/// `s` cut to `room` characters (at least a few, so that something shows), `…` last when cut.
pub fn fit(s: &str, room: usize) -> String {
    call::cut(s, room.max(12))
}
