//! Checking a project: paths and settings → spec × transcript pairs → results.
//!
//! Input: command-line paths and `toolspec.toml` settings. Output: the pairs to check (each
//! compiled spec bound to the transcript files its globs name), then their verdicts. Fails per
//! file, never per run: a spec that does not compile or a transcript that cannot be read becomes
//! a diagnostic and the other pairs are still checked.

pub mod bind;
pub mod discover;
mod findings;
mod locate;
mod options;
pub mod paths;
mod plan;
mod read;
mod result;
pub mod run;
pub mod settings;

/// Codes the check run itself reports (beyond spec, reader and engine codes), with descriptions.
pub const RUN_CODES: &[(&str, &str)] = &[
    (
        "path-not-found",
        "a path given on the command line does not exist",
    ),
    ("unreadable-spec", "a spec file could not be read"),
    (
        "glob-outside-root",
        "a spec's transcript glob reaches outside the project root",
    ),
    (
        "invalid-glob",
        "a spec's transcript glob is not a valid pattern",
    ),
    (
        "invalid-setting",
        "a pattern or value in toolspec.toml is invalid",
    ),
    (
        "unclaimed-transcript",
        "a transcript given on the command line is named by no spec",
    ),
    (
        "using-last-good-spec",
        "watch: a spec stopped compiling; its last good version is used",
    ),
    (
        "no-calls-read",
        "a transcript file was read without error but without a single tool call",
    ),
    (
        "nothing-checked",
        "no spec × transcript pair was checked in the whole run",
    ),
];

/// Codes of transcript read errors and read findings, with descriptions.
pub const READ_CODES: &[(&str, &str)] = &[
    ("io", "a transcript file could not be read"),
    ("empty", "a transcript file is empty"),
    ("invalid-utf8", "a transcript file is not valid UTF-8"),
    ("binary", "a transcript file holds binary data"),
    ("invalid-json", "a transcript file is not valid JSON"),
    (
        "truncated",
        "a transcript file ends in the middle of a JSON value",
    ),
    (
        "wrong-shape",
        "a transcript's JSON does not have the shape of its format",
    ),
    (
        "unknown-format",
        "a transcript file matches no known format",
    ),
    (
        "invalid-arguments",
        "a call's arguments are not valid JSON; they are kept as raw text",
    ),
    (
        "truncated-last-line",
        "the last line of a JSON-lines file is cut off",
    ),
    (
        "unparseable-line",
        "a line of a JSON-lines file is not valid JSON and was skipped",
    ),
    ("orphan-result", "a tool result links to no call"),
];

/// A one-line description of any code that can appear in a report (for SARIF rules).
pub fn describe_code(code: &str) -> Option<String> {
    if let Some(name) = code.strip_prefix("toolspec::") {
        return crate::syntax::Code::ALL
            .iter()
            .find(|c| c.name() == name)
            .map(|c| c.description().to_owned());
    }
    RUN_CODES
        .iter()
        .chain(READ_CODES)
        .find(|(c, _)| *c == code)
        .map(|(_, d)| (*d).to_owned())
}
