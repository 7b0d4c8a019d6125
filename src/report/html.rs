//! `--format html`: one self-contained page for reading a run of any size in a browser.
//!
//! The page holds the counts, a table per spec (pass rate, mean score, expectations not met most
//! often), two inline SVG charts (pass rate per spec, a histogram of scores), the run's errors,
//! then one collapsed `<details>` section per spec × transcript pair, failing pairs first. A
//! failing pair's section is its timeline: the calls in transcript order, each beside the
//! expectation it matched (or marked forbidden, unaccounted for, missing), the constraints it
//! fails with what was expected and what the call has, and the spec line each row comes from. A
//! passing pair's section is its alignment in one line per expectation (expectation → call):
//! that keeps 10 000 pairs within a few megabytes (docs/performance.md). The spec files follow,
//! each once, that the sections link to.
//!
//! Trust: every piece of data is escaped for HTML ([`esc`]: control characters shown as
//! escapes first, then `& < > " '` as entities) in text and in attributes alike; no URL holds
//! data (links are fragments made of hex digits); a Content-Security-Policy meta tag forbids
//! every network load, so the page fetches nothing, whatever it contains. The small inline
//! script only filters sections (by spec, status, format) and opens them; everything is
//! readable without it.
//!
//! Bounds: at most [`MAX_TIMELINE_ROWS`] timeline rows and [`MAX_FINDINGS`] findings per pair,
//! [`MAX_CHART_SPECS`] bars, [`MAX_SOURCE_BYTES`] of each spec file; the rest is counted.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::Arc;

use super::call;
use super::model::{CallRef, ConstraintFailure, Finding, Location, PairResult, Report};
use super::stream::{self, Emitter, PairOut, Results};
use super::summary::{self, Digest};
use crate::text;

/// Timeline rows shown per pair; more are counted.
pub const MAX_TIMELINE_ROWS: usize = 200;

/// Findings listed per pair; more are counted.
pub const MAX_FINDINGS: usize = 20;

/// Specs drawn in the pass-rate chart; the table lists them all.
pub const MAX_CHART_SPECS: usize = 60;

/// Bytes of a spec file shown in the spec sources; a longer file is cut at a line.
pub const MAX_SOURCE_BYTES: usize = 256 << 10;

/// Characters of a call shown in a timeline row.
const CALL_WIDTH: usize = 160;

/// Characters of an expected or actual value shown.
const VALUE_WIDTH: usize = 200;

/// Characters of a spec line shown beside a row.
const SPEC_LINE_WIDTH: usize = 200;

/// The Content-Security-Policy of the page: nothing loaded from anywhere.
pub const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

/// Render the report as an HTML page; `sources` gives the spec files' text.
pub fn render(report: &Report, sources: super::human::Sources<'_>) -> String {
    stream::render(HtmlEmitter { sources }, report)
}

/// The HTML output format.
#[derive(Debug, Clone, Copy)]
pub struct HtmlEmitter<S> {
    /// Gives the text of a spec file named in the report (for the spec lines and sources).
    pub sources: S,
}

/// What the page needs of a pair besides its section.
#[derive(Debug, Clone, Default)]
pub struct HtmlMeta {
    /// For the summary table and the charts.
    pub digest: Digest,
    /// The transcript format read (for the filter).
    pub format: String,
    /// The spec file (for the spec sources).
    pub spec_file: String,
}

impl<S: Fn(&str) -> Option<Arc<String>>> Emitter for HtmlEmitter<S> {
    type Meta = HtmlMeta;

    /// The pair's `<details>` section.
    fn pair(
        &self,
        r: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
        out: &mut PairOut<'_>,
    ) -> io::Result<HtmlMeta> {
        let spec_text = (self.sources)(&r.spec_file);
        let digest = Digest::of(r);
        let section = section(
            r,
            &digest.spec,
            findings,
            spec_text.as_deref().map(String::as_str),
        );
        out.text.write_all(section.as_bytes())?;
        Ok(HtmlMeta {
            digest,
            format: r.format.clone(),
            spec_file: r.spec_file.clone(),
        })
    }

