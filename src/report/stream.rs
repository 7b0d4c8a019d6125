//! Reports that are written as they are produced, so memory does not follow the report's size.
//!
//! A check hands every spec × transcript result to a [`PairSink`] as soon as the result is
//! complete, on the worker thread that checked it and in no particular order
//! ([`crate::check::run::check_with`]). What the sink returns for each result is kept, sorted
//! into the report's order ([`Report::sort`]), and returned with the rest of the report (summary,
//! errors, warnings).
//!
//! - [`Collect`] keeps the results themselves: the in-memory [`Report`] of
//!   [`crate::check::run::check`].
//! - [`Streamer`] renders each result in an output format right away, into a [`Spool`] (a
//!   temporary file), and keeps only where its text is. Once the run is done,
//!   [`Streamer::write`] writes the document, with the results' text copied from the spool in
//!   report order: the same bytes as rendering the collected [`Report`], in memory that follows
//!   the number of pairs (a few hundred bytes each), not their findings.
//!
//! Every format streams. SARIF's rule table, which comes first, numbers every code used by any
//! finding, and each result refers to its rule by that number: results are spooled with a
//! placeholder number per code and get their rule's number as they are copied out
//! ([`sarif::RuleIndexes`]). JUnit holds one pair's suite at a time (its score case lists every
//! finding of the pair in one description); the other formats write a pair a finding at a time.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use super::model::{Finding, PairResult, Report};
use super::spool::{Part, Spool};
use super::{github, human, json, junit, sarif};

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

/// File texts for the human format's snippets, from any thread.
pub type SyncSources<'a> = &'a (dyn Fn(&str) -> Option<Arc<String>> + Sync);

/// An output format that streams.
#[derive(Clone, Copy)]
pub enum Format<'a> {
    /// `--format json` ([`json::render`]).
    Json,
    /// `--format human` ([`human::render`]): stdout only; stderr is
    /// [`human::render_run_findings`].
    Human {
        /// File texts for snippets.
        sources: SyncSources<'a>,
        /// Rendering options.
        options: human::Options,
    },
    /// `--format github` ([`github::render`]).
    Github,
    /// `--format junit` ([`junit::render`]).
    Junit,
    /// `--format sarif` ([`sarif::render`]).
    Sarif,
}

impl std::fmt::Debug for Format<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::Json => "Json",
            Format::Human { .. } => "Human",
            Format::Github => "Github",
            Format::Junit => "Junit",
            Format::Sarif => "Sarif",
        })
    }
}

/// A sink that renders each result into a spool; [`Streamer::write`] writes the document.
#[derive(Debug)]
pub struct Streamer<'a> {
    format: Format<'a>,
    spool: Spool,
    /// SARIF: the codes of the findings spooled, numbered in order of first use (the
    /// placeholder rule index of their results).
    codes: Mutex<Vec<String>>,
}

/// What a [`Streamer`] keeps of a result: whether it passed, and where its text is.
#[derive(Debug)]
pub struct Rendered {
    passed: bool,
    /// JUnit: the suite's counts for the document's header.
    counts: [usize; 4],
    /// The result's main text (JSON: its object; human: its findings; GitHub: its annotations;
    /// JUnit: its suite).
    main: Part,
    /// Human: its line in the list of pairs.
    line: Part,
    /// SARIF: the placeholder numbers of its findings' codes (the rule table holds the codes of
    /// the pairs kept, not of a file whose check panicked after it spooled some).
    codes: Box<[usize]>,
}

impl<'a> Streamer<'a> {
    /// A streamer for `format`, spooling to a temporary file ([`Spool::new`]).
    pub fn new(format: Format<'a>) -> Self {
        Streamer::with_spool(format, Spool::new())
    }

    /// A streamer for `format` with the given spool.
    pub fn with_spool(format: Format<'a>, spool: Spool) -> Self {
        Streamer {
            format,
            spool,
            codes: Mutex::new(Vec::new()),
        }
    }

    /// The spool the results are rendered into.
    pub fn spool(&self) -> &Spool {
        &self.spool
    }

