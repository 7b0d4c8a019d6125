//! A finding in brief: the words the short text formats (the human format's default, `concise`)
//! print for it, from the finding and its pair's result, so that what a call is and what it
//! fails reads without opening the transcript.
//!
//! Input: a [`Finding`] and the [`PairResult`] it belongs to (its expectations' failed
//! constraints, its rules). Output: short phrases, data escaped ([`crate::text::escape`]).
//! Cannot fail.

use super::call;
use super::model::{CallShare, ConstraintFailure, Finding, Location, PairResult};
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

/// Under `score per_argument`, how much of the finding's call holds.
pub fn share<'a>(r: &'a PairResult, f: &Finding) -> Option<&'a CallShare> {
    let (Some(e), Some(c)) = (f.expectation, &f.call) else {
        return None;
    };
    r.expectations
        .iter()
        .find(|x| x.index == e)?
        .shares
        .iter()
        .find(|s| s.call == c.index)
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
/// constraints it fails (where a declared one is declared), then the expectation they belong to and where it is written
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
        // A constraint of the tool's declaration says where it is declared: the expectation's
        // line does not show it.
        let what: Vec<String> = failed
            .iter()
            .map(|g| match (&g.location, g.declared) {
                (Some(l), true) => format!("{} (declared at {})", escape(&g.message), place(l)),
                _ => escape(&g.message).into_owned(),
            })
            .collect();
        let exp = f
            .expectation
            .and_then(|e| expectation(r, e))
            .map(|e| format!("; expectation {e}{at}"))
            .unwrap_or_default();
        let share = share(r, f)
            .map(|s| format!("; {} (credit {:.2})", escape(&s.summary), s.credit))
            .unwrap_or_default();
        return format!("{}{share}{exp}", what.join("; "));
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

/// Prose (a message, what a call fails) wrapped at word boundaries into lines of at most `room`
/// characters, at most [`MAX_WRAPPED_LINES`] of them (the last cut with `…` when more is left):
/// the words of a finding are not lost to the width, as a call's arguments may be.
pub fn wrap(s: &str, room: usize) -> Vec<String> {
    let room = room.max(12);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut words = s.split(' ').filter(|w| !w.is_empty()).peekable();
    while let Some(word) = words.next() {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > room {
            if lines.len() + 1 == MAX_WRAPPED_LINES {
                let rest: Vec<&str> = std::iter::once(word).chain(words).collect();
                line.push(' ');
                line.push_str(&rest.join(" "));
                lines.push(line);
                return fit_each(lines, room);
            }
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        if words.peek().is_none() {
            break;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    fit_each(lines, room)
}

/// Every line cut to `room` (a word longer than the room is cut, not left to overflow).
fn fit_each(lines: Vec<String>, room: usize) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| {
            if l.chars().count() > room {
                fit(&l, room)
            } else {
                l
            }
        })
        .collect()
}

/// The most lines [`wrap`] gives one piece of prose.
pub const MAX_WRAPPED_LINES: usize = 3;

#[cfg(test)]
mod wrap_tests {
    use super::wrap;

    #[test]
    fn wraps_at_words_and_keeps_every_word_within_the_line_limit() {
        let s = "expected a call to #3 `check_refund_eligibility` (eligibility), but none matched";
        let lines = wrap(s, 40);
        assert!(lines.iter().all(|l| l.chars().count() <= 40), "{lines:?}");
        assert_eq!(lines.join(" "), s);
        assert_eq!(wrap("short", 40), ["short"]);
        assert_eq!(wrap("", 40), [""]);
    }

    #[test]
    fn cuts_the_last_line_past_the_limit_and_long_words_to_the_room() {
        let s = "word ".repeat(100);
        let lines = wrap(&s, 20);
        assert_eq!(lines.len(), super::MAX_WRAPPED_LINES);
        assert!(lines.last().unwrap().ends_with('…'), "{lines:?}");
        let long = "x".repeat(50);
        assert!(wrap(&long, 20).iter().all(|l| l.chars().count() <= 20));
        // A long word on a middle line is cut too when the last line is cut.
        let s = format!("a b c {} {}", "y".repeat(30), "z ".repeat(40));
        let lines = wrap(&s, 20);
        assert_eq!(lines.len(), super::MAX_WRAPPED_LINES);
        assert!(lines.iter().all(|l| l.chars().count() <= 20), "{lines:?}");
    }
}
