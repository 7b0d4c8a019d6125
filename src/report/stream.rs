//! Writing a report as it is produced: the one path of every output format.
//!
//! A check hands every spec × transcript result to a [`PairSink`] as soon as the result is
//! complete, on the worker thread that checked it and in no particular order
//! ([`crate::check::run::check_with`]). What the sink returns for each result is kept, sorted
//! into the report's order ([`Report::sort`]), and returned with the rest of the report (summary,
//! errors, warnings).
//!
//! - [`Collect`] keeps the results themselves: the in-memory [`Report`] of
//!   [`crate::check::run::check`].
//! - [`Streamer`] renders each result in an output format right away ([`Emitter::pair`]), into
//!   a [`Spool`] (memory, then a temporary file), and keeps only where its text is. Once the run
//!   is done, [`Streamer::write`] writes the document ([`Emitter::document`]), the results' text
//!   copied from the spool in report order, in memory that follows the number of pairs (a few
//!   hundred bytes each), not their findings.
//!
//! An output format is one [`Emitter`]: how one result is rendered, and the document around
//! the results. A format's whole-report function (`json::render`, ...) is [`render`]: every
//! result of a [`Report`] emitted into an in-memory spool, then the document — the same code as
//! streaming, so the two cannot differ.
//!
//! Why `pair` and `document` rather than begin, pair, end: results arrive in any order from
//! worker threads, and what precedes them in a document depends on all of them (the JSON
//! summary, SARIF's rule table, JUnit's counts), so nothing can be written before the last
//! result is in; the document is written once, around the results' spooled text.

use std::io::{self, Write};

use super::model::{Finding, PairResult, Report};
use super::spool::{Part, PartWriter, Spool};

/// Takes each result of a check as soon as it is complete; called from worker threads.
pub trait PairSink: Sync {
    /// What is kept of a result (sorted into report order by the check).
    type Entry: Send;

    /// Take one result (its findings sorted, its locations resolved).
    fn pair(&self, result: PairResult) -> Self::Entry;

    /// Take one result whose findings are `result.findings` followed by those `more` hands
    /// out, one at a time (a check builds them as they are asked for, so a transcript with
    /// 100 000 findings never holds them all). By default they are collected and handed to
    /// [`PairSink::pair`]; [`Streamer`] writes them out as they come.
    fn pair_streamed(
        &self,
        mut result: PairResult,
        more: &mut dyn Iterator<Item = Finding>,
    ) -> Self::Entry {
        result.findings.extend(more);
        self.pair(result)
    }

    /// What is kept of every result, when the sink keeps nothing but the fact that it was
    /// checked (the check keeps whether it passed): the check then builds neither the result
    /// nor its findings. `None` (the default): each result is built and handed over.
    fn verdict_only(&self) -> Option<Self::Entry> {
        None
    }
}

/// A sink that keeps no result: a check into it gives the report's counts and errors (whether
/// everything passed) without building a result or a finding.
#[derive(Debug, Clone, Copy, Default)]
pub struct Verdicts;

impl PairSink for Verdicts {
    type Entry = ();

    fn pair(&self, _: PairResult) {}

    fn verdict_only(&self) -> Option<()> {
        Some(())
    }
}

/// A sink that keeps every result: gives the in-memory [`Report`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Collect;

impl PairSink for Collect {
    type Entry = PairResult;

    fn pair(&self, result: PairResult) -> PairResult {
        result
    }
}

/// One output format: how a result is rendered, and the document around the results.
pub trait Emitter {
    /// What the document needs to know of a result besides its text (human: whether it
    /// passed; JUnit: its suite's counts; SARIF: the codes of its findings).
    type Meta: Send + Default;

    /// Render one result: `result` without its findings, which `findings` hands out one at a
    /// time. Its text goes to `out.text`; the human format also writes its line in the list
    /// of pairs to `out.line`. Called from worker threads, in any order.
    fn pair(
        &self,
        result: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
        out: &mut PairOut<'_>,
    ) -> io::Result<Self::Meta>;

    /// Write the document: `head` is the report without its results (summary, errors,
    /// warnings), `results` the rendered results in report order.
    fn document(
        &self,
        head: &Report,
        results: &Results<'_, Self::Meta>,
        out: &mut dyn Write,
    ) -> io::Result<()>;
}

/// Where [`Emitter::pair`] writes a result's text.
#[derive(Debug)]
pub struct PairOut<'s> {
    /// The result's text (JSON: its object; human: its findings; GitHub: its annotations;
    /// JUnit: its suite; SARIF: its findings' results).
    pub text: PartWriter<'s>,
    /// Human: the result's line in the list of pairs.
    pub line: PartWriter<'s>,
}

