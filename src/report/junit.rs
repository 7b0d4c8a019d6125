//! `--format junit`: JUnit XML with a test suite per spec × transcript and a test case per
//! expectation and per `never` rule (passing ones too) plus the verdict, so CI dashboards show
//! pass counts per expectation. A case's class is the spec, its name says what it checks and on
//! which transcript. Run errors (a spec that does not compile, an unreadable transcript) are a
//! suite of errored cases.
//!
//! Each result is rendered as its suite's lines ([`JunitEmitter`]); the document, rendered by
//! `quick_junit` with the run errors' suite and the summed counts, gets the results' suites
//! after its `<testsuites>` line.

use std::io::{self, Write};

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use super::call;
use super::model::{CallRef, ExpectationResult, Finding, Location, PairResult, Report};
use super::stream::{self, Emitter, PairOut, Results};

/// Data as XML text may hold it: XML 1.0 forbids most control characters even as character
/// references, so every piece of data in the document is escaped ([`crate::text::escape`]).
fn e(s: &str) -> String {
    crate::text::escape(s).into_owned()
}

/// Render the report as JUnit XML.
pub fn render(report: &Report) -> String {
    stream::render(JunitEmitter, report)
}

/// The JUnit output format.
#[derive(Debug, Clone, Copy, Default)]
pub struct JunitEmitter;

impl Emitter for JunitEmitter {
    /// The counts the result's suite adds to the document's header: tests, failures, errors,
    /// skipped.
    type Meta = [usize; 4];

    /// The lines of the result's suite as they appear inside the document.
    fn pair(
        &self,
        r: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
        out: &mut PairOut<'_>,
    ) -> io::Result<[usize; 4]> {
        let suite = pair_suite(r, findings);
        let counts = [suite.tests, suite.failures, suite.errors, suite.skipped];
        let mut junit = quick_junit::Report::new("toolspec");
        junit.add_test_suite(suite);
        let doc = to_string(&junit);
        let (start, end) = body(&doc);
        out.text.write_all(&doc.as_bytes()[start..end])?;
        Ok(counts)
    }

    fn document(
        &self,
        head: &Report,
        results: &Results<'_, [usize; 4]>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let mut counts = [0; 4];
        for m in results.metas() {
            for (c, n) in counts.iter_mut().zip(m) {
                *c += n;
            }
        }
        let mut junit = quick_junit::Report::new("toolspec");
        let errors = errors_suite(head);
        let rates = rates_suite(head);
        if let Some(r) = &rates {
            for (c, n) in counts
                .iter_mut()
                .zip([r.tests, r.failures, r.errors, r.skipped])
            {
                *c += n;
            }
        }
        [junit.tests, junit.failures, junit.errors, junit.skipped] = counts;
        if let Some(suite) = errors.clone() {
            junit.add_test_suite(suite);
        }
        if let Some(suite) = rates.clone() {
            junit.add_test_suite(suite);
        }
        let doc = to_string(&junit);
        let (start, end) = body(&doc);
        // Without suites the document may be laid out differently: written as it is.
        if errors.is_none() && rates.is_none() && start == end && counts == [0; 4] {
            return out.write_all(doc.as_bytes());
        }
        out.write_all(&doc.as_bytes()[..start])?;
        results.write_texts(|_| true, out)?;
        out.write_all(&doc.as_bytes()[start..])
    }
}

/// The document; no line of it starts a workflow command ([`crate::text::guard_lines`]: the
/// lines of a description start with data).
fn to_string(junit: &quick_junit::Report) -> String {
    let doc = junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot render JUnit: {e} -->\n"));
    crate::text::guard_lines(&doc).into_owned()
}

/// How wide a call is shown in a failure's text.
const CALL_WIDTH: usize = 160;

