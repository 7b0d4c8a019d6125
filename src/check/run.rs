//! Running a check: paths and settings → a [`Report`].
//!
//! 1. Discover spec files and explicit transcripts ([`super::discover`]).
//! 2. Compile every spec file once, in parallel; compile errors become report errors and the
//!    other files go on.
//! 3. Bind each spec's globs ([`super::bind`]): explicit spec files (or folders) check every
//!    transcript their globs name; explicit transcript files are checked against every spec of
//!    the project whose globs name them (what a pre-commit hook needs).
//! 4. Read each transcript file once, in parallel (rayon, one task per file), and run every spec
//!    bound to it on each transcript it holds. Each result is handed to a
//!    [`PairSink`] as soon as it is complete (its locations resolved, its findings sorted): the
//!    sink keeps it ([`Collect`], for [`check`]) or renders it and keeps only where its text is
//!    ([`crate::report::stream::Streamer`], for [`check_with`]). Nothing about a transcript
//!    outlives it but what the sink keeps, so memory follows the largest transcript being
//!    checked, not the file or the run.
//! 5. Sort everything, so output is identical for any number of threads.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use rayon::prelude::*;

use super::bind::{self, display_path, BoundGlob, GlobError};
use super::discover::{self, Discovered};
use super::locate;
use super::settings::LoadedSettings;
use crate::compile::{self, FsLoader, ProjectLoader, SourceLoader, SpecDiagnostic};
use crate::config::{Check, ExtraCalls, MatcherConfig, PathSeg, TranscriptGlob, ValueMatcher};
use crate::engine;
use crate::guard::{Refused, RootGuard};
use crate::report::model::{
    CallRef, ExpectationResult, Finding, Location, PairResult, Report, Severity,
};
use crate::report::stream::{Collect, PairSink};
use crate::score::profiles::{self, ExpectedCall, ProfileVerdict};
use crate::source::{LineIndex, ReadTextError, SourceFile, Span};
use crate::transcript::{self, Format, ReadError, Transcript};

/// What to check, beyond the settings.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Folders, spec files or transcript files; empty means the current folder.
    pub paths: Vec<PathBuf>,
    /// Let spec globs reach outside the project root.
    pub allow_outside_root: bool,
    /// The judge for DeepEval's tool-selection part (`--judge CMD`; only the command line
    /// gives one).
    pub judge: Option<Arc<dyn profiles::Judge>>,
    /// For `watch`: the last text of each spec file that compiled. A spec that stops compiling
    /// mid-edit is reported and checked in its last good version; every spec that compiles is
    /// remembered here.
    pub last_good: Option<LastGood>,
    /// `--spec FILE`: check the transcripts named in `paths` (and [`Self::stdin`]) against
    /// every spec in this file, whatever its globs say; `paths` then name transcript files only.
    pub spec: Option<PathBuf>,
    /// A transcript read from standard input (`-` on the command line), shown as
    /// [`STDIN_NAME`]; checked against the specs of [`Self::spec`] (no glob names it).
    pub stdin: Option<Arc<[u8]>>,
    /// `--input-format`: read every transcript of the run as this format (over a spec's
    /// `format` and the `[formats]` of the settings).
    pub input_format: Option<Format>,
}

/// How a transcript read from standard input is shown in reports.
pub const STDIN_NAME: &str = "<stdin>";

/// The last text of each spec file that compiled (shared between runs of a watch).
#[derive(Debug, Clone, Default)]
pub struct LastGood(Arc<Mutex<HashMap<PathBuf, String>>>);

impl LastGood {
    fn get(&self, path: &Path) -> Option<String> {
        self.0.lock().ok()?.get(path).cloned()
    }

    fn set(&self, path: &Path, text: &str) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(path.to_path_buf(), text.to_owned());
        }
    }
}

/// A spec file's specs, or the errors that kept it from compiling.
type Compiled = Result<Vec<Spec>, Vec<Finding>>;

/// A compiled spec with what it needs to report: its file's text and its bound globs.
struct Spec {
    file: Arc<SpecFile>,
    /// The spec's name, shared by the sort keys of its results.
    name: Arc<str>,
    config: MatcherConfig,
    globs: Vec<BoundGlob>,
}

/// A spec file's text, display name and line index.
struct SpecFile {
    shown: String,
    /// `shown`, shared by the sort keys of its results.
    key: Arc<str>,
    text: String,
    index: LineIndex,
}

