//! `--format markdown`: a job summary for CI (GitHub's `$GITHUB_STEP_SUMMARY`, a pull-request
//! comment): the counts, a table per spec (pass rate, mean score, expectations not met most
//! often), a table of the failing pairs with their first findings, and the run's errors.
//!
//! Every piece of data goes through [`crate::text::escape_markdown`]: it renders as the text it
//! is and adds no markup, link, HTML or workflow command. The document stays small whatever the
//! run: at most [`MAX_FAILING_ROWS`] failing pairs and [`MAX_FINDINGS`] findings per pair are
//! listed, the rest counted.
//!
//! [`GithubWithSummary`] is `--format github` that also writes this document to a second writer
//! (the CLI opens `$GITHUB_STEP_SUMMARY` for appending; the library only renders).

use std::cell::Cell;
use std::io::{self, Write};
use std::sync::Mutex;

use super::brief;
use super::github::GithubEmitter;
use super::model::{percent, Finding, PairResult, Report};
use super::stream::{self, Emitter, PairOut, Results};
use super::summary::{self, Digest};
use crate::text::escape_markdown as md;

/// Failing pairs listed in the table; more are counted.
pub const MAX_FAILING_ROWS: usize = 100;

/// Findings listed per failing pair; more are counted.
pub const MAX_FINDINGS: usize = 5;

/// Widest call shown in a finding.
const CALL_WIDTH: usize = 80;

/// Render the report as a Markdown job summary.
pub fn render(report: &Report) -> String {
    stream::render(MarkdownEmitter, report)
}

/// The Markdown output format.
#[derive(Debug, Clone, Copy, Default)]
pub struct MarkdownEmitter;

impl Emitter for MarkdownEmitter {
    /// What the summary table needs of the pair.
    type Meta = Digest;

    /// A failing pair's row of the failing-pairs table; nothing for a passing pair.
    fn pair(
        &self,
        r: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
        out: &mut PairOut<'_>,
    ) -> io::Result<Digest> {
        if !r.passed {
            out.text.write_all(row(r, findings, 0).as_bytes())?;
        }
        Ok(Digest::of(r))
    }

    fn document(
        &self,
        head: &Report,
        results: &Results<'_, Digest>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        document(head, results, out, |keep, out| {
            results.write_texts(keep, out)
        })
    }
}

/// `--format github`, and the Markdown job summary written to `summary` as well.
#[derive(Debug)]
pub struct GithubWithSummary<W> {
    /// Where the job summary goes (`$GITHUB_STEP_SUMMARY`, opened for appending by the CLI).
    pub summary: Mutex<W>,
    /// The annotations' format.
    pub github: GithubEmitter,
}

impl<W: Write + Send> Emitter for GithubWithSummary<W> {
    type Meta = Digest;

    /// The annotations (as `--format github` writes them) in the result's text; its Markdown row
    /// in its line.
    fn pair(
        &self,
        r: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
        out: &mut PairOut<'_>,
    ) -> io::Result<Digest> {
        let mut kept: Vec<Finding> = Vec::new();
        let mut more = 0usize;
        let mut tee = findings.inspect(|f| {
            if r.passed {
                return;
            }
            if kept.len() < MAX_FINDINGS {
                kept.push(f.clone());
            } else {
                more += 1;
            }
        });
        self.github.pair(r, &mut tee, out)?;
        drop(tee);
        if !r.passed {
            out.line
                .write_all(row(r, &mut kept.into_iter(), more).as_bytes())?;
        }
        Ok(Digest::of(r))
    }

    /// The annotations' document to `out`; the job summary to `summary`.
    fn document(
        &self,
        head: &Report,
        results: &Results<'_, Digest>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        super::github::document(head, results, out)?;
        let mut summary = self
            .summary
            .lock()
            .map_err(|_| io::Error::other("the job summary writer is poisoned"))?;
        document(head, results, &mut *summary, |keep, out| {
            results.write_lines(keep, out)
        })?;
        summary.flush()
    }
}

