//! `--format human`: miette-rendered findings that show the transcript location and the spec
//! line, then one line per spec × transcript and a summary.
//!
//! Findings of failing pairs go to stdout; run errors (what kept something from being checked)
//! go to stderr. Snippets are cut from the files around the span, so a 100 MB single-line
//! transcript renders a few hundred bytes, not the whole line.

use std::fmt;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};

use super::model::{Finding, Location, PairResult, Report, Severity, Summary};
pub use crate::source::Excerpt;

/// Gives the text of a file named in the report (spec or transcript), if it can be read.
pub type Sources<'a> = &'a dyn Fn(&str) -> Option<std::sync::Arc<String>>;

/// The rendered output.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Human {
    /// Findings, per-pair lines and the summary.
    pub stdout: String,
    /// Run errors and warnings.
    pub stderr: String,
}

/// Rendering options.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Use colour.
    pub color: bool,
    /// Show findings of passing pairs too.
    pub verbose: bool,
    /// Terminal width for wrapping.
    pub width: usize,
}

/// Above this many spec × transcript pairs, passing pairs are counted rather than listed.
pub const MAX_LISTED_PAIRS: usize = 50;

/// Render the report for people.
pub fn render(report: &Report, sources: Sources<'_>, opts: Options) -> Human {
    let mut out = Human {
        stdout: String::new(),
        stderr: render_run_findings(report, sources, opts),
    };
    for r in &report.results {
        let stdout = &mut out.stdout;
        let _ = pair_details(r, sources, opts, &mut |s| {
            stdout.push_str(s);
            Ok::<(), std::convert::Infallible>(())
        });
    }
    let listing = report
        .results
        .iter()
        .map(|r| (r.passed, pair_line(r, opts.color)));
    out.stdout.push_str(&pair_listing(listing, opts));
    out.stdout.push_str(&summary_line(&report.summary));
    out
}

/// What goes to stderr: the run's errors, then its warnings, rendered.
pub fn render_run_findings(report: &Report, sources: Sources<'_>, opts: Options) -> String {
    let handler = handler(opts);
    let mut out = String::new();
    for f in report.errors.iter().chain(&report.warnings) {
        out.push_str(&render_finding(&handler, f, sources));
        out.push('\n');
    }
    out
}

/// A pair's section of stdout: its line and its findings rendered, for a failing pair (any pair
/// with `verbose`) that has findings; nothing otherwise. Handed to `out` a finding at a time.
pub fn pair_details<E>(
    r: &PairResult,
    sources: Sources<'_>,
    opts: Options,
    out: &mut dyn FnMut(&str) -> Result<(), E>,
) -> Result<(), E> {
    pair_details_streamed(r, &mut r.findings.iter().cloned(), sources, opts, out)
}

/// [`pair_details`] with the findings taken from `findings` (those of `r` are not looked at),
/// one at a time; none is asked for when the pair's section is empty because it passed.
pub fn pair_details_streamed<E>(
    r: &PairResult,
    findings: &mut dyn Iterator<Item = Finding>,
    sources: Sources<'_>,
    opts: Options,
    out: &mut dyn FnMut(&str) -> Result<(), E>,
) -> Result<(), E> {
    if r.passed && !opts.verbose {
        return Ok(());
    }
    let mut findings = findings.peekable();
    if findings.peek().is_none() {
        return Ok(());
    }
    let handler = handler(opts);
    out(&pair_line(r, opts.color))?;
    out("\n\n")?;
    for f in findings {
        let mut text = render_finding(&handler, &f, sources);
        text.push('\n');
        out(&text)?;
    }
    Ok(())
}

