//! Results of a check: a transcript file and the specs bound to it → one result per spec ×
//! transcript, handed to a [`PairSink`] as soon as it is complete.
//!
//! Each transcript is checked as soon as the reader hands it over ([`super::read`]): every
//! spec bound to it is run by the engine (and scored by its profile, if it has one), and the
//! result is built with its findings sorted and located ([`locate::Locator`]: lines and columns
//! found in one forward pass over the file), its findings built one at a time as the sink
//! takes them. Its calls are dropped once every spec has run, so memory follows one
//! transcript, not the file or the run.
//!
//! Input: an [`Input`] (a transcript file, or standard input), its specs, the settings' readers,
//! a sink. Output: a [`FileOutcome`]: what the sink kept of each result with its place in report
//! order, and the file's errors and warnings. Fails per file: a read error is a finding, and the
//! transcripts read before it are still checked.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use super::findings;
use super::locate;
use super::plan::Spec;
use super::read::{
    no_calls_warning, open_transcripts, read_error, read_with_mapping, stream_transcripts, Reading,
};
use crate::code::Code;
use crate::config::{Check, ExtraCalls, MatcherConfig, PathSeg, ValueMatcher};
use crate::engine;
use crate::guard::RootGuard;
use crate::report::model::{
    CallRef, CallShare, ConstraintFailure, ExpectationResult, Finding, Location, PairResult,
    PartialResult, PartialStatement, RuleResult, Severity, Tally,
};
use crate::report::stream::PairSink;
use crate::rules::{self, RuleFinding, RuleSet};
use crate::score::profiles::{self, ExpectedCall, ProfileVerdict};
use crate::source::Span;
use crate::transcript::{self, Format, Transcript};

/// Where a result goes in report order: spec file, spec, transcript, record.
pub(super) type SortKey = (Arc<str>, Arc<str>, Arc<str>, Option<usize>);

/// What a file's task keeps of a result: its sort key, what the counts need of it, the sink's
/// entry.
pub(super) type Kept<E> = (SortKey, Tally, E);

/// What checking one transcript file produced.
pub(super) struct FileOutcome<E> {
    /// Transcripts read (the most of any format the file was read as).
    pub(super) transcripts: usize,
    /// What the sink kept of each result.
    pub(super) pairs: Vec<Kept<E>>,
    /// Read errors (and a panic, by the caller).
    pub(super) errors: Vec<Finding>,
    /// `no-calls-read`: the file is not empty, yet no call was read from it.
    pub(super) warnings: Vec<Finding>,
    /// The specs (spec file, spec) for which the file, or the rest of it after a read error,
    /// could not be read: once per error, counted as a failing transcript by a `pass_rate`.
    pub(super) unread: Vec<(Arc<str>, Arc<str>)>,
}

impl<E> FileOutcome<E> {
    /// A file that could not be checked at all (`error`: why): every spec counts it as unread.
    pub(super) fn failed(error: Finding, specs: &[&Spec]) -> Self {
        FileOutcome {
            transcripts: 0,
            pairs: Vec::new(),
            errors: vec![error],
            warnings: Vec::new(),
            unread: unread(specs),
        }
    }
}

/// What a result needs of its transcript besides the engine's run: not the calls, only where
/// they are.
struct Seen<'a> {
    format: Format,
    record: Option<transcript::RecordLoc>,
    /// Each call's span, by position.
    spans: &'a [Span],
    /// The reader's findings the rules keep.
    findings: Vec<transcript::ReadFinding>,
    /// The built-in rules' findings.
    rules: Vec<RuleFinding>,
}

/// The transcript `check_file` reads.
pub(super) struct Input<'a> {
    /// Its path (for standard input, [`STDIN_NAME`], never opened).
    pub(super) path: &'a Path,
    /// How reports show it.
    pub(super) shown: &'a str,
    /// Its bytes when they were read already (standard input).
    pub(super) given: Option<&'a [u8]>,
    /// A JSON document given as a value (then `given` is `None`): read without parsing, its
    /// text written only when something is placed in it.
    pub(super) document: Option<&'a transcript::Document>,
    /// `--input-format`: a built-in reader or a custom mapping.
    pub(super) forced: Option<Reading>,
    /// A file of a walked folder that no spec names, checked by the rules alone: if it does not
    /// read as a transcript, or holds no call, it is passed over without a word.
    pub(super) quiet: bool,
    /// Such a file, when passed over, is named with why (`skipped-file`, under `--strict` and
    /// `-v`).
    pub(super) name_skipped: bool,
    /// A file named on the command line that no spec names: if it reads as a transcript, an
    /// `unclaimed-transcript` warning says no spec checked it (the built-in rules did, when any
    /// applies); if it does not, it is passed over with an `unclaimed-file` note, not an error
    /// (a pre-commit hook is handed every staged `package.json`).
    pub(super) named_unclaimed: bool,
    /// `--partial`: each result also says which statements of its spec are violated, pending
    /// or met with the transcript taken as a run that may go on, and passes unless one is
    /// violated.
    pub(super) partial: bool,
    /// The calls (by position in the transcript) whose result is not in yet: a guard's journal
    /// of a run going on (`engine::Unsettled`). Empty for a recorded transcript.
    pub(super) unsettled: &'a [usize],
}

