//! Running a check: paths and settings → a [`Report`], or each result handed to a
//! [`PairSink`] as it is complete.
//!
//! 1. Plan (`plan`): discover spec files and explicit transcripts, compile every spec
//!    file once, in parallel, and bind each spec to the transcript files it checks.
//! 2. Check each transcript file once, in parallel (rayon, one task per file): read it
//!    (`read`) and run every spec bound to it on each transcript it holds
//!    (`result`). Each result is handed to a [`PairSink`] as soon as it is complete
//!    (its locations resolved, its findings sorted): the sink keeps it ([`Collect`], for
//!    [`check`]) or renders it and keeps only where its text is
//!    ([`crate::report::stream::Streamer`], for [`check_with`]). Nothing about a transcript
//!    outlives it but what the sink keeps, so memory follows the largest transcript being
//!    checked, not the file or the run.
//! 3. Sort everything, so output is identical for any number of threads.
//!
//! Input: [`CheckOptions`], [`LoadedSettings`], the working folder, a sink. Output: [`Checked`]
//! (the report without its results, and what the sink kept of each, in report order). Fails
//! per file, never per run: a file that cannot be read, a spec that does not compile, even a
//! file whose check panics (`isolate`) becomes a report error, and the rest is checked.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::findings::plain;
use super::paths::{absolute, display_path};
use super::plan::{self, Compiled};
use super::rate::{self, Rated};
use super::read::{format_overrides, Reading};
use super::result::{check_file, FileOutcome, Input, Kept};
use super::settings::LoadedSettings;
use crate::code::Code;
use crate::guard::RootGuard;
use crate::report::model::{Finding, Report};
use crate::report::stream::{Collect, PairSink};
use crate::transcript::Format;

pub use super::options::{CheckOptions, LastGood, STDIN_NAME};
pub use super::result::expected_calls;

/// Check the project and return the report (sorted, counted).
pub fn check(opts: &CheckOptions, settings: &LoadedSettings, cwd: &Path) -> Report {
    let Checked {
        mut report, pairs, ..
    } = check_with(opts, settings, cwd, &Collect);
    report.results = pairs;
    report
}

/// A check whose results went to a [`PairSink`].
#[derive(Debug)]
pub struct Checked<E> {
    /// The report without its results: summary (all counts, results included), errors and
    /// warnings, sorted.
    pub report: Report,
    /// What the sink kept of each result, in report order ([`Report::sort`]).
    pub pairs: Vec<E>,
    /// The folders where a file made, changed or removed can change this report (absolute,
    /// sorted, each once): those the check walked for spec files (ignored and wholly excluded
    /// ones left out, as the walk leaves their files out), those it walked for each spec's
    /// transcript globs, and the folders of the files it was given. `watch` watches these.
    pub folders: Vec<PathBuf>,
}

impl<E> Checked<E> {
    /// The process outcome, as [`Report::exit_status`] gives it for the whole report.
    pub fn exit_status(&self) -> u8 {
        self.report.exit_status()
    }

    /// The process outcome under `--strict`, as [`Report::strict_exit_status`] gives it.
    pub fn strict_exit_status(&self) -> u8 {
        self.report.strict_exit_status()
    }
}