    /// Write the document: `head` is the report without its results (summary, errors,
    /// warnings), `pairs` the kept results in report order. The bytes are those of rendering
    /// `head` with the results in the format (human: its stdout).
    pub fn write(&self, head: &Report, pairs: &[Rendered], out: &mut dyn Write) -> io::Result<()> {
        let copy = |parts: &mut dyn Iterator<Item = &Part>, out: &mut dyn Write| {
            self.spool.copy_to(parts, out)
        };
        match self.format {
            Format::Json => json::write_document(
                head,
                pairs.len(),
                |i, out| copy(&mut std::iter::once(&pairs[i].main), out),
                out,
            ),
            Format::Human { options, .. } => {
                copy(&mut pairs.iter().map(|p| &p.main), out)?;
                if !pairs.is_empty() {
                    let list_passing = options.verbose || pairs.len() <= human::MAX_LISTED_PAIRS;
                    let mut listed = pairs.iter().filter(|p| list_passing || !p.passed);
                    copy(&mut listed.by_ref().map(|p| &p.line), out)?;
                    let hidden = pairs.iter().filter(|p| !list_passing && p.passed).count();
                    out.write_all(human::hidden_pairs_line(hidden).as_bytes())?;
                    out.write_all(b"\n")?;
                }
                out.write_all(human::summary_line(&head.summary).as_bytes())
            }
            Format::Github => {
                out.write_all(github::run_annotations(head).as_bytes())?;
                copy(&mut pairs.iter().map(|p| &p.main), out)?;
                out.write_all(github::summary_line(&head.summary).as_bytes())
            }
            Format::Junit => {
                let mut counts = [0; 4];
                for p in pairs {
                    for (c, n) in counts.iter_mut().zip(p.counts) {
                        *c += n;
                    }
                }
                junit::write_document(
                    head,
                    counts,
                    |out| copy(&mut pairs.iter().map(|p| &p.main), out),
                    out,
                )
            }
            Format::Sarif => {
                let spooled = self
                    .codes
                    .lock()
                    .map_err(|_| io::Error::other("a panic poisoned the SARIF rule table"))?;
                let mut used: Vec<usize> =
                    pairs.iter().flat_map(|p| p.codes.iter().copied()).collect();
                used.sort_unstable();
                used.dedup();
                let run = head.errors.iter().chain(&head.warnings);
                let codes = sarif::Codes::new(
                    run.map(|f| f.code.as_str()).chain(
                        used.iter()
                            .filter_map(|&i| spooled.get(i).map(String::as_str)),
                    ),
                );
                let map = |placeholder: usize| {
                    spooled.get(placeholder).map_or(0, |code| codes.index(code))
                };
                let mut more = |out: &mut dyn Write, first: bool| {
                    let mut first = first;
                    let mut fixed = sarif::RuleIndexes::new(out, &map);
                    for p in pairs.iter().filter(|p| !p.main.is_empty()) {
                        if !first {
                            fixed.write_all(b",\n")?;
                        }
                        first = false;
                        self.spool.copy_to([&p.main], &mut fixed)?;
                    }
                    fixed.finish()
                };
                let any = pairs.iter().any(|p| !p.main.is_empty());
                let more: Option<&mut sarif::WriteResults<'_>> =
                    if any { Some(&mut more) } else { None };
                sarif::write_document(head, &codes, more, out)
            }
        }
    }
}

impl PairSink for Streamer<'_> {
    type Entry = Rendered;

    fn pair(&self, mut r: PairResult) -> Rendered {
        let findings = std::mem::take(&mut r.findings);
        self.pair_streamed(r, &mut findings.into_iter())
    }

    fn pair_streamed(&self, r: PairResult, more: &mut dyn Iterator<Item = Finding>) -> Rendered {
        let mut main = self.spool.writer();
        let mut line = self.spool.writer();
        let mut counts = [0; 4];
        let mut codes = Vec::new();
        let passed = r.passed;
        let mut r = r;
        let held = std::mem::take(&mut r.findings);
        let findings = &mut held.into_iter().chain(more);
        // Writing to a spool never fails (what the file cannot take stays in memory), and a
        // report always serializes (string keys only).
        let _ = (|| -> io::Result<()> {
            match self.format {
                Format::Json => json::write_pair_streamed(r, findings, &mut main),
                Format::Human { sources, options } => {
                    human::pair_details_streamed(&r, findings, sources, options, &mut |s| {
                        main.write_all(s.as_bytes())
                    })?;
                    writeln!(line, "{}", human::pair_line(&r, options.color))
                }
                Format::Github => github::pair_annotations_streamed(findings, &mut main),
                Format::Junit => {
                    let suite = junit::pair_suite_streamed(&r, findings);
                    counts = junit::suite_counts(&suite);
                    main.write_all(junit::suite_text(suite).as_bytes())
                }
                Format::Sarif => {
                    let mut placeholder = |code: &str| {
                        let i = match self.codes.lock() {
                            Ok(mut all) => match all.iter().position(|c| c == code) {
                                Some(i) => i,
                                None => {
                                    all.push(code.to_owned());
                                    all.len() - 1
                                }
                            },
                            Err(_) => 0,
                        };
                        if !codes.contains(&i) {
                            codes.push(i);
                        }
                        i
                    };
                    sarif::write_results_streamed(findings, &mut placeholder, &mut main)
                }
            }
        })();
        Rendered {
            passed,
            counts,
            main: main.finish(),
            line: line.finish(),
            codes: codes.into_boxed_slice(),
        }
    }
}