/// Read one transcript file and run every bound spec on each transcript in it.
///
/// Each transcript is checked as soon as the reader hands it over; its calls are dropped once
/// every spec has run, and each result is handed to `sink` with its lines and columns filled in
/// ([`locate::Locator`], which follows the file forward: from the bytes already read, or by
/// streaming a file too large to hold). So memory follows one transcript's calls and results,
/// never the file size or the number of transcripts in it.
pub(super) fn check_file<S: PairSink>(
    input: &Input<'_>,
    specs: &[&Spec],
    (formats, mappings): (
        &[(globset::GlobMatcher, Reading)],
        &[Arc<transcript::Mapping>],
    ),
    (rule_set, schemas): (&RuleSet, &rules::SchemaCache),
    sink: &S,
    guard: &RootGuard,
    judge: Option<&dyn profiles::Judge>,
) -> FileOutcome<S::Entry> {
    let path = input.path;
    let shown = input.shown.to_owned();
    let key: Arc<str> = Arc::from(shown.as_str());
    let mut out = FileOutcome {
        transcripts: 0,
        pairs: Vec::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
        unread: Vec::new(),
    };
    // A spec that forces a format wins over the settings (a custom mapping whose `files`
    // match, then a `[formats]` reader); specs that disagree read the file once per format.
    let reading = |spec_format: Option<&str>| {
        input
            .forced
            .or_else(|| {
                spec_format
                    .and_then(|f| f.parse().ok())
                    .map(Reading::Reader)
            })
            .or_else(|| {
                if input.given.is_some() || input.document.is_some() {
                    return None; // no `[formats]` glob names standard input
                }
                formats
                    .iter()
                    .find(|(g, _)| g.is_match(path))
                    .map(|(_, f)| *f)
            })
    };
    let mut by_format: BTreeMap<Option<Reading>, Vec<&Spec>> =
        specs.iter().fold(BTreeMap::new(), |mut m, s| {
            let forced = reading(s.config.format.as_deref());
            m.entry(forced).or_insert_with(Vec::new).push(*s);
            m
        });
    // No spec names the file: the rules alone check it, read as the settings say.
    if specs.is_empty() {
        by_format.insert(reading(None), Vec::new());
    }
    let rules_key: Arc<str> = Arc::from(RULES_SPEC);
    // The rules run once per transcript: those that apply, and those a spec denies.
    let denied: Vec<Code> = specs
        .iter()
        .flat_map(|s| &s.config.deny_rules)
        .filter_map(|name| rules::Rule::named(name).map(|r| r.code))
        .collect();
    let base = rule_set;
    let rule_set = &rule_set.clone().with(&denied);
    let rules_file: Arc<str> = Arc::from("");
    // The file's bytes when it is small enough to read whole: read once, for every format and
    // for placing the findings.
    let verdict_only = sink.verdict_only().is_some();
    let mut whole: Option<Option<Vec<u8>>> = match input.document {
        // The verdicts alone place nothing in the text: it is not written.
        Some(_) if verdict_only => Some(Some(Vec::new())),
        Some(doc) => Some(Some(doc.text().to_vec())),
        None => input.given.map(|b| Some(b.to_vec())),
    };
    for (format, specs) in by_format {
        if whole.is_none() {
            match open_transcripts(path, &shown, guard) {
                Ok(bytes) => whole = Some(bytes),
                Err(e) if input.quiet => {
                    if input.name_skipped {
                        out.warnings
                            .push(skipped(&shown, &format!("not read: {e}")));
                    }
                    continue;
                }
                Err(e) => {
                    out.errors.push(read_error(&e, &shown));
                    out.unread.extend(unread(&specs));
                    continue;
                }
            }
        }
        let text = whole.as_ref().and_then(|w| w.as_deref());
        let mut locator = locate::Locator::new(text, path);
        let mut count = 0;
        let mut calls_read = 0usize;
        let mut read_as: Option<Format> = None;
        let pairs = &mut out.pairs;
        let emit = |t: Transcript| {
            count += 1;
            read_as.get_or_insert(t.format);
            let Transcript {
                format,
                record,
                calls,
                compact,
                tools,
                answered,
                findings,
                turns,
                answer,
                agent_runs,
            } = t;
            let recorded = engine::Recorded {
                calls: match &compact {
                    Some(table) => table,
                    None => &calls,
                },
                turns,
                answer: answer.as_deref(),
                agent_runs: agent_runs.as_deref(),
            };
            let live = engine::Unsettled {
                calls: &recorded,
                unsettled: input.unsettled,
            };
            let all: &dyn engine::Calls = if input.unsettled.is_empty() {
                &recorded
            } else {
                &live
            };
            let listed: Vec<Span>;
            let spans = if let Some(table) = &compact {
                table.spans()
            } else {
                listed = calls.iter().map(|c| c.span).collect();
                &listed
            };
            calls_read += spans.len();
            let rule_findings = if rule_set.any() {
                rules::run_with(
                    rule_set,
                    &rules::View {
                        calls: all,
                        spans,
                        tools: &tools,
                        answered: &answered,
                        text,
                    },
                    schemas,
                )
            } else {
                Vec::new()
            };
            drop(answered);
            let t = Seen {
                format,
                record,
                spans,
                findings: findings
                    .into_iter()
                    .filter(|f| rule_set.keeps(f.code))
                    .collect(),
                rules: rule_findings,
            };
            if specs.is_empty() {
                if (input.quiet && spans.is_empty()) || !rule_set.any() {
                    return;
                }
                let (tally, record, entry) = rules_only(&shown, &t, &mut locator, sink);
                let k = (rules_file.clone(), rules_key.clone(), key.clone(), record);
                pairs.push((k, tally, entry));
                return;
            }
            // One spec at a time: its findings are built as the sink writes them out, so a
            // transcript with 100 000 extra calls never holds 100 000 findings.
            for s in &specs {
                let profile = s.config.profile.as_ref().map(|p| {
                    // Under a profile the calls are read in full (`engine::keep_for`).
                    let full;
                    let calls = match &compact {
                        Some(table) => {
                            full = table.to_calls();
                            &full
                        }
                        None => &calls,
                    };
                    profiles::score_calls_judged(
                        p,
                        &expected_calls(&s.config),
                        calls,
                        &tools,
                        judge,
                    )
                });
                let run = engine::Run::new(&s.config, all);
                let (tally, record, entry) = check_pair(
                    s,
                    &shown,
                    &t,
                    &run,
                    all,
                    profile,
                    (base, input.partial),
                    &mut locator,
                    sink,
                );
                let k = (s.file.key.clone(), s.name.clone(), key.clone(), record);
                pairs.push((k, tally, entry));
            }
        };
        let mut keep = engine::keep_for(&specs.iter().map(|s| &s.config).collect::<Vec<_>>());
        if rule_set.needs_args() {
            keep.args = None; // the rules look at every call's arguments
        }
        // The verdicts alone say nowhere where a call is.
        keep.unplaced = verdict_only;
        let read = match (format, text) {
            (Some(Reading::Mapping(i)), bytes) => {
                let bytes = input.document.map_or(bytes, |d| Some(d.text()));
                read_with_mapping(&shown, bytes, &mappings[i], emit)
            }
            (format, Some(bytes)) => {
                let format = format.and_then(Reading::reader);
                let reader = transcript::Reader::new().format(format).keep(keep);
                match input.document {
                    Some(doc) => reader.read_document_with(&shown, doc, emit),
                    None => reader.read_with(&shown, bytes, emit),
                }
            }
            (format, None) => {
                let format = format.and_then(Reading::reader);
                stream_transcripts(path, &shown, format, &keep, emit, guard)
            }
        };
        // Transcripts read before an error (the records of a dataset before a broken line) are
        // still reported, next to the error.
        match read {
            Err(e) if input.named_unclaimed => {
                let why = read_error(&e, &shown);
                let first = why.message.lines().next().unwrap_or("");
                let first = first.strip_prefix(&format!("{shown}: ")).unwrap_or(first);
                out.warnings.push(passed_over(
                    Code::UnclaimedFile,
                    &shown,
                    &format!(
                        "no spec names it and it is not a transcript toolspec reads ({}: {first})",
                        why.code
                    ),
                    UNCLAIMED_HELP,
                ));
            }
            Ok(()) if input.named_unclaimed => {
                out.warnings.push(plain_unclaimed(&shown));
                if calls_read == 0 {
                    if let Some(f) = read_as {
                        out.warnings
                            .push(no_calls_warning(&shown, f, format.is_some()));
                    }
                }
            }
            Err(e) if input.quiet => {
                if input.name_skipped {
                    let why = read_error(&e, &shown);
                    let first = why.message.lines().next().unwrap_or("");
                    let first = first.strip_prefix(&format!("{shown}: ")).unwrap_or(first);
                    out.warnings.push(skipped(
                        &shown,
                        &format!("not a transcript toolspec reads ({}: {first})", why.code),
                    ));
                }
            }
            Ok(()) if input.quiet => {
                if input.name_skipped && calls_read == 0 {
                    let how = read_as.map_or_else(String::new, |f| format!(" (read as {f})"));
                    out.warnings
                        .push(skipped(&shown, &format!("holds no tool call{how}")));
                }
            }
            Err(e) => {
                out.errors.push(read_error(&e, &shown));
                out.unread.extend(unread(&specs));
            }
            // Read in some format without a single call: most likely the wrong reader (a
            // pydantic-ai dump detected as Vercel AI SDK), and every expectation would be
            // reported missing. Said once per file and format.
            Ok(()) if calls_read == 0 => {
                if let Some(f) = read_as {
                    out.warnings
                        .push(no_calls_warning(&shown, f, format.is_some()));
                }
            }
            Ok(()) => {}
        }
        if !input.quiet || calls_read > 0 {
            out.transcripts = out.transcripts.max(count);
        }
    }
    let text = whole.as_ref().and_then(|w| w.as_deref());
    let locations = out
        .errors
        .iter_mut()
        .filter_map(|f| f.location.as_mut())
        .filter(|l| l.file == shown);
    locate::resolve(locations, text, path);
    out
}