/// Check the project, handing each result to `sink` as soon as it is complete (from worker
/// threads, in no particular order); return the rest of the report and what the sink kept, in
/// report order. With [`Collect`] this is [`check`].
pub fn check_with<S: PairSink>(
    opts: &CheckOptions,
    settings: &LoadedSettings,
    cwd: &Path,
    sink: &S,
) -> Checked<S::Entry> {
    let mut report = Report::default();
    let root = std::path::absolute(&settings.root).unwrap_or_else(|_| settings.root.clone());
    // Every file the check reads goes through this guard (see docs/security.md).
    let guard = RootGuard::for_project(&root, opts.allow_outside_root);
    let exclude = plan::exclude_set(&settings.settings.exclude, &root, &mut report);
    let git_global = !opts.no_git_global_excludes;
    let found = plan::discover(
        opts,
        (cwd, &root),
        (&exclude, &guard, git_global),
        &mut report,
    );
    let compiled: Vec<(PathBuf, Compiled, Vec<Finding>)> = par_map(&found.spec_files, |path| {
        let shown = display_path(&absolute(path), cwd);
        let (specs, warnings) = isolate(&shown, "compiling this spec file", || {
            plan::compile_spec_file(path, settings, &root, &guard, opts, cwd)
        })
        .unwrap_or_else(|f| (Err(vec![f]), Vec::new()));
        (absolute(path), specs, warnings)
    });
    let rules = settings
        .rules
        .rule_set(opts.select.as_deref(), &opts.ignore);
    let bound = plan::bind(
        compiled,
        &found,
        opts,
        (git_global, rules.any()),
        &mut report,
    );
    let mut folders: Vec<PathBuf> = found
        .folders
        .iter()
        .chain(&bound.folders)
        .map(|f| absolute(f))
        .collect();
    folders.sort();
    folders.dedup();
    let formats = format_overrides(settings, &root, &mut report);
    // `--input-format`: a built-in reader, or a custom mapping of the settings by name.
    let forced = if let Some(name) = &opts.input_mapping {
        let Some(i) = settings.mappings.iter().position(|m| m.name == *name) else {
            report.errors.push(plain(
                Code::InvalidSetting,
                format!("--input-format `{name}` names no reader and no custom mapping (`[formats.{name}]`) of toolspec.toml"),
                Some("name a reader of docs/formats.md or a `[formats.NAME]` table of toolspec.toml".to_owned()),
            ));
            report.sort();
            return Checked {
                report,
                pairs: Vec::new(),
                folders,
            };
        };
        Some(Reading::Mapping(i))
    } else {
        opts.input_format.map(Reading::Reader)
    };
    // `None`: the transcript read from standard input. Then whether no spec names the file.
    type Work<'b> = (Option<&'b PathBuf>, &'b [plan::SpecRef], Unclaimed);
    let mut work: Vec<Work<'_>> = bound
        .files
        .iter()
        .map(|(f, s)| (Some(f), s.as_slice(), Unclaimed::No))
        .collect();
    if !bound.stdin.is_empty() {
        work.push((None, &bound.stdin, Unclaimed::No));
    }
    work.extend(
        bound
            .unclaimed
            .iter()
            .map(|(f, quiet)| (Some(f), &[][..], Unclaimed::of(*quiet))),
    );
    let rated: Vec<Rated> = bound
        .units
        .iter()
        .zip(&bound.full)
        .flat_map(|(specs, &full)| specs.iter().filter_map(move |s| Rated::of(s, full)))
        .collect();
    // Each distinct JSON Schema the transcripts declare is compiled once for the run.
    let schemas = crate::rules::SchemaCache::default();
    let outcomes: Vec<FileOutcome<S::Entry>> = par_map(&work, |&(file, specs, unclaimed)| {
        let quiet = unclaimed == Unclaimed::Walked;
        let specs: Vec<&plan::Spec> = specs.iter().map(|&r| bound.spec(r)).collect();
        let (path, shown, given) = match file {
            Some(f) => (f.as_path(), display_path(f, cwd), None),
            None => (
                Path::new(STDIN_NAME),
                STDIN_NAME.to_owned(),
                opts.stdin.as_deref(),
            ),
        };
        let input = Input {
            path,
            shown: &shown,
            given,
            document: None,
            forced,
            quiet,
            name_skipped: quiet && opts.name_skipped,
            named_unclaimed: unclaimed == Unclaimed::Named,
            partial: opts.partial,
            unsettled: &[],
        };
        // A file that panics is reported as an error, and what it had handed to the sink is
        // dropped with its outcome (as if it had no results).
        isolate(&shown, "checking this transcript file", || {
            check_file(
                &input,
                &specs,
                (&formats, &settings.mappings),
                (&rules, &schemas),
                sink,
                &guard,
                opts.judge.as_deref(),
            )
        })
        .unwrap_or_else(|f| FileOutcome::failed(f, &specs))
    });
    let named = bound.files.len() + usize::from(!bound.stdin.is_empty());
    let mut checked = finish(report, outcomes, &rated, named);
    checked.report.summary.partial = opts.partial;
    checked.folders = folders;
    checked
}

