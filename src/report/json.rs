//! `--format json`: the [`Report`] serialized, pretty-printed, field order as declared.

use super::model::Report;

/// Render the report as JSON text (with a trailing newline).
pub fn render(report: &Report) -> String {
    let mut s =
        serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