const UNCLAIMED_HELP: &str = "a file named on the command line (a pre-commit hook names every \
     staged file) is checked when a spec's `transcripts` names it or it reads as a transcript; \
     if it is a transcript toolspec does not detect, name its format with --input-format or a \
     custom mapping of toolspec.toml";

/// The `unclaimed-transcript` warning: a transcript named on the command line that no spec
/// names was not checked against any.
fn plain_unclaimed(shown: &str) -> Finding {
    findings::plain(
        Code::UnclaimedTranscript,
        format!("{shown} is not named by any spec's transcripts"),
        Some("add a glob that matches it to a spec's `transcripts` line".into()),
    )
}

const SKIPPED_HELP: &str = "a file of a walked folder that no spec names is checked by the \
     built-in rules when it reads as a transcript; name it with --input-format or a custom \
     mapping of toolspec.toml to read it, or exclude it in toolspec.toml";

/// A `skipped-file` note: a walked file passed over, and `why`.
fn skipped(shown: &str, why: &str) -> Finding {
    passed_over(Code::SkippedFile, shown, why, SKIPPED_HELP)
}

/// A file passed over (`code`, at its first byte), and `why`.
fn passed_over(code: Code, shown: &str, why: &str, help: &str) -> Finding {
    Finding {
        location: Some(crate::report::model::Location {
            file: shown.to_owned(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
            span: [0, 0],
        }),
        ..findings::plain(code, format!("passed over: {why}"), Some(help.to_owned()))
    }
}

/// The (spec file, spec) of each spec of `specs`, for [`FileOutcome::unread`].
fn unread(specs: &[&Spec]) -> Vec<(Arc<str>, Arc<str>)> {
    specs
        .iter()
        .map(|s| (s.file.key.clone(), s.name.clone()))
        .collect()
}

/// The expected calls a profile sees: each expectation's tool, repeated `min` times (optional
/// expectations are left out, as the peers have no notion of them), with the arguments and output
/// its literal checks pin (`Equals`/`Subset` values; other constraints cannot be expressed in the
/// peers' inputs and are left out; an expectation without literal checks leaves them `None`),
/// and their JSON text where a literal's value does not hold it as written.
pub fn expected_calls(config: &MatcherConfig) -> Vec<ExpectedCall> {
    config
        .expectations
        .iter()
        .flat_map(|e| {
            let (args, args_text) = literal_value(&e.args);
            let (output, output_text) = e.output.as_ref().map(literal_value).unwrap_or_default();
            let call = ExpectedCall {
                name: e.tool.clone(),
                args,
                output,
                args_text,
                output_text,
            };
            std::iter::repeat_n(call, e.repeat.min as usize)
        })
        .collect()
}

/// The JSON value a matcher's literal checks describe, if any, and its JSON text when some
/// literal of it has one ([`Check::exact_text`]).
fn literal_value(m: &ValueMatcher) -> (Option<serde_json::Value>, Option<String>) {
    let mut object = serde_json::Map::new();
    // Each member's text, in the object's order; a later check of the same key replaces the
    // earlier one where it stands, as in `object`.
    let mut texts: Vec<(&str, Option<&str>)> = Vec::new();
    for pc in &m.checks {
        let value = match &pc.check {
            Check::Equals { value, .. } | Check::Subset { value, .. } => value.clone(),
            _ => continue,
        };
        let text = pc.check.exact_text();
        match pc.path.as_slice() {
            [] => return (Some(value), text.map(str::to_owned)),
            [PathSeg::Key(k)] => {
                object.insert(k.clone(), value);
                match texts.iter_mut().find(|(key, _)| key == k) {
                    Some(slot) => slot.1 = text,
                    None => texts.push((k, text)),
                }
            }
            _ => {}
        }
    }
    if object.is_empty() {
        return (None, None);
    }
    let text = texts.iter().any(|(_, t)| t.is_some()).then(|| {
        let mut out = String::from("{");
        for (i, (k, t)) in texts.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::Value::String((*k).to_owned()).to_string());
            out.push(':');
            match (t, object.get(*k)) {
                (Some(t), _) => out.push_str(t),
                (None, Some(v)) => out.push_str(&v.to_string()),
                (None, None) => out.push_str("null"),
            }
        }
        out.push('}');
        out
    });
    (Some(serde_json::Value::Object(object)), text)
}