/// Whether no spec names a transcript file of the run, and how it came into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unclaimed {
    /// Some spec names it (or it is standard input under `--spec`).
    No,
    /// Named on the command line.
    Named,
    /// Found in a walked folder.
    Walked,
}

impl Unclaimed {
    /// From the flag of [`plan::Bound::unclaimed`].
    fn of(walked: bool) -> Unclaimed {
        if walked {
            Unclaimed::Walked
        } else {
            Unclaimed::Named
        }
    }
}

/// The end of a check: the files' outcomes gathered into the report (sorted, counted), with a
/// warning when nothing was checked (`named`: how many transcript files some spec named, to say
/// why); what the sink kept of each result, in report order.
fn finish<E>(
    mut report: Report,
    outcomes: Vec<FileOutcome<E>>,
    rated: &[Rated],
    named: usize,
) -> Checked<E> {
    let mut transcripts = 0;
    let mut pairs: Vec<Kept<E>> = Vec::new();
    let mut unread = Vec::new();
    for o in outcomes {
        transcripts += o.transcripts;
        pairs.extend(o.pairs);
        report.errors.extend(o.errors);
        report.warnings.extend(o.warnings);
        unread.extend(o.unread);
    }
    report.rates = rate::rates(
        rated,
        pairs
            .iter()
            .map(|((file, spec, _, _), tally, _)| ((file, spec), tally.passed)),
        &unread,
    );
    report.summary.transcripts = transcripts;
    // As Report::sort sorts results (a stable sort, from the same order).
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    report.sort();
    if pairs.is_empty() && report.errors.is_empty() {
        // Exit 0 with nothing checked is easy to mistake for a pass.
        let (message, help) = if report.summary.spec_files == 0 {
            (
                "no spec × transcript pair was checked: no spec file was found",
                "specs are `*.toolspec` files, looked for under the paths given (default: the \
                 current folder); `--strict` makes this a failure",
            )
        } else if named > 0 {
            (
                "no spec × transcript pair was checked: the transcript files the specs name hold no transcript",
                "a file can be read whole and hold none: a dataset of no records, an Inspect AI \
                 log without samples; `--strict` makes this a failure",
            )
        } else {
            (
                "no spec × transcript pair was checked: no transcript matched the specs",
                "check that each spec's `transcripts` globs match files (relative to the spec \
                 file's folder) and that transcripts named on the command line are matched by \
                 some spec's globs; `--strict` makes this a failure",
            )
        };
        report.warnings.push(plain(
            Code::NothingChecked,
            message.to_owned(),
            Some(help.to_owned()),
        ));
        report.sort();
    }
    // The report holds no result: the counts are the tallies the check kept, counted once.
    report.count(pairs.iter().map(|p| p.1));
    Checked {
        report,
        pairs: pairs.into_iter().map(|p| p.2).collect(),
        folders: Vec::new(),
    }
}

