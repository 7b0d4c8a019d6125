//! `--format human`: miette-rendered findings that show the transcript location and the spec
//! line, then one line per spec × transcript and a summary.
//!
//! Findings of failing pairs go to stdout; run errors (what kept something from being checked)
//! go to stderr. Snippets are cut from the files around the span, so a 100 MB single-line
//! transcript renders a few hundred bytes, not the whole line.

use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode, SourceSpan,
};

use std::io::{self, Write};
use std::sync::Arc;

use super::brief;
use super::model::{Finding, Location, PairResult, Report, Severity, Summary};
use super::stream::{self, Emitter, PairOut, Results};
use super::summary::{self, Digest};
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
    /// Print the summary per spec (pass rate, mean score, most failed expectations) whatever
    /// the number of pairs; it is printed anyway past [`MAX_LISTED_PAIRS`] pairs.
    pub summary: bool,
}

/// Above this many spec × transcript pairs, passing pairs are counted rather than listed, and
/// the summary per spec is printed.
pub const MAX_LISTED_PAIRS: usize = 50;

/// Render the report for people.
pub fn render(report: &Report, sources: Sources<'_>, opts: Options) -> Human {
    Human {
        stdout: stream::render(
            HumanEmitter {
                sources,
                options: opts,
            },
            report,
        ),
        stderr: render_run_findings(report, sources, opts),
    }
}

/// The human output format's stdout (its stderr is [`render_run_findings`]): the findings of
/// failing pairs (of every pair with `verbose`), the list of pairs, the summary.
#[derive(Debug, Clone, Copy)]
pub struct HumanEmitter<S> {
    /// Gives the text of a file named in the report, for snippets.
    pub sources: S,
    /// Rendering options.
    pub options: Options,
}

impl<S: Fn(&str) -> Option<Arc<String>>> Emitter for HumanEmitter<S> {
    /// What the list of pairs and the summary need: whether the pair passed, its spec, score
    /// and failed expectations.
    type Meta = Digest;

    /// The pair's section of stdout (its line and its findings, for a failing pair that has
    /// findings; nothing otherwise), and its line in the list of pairs.
    fn pair(
        &self,
        r: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
        out: &mut PairOut<'_>,
    ) -> io::Result<Digest> {
        if let Some(p) = &r.partial {
            // `--partial`: every pair's statements, by state; listed unless all are met.
            let text = partial_section(r, p, self.options.color);
            out.text.write_all(text.as_bytes())?;
            writeln!(out.line, "{}", partial_line(r, p, self.options.color))?;
            let mut digest = Digest::of(r);
            digest.passed = p.state != "violated";
            return Ok(digest);
        }
        let text = &mut out.text;
        pair_details(r, findings, &self.sources, self.options, &mut |s| {
            text.write_all(s.as_bytes())
        })?;
        writeln!(out.line, "{}", pair_line(r, self.options.color))?;
        Ok(Digest::of(r))
    }

    /// The pairs' sections, then the list of pairs: every failing pair, passing ones too
    /// unless there are more than [`MAX_LISTED_PAIRS`] pairs (or with `verbose`), then a blank
    /// line; the pass rate of each spec that has one; the summary per spec (with `summary`, or past [`MAX_LISTED_PAIRS`] pairs); then the
    /// counts.
    fn document(
        &self,
        head: &Report,
        results: &Results<'_, Digest>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        results.write_texts(|_| true, out)?;
        if !results.is_empty() {
            let list_passing = self.options.verbose || results.len() <= MAX_LISTED_PAIRS;
            results.write_lines(|d| list_passing || !d.passed, out)?;
            // The run's count of passing pairs (the planner's), not a count of the lines.
            let hidden = if list_passing { 0 } else { head.summary.passed };
            out.write_all(hidden_pairs_line(hidden).as_bytes())?;
            out.write_all(b"\n")?;
        }
        out.write_all(rates_lines(head, self.options.color).as_bytes())?;
        if !results.is_empty() && (self.options.summary || results.len() > MAX_LISTED_PAIRS) {
            let rows = summary::with_rates(summary::summarize(results.metas()), &head.rates);
            out.write_all(summary::table(&rows).as_bytes())?;
            out.write_all(b"\n")?;
        }
        out.write_all(summary_line(&head.summary).as_bytes())
    }
}