/// Build the result of `spec` on the transcript `t` from its engine `run` and hand it to `sink`
/// with its findings sorted and its locations placed; the findings are built one at a time as
/// the sink takes them. Returns what the counts need of it, its record and the sink's entry.
#[allow(clippy::too_many_arguments)]
fn check_pair<S: PairSink>(
    spec: &Spec,
    shown: &str,
    t: &Seen<'_>,
    run: &engine::Run<'_>,
    calls: &dyn engine::Calls,
    profile: Option<ProfileVerdict>,
    (rule_set, partial): (&RuleSet, bool),
    locator: &mut locate::Locator<'_>,
    sink: &S,
) -> (Tally, Option<usize>, S::Entry) {
    let file = &spec.file;
    // A rule's finding is shown if the rule applies to the run or this spec denies it; a denied
    // one is an error and fails the pair.
    let denies = |code: &str| spec.config.deny_rules.iter().any(|d| d == code);
    let shown_rule = |code: &str| denies(code) || rule_set.keeps(code);
    let verdict = run.verdict();
    let record_span = t.record.map_or(Span::point(0), |r| r.span);
    let record_start = Span::new(record_span.start, record_span.start);
    // Findings in file order (as `sort_findings` orders built ones): by location, then the spec
    // place they relate to, then code. Locations in the transcript are ordered as their byte
    // spans are (line and column grow with the offset), and so are places in the spec file; a
    // stable sort of the engine's findings followed by the reader's, as before.
    let engine_count = run.finding_count();
    let place = |x: usize| -> (Option<Span>, Option<Span>, &str) {
        if x < engine_count {
            let (call, spec_span, code) = run.finding_place(x);
            let at = match call {
                Some(i) => t.spans.get(i).copied(),
                None => Some(record_start),
            };
            (at, spec_span, code)
        } else if x < engine_count + t.findings.len() {
            let f = &t.findings[x - engine_count];
            (Some(f.span), None, f.code)
        } else {
            let f = &t.rules[x - engine_count - t.findings.len()];
            (Some(f.span), None, f.code.id())
        }
    };
    let mut order: Vec<usize> = (0..engine_count + t.findings.len() + t.rules.len())
        .filter(|&x| x < engine_count || shown_rule(place(x).2))
        .collect();
    let denied = order
        .iter()
        .filter(|&&x| x >= engine_count && denies(place(x).2))
        .count();
    // The findings that leave part of the spec unchecked, counted without building them.
    let unverified = (0..engine_count)
        .filter(|&x| run.finding_unverified(x))
        .count();
    // `--partial`: the statements' states on the run so far; the pair counts as passed unless
    // one is violated (a denied rule's finding about a call made is one).
    let statements = partial.then(|| run.statements());
    let rule_at = |x: usize| &t.rules[x - engine_count - t.findings.len()];
    let denied_rules: Vec<&RuleFinding> = order
        .iter()
        .filter(|&&x| x >= engine_count + t.findings.len() && denies(place(x).2))
        .map(|&x| rule_at(x))
        .collect();
    let violated = statements.as_ref().map(|st| {
        st.iter().any(|s| s.state == engine::State::Violated)
            || denied_rules.iter().any(|f| f.code != Code::MissingResult)
    });
    if let Some(entry) = sink.verdict_only() {
        // The verdict alone, as the result below decides it: the peer's under a profile, and a
        // denied rule's finding fails the pair.
        let passed = profile.as_ref().map_or(verdict.passed, |p| p.passed) && denied == 0;
        let passed = violated.map_or(passed, |v| !v);
        let tally = Tally {
            passed,
            unverified,
            within_rate: spec.config.pass_rate.is_some(),
        };
        return (tally, t.record.map(|r| r.line), entry);
    }
    order.sort_by(|&a, &b| place(a).cmp(&place(b)));
    // Lines and columns of every place in the transcript the result names, found in one pass.
    let mut offsets: Vec<usize> = Vec::new();
    let mut note = |s: Span| offsets.extend([s.start, s.end]);
    for o in &verdict.expectations {
        for &i in &o.calls {
            if let Some(&s) = t.spans.get(i) {
                note(s);
            }
        }
    }
    for &x in &order {
        if let (Some(s), _, _) = place(x) {
            note(s);
        }
    }
    if profile
        .as_ref()
        .is_some_and(|p| p.details.get("error").is_some())
    {
        note(record_start);
    }
    let found = locator.positions(offsets);
    let located = |span: Span| {
        let mut l = locate::pending(shown, span);
        (l.line, l.column) = found.at(span.start);
        (l.end_line, l.end_column) = found.at(span.end);
        l
    };
    let call_loc = |i: usize| t.spans.get(i).map(|&span| located(span));
    // A call as the report shows it: its name and arguments (long strings cut), and where it is
    // (left out in a finding, whose location is the call's).
    let call_ref = |i: usize, placed: bool| CallRef {
        index: i,
        name: if i < calls.count() {
            calls.name(i).to_owned()
        } else {
            String::new()
        },
        arguments: if i < calls.count() {
            engine::trimmed(&calls.args(i))
        } else {
            serde_json::Value::Null
        },
        location: if placed { call_loc(i) } else { None },
    };
    let expectations = verdict
        .expectations
        .iter()
        .map(|o| {
            let exp = spec.config.expectations.get(o.expectation);
            // A call beyond an expectation's maximum fails it (`too-many-calls`).
            let passed = matches!(o.status, engine::Status::Matched | engine::Status::Skipped);
            ExpectationResult {
                index: o.expectation,
                tool: o.tool.clone(),
                label: o.label.clone(),
                status: serde_json::to_value(o.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                passed,
                calls: o.calls.iter().map(|&i| call_ref(i, true)).collect(),
                failures: o
                    .failures
                    .iter()
                    .map(|f| ConstraintFailure {
                        call: f.call,
                        part: serde_json::to_value(f.part)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_owned))
                            .unwrap_or_default(),
                        path: f.path.clone(),
                        constraint: f.check.clone(),
                        expected: f.expected.clone(),
                        actual: f.actual.clone(),
                        message: f.message.clone(),
                        location: f
                            .spec_span
                            .map(|s| file.locate_in(f.declared.as_deref(), s)),
                        declared: f.declared.is_some(),
                    })
                    .collect(),
                shares: o
                    .shares
                    .iter()
                    .map(|s| CallShare {
                        call: s.call,
                        held: s.held(),
                        total: s.total(),
                        summary: s.describe(),
                        credit: s.credit,
                    })
                    .collect(),
                location: exp.map(|e| file.locate(e.span)),
            }
        })
        .collect();
    // The calls each `never` rule forbids: the forbidden-call findings that point at its line.
    let mut forbidden: Vec<Vec<usize>> = vec![Vec::new(); spec.config.forbidden.len()];
    for x in 0..engine_count {
        let (call, spec_span, code) = run.finding_place(x);
        if code != Code::ForbiddenCall.id() {
            continue;
        }
        let rule = spec
            .config
            .forbidden
            .iter()
            .position(|r| Some(r.span) == spec_span);
        if let (Some(k), Some(i)) = (rule, call) {
            forbidden[k].push(i);
        }
    }
    let rules = spec
        .config
        .forbidden
        .iter()
        .zip(forbidden)
        .enumerate()
        .map(|(index, (rule, mut hit))| {
            hit.sort_unstable();
            RuleResult {
                index,
                tool: rule.shown_tool(),
                passed: hit.is_empty(),
                calls: hit.into_iter().map(|i| call_ref(i, true)).collect(),
                location: Some(file.locate(rule.span)),
            }
        })
        .collect();
    let partial = statements.map(|st| partial_result(spec, run, st, &denied_rules, &located));
    let counts = serde_json::to_value(verdict.counts).unwrap_or_default();
    let (score, threshold, passed) = (verdict.score, verdict.threshold, verdict.passed);
    let failure = if passed || profile.is_some() {
        None
    } else {
        hard_failure(spec, run, calls, verdict)
    };
    // Under a profile, the peer's numbers decide; the engine's findings still explain.
    let (score, threshold, passed, profile_details) = match profile {
        Some(p) => (
            p.score,
            p.threshold.unwrap_or(threshold),
            p.passed,
            Some(p.details),
        ),
        None => (score, threshold, passed, None),
    };
    // Findings of rules the spec denies fail the pair, whatever its score.
    let (passed, failure) = if denied == 0 {
        (passed, failure)
    } else {
        let what = match denied {
            1 => "a denied rule's finding".to_owned(),
            n => format!("{n} denied rules' findings"),
        };
        let failure = match failure {
            Some(f) => format!("{f}, {what}"),
            None => what,
        };
        (false, Some(failure))
    };
    // A profile that could not score the pair (the peer would raise, or the judge failed) says
    // why, at the transcript.
    let profile_error = profile_details
        .as_ref()
        .and_then(|d| d.get("error"))
        .and_then(serde_json::Value::as_str)
        .map(|message| Finding {
            code: Code::ProfileError.id().to_owned(),
            severity: Code::ProfileError.severity(),
            message: format!(
                "the `{}` profile could not score this pair: {message}",
                spec.config.profile.as_ref().map_or("", |p| p.name())
            ),
            help: None,
            location: Some(located(record_start)),
            label: None,
            related: None,
            expectation: None,
            call: None,
            unverified: false,
        });
    let head = PairResult {
        spec_file: file.shown.clone(),
        spec: spec.config.name.clone(),
        transcript: shown.to_owned(),
        record: t.record.map(|r| r.line),
        format: t.format.to_string(),
        profile: spec.config.profile.as_ref().map(|p| p.name().to_owned()),
        score,
        threshold,
        passed,
        failure,
        calls: t.spans.len(),
        counts,
        expectations,
        rules,
        findings: Vec::new(),
        profile_details,
        pass_rate: spec.config.pass_rate.map(|r| r.min),
        partial,
    };
    let record = head.record;
    let finding = |x: usize| -> Option<Finding> {
        if x >= engine_count + t.findings.len() {
            // A rule's finding joins the pair's as a warning: it never changes the spec's
            // verdict.
            let f = t.rules.get(x - engine_count - t.findings.len())?;
            let severity = if denies(f.code.id()) {
                Severity::Error
            } else {
                Severity::Warning
            };
            return Some(rule_finding(f, severity, &located));
        }
        if x >= engine_count {
            let f = t.findings.get(x - engine_count)?;
            let severity = if denies(f.code) {
                Severity::Error
            } else {
                Severity::Warning
            };
            return Some(read_finding(f, severity, &located));
        }
        let f = run.finding(x)?;
        Some(Finding {
            code: f.code,
            severity: match f.severity {
                engine::Severity::Error => Severity::Error,
                engine::Severity::Warning => Severity::Warning,
                engine::Severity::Info => Severity::Note,
            },
            message: f.message,
            help: (!f.help.is_empty()).then_some(f.help),
            location: match f.call {
                Some(i) => call_loc(i),
                None => Some(located(record_start)),
            },
            label: None,
            related: f.spec_span.map(|s| file.locate(s)),
            expectation: f.expectation,
            call: f.call.map(|i| call_ref(i, false)),
            unverified: f.unverified,
        })
    };
    // Under a `pass_rate` a transcript fails the run only through its spec's rate: what fails
    // it is said as a warning.
    let within_rate = spec.config.pass_rate.is_some();
    let mut findings = order
        .iter()
        .filter_map(|&x| finding(x))
        .chain(profile_error)
        .map(|mut f| {
            if within_rate && f.severity == Severity::Error {
                f.severity = Severity::Warning;
            }
            f
        });
    let tally = Tally {
        passed: violated.map_or(passed, |v| !v),
        unverified,
        within_rate,
    };
    (tally, record, sink.pair_streamed(head, &mut findings))
}

