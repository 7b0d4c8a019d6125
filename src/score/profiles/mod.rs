//! Profiles: each reproduces an existing metric exactly, quirks included (see `docs/parity.md`).
//!
//! Input: one JSON line per case in the input format of that peer's oracle (options travel in
//! the line), or a transcript's calls against a spec's expectations ([`score_calls`]). Output:
//! one JSON line `{"id", "score", "passed", ...the peer's own fields}`. What can fail: a line
//! that is not JSON (`{"id": null, "error": "line N: ..."}`) and a case the peer itself would
//! reject (`{"id", "error"}`); neither stops a stream, and nothing here panics on any input.
//!
//! The hot profiles (DeepEval, Evalite) read each line into a [`tape`]: one flat, reused list
//! of nodes, strings borrowed from the line, no allocation per value; equalities and printers
//! work on it through [`view::Json`], which a parsed [`value::Val`] also implements (the other
//! profiles, and lines the tape leaves to serde_json). [`score_stream`] scores chunks of lines
//! in parallel and writes the results in input order.

mod agentevals;
mod axion;
mod calls;
mod deepeval;
mod evalite;
mod galtea;
pub mod judge;
mod promptfoo;
mod pycase;
mod read;
mod stream;

use std::fmt;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::config::profile::ProfileSpec;
use crate::json::read::{Runtime, Shape};
use crate::json::value::Val;

pub use calls::{
    score_calls, score_calls_judged, score_calls_with_tools, ExpectedCall, ProfileVerdict,
};
pub use judge::{Judge, JudgeAnswer, JudgeError, JudgeRequest};
pub use stream::{score_stream, score_stream_judged, Summary, MAX_CASE_LINE};

/// A peer metric that `toolspec score --profile NAME` reproduces: one module per peer, one row
/// of [`PEERS`] each. Its name and options are its row of the config's profile list
/// ([`ProfileSpec`]); its module reads a case from the line and scores it.
pub(crate) trait Peer {
    /// The peer's name and options.
    const PROFILE: &'static ProfileSpec;
    /// Score one case line (a JSON object) into `out`: one output line, no newline.
    fn score<'a>(
        line: &'a str,
        out: &mut String,
        reader: Reader,
        scratch: &mut Scratch,
        judge: Option<&dyn Judge>,
    ) -> Result<Outcome, LineError<'a>>;
}

/// What one worker keeps from line to line, so that a line's reading and scoring allocate
/// little: the tape's buffers and the peers' working lists. [`score_stream`] gives each of its
/// workers one; a single line gets a fresh one.
#[derive(Default)]
pub(crate) struct Scratch {
    tape: crate::json::tape::Buffers,
    work: Work,
}

/// The part of a [`Scratch`] the tape peers score with.
#[derive(Default)]
pub(crate) struct Work {
    /// Text built before the head of the output line can be written (DeepEval's reason,
    /// Evalite's metadata).
    text: String,
    /// Evalite: the case's calls.
    calls: Vec<evalite::Call>,
    /// Evalite: the index lists of flexible mode.
    lists: evalite::Lists,
    /// DeepEval: the case's tools (empty between cases; see [`deepeval::recycle`]).
    tools: Vec<deepeval::Tool<'static>>,
}

/// How a peer scores a line ([`Peer::score`]).
type ScoreFn = for<'a> fn(
    &'a str,
    &mut String,
    Reader,
    &mut Scratch,
    Option<&dyn Judge>,
) -> Result<Outcome, LineError<'a>>;

/// One row of [`PEERS`]: a peer's name, options and scorer.
pub struct PeerRow {
    profile: &'static ProfileSpec,
    score: ScoreFn,
}

impl PeerRow {
    /// The name as written on the command line and in specs.
    pub fn name(&self) -> &'static str {
        self.profile.name
    }

    /// The options the peer takes, as in specs.
    pub fn options(&self) -> &'static [&'static str] {
        self.profile.options
    }
}

impl fmt::Debug for PeerRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const fn row<P: Peer>() -> PeerRow {
    PeerRow {
        profile: P::PROFILE,
        score: P::score,
    }
}

/// Every peer, in the order of the config's profile list.
pub static PEERS: &[PeerRow] = &[
    row::<axion::Axion>(),
    row::<deepeval::Deepeval>(),
    row::<evalite::Evalite>(),
    row::<agentevals::Agentevals>(),
    row::<galtea::Galtea>(),
    row::<promptfoo::Promptfoo>(),
];