/// A transcript to check with a [`SpecSet`]: a file, or bytes already in memory (shown as
/// [`STDIN_NAME`], as `toolspec check --spec FILE -` shows standard input).
#[derive(Debug, Clone, Copy)]
pub enum Given<'a> {
    /// A transcript file, read through the project's root guard.
    Path(&'a Path),
    /// A transcript's bytes.
    Bytes(&'a [u8]),
    /// A JSON document already in memory as a value (a host language's objects), checked as
    /// its text would be, without parsing it.
    Document(&'a crate::transcript::Document),
}

/// The specs of one spec file, compiled once with the settings they were compiled under, to
/// check transcripts one at a time: what `toolspec check --spec FILE TRANSCRIPT` does, without
/// planning a run, finding files or compiling again for each transcript. The spec file is
/// compiled by the function the run compiles every spec file with, and each transcript is
/// checked by the one the run checks every transcript file with, so the results are the ones
/// the command reports.
pub struct SpecSet {
    specs: Vec<plan::Spec>,
    warnings: Vec<Finding>,
    formats: Vec<(globset::GlobMatcher, Reading)>,
    mappings: Vec<std::sync::Arc<crate::transcript::Mapping>>,
    rules: crate::rules::RuleSet,
    guard: RootGuard,
    cwd: PathBuf,
}

impl std::fmt::Debug for SpecSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpecSet")
            .field("specs", &self.names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl SpecSet {
    /// Compile the spec file `path` (shown relative to `cwd`), or `text` as if it were that
    /// file's content (includes and globs relative to its folder; nothing is read at `path`),
    /// under `settings`. `allow_outside_root` is `--allow-outside-root`. Fails with the report
    /// of what kept it from compiling (its errors and warnings).
    #[allow(clippy::result_large_err)]
    pub fn compile(
        path: &Path,
        text: Option<String>,
        settings: &LoadedSettings,
        cwd: &Path,
        allow_outside_root: bool,
    ) -> Result<SpecSet, Report> {
        let mut report = Report::default();
        let root = std::path::absolute(&settings.root).unwrap_or_else(|_| settings.root.clone());
        let guard = RootGuard::for_project(&root, allow_outside_root);
        let opts = CheckOptions {
            spec: Some(path.to_path_buf()),
            allow_outside_root,
            ..CheckOptions::default()
        };
        let shown = display_path(&absolute(path), cwd);
        let (specs, warnings) = isolate(&shown, "compiling this spec file", || match text {
            Some(text) => plan::compile_spec_text(
                path,
                shown.clone(),
                text,
                settings,
                (&root, &guard),
                &opts,
                cwd,
                None,
            ),
            None => plan::compile_spec_file(path, settings, &root, &guard, &opts, cwd),
        })
        .unwrap_or_else(|f| (Err(vec![f]), Vec::new()));
        let formats = format_overrides(settings, &root, &mut report);
        report.warnings.extend(warnings.iter().cloned());
        match specs {
            Ok(specs) if report.errors.is_empty() => Ok(SpecSet {
                specs,
                warnings,
                formats,
                mappings: settings.mappings.clone(),
                rules: settings.rules.rule_set(None, &[]),
                guard,
                cwd: cwd.to_path_buf(),
            }),
            Ok(_) => {
                report.sort();
                report.recount();
                Err(report)
            }
            Err(errors) => {
                report.errors.extend(errors);
                report.sort();
                report.recount();
                Err(report)
            }
        }
    }

    /// The compile warnings, which every report of [`SpecSet::check`] repeats.
    pub fn warnings(&self) -> &[Finding] {
        &self.warnings
    }

    /// The files its includes read, at any depth (absolute when the working folder given to
    /// [`SpecSet::compile`] is): with the spec file itself, what a cache of compiled specs must
    /// see unchanged to reuse one.
    pub fn includes(&self) -> &[PathBuf] {
        self.specs.first().map_or(&[], |s| &s.file.includes)
    }

    /// The names of its specs, in the file's order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.specs.iter().map(|s| &*s.name)
    }

    /// Every spec of the file, as `toolspec check --spec FILE` checks a transcript with.
    pub fn all(&self) -> Selection {
        Selection((0..self.specs.len()).collect())
    }

    /// The specs of the file that check `transcript`, as a run chooses them:
    /// - `name` given: the spec of that name, whatever its globs say;
    /// - a path that the globs of some specs name: those specs, as `toolspec check PATH` binds
    ///   a transcript named on the command line;
    /// - otherwise (bytes, a document, a path no glob names): the file's one spec; a file of
    ///   several specs needs `name`, and the error names them. A transcript is never checked
    ///   against a sibling spec meant for other runs.
    pub fn select(
        &self,
        transcript: Given<'_>,
        name: Option<&str>,
    ) -> Result<Selection, Unselected> {
        let names = || self.names().map(str::to_owned).collect::<Vec<_>>();
        let file = || {
            self.specs
                .first()
                .map_or_else(String::new, |s| s.file.shown.clone())
        };
        if let Some(name) = name {
            return match self.specs.iter().position(|s| &*s.name == name) {
                Some(i) => Ok(Selection(vec![i])),
                None => Err(Unselected::UnknownName {
                    file: file(),
                    name: name.to_owned(),
                    names: names(),
                }),
            };
        }
        let mut path_shown = None;
        if let Given::Path(p) = transcript {
            let p = absolute(p);
            let claimed: Vec<usize> = (0..self.specs.len())
                .filter(|&i| self.specs[i].claims(&p))
                .collect();
            if !claimed.is_empty() {
                return Ok(Selection(claimed));
            }
            path_shown = Some(display_path(&p, &self.cwd));
        }
        if self.specs.len() <= 1 {
            return Ok(self.all());
        }
        Err(Unselected::Ambiguous {
            file: file(),
            names: names(),
            path: path_shown,
        })
    }

    /// Check `transcript` against every spec of the file, as `toolspec check --spec FILE
    /// TRANSCRIPT` does: the report (sorted, counted), with one result per spec × transcript
    /// it holds; a transcript that cannot be read is a report error. `forced` is
    /// `--input-format`.
    pub fn check(&self, transcript: Given<'_>, forced: Option<Format>) -> Report {
        self.check_selected(&self.all(), transcript, forced)
    }

    /// [`SpecSet::check`] with the specs of `selection` only ([`SpecSet::select`]): they
    /// alone are checked and counted.
    pub fn check_selected(
        &self,
        selection: &Selection,
        transcript: Given<'_>,
        forced: Option<Format>,
    ) -> Report {
        let Checked {
            mut report, pairs, ..
        } = self.check_selected_with(selection, transcript, forced, &Collect);
        report.results = pairs;
        report
    }

    /// [`SpecSet::check`], each result handed to `sink`: the report without its results, and
    /// what the sink kept of each, in report order. With [`crate::report::stream::Verdicts`]
    /// no result is built: the counts say whether everything passed.
    pub fn check_with<S: PairSink>(
        &self,
        transcript: Given<'_>,
        forced: Option<Format>,
        sink: &S,
    ) -> Checked<S::Entry> {
        self.check_selected_with(&self.all(), transcript, forced, sink)
    }

    /// [`SpecSet::check_with`] with the specs of `selection` only.
    pub fn check_selected_with<S: PairSink>(
        &self,
        selection: &Selection,
        transcript: Given<'_>,
        forced: Option<Format>,
        sink: &S,
    ) -> Checked<S::Entry> {
        self.check_run(selection, transcript, forced, sink, None)
    }

    /// [`SpecSet::check_selected`] with the transcript taken as the beginning of a run that
    /// may go on, as `toolspec check --partial` takes it: each result says which statements
    /// are violated, pending or met (`docs/engine.md`); `unsettled` (sorted positions of calls)
    /// are the calls whose result is not in yet (a guard's journal), decided on nothing that
    /// depends on their result.
    pub fn check_partial(
        &self,
        selection: &Selection,
        transcript: Given<'_>,
        forced: Option<Format>,
        unsettled: &[usize],
    ) -> Report {
        let Checked {
            mut report, pairs, ..
        } = self.check_run(selection, transcript, forced, &Collect, Some(unsettled));
        report.results = pairs;
        report.summary.partial = true;
        report
    }

    /// The specs of the file with their names, in the file's order.
    pub fn configs(&self) -> impl Iterator<Item = (&str, &crate::config::MatcherConfig)> {
        self.specs.iter().map(|s| (&*s.name, &s.config))
    }

    /// Check with `partial`: `None` for a whole run, or the unsettled calls of a partial one.
    fn check_run<S: PairSink>(
        &self,
        selection: &Selection,
        transcript: Given<'_>,
        forced: Option<Format>,
        sink: &S,
        partial: Option<&[usize]>,
    ) -> Checked<S::Entry> {
        let (path, shown, given, document) = match transcript {
            Given::Path(p) => {
                let p = absolute(p);
                let shown = display_path(&p, &self.cwd);
                (p, shown, None, None)
            }
            Given::Bytes(b) => (
                PathBuf::from(STDIN_NAME),
                STDIN_NAME.to_owned(),
                Some(b),
                None,
            ),
            Given::Document(d) => (
                PathBuf::from(STDIN_NAME),
                STDIN_NAME.to_owned(),
                None,
                Some(d),
            ),
        };
        let specs: Vec<&plan::Spec> = selection.0.iter().map(|&i| &self.specs[i]).collect();
        let input = Input {
            path: &path,
            shown: &shown,
            given,
            document,
            forced: forced.map(Reading::Reader),
            quiet: false,
            name_skipped: false,
            named_unclaimed: false,
            partial: partial.is_some(),
            unsettled: partial.unwrap_or(&[]),
        };
        let outcome = isolate(&shown, "checking this transcript file", || {
            check_file(
                &input,
                &specs,
                (&self.formats, &self.mappings),
                // One transcript: its schemas are not kept past it (a spec kept for many
                // checks would keep every distinct schema they declared).
                (&self.rules, &crate::rules::SchemaCache::default()),
                sink,
                &self.guard,
                None,
            )
        })
        .unwrap_or_else(|f| FileOutcome::failed(f, &specs));
        let mut report = Report {
            warnings: self.warnings.clone(),
            ..Report::default()
        };
        report.summary.spec_files = 1;
        report.summary.specs = specs.len();
        // Every spec selected takes part: its rate is over the transcripts given.
        let rated: Vec<Rated> = specs.iter().filter_map(|s| Rated::of(s, true)).collect();
        finish(report, vec![outcome], &rated, 1)
    }
}

/// A spec file's text as an editor holds it, compiled by the function `toolspec check` compiles
/// every spec file with ([`SpecSet::compile`] too): what `toolspec lsp` shows.
#[derive(Debug, Default)]
pub struct Diagnosed {
    /// The compiler's diagnostics, whole (every label), in its order: the text's, and its
    /// included files' (each names its file).
    pub diagnostics: Vec<crate::compile::SpecDiagnostic>,
    /// What the check adds about the file (a glob that is invalid or leaves the root, a spec
    /// that names no transcripts, the settings' own errors), located where they have a place.
    pub findings: Vec<Finding>,
    /// The compiled specs with their transcript globs bound, when the file compiles.
    pub specs: Vec<(crate::config::MatcherConfig, Vec<super::bind::BoundGlob>)>,
    /// The files its includes read (absolute), when it compiles.
    pub includes: Vec<PathBuf>,
}

/// Compile `text` as the content of the spec file `path` (shown relative to `cwd`) under
/// `settings`, as [`SpecSet::compile`] does, its includes read through the project's root guard
/// with `buffers` (an editor's open documents) in place of the files they hold. Nothing is
/// walked or checked: the editor's diagnostics, on every change.
pub fn diagnose(
    path: &Path,
    text: String,
    settings: &LoadedSettings,
    cwd: &Path,
    buffers: Option<std::sync::Arc<crate::compile::Buffers>>,
) -> Diagnosed {
    let mut report = Report::default();
    let root = std::path::absolute(&settings.root).unwrap_or_else(|_| settings.root.clone());
    let guard = RootGuard::for_project(&root, false);
    let opts = CheckOptions {
        spec: Some(path.to_path_buf()),
        ..CheckOptions::default()
    };
    let shown = display_path(&absolute(path), cwd);
    let mut editor = plan::Editor {
        buffers,
        diagnostics: Vec::new(),
    };
    let (specs, warnings) = isolate(&shown, "compiling this spec file", || {
        plan::compile_spec_text(
            path,
            shown.clone(),
            text,
            settings,
            (&root, &guard),
            &opts,
            cwd,
            Some(&mut editor),
        )
    })
    .unwrap_or_else(|f| (Err(vec![f]), Vec::new()));
    format_overrides(settings, &root, &mut report);
    let mut findings = report.errors;
    findings.extend(warnings);
    let (specs, includes) = match specs {
        Ok(specs) => {
            let includes = specs.first().map(|s| s.file.includes.clone());
            let specs = specs.into_iter().map(|s| (s.config, s.globs)).collect();
            (specs, includes.unwrap_or_default())
        }
        Err(errors) => {
            findings.extend(errors);
            (Vec::new(), Vec::new())
        }
    };
    Diagnosed {
        diagnostics: editor.diagnostics,
        findings,
        specs,
        includes,
    }
}

/// Which specs of a [`SpecSet`] check a transcript (positions in the file's order), from
/// [`SpecSet::select`] or [`SpecSet::all`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection(Vec<usize>);

/// Why [`SpecSet::select`] chose no spec: the caller must name one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unselected {
    /// The name given is no spec of the file.
    #[error("{file} has no spec named `{name}`; its specs: {}", list(.names))]
    UnknownName {
        /// The spec file, as reports show it.
        file: String,
        /// The name asked for.
        name: String,
        /// Its specs' names.
        names: Vec<String>,
    },
    /// No glob names the transcript (or it is no file) and the file holds several specs.
    #[error("{}", ambiguous(.file, .names, .path.as_deref()))]
    Ambiguous {
        /// The spec file, as reports show it.
        file: String,
        /// Its specs' names.
        names: Vec<String>,
        /// The transcript file, when it was given by path.
        path: Option<String>,
    },
}

fn ambiguous(file: &str, names: &[String], path: Option<&str>) -> String {
    let why = match path {
        Some(p) => format!("none of their `transcripts` globs names {p}"),
        None => "a transcript given as bytes or objects is named by no glob".to_owned(),
    };
    format!(
        "{file} holds {} specs ({}) and {why}: name the spec to check it against",
        names.len(),
        list(names)
    )
}

fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `f` over `items` in parallel, in order; on this thread when there is at most one item, so
/// that a pre-commit run on one spec and one transcript never starts a thread pool. Inside a
/// rayon pool (the command's `-j`), on that pool; else on [`own_pool`], or on this thread when
/// no thread could be started (a process under `ulimit -v` or a thread limit): rayon's global
/// pool would panic there instead, which in the Python module raises out of the interpreter's
/// call rather than giving a report.
fn par_map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
    if items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    if rayon::current_thread_index().is_some() {
        return items.par_iter().map(f).collect();
    }
    match own_pool() {
        Some(pool) => pool.install(|| items.par_iter().map(f).collect()),
        None => items.iter().map(f).collect(),
    }
}