impl SpecFile {
    fn locate(&self, span: Span) -> Location {
        Location::of(&self.shown, self.text.as_bytes(), &self.index, span)
    }
}

/// Check the project and return the report (sorted, counted).
pub fn check(opts: &CheckOptions, settings: &LoadedSettings, cwd: &Path) -> Report {
    let Checked { mut report, pairs } = check_with(opts, settings, cwd, &Collect);
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
}

impl<E> Checked<E> {
    /// The process outcome, as [`Report::exit_status`] gives it for the whole report.
    pub fn exit_status(&self) -> u8 {
        crate::report::model::exit_status(
            !self.report.errors.is_empty(),
            self.report.summary.failed > 0,
        )
    }
}

/// Where a result goes in report order: spec file, spec, transcript, record.
type SortKey = (Arc<str>, Arc<str>, Arc<str>, Option<usize>);

/// What a file's task keeps of a result: its sort key, whether it passed, the sink's entry.
type Kept<E> = (SortKey, bool, E);

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
    let exclude = exclude_set(&settings.settings.exclude, &root, &mut report);
    let paths = if opts.paths.is_empty() && opts.spec.is_none() && opts.stdin.is_none() {
        vec![cwd.to_path_buf()]
    } else {
        opts.paths.clone()
    };
    let mut found = if opts.spec.is_some() {
        // Under `--spec` the paths are transcripts: a folder or spec file is a mistake.
        let (folders, files): (Vec<PathBuf>, Vec<PathBuf>) =
            paths.iter().cloned().partition(|p| p.is_dir());
        let mut found = discover::discover(&files, &exclude, &guard);
        for p in folders.iter().chain(&std::mem::take(&mut found.specs)) {
            report.errors.push(plain_error(
                "not-a-transcript",
                format!(
                    "{}: with --spec, the paths name transcript files",
                    display_path(p, cwd)
                ),
                Some("name the transcript files to check (or `-` for standard input)".into()),
            ));
        }
        found
    } else {
        discover::discover(&paths, &exclude, &guard)
    };
    if opts.stdin.is_some() && opts.spec.is_none() {
        report.errors.push(plain_error(
            "stdin-without-spec",
            format!("{STDIN_NAME}: a transcript read from standard input needs --spec FILE"),
            Some("no spec's globs name standard input: pass the spec to check it with".into()),
        ));
    }
    // The spec file of `--spec`, through the root guard as any spec file named on the command
    // line.
    let mut given_spec: Option<PathBuf> = None;
    if let Some(spec) = &opts.spec {
        let d = discover::discover(std::slice::from_ref(spec), &exclude, &guard);
        found.refused.extend(d.refused);
        found.problems.extend(d.problems);
        given_spec = d.specs.into_iter().chain(d.transcripts).next();
    }
    for (path, problem) in &found.refused {
        report
            .errors
            .push(refused_path(&display_path(path, cwd), problem));
    }
    for (path, problem) in &found.problems {
        report.errors.push(plain_error(
            "path-not-found",
            format!("{}: {problem}", display_path(path, cwd)),
            Some("check the path; folders are searched for *.toolspec files".into()),
        ));
    }
    // Explicit transcripts are checked against every spec of the project that names them. A
    // spec file is one entry however it was named (`s.toolspec` on the command line and found
    // again by the walk, `./s.toolspec`, twice): each (spec, transcript) pair is checked once.
    let mut spec_files: BTreeSet<PathBuf> = found.specs.iter().map(|p| absolute(p)).collect();
    spec_files.extend(given_spec.as_deref().map(absolute));
    if !found.transcripts.is_empty() && opts.spec.is_none() {
        let mut all = Discovered::default();
        discover::walk_specs(&root, &exclude, &mut all);
        spec_files.extend(all.specs.iter().map(|p| absolute(p)));
    }
    let explicit_specs: BTreeSet<PathBuf> = found.specs.iter().map(|p| absolute(p)).collect();

    let spec_files: Vec<PathBuf> = spec_files.into_iter().collect();
    let compiled: Vec<(PathBuf, Compiled, Vec<Finding>)> = par_map(&spec_files, |path| {
        let shown = display_path(&absolute(path), cwd);
        let (specs, warnings) = isolate(&shown, "compiling this spec file", || {
            compile_spec_file(path, settings, &root, &guard, opts, cwd)
        })
        .unwrap_or_else(|f| (Err(vec![f]), Vec::new()));
        (absolute(path), specs, warnings)
    });
    report.summary.spec_files = compiled.len();

    // Bind: transcript file → specs that check it.
    let mut bound: BTreeMap<PathBuf, Vec<(usize, usize)>> = BTreeMap::new();
    // The specs that check the transcript read from standard input.
    let mut stdin_specs: Vec<(usize, usize)> = Vec::new();
    let mut units: Vec<Vec<Spec>> = Vec::new();
    for (path, specs, warnings) in compiled {
        report.warnings.extend(warnings);
        let specs = match specs {
            Ok(s) => s,
            Err(errors) => {
                report.errors.extend(errors);
                continue;
            }
        };
        let unit = units.len();
        let full = explicit_specs.contains(&path);
        for (si, spec) in specs.iter().enumerate() {
            if full {
                for (g, glob) in spec.globs.iter().enumerate() {
                    let files = match glob.expand() {
                        Ok(files) => files,
                        Err(e) => {
                            report.errors.push(glob_error(
                                &spec.file,
                                &spec.config.transcripts[g],
                                &e,
                            ));
                            continue;
                        }
                    };
                    if files.is_empty() {
                        report
                            .warnings
                            .push(glob_warning(&spec.file, &spec.config.transcripts[g]));
                    }
                    for f in files {
                        push_unique(bound.entry(f).or_default(), (unit, si));
                    }
                }
            }
            // Under `--spec`, every spec of the file checks every transcript named.
            let given = opts.spec.is_some();
            for t in &found.transcripts {
                if given || spec.globs.iter().any(|g| g.matches(t)) {
                    push_unique(bound.entry(absolute(t)).or_default(), (unit, si));
                }
            }
            if given && opts.stdin.is_some() {
                push_unique(&mut stdin_specs, (unit, si));
            }
        }
        units.push(specs);
    }
    // An explicit transcript that no spec names is worth a word: it was not checked.
    let mut warned = BTreeSet::new();
    for t in &found.transcripts {
        if !bound.contains_key(&absolute(t)) && warned.insert(absolute(t)) {
            report.warnings.push(plain_warning(
                "unclaimed-transcript",
                format!(
                    "{} is not named by any spec's transcripts",
                    display_path(t, cwd)
                ),
                Some("add a glob that matches it to a spec's `transcripts` line".into()),
            ));
        }
    }

    let checked_specs: BTreeSet<(usize, usize)> = bound
        .values()
        .flatten()
        .chain(&stdin_specs)
        .copied()
        .collect();
    report.summary.specs = checked_specs.len();
    let formats = format_overrides(settings, &root, &mut report);
    // `None`: the transcript read from standard input.
    type Bound<'b> = (Option<&'b PathBuf>, &'b Vec<(usize, usize)>);
    let mut work: Vec<Bound<'_>> = bound.iter().map(|(f, s)| (Some(f), s)).collect();
    if !stdin_specs.is_empty() {
        work.push((None, &stdin_specs));
    }
    let outcomes: Vec<FileOutcome<S::Entry>> = par_map(&work, |(file, specs)| {
        let specs: Vec<&Spec> = specs.iter().map(|&(u, s)| &units[u][s]).collect();
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
            forced: opts.input_format,
        };
        // A file that panics is reported as an error, and what it had handed to the sink is
        // dropped with its outcome (as if it had no results).
        isolate(&shown, "checking this transcript file", || {
            check_file(
                &input,
                &specs,
                (&formats, &settings.mappings),
                sink,
                &guard,
                opts.judge.as_deref(),
            )
        })
        .unwrap_or_else(|f| FileOutcome {
            transcripts: 0,
            pairs: Vec::new(),
            errors: vec![f],
            warnings: Vec::new(),
        })
    });
    let mut transcripts = 0;
    let mut pairs: Vec<Kept<S::Entry>> = Vec::new();
    for o in outcomes {
        transcripts += o.transcripts;
        pairs.extend(o.pairs);
        report.errors.extend(o.errors);
        report.warnings.extend(o.warnings);
    }
    report.summary.transcripts = transcripts;
    // As Report::sort sorts results (a stable sort, from the same order).
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    report.sort();
    report.recount();
    if pairs.is_empty() && report.errors.is_empty() {
        // Exit 0 with nothing checked is easy to mistake for a pass.
        let (message, help) = if report.summary.spec_files == 0 {
            (
                "no spec × transcript pair was checked: no spec file was found",
                "specs are `*.toolspec` files, looked for under the paths given (default: the \
                 current folder); `--strict` makes this a failure",
            )
        } else {
            (
                "no spec × transcript pair was checked: no transcript matched the specs",
                "check that each spec's `transcripts` globs match files (relative to the spec \
                 file's folder) and that transcripts named on the command line are matched by \
                 some spec's globs; `--strict` makes this a failure",
            )
        };
        report.warnings.push(plain_warning(
            "nothing-checked",
            message.to_owned(),
            Some(help.to_owned()),
        ));
        report.sort();
        report.recount();
    }
    report.summary.checked = pairs.len();
    report.summary.passed = pairs.iter().filter(|p| p.1).count();
    report.summary.failed = report.summary.checked - report.summary.passed;
    Checked {
        report,
        pairs: pairs.into_iter().map(|p| p.2).collect(),
    }
}