    fn document(
        &self,
        head: &Report,
        results: &Results<'_, HtmlMeta>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let s = &head.summary;
        let verdict = if s.errors > 0 {
            "errors"
        } else if s.fails() {
            "failed"
        } else {
            "passed"
        };
        write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
             <meta name=\"referrer\" content=\"no-referrer\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>toolspec report: {verdict}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        )?;
        let mut counts = String::new();
        for (k, n) in [
            ("passed", s.passed),
            ("failed", s.failed),
            ("checked", s.checked),
            ("specs", s.specs),
            ("transcripts", s.transcripts),
            ("errors", s.errors),
            ("warnings", s.warnings),
        ] {
            let _ = write!(
                counts,
                "<div><dt>{k}</dt><dd data-count=\"{k}\">{n}</dd></div>"
            );
        }
        writeln!(
            out,
            "<header><h1>toolspec: <span class=\"{verdict}\">{verdict}</span></h1>\n\
             <dl id=\"counts\">{counts}</dl></header>"
        )?;
        let specs = summary::with_rates(
            summary::summarize(results.metas().map(|m| &m.digest)),
            &head.rates,
        );
        if !specs.is_empty() {
            out.write_all(summary_table(&specs).as_bytes())?;
            out.write_all(b"<section id=\"charts\">\n")?;
            out.write_all(rate_chart(&specs).as_bytes())?;
            out.write_all(histogram(results.metas().map(|m| m.digest.score)).as_bytes())?;
            out.write_all(b"</section>\n")?;
        }
        out.write_all(run_findings(head).as_bytes())?;
        if !results.is_empty() {
            // The run's counts (the planner's), not a count of the sections.
            writeln!(
                out,
                "<section id=\"pairs\">\n<h2>Transcripts <small>{} failing first, then {} \
                 passing; click one to open it</small></h2>",
                s.failed, s.passed
            )?;
            out.write_all(filter_form(results).as_bytes())?;
            results.write_texts(|m| !m.digest.passed, out)?;
            results.write_texts(|m| m.digest.passed, out)?;
            out.write_all(b"</section>\n")?;
            // A result of the built-in rules alone has no spec file.
            let files: BTreeSet<&str> = results
                .metas()
                .map(|m| m.spec_file.as_str())
                .filter(|f| !f.is_empty())
                .collect();
            out.write_all(b"<section id=\"sources\">\n<h2>Spec files</h2>\n")?;
            for file in files {
                out.write_all(spec_source(file, (self.sources)(file).as_deref()).as_bytes())?;
            }
            out.write_all(b"</section>\n")?;
        }
        write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n")
    }
}

/// `s` for HTML text or a quoted attribute value: [`text::is_control`] characters as visible
/// escapes ([`text::escape`]), then `&`, `<`, `>`, `"` and `'` as character references.
pub fn esc(s: &str) -> String {
    entities(&text::escape(s))
}

/// Text made of lines (a spec file) for a `<pre>`: line breaks kept (`\r\n` read as `\n`),
/// every other control character as an escape, then [`entities`].
fn esc_lines(s: &str) -> String {
    let s = s.replace("\r\n", "\n");
    text_entities(&text::escape_keeping_lines(&s))
}

/// `s` for HTML text (element content, never an attribute): [`text::is_control`] characters as
/// visible escapes, then `&`, `<` and `>` as character references (quotes are text there).
pub fn esc_text(s: &str) -> String {
    text_entities(&text::escape(s))
}

/// `&`, `<` and `>` as character references (element content, where quotes are text).
fn text_entities(s: &str) -> String {
    encode(s, false)
}

/// `&`, `<`, `>` and both quotes as character references (attribute values).
fn entities(s: &str) -> String {
    encode(s, true)
}

fn encode(s: &str, quotes: bool) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quotes => out.push_str("&quot;"),
            '\'' if quotes => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A fragment id for a spec file: `src-` and 16 hex digits of its name's FNV-1a hash (no data
/// in the id itself).
fn source_id(file: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in file.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("src-{h:016x}")
}

/// The spec text a location points into: the lines it spans (at most three), each cut to
/// [`SPEC_LINE_WIDTH`], with the number of the first.
fn spec_lines(text: &str, loc: &Location) -> Option<(usize, String)> {
    let [start, end] = loc.span;
    if start > text.len() || !text.is_char_boundary(start) {
        return None;
    }
    let end = end.clamp(start, text.len());
    let from = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let to = if text.is_char_boundary(end) {
        text[end..].find('\n').map_or(text.len(), |i| end + i)
    } else {
        text.len()
    };
    let lines: Vec<String> = text[from..to]
        .lines()
        .take(3)
        .map(|l| call::cut(l.trim_end(), SPEC_LINE_WIDTH))
        .collect();
    Some((loc.line, lines.join("\n")))
}

