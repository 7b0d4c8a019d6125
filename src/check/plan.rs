//! Planning a check: paths, options and settings → the compiled specs, each bound to the
//! transcript files it checks.
//!
//! 1. Discover spec files and explicit transcripts ([`super::discover`]); explicit transcripts
//!    bring in every spec file of the project, to find the specs that name them.
//! 2. Compile each spec file ([`compile_spec_file`]; the run compiles them in parallel);
//!    compile errors become report errors and the other files go on.
//! 3. Bind each spec's globs ([`super::bind`]): explicit spec files (or folders) check every
//!    transcript their globs name; explicit transcript files are checked against every spec of
//!    the project whose globs name them (what a pre-commit hook needs); under `--whole-rates`
//!    such a spec with a `pass_rate` checks every transcript its globs name, so that its rate
//!    is the one a check of its spec file gives.
//!
//! Input: [`CheckOptions`], [`LoadedSettings`], the working folder. Output: [`Found`], then
//! [`Bound`]. Fails per file, never per run: a missing or refused path, a spec that does not
//! compile, a glob that is invalid or leaves the root become report errors or warnings.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::bind::{BoundGlob, GlobError};
use super::discover::{self, Discovered};
use super::findings::{plain, refused_path, spec_finding};
use super::options::{CheckOptions, STDIN_NAME};
use super::paths::{absolute, display_path};
use super::settings::LoadedSettings;
use crate::code::Code;
use crate::compile::{self, FsLoader};
use crate::config::{MatcherConfig, TranscriptGlob};
use crate::guard::{Refused, RootGuard};
use crate::report::model::{Finding, Location, Report};
use crate::source::{LineIndex, ReadTextError, SourceFile, Span};

/// What the paths of a run name.
pub(super) struct Found {
    /// Every spec file to compile (absolute, normalised, sorted, each once however it was
    /// named).
    pub(super) spec_files: Vec<PathBuf>,
    /// The spec files named on the command line or found under a folder named there: they
    /// check every transcript their globs name.
    pub(super) explicit_specs: BTreeSet<PathBuf>,
    /// Transcript files named on the command line.
    pub(super) transcripts: Vec<PathBuf>,
    /// Files under the folders walked that may be transcripts (none under `--spec`).
    pub(super) candidates: Vec<PathBuf>,
    /// The folders where a new or changed file changes what was found
    /// ([`Discovered::folders`]).
    pub(super) folders: Vec<PathBuf>,
}

