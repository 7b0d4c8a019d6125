//! The diagnostics of one compilation, at most [`MAX_DIAGNOSTICS_PER_FILE`] kept per file and
//! [`MAX_DIAGNOSTICS`] in all (a file and up to 4 096 included files); the rest are counted, and
//! reported as one `too-many-diagnostics` diagnostic per file.

use std::collections::HashMap;

use crate::code::Code;
use crate::syntax::SpecDiagnostic;

/// Most diagnostics kept (and shown) for one file; the others are counted.
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 100;
/// Most diagnostics kept (and shown) for one compilation, all files together; the others are
/// counted, per file.
pub const MAX_DIAGNOSTICS: usize = 1000;

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
        if file.kept < MAX_DIAGNOSTICS_PER_FILE && self.kept.len() < MAX_DIAGNOSTICS {
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
        self.kept.len() >= MAX_DIAGNOSTICS
            || self
                .files
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
            "the first {MAX_DIAGNOSTICS_PER_FILE} diagnostics of a file are shown ({MAX_DIAGNOSTICS} of a file and its includes); fix those and compile again"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{SourceFile, Span};

    fn diag(file: &SourceFile, at: usize, error: bool) -> SpecDiagnostic {
        let d = if error {
            SpecDiagnostic::error(Code::UnknownKeyword, file, "e")
        } else {
            SpecDiagnostic::warning(Code::UnknownArgument, file, "w")
        };
        d.label(Span::new(at, at + 1), "here")
    }

    #[test]
    fn each_file_keeps_its_first_hundred_and_counts_the_rest() {
        let a = SourceFile::new("a", "x".repeat(1000));
        let b = SourceFile::new("b", "y".repeat(1000));
        let mut d = Diags::default();
        for i in 0..150 {
            d.push(diag(&a, i, false));
        }
        for i in 0..50 {
            d.push(diag(&b, i, i == 49));
        }
        d.push(diag(&b, 60, true));
        assert!(d.full("a") && !d.full("b"));
        assert_eq!(d.len(), 201);
        assert!(d.has_errors());
        let out = d.finish();
        assert_eq!(out.len(), 100 + 51 + 1);
        let last = out.last().unwrap();
        assert_eq!(
            (last.code, last.is_error(), last.source_name.as_str()),
            (Code::TooManyDiagnostics, false, "a")
        );
        assert_eq!(
            last.message,
            "and 50 more diagnostics in this file (0 errors), not shown"
        );
        assert_eq!(last.span(), Some(Span::new(100, 101)));
    }

    #[test]
    fn a_compilation_keeps_a_thousand_in_all() {
        let files: Vec<SourceFile> = (0..20)
            .map(|i| SourceFile::new(format!("f{i}"), "z".repeat(100)))
            .collect();
        let mut d = Diags::default();
        for f in &files {
            for i in 0..60 {
                d.push(diag(f, i, true));
            }
        }
        let out = d.finish();
        let kept = out
            .iter()
            .filter(|d| d.code != Code::TooManyDiagnostics)
            .count();
        assert_eq!(kept, MAX_DIAGNOSTICS);
        // Files 0-15 kept 60 each (960), file 16 kept 40 and counts 20, 17-19 count 60 each.
        let counts: Vec<&str> = out[kept..].iter().map(|d| d.message.as_str()).collect();
        assert_eq!(counts.len(), 4);
        assert_eq!(
            counts[0],
            "and 20 more diagnostics in this file (20 errors), not shown"
        );
        assert!(out[kept..].iter().all(SpecDiagnostic::is_error));
    }
}
