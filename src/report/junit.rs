//! `--format junit`: JUnit XML with a test suite per spec × transcript and a test case per
//! expectation (passing ones too), so CI dashboards show pass counts per expectation. Run errors
//! (a spec that does not compile, an unreadable transcript) are a suite of errored cases.
//!
//! [`render`] builds the whole document; [`suite_text`] and [`write_document`] give the same
//! bytes a suite at a time, for the streaming reporter ([`super::stream`]).

use std::io::{self, Write};

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use super::model::{Finding, PairResult, Report};

/// Render the report as JUnit XML.
pub fn render(report: &Report) -> String {
    let mut junit = quick_junit::Report::new("toolspec");
    for r in &report.results {
        junit.add_test_suite(pair_suite(r));
    }
    if let Some(suite) = errors_suite(report) {
        junit.add_test_suite(suite);
    }
    to_string(&junit)
}

fn to_string(junit: &quick_junit::Report) -> String {
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot render JUnit: {e} -->\n"))
}

/// The test suite of one pair: a case per expectation, then the overall verdict.
pub fn pair_suite(r: &PairResult) -> TestSuite {
    pair_suite_streamed(r, &mut r.findings.iter().cloned())
}

/// [`pair_suite`] with the findings taken from `findings` (those of `r` are not looked at): only
/// a failing pair's score case lists them.
pub fn pair_suite_streamed(
    r: &PairResult,
    findings: &mut dyn Iterator<Item = Finding>,
) -> TestSuite {
    let target = match r.record {
        Some(line) => format!("{}:{line}", r.transcript),
        None => r.transcript.clone(),
    };
    let mut suite = TestSuite::new(format!("{}::{} @ {}", r.spec_file, r.spec, target));
    suite
        .extra
        .insert("file".into(), r.transcript.clone().into());
    for e in &r.expectations {
        let status = if e.passed {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(format!("{}: {}", e.tool, e.status));
            s.set_type(e.status.clone());
            if !e.reasons.is_empty() {
                s.set_description(e.reasons.join("\n"));
            }
            s
        };
        let name = match &e.label {
            Some(label) => format!("#{} {} ({label})", e.index + 1, e.tool),
            None => format!("#{} {}", e.index + 1, e.tool),
        };
        let mut case = TestCase::new(name, status);
        case.set_classname(format!("{}::{}", r.spec_file, r.spec));
        if let Some(loc) = &e.location {
            case.extra.insert("file".into(), loc.file.clone().into());
            case.extra
                .insert("line".into(), loc.line.to_string().into());
        }
        suite.add_test_case(case);
    }
    // The overall verdict, so a pair failing on score alone (extras, forbidden calls) shows.
    let status = if r.passed {
        TestCaseStatus::success()
    } else {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_message(format!(
            "score {:.2} < threshold {:.2}",
            r.score, r.threshold
        ));
        let lines: Vec<String> = findings.map(|f| finding_line(&f)).collect();
        if !lines.is_empty() {
            s.set_description(lines.join("\n"));
        }
        s
    };
    let mut case = TestCase::new("score", status);
    case.set_classname(format!("{}::{}", r.spec_file, r.spec));
    suite.add_test_case(case);
    suite
}

/// The suite of the run's errors, if there are any.
pub fn errors_suite(report: &Report) -> Option<TestSuite> {
    if report.errors.is_empty() {
        return None;
    }
    let mut suite = TestSuite::new("toolspec run errors");
    for f in &report.errors {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
        s.set_message(f.message.clone());
        s.set_type(f.code.clone());
        let mut case = TestCase::new(finding_line(f), s);
        case.set_classname(f.code.clone());
        suite.add_test_case(case);
    }
    Some(suite)
}

/// Counts a suite adds to the document's header: tests, failures, errors, skipped.
pub fn suite_counts(suite: &TestSuite) -> [usize; 4] {
    [suite.tests, suite.failures, suite.errors, suite.skipped]
}

/// The lines of `suite` as they appear inside [`render`]'s document.
pub fn suite_text(suite: TestSuite) -> String {
    let mut junit = quick_junit::Report::new("toolspec");
    junit.add_test_suite(suite);
    let doc = to_string(&junit);
    let (start, end) = body(&doc);
    doc[start..end].to_owned()
}

/// Where the suites go in a document: after the `<testsuites>` line, before `</testsuites>`.
fn body(doc: &str) -> (usize, usize) {
    let open = doc
        .find("<testsuites")
        .and_then(|i| doc[i..].find('\n').map(|j| i + j + 1))
        .unwrap_or(doc.len());
    let close = doc
        .rfind("</testsuites>")
        .map(|i| doc[..i].rfind('\n').map_or(i, |j| j + 1))
        .filter(|&c| c >= open)
        .unwrap_or(open);
    (open, close)
}

/// Write the document of `head` (whose `results` are ignored) with the suites of its pairs
/// spliced in: `counts` are the sums of [`suite_counts`] over those suites, `suites` writes the
/// [`suite_text`]s in order. Gives the bytes of [`render`] on the report with those results.
pub fn write_document(
    head: &Report,
    counts: [usize; 4],
    suites: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut junit = quick_junit::Report::new("toolspec");
    let errors = errors_suite(head);
    [junit.tests, junit.failures, junit.errors, junit.skipped] = counts;
    if let Some(suite) = errors.clone() {
        junit.add_test_suite(suite);
    }
    let doc = to_string(&junit);
    let (start, end) = body(&doc);
    // Without suites the document may be laid out differently: render it whole.
    if errors.is_none() && start == end && counts == [0; 4] {
        return out.write_all(doc.as_bytes());
    }
    out.write_all(&doc.as_bytes()[..start])?;
    suites(out)?;
    out.write_all(&doc.as_bytes()[start..])
}

fn finding_line(f: &Finding) -> String {
    match &f.location {
        Some(l) => format!(
            "{}:{}:{}: {} [{}]",
            l.file, l.line, l.column, f.message, f.code
        ),
        None => format!("{} [{}]", f.message, f.code),
    }
}
