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
use super::scopes::{self, Bound, Turns};
use super::verdict::{Finding, Severity};
use crate::code::Code;
use crate::config::{Counted, Limit, MatcherConfig, Part};

/// Calls a finding names, at most.
const SHOWN: usize = 5;

/// The findings of the counts that do not hold (empty when all hold).
pub(crate) fn check(
    config: &MatcherConfig,
    judge: &Evaluator<'_>,
    turns: Turns,
    bounds: &[Bound],
) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut unrecorded = false;
    for (k, limit) in config.limits.iter().enumerate() {
        let bound = bounds.get(k).copied().unwrap_or(Bound::Any);
        if matches!(limit.counted, Counted::AgentRuns { .. }) && judge.calls.agent_runs().is_none()
        {
            // One finding for the transcript, at the first count of runs.
            if !unrecorded {
                unrecorded = true;
                out.push(super::explain::finding(
                    Code::RunsNotRecorded,
                    Severity::Error,
                    "the spec counts the runs of a sub-agent, but this transcript's format does \
                     not record when sub-agents start"
                        .into(),
                    "`docs/formats.md` lists the formats whose readers record sub-agent runs \
                     (Claude Code `Task` calls, OpenAI Agents SDK runs, Google ADK sessions); \
                     check this transcript with a spec without `runs`"
                        .into(),
                    None,
                    Some(limit.span),
                    None,
                ));
            }
            continue;
        }
        let counted = counted(limit, judge, turns, bound);
        let n = counted.len();
        let over = limit.max.is_some_and(|max| n > max as usize);
        if n < limit.min as usize || over {
            out.push(finding(limit, &counted, over));
        }
    }
    out
}

/// The calls `limit` counts, ascending (for the runs of an agent: the position of the next call
/// when each run started).
fn counted(limit: &Limit, judge: &Evaluator<'_>, turns: Turns, bound: Bound) -> Vec<usize> {
    let calls = judge.calls;
    let in_scope =
        |i: usize| bound.admits(i) && scopes::in_scope(limit.scope.as_ref(), calls, turns, i);
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
        Counted::AgentRuns { agent } => judge
            .calls
            .agent_runs()
            .unwrap_or_default()
            .iter()
            .filter(|r| {
                &r.agent == agent
                    && bound.admits(r.first_call)
                    && limit
                        .scope
                        .as_ref()
                        .is_none_or(|s| scopes::in_turn(s, r.turn, turns))
            })
            .map(|r| r.first_call)
            .collect(),
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
        Counted::AgentRuns { agent } => format!("runs of `{agent}`{scope}"),
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
    if let Counted::AgentRuns { agent } = &limit.counted {
        let scope = match scopes::parts(limit.scope.as_ref()) {
            p if p.is_empty() => p,
            p => format!(" {p}"),
        };
        let times = if n == 1 { "once" } else { "times" };
        let count = if n == 1 {
            String::new()
        } else {
            format!("{n} ")
        };
        return super::explain::finding(
            Code::CountOutOfRange,
            Severity::Error,
            format!(
                "sub-agent {} was started {count}{times}{scope}; the spec allows {}",
                serde_json::Value::String(agent.clone()),
                allowed(limit)
            ),
            "`runs` counts the starts of the sub-agent the transcript records (a Claude Code \
             `Task` call, an OpenAI Agents SDK handoff, a Google ADK agent's turn); a count that \
             does not hold fails the pair whatever the score"
                .into(),
            None,
            Some(limit.span),
            // Past a maximum: the first call of the run too many, if it made one.
            if over {
                limit.max.and_then(|max| counted.get(max as usize)).copied()
            } else {
                None
            },
        );
    }
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
    let calls = if n == 0 || limit.counted == Counted::Calls {
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
        Counted::AgentRuns { .. } => "",
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
