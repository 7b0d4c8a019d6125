//! `--format github`: GitHub Actions workflow commands (`::error file=…,line=…::message`), one
//! per finding, then a plain summary line (GitHub shows only the first few annotations).

use super::model::{Finding, Report, Severity};

/// Render the report as workflow commands.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let all = report
        .errors
        .iter()
        .chain(&report.warnings)
        .chain(report.results.iter().flat_map(|r| r.findings.iter()));
    for f in all {
        out.push_str(&annotation(f));
        out.push('\n');
    }
    let s = &report.summary;
    out.push_str(&format!(
        "toolspec: {} checked, {} passed, {} failed, {} errors\n",
        s.checked, s.passed, s.failed, s.errors
    ));
    out
}

fn annotation(f: &Finding) -> String {
    let level = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let mut props = Vec::new();
    if let Some(l) = &f.location {
        props.push(format!("file={}", escape_property(&l.file)));
        props.push(format!("line={}", l.line));
        props.push(format!("col={}", l.column));
        props.push(format!("endLine={}", l.end_line));
        props.push(format!("endColumn={}", l.end_column));
    }
    props.push(format!("title={}", escape_property(&f.code)));
    let mut message = f.message.clone();
    // The label says what the location shows (a did-you-mean, ...); the message may say it already.
    if let Some(l) = f.label.as_ref().filter(|l| !f.message.contains(l.as_str())) {
        message.push_str(&format!(": {l}"));
    }
    if let Some(r) = &f.related {
        message.push_str(&format!(
            "\n(expected at {}:{}:{})",
            r.file, r.line, r.column
        ));
    }
    if let Some(h) = &f.help {
        message.push_str(&format!("\nhelp: {h}"));
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
}
