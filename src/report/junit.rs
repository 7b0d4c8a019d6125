//! `--format junit`: JUnit XML with a test suite per spec × transcript and a test case per
//! expectation (passing ones too), so CI dashboards show pass counts per expectation. Run errors
//! (a spec that does not compile, an unreadable transcript) are a suite of errored cases.

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use super::model::{Finding, Report};

/// Render the report as JUnit XML.
pub fn render(report: &Report) -> String {
    let mut junit = quick_junit::Report::new("toolspec");
    for r in &report.results {
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
            let lines: Vec<String> = r.findings.iter().map(finding_line).collect();
            if !lines.is_empty() {
                s.set_description(lines.join("\n"));
            }
            s
        };
        let mut case = TestCase::new("score", status);
        case.set_classname(format!("{}::{}", r.spec_file, r.spec));
        suite.add_test_case(case);
        junit.add_test_suite(suite);
    }
    if !report.errors.is_empty() {
        let mut suite = TestSuite::new("toolspec run errors");
        for f in &report.errors {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_message(f.message.clone());
            s.set_type(f.code.clone());
            let mut case = TestCase::new(finding_line(f), s);
            case.set_classname(f.code.clone());
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot render JUnit: {e} -->\n"))
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
