//! Diagnostics: a spec buffer compiled as `toolspec check` compiles a spec file
//! ([`crate::check::run::diagnose`]), its settings' errors too, as the protocol's diagnostics.

use std::path::{Path, PathBuf};

use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Range,
    Uri,
};

use super::text::{path_uri, Encoding, Lines};
use crate::check::paths::normalize;
use crate::check::run::Diagnosed;
use crate::check::settings::SettingsError;
use crate::compile::SpecDiagnostic;
use crate::report::model::{Finding, Severity};
use crate::source::Span;
use crate::syntax::ast::Item;

/// What the server calls itself in every diagnostic.
pub(crate) const SOURCE: &str = "toolspec";

/// The open document a compilation is about.
pub(crate) struct Target<'a> {
    /// Its file (absolute, normalised).
    pub(crate) path: &'a Path,
    /// How reports name it (relative to the working folder).
    pub(crate) shown: &'a str,
    /// The text compiled.
    pub(crate) text: &'a str,
    /// Its line index.
    pub(crate) lines: &'a Lines,
    /// The folder names are relative to.
    pub(crate) cwd: &'a Path,
}

/// `text` as the editor shows it: control characters escaped, line breaks kept.
pub(crate) fn clean(text: &str) -> String {
    crate::text::escape_keeping_lines(text).into_owned()
}

/// The diagnostics of `target` from its compilation.
pub(crate) fn of_compilation(
    target: &Target<'_>,
    diagnosed: &Diagnosed,
    enc: Encoding,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let includes = include_spans(target);
    for d in &diagnosed.diagnostics {
        out.push(of_spec_diagnostic(target, d, &includes, enc));
    }
    for f in &diagnosed.findings {
        out.push(of_finding(target, f, enc));
    }
    out
}

/// The `include` statements of the target (their resolved files and spans), where
/// diagnostics about included files are shown.
fn include_spans(target: &Target<'_>) -> Vec<(PathBuf, Span)> {
    let source = crate::source::SourceFile::new(target.shown, target.text);
    let Ok(file) = crate::syntax::parse(&source) else {
        return Vec::new();
    };
    let folder = target.path.parent().unwrap_or(Path::new("/"));
    file.items
        .iter()
        .filter_map(|i| match i {
            Item::Include(inc) => Some((normalize(&folder.join(&inc.path.value)), inc.span)),
            _ => None,
        })
        .collect()
}

fn severity(error: bool) -> DiagnosticSeverity {
    if error {
        DiagnosticSeverity::ERROR
    } else {
        DiagnosticSeverity::WARNING
    }
}

/// The location of `span` in the file `name` (relative to `cwd`) whose text is `text`.
fn location(cwd: &Path, name: &str, text: &str, span: Span, enc: Encoding) -> Option<Location> {
    let uri = path_uri(&normalize(&cwd.join(name)))?;
    let range = Lines::new(text).range(text, span, enc);
    Some(Location::new(uri, range))
}

/// A compiler diagnostic: at its primary span when it is in the target, else at the
/// `include` that brings its file in (its own place then a related location); its other
/// labels are related locations; the label of its primary span (a did-you-mean) and its help
/// follow the message.
fn of_spec_diagnostic(
    target: &Target<'_>,
    d: &SpecDiagnostic,
    includes: &[(PathBuf, Span)],
    enc: Encoding,
) -> Diagnostic {
    let file = normalize(&target.cwd.join(&d.source_name));
    let here = file == target.path;
    let primary = d.span().unwrap_or_default();
    let mut message = String::new();
    if !here {
        message.push_str(&format!("in {}: ", d.source_name));
    }
    message.push_str(&d.message);
    if let Some((_, label)) = d.labels.first().filter(|(_, l)| !l.is_empty()) {
        message.push_str(&format!(" ({label})"));
    }
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let range = if here {
        target.lines.range(target.text, primary, enc)
    } else {
        let at = includes
            .iter()
            .find(|(p, _)| *p == file)
            .or(includes.first())
            .map_or(Span::point(0), |(_, s)| *s);
        target.lines.range(target.text, at, enc)
    };
    let text = d.source_text();
    let mut related = Vec::new();
    let labels = d.labels.iter().enumerate();
    for (i, (span, label)) in labels {
        if i == 0 && here {
            continue;
        }
        let Some(loc) = location(target.cwd, &d.source_name, text, *span, enc) else {
            continue;
        };
        let what = if label.is_empty() {
            "here".to_owned()
        } else {
            label.clone()
        };
        related.push(DiagnosticRelatedInformation {
            location: loc,
            message: clean(&what),
        });
    }
    Diagnostic {
        range,
        severity: Some(severity(d.is_error())),
        code: Some(NumberOrString::String(d.code.id().to_owned())),
        source: Some(SOURCE.to_owned()),
        message: clean(&message),
        related_information: (!related.is_empty()).then_some(related),
        ..Diagnostic::default()
    }
}

/// A finding of the check about the file: at its span when it has one in the target, else at
/// the file's start.
fn of_finding(target: &Target<'_>, f: &Finding, enc: Encoding) -> Diagnostic {
    let range = match &f.location {
        Some(loc) if loc.file == target.shown => {
            target
                .lines
                .range(target.text, Span::new(loc.span[0], loc.span[1]), enc)
        }
        _ => Range::default(),
    };
    let mut message = f.message.clone();
    if let Some(label) = f.label.as_ref().filter(|l| !l.is_empty()) {
        message.push_str(&format!(" ({label})"));
    }
    if let Some(help) = &f.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    Diagnostic {
        range,
        severity: Some(match f.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(f.code.clone())),
        source: Some(SOURCE.to_owned()),
        message: clean(&message),
        ..Diagnostic::default()
    }
}

/// The settings file's error: on the settings file itself (at its place when it has one), and
/// once at the start of the spec, which is compiled with default settings meanwhile.
pub(crate) fn of_settings(
    start: &Path,
    e: &SettingsError,
    enc: Encoding,
) -> (Diagnostic, Option<(Uri, Diagnostic)>) {
    let code = crate::code::Code::InvalidSetting.id();
    let (file, message, at) = match e {
        SettingsError::Io { path, cause } => {
            (path.clone(), format!("cannot read it: {cause}"), None)
        }
        SettingsError::Invalid { path, message } => (path.clone(), message.clone(), None),
        SettingsError::Located {
            path,
            message,
            src,
            span,
            ..
        } => (
            path.clone(),
            message.clone(),
            Some((
                src.inner().clone(),
                Span::new(span.offset(), span.offset() + span.len()),
            )),
        ),
    };
    let in_spec = Diagnostic {
        range: Range::default(),
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String(code.to_owned())),
        source: Some(SOURCE.to_owned()),
        message: clean(&format!(
            "{file}: invalid settings: {message}\nhelp: this spec is compiled with default settings until the file is fixed"
        )),
        ..Diagnostic::default()
    };
    let path = normalize(&start.join(&file));
    let on_file = path_uri(&path).map(|uri| {
        let range = at.map_or_else(Range::default, |(text, span)| {
            Lines::new(&text).range(&text, span, enc)
        });
        (
            uri,
            Diagnostic {
                range,
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String(code.to_owned())),
                source: Some(SOURCE.to_owned()),
                message: clean(&message),
                ..Diagnostic::default()
            },
        )
    });
    (in_spec, on_file)
}