/// The document: a heading with the counts, the table per spec, the failing pairs (their rows
/// written by `rows`, at most [`MAX_FAILING_ROWS`] of them), the run's errors and warnings.
fn document(
    head: &Report,
    results: &Results<'_, Digest>,
    out: &mut dyn Write,
    rows: impl FnOnce(&dyn Fn(&Digest) -> bool, &mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let s = &head.summary;
    let verdict = if s.errors > 0 {
        "errors"
    } else if s.fails() {
        "failed"
    } else {
        "passed"
    };
    writeln!(out, "## toolspec: {verdict}\n")?;
    writeln!(
        out,
        "**{} passed, {} failed** ({}{} checked: {} spec{}, {} transcript{}{}{})\n",
        s.passed,
        s.failed,
        if s.failed_within_rate > 0 {
            format!("{} within pass_rate; ", s.failed_within_rate)
        } else {
            String::new()
        },
        s.checked,
        s.specs,
        plural(s.specs),
        s.transcripts,
        plural(s.transcripts),
        if s.errors > 0 {
            format!("; {} error{}", s.errors, plural(s.errors))
        } else {
            String::new()
        },
        if s.warnings > 0 {
            let unverified = if s.unverified > 0 {
                format!(" ({} unverified)", s.unverified)
            } else {
                String::new()
            };
            format!("; {} warning{}{unverified}", s.warnings, plural(s.warnings))
        } else {
            String::new()
        },
    )?;
    if !head.rates.is_empty() {
        writeln!(
            out,
            "### Pass rates\n\n| spec | passed | rate | required | verdict |\n| --- | ---: | ---: | ---: | --- |"
        )?;
        for r in &head.rates {
            let rate = r
                .rate
                .map_or_else(|| "—".to_owned(), |x| format!("{:.1} %", x * 100.0));
            let unread = match r.unread {
                0 => String::new(),
                n => format!(" ({n} unreadable)"),
            };
            writeln!(
                out,
                "| {}::{} | {}/{}{unread} | {rate} | ≥ {} | {} |",
                md(&r.spec_file),
                md(&r.spec),
                r.passed,
                r.total,
                percent(r.required),
                if r.met { "PASS" } else { "**FAIL**" }
            )?;
        }
        writeln!(out)?;
    }
    let specs = summary::summarize(results.metas());
    if !specs.is_empty() {
        writeln!(
            out,
            "| spec | passed | rate | mean score | most often not met |\n| --- | ---: | ---: | ---: | --- |"
        )?;
        for row in &specs {
            let most: Vec<String> = row
                .most_failed
                .iter()
                .map(|(name, n)| format!("{} {n}×", md(name)))
                .collect();
            writeln!(
                out,
                "| {} | {}/{} | {:.1}% | {:.2} | {} |",
                md(&row.spec),
                row.passed,
                row.total,
                row.rate(),
                row.mean_score,
                most.join(", ")
            )?;
        }
        writeln!(out)?;
    }
    // The run's count (the planner's), not a count of the rows.
    let failing = s.failed;
    if failing > 0 {
        writeln!(
            out,
            "### Failing pairs\n\n| spec | transcript | verdict | findings |\n| --- | --- | --- | --- |"
        )?;
        let listed = Cell::new(0usize);
        rows(
            &|d: &Digest| {
                if d.passed || listed.get() >= MAX_FAILING_ROWS {
                    return false;
                }
                listed.set(listed.get() + 1);
                true
            },
            out,
        )?;
        if failing > listed.get() {
            writeln!(
                out,
                "\n… and {} more failing pairs (`toolspec check` lists them all).",
                failing - listed.get()
            )?;
        }
        writeln!(out)?;
    }
    for (title, list) in [("Errors", &head.errors), ("Warnings", &head.warnings)] {
        if list.is_empty() {
            continue;
        }
        writeln!(out, "### {title}\n")?;
        for f in list {
            let at = f
                .location
                .as_ref()
                .map(|l| format!("{} ", md(&brief::place_col(l))))
                .unwrap_or_default();
            writeln!(out, "- {at}**{}** {}", md(&f.code), md(&f.message))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A failing pair's row: spec, transcript, verdict, its first findings (each: code, where, the
/// call and what it fails), one per line of the cell; `more` findings besides `findings` are
/// counted.
fn row(r: &PairResult, findings: &mut dyn Iterator<Item = Finding>, more: usize) -> String {
    let target = match r.record {
        Some(line) => format!("{}:{line}", r.transcript),
        None => r.transcript.clone(),
    };
    let mut cells: Vec<String> = Vec::new();
    let mut more = more;
    for f in findings {
        if cells.len() >= MAX_FINDINGS {
            more += 1;
            continue;
        }
        let line = f.location.as_ref().map(|l| l.line);
        let text = match brief::call_text(r, &f, CALL_WIDTH) {
            Some(call) => format!("{}: {}", md(&call), md(&brief::detail(r, &f))),
            None => md(&f.message).into_owned(),
        };
        cells.push(match line {
            Some(n) => format!("**{}** line {n}: {text}", md(&f.code)),
            None => format!("**{}** {text}", md(&f.code)),
        });
    }
    if more > 0 {
        cells.push(format!("… and {more} more"));
    }
    // A failing pair of a spec with a `pass_rate` does not fail the run on its own.
    let within = match r.pass_rate {
        Some(rate) => format!(" (within pass_rate ≥ {})", percent(rate)),
        None => String::new(),
    };
    // The built-in rules alone have no spec file: `rules`, as the pair's line says.
    let spec = if r.is_rules_only() {
        md(&r.spec).into_owned()
    } else {
        format!("{}::{}", md(&r.spec_file), md(&r.spec))
    };
    format!(
        "| {spec} | {} | {}{within} | {} |\n",
        md(&target),
        md(&r.verdict_text()),
        cells.join("<br>")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::Summary;

    fn failed_pair(transcript: &str) -> PairResult {
        PairResult {
            spec_file: "s.toolspec".into(),
            spec: "s".into(),
            transcript: transcript.into(),
            record: None,
            format: "openai-chat".into(),
            profile: None,
            score: 0.5,
            threshold: 1.0,
            passed: false,
            failure: None,
            calls: 0,
            counts: serde_json::Value::Null,
            expectations: Vec::new(),
            rules: Vec::new(),
            findings: Vec::new(),
            profile_details: None,
            pass_rate: None,
            partial: None,
        }
    }

    /// The count of failing pairs is the run's (the summary the check counted once), not a
    /// count of the results the document was given: a report holding 2 of a run's 150 failed
    /// pairs lists those 2 and says 148 more.
    #[test]
    fn failing_pairs_are_the_runs_count() {
        let report = Report {
            version: 2,
            summary: Summary {
                specs: 1,
                transcripts: 150,
                checked: 150,
                failed: 150,
                ..Summary::default()
            },
            results: vec![failed_pair("a.json"), failed_pair("b.json")],
            errors: Vec::new(),
            warnings: Vec::new(),
            rates: Vec::new(),
        };
        let md = render(&report);
        assert!(md.contains("**0 passed, 150 failed**"), "{md}");
        assert!(md.contains("… and 148 more failing pairs"), "{md}");
    }
}
