//! `--format github`: GitHub Actions workflow commands (`::error file=…,line=…::message`), one
//! per finding, then a plain summary line (GitHub shows only the first few annotations).

use std::io::{self, Write};

use super::model::{Finding, PairResult, Report, Severity, Summary};
use super::stream::{self, Emitter, PairOut, Results};

/// Render the report as workflow commands.
pub fn render(report: &Report) -> String {
    stream::render(GithubEmitter::default(), report)
}

/// The GitHub Actions output format.
#[derive(Debug, Clone, Copy, Default)]
pub struct GithubEmitter {
    /// Annotate the notes of passing pairs too (`--show-notes`; [`PairResult::annotates`]).
    pub show_notes: bool,
}

impl Emitter for GithubEmitter {
    type Meta = ();

    /// The annotations of the result's findings ([`PairResult::annotates`]: of a passing pair,
    /// not its notes unless asked for).
    fn pair(
        &self,
        r: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
        out: &mut PairOut<'_>,
    ) -> io::Result<()> {
        // A failing result of a spec with a `pass_rate`: its warnings say what they count
        // toward.
        let note = r.rate_note().filter(|_| !r.passed);
        for mut f in findings.filter(|f| r.annotates(f, self.show_notes)) {
            if let Some(note) = note.as_ref().filter(|_| f.severity != Severity::Note) {
                f.message = format!("{} ({note})", f.message);
            }
            out.text.write_all(annotation(&f).as_bytes())?;
            out.text.write_all(b"\n")?;
        }
        Ok(())
    }

    /// The run's errors, then its warnings, then the results' annotations, then the summary.
    fn document(
        &self,
        head: &Report,
        results: &Results<'_, ()>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        document(head, results, out)
    }
}

/// The document around the results' annotations, whatever else an emitter keeps of them.
pub(super) fn document<M>(
    head: &Report,
    results: &Results<'_, M>,
    out: &mut dyn Write,
) -> io::Result<()> {
    for f in head.errors.iter().chain(&head.warnings) {
        out.write_all(annotation(f).as_bytes())?;
        out.write_all(b"\n")?;
    }
    results.write_texts(|_| true, out)?;
    // Each spec's pass rate, at its `pass_rate` line: an error when missed, a notice when met.
    for r in &head.rates {
        out.write_all(annotation(&r.finding()).as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.write_all(summary_line(&head.summary).as_bytes())
}

/// The last line: counts of the run.
fn summary_line(s: &Summary) -> String {
    let rates = if s.rates > 0 {
        format!(
            ", {} within pass_rate; pass_rate met by {} of {}",
            s.failed_within_rate,
            s.rates - s.rates_missed,
            s.rates
        )
    } else {
        String::new()
    };
    let warnings = match (s.warnings, s.unverified) {
        (0, _) => String::new(),
        (w, 0) => format!(", {w} warning{}", plural(w)),
        (w, u) => format!(", {w} warning{} ({u} unverified)", plural(w)),
    };
    format!(
        "toolspec: {} checked, {} passed, {} failed{rates}, {} error{}{warnings}\n",
        s.checked,
        s.passed,
        s.failed,
        s.errors,
        plural(s.errors)
    )
}

/// The plural ending of a count.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// One workflow command. Every piece of data in it is escaped first ([`crate::text::escape`]:
/// no line break, ESC or bidi control from the data), then the whole message and each property
/// as the Actions toolkit does, so a finding is exactly one line and its properties cannot end
/// early.
fn annotation(f: &Finding) -> String {
    use crate::text::escape;
    let level = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let mut props = Vec::new();
    if let Some(l) = &f.location {
        props.push(format!("file={}", escape_property(&escape(&l.file))));
        props.push(format!("line={}", l.line));
        props.push(format!("col={}", l.column));
        props.push(format!("endLine={}", l.end_line));
        props.push(format!("endColumn={}", l.end_column));
    }
    props.push(format!("title={}", escape_property(&escape(&f.code))));
    let mut message = escape(&f.message).into_owned();
    // The label says what the location shows (a did-you-mean, ...); the message may say it already.
    if let Some(l) = f.label.as_ref().filter(|l| !f.message.contains(l.as_str())) {
        message.push_str(&format!(": {}", escape(l)));
    }
    if let Some(r) = &f.related {
        let at = match f.related_role().0 {
            "expectation" => "expected at".to_owned(),
            rule => format!("{rule} at"),
        };
        message.push_str(&format!(
            "\n({at} {}:{}:{})",
            escape(&r.file),
            r.line,
            r.column
        ));
    }
    if let Some(h) = &f.help {
        message.push_str(&format!("\nhelp: {}", escape(h)));
    }
    format!("::{level} {}::{}", props.join(","), escape_data(&message))
}

/// Escape a command's message (actions/toolkit `escapeData`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value (actions/toolkit `escapeProperty`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_actions_toolkit_does() {
        assert_eq!(escape_data("50%\na"), "50%25%0Aa");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }

    #[test]
    fn an_annotation_is_one_line_whatever_the_data() {
        let nasty = "x\n::error file=y::pwned\r\u{1b}[2J,a:b%\u{202e}";
        let f = Finding {
            code: "missing-call".into(),
            severity: Severity::Error,
            message: format!("tool `{nasty}`"),
            help: Some(nasty.into()),
            location: Some(crate::report::model::Location {
                file: nasty.into(),
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 2,
                span: [0, 1],
            }),
            label: Some(nasty.into()),
            related: None,
            expectation: None,
            call: None,
            unverified: false,
        };
        let a = annotation(&f);
        assert!(!a.chars().any(crate::text::is_control), "{a}");
        // The runner ends the properties at the first `::` after the command's own.
        let end = a[2..].find("::").unwrap() + 2;
        assert!(a[..end].ends_with(",title=missing-call"), "{a}");
        assert!(a.starts_with("::error file=x\\n%3A%3Aerror file=y%3A%3Apwned\\r\\u{1b}[2J%2Ca%3Ab%25\\u{202e},line=1"), "{a}");
    }
}