/// The peer named `name`.
pub fn peer(name: &str) -> Result<&'static PeerRow, UnknownPeer> {
    PEERS
        .iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| UnknownPeer(name.to_owned()))
}

/// An unknown profile name; [`PEERS`] lists the known ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPeer(pub String);

impl fmt::Display for UnknownPeer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown profile `{}` (known: ", self.0)?;
        for (i, p) in PEERS.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(p.name())?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownPeer {}

/// How one line came out, for the run's [`Summary`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Scored, passed.
    Passed,
    /// Scored, failed.
    Failed,
    /// Scored without a pass/fail (DeepEval with `threshold: null`).
    Unjudged,
    /// Rejected (the peer would raise) or malformed.
    Error,
}

impl Outcome {
    fn of(passed: Option<bool>) -> Outcome {
        match passed {
            Some(true) => Outcome::Passed,
            Some(false) => Outcome::Failed,
            None => Outcome::Unjudged,
        }
    }
}

/// Score one input line (that peer's oracle input format) and return one output JSON line,
/// without the trailing newline. Never panics; see the module docs for the error lines.
pub fn score_line(peer: &PeerRow, line: &[u8]) -> Vec<u8> {
    score_line_judged(peer, line, None)
}

/// [`score_line`] with a judge for DeepEval's tool-selection part (see [`judge`]).
pub fn score_line_judged(peer: &PeerRow, line: &[u8], judge: Option<&dyn Judge>) -> Vec<u8> {
    let mut out = String::new();
    score_into(peer, line, 1, &mut out, &mut Scratch::default(), judge);
    out.into_bytes()
}

/// [`score_line`] with the line read by serde_json alone, the tape reader bypassed: the
/// reference that tests and the `score_line` fuzz target hold the fast reader to (both must
/// print the same bytes for every line).
#[doc(hidden)]
pub fn score_line_reference(peer: &PeerRow, line: &[u8]) -> Vec<u8> {
    let mut out = String::new();
    score_into_with(
        peer,
        line,
        1,
        &mut out,
        Reader::Serde,
        &mut Scratch::default(),
        None,
    );
    out.into_bytes()
}

/// How the hot profiles read a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    /// The tape reader, with serde_json for what it leaves aside.
    Tape,
    /// serde_json only (the reference).
    Serde,
}

/// Score one line (numbered `lineno` for error messages) into `out`, with the worker's
/// `scratch`.
pub(crate) fn score_into(
    peer: &PeerRow,
    line: &[u8],
    lineno: usize,
    out: &mut String,
    scratch: &mut Scratch,
    judge: Option<&dyn Judge>,
) -> Outcome {
    score_into_with(peer, line, lineno, out, Reader::Tape, scratch, judge)
}

fn score_into_with(
    peer: &PeerRow,
    line: &[u8],
    lineno: usize,
    out: &mut String,
    reader: Reader,
    scratch: &mut Scratch,
    judge: Option<&dyn Judge>,
) -> Outcome {
    // `out` may already hold earlier lines: an error replaces only what this line wrote.
    let mark = out.len();
    let text = match crate::source::utf8(line).ok_or_else(|| std::str::from_utf8(line)) {
        Ok(t) => t.trim_end_matches(['\r', '\n']),
        Err(Err(e)) => {
            write_error(out, None, &format!("line {lineno}: invalid UTF-8: {e}"));
            return Outcome::Error;
        }
        // The two validators disagree only if one has a bug; std's answer is the reference.
        Err(Ok(t)) => t.trim_end_matches(['\r', '\n']),
    };
    // Each case is a JSON object (serde would also read a struct from an array). A character
    // of the block that holds lone surrogates would be read as one (`json::lone`).
    let res = if let Some(c) = crate::json::lone::in_line(text) {
        Err(LineError::Malformed(crate::json::read::set_aside(c)))
    } else if text.trim_start().starts_with('{') {
        (peer.score)(text, out, reader, scratch, judge)
    } else {
        Err(LineError::Malformed(
            "expected a JSON object (one case per line)".to_owned(),
        ))
    };
    match res {
        Ok(outcome) => outcome,
        Err(LineError::Rejected { id, message }) => {
            out.truncate(mark);
            write_error(out, id, &message);
            Outcome::Error
        }
        Err(LineError::Malformed(e)) => {
            out.truncate(mark);
            let id = recover_id(text);
            let message = format!("line {lineno}: {e}");
            write_error(out, id.as_deref(), &message);
            Outcome::Error
        }
    }
}

