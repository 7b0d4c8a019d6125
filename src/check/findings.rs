//! Findings the check itself reports (beyond the engine's): plain errors and warnings, refused
//! paths, spec diagnostics.
//!
//! Input: a code and words, or a diagnostic. Output: a report [`Finding`]. Cannot fail.

use crate::code::Code;
use crate::compile::SpecDiagnostic;
use crate::report::model::{Finding, Location, Severity};
use crate::source::LineIndex;

/// A finding of the run at no location, with `code`'s severity.
pub(super) fn plain(code: Code, message: String, help: Option<String>) -> Finding {
    Finding {
        code: code.id().to_owned(),
        severity: code.severity(),
        message,
        help,
        location: None,
        label: None,
        related: None,
        expectation: None,
        call: None,
        unverified: false,
    }
}

/// A path the root guard refused (outside the root, not a regular file, too large): never read.
pub(super) fn refused_path(shown: &str, why: &str) -> Finding {
    plain(
        Code::PathRefused,
        format!("{shown}: not read: {why}"),
        Some(
            "toolspec reads only regular files inside the project root; see docs/security.md"
                .into(),
        ),
    )
}

/// A spec diagnostic (compile error or warning) as a report finding, located in its file.
pub(super) fn spec_finding(d: &SpecDiagnostic) -> Finding {
    let index = LineIndex::new(d.source_text().as_bytes());
    Finding {
        code: d.code.id().to_owned(),
        severity: if d.is_error() {
            Severity::Error
        } else {
            Severity::Warning
        },
        message: d.message.clone(),
        help: d.help.clone(),
        location: d
            .span()
            .map(|s| Location::of(&d.source_name, d.source_text().as_bytes(), &index, s)),
        label: d
            .labels
            .first()
            .map(|(_, l)| l.clone())
            .filter(|l| !l.is_empty()),
        related: None,
        expectation: None,
        call: None,
        unverified: false,
    }
}