/// The states of a spec's statements on a run that may go on (`check --partial`): the engine's
/// ([`engine::Run::statements`]) with the statement as written and the message of its first
/// finding, and the findings of the built-in rules the spec denies (violated: about a call made;
/// `missing-result` pending: the result may still come).
fn partial_result(
    spec: &Spec,
    run: &engine::Run<'_>,
    statements: Vec<engine::Statement>,
    denied_rules: &[&RuleFinding],
    located: &dyn Fn(Span) -> Location,
) -> PartialResult {
    use engine::{State, Subject};
    let file = &spec.file;
    let mut out: Vec<PartialStatement> = Vec::new();
    for st in statements {
        let (kind, index) = match st.subject {
            Subject::Expectation(j) => ("expectation", Some(j)),
            Subject::Never(r) => ("never", Some(r)),
            Subject::Count(k) => ("count", Some(k)),
            Subject::Before(r) => ("before", Some(r)),
            Subject::Answer => ("answer", None),
            Subject::EveryCall => ("every_call", None),
        };
        let text = match st.subject {
            Subject::EveryCall => {
                let every = if spec.config.order == crate::config::OrderMode::Strict {
                    "order strict: every call, in the written order"
                } else {
                    "extra calls forbid: every call accounted for"
                };
                // Violated at a call that passes over a required expectation: located there.
                if st.spec_span == spec.config.span {
                    every.to_owned()
                } else {
                    format!(
                        "{every}; a call passes over `{}`, which no call made before it can fill",
                        file.snippet(st.spec_span)
                    )
                }
            }
            _ => file.snippet(st.spec_span),
        };
        // The finding that tells why: about the call that decided, else the first.
        let why = (st.state != State::Met)
            .then(|| {
                st.findings
                    .iter()
                    .find(|&&k| st.call.is_some() && run.finding_place(k).0 == st.call)
                    .or(st.findings.first())
                    .and_then(|&k| run.finding(k))
            })
            .flatten();
        out.push(PartialStatement {
            state: st.state.name().to_owned(),
            kind: kind.to_owned(),
            index,
            text,
            location: Some(file.locate(st.spec_span)),
            call: st.call,
            code: why.as_ref().map(|f| f.code.clone()),
            message: why.map(|f| f.message),
        });
    }
    for f in denied_rules {
        let state = if f.code == Code::MissingResult {
            State::Pending
        } else {
            State::Violated
        };
        out.push(PartialStatement {
            state: state.name().to_owned(),
            kind: "rule".to_owned(),
            index: None,
            text: f.code.id().to_owned(),
            location: Some(located(f.span)),
            call: None,
            code: Some(f.code.id().to_owned()),
            message: Some(f.message.clone()),
        });
    }
    let count = |s: State| out.iter().filter(|x| x.state == s.name()).count();
    let (violated, pending, met) = (
        count(State::Violated),
        count(State::Pending),
        count(State::Met),
    );
    let state = if violated > 0 {
        State::Violated
    } else if pending > 0 {
        State::Pending
    } else {
        State::Met
    };
    PartialResult {
        state: state.name().to_owned(),
        violated,
        pending,
        met,
        statements: out,
    }
}

