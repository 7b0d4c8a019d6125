//! `--format concise`: one line per finding, `path:line:col: code message`, as ruff's concise
//! format prints them, each whole whatever the terminal (for editors, scripts and CI logs); then
//! the summary line.
//!
//! The findings of failing pairs are listed (a passing pair's notes are not; its findings that
//! leave part of the spec unchecked are), each message starting with what is most telling (a
//! failed constraint: `amount_cents: 14999 is above the maximum 12999; call #3
//! issue_refund(amount_cents: 14999, …) fails expectation #4 issue_refund (refund) at
//! prompts/refund.toolspec:14`), the call with its offending values first. The run's errors and
//! warnings come first, in the same form.

use std::io::{self, Write};

use super::brief;
use super::model::{Finding, PairResult, Report};
use super::stream::{self, Emitter, PairOut, Results};
use crate::text::escape;

/// Render the report as concise lines.
pub fn render(report: &Report) -> String {
    stream::render(ConciseEmitter, report)
}

/// The concise output format.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConciseEmitter;

/// Most characters of a call shown in a line (`call #3 issue_refund(amount_cents: 14999, …)`):
/// its arguments, the offending ones first, each value cut to [`super::call::VALUE_CHARS`], as
/// many as fit. A call's arguments can be megabytes; the line stays readable and bounded.
const CALL_CHARS: usize = 160;

impl Emitter for ConciseEmitter {
    type Meta = ();

    /// A line per finding the pair lists ([`PairResult::lists`]: every finding of a failing
    /// pair, those of a passing one that leave part of its spec unchecked).
    fn pair(
        &self,
        r: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
        out: &mut PairOut<'_>,
    ) -> io::Result<()> {
        // `--partial`: a line per statement violated or pending, at the statement.
        if let Some(p) = &r.partial {
            for st in p.statements.iter().filter(|s| s.state != "met") {
                out.text.write_all(partial_line(r, st).as_bytes())?;
            }
            return Ok(());
        }
        // A failing pair of a spec with a `pass_rate` fails the run only through the rate.
        let within = r
            .pass_rate
            .filter(|_| !r.passed)
            .map(|_| "within pass_rate: ".to_owned())
            .unwrap_or_default();
        for f in findings.filter(|f| r.lists(f)) {
            let mut message = format!("{within}{}", message(r, &f));
            if f.unverified {
                message = format!("{message}; {}", Finding::UNVERIFIED);
                if let Some(help) = &f.help {
                    message = format!("{message}; help: {}", escape(help));
                }
            }
            out.text.write_all(line(&f, &message).as_bytes())?;
        }
        Ok(())
    }

    /// The run's errors and warnings, the findings, a blank line and the summary.
    fn document(
        &self,
        head: &Report,
        results: &Results<'_, ()>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        for f in head.errors.iter().chain(&head.warnings) {
            out.write_all(line(f, &escape(&f.message)).as_bytes())?;
        }
        results.write_texts(|()| true, out)?;
        // Each spec's pass rate, as a finding at its `pass_rate` line.
        for r in &head.rates {
            let f = r.finding();
            let message = format!("{}: {}", escape(&r.spec), r.verdict_text());
            out.write_all(line(&f, &message).as_bytes())?;
        }
        let listed = (0..results.len()).any(|i| !results.text_is_empty(i));
        if !head.errors.is_empty() || !head.warnings.is_empty() || listed || !head.rates.is_empty()
        {
            out.write_all(b"\n")?;
        }
        out.write_all(super::human::summary_line(&head.summary).as_bytes())
    }
}

/// `spec:line:col: violated never Bash(…) (transcript): call #4 …`, whole: a statement of
/// `check --partial` that is not met.
fn partial_line(r: &PairResult, st: &super::model::PartialStatement) -> String {
    let head = match &st.location {
        Some(l) => format!("{}: ", brief::place_col(l)),
        None => String::new(),
    };
    let why = st
        .message
        .as_deref()
        .map(|m| format!(": {}", escape(m)))
        .unwrap_or_default();
    crate::text::guard_lines(&format!(
        "{head}{} {} ({}){why}\n",
        st.state,
        escape(&st.text),
        escape(&r.transcript)
    ))
    .into_owned()
}

/// `path:line:col: code message`, whole: one line however long (a line break or control
/// character in the data is escaped).
fn line(f: &Finding, message: &str) -> String {
    let head = match &f.location {
        Some(l) => format!("{}: {} ", brief::place_col(l), escape(&f.code)),
        None => format!("{} ", escape(&f.code)),
    };
    crate::text::guard_lines(&format!("{head}{message}\n")).into_owned()
}

/// A finding's message for one line: for a call that fails constraints, the constraints first,
/// then the call with its offending values and the expectation; for another finding about a
/// call, the call with its values and what is wrong with it; otherwise the finding's own
/// message; then the spec line it comes from.
fn message(r: &PairResult, f: &Finding) -> String {
    let (noun, _) = f.related_role();
    let at = f
        .related
        .as_ref()
        .map(|l| format!(" at {}", brief::place(l)))
        .unwrap_or_default();
    let call = brief::call_text(r, f, CALL_CHARS);
    let failed = brief::failures(r, f);
    if !failed.is_empty() {
        let what: Vec<String> = failed
            .iter()
            .map(|g| escape(&g.message).into_owned())
            .collect();
        let exp = f
            .expectation
            .and_then(|e| brief::expectation(r, e))
            .map(|e| format!(" fails expectation {e}{at}"))
            .unwrap_or_default();
        let share = brief::share(r, f)
            .map(|s| format!("; {} (credit {:.2})", escape(&s.summary), s.credit))
            .unwrap_or_default();
        return format!(
            "{}{share}; {}{exp}",
            what.join("; "),
            call.unwrap_or_default()
        );
    }
    let related = if at.is_empty() {
        String::new()
    } else {
        format!("; {noun}{at}")
    };
    match (call, &f.call) {
        (Some(call), Some(c)) => {
            // The message names the call (`call #4 `issue_refund` is not accounted for …`):
            // the call with its values takes the place of its name.
            let named = format!("call #{} `{}` ", c.index + 1, c.name);
            match f.message.strip_prefix(&named) {
                Some(rest) => format!("{call} {}{related}", escape(rest)),
                None => format!("{call}: {}{related}", escape(&f.message)),
            }
        }
        _ => format!("{}{related}", escape(&f.message)),
    }
}