/// Run `f`, turning a panic into an `internal-error` finding about `shown`, so that one file
/// that trips a bug is reported (exit 2) and every other file is still checked (ruff's
/// pattern). The default panic hook has already printed the message and location on stderr.
/// `f` over `items` on rayon's pool, in order; on this thread when there is at most one item,
/// so that a pre-commit run on one spec and one transcript never starts the thread pool.
fn par_map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
    if items.len() <= 1 {
        items.iter().map(f).collect()
    } else {
        items.par_iter().map(f).collect()
    }
}

// The finding is built only when a file panicked: never in a hot path.
#[allow(clippy::result_large_err)]
fn isolate<T>(shown: &str, doing: &str, f: impl FnOnce() -> T) -> Result<T, Finding> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        plain_error(
            "internal-error",
            format!("{shown}: internal error while {doing}: {what}"),
            Some(
                "this is a bug in toolspec, not in your file; please report it with the file attached (the other files were checked)"
                    .into(),
            ),
        )
    })
}

/// Bind a spec to a transcript once. Specs are bound in ascending (file, spec) order, so a
/// repeat (two globs of one spec matching the same file) can only be the last one: comparing
/// with it keeps the list free of repeats without scanning it (a transcript that 10 000 specs
/// name would otherwise cost 10 000² comparisons).
fn push_unique(v: &mut Vec<(usize, usize)>, item: (usize, usize)) {
    debug_assert!(v.last().is_none_or(|&l| l <= item));
    if v.last() != Some(&item) {
        v.push(item);
    }
}