/// A case line read as the peer's runtime reads it ([`crate::json::read`]): the one reading
/// every profile takes its case from, whichever way it then looks at it.
pub(crate) struct CaseLine<'a> {
    pub(crate) line: &'a str,
    pub(crate) val: Val<'a>,
    pub(crate) shape: Shape,
}

impl<'a> CaseLine<'a> {
    /// Read `line` as `rt` does, or the line's error (serde_json's words for text that is not
    /// JSON, as before; the runtime's or toolspec's for a limit).
    pub(crate) fn read(line: &'a str, rt: Runtime) -> Result<CaseLine<'a>, LineError<'a>> {
        match crate::json::read::read(line, rt) {
            Ok((val, shape)) => Ok(CaseLine { line, val, shape }),
            // serde_json's words, but not its refusal of a lone surrogate, which the runtimes
            // read.
            Err(e) if e.syntax => match serde_json::from_str::<serde::de::IgnoredAny>(line) {
                Err(se) if !surrogate_error(&se) => Err(se.into()),
                _ => Err(LineError::Malformed(e.message)),
            },
            Err(e) => Err(LineError::Malformed(e.message)),
        }
    }

    /// The raw text of top-level member `key` (the last one of a duplicate key).
    pub(crate) fn raw(&self, key: &str) -> Option<&'a str> {
        self.shape.raw(self.line, key)
    }

    /// The typed case read from the value, or serde's error where it does not have the
    /// peer's input shape (serde_json's own, with its position, where the line has no
    /// duplicate key for it to stop at).
    pub(crate) fn case<'v, T: Deserialize<'v>>(&'v self) -> Result<T, LineError<'a>> {
        T::deserialize(crate::json::de::ValDe(&self.val)).map_err(|e| {
            if !self.shape.duplicates && !self.shape.lone && self.shape.depth <= SMALL_DEPTH {
                if let Err(se) = serde_json::from_str::<T>(self.line) {
                    return se.into();
                }
            }
            LineError::Malformed(e.to_string())
        })
    }
}

/// Whether serde_json stopped at a lone surrogate escape.
fn surrogate_error(e: &serde_json::Error) -> bool {
    let m = e.to_string();
    m.contains("surrogate") || m.contains("unicode code point")
}

impl Drop for CaseLine<'_> {
    fn drop(&mut self) {
        crate::json::value::drop_deep(std::mem::replace(&mut self.val, Val::Null));
    }
}

/// Values nested at most this deep are scored on the calling thread; deeper ones (up to the
/// runtime's limit, [`Runtime::depth`]) on a thread of [`DEEP_STACK`] bytes, since comparing
/// and printing them recurses once per level.
pub(crate) const SMALL_DEPTH: usize = 128;
/// The stack of the thread that scores a deeply nested line.
const DEEP_STACK: usize = 512 << 20;

/// `f()`, on a thread with a stack for `depth` levels when the value is deeper than
/// [`SMALL_DEPTH`].
pub(crate) fn on_deep_stack<'a, R: Send>(
    depth: usize,
    f: impl FnOnce() -> Result<R, LineError<'a>> + Send,
) -> Result<R, LineError<'a>> {
    if depth <= SMALL_DEPTH {
        return f();
    }
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .stack_size(DEEP_STACK)
            .spawn_scoped(s, f)
        {
            Ok(h) => h.join().unwrap_or_else(|_| {
                Err(LineError::Malformed(
                    "toolspec: scoring this line failed".to_owned(),
                ))
            }),
            Err(e) => Err(LineError::Malformed(format!(
                "toolspec: no thread to score a line nested {depth} levels deep: {e}"
            ))),
        }
    })
}

/// Why a line produced an error line.
#[derive(Debug)]
pub(crate) enum LineError<'a> {
    /// Not JSON, or not the peer's input shape.
    Malformed(String),
    /// Well-formed, but the peer would raise on it.
    Rejected {
        /// The case id, as raw JSON.
        id: Option<&'a str>,
        /// The peer's error (its exception type and message where it has one).
        message: String,
    },
}

