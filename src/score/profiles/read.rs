//! How a tape peer (DeepEval, Evalite) reads a line: the tape reader
//! ([`crate::json::tape`]), then the peer's runtime reader ([`crate::json::read`]) for what it
//! leaves aside, both ending in the same [`TapeProfile::case_of`].

use super::judge::Judge;
use super::{on_deep_stack, CaseLine, LineError, Outcome, Reader, Scratch, Work};
use crate::json::read::{Runtime, Shape};
use crate::json::tape::{Tape, V};
use crate::json::view::Json;

/// A profile whose case lines are read into a tape ([`score_line`] drives it).
pub(crate) trait TapeProfile {
    /// A case, read from a line's tape.
    type Case<'t>;
    /// How the peer's runtime reads a line.
    const RUNTIME: Runtime;
    /// What a case the serde reader accepts but [`TapeProfile::case_of`] does not read is
    /// called (a bug, were it ever to happen).
    const SHAPE: &'static str;
    /// The case in the line's top-level value, read as the serde reader reads it, or `None`
    /// where that reader would fail.
    /// `work` is the worker's ([`Work`]), for lists kept from line to line.
    fn case_of<'t>(root: V<'t>, work: &mut Work) -> Option<Self::Case<'t>>;
    /// The serde reader of the case: its shape check, and its error for a case it rejects.
    fn check<'a>(line: &CaseLine<'a>) -> Result<(), LineError<'a>>;
    /// Score a case into `out` (one output line, no newline); `raw` gives the raw text of the
    /// line's fields, `work` the worker's buffers, `judge` the judge the person running
    /// toolspec gave on the command line (if any).
    fn score<'a>(
        case: Self::Case<'_>,
        raw: &Raw<'a, '_>,
        out: &mut String,
        work: &mut Work,
        judge: Option<&dyn Judge>,
    ) -> Result<Outcome, LineError<'a>>;
}

/// Score one line of profile `P`: the tape reader, then the runtime's reader
/// ([`CaseLine::read`]) for what it leaves aside (the exact error of a line it rejects, else
/// the line's value, as a tape), so every line is scored by the same code
/// ([`TapeProfile::case_of`], then [`TapeProfile::score`]). [`Reader::Serde`] skips the tape
/// reader (the reference).
pub(crate) fn score_line<'a, P: TapeProfile>(
    line: &'a str,
    out: &mut String,
    reader: Reader,
    scratch: &mut Scratch,
    judge: Option<&dyn Judge>,
) -> Result<Outcome, LineError<'a>> {
    let Scratch { tape: bufs, work } = scratch;
    if reader == Reader::Tape {
        if let Some(tape) = Tape::parse(line, bufs) {
            if let Some(case) = P::case_of(tape.root(), work) {
                let raw = Raw {
                    tape: &tape,
                    line,
                    shape: None,
                };
                return P::score(case, &raw, out, work, judge);
            }
        }
    }
    let c = CaseLine::read(line, P::RUNTIME)?;
    on_deep_stack(c.shape.depth, || {
        let tape = Tape::from_val(&c.val, bufs);
        let raw = Raw {
            tape: &tape,
            line,
            shape: Some(&c.shape),
        };
        let case = P::case_of(tape.root(), work);
        let result = match case {
            Some(case) => P::score(case, &raw, out, work, judge),
            None => P::check(&c).and(Err(LineError::Malformed(P::SHAPE.to_owned()))),
        };
        result
    })
}

/// The raw JSON text of a line's top-level fields (ids and inputs are printed back as written).
pub(crate) struct Raw<'a, 't> {
    tape: &'t Tape<'t>,
    line: &'a str,
    /// The runtime reader's spans, for a tape built from its value (which has no text).
    shape: Option<&'t Shape>,
}

impl<'a> Raw<'a, '_> {
    /// No value of the line is nested deeper than this (containers, the line's own object
    /// included): the runtime reader's count, or the most the tape reader reads.
    pub(crate) fn depth_bound(&self) -> usize {
        self.shape.map_or(crate::json::tape::MAX_DEPTH, |s| s.depth)
    }

    /// The raw text of field `key` of the line (the last one, as a JSON parser keeps it).
    pub(crate) fn get(&self, key: &str) -> Option<&'a str> {
        if let Some(shape) = self.shape {
            return shape.raw(self.line, key);
        }
        let span = self.tape.root().get(key)?.raw_span()?;
        self.line.get(span)
    }
}

/// What the profiles' reader tests share.
#[cfg(test)]
pub(crate) mod testing {
    use super::{score_line, TapeProfile};
    use crate::json::tape::{Buffers, Tape};
    use crate::score::profiles::{LineError, Reader, Scratch, Work};

    /// Whether the tape reader takes the line (no serde fallback).
    pub(crate) fn reads_fast<P: TapeProfile>(line: &str) -> bool {
        let mut bufs = Buffers::default();
        Tape::parse(line, &mut bufs)
            .is_some_and(|t| P::case_of(t.root(), &mut Work::default()).is_some())
    }

    /// The line scored with `reader`: its output, or its error as text.
    pub(crate) fn run<P: TapeProfile>(line: &str, reader: Reader) -> String {
        let mut out = String::new();
        match score_line::<P>(line, &mut out, reader, &mut Scratch::default(), None) {
            Ok(_) => out,
            Err(LineError::Rejected { id, message }) => format!("{id:?} {message}"),
            Err(LineError::Malformed(m)) => m,
        }
    }
}
