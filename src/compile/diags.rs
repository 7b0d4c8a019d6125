//! The diagnostics of one compilation, at most [`MAX_DIAGNOSTICS_PER_FILE`] kept per file; the
//! rest are counted, and reported as one `too-many-diagnostics` diagnostic per file.

use std::collections::HashMap;

use crate::syntax::{Code, SpecDiagnostic};

/// Most diagnostics kept (and shown) for one file; the others are counted.
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 100;

/// The diagnostics of a compilation, capped per file.
#[derive(Default)]
pub(crate) struct Diags {
    kept: Vec<SpecDiagnostic>,
    /// Per file name: how many were kept, and the first one left out with counts of those
    /// left out (all, errors).
    files: HashMap<String, File>,
    pushed: usize,
}

#[derive(Default)]
struct File {
    kept: usize,
    first_left_out: Option<SpecDiagnostic>,
    left_out: usize,
    errors_left_out: usize,
}

impl Diags {
    /// Record `d`: kept if its file has fewer than the maximum, counted otherwise.
    pub(crate) fn push(&mut self, d: SpecDiagnostic) {
        self.pushed += 1;
        let file = match self.files.get_mut(&d.source_name) {
            Some(f) => f,
            None => self.files.entry(d.source_name.clone()).or_default(),
        };
        if file.kept < MAX_DIAGNOSTICS_PER_FILE {
            file.kept += 1;
            self.kept.push(d);
            return;
        }
        file.left_out += 1;
        file.errors_left_out += usize::from(d.is_error());
        if file.first_left_out.is_none() {
            file.first_left_out = Some(d);
        }
    }

    /// Whether `file` has as many kept as it may: anything pushed for it now is only counted
    /// (so a costly hint need not be computed).
    pub(crate) fn full(&self, file: &str) -> bool {
        self.files
            .get(file)
            .is_some_and(|f| f.kept >= MAX_DIAGNOSTICS_PER_FILE)
    }

    /// How many were pushed, kept or not (to tell whether a check added any).
    pub(crate) fn len(&self) -> usize {
        self.pushed
    }

    /// Whether any error was pushed, kept or not.
    pub(crate) fn has_errors(&self) -> bool {
        self.kept.iter().any(SpecDiagnostic::is_error)
            || self.files.values().any(|f| f.errors_left_out > 0)
    }

    /// The kept diagnostics in the order pushed, then one per file that had more.
    pub(crate) fn finish(self) -> Vec<SpecDiagnostic> {
        let mut out = self.kept;
        let mut rest: Vec<File> = self
            .files
            .into_values()
            .filter(|f| f.left_out > 0)
            .collect();
        rest.sort_by(|a, b| {
            let name = |f: &File| f.first_left_out.as_ref().map(|d| d.source_name.clone());
            name(a).cmp(&name(b))
        });
        for f in rest {
            let Some(first) = f.first_left_out else {
                continue;
            };
            out.push(first.left_out(f.left_out, f.errors_left_out));
        }
        out
    }
}

impl Extend<SpecDiagnostic> for Diags {
    fn extend<I: IntoIterator<Item = SpecDiagnostic>>(&mut self, iter: I) {
        for d in iter {
            self.push(d);
        }
    }
}

impl SpecDiagnostic {
    /// The diagnostic standing for `n` left out (`errors` of them errors), this one the first:
    /// an error if any of them is, pointing where this one does.
    fn left_out(self, n: usize, errors: usize) -> SpecDiagnostic {
        let plural = |k: usize, one: &str, many: &str| {
            if k == 1 {
                format!("{k} {one}")
            } else {
                format!("{k} {many}")
            }
        };
        let mut d = self.derived(
            Code::TooManyDiagnostics,
            format!(
                "and {} in this file ({}), not shown",
                plural(n, "more diagnostic", "more diagnostics"),
                plural(errors, "error", "errors"),
            ),
        );
        if errors == 0 {
            d.severity = miette::Severity::Warning;
        }
        d.help(format!(
            "the first {MAX_DIAGNOSTICS_PER_FILE} diagnostics of a file are shown; fix those and compile again"
        ))
    }
}