fn absolute(p: &Path) -> PathBuf {
    bind::normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

fn exclude_set(patterns: &[String], root: &Path, report: &mut Report) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let full = format!(
            "{}/{}",
            globset::escape(&root.to_string_lossy()),
            p.trim_start_matches("./")
        );
        match GlobBuilder::new(&full).literal_separator(true).build() {
            Ok(g) => {
                b.add(g);
            }
            Err(e) => report.errors.push(plain_error(
                "invalid-setting",
                format!("exclude pattern `{p}` is not a valid glob: {}", e.kind()),
                None,
            )),
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// How the settings say a file is read: a built-in reader, or a custom mapping (by position in
/// [`LoadedSettings::mappings`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reading {
    Reader(Format),
    Mapping(usize),
}

/// The settings' readers by glob: custom mappings first (their `files`), then `[formats]`
/// entries naming a reader.
fn format_overrides(
    settings: &LoadedSettings,
    root: &Path,
    report: &mut Report,
) -> Vec<(globset::GlobMatcher, Reading)> {
    use crate::check::settings::rooted_glob;
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
        let crate::check::settings::FormatSetting::Reader(name) = entry else {
            continue;
        };
        match (rooted_glob(root, pattern), name.parse::<Format>()) {
            (Ok(g), Ok(f)) => out.push((g.compile_matcher(), Reading::Reader(f))),
            (Err(e), _) => report.errors.push(plain_error(
                "invalid-setting",
                format!(
                    "format pattern `{pattern}` is not a valid glob: {}",
                    e.kind()
                ),
                None,
            )),
            (_, Err(e)) => report.errors.push(plain_error(
                "invalid-setting",
                format!("format override for `{pattern}`: {e}"),
                None,
            )),
        }
    }
    out
}