/// One result on its own, as `-v` shows it: its line, its alignment and every finding in full,
/// then its line again. No list of pairs and no counts: those are the run's, and one result is
/// not a run (the Python API's `Result.explain()`).
pub fn render_pair(r: &PairResult, sources: Sources<'_>, opts: Options) -> String {
    let mut out = String::new();
    let opts = Options {
        verbose: true,
        ..opts
    };
    let _ = pair_details(
        r,
        &mut r.findings.iter().cloned(),
        sources,
        opts,
        &mut |s| {
            out.push_str(s);
            Ok::<(), std::convert::Infallible>(())
        },
    );
    out.push_str(&pair_line(r, opts.color));
    out.push('\n');
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

/// A pair's section of stdout: when the pair has findings it lists ([`PairResult::lists`]: all
/// of a failing pair or a result of the rules alone, of a passing pair those that leave part of
/// its spec unchecked), its line and those findings in brief; with `verbose`, for every pair,
/// its line, its alignment and all its findings rendered in full; nothing otherwise. The
/// findings are taken from `findings` (those of `r` are not looked at), one at a time. Handed
/// to `out` a finding at a time.
fn pair_details<E>(
    r: &PairResult,
    findings: &mut dyn Iterator<Item = Finding>,
    sources: Sources<'_>,
    opts: Options,
    out: &mut dyn FnMut(&str) -> Result<(), E>,
) -> Result<(), E> {
    let mut findings = findings.filter(|f| opts.verbose || r.lists(f)).peekable();
    if opts.verbose {
        // Every pair, with how its calls aligned with the spec.
        out(&pair_line(r, opts.color))?;
        out("\n")?;
        out(&alignment(r, opts.width))?;
        out("\n")?;
        let handler = handler(opts);
        for f in findings {
            let declared: Vec<&Location> = brief::failures(r, &f)
                .into_iter()
                .filter(|g| g.declared)
                .filter_map(|g| g.location.as_ref())
                .collect();
            let mut text = render_declared(&handler, &f, &declared, sources);
            text.push('\n');
            out(&text)?;
        }
        return Ok(());
    }
    if findings.peek().is_none() {
        return Ok(());
    }
    out(&pair_line(r, opts.color))?;
    out("\n")?;
    for f in findings {
        out(&brief_finding(r, &f, opts))?;
    }
    out("\n")
}

/// How a pair's calls aligned with its spec, a line per expectation (and per call it matched)
/// and per `never` rule, cut to the width: the status, the expectation, the call it matched.
///
/// ```text
///   matched    #1 lookup_customer (customer) → call #1 lookup_customer(email: "dana@…")
///   missing    #3 check_refund_eligibility (eligibility) → no call
///   ok         never close_account
/// ```
fn alignment(r: &PairResult, width: usize) -> String {
    let mut out = String::new();
    let mut line = |status: &str, what: &str, call: Option<&super::model::CallRef>| {
        let head = format!("  {status:<9}  {what}");
        let text = match call {
            Some(c) => {
                let at = format!("{head} → call #{} ", c.index + 1);
                let room = width.saturating_sub(at.chars().count());
                format!(
                    "{at}{}",
                    super::call::show(&c.name, &c.arguments, &[], room)
                )
            }
            None if status == "ok" => head,
            None => format!("{head} → no call"),
        };
        out.push_str(&brief::fit(&text, width));
        out.push('\n');
    };
    for x in &r.expectations {
        let name = brief::expectation(r, x.index).unwrap_or_default();
        let status = x.status.replace('_', " ");
        if x.calls.is_empty() {
            line(&status, &name, None);
        }
        for c in &x.calls {
            line(&status, &name, Some(c));
        }
    }
    for rule in &r.rules {
        let name = format!("never {}", escaped(&rule.tool));
        if rule.calls.is_empty() {
            line("ok", &name, None);
        }
        for c in &rule.calls {
            line("forbidden", &name, Some(c));
        }
    }
    crate::text::guard_lines(&out).into_owned()
}

/// A finding in one or two lines, each cut to the width: what it is and the call it is about
/// (pretty-printed: name and arguments, those its failed constraints are about first), then
/// what the call fails and where that is written in the spec. Without a call: the message,
/// then the spec line it comes from (or where it is in the transcript).
fn brief_finding(r: &PairResult, f: &Finding, opts: Options) -> String {
    let width = opts.width;
    let sev = f.severity.name();
    let tag = format!("{sev}[{}]", escaped(&f.code));
    let shown_tag = if opts.color {
        let paint = match f.severity {
            Severity::Error => "31;1",
            Severity::Warning => "33;1",
            Severity::Note => "36",
        };
        format!("\x1b[{paint}m{sev}\x1b[0m[{}]", escaped(&f.code))
    } else {
        tag.clone()
    };
    let fit = |s: &str, room: usize| brief::fit(s, room);
    let lead = 2 + tag.chars().count() + 1;
    let mut out = String::new();
    let mut rest = String::new();
    let first_line = if let (Some(_), Some(loc)) = (brief::call_text(r, f, usize::MAX), &f.location)
    {
        let at = format!("line {}: ", loc.line);
        let room = width.saturating_sub(lead + at.chars().count());
        let call = brief::call_text(r, f, room).unwrap_or_default();
        fit(&format!("{at}{call}"), width.saturating_sub(lead))
    } else {
        // The message, wrapped: its first line beside the tag, the rest under it.
        let mut lines = brief::wrap(&escaped(&f.message), width.saturating_sub(lead));
        let first = lines.remove(0);
        for more in lines {
            rest.push_str(&format!("      {more}\n"));
        }
        first
    };
    out.push_str(&format!("  {shown_tag} {first_line}\n"));
    out.push_str(&rest);
    let room = width.saturating_sub(6);
    // What leaves part of the spec unchecked says so after what it is about, wrapped rather
    // than cut, then how to fix it (a did-you-mean).
    let second = if f.unverified {
        let about = if f.call.is_some() {
            Some(brief::detail(r, f))
        } else if let Some(rel) = &f.related {
            Some(format!("{} at {}", f.related_role().0, brief::place(rel)))
        } else {
            f.location
                .as_ref()
                .map(|loc| format!("at {}", brief::place_col(loc)))
        };
        let line = match about {
            Some(about) => format!("{about}; {}", Finding::UNVERIFIED),
            None => Finding::UNVERIFIED.to_owned(),
        };
        Some(brief::wrap(&line, room).join("\n      "))
    } else if f.call.is_some() {
        Some(brief::wrap(&brief::detail(r, f), room).join("\n      "))
    } else if let Some(rel) = &f.related {
        let (noun, _) = f.related_role();
        Some(fit(&format!("{noun} at {}", brief::place(rel)), room))
    } else {
        f.location
            .as_ref()
            .map(|loc| fit(&format!("at {}", brief::place_col(loc)), room))
    };
    if let Some(line) = second {
        out.push_str(&format!("      {line}\n"));
    }
    if let Some(help) = f.help.as_ref().filter(|_| f.unverified) {
        let text = format!("help: {}", escaped(help));
        let lines = brief::wrap(&text, room);
        out.push_str(&format!("      {}\n", lines.join("\n      ")));
    }
    crate::text::guard_lines(&out).into_owned()
}

/// The line that counts the passing pairs left out of the list (empty for none).
fn hidden_pairs_line(hidden: usize) -> String {
    match hidden {
        0 => String::new(),
        1 => "… and 1 passing pair (-v lists them)\n".to_owned(),
        n => format!("… and {n} passing pairs (-v lists them)\n"),
    }
}

/// The verdict of each spec with a `pass_rate`, a line each, then a blank line (nothing when no
/// spec has one):
///
/// ```text
/// pass rates:
///   specs/booking.toolspec::booking: 19/20 passed (95.0 %) ≥ 90 % required — PASS
/// ```
pub(super) fn rates_lines(head: &Report, color: bool) -> String {
    if head.rates.is_empty() {
        return String::new();
    }
    let mut out = String::from("pass rates:\n");
    for r in &head.rates {
        let mut line = escaped(&r.line());
        if color {
            let (word, paint) = if r.met {
                ("PASS", "32")
            } else {
                ("FAIL", "31;1")
            };
            if let Some(cut) = line.strip_suffix(word) {
                line = format!("{cut}\x1b[{paint}m{word}\x1b[0m");
            }
        }
        out.push_str(&format!("  {line}\n"));
    }
    out.push('\n');
    out
}

/// The last line: counts of the run.
pub(super) fn summary_line(s: &Summary) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if s.partial {
        // `--partial`: the pairs with a statement violated, and the others.
        let mut line = format!(
            "{} violated, {} not violated ({} checked as unfinished runs: {} spec{}, {} transcript{})",
            s.failed,
            s.passed,
            s.checked,
            s.specs,
            plural(s.specs),
            s.transcripts,
            plural(s.transcripts)
        );
        if s.errors > 0 {
            line.push_str(&format!(
                "; {} error{} kept files from being checked",
                s.errors,
                plural(s.errors)
            ));
        }
        line.push('\n');
        return line;
    }
    let within = if s.failed_within_rate > 0 {
        format!("{} within pass_rate; ", s.failed_within_rate)
    } else {
        String::new()
    };
    let mut summary = format!(
        "{} passed, {} failed ({within}{} checked: {} spec{}, {} transcript{})",
        s.passed,
        s.failed,
        s.checked,
        s.specs,
        plural(s.specs),
        s.transcripts,
        plural(s.transcripts)
    );
    if s.rates > 0 {
        summary.push_str(&format!(
            "; pass_rate met by {} of {} spec{}",
            s.rates - s.rates_missed,
            s.rates,
            plural(s.rates)
        ));
    }
    if s.errors > 0 {
        summary.push_str(&format!(
            "; {} error{} kept files from being checked",
            s.errors,
            if s.errors == 1 { "" } else { "s" }
        ));
    }
    if s.warnings > 0 {
        let unverified = if s.unverified > 0 {
            format!(" ({} unverified)", s.unverified)
        } else {
            String::new()
        };
        summary.push_str(&format!(
            "; {} warning{}{unverified}",
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

/// One line per pair: verdict, score against threshold (and what failed it besides the score,
/// [`PairResult::verdict_text`]), spec and transcript.
/// `check --partial`: the pair's line, then a line per statement (its state, as written, where)
/// and under one not met the message of the finding that tells why, then a blank line.
///
/// ```text
/// VIOLATED  coding.toolspec::claude_code_fix  cut.jsonl  (1 violated, 2 pending, 6 met)
///   met       call Grep(pattern: type string)  coding.toolspec:7
///   violated  never Bash(command: /git push|rm -rf/)  coding.toolspec:13
///             call #4 calls `Bash` with {"command":"rm -rf build"}, which the spec forbids
/// ```
fn partial_section(r: &PairResult, p: &super::model::PartialResult, color: bool) -> String {
    let mut out = partial_line(r, p, color);
    out.push('\n');
    for st in &p.statements {
        let at = st
            .location
            .as_ref()
            .map(|l| format!("  {}", brief::place(l)))
            .unwrap_or_default();
        out.push_str(&format!("  {:<9} {}{at}\n", st.state, escaped(&st.text)));
        if let Some(m) = &st.message {
            out.push_str(&format!("            {}\n", escaped(m)));
        }
    }
    out.push('\n');
    out
}

/// `VIOLATED  spec_file::spec  transcript  (1 violated, 2 pending, 6 met)`.
fn partial_line(r: &PairResult, p: &super::model::PartialResult, color: bool) -> String {
    let word = p.state.to_uppercase();
    let word = match (color, p.state.as_str()) {
        (true, "violated") => format!("\x1b[31;1m{word}\x1b[0m"),
        (true, "met") => format!("\x1b[32m{word}\x1b[0m"),
        (true, _) => format!("\x1b[33m{word}\x1b[0m"),
        _ => word,
    };
    let target = match r.record {
        Some(line) => format!("{}:{line}", escaped(&r.transcript)),
        None => escaped(&r.transcript),
    };
    format!(
        "{word}  {}::{}  {target}  ({} violated, {} pending, {} met)",
        escaped(&r.spec_file),
        escaped(&r.spec),
        p.violated,
        p.pending,
        p.met
    )
}

fn pair_line(r: &PairResult, color: bool) -> String {
    let word = if r.passed { "PASS" } else { "FAIL" };
    let word = match (color, r.passed) {
        (true, true) => format!("\x1b[32m{word}\x1b[0m"),
        (true, false) => format!("\x1b[31;1m{word}\x1b[0m"),
        _ => word.to_owned(),
    };
    let target = match r.record {
        Some(line) => format!("{}:{line}", escaped(&r.transcript)),
        None => escaped(&r.transcript),
    };
    let profile = r
        .profile
        .as_deref()
        .map(|p| format!(" [{}]", escaped(p)))
        .unwrap_or_default();
    if r.is_rules_only() {
        return format!("{word}  {}  rules  {target}", escaped(&r.verdict_text()));
    }
    // A failing pair of a spec with a `pass_rate` does not fail the run on its own.
    let within = match r.pass_rate {
        Some(rate) if !r.passed => {
            format!("  (within pass_rate ≥ {})", super::model::percent(rate))
        }
        _ => String::new(),
    };
    format!(
        "{word}  {}  {}::{}  {target}{profile}{within}",
        escaped(&r.verdict_text()),
        escaped(&r.spec_file),
        escaped(&r.spec)
    )
}

fn render_finding(handler: &GraphicalReportHandler, f: &Finding, sources: Sources<'_>) -> String {
    render_declared(handler, f, &[], sources)
}

/// [`render_finding`], with a snippet of each `tool` declaration in `declared` that a failed
/// constraint of the finding's call comes from, after the spec line the finding relates to.
fn render_declared(
    handler: &GraphicalReportHandler,
    f: &Finding,
    declared: &[&Location],
    sources: Sources<'_>,
) -> String {
    let mut diag = FindingDiagnostic::new(f, sources);
    for loc in declared {
        diag.related.push(related_place(
            "`tool` declaration",
            "declares this constraint",
            loc,
            sources,
        ));
    }
    let mut s = String::new();
    if handler.render_report(&mut s, &diag).is_err() {
        s = format!("{}: {}\n", escaped(&f.code), escaped(&f.message));
    }
    // A wrapped message can put data at the start of a line.
    crate::text::guard_lines(&s).into_owned()
}

/// A [`Finding`] as a miette diagnostic: the primary snippet, and the related location (the spec
/// line an engine finding comes from) as a related diagnostic with its own snippet.
///
/// Every text in it is escaped and its snippet's text masked ([`crate::text`]): what miette
/// renders from it holds no control character from the data.
#[derive(Debug)]
struct FindingDiagnostic {
    code: String,
    message: String,
    help: Option<String>,
    severity: miette::Severity,
    source: Option<Excerpt>,
    labels: Vec<LabeledSpan>,
    related: Vec<FindingDiagnostic>,
    cause: Option<Box<Cause>>,
}

/// One step of an error's cause chain, escaped.
#[derive(Debug)]
struct Cause {
    text: String,
    next: Option<Box<Cause>>,
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.next
            .as_deref()
            .map(|c| c as &(dyn std::error::Error + 'static))
    }
}

fn escaped(s: &str) -> String {
    crate::text::escape(s).into_owned()
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
                let (noun, says) = f.related_role();
                related_place(noun, says, loc, sources)
            })
            .collect();
        let message = match (&f.location, &source) {
            // Without the file's text, still say where.
            (Some(loc), None) => format!(
                "{}:{}:{}: {}",
                escaped(&loc.file),
                loc.line,
                loc.column,
                escaped(&f.message)
            ),
            _ => escaped(&f.message),
        };
        FindingDiagnostic {
            code: escaped(&f.code),
            message,
            help: f.help.as_deref().map(escaped),
            severity: match f.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Note => miette::Severity::Advice,
            },
            source,
            labels: label.into_iter().collect(),
            related,
            cause: None,
        }
    }

    /// A copy of any diagnostic with its texts escaped and the part of its source its labels
    /// show cut out and masked ([`crate::text::mask_source`]; byte offsets are kept, so the
    /// labels point where they did).
    fn of(diag: &dyn Diagnostic) -> Self {
        let labels: Vec<LabeledSpan> = diag
            .labels()
            .map(std::iter::Iterator::collect)
            .unwrap_or_default();
        let window = labels
            .iter()
            .map(|l| (l.offset(), l.offset() + l.len()))
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)));
        let mut source = None;
        let mut labels_out = Vec::new();
        if let (Some(code), Some((start, end))) = (diag.source_code(), window) {
            if let Ok(contents) = code.read_span(&SourceSpan::new(start.into(), end - start), 1, 1)
            {
                let base = contents.span().offset();
                let text = String::from_utf8_lossy(contents.data());
                let (from, to) = (start - base, end - base);
                let excerpt = if crate::source::lines_fit(&text, from, to) {
                    Excerpt::from_parts(
                        contents.name().map(escaped),
                        crate::text::mask_source(&text).into_owned(),
                        contents.line(),
                        0,
                    )
                } else {
                    // Cut as `check` cuts (long lines to a window around the span: miette
                    // cannot render a line past 65 535 columns), with true line numbers.
                    let line = contents.line()
                        + 1
                        + text.as_bytes()[..from.min(text.len())]
                            .iter()
                            .filter(|&&b| b == b'\n')
                            .count();
                    let (excerpt, _) =
                        Excerpt::new(contents.name().unwrap_or(""), &text, line, from, to);
                    if contents.name().is_none() {
                        excerpt.unnamed()
                    } else {
                        excerpt
                    }
                };
                labels_out = labels
                    .iter()
                    .filter_map(|l| {
                        let at = l.offset() - base;
                        let span = excerpt.map(at, at + l.len())?;
                        let text = l.label().map(escaped);
                        Some(if l.primary() {
                            LabeledSpan::new_primary_with_span(text, span)
                        } else {
                            LabeledSpan::new_with_span(text, span)
                        })
                    })
                    .collect();
                if labels_out.is_empty() {
                    if let Some(main) = excerpt.map(from, from) {
                        let text = labels.first().and_then(|l| l.label()).map(escaped);
                        labels_out.push(LabeledSpan::new_primary_with_span(text, main));
                    }
                }
                source = Some(excerpt);
            }
        }
        let labels = labels_out;
        let mut causes = Vec::new();
        let mut next = diag.source();
        while let Some(e) = next {
            causes.push(escaped(&e.to_string()));
            next = e.source();
        }
        let cause = causes
            .into_iter()
            .rev()
            .fold(None, |next, text| Some(Box::new(Cause { text, next })));
        FindingDiagnostic {
            code: diag
                .code()
                .map(|c| escaped(&c.to_string()))
                .unwrap_or_default(),
            message: escaped(&diag.to_string()),
            help: diag.help().map(|h| escaped(&h.to_string())),
            severity: diag.severity().unwrap_or(miette::Severity::Error),
            source,
            labels,
            related: diag
                .related()
                .map(|r| r.map(FindingDiagnostic::of).collect())
                .unwrap_or_default(),
            cause,
        }
    }
}

