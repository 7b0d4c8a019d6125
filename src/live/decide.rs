//! The guard's decision on one event: the event and the journal → allow, deny, block, and the
//! lines the journal gains.
//!
//! Every verdict is `toolspec check --partial`'s ([`SpecSet::check_partial`]: the planner's
//! compiled specs, the Claude Code reader on the journal, `engine::prefix`); nothing here
//! judges a call. A `PreToolUse` is judged on the journal with the call added, its result not
//! in yet: denied when a statement is violated at that call (the engine names the call that
//! decided a violation) or a rule the spec denies finds something at it. A `Stop` is judged on
//! the journal: blocked while statements are pending (the `answer` aside: the hook does not
//! give the final message), at most [`MAX_STOP_BLOCKS`] times a turn and never twice with
//! nothing done in between. A full check per event: its cost follows the journal's length
//! (docs/guard.md gives figures).

use super::event::{Call, Event, Kind};
use super::journal::{block_line, call_line, header_line, prompt_line, result_line, Journal};
use crate::check::run::{Given, Selection, SpecSet};
use crate::config::{MatcherConfig, Scope};
use crate::report::model::{PartialStatement, Report};
use crate::transcript::Format;

/// The most `Stop` (and `SubagentStop`) events blocked in one turn: past it the agent may stop
/// with expectations still pending (said in the journal, and by `check --partial`).
pub const MAX_STOP_BLOCKS: u32 = 3;

/// At most this many statements are named in a reason; the rest are counted.
const NAMED: usize = 8;

/// The specs a guard enforces: a compiled spec file and which of its specs.
#[derive(Debug)]
pub struct Specs {
    /// The spec file, compiled under the project's settings.
    pub set: SpecSet,
    /// Its specs the guard enforces (each selection checked on its own).
    pub selections: Vec<Selection>,
}

/// What the guard answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// No decision: Claude Code goes on as it would.
    None,
    /// `PreToolUse`: deny the call, with the reason (shown to the agent).
    Deny(String),
    /// `Stop` / `SubagentStop`: do not stop yet, with the reason (shown to the agent).
    Block(String),
}

/// The decision on an event and what the journal gains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The decision.
    pub decision: Decision,
    /// Lines to append to the journal (whole lines, each ending in a newline).
    pub append: String,
    /// A note for the user (a `Stop` let through past the cap), if any.
    pub note: Option<String>,
}

impl Outcome {
    fn none(append: String) -> Outcome {
        Outcome {
            decision: Decision::None,
            append,
            note: None,
        }
    }
}

/// Decide on `event`, the session's journal being `journal` (its whole lines).
pub fn decide(specs: &[Specs], journal: &[u8], event: &Event) -> Result<Outcome, String> {
    // A new journal starts with its header line.
    let header = header_line();
    let (journal, new) = if journal.is_empty() {
        (header.as_bytes(), true)
    } else {
        (journal, false)
    };
    let j = Journal::read(journal).map_err(|e| format!("the session's journal: {e}"))?;
    let mut outcome = decide_on(specs, journal, &j, event)?;
    if new {
        outcome.append.insert_str(0, &header);
    }
    Ok(outcome)
}

fn decide_on(
    specs: &[Specs],
    journal: &[u8],
    j: &Journal,
    event: &Event,
) -> Result<Outcome, String> {
    match &event.kind {
        Kind::PreToolUse(call) => pre_tool_use(specs, journal, j, call),
        Kind::PostToolUse { call, output } => Ok(Outcome::none(result(j, call, output, false))),
        Kind::PostToolUseFailure { call, error } => Ok(Outcome::none(result(j, call, error, true))),
        Kind::Stop { active, subagent } => stop(specs, journal, j, *active, subagent.as_deref()),
        Kind::UserPromptSubmit => Ok(Outcome::none(prompt_line())),
        Kind::SessionStart | Kind::Other(_) => Ok(Outcome::none(String::new())),
    }
}

/// A result: its line, after the call's when the journal does not have the call (the guard
/// was not asked before it ran).
fn result(j: &Journal, call: &Call, output: &serde_json::Value, is_error: bool) -> String {
    let id = j.id_for(call);
    let mut out = String::new();
    if !j.index.contains_key(&id) {
        out.push_str(&call_line(&id, call));
    }
    out.push_str(&result_line(&id, call.agent.as_deref(), output, is_error));
    out
}

/// Check the journal text with `unsettled` calls: the reports of every spec file, or the
/// errors that kept one from being checked.
fn check(specs: &[Specs], text: &[u8], unsettled: &[usize]) -> Result<Vec<Report>, String> {
    let mut reports = Vec::new();
    for (s, selection) in specs
        .iter()
        .flat_map(|s| s.selections.iter().map(move |sel| (s, sel)))
    {
        let report = s.set.check_partial(
            selection,
            Given::Bytes(text),
            Some(Format::ClaudeCode),
            unsettled,
        );
        if !report.errors.is_empty() {
            let errors: Vec<String> = report
                .errors
                .iter()
                .map(|f| format!("{}: {}", f.code, f.message))
                .collect();
            return Err(errors.join("; "));
        }
        reports.push(report);
    }
    Ok(reports)
}