/// Compile one spec file: its specs with globs bound, or its errors; plus warnings.
fn compile_spec_file(
    path: &Path,
    settings: &LoadedSettings,
    root: &Path,
    guard: &RootGuard,
    opts: &CheckOptions,
    cwd: &Path,
) -> (Compiled, Vec<Finding>) {
    let shown = display_path(&absolute(path), cwd);
    let text = match guard.read_text(path, crate::guard::SPEC_LIMIT) {
        Ok(t) => t,
        Err(ReadTextError::NotUtf8 { offset, at, byte }) => {
            let f = Finding {
                location: Some(Location {
                    file: shown.clone(),
                    line: at.line,
                    column: at.col,
                    end_line: at.line,
                    end_column: at.col + 1,
                    span: [offset, offset + 1],
                }),
                ..plain_error(
                    "unreadable-spec",
                    format!("this spec is not UTF-8: byte 0x{byte:02X} cannot be decoded"),
                    Some(
                        "toolspec reads specs as UTF-8 text; re-save the file as UTF-8 \
                         (the location is the first byte that is not)"
                            .into(),
                    ),
                )
            };
            return (Err(vec![f]), Vec::new());
        }
        Err(ReadTextError::Io(e)) if Refused::of(&e).is_some() => {
            return (Err(vec![refused_path(&shown, &e.to_string())]), Vec::new());
        }
        Err(e) => {
            let f = plain_error("unreadable-spec", format!("cannot read {shown}: {e}"), None);
            return (Err(vec![f]), Vec::new());
        }
    };
    let mut source = SourceFile::new(shown.clone(), text);
    // Includes stay inside the project unless globs may leave it too.
    let rooted;
    let loader: &dyn SourceLoader = if opts.allow_outside_root {
        &FsLoader
    } else {
        rooted = ProjectLoader::new(root).for_spec(path);
        &rooted
    };
    let mut result = compile::compile(&source, loader);
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for d in &result.diagnostics {
        let f = spec_finding(d);
        if d.is_error() {
            errors.push(f);
        } else {
            warnings.push(f);
        }
    }
    let key = absolute(path);
    if let Some(last_good) = &opts.last_good {
        if result.file.is_some() {
            last_good.set(&key, &source.text);
        } else if let Some(text) = last_good.get(&key) {
            // Mid-edit: keep checking with the version that last compiled, and say so.
            let fallback = SourceFile::new(shown.clone(), text);
            let again = compile::compile(&fallback, loader);
            if again.file.is_some() {
                warnings.append(&mut errors);
                warnings.push(plain_warning(
                    "using-last-good-spec",
                    format!("{shown} does not compile; checking with its last version that did"),
                    Some("fix the errors above; the watch picks up the next save".into()),
                ));
                source = fallback;
                result = again;
            }
        }
    }
    let Some(file) = result.file else {
        return (Err(errors), warnings);
    };
    let spec_file = Arc::new(SpecFile {
        key: Arc::from(shown.as_str()),
        shown,
        index: LineIndex::new(source.text.as_bytes()),
        text: source.text,
    });
    let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let base = if base.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        base
    };
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let allow = opts.allow_outside_root;
    let mut specs = Vec::new();
    for mut config in file.specs {
        if config.transcripts.is_empty() {
            config.transcripts = settings
                .settings
                .transcripts
                .iter()
                .map(|p| TranscriptGlob {
                    pattern: p.replace("{stem}", &stem).replace("{spec}", &config.name),
                    span: config.span,
                })
                .collect();
        }
        if config.transcripts.is_empty() {
            // Nothing would ever check it: say so rather than pass in silence. Pointed at the
            // spec's header line, not its whole body.
            let header = spec_file.text
                [config.span.start..config.span.end.min(spec_file.text.len())]
                .find('\n')
                .map_or(config.span, |n| {
                    Span::new(config.span.start, config.span.start + n)
                });
            warnings.push(Finding {
                location: Some(spec_file.locate(header)),
                ..plain_warning(
                    "spec-without-transcripts",
                    format!(
                        "spec `{}` names no transcripts and toolspec.toml gives no default, so it checks nothing",
                        config.name
                    ),
                    Some(
                        "add `transcripts \"runs/*.jsonl\"` to the spec, or `transcripts = [\"runs/{stem}/*.jsonl\"]` to toolspec.toml"
                            .into(),
                    ),
                )
            });
        }
        if config.profile.is_none() {
            if let Some(p) = &settings.settings.profile {
                config.profile = p.resolve().ok();
            }
        }
        let mut globs = Vec::new();
        let mut keep = Vec::new();
        for g in &config.transcripts {
            match BoundGlob::new(&g.pattern, &base, root, allow) {
                Ok(b) => {
                    globs.push(b);
                    keep.push(g.clone());
                }
                Err(e) => errors.push(glob_error(&spec_file, g, &e)),
            }
        }
        config.transcripts = keep;
        specs.push(Spec {
            file: spec_file.clone(),
            name: Arc::from(config.name.as_str()),
            config,
            globs,
        });
    }
    if errors.is_empty() {
        (Ok(specs), warnings)
    } else {
        (Err(errors), warnings)
    }
}

