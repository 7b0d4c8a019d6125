//! Reading transcripts for a check: a transcript file and the settings → the transcripts in
//! it, handed over one at a time, with only what the specs bound to it need of each call.
//!
//! How a file is read: a reader a spec, `--input-format` or the settings' `[formats]` name, a
//! custom mapping of the settings, or detection ([`Reading`], [`format_overrides`]). A file up
//! to [`WHOLE_FILE_LIMIT`] is read whole, once, for every format and for placing findings
//! ([`open_transcripts`]); a larger one is streamed ([`stream_transcripts`]). What the specs
//! need of each call ([`crate::engine::keep_for`]) lets the reader drop the rest as it goes.
//!
//! Input: a path (through the root guard) or bytes given, the specs bound to it, the settings.
//! Output: [`Transcript`]s, one at a time. Fails per file: a read error ([`read_error`]) or a
//! file read without a single call ([`no_calls_warning`]) becomes a report finding.

use std::path::Path;

use super::findings::{plain, refused_path};
use super::locate;
use super::options::STDIN_NAME;
use super::settings::LoadedSettings;
use crate::code::Code;
use crate::guard::{Refused, RootGuard};
use crate::report::model::{Finding, Location, Report, Severity};
use crate::transcript::{self, Format, ReadError, Transcript};

/// How the settings say a file is read: a built-in reader, or a custom mapping (by position in
/// [`LoadedSettings::mappings`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Reading {
    /// A built-in reader.
    Reader(Format),
    /// A custom mapping, by position in [`LoadedSettings::mappings`].
    Mapping(usize),
}

impl Reading {
    /// The built-in reader, if it is one.
    pub(super) fn reader(self) -> Option<Format> {
        match self {
            Reading::Reader(f) => Some(f),
            Reading::Mapping(_) => None,
        }
    }
}

/// The settings' readers by glob: custom mappings first (their `files`), then `[formats]`
/// entries naming a reader.
pub(super) fn format_overrides(
    settings: &LoadedSettings,
    root: &Path,
    report: &mut Report,
) -> Vec<(globset::GlobMatcher, Reading)> {
    use super::settings::rooted_glob;
    let mut out = Vec::new();
    for (i, m) in settings.mappings.iter().enumerate() {
        for pattern in &m.files {
            // Checked when the settings were loaded.
            if let Ok(g) = rooted_glob(root, pattern) {
                out.push((g.compile_matcher(), Reading::Mapping(i)));
            }
        }
    }
    for (pattern, entry) in &settings.settings.formats {
        let super::settings::FormatSetting::Reader(name) = entry else {
            continue;
        };
        match (rooted_glob(root, pattern), name.parse::<Format>()) {
            (Ok(g), Ok(f)) => out.push((g.compile_matcher(), Reading::Reader(f))),
            (Err(e), _) => report.errors.push(plain(
                Code::InvalidSetting,
                format!(
                    "format pattern `{pattern}` is not a valid glob: {}",
                    e.kind()
                ),
                None,
            )),
            (_, Err(e)) => report.errors.push(plain(
                Code::InvalidSetting,
                format!("format override for `{pattern}`: {e}"),
                None,
            )),
        }
    }
    out
}

#[allow(clippy::result_large_err)]
/// Read a file with a custom mapping (only files read whole: a mapping queries the document).
pub(super) fn read_with_mapping(
    shown: &str,
    bytes: Option<&[u8]>,
    mapping: &transcript::Mapping,
    emit: impl FnMut(Transcript),
) -> Result<(), ReadError> {
    let Some(bytes) = bytes else {
        return Err(ReadError::WrongShape {
            file: shown.to_owned(),
            line: 1,
            col: 1,
            message: format!(
                "custom mapping `{}`: the file is larger than {} MiB, the most a mapping reads",
                mapping.name,
                WHOLE_FILE_LIMIT >> 20
            ),
            help: "split the file, or convert it to a format toolspec streams (JSON lines of a built-in format)".into(),
            span: (0, 0).into(),
        });
    };
    transcript::Reader::new()
        .mapping(mapping)
        .read_with(shown, bytes, emit)
}