impl From<serde_json::Error> for LineError<'_> {
    fn from(e: serde_json::Error) -> Self {
        let mut message = e.to_string();
        if message.contains("recursion limit exceeded") {
            message.push_str(" (toolspec reads JSON nested up to 128 levels)");
        }
        LineError::Malformed(message)
    }
}

/// The id of a line whose typed parse failed, if the line is at least a JSON object with one.
fn recover_id(text: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct IdOnly<'a> {
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
    }
    // Only an object has an id (serde would also read a struct from an array).
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str::<IdOnly<'_>>(text)
        .ok()
        .and_then(|x| x.id.map(|r| r.get().to_owned()))
}

/// `{"id":ID,"error":"..."}`.
fn write_error(out: &mut String, id: Option<&str>, message: &str) {
    out.push_str("{\"id\":");
    out.push_str(id.unwrap_or("null"));
    out.push_str(",\"error\":");
    crate::json::text::json_str(out, message);
    out.push('}');
}

/// Start an output line: `{"id":ID,"score":S,"passed":P`. The caller adds its fields and `}`.
fn write_head(out: &mut String, id: &str, score: Option<f64>, passed: Option<bool>) {
    out.push_str("{\"id\":");
    out.push_str(id);
    out.push_str(",\"score\":");
    match score {
        Some(s) => crate::json::text::json_f64(out, s),
        None => out.push_str("null"),
    }
    out.push_str(",\"passed\":");
    write_opt_bool(out, passed);
}

fn write_opt_bool(out: &mut String, b: Option<bool>) {
    out.push_str(match b {
        Some(true) => "true",
        Some(false) => "false",
        None => "null",
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every profile of the config has its peer, in the same order (the fuzz targets pick a
    /// peer by its index), and names are looked up.
    #[test]
    fn every_profile_has_its_peer() {
        let names: Vec<&str> = PEERS.iter().map(PeerRow::name).collect();
        let profiles: Vec<&str> = crate::config::profile::PROFILES
            .iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, profiles);
        for p in PEERS {
            assert_eq!(peer(p.name()).unwrap().name(), p.name());
        }
        assert_eq!(
            peer("axon").unwrap_err().to_string(),
            "unknown profile `axon` (known: axion, deepeval, evalite, agentevals, galtea, promptfoo)"
        );
    }

    #[test]
    fn malformed_lines_become_error_lines() {
        for p in PEERS {
            let out = score_line(p, b"{not json");
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(v["id"], serde_json::Value::Null);
            assert!(v["error"].as_str().unwrap().starts_with("line 1: "), "{v}");
            let out = score_line(
                p,
                b"{\"id\":7,\"tools_called\":5,\"actualCalls\":5,\"outputs\":5}",
            );
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(v["id"], 7, "{p:?}: {v}");
            assert!(v["error"].is_string(), "{p:?}: {v}");
            let out = score_line(p, b"\xff\xfe");
            assert!(serde_json::from_slice::<serde_json::Value>(&out).is_ok());
        }
    }

    #[test]
    fn hostile_lines_are_error_lines_not_crashes() {
        let d = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let deep = format!(
            "{{\"id\":1,\"tools_called\":{d},\"expected_tools\":{d},\"actualCalls\":{d},\"expectedCalls\":{d},\"outputs\":{d},\"reference_outputs\":{d},\"assertion\":{d}}}"
        );
        let mut wide = String::from("{\"id\":2,\"actualCalls\":[{\"toolName\":\"a\",\"input\":{");
        for i in 0..50_000 {
            wide.push_str(&format!("\"k{i}\":{i},"));
        }
        wide.push_str("\"k0\":-1}}],\"expectedCalls\":[{\"toolName\":\"a\",\"input\":{}}],\"mode\":\"flexible\"}");
        for p in PEERS {
            for line in [deep.as_bytes(), d.as_bytes(), b"", b"null", b"[]"] {
                let out = score_line(p, line);
                let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
                assert!(v["error"].is_string(), "{p:?}: {v}");
            }
        }
        let out = score_line(peer("evalite").unwrap(), wide.as_bytes());
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            v["metadata"]["nameOnlyMatches"], 1,
            "duplicate key kept once"
        );
    }
}