fn spec_finding(d: &SpecDiagnostic) -> Finding {
    let index = LineIndex::new(d.source_text().as_bytes());
    Finding {
        code: d.code.code().to_owned(),
        severity: if d.is_error() {
            Severity::Error
        } else {
            Severity::Warning
        },
        message: d.message.clone(),
        help: d.help.clone(),
        location: d
            .span()
            .map(|s| Location::of(&d.source_name, d.source_text().as_bytes(), &index, s)),
        label: d
            .labels
            .first()
            .map(|(_, l)| l.clone())
            .filter(|l| !l.is_empty()),
        related: None,
    }
}

fn glob_warning(file: &SpecFile, glob: &TranscriptGlob) -> Finding {
    let source = SourceFile::new(file.shown.clone(), file.text.clone());
    spec_finding(&compile::glob_matches_nothing(&source, glob))
}

fn glob_error(file: &SpecFile, glob: &TranscriptGlob, e: &GlobError) -> Finding {
    let (code, help) = match e {
        GlobError::OutsideRoot { .. } => (
            "glob-outside-root",
            "globs may not leave the project root (symbolic links followed); pass --allow-outside-root on the command line to allow it",
        ),
        GlobError::Invalid { .. } => ("invalid-glob", "see docs/language.md for the glob syntax"),
    };
    Finding {
        code: code.to_owned(),
        severity: Severity::Error,
        message: e.to_string(),
        help: Some(help.to_owned()),
        location: Some(file.locate(glob.span)),
        label: None,
        related: None,
    }
}

fn plain_error(code: &str, message: String, help: Option<String>) -> Finding {
    Finding {
        code: code.to_owned(),
        severity: Severity::Error,
        message,
        help,
        location: None,
        label: None,
        related: None,
    }
}

fn plain_warning(code: &str, message: String, help: Option<String>) -> Finding {
    Finding {
        severity: Severity::Warning,
        ..plain_error(code, message, help)
    }
}

/// What checking one transcript file produced.
struct FileOutcome<E> {
    transcripts: usize,
    pairs: Vec<Kept<E>>,
    errors: Vec<Finding>,
    /// `no-calls-read`: the file is not empty, yet no call was read from it.
    warnings: Vec<Finding>,
}

/// What a result needs of its transcript besides the engine's run: not the calls, only where
/// they are.
struct Seen<'a> {
    format: Format,
    record: Option<transcript::RecordLoc>,
    /// Each call's span, by position.
    spans: &'a [Span],
    findings: Vec<transcript::ReadFinding>,
}

/// The transcript `check_file` reads.
struct Input<'a> {
    /// Its path (for standard input, [`STDIN_NAME`], never opened).
    path: &'a Path,
    /// How reports show it.
    shown: &'a str,
    /// Its bytes when they were read already (standard input).
    given: Option<&'a [u8]>,
    /// `--input-format`.
    forced: Option<Format>,
}