/// Files up to this size are read whole; larger ones are streamed by the reader.
pub(super) const WHOLE_FILE_LIMIT: u64 = 64 << 20;

// Read errors carry a renderable snippet; they are built once per failed file, never in a loop.
#[allow(clippy::result_large_err)]
/// Open a transcript file: its bytes if it is at most [`WHOLE_FILE_LIMIT`] bytes (read once,
/// reused for every format and for placing findings), `None` if it is to be streamed. Errors
/// name the file by its display name (so messages never show absolute paths).
pub(super) fn open_transcripts(
    path: &Path,
    shown: &str,
    guard: &RootGuard,
) -> Result<Option<Vec<u8>>, ReadError> {
    let io = |source| ReadError::Io {
        file: shown.to_owned(),
        source,
    };
    let file = guard.open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len > WHOLE_FILE_LIMIT {
        return Ok(None);
    }
    let mut bytes = Vec::with_capacity(len as usize);
    std::io::Read::read_to_end(&mut &file, &mut bytes).map_err(io)?;
    Ok(Some(bytes))
}

#[allow(clippy::result_large_err)]
/// Stream a transcript file too large to read whole.
pub(super) fn stream_transcripts(
    path: &Path,
    shown: &str,
    format: Option<Format>,
    keep: &transcript::Keep,
    emit: impl FnMut(Transcript),
    guard: &RootGuard,
) -> Result<(), ReadError> {
    let file = guard.open(path).map_err(|source| ReadError::Io {
        file: shown.to_owned(),
        source,
    })?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    transcript::Reader::new()
        .format(format)
        .keep(keep.clone())
        .read_stream(shown, reader, emit)
}

/// The warning for a transcript file read without error but without a single call (`check`,
/// and `calls` on the command line): the format it was read as, how it was chosen, and what to
/// do. `forced`: a spec, the settings or `--input-format` chose the reader.
pub fn no_calls_warning(shown: &str, format: Format, forced: bool) -> Finding {
    let arg = if shown == STDIN_NAME { "-" } else { shown };
    let how = if forced {
        "as the spec, toolspec.toml or --input-format says"
    } else {
        "by detection"
    };
    Finding {
        location: Some(Location {
            file: shown.to_owned(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
            span: [0, 0],
        }),
        ..plain(
            Code::NoCallsRead,
            if format == Format::Custom {
                "read with a custom mapping of toolspec.toml, with 0 tool calls".to_owned()
            } else {
                format!("read as {format} ({how}), with 0 tool calls")
            },
            Some(if format == Format::Custom {
                format!(
                    "the custom mapping of toolspec.toml whose `files` match this file found no \
                     call: check its `calls` and `name` expressions (`toolspec calls {shown}` \
                     shows what it reads); if the run made no tool calls, this is expected"
                )
            } else {
                format!(
                    "if this file is not in the {format} format, read it with another reader: \
                 `--input-format NAME`, a spec's `format NAME` line or a `[formats]` entry of \
                 toolspec.toml (`toolspec calls --input-format NAME {arg}` shows what a reader \
                 finds; the names are in docs/formats.md); if the run made no tool calls, this \
                 is expected"
                )
            }),
        )
    }
}

/// A read error as a report finding, located in the transcript when it can be.
pub(super) fn read_error(e: &ReadError, shown: &str) -> Finding {
    if let ReadError::Io { source, .. } = e {
        if let Some(r) = Refused::of(source) {
            return refused_path(shown, &r.to_string());
        }
    }
    // A located error's text starts with `file:line:col: `; the finding carries that location,
    // so the message would say it twice (reporters print the location themselves).
    let text = e.to_string();
    let message = match e.line_col() {
        Some((line, col)) => text
            .strip_prefix(&format!("{}:{line}:{col}: ", e.file()))
            .map(str::to_owned)
            .unwrap_or(text),
        None => text,
    };
    Finding {
        code: e.code().to_owned(),
        severity: Severity::Error,
        message,
        help: miette::Diagnostic::help(e).map(|h| h.to_string()),
        location: e
            .line_col()
            .map(|(line, column)| locate::pending_line_col(shown, line, column)),
        label: None,
        related: None,
        expectation: None,
        call: None,
        unverified: false,
    }
}
