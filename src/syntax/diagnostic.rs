//! The diagnostic type shared by the parser and the compiler.

use std::sync::Arc;

use miette::{LabeledSpan, NamedSource, Severity};

use crate::code::Code;
use crate::source::{lines_fit, Excerpt, SourceFile, Span};

/// A problem in a `.toolspec` file: stable code, message, labelled spans, help, severity, and the
/// source it points into (so that miette renders it on its own; shared by every diagnostic of
/// the file, see [`SourceFile::shared_source`]).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct SpecDiagnostic {
    /// The stable code.
    pub code: Code,
    /// The one-line message.
    pub message: String,
    /// Error or warning.
    pub severity: Severity,
    /// Spans with their labels; the first is the primary one.
    pub labels: Vec<(Span, String)>,
    /// What to do about it.
    pub help: Option<String>,
    /// The file the spans point into.
    pub source_name: String,
    src: Arc<NamedSource<String>>,
}

impl SpecDiagnostic {
    /// An error with `code` and `message`, pointing into `source`.
    pub fn error(code: Code, source: &SourceFile, message: impl Into<String>) -> Self {
        SpecDiagnostic {
            code,
            message: message.into(),
            severity: Severity::Error,
            labels: Vec::new(),
            help: None,
            source_name: source.name.clone(),
            src: source.shared_source(),
        }
    }

    /// A warning with `code` and `message`, pointing into `source`.
    pub fn warning(code: Code, source: &SourceFile, message: impl Into<String>) -> Self {
        SpecDiagnostic {
            severity: Severity::Warning,
            ..SpecDiagnostic::error(code, source, message)
        }
    }

    /// Add a labelled span (the first added is the primary one).
    pub fn label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push((span, text.into()));
        self
    }

    /// Set the help text.
    pub fn help(mut self, text: impl Into<String>) -> Self {
        self.help = Some(text.into());
        self
    }

    /// An error with `code` and `message` pointing into the same file as this one, at this
    /// one's primary span.
    pub(crate) fn derived(&self, code: Code, message: String) -> SpecDiagnostic {
        SpecDiagnostic {
            code,
            message,
            severity: Severity::Error,
            labels: self
                .labels
                .first()
                .map(|(s, _)| vec![(*s, "the first not shown".to_owned())])
                .unwrap_or_default(),
            help: None,
            source_name: self.source_name.clone(),
            src: self.src.clone(),
        }
    }

    /// Whether this is an error (as opposed to a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The primary span.
    pub fn span(&self) -> Option<Span> {
        self.labels.first().map(|(s, _)| *s)
    }

    /// The text of the file the spans point into.
    pub fn source_text(&self) -> &str {
        self.src.inner()
    }
}

impl miette::Diagnostic for SpecDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(self.code.id()))
    }

    fn severity(&self) -> Option<Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&*self.src)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().enumerate().map(
            |(i, (span, text))| {
                let label = (!text.is_empty()).then(|| text.clone());
                if i == 0 {
                    LabeledSpan::new_primary_with_span(label, *span)
                } else {
                    LabeledSpan::new_with_span(label, *span)
                }
            },
        )))
    }
}

/// A [`SpecDiagnostic`] as a renderer may be given it: whole, or, where a line it would show is
/// too long to show whole ([`lines_fit`]), with its source cut to an [`Excerpt`] around the
/// primary span, as `toolspec check` shows findings (labels outside the excerpt are left out).
/// `toolspec compile` and `toolspec fmt` render this, never the diagnostic itself.
#[derive(Debug)]
pub struct Renderable<'d> {
    diag: &'d SpecDiagnostic,
    cut: Option<(Excerpt, Vec<LabeledSpan>)>,
}

impl SpecDiagnostic {
    /// This diagnostic, ready for a miette renderer (see [`Renderable`]).
    pub fn renderable(&self) -> Renderable<'_> {
        let text = self.source_text();
        if self
            .labels
            .iter()
            .all(|(s, _)| lines_fit(text, s.start, s.end))
        {
            return Renderable {
                diag: self,
                cut: None,
            };
        }
        let primary = self.span().unwrap_or_default();
        let start = primary.start.min(text.len());
        let line = 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..start]).count();
        let (excerpt, span) = Excerpt::new(&self.source_name, text, line, start, primary.end);
        let labels = self
            .labels
            .iter()
            .enumerate()
            .filter_map(|(i, (s, label))| {
                let label = (!label.is_empty()).then(|| label.clone());
                if i == 0 {
                    Some(LabeledSpan::new_primary_with_span(label, span))
                } else {
                    excerpt
                        .map(s.start, s.end)
                        .map(|s| LabeledSpan::new_with_span(label, s))
                }
            })
            .collect();
        Renderable {
            diag: self,
            cut: Some((excerpt, labels)),
        }
    }
}

impl std::fmt::Display for Renderable<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.diag.fmt(f)
    }
}

impl std::error::Error for Renderable<'_> {}

impl miette::Diagnostic for Renderable<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.diag.code()
    }

    fn severity(&self) -> Option<Severity> {
        Some(self.diag.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        miette::Diagnostic::help(self.diag)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match &self.cut {
            Some((excerpt, _)) => Some(excerpt),
            None => self.diag.source_code(),
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        match &self.cut {
            Some((_, labels)) => Some(Box::new(labels.iter().cloned())),
            None => self.diag.labels(),
        }
    }
}