/// The test suite of one pair: a case per expectation, a case per `never` rule, then the
/// overall verdict (`score`). Each case is named after what it checks and the transcript (so
/// that test names stay distinct across transcripts in a dashboard), its class is the spec. The
/// findings are taken from `findings` (those of `r` are not looked at): only a failing pair's
/// score case lists them.
fn pair_suite(r: &PairResult, findings: &mut dyn Iterator<Item = Finding>) -> TestSuite {
    let target = match r.record {
        Some(line) => format!("{}:{line}", e(&r.transcript)),
        None => e(&r.transcript),
    };
    let class = if r.is_rules_only() {
        e(&r.spec)
    } else {
        format!("{}::{}", e(&r.spec_file), e(&r.spec))
    };
    let mut suite = TestSuite::new(format!("{class} @ {target}"));
    suite.extra.insert("file".into(), e(&r.transcript).into());
    let note = r.rate_note().map(|n| e(&n));
    let mut add = |name: String, status: TestCaseStatus, at: Option<&Location>| {
        // Under a `pass_rate` a failing case does not fail the run: it passed, with the failure
        // kept as a flaky run (`<flakyFailure>`); the spec's `pass_rate` case decides.
        let status = match &note {
            Some(note) => within_rate(status, note),
            None => status,
        };
        let mut case = TestCase::new(format!("{name} @ {target}"), status);
        case.set_classname(class.clone());
        if let Some(loc) = at {
            case.extra.insert("file".into(), e(&loc.file).into());
            case.extra
                .insert("line".into(), loc.line.to_string().into());
        }
        suite.add_test_case(case);
    };
    for x in &r.expectations {
        let name = match &x.label {
            Some(label) => format!("#{} {} ({})", x.index + 1, e(&x.tool), e(label)),
            None => format!("#{} {}", x.index + 1, e(&x.tool)),
        };
        add(name, expectation_status(x), x.location.as_ref());
    }
    for rule in &r.rules {
        let status = if rule.passed {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let n = rule.calls.len();
            s.set_message(format!(
                "{} forbidden call{} to {}",
                n,
                if n == 1 { "" } else { "s" },
                e(&rule.tool)
            ));
            s.set_type("forbidden_call");
            s.set_description(
                rule.calls
                    .iter()
                    .map(call_line)
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
            s
        };
        add(
            format!("never {}", e(&rule.tool)),
            status,
            rule.location.as_ref(),
        );
    }
    // The overall verdict, so a pair failing on score alone (extras, forbidden calls) shows.
    let status = if r.passed {
        TestCaseStatus::success()
    } else {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_message(if r.is_rules_only() {
            e(&r.verdict_text())
        } else {
            format!("score {}", e(&r.verdict_text()))
        });
        let lines: Vec<String> = findings.map(|f| finding_line(&f)).collect();
        if !lines.is_empty() {
            s.set_description(lines.join("\n"));
        }
        s
    };
    let last = if r.is_rules_only() { "rules" } else { "score" };
    add(last.to_owned(), status, None);
    suite
}

/// A case of a spec with a `pass_rate`: a failure becomes a success with the failure as a flaky
/// run, its message prefixed with what it counts toward (`note`).
fn within_rate(status: TestCaseStatus, note: &str) -> TestCaseStatus {
    let TestCaseStatus::NonSuccess {
        kind,
        message,
        ty,
        description,
        ..
    } = status
    else {
        return status;
    };
    let mut run = quick_junit::TestRerun::new(kind);
    run.set_message(match message {
        Some(m) => format!("{}; {note}", m.as_str()),
        None => note.to_owned(),
    });
    if let Some(ty) = ty {
        run.set_type(ty);
    }
    if let Some(d) = description {
        run.set_description(d);
    }
    let mut ok = TestCaseStatus::success();
    ok.add_rerun(run);
    ok
}

/// The test suite of the specs' pass rates, a case per spec with a `pass_rate`: passed when
/// its rate is met, failed otherwise, the rate in its message.
fn rates_suite(report: &Report) -> Option<TestSuite> {
    if report.rates.is_empty() {
        return None;
    }
    let mut suite = TestSuite::new("toolspec pass rates");
    for r in &report.rates {
        let status = if r.met {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(e(&r.verdict_text()));
            s.set_type("pass_rate");
            s
        };
        let mut case = TestCase::new(format!("pass_rate >= {}", r.required), status);
        case.set_classname(format!("{}::{}", e(&r.spec_file), e(&r.spec)));
        if let Some(loc) = &r.location {
            case.extra.insert("file".into(), e(&loc.file).into());
            case.extra
                .insert("line".into(), loc.line.to_string().into());
        }
        case.system_out = Some(e(&r.verdict_text()).into());
        suite.add_test_case(case);
    }
    Some(suite)
}

/// An expectation's case: passed, or failed with what failed it: its status, then each call it
/// matched (name and arguments) with the constraints that call fails, one a line.
fn expectation_status(x: &ExpectationResult) -> TestCaseStatus {
    if x.passed {
        return TestCaseStatus::success();
    }
    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
    let status = x.status.replace('_', " ");
    s.set_message(match x.failures.first() {
        Some(f) => format!("{}: {status}: {}", e(&x.tool), e(&f.message)),
        None => format!("{}: {status}", e(&x.tool)),
    });
    s.set_type(e(&x.status));
    let mut lines = Vec::new();
    for c in &x.calls {
        lines.push(call_line(c));
        for f in x.failures.iter().filter(|f| f.call == c.index) {
            lines.push(format!("  {}", e(&f.message)));
        }
        // Under `score per_argument`: how much of the call holds.
        for sh in x.shares.iter().filter(|sh| sh.call == c.index) {
            lines.push(format!("  {} (credit {:.2})", e(&sh.summary), sh.credit));
        }
    }
    if !lines.is_empty() {
        s.set_description(lines.join("\n"));
    }
    s
}

/// `call #3 issue_refund(order_id: "ORD-1001", amount_cents: 14999)`.
fn call_line(c: &CallRef) -> String {
    format!(
        "call #{} {}",
        c.index + 1,
        call::show(&c.name, &c.arguments, &[], CALL_WIDTH)
    )
}

/// The suite of the run's errors, if there are any.
fn errors_suite(report: &Report) -> Option<TestSuite> {
    if report.errors.is_empty() {
        return None;
    }
    let mut suite = TestSuite::new("toolspec run errors");
    for f in &report.errors {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
        s.set_message(e(&f.message));
        s.set_type(e(&f.code));
        let mut case = TestCase::new(finding_line(f), s);
        case.set_classname(e(&f.code));
        suite.add_test_case(case);
    }
    Some(suite)
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

fn finding_line(f: &Finding) -> String {
    match &f.location {
        Some(l) => format!(
            "{}:{}:{}: {} [{}]",
            e(&l.file),
            l.line,
            l.column,
            e(&f.message),
            e(&f.code)
        ),
        None => format!("{} [{}]", e(&f.message), e(&f.code)),
    }
}