fn pre_tool_use(
    specs: &[Specs],
    journal: &[u8],
    j: &Journal,
    call: &Call,
) -> Result<Outcome, String> {
    let id = j.id_for(call);
    let mut unsettled = j.unsettled();
    // A call already journaled (the event repeated) is judged where it is.
    let (text, at, line, added) = if let Some(&i) = j.index.get(&id) {
        (journal.to_vec(), i, None, String::new())
    } else {
        let added = call_line(&id, call);
        let mut text = journal.to_vec();
        text.extend_from_slice(added.as_bytes());
        unsettled.push(j.ids.len());
        (text, j.ids.len(), Some(j.lines + 1), added)
    };
    let reports = check(specs, &text, &unsettled)?;
    let mut broken: Vec<String> = Vec::new();
    for report in &reports {
        for r in &report.results {
            for st in r.partial.iter().flat_map(|p| &p.statements) {
                let here = st.call == Some(at)
                    || (st.kind == "rule"
                        && line.is_some()
                        && st.location.as_ref().map(|l| l.line) == line);
                if st.state == "violated" && here {
                    broken.push(describe(st, true));
                }
            }
        }
    }
    if broken.is_empty() {
        return Ok(Outcome::none(added));
    }
    let reason = format!(
        "toolspec guard: this {} call would break the spec for good, whatever comes after it:\n{}",
        call.name,
        listed(&broken)
    );
    Ok(Outcome {
        decision: Decision::Deny(clean(&reason)),
        append: String::new(),
        note: None,
    })
}

fn stop(
    specs: &[Specs],
    journal: &[u8],
    j: &Journal,
    active: bool,
    subagent: Option<&str>,
) -> Result<Outcome, String> {
    let reports = check(specs, journal, &j.unsettled())?;
    let mut missing: Vec<String> = Vec::new();
    for report in &reports {
        for r in &report.results {
            let config = specs
                .iter()
                .flat_map(|s| s.set.configs())
                .find(|(name, _)| *name == r.spec)
                .map(|(_, c)| c);
            for st in r.partial.iter().flat_map(|p| &p.statements) {
                if st.state != "pending" || st.kind == "answer" {
                    continue;
                }
                // A sub-agent stopping is held to the statements about it alone.
                if let Some(agent) = subagent {
                    if config
                        .and_then(|c| scope_of(c, st))
                        .and_then(|s| s.agent.as_deref())
                        != Some(agent)
                    {
                        continue;
                    }
                }
                missing.push(describe(st, false));
            }
        }
    }
    if missing.is_empty() {
        return Ok(Outcome::none(String::new()));
    }
    let let_through = |why: String| Outcome {
        decision: Decision::None,
        append: String::new(),
        note: Some(clean(&format!(
            "toolspec guard: let the agent stop with {} statement{} pending ({why}):\n{}",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" },
            listed(&missing)
        ))),
    };
    if active && j.blocks_since_call > 0 {
        return Ok(let_through(
            "it was asked to go on and made no call since".to_owned(),
        ));
    }
    if j.blocks_in_turn >= MAX_STOP_BLOCKS {
        return Ok(let_through(format!(
            "blocked {MAX_STOP_BLOCKS} times this turn already"
        )));
    }
    let reason = format!(
        "toolspec guard: the spec still expects, before the run can pass:\n{}",
        listed(&missing)
    );
    Ok(Outcome {
        decision: Decision::Block(clean(&reason)),
        append: block_line(),
        note: None,
    })
}

/// The scope of the statement `st` of `config` (an expectation, `never` rule or count).
fn scope_of<'c>(config: &'c MatcherConfig, st: &PartialStatement) -> Option<&'c Scope> {
    let i = st.index?;
    match st.kind.as_str() {
        "expectation" => config.expectations.get(i)?.scope.as_ref(),
        "never" => config.forbidden.get(i)?.scope.as_ref(),
        "count" => config.limits.get(i)?.scope.as_ref(),
        _ => None,
    }
}

/// A statement as a reason names it: as written, where, and why.
fn describe(st: &PartialStatement, why: bool) -> String {
    let at = st
        .location
        .as_ref()
        .map(|l| format!(" ({}:{})", l.file, l.line))
        .unwrap_or_default();
    let mut out = format!("- `{}`{at}", st.text);
    if why {
        if let (Some(code), Some(message)) = (&st.code, &st.message) {
            out.push_str(&format!(": {code}: {message}"));
        }
    }
    out
}

/// Lines, at most [`NAMED`] of them, the rest counted.
fn listed(lines: &[String]) -> String {
    let mut out: Vec<String> = lines.iter().take(NAMED).cloned().collect();
    if lines.len() > NAMED {
        out.push(format!("- and {} more", lines.len() - NAMED));
    }
    out.join("\n")
}

/// Text with every control character but the newline escaped ([`crate::text`]).
fn clean(s: &str) -> String {
    crate::text::escape_keeping_lines(s).into_owned()
}