/// Discover what the options' paths name (the working folder by default); paths that are
/// missing, refused or (under `--spec`) not transcripts become report errors.
pub(super) fn discover(
    opts: &CheckOptions,
    (cwd, root): (&Path, &Path),
    (exclude, guard, git_global): (&GlobSet, &RootGuard, bool),
    report: &mut Report,
) -> Found {
    let mut paths = if opts.paths.is_empty() && opts.spec.is_none() && opts.stdin.is_none() {
        vec![cwd.to_path_buf()]
    } else {
        opts.paths.clone()
    };
    if opts.force_exclude {
        paths.retain(|p| p.is_dir() || !discover::is_excluded(p, exclude));
    }
    let mut found = if opts.spec.is_some() {
        // Under `--spec` the paths are transcripts: a folder or spec file is a mistake.
        let (folders, files): (Vec<PathBuf>, Vec<PathBuf>) =
            paths.iter().cloned().partition(|p| p.is_dir());
        let mut found = discover::discover(&files, exclude, guard, git_global);
        for p in folders.iter().chain(&std::mem::take(&mut found.specs)) {
            report.errors.push(plain(
                Code::NotATranscript,
                format!(
                    "{}: with --spec, the paths name transcript files",
                    display_path(p, cwd)
                ),
                Some("name the transcript files to check (or `-` for standard input)".into()),
            ));
        }
        found
    } else {
        discover::discover(&paths, exclude, guard, git_global)
    };
    if opts.stdin.is_some() && opts.spec.is_none() {
        report.errors.push(plain(
            Code::StdinWithoutSpec,
            format!("{STDIN_NAME}: a transcript read from standard input needs --spec FILE"),
            Some("no spec's globs name standard input: pass the spec to check it with".into()),
        ));
    }
    // The spec file of `--spec`, through the root guard as any spec file named on the command
    // line.
    let mut given_spec: Option<PathBuf> = None;
    if let Some(spec) = &opts.spec {
        let d = discover::discover(std::slice::from_ref(spec), exclude, guard, git_global);
        found.refused.extend(d.refused);
        found.problems.extend(d.problems);
        found.folders.extend(d.folders);
        given_spec = d.specs.into_iter().chain(d.transcripts).next();
    }
    for (path, problem) in &found.refused {
        report
            .errors
            .push(refused_path(&display_path(path, cwd), problem));
    }
    for (path, problem) in &found.problems {
        report.errors.push(plain(
            Code::PathNotFound,
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
        discover::walk_specs(root, exclude, git_global, &mut all);
        spec_files.extend(all.specs.iter().map(|p| absolute(p)));
        found.folders.extend(all.folders);
    }
    let explicit_specs: BTreeSet<PathBuf> = found.specs.iter().map(|p| absolute(p)).collect();
    Found {
        spec_files: spec_files.into_iter().collect(),
        explicit_specs,
        transcripts: found.transcripts,
        candidates: found.candidates,
        folders: found.folders,
    }
}

/// A spec by position: its file's place in [`Bound::units`], its place in that file.
pub(super) type SpecRef = (usize, usize);

/// The compiled specs and what each checks.
pub(super) struct Bound {
    /// The specs of each spec file that compiled.
    pub(super) units: Vec<Vec<Spec>>,
    /// For each of `units`, whether the file was named (or found under a folder named): its
    /// specs check every transcript their globs name.
    pub(super) full: Vec<bool>,
    /// Transcript file → the specs that check it, in ascending order.
    pub(super) files: BTreeMap<PathBuf, Vec<SpecRef>>,
    /// The specs that check the transcript read from standard input.
    pub(super) stdin: Vec<SpecRef>,
    /// Transcript files no spec checks: those named on the command line (`false`: read, to
    /// tell a transcript, said to be checked by no spec and checked by the built-in rules, from
    /// a file that is none, passed over with a note), then the files of walked folders that may
    /// be transcripts, for the built-in rules alone when any applies (`true`: quiet, a file
    /// that does not read as one is passed over).
    pub(super) unclaimed: Vec<(PathBuf, bool)>,
    /// The folders where a new or changed file changes what the specs' globs name
    /// ([`BoundGlob::expand`]).
    pub(super) folders: Vec<PathBuf>,
}

impl Bound {
    /// The spec `r` names.
    pub(super) fn spec(&self, (unit, spec): SpecRef) -> &Spec {
        &self.units[unit][spec]
    }
}

/// Bind the compiled spec files (absolute path, specs or errors, warnings; in path order) to
/// the transcripts they check; errors and warnings go to `report`, with a warning for each
/// explicit transcript no spec names. Sets the summary's spec counts.
pub(super) fn bind(
    compiled: Vec<(PathBuf, Compiled, Vec<Finding>)>,
    found: &Found,
    opts: &CheckOptions,
    (git_global, rules): (bool, bool),
    report: &mut Report,
) -> Bound {
    report.summary.spec_files = compiled.len();
    // Transcript file → specs that check it.
    let mut bound: BTreeMap<PathBuf, Vec<SpecRef>> = BTreeMap::new();
    // The specs that check the transcript read from standard input.
    let mut stdin_specs: Vec<SpecRef> = Vec::new();
    let mut units: Vec<Vec<Spec>> = Vec::new();
    let mut fulls: Vec<bool> = Vec::new();
    let mut folders: Vec<PathBuf> = Vec::new();
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
        let full = found.explicit_specs.contains(&path);
        for (si, spec) in specs.iter().enumerate() {
            // `--whole-rates`: a spec with a rate that a named transcript brings in is judged
            // over all its transcripts, as if its file were named (its globs are not warned
            // about: its file is not what was named).
            let whole = full
                || (opts.whole_rates
                    && opts.spec.is_none()
                    && spec.config.pass_rate.is_some()
                    && found.transcripts.iter().any(|t| spec.claims(t)));
            if whole {
                for (g, glob) in spec.globs.iter().enumerate() {
                    let files = match glob.expand(git_global, &mut folders) {
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
                    if files.is_empty() && full {
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
                if given || spec.claims(t) {
                    push_unique(bound.entry(absolute(t)).or_default(), (unit, si));
                }
            }
            if given && opts.stdin.is_some() {
                push_unique(&mut stdin_specs, (unit, si));
            }
        }
        units.push(specs);
        fulls.push(full);
    }

    let checked_specs: BTreeSet<SpecRef> = bound
        .values()
        .flatten()
        .chain(&stdin_specs)
        .copied()
        .collect();
    report.summary.specs = checked_specs.len();
    // An explicit transcript that no spec names is worth a word, said once it is read
    // (`check_file`): a transcript no spec checks, or a file that is no transcript, passed over
    // (a pre-commit hook is handed every staged `package.json`).
    let mut unclaimed: Vec<(PathBuf, bool)> = Vec::new();
    let mut seen = BTreeSet::new();
    let explicit = found.transcripts.iter().map(|t| (t, false));
    let walked = found.candidates.iter().map(|t| (t, true)).filter(|_| rules);
    for (t, quiet) in explicit.chain(walked) {
        let abs = absolute(t);
        if !bound.contains_key(&abs) && seen.insert(abs.clone()) {
            unclaimed.push((abs, quiet));
        }
    }
    Bound {
        units,
        full: fulls,
        files: bound,
        stdin: stdin_specs,
        unclaimed,
        folders,
    }
}

/// A spec file's specs, or the errors that kept it from compiling.
pub(super) type Compiled = Result<Vec<Spec>, Vec<Finding>>;

/// A compiled spec with what it needs to report: its file's text and its bound globs.
pub(super) struct Spec {
    /// Its file.
    pub(super) file: Arc<SpecFile>,
    /// The spec's name, shared by the sort keys of its results.
    pub(super) name: Arc<str>,
    /// What the engine checks.
    pub(super) config: MatcherConfig,
    /// Its transcript globs, bound (in the order of `config.transcripts`).
    pub(super) globs: Vec<BoundGlob>,
}

impl Spec {
    /// Whether one of its globs names the transcript file `path`: how a transcript named on the
    /// command line (or given to the library by path) finds the specs that check it.
    pub(super) fn claims(&self, path: &Path) -> bool {
        self.globs.iter().any(|g| g.matches(path))
    }
}

/// A spec file's text, display name and line index.
pub(super) struct SpecFile {
    /// How reports name it.
    pub(super) shown: String,
    /// `shown`, shared by the sort keys of its results.
    pub(super) key: Arc<str>,
    text: String,
    index: LineIndex,
    /// The included files that `tool` declarations the specs' constraints come from are in:
    /// name, text and line index.
    declarations: Vec<(String, String, LineIndex)>,
    /// Every file its includes read (at any depth), as paths.
    pub(super) includes: Vec<PathBuf>,
}

impl SpecFile {
    /// The text of `span` as a report quotes a statement: its first line, trimmed, control
    /// characters as spaces, cut to 80 characters with `…`.
    pub(super) fn snippet(&self, span: Span) -> String {
        let text = self.text.get(span.start..span.end).unwrap_or("");
        let line = text.lines().next().unwrap_or("").trim();
        let clean: String = line
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        crate::report::brief::fit(&clean, 80)
    }

    /// Where `span` of the file is.
    pub(super) fn locate(&self, span: Span) -> Location {
        Location::of(&self.shown, self.text.as_bytes(), &self.index, span)
    }

    /// Where `span` is: in the file `declared` names (a `tool` declaration's, the file's own or
    /// an included one), or in this file when `None`.
    pub(super) fn locate_in(&self, declared: Option<&str>, span: Span) -> Location {
        match declared {
            Some(name) if name != self.shown => {
                match self.declarations.iter().find(|(n, _, _)| n == name) {
                    Some((n, text, index)) => Location::of(n, text.as_bytes(), index, span),
                    // Not kept (cannot happen: compile lists every file it names): the file
                    // named, at its start, rather than a place in the wrong file.
                    None => Location::of(name, b"", &LineIndex::new(b""), Span::point(0)),
                }
            }
            _ => self.locate(span),
        }
    }
}

/// Bind a spec to a transcript once. Specs are bound in ascending (file, spec) order, so a
/// repeat (two globs of one spec matching the same file) can only be the last one: comparing
/// with it keeps the list free of repeats without scanning it (a transcript that 10 000 specs
/// name would otherwise cost 10 000² comparisons).
fn push_unique(v: &mut Vec<SpecRef>, item: SpecRef) {
    debug_assert!(v.last().is_none_or(|&l| l <= item));
    if v.last() != Some(&item) {
        v.push(item);
    }
}

/// The settings' `exclude` globs, rooted; an invalid one is a report error.
pub(super) fn exclude_set(patterns: &[String], root: &Path, report: &mut Report) -> GlobSet {
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
            Err(e) => report.errors.push(plain(
                Code::InvalidSetting,
                format!("exclude pattern `{p}` is not a valid glob: {}", e.kind()),
                None,
            )),
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// Compile one spec file: its specs with globs bound, or its errors; plus warnings.
pub(super) fn compile_spec_file(
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
                ..plain(
                    Code::UnreadableSpec,
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
            let f = plain(
                Code::UnreadableSpec,
                format!("cannot read {shown}: {e}"),
                None,
            );
            return (Err(vec![f]), Vec::new());
        }
    };
    compile_spec_text(path, shown, text, settings, (root, guard), opts, cwd, None)
}

/// What an editor adds to a compilation ([`super::run::diagnose`]): the open buffers that
/// includes read in place of the files on disk, and the compiler's diagnostics kept whole
/// (every label, for the editor's related locations) instead of as report findings.
#[derive(Default)]
pub(super) struct Editor {
    /// The open buffers.
    pub(super) buffers: Option<Arc<compile::Buffers>>,
    /// The compiler's diagnostics, in its order.
    pub(super) diagnostics: Vec<compile::SpecDiagnostic>,
}

/// Compile the text of the spec file `path` (shown as `shown`; includes and globs are relative
/// to its folder; includes are read through `guard`, globs bound inside `root` unless
/// `--allow-outside-root`): its specs with globs bound, or its errors; plus warnings. A spec
/// file read from disk ([`compile_spec_file`]) and a spec held in memory
/// ([`super::run::SpecSet::compile`]) both go through here, and so does an editor's buffer
/// (`editor`: [`super::run::diagnose`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn compile_spec_text(
    path: &Path,
    shown: String,
    text: String,
    settings: &LoadedSettings,
    (root, guard): (&Path, &RootGuard),
    opts: &CheckOptions,
    cwd: &Path,
    editor: Option<&mut Editor>,
) -> (Compiled, Vec<Finding>) {
    let mut source = SourceFile::new(shown.clone(), text);
    // Includes go through the run's guard, as every file it reads; their names, like `shown`,
    // are relative to `cwd`.
    let mut fs = FsLoader::new(guard.clone()).relative_to(cwd);
    if let Some(buffers) = editor.as_ref().and_then(|e| e.buffers.clone()) {
        fs = fs.with_buffers(buffers);
    }
    let loader = compile::Recording::new(&fs);
    let mut result = compile::compile(&source, &loader);
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    match editor {
        Some(editor) => editor.diagnostics = std::mem::take(&mut result.diagnostics),
        None => {
            for d in &result.diagnostics {
                let f = spec_finding(d);
                if d.is_error() {
                    errors.push(f);
                } else {
                    warnings.push(f);
                }
            }
        }
    }
    let key = absolute(path);
    if let Some(last_good) = &opts.last_good {
        if result.file.is_some() {
            last_good.set(&key, &source.text);
        } else if let Some(text) = last_good.get(&key) {
            // Mid-edit: keep checking with the version that last compiled, and say so.
            let fallback = SourceFile::new(shown.clone(), text);
            let again = compile::compile(&fallback, &loader);
            if again.file.is_some() {
                warnings.append(&mut errors);
                warnings.push(plain(
                    Code::UsingLastGoodSpec,
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
    let includes = loader
        .into_loaded()
        .into_iter()
        .map(|n| cwd.join(n))
        .collect();
    let spec_file = Arc::new(SpecFile {
        includes,
        key: Arc::from(shown.as_str()),
        shown,
        index: LineIndex::new(source.text.as_bytes()),
        text: source.text,
        declarations: result
            .declarations
            .into_iter()
            .map(|d| {
                let index = LineIndex::new(d.text.as_bytes());
                (d.name, d.text, index)
            })
            .collect(),
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
        // Under `--spec FILE` its specs check the transcripts named on the command line.
        if config.transcripts.is_empty() && opts.spec.is_none() {
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
                ..plain(
                    Code::SpecWithoutTranscripts,
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

fn glob_warning(file: &SpecFile, glob: &TranscriptGlob) -> Finding {
    let source = SourceFile::new(file.shown.clone(), file.text.clone());
    spec_finding(&compile::glob_matches_nothing(&source, glob))
}

fn glob_error(file: &SpecFile, glob: &TranscriptGlob, e: &GlobError) -> Finding {
    let (code, help) = match e {
        GlobError::OutsideRoot { .. } => (
            Code::GlobOutsideRoot,
            "globs may not leave the project root (symbolic links followed); pass --allow-outside-root on the command line to allow it",
        ),
        GlobError::Invalid { .. } => (Code::InvalidGlob, "see docs/language.md for the glob syntax"),
    };
    Finding {
        code: code.id().to_owned(),
        severity: code.severity(),
        message: e.to_string(),
        help: Some(help.to_owned()),
        location: Some(file.locate(glob.span)),
        label: None,
        related: None,
        expectation: None,
        call: None,
        unverified: false,
    }
}