/// One timeline row's kind: what the call (or its absence) is to the spec.
enum Mark<'a> {
    /// Matched by an expectation (met or not: `matched`, `name_only`, …).
    Expectation(&'a super::model::ExpectationResult),
    /// Forbidden by a `never` rule.
    Forbidden(&'a super::model::RuleResult),
    /// A finding about the call that is neither (an unexpected or extra call).
    Finding(&'a Finding),
}

/// The pair's section: failing pairs get their timeline, passing pairs their alignment.
/// `spec_name` is the digest's (the same text as the filter's option).
fn section(
    r: &PairResult,
    spec_name: &str,
    findings: &mut dyn Iterator<Item = Finding>,
    spec: Option<&str>,
) -> String {
    let status = if r.passed { "pass" } else { "fail" };
    let target = match r.record {
        Some(line) => format!("{}:{line}", r.transcript),
        None => r.transcript.clone(),
    };
    let spec_name = entities(spec_name);
    let mut s = String::with_capacity(if r.passed { 400 } else { 3000 });
    let _ = write!(
        s,
        "<details class=\"pair {status}\" data-spec=\"{spec_name}\" data-status=\"{status}\" \
         data-format=\"{}\">\n<summary><span class=\"badge\">{}</span> \
         <span class=\"tr\">{}</span> <span class=\"sp\">{spec_name}</span> <span class=\"v\">{}\
         </span></summary>\n",
        esc(&r.format),
        if r.passed { "PASS" } else { "FAIL" },
        esc_text(&target),
        esc_text(&r.verdict_text()),
    );
    if r.passed {
        // A passing pair: its alignment in one line; its findings (notes) are counted.
        alignment(&mut s, r, findings.count());
        s.push_str("</details>\n");
        return s;
    }
    let _ = write!(
        s,
        "<div class=\"body\">\n<p class=\"meta\">spec <a href=\"#{}\">{spec_name}</a> · format \
         {} · {} call{} · score {:.2}, threshold {:.2}{}</p>\n",
        source_id(&r.spec_file),
        esc_text(&r.format),
        r.calls,
        if r.calls == 1 { "" } else { "s" },
        r.score,
        r.threshold,
        r.profile
            .as_deref()
            .map(|p| format!(" · profile {}", esc_text(p)))
            .unwrap_or_default()
            + &r.rate_note()
                .map(|n| format!(" · {}", esc_text(&n)))
                .unwrap_or_default(),
    );
    let kept: Vec<Finding> = (&mut *findings).take(MAX_FINDINGS).collect();
    let more = findings.count();
    timeline(&mut s, r, &kept, spec);
    finding_list(&mut s, &kept, more);
    s.push_str("</div>\n</details>\n");
    s
}

/// A passing pair's alignment, one line: each expectation and the calls it matched (`#1
/// lookup_customer → 1`), its status when not `matched`; the rules kept; the notes counted.
fn alignment(s: &mut String, r: &PairResult, notes: usize) {
    let mut items: Vec<String> = Vec::new();
    for x in &r.expectations {
        let calls: Vec<String> = x.calls.iter().map(|c| (c.index + 1).to_string()).collect();
        let status = if x.status == "matched" {
            String::new()
        } else {
            format!(
                " <span class=\"st {}\">{}</span>",
                status_class(&x.status, x.passed),
                esc_text(&x.status)
            )
        };
        items.push(format!(
            "{} → {}{status}",
            expectation_name(x),
            if calls.is_empty() {
                "no call".to_owned()
            } else {
                calls.join(", ")
            }
        ));
    }
    for rule in &r.rules {
        items.push(format!("never {} kept", esc_text(&rule.tool)));
    }
    if notes > 0 {
        items.push(format!("{notes} note{}", if notes == 1 { "" } else { "s" }));
    }
    let _ = writeln!(s, "<p class=\"align\">{}</p>", items.join(" · "));
}

fn expectation_name(x: &super::model::ExpectationResult) -> String {
    match &x.label {
        Some(l) => format!("#{} {} ({})", x.index + 1, esc_text(&x.tool), esc_text(l)),
        None => format!("#{} {}", x.index + 1, esc_text(&x.tool)),
    }
}

fn status_class(status: &str, passed: bool) -> &'static str {
    if passed {
        "ok"
    } else if status == "missing" {
        "missing"
    } else {
        "bad"
    }
}

/// A failing pair's timeline: the calls in order, each beside what it is to the spec, the
/// missing expectations where they were due, the calls the spec does not name as ranges.
fn timeline(s: &mut String, r: &PairResult, findings: &[Finding], spec: Option<&str>) {
    let mut calls: BTreeMap<usize, (&CallRef, Vec<Mark<'_>>)> = BTreeMap::new();
    for x in &r.expectations {
        for c in &x.calls {
            calls
                .entry(c.index)
                .or_insert((c, Vec::new()))
                .1
                .push(Mark::Expectation(x));
        }
    }
    for rule in &r.rules {
        for c in &rule.calls {
            calls
                .entry(c.index)
                .or_insert((c, Vec::new()))
                .1
                .push(Mark::Forbidden(rule));
        }
    }
    for f in findings {
        if let Some(c) = &f.call {
            let entry = calls.entry(c.index).or_insert((c, Vec::new()));
            if entry.1.is_empty() {
                entry.1.push(Mark::Finding(f));
            }
        }
    }
    // A missing expectation is due after the last call an earlier expectation matched.
    let mut missing: BTreeMap<Option<usize>, Vec<&super::model::ExpectationResult>> =
        BTreeMap::new();
    let mut last: Option<usize> = None;
    for x in &r.expectations {
        if x.calls.is_empty() && !x.passed {
            missing.entry(last).or_default().push(x);
        }
        if let Some(m) = x.calls.iter().map(|c| c.index).max() {
            last = Some(last.map_or(m, |l| l.max(m)));
        }
    }
    s.push_str(
        "<table class=\"timeline\"><thead><tr><th>call</th><th>tool and arguments</th>\
         <th>status</th><th>expectation or rule</th><th>spec</th></tr></thead>\n<tbody>\n",
    );
    let mut rows = 0usize;
    let mut hidden = 0usize;
    let mut row = |s: &mut String, html: &str| {
        if rows < MAX_TIMELINE_ROWS {
            s.push_str(html);
        } else {
            hidden += 1;
        }
        rows += 1;
    };
    for x in missing.get(&None).into_iter().flatten() {
        row(s, &missing_row(x, spec));
    }
    let mut next = 0usize;
    let indices: Vec<usize> = calls.keys().copied().collect();
    for i in indices {
        if i > next {
            row(s, &gap_row(next, i - 1));
        }
        let (c, marks) = &calls[&i];
        row(s, &call_rows(c, marks, spec));
        for x in missing.get(&Some(i)).into_iter().flatten() {
            row(s, &missing_row(x, spec));
        }
        next = i + 1;
    }
    if r.calls > next {
        row(s, &gap_row(next, r.calls - 1));
    }
    if hidden > 0 {
        let _ = writeln!(
            s,
            "<tr class=\"more\"><td colspan=\"5\">… and {hidden} more rows</td></tr>"
        );
    }
    s.push_str("</tbody></table>\n");
}

/// Calls `from..=to` (0-based), which no expectation or rule names.
fn gap_row(from: usize, to: usize) -> String {
    let which = if from == to {
        format!("call #{}", from + 1)
    } else {
        format!("calls #{}–#{}", from + 1, to + 1)
    };
    format!(
        "<tr class=\"r-gap\"><td>{}</td><td colspan=\"4\">{which}: not named by this spec</td></tr>\n",
        from + 1
    )
}

fn missing_row(x: &super::model::ExpectationResult, spec: Option<&str>) -> String {
    format!(
        "<tr class=\"r-missing\"><td>–</td><td><em>no call</em></td><td><span class=\"st missing\">\
         {}</span></td><td>{}</td><td>{}</td></tr>\n",
        esc_text(&x.status),
        expectation_name(x),
        spec_cell(spec, x.location.as_ref())
    )
}

/// A call's row, and under it the constraints it fails.
fn call_rows(c: &CallRef, marks: &[Mark<'_>], spec: Option<&str>) -> String {
    let failed: Vec<&ConstraintFailure> = marks
        .iter()
        .filter_map(|m| match m {
            Mark::Expectation(x) => Some(x.failures.iter().filter(|g| g.call == c.index)),
            _ => None,
        })
        .flatten()
        .collect();
    let first: Vec<&str> = failed
        .iter()
        .filter_map(|g| call::first_key(&g.path))
        .collect();
    let shown = call::show(&c.name, &c.arguments, &first, CALL_WIDTH);
    let mut status = String::new();
    let mut what = String::new();
    let mut at = String::new();
    let mut class = "ok";
    for (n, m) in marks.iter().enumerate() {
        let sep = if n == 0 { "" } else { "<br>" };
        match m {
            Mark::Expectation(x) => {
                let cls = status_class(&x.status, x.passed);
                if cls != "ok" {
                    class = "bad";
                }
                let _ = write!(
                    status,
                    "{sep}<span class=\"st {cls}\">{}</span>",
                    esc_text(&x.status)
                );
                let _ = write!(what, "{sep}{}", expectation_name(x));
                let _ = write!(at, "{sep}{}", spec_cell(spec, x.location.as_ref()));
            }
            Mark::Forbidden(rule) => {
                class = "bad";
                let _ = write!(status, "{sep}<span class=\"st bad\">forbidden</span>");
                let _ = write!(what, "{sep}never {}", esc_text(&rule.tool));
                let _ = write!(at, "{sep}{}", spec_cell(spec, rule.location.as_ref()));
            }
            Mark::Finding(f) => {
                let cls = if f.severity == super::model::Severity::Error {
                    "bad"
                } else {
                    "note"
                };
                if cls == "bad" || class == "ok" {
                    class = cls;
                }
                let _ = write!(
                    status,
                    "{sep}<span class=\"st {cls}\">{}</span>",
                    esc_text(&f.code)
                );
                let _ = write!(what, "{sep}{}", esc_text(&f.message));
                let _ = write!(at, "{sep}{}", spec_cell(spec, f.related.as_ref()));
            }
        }
    }
    let line = c
        .location
        .as_ref()
        .map(|l| format!(" <span class=\"ln\">line {}</span>", l.line))
        .unwrap_or_default();
    let mut out = format!(
        "<tr class=\"r-{class}\"><td>{}</td><td><code>{}</code>{line}</td><td>{status}</td>\
         <td>{what}</td><td>{at}</td></tr>\n",
        c.index + 1,
        text_entities(&shown),
    );
    if !failed.is_empty() {
        out.push_str(
            "<tr class=\"fails\"><td></td><td colspan=\"4\"><table class=\"cf\"><thead><tr>\
             <th>path</th><th>constraint</th><th>expected</th><th>actual</th><th>why</th></tr>\
             </thead><tbody>",
        );
        for g in failed {
            let part = if g.part == "args" || g.part.is_empty() {
                String::new()
            } else {
                format!("{} ", esc_text(&g.part))
            };
            let _ = write!(
                out,
                "<tr><td><code>{part}{}</code></td><td>{}</td><td class=\"exp\"><code>{}</code>\
                 </td><td class=\"act\"><code>{}</code></td><td>{}</td></tr>",
                esc_text(&g.path),
                esc_text(&g.constraint),
                text_entities(&expected(&g.expected)),
                match &g.actual {
                    Some(v) => text_entities(&call::value(v, VALUE_WIDTH)),
                    None => "<em>absent</em>".to_owned(),
                },
                esc_text(&g.message),
            );
        }
        out.push_str("</tbody></table></td></tr>\n");
    }
    out
}

/// What a constraint expects, as one line: a range as `1 ≤ x ≤ 12999` (bounds left out when
/// open, `<` when exclusive), anything else as compact JSON; escaped, cut to [`VALUE_WIDTH`].
fn expected(v: &serde_json::Value) -> String {
    let range = v
        .as_object()
        .filter(|m| m.get("kind").and_then(serde_json::Value::as_str) == Some("range"));
    let Some(m) = range else {
        return call::value(v, VALUE_WIDTH);
    };
    let bound = |k: &str| {
        m.get(k)
            .filter(|b| b.is_number())
            .map(|b| call::value(b, 40))
    };
    let trim = |s: String| s.strip_suffix(".0").map_or(s.clone(), str::to_owned);
    let op = |k: &str| {
        if m.get(k).and_then(serde_json::Value::as_bool) == Some(true) {
            "<"
        } else {
            "≤"
        }
    };
    let mut out = String::new();
    if let Some(min) = bound("min") {
        out.push_str(&format!("{} {} ", trim(min), op("min_exclusive")));
    }
    out.push('x');
    if let Some(max) = bound("max") {
        out.push_str(&format!(" {} {}", op("max_exclusive"), trim(max)));
    }
    out
}

/// The spec lines a location points to, with the line number linking to the spec source.
fn spec_cell(spec: Option<&str>, loc: Option<&Location>) -> String {
    let Some(loc) = loc else {
        return String::new();
    };
    match spec.and_then(|text| spec_lines(text, loc)) {
        Some((line, text)) => format!(
            "<span class=\"ln\">{line}</span> <code class=\"spec\">{}</code>",
            esc_lines(&text)
        ),
        None => format!("<span class=\"ln\">line {}</span>", loc.line),
    }
}

fn finding_list(s: &mut String, findings: &[Finding], more: usize) {
    // A finding about a call is in the call's timeline row.
    let listed: Vec<&Finding> = findings.iter().filter(|f| f.call.is_none()).collect();
    if listed.is_empty() && more == 0 {
        return;
    }
    s.push_str("<ul class=\"findings\">");
    for f in listed {
        let at = f
            .location
            .as_ref()
            .map(|l| format!(" line {}", l.line))
            .unwrap_or_default();
        let _ = write!(
            s,
            "<li><b class=\"{}\">{}</b>{at}: {}</li>",
            match f.severity {
                super::model::Severity::Error => "bad",
                _ => "note",
            },
            esc_text(&f.code),
            esc_text(&f.message)
        );
    }
    if more > 0 {
        let _ = write!(s, "<li>… and {more} more</li>");
    }
    s.push_str("</ul>\n");
}

fn summary_table(specs: &[summary::SpecSummary]) -> String {
    // A column for the specs with a `pass_rate`, when there is one.
    let rated = specs.iter().any(|r| r.pass_rate.is_some());
    let mut s = String::from(
        "<section id=\"summary\"><h2>Specs</h2>\n<table id=\"spec-table\"><thead><tr><th>spec</th>\
         <th>passed</th><th>rate</th><th>mean score</th><th>most often not met</th>",
    );
    if rated {
        s.push_str("<th>pass_rate</th>");
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for row in specs {
        let rate = match (&row.pass_rate, rated) {
            (Some(p), _) => format!(
                "<td class=\"{}\">{}</td>",
                if p.met { "ok" } else { "bad" },
                text_entities(&format!(
                    "{} {} required — {}",
                    if p.met { "≥" } else { "<" },
                    super::model::percent(p.required),
                    if p.met { "PASS" } else { "FAIL" }
                ))
            ),
            (None, true) => "<td></td>".to_owned(),
            (None, false) => String::new(),
        };
        let most: Vec<String> = row
            .most_failed
            .iter()
            .map(|(name, n)| format!("{} {n}×", text_entities(name)))
            .collect();
        let _ = writeln!(
            s,
            "<tr data-spec=\"{}\"><td>{}</td><td class=\"num\"><span class=\"passed\">{}</span>/\
             <span class=\"total\">{}</span></td><td class=\"num\">{:.1}%</td><td class=\"num\">\
             {:.2}</td><td>{}</td>{rate}</tr>",
            entities(&row.spec),
            text_entities(&row.spec),
            row.passed,
            row.total,
            row.rate(),
            row.mean_score,
            most.join(", ")
        );
    }
    s.push_str("</tbody></table></section>\n");
    s
}

/// Horizontal bars: the pass rate of each spec.
fn rate_chart(specs: &[summary::SpecSummary]) -> String {
    let shown = &specs[..specs.len().min(MAX_CHART_SPECS)];
    let (label_w, bar_w, row_h) = (230usize, 200usize, 22usize);
    let height = shown.len() * row_h + 10;
    let width = label_w + bar_w + 120;
    let mut s = format!(
        "<figure><figcaption>Pass rate per spec</figcaption><svg class=\"chart\" role=\"img\" \
         xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">"
    );
    for (i, row) in shown.iter().enumerate() {
        let y = 5 + i * row_h;
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let w = ((row.rate() / 100.0) * bar_w as f64).round() as usize;
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
             <rect class=\"track\" x=\"{}\" y=\"{}\" width=\"{bar_w}\" height=\"{}\"/>\
             <rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{}\"/>\
             <text x=\"{}\" y=\"{}\">{:.1}% ({}/{})</text>",
            label_w - 6,
            y + 15,
            text_entities(&call::cut(&row.spec, 34)),
            label_w,
            y + 2,
            row_h - 6,
            if row.passed == row.total {
                "barok"
            } else {
                "bar"
            },
            label_w,
            y + 2,
            row_h - 6,
            label_w + bar_w + 6,
            y + 15,
            row.rate(),
            row.passed,
            row.total,
        );
    }
    s.push_str("</svg>");
    if specs.len() > shown.len() {
        let _ = write!(
            s,
            "<p class=\"meta\">… and {} more specs (in the table)</p>",
            specs.len() - shown.len()
        );
    }
    s.push_str("</figure>\n");
    s
}

/// Vertical bars: how many pairs scored in each tenth of [0, 1].
fn histogram(scores: impl Iterator<Item = f64>) -> String {
    let mut bins = [0usize; 10];
    for x in scores {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let i = if x.is_finite() {
            ((x.clamp(0.0, 1.0) * 10.0).floor() as usize).min(9)
        } else {
            0
        };
        bins[i] += 1;
    }
    let max = bins.iter().copied().max().unwrap_or(0).max(1);
    let (bar_w, plot_h, top, left) = (34usize, 90usize, 18usize, 10usize);
    let width = left + bins.len() * (bar_w + 6) + 10;
    let height = top + plot_h + 24;
    let mut s = format!(
        "<figure><figcaption>Scores <small>(pairs per tenth, from its lower bound; 1.0 counts in 0.9)</small></figcaption><svg class=\"chart\" role=\"img\" \
         xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">"
    );
    for (i, &n) in bins.iter().enumerate() {
        let h = n * plot_h / max;
        let x = left + i * (bar_w + 6);
        let _ = write!(
            s,
            "<rect class=\"{}\" x=\"{x}\" y=\"{}\" width=\"{bar_w}\" height=\"{h}\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{n}</text>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"axis\">{:.1}</text>",
            if i == 9 { "barok" } else { "bar" },
            top + plot_h - h,
            x + bar_w / 2,
            top + plot_h - h - 4,
            x + bar_w / 2,
            top + plot_h + 16,
            f64::from(u8::try_from(i).unwrap_or(0)) / 10.0,
        );
    }
    s.push_str("</svg></figure>\n");
    s
}

fn run_findings(head: &Report) -> String {
    let mut s = String::new();
    // Each spec's pass rate, when a spec has a `pass_rate`.
    if !head.rates.is_empty() {
        s.push_str("<section class=\"run\" id=\"rates\"><h2>Pass rates</h2><ul>");
        for r in &head.rates {
            let _ = write!(
                s,
                "<li><b class=\"{}\">{}</b> {}</li>",
                if r.met { "ok" } else { "bad" },
                if r.met { "PASS" } else { "FAIL" },
                esc_text(&r.line())
            );
        }
        s.push_str("</ul></section>\n");
    }
    for (title, class, list) in [
        ("Errors", "bad", &head.errors),
        ("Warnings", "note", &head.warnings),
    ] {
        if list.is_empty() {
            continue;
        }
        let _ = write!(s, "<section class=\"run\"><h2>{title}</h2><ul>");
        for f in list {
            let at = f
                .location
                .as_ref()
                .map(|l| format!("{}:{}:{} ", esc_text(&l.file), l.line, l.column))
                .unwrap_or_default();
            let _ = write!(
                s,
                "<li>{at}<b class=\"{class}\">{}</b> {}</li>",
                esc_text(&f.code),
                esc_text(&f.message)
            );
        }
        s.push_str("</ul></section>\n");
    }
    s
}

/// The filter controls: hidden until the script shows them (the page reads without it).
fn filter_form(results: &Results<'_, HtmlMeta>) -> String {
    let specs: BTreeSet<String> = results
        .metas()
        .map(|m| {
            let d = &m.digest;
            d.spec.clone()
        })
        .collect();
    let formats: BTreeSet<&str> = results.metas().map(|m| m.format.as_str()).collect();
    let options = |all: &str, values: &mut dyn Iterator<Item = String>| {
        let mut s = format!("<option value=\"\">{all}</option>");
        for v in values {
            let _ = write!(s, "<option value=\"{v}\">{v}</option>");
        }
        s
    };
    format!(
        "<form id=\"filter\" hidden><label>spec <select name=\"spec\">{}</select></label> \
         <label>status <select name=\"status\"><option value=\"\">any</option><option \
         value=\"fail\">failing</option><option value=\"pass\">passing</option></select></label> \
         <label>format <select name=\"format\">{}</select></label> \
         <button type=\"button\" id=\"open-failing\">open 100 more failing</button> \
         <button type=\"button\" id=\"close-all\">close all</button> \
         <output id=\"shown\"></output></form>\n",
        // The digest's spec is escaped for text already; the data attribute is the same text.
        options("every spec", &mut specs.iter().map(|s| entities(s))),
        options("every format", &mut formats.iter().map(|f| esc(f))),
    )
}

fn spec_source(file: &str, text: Option<&String>) -> String {
    let body = match text {
        Some(t) => {
            let mut cut = t.len().min(MAX_SOURCE_BYTES);
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            let shown = &t[..cut];
            let mut lines = String::new();
            for (n, l) in esc_lines(shown).lines().enumerate() {
                let _ = writeln!(lines, "<span class=\"ln\">{:>4}</span> {l}", n + 1);
            }
            if cut < t.len() {
                let _ = write!(lines, "… ({} more bytes)", t.len() - cut);
            }
            format!("<pre>{lines}</pre>")
        }
        None => "<p class=\"meta\">(could not be read)</p>".to_owned(),
    };
    format!(
        "<details class=\"source\" id=\"{}\"><summary>{}</summary>{body}</details>\n",
        source_id(file),
        esc_text(file)
    )
}

const STYLE: &str = "
:root{color-scheme:light dark;--fg:#1d2125;--bg:#fff;--mut:#667;--ok:#1a7f37;--bad:#c62828;--miss:#b26a00;--line:#d6d9dd;--code:#f4f5f7;--okbg:#e8f5ec;--badbg:#fdecec}
@media (prefers-color-scheme:dark){:root{--fg:#e4e6e9;--bg:#16181b;--mut:#9aa;--line:#33373c;--code:#212429;--okbg:#15301f;--badbg:#3a1b1b}}
body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;padding:1em 2em;max-width:1400px}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.15em;margin:1.2em 0 .4em}h2 small{font-weight:normal;color:var(--mut)}
.passed,.barok,.ok{color:var(--ok)}.failed,.errors,.bad{color:var(--bad)}.missing{color:var(--miss)}.note{color:var(--mut)}
#counts{display:flex;gap:1.5em;margin:0}#counts div{display:flex;gap:.4em}#counts dt{color:var(--mut)}#counts dd{margin:0;font-weight:600}
table{border-collapse:collapse}th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{font-weight:600;color:var(--mut)}td.num{text-align:right;font-variant-numeric:tabular-nums}
#charts{display:flex;flex-wrap:wrap;gap:2em}figure{margin:0}figcaption{font-weight:600;margin-bottom:.3em}
svg.chart text{font:12px system-ui,sans-serif;fill:currentColor}svg.chart .axis{fill:var(--mut)}
svg .track{fill:var(--code)}svg .bar{fill:var(--bad);opacity:.8}svg .barok{fill:var(--ok);opacity:.8}
details.pair{border:1px solid var(--line);border-left:4px solid var(--ok);margin:4px 0;border-radius:3px;content-visibility:auto;contain-intrinsic-size:auto 32px}
details.pair.fail{border-left-color:var(--bad)}
details.pair>summary{cursor:pointer;padding:4px 8px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.badge{font-weight:700;font-size:.8em;padding:0 4px;border-radius:3px;color:#fff;background:var(--ok)}
.fail .badge{background:var(--bad)}.tr{font-weight:600}.sp,.v,.meta,.ln{color:var(--mut)}
.body{padding:4px 12px 10px}code{background:var(--code);padding:0 3px;border-radius:2px;white-space:pre-wrap;overflow-wrap:anywhere}
table.timeline{width:100%}table.timeline tr.r-bad>td:first-child,table.timeline tr.r-missing>td:first-child{box-shadow:inset 3px 0 var(--bad)}
table.timeline th:nth-child(2){width:34%}table.timeline th:nth-child(5){width:32%}
tr.r-gap td{color:var(--mut);font-style:italic}tr.r-missing td{background:var(--badbg)}
tr.fails>td{border-bottom:none}table.cf{margin:0 0 4px}table.cf td.exp code{background:var(--okbg)}table.cf td.act code{background:var(--badbg)}
code.spec{display:inline-block}.st{font-weight:600}ul.align,ul.findings{margin:.3em 0;padding-left:1.2em}
details.source pre{background:var(--code);padding:8px;overflow:auto}
#filter{margin:.4em 0 .8em;display:flex;gap:1em;align-items:center;flex-wrap:wrap}
";

const SCRIPT: &str = "
(function(){
var f=document.getElementById('filter');if(!f)return;f.hidden=false;
var pairs=document.querySelectorAll('details.pair'),out=document.getElementById('shown');
function apply(){var sp=f.spec.value,st=f.status.value,fm=f.format.value,n=0;
for(var i=0;i<pairs.length;i++){var d=pairs[i].dataset;
var on=(!sp||d.spec===sp)&&(!st||d.status===st)&&(!fm||d.format===fm);
pairs[i].style.display=on?'':'none';if(on)n++;}
out.textContent=n+' of '+pairs.length+' shown';}
f.addEventListener('change',apply);
document.getElementById('open-failing').addEventListener('click',function(){
for(var i=0,n=0;i<pairs.length&&n<100;i++){if(pairs[i].dataset.status==='fail'&&pairs[i].style.display!=='none'&&!pairs[i].open){pairs[i].open=true;n++;}}});
document.getElementById('close-all').addEventListener('click',function(){
for(var i=0;i<pairs.length;i++)pairs[i].open=false;});
apply();
})();
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{ExpectationResult, Summary};

    fn hostile() -> Report {
        let bad =
            "<script>alert(1)</script>\"><img src=x onerror=alert(2)></style>\u{1b}[31mred\u{7}";
        let call = CallRef {
            index: 0,
            name: bad.to_owned(),
            arguments: serde_json::json!({ "q": bad, bad: 1 }),
            location: None,
        };
        let x = ExpectationResult {
            index: 0,
            tool: bad.to_owned(),
            label: Some(bad.to_owned()),
            status: "name_only".to_owned(),
            passed: false,
            calls: vec![call.clone()],
            failures: vec![ConstraintFailure {
                call: 0,
                part: "args".to_owned(),
                path: bad.to_owned(),
                constraint: "equals".to_owned(),
                expected: serde_json::json!(bad),
                actual: Some(serde_json::json!(bad)),
                message: bad.to_owned(),
                location: None,
                declared: false,
            }],
            shares: Vec::new(),
            location: Some(Location {
                file: bad.to_owned(),
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 5,
                span: [0, 4],
            }),
        };
        let r = PairResult {
            spec_file: bad.to_owned(),
            spec: bad.to_owned(),
            transcript: format!("javascript:{bad}"),
            record: Some(3),
            format: bad.to_owned(),
            profile: None,
            score: 0.5,
            threshold: 1.0,
            passed: false,
            failure: Some(bad.to_owned()),
            calls: 3,
            counts: serde_json::Value::Null,
            expectations: vec![x],
            rules: Vec::new(),
            findings: vec![Finding {
                code: "name-only-match".to_owned(),
                severity: super::super::model::Severity::Error,
                message: bad.to_owned(),
                help: None,
                location: None,
                label: None,
                related: None,
                expectation: Some(0),
                call: Some(call),
                unverified: false,
            }],
            profile_details: None,
            pass_rate: None,
            partial: None,
        };
        let mut report = Report {
            version: 2,
            summary: Summary::default(),
            results: vec![r],
            errors: Vec::new(),
            warnings: Vec::new(),
            rates: Vec::new(),
        };
        report.recount();
        report
    }

    /// The page's counts of failing and passing pairs are the run's (the summary the check
    /// counted once), not a count of the sections it was given.
    #[test]
    fn pair_counts_are_the_runs() {
        let mut report = hostile();
        report.summary.checked = 5;
        report.summary.passed = 3;
        report.summary.failed = 2;
        let page = render(&report, &|_: &str| None);
        assert!(
            page.contains("<small>2 failing first, then 3 passing;"),
            "{page}"
        );
    }

    /// Data never becomes markup, a URL or a control character: a transcript carrying
    /// `<script>`, `"><img onerror>`, `</style>` and ANSI escapes renders as text.
    #[test]
    fn data_is_escaped() {
        let spec = "n<script>x</script>\u{1b}[2J\r\nnext line\n".to_owned();
        let sources = move |_: &str| Some(Arc::new(spec.clone()));
        let page = render(&hostile(), &sources);
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(!page.contains("<img"));
        assert_eq!(page.matches("</style>").count(), 1);
        assert_eq!(page.matches("<script>").count(), 1);
        assert!(!page.contains("onerror=alert(2)>"));
        assert!(!page.contains("href=\"javascript"));
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("\\u{1b}[31mred"));
        for c in page.chars() {
            assert!(
                c == '\n' || !text::is_control(c),
                "control {c:?} in the page"
            );
        }
        for href in page.split("href=\"").skip(1) {
            let url = &href[..href.find('"').unwrap()];
            assert!(url.starts_with("#src-") && url[5..].chars().all(|c| c.is_ascii_hexdigit()));
        }
        assert!(page.contains(CSP));
        assert!(
            !page.contains("http://")
                || page.matches("http://").count()
                    == page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
        );
        assert!(!page.contains("https://"));
    }

    /// The timeline shows a failing pair's calls in order with what they are to the spec, the
    /// constraint with expected and actual, and the calls the spec does not name as a range.
    #[test]
    fn timeline_rows() {
        let page = render(&hostile(), &|_: &str| None);
        assert!(page.contains("<tr class=\"r-bad\"><td>1</td>"));
        assert!(page.contains("calls #2–#3: not named by this spec"));
        assert!(page.contains("class=\"exp\""));
        assert!(page.contains("data-status=\"fail\""));
    }

    /// The histogram puts a score of 1 in the last bin and counts every pair.
    #[test]
    fn histogram_bins() {
        let svg = histogram([0.0, 0.05, 0.5, 1.0, 1.0].into_iter());
        let counts: Vec<&str> = svg
            .split("text-anchor=\"middle\">")
            .skip(1)
            .map(|t| &t[..t.find('<').unwrap()])
            .collect();
        assert_eq!(counts, ["2", "0", "0", "0", "0", "1", "0", "0", "0", "2"]);
    }
}