/// The list of pairs after the findings, from each pair's `(passed, pair_line)` in report
/// order: every failing pair, passing ones too unless there are more than [`MAX_LISTED_PAIRS`]
/// pairs (or with `verbose`), then a blank line. Empty without pairs.
pub fn pair_listing(pairs: impl ExactSizeIterator<Item = (bool, String)>, opts: Options) -> String {
    let mut out = String::new();
    if pairs.len() == 0 {
        return out;
    }
    let list_passing = opts.verbose || pairs.len() <= MAX_LISTED_PAIRS;
    let mut hidden = 0;
    for (passed, line) in pairs {
        if passed && !list_passing {
            hidden += 1;
            continue;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&hidden_pairs_line(hidden));
    out.push('\n');
    out
}

/// The line that counts the passing pairs left out of the list (empty for none).
pub fn hidden_pairs_line(hidden: usize) -> String {
    match hidden {
        0 => String::new(),
        1 => "… and 1 passing pair (-v lists them)\n".to_owned(),
        n => format!("… and {n} passing pairs (-v lists them)\n"),
    }
}

/// The last line: counts of the run.
pub fn summary_line(s: &Summary) -> String {
    let mut summary = format!(
        "{} passed, {} failed ({} checked: {} specs, {} transcripts)",
        s.passed, s.failed, s.checked, s.specs, s.transcripts
    );
    if s.errors > 0 {
        summary.push_str(&format!(
            "; {} error{} kept files from being checked",
            s.errors,
            if s.errors == 1 { "" } else { "s" }
        ));
    }
    if s.warnings > 0 {
        summary.push_str(&format!(
            "; {} warning{}",
            s.warnings,
            if s.warnings == 1 { "" } else { "s" }
        ));
    }
    summary.push('\n');
    summary
}

fn handler(opts: Options) -> GraphicalReportHandler {
    let theme = if opts.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(opts.width)
        .with_context_lines(1)
        .with_links(false)
}

/// One line per pair: verdict, score against threshold, spec and transcript.
pub fn pair_line(r: &PairResult, color: bool) -> String {
    let (word, cmp) = if r.passed {
        ("PASS", "≥")
    } else {
        ("FAIL", "<")
    };
    let word = match (color, r.passed) {
        (true, true) => format!("\x1b[32m{word}\x1b[0m"),
        (true, false) => format!("\x1b[31;1m{word}\x1b[0m"),
        _ => word.to_owned(),
    };
    let target = match r.record {
        Some(line) => format!("{}:{line}", r.transcript),
        None => r.transcript.clone(),
    };
    let profile = r
        .profile
        .as_deref()
        .map(|p| format!(" [{p}]"))
        .unwrap_or_default();
    format!(
        "{word}  {:.2} {cmp} {:.2}  {}::{}  {target}{profile}",
        r.score, r.threshold, r.spec_file, r.spec
    )
}

fn render_finding(handler: &GraphicalReportHandler, f: &Finding, sources: Sources<'_>) -> String {
    let diag = FindingDiagnostic::new(f, sources);
    let mut s = String::new();
    if handler.render_report(&mut s, &diag).is_err() {
        s = format!("{}: {}\n", f.code, f.message);
    }
    s
}

/// A [`Finding`] as a miette diagnostic: the primary snippet, and the related location (the spec
/// line an engine finding comes from) as a related diagnostic with its own snippet.
#[derive(Debug)]
struct FindingDiagnostic {
    code: String,
    message: String,
    help: Option<String>,
    severity: miette::Severity,
    source: Option<Excerpt>,
    label: Option<LabeledSpan>,
    related: Vec<FindingDiagnostic>,
}

impl FindingDiagnostic {
    fn new(f: &Finding, sources: Sources<'_>) -> Self {
        let (source, label) = match &f.location {
            Some(loc) => locate(loc, sources, Some(f.label.as_deref().unwrap_or("here"))),
            None => (None, None),
        };
        let related = f
            .related
            .iter()
            .map(|loc| {
                let (source, label) = locate(loc, sources, Some("expected here"));
                FindingDiagnostic {
                    code: String::new(),
                    message: format!("expectation at {}:{}", loc.file, loc.line),
                    help: None,
                    severity: miette::Severity::Advice,
                    source,
                    label,
                    related: Vec::new(),
                }
            })
            .collect();
        let message = match (&f.location, &source) {
            // Without the file's text, still say where.
            (Some(loc), None) => format!("{}:{}:{}: {}", loc.file, loc.line, loc.column, f.message),
            _ => f.message.clone(),
        };
        FindingDiagnostic {
            code: f.code.clone(),
            message,
            help: f.help.clone(),
            severity: match f.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Note => miette::Severity::Advice,
            },
            source,
            label,
            related,
        }
    }
}

fn locate(
    loc: &Location,
    sources: Sources<'_>,
    label: Option<&str>,
) -> (Option<Excerpt>, Option<LabeledSpan>) {
    let Some(text) = sources(&loc.file) else {
        return (None, None);
    };
    let (excerpt, span) = Excerpt::new(&loc.file, &text, loc.line, loc.span[0], loc.span[1]);
    let label = LabeledSpan::new_with_span(label.map(str::to_owned), span);
    (Some(excerpt), Some(label))
}

impl fmt::Display for FindingDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FindingDiagnostic {}

impl Diagnostic for FindingDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.code.is_empty()).then(|| Box::new(&self.code) as Box<dyn fmt::Display>)
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.label
            .clone()
            .map(|l| Box::new(std::iter::once(l)) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|d| d as &dyn Diagnostic)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_finding_with_its_spec_line() {
        let spec = "spec s {\n  call issue_refund(amount: 1)\n}\n".to_owned();
        let transcript = "{\"calls\": []}\n".to_owned();
        let loc = |file: &str, text: &str, a: usize, b: usize| {
            Location::of(
                file,
                text.as_bytes(),
                &crate::source::LineIndex::new(text.as_bytes()),
                crate::source::Span::new(a, b),
            )
        };
        let f = Finding {
            code: "missing-call".into(),
            severity: Severity::Error,
            message: "expected a call to `issue_refund`; none matched".into(),
            help: Some("the transcript has no call of this tool".into()),
            location: Some(loc("t.json", &transcript, 0, 13)),
            label: None,
            related: Some(loc("s.toolspec", &spec, 11, 40)),
        };
        let sources = |name: &str| match name {
            "s.toolspec" => Some(std::sync::Arc::new(spec.clone())),
            "t.json" => Some(std::sync::Arc::new(transcript.clone())),
            _ => None,
        };
        let handler = handler(Options {
            color: false,
            verbose: false,
            width: 80,
        });
        let text = render_finding(&handler, &f, &sources);
        assert!(text.contains("missing-call"), "{text}");
        assert!(text.contains("[t.json:1:1]"), "{text}");
        assert!(text.contains("[s.toolspec:2:3]"), "{text}");
        assert!(text.contains("call issue_refund(amount: 1)"), "{text}");
    }
}
