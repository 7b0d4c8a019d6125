//! Writing to the terminal: rendered diagnostics, and output that tolerates a closed pipe.

use std::io::Write;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};

/// Render a diagnostic the way every command shows errors, followed by a blank line. Its texts
/// are escaped and its snippet masked ([`toolspec::text`]), whatever file it comes from.
pub fn render(diag: &dyn Diagnostic, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(terminal_width())
        .with_links(false);
    let mut out = toolspec::report::human::render_diagnostic(&handler, diag);
    out.push('\n');
    out
}

/// Width reports are fitted to: `COLUMNS` if set (40 or more), else the width of the terminal
/// stdout is, else 100 (stdout is a pipe or a file).
pub(crate) fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&w: &usize| w >= 40)
        .or_else(|| {
            terminal_size::terminal_size_of(std::io::stdout())
                .map(|(terminal_size::Width(w), _)| usize::from(w))
                .filter(|&w| w >= 40)
        })
        .unwrap_or(100)
}

/// `text` with every control character escaped ([`toolspec::text::escape`]): for data (file
/// names, values, error texts) put into a message of the command line.
pub(crate) fn esc(text: &str) -> std::borrow::Cow<'_, str> {
    toolspec::text::escape(text)
}

/// Print to stdout; a closed pipe (`toolspec calls x | head`) is not an error.
pub(crate) fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Print to stderr.
pub(crate) fn err(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// Exit codes, decided in one place.
pub(crate) mod exit {
    use std::process::ExitCode;

    /// Everything checked passed.
    pub(crate) const OK: u8 = 0;
    /// Some expectation failed, or a spec's `pass_rate` was not met (or a file needs
    /// formatting, for `fmt --check`); `check` decides it by `report::model::exit_status`.
    pub(crate) const FAILED: u8 = 1;
    /// Could not run: usage, spec compile error, unreadable input.
    pub(crate) const ERROR: u8 = 2;

    /// As a process exit code.
    pub(crate) fn code(status: u8) -> ExitCode {
        ExitCode::from(status)
    }
}