/// The library's thread pool, one worker a core, built once and fallibly: `None` when the
/// process cannot start its threads.
fn own_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().build().ok())
        .as_ref()
}

/// Run `f`, turning a panic into an `internal-error` finding about `shown`, so that one file
/// that trips a bug is reported (exit 2) and every other file is still checked (ruff's
/// pattern). The default panic hook has already printed the message and location on stderr.
// The finding is built only when a file panicked: never in a hot path.
#[allow(clippy::result_large_err)]
fn isolate<T>(shown: &str, doing: &str, f: impl FnOnce() -> T) -> Result<T, Finding> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        plain(
            Code::InternalError,
            format!("{shown}: internal error while {doing}: {what}"),
            Some(
                "this is a bug in toolspec, not in your file; please report it with the file attached (the other files were checked)"
                    .into(),
            ),
        )
    })
}

#[cfg(test)]
mod isolation_tests {
    use super::*;
    use crate::report::model::Severity;

    #[test]
    fn a_panic_becomes_an_internal_error_finding() {
        let ok = isolate("a.json", "checking", || 7);
        assert_eq!(ok.ok(), Some(7));
        let boom: Result<(), Finding> =
            isolate("runs/b.json", "checking this transcript file", || {
                panic!("index out of bounds: {}", 3)
            });
        let fixed: Result<(), Finding> = isolate("c.toolspec", "compiling", || panic!("fixed"));
        let f = boom.unwrap_err();
        assert_eq!(f.code, "internal-error");
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(
            f.message,
            "runs/b.json: internal error while checking this transcript file: index out of bounds: 3"
        );
        assert!(fixed.unwrap_err().message.ends_with("compiling: fixed"));
    }
}