/// The spec name of a result of the built-in rules alone ([`PairResult::is_rules_only`]).
const RULES_SPEC: &str = "rules";

/// A rule's finding in a report, at `severity` (a `rule-limit` note stays a note).
fn rule_finding(
    f: &RuleFinding,
    severity: Severity,
    located: &dyn Fn(Span) -> crate::report::model::Location,
) -> Finding {
    Finding {
        code: f.code.id().to_owned(),
        severity: if f.code == Code::RuleLimit {
            Severity::Note
        } else {
            severity
        },
        message: f.message.clone(),
        help: (!f.help.is_empty()).then(|| f.help.clone()),
        location: Some(located(f.span)),
        label: None,
        related: None,
        expectation: None,
        call: None,
        unverified: false,
    }
}

/// A reader's finding about the transcript, at `severity`, located in the transcript.
fn read_finding(
    f: &transcript::ReadFinding,
    severity: Severity,
    located: &dyn Fn(Span) -> crate::report::model::Location,
) -> Finding {
    Finding {
        code: f.code.to_owned(),
        severity,
        message: f.message.clone(),
        help: None,
        location: Some(located(f.span)),
        label: None,
        related: None,
        expectation: None,
        call: None,
        unverified: false,
    }
}

/// The result of the built-in rules alone on a transcript no spec names: its findings (the
/// rules' and the reader's the rules keep) at their codes' severities, sorted by place; it
/// fails when one is an error. Handed to `sink`; returns what the counts need of it (a rule's
/// finding leaves no spec unchecked), its record and the sink's entry.
fn rules_only<S: PairSink>(
    shown: &str,
    t: &Seen<'_>,
    locator: &mut locate::Locator<'_>,
    sink: &S,
) -> (Tally, Option<usize>, S::Entry) {
    let mut offsets: Vec<usize> = Vec::new();
    for s in t
        .findings
        .iter()
        .map(|f| f.span)
        .chain(t.rules.iter().map(|f| f.span))
    {
        offsets.extend([s.start, s.end]);
    }
    let found = locator.positions(offsets);
    let located = |span: Span| {
        let mut l = locate::pending(shown, span);
        (l.line, l.column) = found.at(span.start);
        (l.end_line, l.end_column) = found.at(span.end);
        l
    };
    let mut findings: Vec<Finding> = t
        .rules
        .iter()
        .map(|f| rule_finding(f, f.code.severity(), &located))
        .chain(t.findings.iter().map(|f| {
            let severity = Code::from_id(f.code).map_or(Severity::Warning, Code::severity);
            read_finding(f, severity, &located)
        }))
        .collect();
    findings.sort_by(|a, b| {
        let at = |f: &Finding| f.location.as_ref().map(|l| l.span);
        (at(a), &a.code, &a.message).cmp(&(at(b), &b.code, &b.message))
    });
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let passed = errors == 0;
    let head = PairResult {
        spec_file: String::new(),
        spec: RULES_SPEC.to_owned(),
        transcript: shown.to_owned(),
        record: t.record.map(|r| r.line),
        format: t.format.to_string(),
        profile: None,
        score: if passed { 1.0 } else { 0.0 },
        threshold: 1.0,
        passed,
        failure: match errors {
            0 => None,
            1 => Some("1 rule error".to_owned()),
            n => Some(format!("{n} rule errors")),
        },
        calls: t.spans.len(),
        counts: serde_json::Value::Object(serde_json::Map::new()),
        expectations: Vec::new(),
        rules: Vec::new(),
        findings: Vec::new(),
        profile_details: None,
        pass_rate: None,
        partial: None,
    };
    let record = head.record;
    (
        Tally {
            passed,
            unverified: 0,
            within_rate: false,
        },
        record,
        sink.pair_streamed(head, &mut findings.into_iter()),
    )
}