/// Read one transcript file and run every bound spec on each transcript in it.
///
/// Each transcript is checked as soon as the reader hands it over; its calls are dropped once
/// every spec has run, and each result is handed to `sink` with its lines and columns filled in
/// ([`locate::Locator`], which follows the file forward: from the bytes already read, or by
/// streaming a file too large to hold). So memory follows one transcript's calls and results,
/// never the file size or the number of transcripts in it.
fn check_file<S: PairSink>(
    input: &Input<'_>,
    specs: &[&Spec],
    (formats, mappings): (
        &[(globset::GlobMatcher, Reading)],
        &[Arc<transcript::Mapping>],
    ),
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
    };
    // A spec that forces a format wins over the settings (a custom mapping whose `files`
    // match, then a `[formats]` reader); specs that disagree read the file once per format.
    let by_format: BTreeMap<Option<Reading>, Vec<&Spec>> =
        specs.iter().fold(BTreeMap::new(), |mut m, s| {
            let forced = input
                .forced
                .or_else(|| s.config.format.as_deref().and_then(|f| f.parse().ok()))
                .map(Reading::Reader)
                .or_else(|| {
                    if input.given.is_some() {
                        return None; // no `[formats]` glob names standard input
                    }
                    formats
                        .iter()
                        .find(|(g, _)| g.is_match(path))
                        .map(|(_, f)| *f)
                });
            m.entry(forced).or_insert_with(Vec::new).push(*s);
            m
        });
    // The file's bytes when it is small enough to read whole: read once, for every format and
    // for placing the findings.
    let mut whole: Option<Option<Vec<u8>>> = input.given.map(|b| Some(b.to_vec()));
    for (format, specs) in by_format {
        if whole.is_none() {
            match open_transcripts(path, &shown, guard) {
                Ok(bytes) => whole = Some(bytes),
                Err(e) => {
                    out.errors.push(read_error(&e, &shown));
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
                findings,
            } = t;
            let all: &dyn engine::Calls = match &compact {
                Some(table) => table,
                None => &calls,
            };
            let listed: Vec<Span>;
            let spans = match &compact {
                Some(table) => table.spans(),
                None => {
                    listed = calls.iter().map(|c| c.span).collect();
                    &listed
                }
            };
            calls_read += spans.len();
            let t = Seen {
                format,
                record,
                spans,
                findings,
            };
            // One spec at a time: its findings are built as the sink writes them out, so a
            // transcript with 100 000 extra calls never holds 100 000 findings.
            for s in specs.iter() {
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
                let (passed, record, entry) =
                    check_pair(s, &shown, &t, &run, all, profile, &mut locator, sink);
                let k = (s.file.key.clone(), s.name.clone(), key.clone(), record);
                pairs.push((k, passed, entry));
            }
        };
        let keep = engine::keep_for(&specs.iter().map(|s| &s.config).collect::<Vec<_>>());
        let read = match (format, text) {
            (Some(Reading::Mapping(i)), bytes) => {
                read_with_mapping(&shown, bytes, &mappings[i], emit)
            }
            (format, Some(bytes)) => {
                let format = format.and_then(Reading::reader);
                transcript::Reader::new()
                    .format(format)
                    .keep(keep)
                    .read_with(&shown, bytes, emit)
            }
            (format, None) => {
                let format = format.and_then(Reading::reader);
                stream_transcripts(path, &shown, format, &keep, emit, guard)
            }
        };
        // Transcripts read before an error (the records of a dataset before a broken line) are
        // still reported, next to the error.
        match read {
            Err(e) => out.errors.push(read_error(&e, &shown)),
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
        out.transcripts = out.transcripts.max(count);
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

/// The warning for a transcript file read without error but without a single call.
fn no_calls_warning(shown: &str, format: Format, forced: bool) -> Finding {
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
        ..plain_warning(
            "no-calls-read",
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
                    "if this file is not in the {format} format, name its format in the spec \
                 (`format openai-chat`, or another reader) or in a `[formats]` entry of \
                 toolspec.toml (`toolspec calls --input-format NAME {arg}` shows what a reader \
                 finds); if the run made no tool calls, this is expected"
                )
            }),
        )
    }
}

impl Reading {
    fn reader(self) -> Option<Format> {
        match self {
            Reading::Reader(f) => Some(f),
            Reading::Mapping(_) => None,
        }
    }
}