/// Render any diagnostic (a spec's, a transcript reader's, a setting's) with `handler`, every
/// text escaped and its snippet masked ([`crate::text`]), so no control character in a file
/// name, message or source text reaches the output raw.
pub fn render_diagnostic(handler: &GraphicalReportHandler, diag: &dyn Diagnostic) -> String {
    let safe = FindingDiagnostic::of(diag);
    let mut s = String::new();
    if handler.render_report(&mut s, &safe).is_err() {
        s = format!("{}\n", safe.message);
    }
    crate::text::guard_lines(&s).into_owned()
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
    let label = LabeledSpan::new_with_span(label.map(escaped), span);
    (Some(excerpt), Some(label))
}

impl fmt::Display for FindingDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FindingDiagnostic {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|c| c as &(dyn std::error::Error + 'static))
    }
}

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
        (!self.labels.is_empty())
            .then(|| Box::new(self.labels.iter().cloned()) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|d| d as &dyn Diagnostic)))
        }
    }
}

/// A related place of a finding (`noun at FILE:LINE`), its snippet labelled with what it `says`.
fn related_place(
    noun: &str,
    says: &str,
    loc: &Location,
    sources: Sources<'_>,
) -> FindingDiagnostic {
    let (source, label) = locate(loc, sources, Some(says));
    FindingDiagnostic {
        code: String::new(),
        message: format!("{noun} at {}:{}", escaped(&loc.file), loc.line),
        help: None,
        severity: miette::Severity::Advice,
        source,
        labels: label.into_iter().collect(),
        related: Vec::new(),
        cause: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagnostic_renders_without_control_characters() {
        let name = "bad\n::error::x\u{1b}[2J.toolspec";
        let text = "spec s {\n  # \u{202e}\u{1b}]0;t\u{7} ##[error]\n  call (\n}\n";
        let source = crate::source::SourceFile::new(name.to_owned(), text.to_owned());
        let at = text.find("call (").unwrap() + 5;
        let d = crate::syntax::SpecDiagnostic::error(
            crate::code::Code::Syntax,
            &source,
            "bad `\u{9b}x`",
        )
        .label(crate::source::Span::new(at, at + 1), "here \u{85}")
        .help("see \u{2028}");
        let handler = handler(Options {
            color: false,
            verbose: false,
            width: 80,
            summary: false,
        });
        let out = render_diagnostic(&handler, &d);
        assert!(
            !out.chars().any(|c| c != '\n' && crate::text::is_control(c)),
            "{out:?}"
        );
        assert!(!out.contains("##["), "{out}");
        assert!(
            out.contains("[bad\\n::error::x\\u{1b}[2J.toolspec:3:8]"),
            "{out}"
        );
        assert!(out.contains("#?[error]"), "{out}");
        assert!(out.contains("bad `\\u{9b}x`"), "{out}");
        // The marker is under the `(`, as in the unmasked text.
        let lines: Vec<&str> = out.lines().collect();
        let code = lines.iter().position(|l| l.contains("call (")).unwrap();
        let col = |l: &str, c: char| l.chars().position(|x| x == c).unwrap();
        assert_eq!(col(lines[code], '('), col(lines[code + 1], '┬'), "{out}");
    }

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
            expectation: None,
            call: None,
            unverified: false,
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
            summary: false,
        });
        let text = render_finding(&handler, &f, &sources);
        assert!(text.contains("missing-call"), "{text}");
        assert!(text.contains("[t.json:1:1]"), "{text}");
        assert!(text.contains("[s.toolspec:2:3]"), "{text}");
        assert!(text.contains("call issue_refund(amount: 1)"), "{text}");
    }
}
