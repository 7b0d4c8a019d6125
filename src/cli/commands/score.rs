//! `toolspec score --profile NAME [FILE]`: re-score a dataset the way an existing metric does.

use std::io::Write;

use toolspec::score::profiles::{peer, score_stream_judged, Judge};

use crate::cli::args::ScoreArgs;
use crate::cli::output::{self, exit};

/// Reads cases as JSON lines (the peer's own input format, options in each line) from FILE or
/// stdin and writes one JSON line per case to stdout, in input order. A case the peer would
/// reject becomes `{"id", "error"}` and the run goes on. Exit 0 when every line was read,
/// 2 for a bad profile name or an I/O error. A summary goes to stderr.
pub(crate) fn run(args: ScoreArgs) -> u8 {
    let profile = match peer(&args.profile) {
        Ok(p) => p,
        Err(e) => {
            output::err(&format!("error: {}\n", output::esc(&e.to_string())));
            return exit::ERROR;
        }
    };
    let judge = match crate::cli::judge::from_args(args.judge.as_deref(), args.judge_timeout) {
        Ok(j) => j,
        Err(e) => {
            output::err(&format!("error: {e}\n"));
            return exit::ERROR;
        }
    };
    let judge = judge.as_ref().map(|j| j as &dyn Judge);
    let threads = args.threads.unwrap_or(0);
    // No buffer of our own: `score_stream` writes whole groups of lines, each ending with a
    // newline, which the locked stdout passes straight to the file (one copy fewer).
    let stdout = std::io::stdout();
    let mut out = SafeLines {
        out: stdout.lock(),
        pending: Vec::new(),
    };
    let result = match &args.file {
        Some(path) => match std::fs::File::open(path) {
            Ok(f) => score_stream_judged(profile, judge, f, &mut out, threads),
            Err(e) => {
                output::err(&format!(
                    "error: cannot read {}: {}\n",
                    output::esc(&path.display().to_string()),
                    output::esc(&e.to_string())
                ));
                return exit::ERROR;
            }
        },
        None => score_stream_judged(profile, judge, std::io::stdin().lock(), &mut out, threads),
    };
    let result = result.and_then(|summary| out.finish().map(|()| summary));
    match result {
        Ok(s) => {
            output::err(&format!(
                "{} cases: {} passed, {} failed, {} without a verdict, {} errors\n",
                s.cases, s.passed, s.failed, s.unjudged, s.errors
            ));
            exit::OK
        }
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            output::err(&format!("error: {}\n", output::esc(&e.to_string())));
            exit::ERROR
        }
    }
}

/// Passes the JSON lines through [`toolspec::text::json::escape_text`], a line at a time, so
/// that a case's strings (tool names, reasons) print no control, bidi or `##[` character raw.
/// `score_stream` writes whole lines, so nothing is held back in practice; a partial line is
/// kept until its end arrives (or [`SafeLines::finish`]).
struct SafeLines<W: Write> {
    out: W,
    pending: Vec<u8>,
}

impl<W: Write> SafeLines<W> {
    fn emit(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        // Nothing to escape: the bytes as they are, without reading them as UTF-8 first.
        if !toolspec::text::json::may_escape(bytes) {
            return self.out.write_all(bytes);
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => self
                .out
                .write_all(toolspec::text::json::escape_text(text).as_bytes()),
            // JSON text is UTF-8; anything else is passed on as it is.
            Err(_) => self.out.write_all(bytes),
        }
    }

    fn finish(&mut self) -> std::io::Result<()> {
        let rest = std::mem::take(&mut self.pending);
        self.emit(&rest)?;
        self.out.flush()
    }
}

impl<W: Write> Write for SafeLines<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Some(end) = memchr::memrchr(b'\n', buf) else {
            self.pending.extend_from_slice(buf);
            return Ok(buf.len());
        };
        if self.pending.is_empty() {
            self.emit(&buf[..=end])?;
        } else {
            let mut line = std::mem::take(&mut self.pending);
            line.extend_from_slice(&buf[..=end]);
            self.emit(&line)?;
        }
        self.pending.extend_from_slice(&buf[end + 1..]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
