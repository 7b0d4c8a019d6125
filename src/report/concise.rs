//! `--format concise`: one line per finding, `path:line:col: code message`, as ruff's concise
//! format prints them, each cut to the width; then the summary line.
//!
//! The findings of failing pairs are listed (a passing pair's notes are not), each message
//! starting with what is most telling (a failed constraint: `amount_cents: 14999 is above the
//! maximum 12999; …`), so that the part cut at the width is the least useful. The run's errors
//! and warnings come first, in the same form.

use std::io::{self, Write};

use super::brief;
use super::call::cut;
use super::model::{Finding, PairResult, Report};
use super::stream::{self, Emitter, PairOut, Results};
use crate::text::escape;

/// Render the report as concise lines, `width` characters wide at most (but for a path that
/// alone is wider).
pub fn render(report: &Report, width: usize) -> String {
    stream::render(ConciseEmitter { width }, report)
}

/// The concise output format.
#[derive(Debug, Clone, Copy)]
pub struct ConciseEmitter {
    /// The width lines are cut to (the terminal's, or 100).
    pub width: usize,
}

/// Fewest characters of a message shown, however long the path before it.
const MIN_MESSAGE: usize = 20;

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
            }
            out.text
                .write_all(line(&f, &message, self.width).as_bytes())?;
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
            out.write_all(line(f, &escape(&f.message), self.width).as_bytes())?;
        }
        results.write_texts(|()| true, out)?;
        // Each spec's pass rate, as a finding at its `pass_rate` line.
        for r in &head.rates {
            let f = r.finding();
            let message = format!("{}: {}", escape(&r.spec), r.verdict_text());
            out.write_all(line(&f, &message, self.width).as_bytes())?;
        }
        let listed = (0..results.len()).any(|i| !results.text_is_empty(i));
        if !head.errors.is_empty() || !head.warnings.is_empty() || listed || !head.rates.is_empty()
        {
            out.write_all(b"\n")?;
        }
        out.write_all(super::human::summary_line(&head.summary).as_bytes())
    }
}

/// `path:line:col: code message`, the message cut so that the line fits `width`.
fn line(f: &Finding, message: &str, width: usize) -> String {
    let head = match &f.location {
        Some(l) => format!("{}: {} ", brief::place_col(l), escape(&f.code)),
        None => format!("{} ", escape(&f.code)),
    };
    let room = width.saturating_sub(head.chars().count()).max(MIN_MESSAGE);
    crate::text::guard_lines(&format!("{head}{}\n", cut(message, room))).into_owned()
}

/// A finding's message for one line: for a call that fails constraints, the constraints first,
/// then the call and the expectation; otherwise the finding's own message.
fn message(r: &PairResult, f: &Finding) -> String {
    let failed = brief::failures(r, f);
    if failed.is_empty() {
        return escape(&f.message).into_owned();
    }
    let what: Vec<String> = failed
        .iter()
        .map(|g| escape(&g.message).into_owned())
        .collect();
    let call = f
        .call
        .as_ref()
        .map(|c| format!("call #{} {}", c.index + 1, escape(&c.name)))
        .unwrap_or_default();
    let exp = f
        .expectation
        .and_then(|e| brief::expectation(r, e))
        .map(|e| format!(" fails {e}"))
        .unwrap_or_default();
    format!("{}; {call}{exp}", what.join("; "))
}