/// What failed a pair besides its score, in words ([`PairResult::failure`]): forbidden calls,
/// broken `before` rules, unmet critical expectations, counts out of range, extra calls a spec
/// that forbids them got,
/// expectations that got too many calls. `None` when there is none of these (the pair failed on its score). Looks at the
/// findings' places only, so 100 000 extra calls cost no finding built.
fn hard_failure(
    spec: &Spec,
    run: &engine::Run<'_>,
    calls: &dyn engine::Calls,
    verdict: &engine::Verdict,
) -> Option<String> {
    let strict_extras = spec.config.order == crate::config::OrderMode::Strict
        || spec.config.extra_calls == ExtraCalls::Forbid;
    // Distinct names in order of first finding (a set beside each list, so that 100 000
    // findings of distinct names are not compared with each other).
    let mut forbidden: Vec<&str> = Vec::new();
    let mut forbidden_set: HashSet<&str> = HashSet::new();
    let mut forbidden_calls = 0usize;
    let mut before = 0usize;
    let mut critical = 0usize;
    let mut counts = 0usize;
    let mut extra: Vec<&str> = Vec::new();
    let mut extra_set: HashSet<&str> = HashSet::new();
    // Every extra call fails a spec that forbids them (some are reported as out of order).
    let extra_calls = if strict_extras {
        verdict.counts.extra
    } else {
        0
    };
    for x in 0..run.finding_count() {
        let (call, _, code) = run.finding_place(x);
        let name = call.filter(|&i| i < calls.count()).map(|i| calls.name(i));
        if code == Code::ForbiddenCall.id() {
            forbidden_calls += 1;
            if let Some(n) = name.filter(|n| forbidden_set.insert(n)) {
                forbidden.push(n);
            }
        } else if code == Code::BeforeViolation.id() {
            before += 1;
        } else if code == Code::CriticalUnmet.id() {
            critical += 1;
        } else if code == Code::CountOutOfRange.id() {
            counts += 1;
        } else if strict_extras && code == Code::UnexpectedCall.id() {
            if let Some(n) = name.filter(|n| extra_set.insert(n)) {
                extra.push(n);
            }
        }
    }
    let names = |list: &[&str]| {
        let mut shown: Vec<String> = list.iter().take(3).map(|n| format!("`{n}`")).collect();
        if list.len() > 3 {
            shown.push(format!("and {} more", list.len() - 3));
        }
        shown.join(", ")
    };
    let mut parts = Vec::new();
    match forbidden_calls {
        0 => {}
        1 => parts.push(format!("forbidden call {}", names(&forbidden))),
        n => parts.push(format!("{n} forbidden calls ({})", names(&forbidden))),
    }
    match before {
        0 => {}
        1 => parts.push("broken `before` rule".to_owned()),
        n => parts.push(format!("{n} broken `before` rules")),
    }
    match critical {
        0 => {}
        1 => parts.push("unmet critical expectation".to_owned()),
        n => parts.push(format!("{n} unmet critical expectations")),
    }
    match counts {
        0 => {}
        1 => parts.push("a count out of range".to_owned()),
        n => parts.push(format!("{n} counts out of range")),
    }
    match extra_calls {
        0 => {}
        1 if extra.len() == 1 => parts.push(format!("extra call {}", names(&extra))),
        1 => parts.push("extra call".to_owned()),
        n if extra.is_empty() => parts.push(format!("{n} extra calls")),
        n => parts.push(format!("{n} extra calls ({})", names(&extra))),
    }
    let too_many: Vec<&str> = verdict
        .expectations
        .iter()
        .filter(|o| o.status == engine::Status::TooMany)
        .map(|o| o.tool.as_str())
        .collect();
    if !too_many.is_empty() {
        parts.push(format!("too many calls to {}", names(&too_many)));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}