#[allow(clippy::result_large_err)]
/// Read a file with a custom mapping (only files read whole: a mapping queries the document).
fn read_with_mapping(
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
const WHOLE_FILE_LIMIT: u64 = 64 << 20;

// Read errors carry a renderable snippet; they are built once per failed file, never in a loop.
#[allow(clippy::result_large_err)]
/// Open a transcript file: its bytes if it is at most [`WHOLE_FILE_LIMIT`] bytes (read once,
/// reused for every format and for placing findings), `None` if it is to be streamed. Errors
/// name the file by its display name (so messages never show absolute paths).
fn open_transcripts(
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
fn stream_transcripts(
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

/// A path the root guard refused (outside the root, not a regular file, too large): never read.
fn refused_path(shown: &str, why: &str) -> Finding {
    plain_error(
        "path-refused",
        format!("{shown}: not read: {why}"),
        Some(
            "toolspec reads only regular files inside the project root; see docs/security.md"
                .into(),
        ),
    )
}

fn read_error(e: &ReadError, shown: &str) -> Finding {
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
    }
}

/// The expected calls a profile sees: each expectation's tool, repeated `min` times (optional
/// expectations are left out, as the peers have no notion of them), with the arguments and output
/// its literal checks pin (`Equals`/`Subset` values; other constraints cannot be expressed in the
/// peers' inputs and are left out; an expectation without literal checks leaves them `None`).
pub fn expected_calls(config: &MatcherConfig) -> Vec<ExpectedCall> {
    config
        .expectations
        .iter()
        .flat_map(|e| {
            let call = ExpectedCall {
                name: e.tool.clone(),
                args: literal_value(&e.args),
                output: e.output.as_ref().and_then(literal_value),
            };
            std::iter::repeat_n(call, e.repeat.min as usize)
        })
        .collect()
}

/// The JSON value a matcher's literal checks describe, if any.
fn literal_value(m: &ValueMatcher) -> Option<serde_json::Value> {
    let mut object = serde_json::Map::new();
    for pc in &m.checks {
        let value = match &pc.check {
            Check::Equals { value } | Check::Subset { value } => value.clone(),
            _ => continue,
        };
        match pc.path.as_slice() {
            [] => return Some(value),
            [PathSeg::Key(k)] => {
                object.insert(k.clone(), value);
            }
            _ => {}
        }
    }
    (!object.is_empty()).then_some(serde_json::Value::Object(object))
}

/// Build the result of `spec` on the transcript `t` from its engine `run` and hand it to `sink`
/// with its findings sorted and its locations placed; the findings are built one at a time as
/// the sink takes them. Returns whether it passed, its record and the sink's entry.
#[allow(clippy::too_many_arguments)]
fn check_pair<S: PairSink>(
    spec: &Spec,
    shown: &str,
    t: &Seen<'_>,
    run: &engine::Run<'_>,
    calls: &dyn engine::Calls,
    profile: Option<ProfileVerdict>,
    locator: &mut locate::Locator<'_>,
    sink: &S,
) -> (bool, Option<usize>, S::Entry) {
    let file = &spec.file;
    let verdict = run.verdict();
    let record_span = t.record.map(|r| r.span).unwrap_or(Span::point(0));
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
        } else {
            let f = &t.findings[x - engine_count];
            (Some(f.span), None, f.code)
        }
    };
    let mut order: Vec<usize> = (0..engine_count + t.findings.len()).collect();
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
                calls: o
                    .calls
                    .iter()
                    .map(|&i| CallRef {
                        index: i,
                        location: call_loc(i),
                    })
                    .collect(),
                reasons: o.failures.iter().map(|f| f.message.clone()).collect(),
                location: exp.map(|e| file.locate(e.span)),
            }
        })
        .collect();
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
    // A profile that could not score the pair (the peer would raise, or the judge failed) says
    // why, at the transcript.
    let profile_error = profile_details
        .as_ref()
        .and_then(|d| d.get("error"))
        .and_then(serde_json::Value::as_str)
        .map(|message| Finding {
            code: "profile-error".to_owned(),
            severity: Severity::Error,
            message: format!(
                "the `{}` profile could not score this pair: {message}",
                spec.config.profile.as_ref().map_or("", |p| p.name())
            ),
            help: None,
            location: Some(located(record_start)),
            label: None,
            related: None,
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
        findings: Vec::new(),
        profile_details,
    };
    let record = head.record;
    let finding = |x: usize| -> Option<Finding> {
        if x >= engine_count {
            let f = t.findings.get(x - engine_count)?;
            return Some(Finding {
                code: f.code.to_owned(),
                severity: Severity::Warning,
                message: f.message.clone(),
                help: None,
                location: Some(located(f.span)),
                label: None,
                related: None,
            });
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
        })
    };
    let mut findings = order
        .iter()
        .filter_map(|&x| finding(x))
        .chain(profile_error);
    (passed, record, sink.pair_streamed(head, &mut findings))
}

/// What failed a pair besides its score, in words ([`PairResult::failure`]): forbidden calls,
/// broken `before` rules, extra calls a spec that forbids them got, expectations that got too
/// many calls. `None` when there is none of these (the pair failed on its score). Looks at the
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
        match code {
            "forbidden-call" => {
                forbidden_calls += 1;
                if let Some(n) = name.filter(|n| forbidden_set.insert(n)) {
                    forbidden.push(n);
                }
            }
            "before-violation" => before += 1,
            "unexpected-call" if strict_extras => {
                if let Some(n) = name.filter(|n| extra_set.insert(n)) {
                    extra.push(n);
                }
            }
            _ => {}
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

#[cfg(test)]
mod isolation_tests {
    use super::*;

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