/// What a [`Streamer`] keeps of a result: what the document needs, and where its text is.
#[derive(Debug)]
pub struct Rendered<M> {
    meta: M,
    text: Part,
    line: Part,
}

/// The rendered results of a report, in report order, for [`Emitter::document`].
#[derive(Debug)]
pub struct Results<'a, M> {
    spool: &'a Spool,
    pairs: &'a [Rendered<M>],
}

impl<M> Results<'_, M> {
    /// How many results there are.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Every result's meta, in order.
    pub fn metas(&self) -> impl Iterator<Item = &M> {
        self.pairs.iter().map(|p| &p.meta)
    }

    /// Whether result `i` wrote no text.
    pub fn text_is_empty(&self, i: usize) -> bool {
        self.pairs[i].text.is_empty()
    }

    /// Copy result `i`'s text to `out`.
    pub fn write_text(&self, i: usize, out: &mut dyn Write) -> io::Result<()> {
        self.spool.copy_to([&self.pairs[i].text], out)
    }

    /// Copy the text of every result `keep` selects, in order, to `out`.
    pub fn write_texts(&self, keep: impl Fn(&M) -> bool, out: &mut dyn Write) -> io::Result<()> {
        let parts = self.pairs.iter().filter(|p| keep(&p.meta)).map(|p| &p.text);
        self.spool.copy_to(parts, out)
    }

    /// Copy the line of every result `keep` selects, in order, to `out`.
    pub fn write_lines(&self, keep: impl Fn(&M) -> bool, out: &mut dyn Write) -> io::Result<()> {
        let parts = self.pairs.iter().filter(|p| keep(&p.meta)).map(|p| &p.line);
        self.spool.copy_to(parts, out)
    }
}

/// A sink that renders each result with an [`Emitter`] into a spool; [`Streamer::write`]
/// writes the document.
#[derive(Debug)]
pub struct Streamer<E> {
    emitter: E,
    spool: Spool,
}

impl<E: Emitter> Streamer<E> {
    /// A streamer for `emitter`, spooling to a temporary file past a memory limit
    /// ([`Spool::new`]).
    pub fn new(emitter: E) -> Self {
        Streamer::with_spool(emitter, Spool::new())
    }

    /// A streamer for `emitter` with the given spool.
    pub fn with_spool(emitter: E, spool: Spool) -> Self {
        Streamer { emitter, spool }
    }

    /// The spool the results are rendered into.
    pub fn spool(&self) -> &Spool {
        &self.spool
    }

    /// Render one result whose findings `findings` hands out (those of `result` are not
    /// looked at).
    fn emit(
        &self,
        result: &PairResult,
        findings: &mut dyn Iterator<Item = Finding>,
    ) -> Rendered<E::Meta> {
        let mut out = PairOut {
            text: self.spool.writer(),
            line: self.spool.writer(),
        };
        // Writing to a spool never fails (what the file cannot take stays in memory), and a
        // report always serializes (string keys only).
        let meta = self
            .emitter
            .pair(result, findings, &mut out)
            .unwrap_or_default();
        Rendered {
            meta,
            text: out.text.finish(),
            line: out.line.finish(),
        }
    }

    /// Write the document: `head` is the report without its results (summary, errors,
    /// warnings), `pairs` the kept results in report order.
    pub fn write(
        &self,
        head: &Report,
        pairs: &[Rendered<E::Meta>],
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let results = Results {
            spool: &self.spool,
            pairs,
        };
        self.emitter.document(head, &results, out)
    }
}

impl<E: Emitter + Sync> PairSink for Streamer<E>
where
    E::Meta: Send,
{
    type Entry = Rendered<E::Meta>;

    fn pair(&self, r: PairResult) -> Rendered<E::Meta> {
        self.pair_streamed(r, &mut std::iter::empty())
    }

    fn pair_streamed(
        &self,
        mut r: PairResult,
        more: &mut dyn Iterator<Item = Finding>,
    ) -> Rendered<E::Meta> {
        let held = std::mem::take(&mut r.findings);
        self.emit(&r, &mut held.into_iter().chain(more))
    }
}

/// The document of a whole report in `emitter`'s format: every result emitted into an
/// in-memory spool, then the document, as a check streams it.
pub fn render<E: Emitter>(emitter: E, report: &Report) -> String {
    let streamer = Streamer::with_spool(emitter, Spool::in_memory());
    let pairs: Vec<_> = report
        .results
        .iter()
        .map(|r| streamer.emit(r, &mut r.findings.iter().cloned()))
        .collect();
    let head = Report {
        version: report.version,
        summary: report.summary.clone(),
        results: Vec::new(),
        errors: report.errors.clone(),
        warnings: report.warnings.clone(),
        rates: report.rates.clone(),
    };
    let mut out = Vec::new();
    // Writing to memory never fails.
    let _ = streamer.write(&head, &pairs, &mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
