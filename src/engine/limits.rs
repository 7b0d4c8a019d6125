//! Counts: `total_calls <= n` and the counts of any tool (`at_most 1 call * errored`), in the
//! whole run or in a part of it.
//!
//! Input: the spec's [`Limit`]s, the calls, and the evaluator of the final alignment (a count's
//! constraints may refer to the calls matched to any expectation). Output: a
//! `count-out-of-range` finding per count that does not hold, each a hard failure. A count
//! accounts for no call and earns no credit: it counts every call in its scope that satisfies
//! its constraints, whether an expectation accounts for it, another count counts it, or a
//! `never` rule forbids it.

use super::checks::Evaluator;
use super::scopes::{self, Turns};
use super::verdict::{Finding, Severity};
use crate::code::Code;
use crate::config::{Counted, Limit, MatcherConfig, Part};

/// Calls a finding names, at most.
const SHOWN: usize = 5;

/// The findings of the counts that do not hold (empty when all hold).
pub(crate) fn check(config: &MatcherConfig, judge: &Evaluator<'_>, turns: Turns) -> Vec<Finding> {
    let mut out = Vec::new();
    for limit in &config.limits {
        let counted = counted(limit, judge, turns);
        let n = counted.len();
        let over = limit.max.is_some_and(|max| n > max as usize);
        if n < limit.min as usize || over {
            out.push(finding(limit, &counted, over));
        }
    }
    out
}

/// The calls `limit` counts, ascending.
fn counted(limit: &Limit, judge: &Evaluator<'_>, turns: Turns) -> Vec<usize> {
    let calls = judge.calls;
    let in_scope = |i: usize| scopes::in_scope(limit.scope.as_ref(), calls, turns, i);
    match &limit.counted {
        Counted::Calls => (0..calls.count()).filter(|&i| in_scope(i)).collect(),
        Counted::Matching {
            args,
            output,
            errored,
        } => {
            // A reference that does not apply (to an optional expectation that matched
            // nothing) leaves the count without the value it compares with: it counts nothing.
            let unapplied = std::iter::once(args).chain(output.as_ref()).any(|m| {
                m.checks
                    .iter()
                    .any(|pc| judge.holds_unapplied_ref(&pc.check))
            });
            if unapplied {
                return Vec::new();
            }
            (0..calls.count())
                .filter(|&i| {
                    in_scope(i)
                        && errored.is_none_or(|e| calls.is_error(i) == e)
                        && judge
                            .with_args(i, |ev, a| ev.matcher(args, Some(a), Part::Args, i, None))
                        && output.as_ref().is_none_or(|m| {
                            judge.matcher(m, calls.output(i), Part::Output, i, None)
                        })
                })
                .collect()
        }
    }
}

/// How a message names what `limit` counts: `tool calls`, `calls of any tool that failed`.
fn what(limit: &Limit) -> String {
    let scope = match scopes::parts(limit.scope.as_ref()) {
        p if p.is_empty() => p,
        p => format!(" {p}"),
    };
    match &limit.counted {
        Counted::Calls => format!("tool calls{scope}"),
        Counted::Matching {
            args,
            output,
            errored,
        } => {
            let mut parts = Vec::new();
            match errored {
                Some(true) => parts.push("that failed"),
                Some(false) => parts.push("that succeeded"),
                None => {}
            }
            if !args.checks.is_empty() || !args.allow_extra_keys {
                parts.push("with matching arguments");
            }
            if output.is_some() {
                parts.push("with a matching output");
            }
            let and = if parts.is_empty() {
                String::new()
            } else {
                format!(" {}", parts.join(" and "))
            };
            format!("calls of any tool{and}{scope}")
        }
    }
}

/// `at most 3`, `at least 1`, `exactly 2`, `between 1 and 3`.
fn allowed(limit: &Limit) -> String {
    match (limit.min, limit.max) {
        (0, Some(max)) => format!("at most {max}"),
        (min, None) => format!("at least {min}"),
        (min, Some(max)) if min == max => format!("exactly {min}"),
        (min, Some(max)) => format!("between {min} and {max}"),
    }
}

fn finding(limit: &Limit, counted: &[usize], over: bool) -> Finding {
    let n = counted.len();
    let listed: Vec<String> = counted
        .iter()
        .take(SHOWN)
        .map(|i| format!("#{}", i + 1))
        .collect();
    let more = if n > SHOWN {
        format!(" and {} more", n - SHOWN)
    } else {
        String::new()
    };
    let calls = if n == 0 {
        String::new()
    } else {
        format!(" (calls {}{more})", listed.join(", "))
    };
    let message = format!(
        "{n} {}{calls}; the spec allows {}",
        what(limit),
        allowed(limit)
    );
    let help = match &limit.counted {
        Counted::Calls => {
            "`total_calls` counts every tool call of the run (or of the block it is written in), \
             whatever it matched; a count that does not hold fails the pair whatever the score"
        }
        Counted::Matching { .. } => {
            "a count of `*` counts every call of any tool that satisfies its constraints, \
             whatever expectation it is matched to; a count that does not hold fails the pair \
             whatever the score"
        }
    };
    // Past a maximum, the finding is about the first call too many; short of a minimum, about
    // no call.
    let call = if over {
        limit.max.and_then(|max| counted.get(max as usize)).copied()
    } else {
        None
    };
    super::explain::finding(
        Code::CountOutOfRange,
        Severity::Error,
        message,
        help.into(),
        None,
        Some(limit.span),
        call,
    )
}
