//! The `toolspec._toolspec` extension module: the adapter between Python and the toolspec
//! library, as `src/cli/` is the adapter between the terminal and it. The Python package
//! (`toolspec/`) wraps these functions in its documented API; this module takes paths, bytes and
//! Python objects (read as the JSON document they stand for, [`objects`]), runs the library's
//! check, reader and compiler, and hands back their JSON (the same documents the command
//! prints) or rendered text.
//!
//! The `toolspec` command of the package is the library's command line
//! ([`toolspec::cli::run`]), run in-process by [`main`]: the binary's code, compiled once.
#![forbid(unsafe_code)]

/// Rust's allocations in this module go to mimalloc (see `Cargo.toml` for why); Python's own
/// objects keep the interpreter's allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};
use serde_json::Value;

use toolspec::check::paths::{absolute, display_path};
use toolspec::check::run::{
    check, CheckOptions, Given, Selection, SpecSet, Unselected, STDIN_NAME,
};
use toolspec::check::settings::LoadedSettings;
use toolspec::check::verdicts::Verdict;
use toolspec::guard::RootGuard;
use toolspec::report::stream::Verdicts;
use toolspec::report::{human, Report};
use toolspec::transcript::{Document, Format, Reader};

use toolspec::cli;
use toolspec::cli::sources::SourceCache;

mod objects;

/// A transcript as the Python layer passes it: a file, bytes, or Python objects read as the
/// JSON document they stand for ([`objects`]).
enum Input {
    Path(PathBuf),
    Bytes(Vec<u8>),
    Document(Document),
}

impl Input {
    fn given(&self) -> Given<'_> {
        match self {
            Input::Path(p) => Given::Path(p),
            Input::Bytes(b) => Given::Bytes(b),
            Input::Document(d) => Given::Document(d),
        }
    }
}

/// The report of one check and the texts to explain it with.
///
/// A check of bytes or Python objects decides its verdicts first, without building a result
/// (`report::stream::Verdicts`), and builds the whole report from the same input when something
/// asks for more than whether it passed: `toolspec.check(...).passed` costs what `passes` costs.
#[pyclass(frozen, module = "toolspec._toolspec")]
struct Checked {
    report: Built,
    sources: Arc<SourceCache>,
}

/// A check's report: built at once, or after its verdicts.
enum Built {
    Now(Report),
    Later(Box<Later>),
}

/// A check whose verdicts were decided first and whose report is built when asked for.
struct Later {
    /// The report without its results: its errors, warnings and counts, which are those of the
    /// whole report.
    head: Report,
    /// The whole report, once built.
    whole: OnceLock<Report>,
    /// The compiled specs and the input (bytes or Python objects, never a path: a file is read
    /// once).
    set: Arc<SpecSet>,
    /// The specs of the set that check the input.
    selection: Selection,
    input: Input,
    forced: Option<Format>,
}

impl Checked {
    /// A report built at once.
    fn ready(report: Report, sources: Arc<SourceCache>) -> Checked {
        Checked {
            report: Built::Now(report),
            sources,
        }
    }

    /// The whole report.
    fn report(&self) -> &Report {
        match &self.report {
            Built::Now(report) => report,
            Built::Later(later) => later.whole.get_or_init(|| {
                self.pin_input();
                later
                    .set
                    .check_selected(&later.selection, later.input.given(), later.forced)
            }),
        }
    }

    /// Show the bytes or objects checked (their JSON text) as `<stdin>` in the report's
    /// snippets.
    fn pin_input(&self) {
        let Built::Later(later) = &self.report else {
            return;
        };
        match &later.input {
            Input::Bytes(b) => self.sources.pin(STDIN_NAME, b),
            Input::Document(d) => self.sources.pin(STDIN_NAME, d.text()),
            Input::Path(_) => {}
        }
    }

    /// The errors, warnings and counts.
    fn head(&self) -> &Report {
        match &self.report {
            Built::Now(report) => report,
            Built::Later(later) => &later.head,
        }
    }
}

#[pymethods]
impl Checked {
    /// Whether the check passed: the outcome the check decided, the one `toolspec check` exits
    /// 0 on ([`passed`]).
    #[getter]
    fn passed(&self) -> bool {
        passed(self.head())
    }

    /// Whether something could not be checked (the report's `errors`).
    #[getter]
    fn has_errors(&self) -> bool {
        !self.head().errors.is_empty()
    }

    /// The report as `toolspec check --format json` prints it.
    #[getter]
    fn json(&self, py: Python<'_>) -> String {
        py.detach(|| toolspec::report::json::render(self.report()))
    }

    /// The human report of result `index` (its findings with the transcript and spec excerpts,
    /// then its verdict line), without colour.
    fn explain(&self, py: Python<'_>, index: usize, width: usize) -> PyResult<String> {
        let report = py.detach(|| self.report());
        let Some(result) = report.results.get(index) else {
            return Err(PyValueError::new_err(format!("no result {index}")));
        };
        let sources = |name: &str| self.sources.get(name);
        let opts = text_options(width);
        Ok(py.detach(|| human::render_pair(result, &sources, opts)))
    }

    /// The verdicts of the run (`check::verdicts`), one per thing that can fail it, in report
    /// order: `("pair", result, passed, [], "")` for a result that stands alone, `("rate", rate,
    /// met, [its results], its verdict line)` for a spec's pass rate.
    fn verdicts(&self, py: Python<'_>) -> Vec<(&'static str, usize, bool, Vec<usize>, String)> {
        let report = py.detach(|| self.report());
        toolspec::check::verdicts::verdicts(report)
            .into_iter()
            .map(|v| {
                let passed = v.passed(report);
                match v {
                    Verdict::Pair { result } => ("pair", result, passed, Vec::new(), String::new()),
                    Verdict::Rate { rate, results } => {
                        ("rate", rate, passed, results, report.rates[rate].line())
                    }
                }
            })
            .collect()
    }

    /// The human text of the run's errors and warnings (spec compile errors, unreadable
    /// transcripts), as the command prints them on standard error.
    fn problems(&self, width: usize) -> String {
        let sources = |name: &str| self.sources.get(name);
        let opts = text_options(width);
        self.pin_input();
        human::render_run_findings(self.head(), &sources, opts)
    }
}

/// Whether a check passed, from its report with or without results: the exit status the check
/// decided is 0 (`Report::exit_status`, read, not decided again here), as for the command.
fn passed(head: &Report) -> bool {
    head.exit_status() == 0
}

/// The specs of one spec file, compiled once ([`toolspec::check::run::SpecSet`]), with the
/// settings found from the current folder when it was compiled.
#[pyclass(frozen, module = "toolspec._toolspec")]
struct CompiledSpec {
    set: Arc<SpecSet>,
    /// The name and text of a spec given as text, for the snippets of `explain()`.
    text: Option<(String, Arc<String>)>,
    /// The project root it was compiled under (symbolic links resolved).
    root: PathBuf,
}

#[pymethods]
impl CompiledSpec {
    /// The names of its specs, in the file's order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.set.names().map(str::to_owned).collect()
    }

    /// The project root it was compiled under: what `root=` names to compile it again, in
    /// another process, under the same root and settings.
    #[getter]
    fn root(&self) -> PathBuf {
        self.root.clone()
    }

    /// The files its includes read, at any depth: what `toolspec.check`'s cache of compiled
    /// specs watches, with the spec file, to reuse one.
    #[getter]
    fn includes(&self) -> Vec<PathBuf> {
        self.set.includes().to_vec()
    }

    /// Check `transcript` (a path, bytes or Python objects) against the specs that check it
    /// (`SpecSet::select`: the spec named `spec_name`; else those whose globs name the path;
    /// else the file's one spec). Raises `ValueError` when the file holds several specs and
    /// none is chosen.
    #[pyo3(signature = (transcript, input_format=None, spec_name=None))]
    fn check(
        &self,
        py: Python<'_>,
        transcript: &Bound<'_, PyAny>,
        input_format: Option<&str>,
        spec_name: Option<&str>,
    ) -> PyResult<Checked> {
        let input = input(transcript)?;
        let forced = format(input_format)?;
        let selection = self.select(&input, spec_name)?;
        Ok(py.detach(|| {
            let sources = Arc::new(SourceCache::default());
            if let Some((name, text)) = &self.text {
                sources.pin_text(name, text.clone());
            }
            if let Input::Path(_) = input {
                let report = self.set.check_selected(&selection, input.given(), forced);
                return Checked::ready(report, sources);
            }
            // Bytes and objects: the verdicts now, the whole report when asked for.
            let head = self
                .set
                .check_selected_with(&selection, input.given(), forced, &Verdicts)
                .report;
            Checked {
                report: Built::Later(Box::new(Later {
                    head,
                    whole: OnceLock::new(),
                    set: self.set.clone(),
                    selection,
                    input,
                    forced,
                })),
                sources,
            }
        }))
    }

    /// Whether `transcript` (a path, bytes or Python objects) passes the specs that check it,
    /// and whether something could not be checked: the verdicts of [`CompiledSpec::check`]
    /// without building a result (`report::stream::Verdicts`).
    #[pyo3(signature = (transcript, input_format=None, spec_name=None))]
    fn passes(
        &self,
        py: Python<'_>,
        transcript: &Bound<'_, PyAny>,
        input_format: Option<&str>,
        spec_name: Option<&str>,
    ) -> PyResult<(bool, bool)> {
        let input = input(transcript)?;
        let forced = format(input_format)?;
        let selection = self.select(&input, spec_name)?;
        Ok(py.detach(|| {
            let head = self
                .set
                .check_selected_with(&selection, input.given(), forced, &Verdicts)
                .report;
            (passed(&head), !head.errors.is_empty())
        }))
    }
}

impl CompiledSpec {
    /// The specs that check `input` (`SpecSet::select`), or why the caller must name one.
    fn select(&self, input: &Input, spec_name: Option<&str>) -> PyResult<Selection> {
        self.set.select(input.given(), spec_name).map_err(|e| {
            let how = match e {
                Unselected::Ambiguous { .. } => {
                    " (`spec_name=` of `toolspec.check`, `name=` of `toolspec.Spec`)"
                }
                Unselected::UnknownName { .. } => "",
            };
            PyValueError::new_err(format!("{e}{how}"))
        })
    }
}

/// How spec source text is named: a file of this name at the project root, which its includes
/// and globs are relative to.
const TEXT_SPEC_FILE: &str = "spec.toolspec";

/// The working folder and the project's settings: those of `root` when the caller states it
/// (`root=`; [`LoadedSettings::at_root`]), else found from the working folder up as the
/// command finds them. Every file the call reads goes through the root guard of their root.
fn project(root: Option<&Path>) -> PyResult<(PathBuf, LoadedSettings)> {
    let cwd = current_dir()?;
    let settings = match root {
        Some(r) => LoadedSettings::at_root(&absolute(r)),
        None => LoadedSettings::discover(&cwd),
    }
    .map_err(|e| PyValueError::new_err(render(&e)))?;
    Ok((cwd, settings))
}

/// The project root without reading the settings (for what reads no settings: `compile`,
/// `calls`): `root` as stated, else the one the command finds from the working folder.
fn project_root(root: Option<&Path>) -> PyResult<PathBuf> {
    Ok(match root {
        Some(r) => absolute(r),
        None => toolspec::check::settings::project_root(&current_dir()?),
    })
}

/// The spec file `path`, or `text` as the content of [`TEXT_SPEC_FILE`] at the project root
/// (nothing is then read), and the name the reports give it.
fn spec_path(
    path: Option<PathBuf>,
    text: &Option<String>,
    root: &Path,
    cwd: &Path,
) -> (PathBuf, String) {
    let path = match (path, text) {
        (Some(p), None) => p,
        _ => absolute(root).join(TEXT_SPEC_FILE),
    };
    let shown = display_path(&absolute(&path), cwd);
    (path, shown)
}

/// Compile the spec file `path`, or `text` as spec source (named [`TEXT_SPEC_FILE`] at the
/// project root: its includes and globs are relative to the root), under the project's
/// settings ([`project`]); the spec file and its includes are read through the project's root
/// guard, widened to anywhere by `allow_outside_root`. Returns the compiled specs, or `None`
/// and the report of why not (its errors); the report holds the compile warnings either way.
#[pyfunction]
#[pyo3(signature = (path, text=None, allow_outside_root=false, root=None))]
fn compile_spec(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    allow_outside_root: bool,
    root: Option<PathBuf>,
) -> PyResult<(Option<CompiledSpec>, Checked)> {
    py.detach(|| {
        let (cwd, settings) = project(root.as_deref())?;
        let (path, shown) = spec_path(path, &text, &settings.root, &cwd);
        let root = absolute(&settings.root);
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        let sources = Arc::new(SourceCache::default());
        let pinned = text.as_ref().map(|t| (shown, Arc::new(t.clone())));
        if let Some((name, t)) = &pinned {
            sources.pin_text(name, t.clone());
        }
        Ok(
            match SpecSet::compile(&path, text, &settings, &cwd, allow_outside_root) {
                Ok(set) => {
                    let report = Report {
                        warnings: set.warnings().to_vec(),
                        ..Report::default()
                    };
                    (
                        Some(CompiledSpec {
                            set: Arc::new(set),
                            text: pinned,
                            root,
                        }),
                        Checked::ready(report, sources),
                    )
                }
                Err(report) => (None, Checked::ready(report, sources)),
            },
        )
    })
}

/// Check the project as `toolspec check PATHS...` does: every spec file under `paths` against
/// the transcripts its globs name (no paths: the current folder).
#[pyfunction]
#[pyo3(signature = (paths, allow_outside_root=false, root=None))]
fn check_paths(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    allow_outside_root: bool,
    root: Option<PathBuf>,
) -> PyResult<Checked> {
    py.detach(|| {
        let (cwd, settings) = project(root.as_deref())?;
        let opts = CheckOptions {
            paths,
            allow_outside_root,
            ..CheckOptions::default()
        };
        // As many workers as `toolspec check` starts here: one per core, fewer when memory holds
        // fewer (a Ray worker or a capped container), on this thread when none can start.
        let report = cli::memory::with_threads(None, || check(&opts, &settings, &cwd));
        Ok(Checked::ready(report, Arc::new(SourceCache::default())))
    })
}

fn current_dir() -> PyResult<PathBuf> {
    std::env::current_dir()
        .map_err(|e| PyValueError::new_err(format!("cannot read the current folder: {e}")))
}

/// The calls read from `transcript` (a path, bytes or Python objects): a JSON array
/// with one array per transcript the input holds, each call as `toolspec calls --json` prints it.
#[pyfunction]
#[pyo3(signature = (transcript, input_format=None, allow_outside_root=false, root=None))]
fn calls_json(
    py: Python<'_>,
    transcript: &Bound<'_, PyAny>,
    input_format: Option<&str>,
    allow_outside_root: bool,
    root: Option<PathBuf>,
) -> PyResult<String> {
    let input = input(transcript)?;
    let format = format(input_format)?;
    py.detach(|| {
        // A path is read through the project's root guard, as `check` reads it.
        let guard = RootGuard::for_project(&project_root(root.as_deref())?, allow_outside_root);
        let reader = Reader::new().format(format).guard(&guard);
        let read = match &input {
            Input::Path(p) => reader.read_file(p),
            Input::Bytes(b) => reader.read(STDIN_NAME, b),
            Input::Document(d) => {
                let mut out = Vec::new();
                reader
                    .read_document_with(STDIN_NAME, d, |t| out.push(t))
                    .map(|()| out)
            }
        };
        let transcripts = read.map_err(|e| PyValueError::new_err(render(&e)))?;
        let all: Vec<Value> = transcripts
            .iter()
            .map(cli::commands::calls::calls_json)
            .collect();
        Ok(Value::Array(all).to_string())
    })
}

/// A compile diagnostic: code, severity, message, the text the command prints.
type Diagnostic = (String, String, String, String);

/// Compile the spec file `path`, or `text` as spec source (named [`TEXT_SPEC_FILE`] at the
/// project root), as `toolspec compile` does: the file and its includes read through the
/// project's root guard, widened to anywhere by `allow_outside_root`. Returns the config as the
/// command prints it (JSON, or `None` when it does not compile) and the diagnostics: `(code,
/// severity, message, rendered text)` each. A spec file that cannot be read raises
/// `ValueError` (naming it and why, never quoting it).
#[pyfunction]
#[pyo3(signature = (path, text=None, allow_outside_root=false, root=None))]
fn compile_config(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    allow_outside_root: bool,
    root: Option<PathBuf>,
) -> PyResult<(Option<String>, Vec<Diagnostic>)> {
    py.detach(|| {
        let root = project_root(root.as_deref())?;
        let guard = RootGuard::for_project(&root, allow_outside_root);
        let cwd = current_dir()?;
        let (path, shown) = spec_path(path, &text, &root, &cwd);
        // Spec text is named as the reports name it; a file as it was given.
        let name = if text.is_some() {
            PathBuf::from(shown)
        } else {
            path
        };
        let result = cli::commands::compile::compile_spec(&name, text, &guard)
            .map_err(PyValueError::new_err)?;
        let diags = result
            .diagnostics
            .iter()
            .map(|d| {
                (
                    d.code.name().to_owned(),
                    if d.is_error() { "error" } else { "warning" }.to_owned(),
                    d.message.clone(),
                    cli::output::render(&d.renderable(), false),
                )
            })
            .collect();
        let json = match result.file {
            Some(file) => Some(
                toolspec::text::json::to_string(&file)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?,
            ),
            None => None,
        };
        Ok((json, diags))
    })
}

/// Run the `toolspec` command line with `args` (the program name first); return its exit code.
#[pyfunction]
fn main(py: Python<'_>, args: Vec<OsString>) -> u8 {
    let code = py.detach(|| cli::run(args));
    // `ExitCode` keeps its value private; the command's codes are 0, 1 and 2.
    [0u8, 1, 2]
        .into_iter()
        .find(|&c| std::process::ExitCode::from(c) == code)
        .unwrap_or(2)
}

fn input(transcript: &Bound<'_, PyAny>) -> PyResult<Input> {
    // The usual objects, a list of messages or a dict, are neither bytes nor a path: asked
    // first, by their type alone (asking for `__fspath__` raises and clears an AttributeError).
    if transcript.is_exact_instance_of::<PyList>() || transcript.is_exact_instance_of::<PyDict>() {
        return Ok(Input::Document(objects::document(transcript)?));
    }
    if let Ok(b) = transcript.cast::<PyBytes>() {
        return Ok(Input::Bytes(b.as_bytes().to_vec()));
    }
    if let Ok(b) = transcript.cast::<PyByteArray>() {
        return Ok(Input::Bytes(b.to_vec()));
    }
    if transcript.is_instance_of::<PyString>() {
        return Ok(Input::Path(transcript.extract::<PathBuf>()?));
    }
    if transcript.hasattr("__fspath__")? {
        return Ok(Input::Path(transcript.extract::<PathBuf>()?));
    }
    Ok(Input::Document(objects::document(transcript)?))
}

fn format(name: Option<&str>) -> PyResult<Option<Format>> {
    name.map(|n| {
        n.parse::<Format>()
            .map_err(|e| PyValueError::new_err(e.to_string()))
    })
    .transpose()
}

/// How `explain()` and `problems()` render: the full (`-v`) text, without colour.
fn text_options(width: usize) -> human::Options {
    human::Options {
        color: false,
        verbose: true,
        width,
        summary: false,
    }
}

/// A diagnostic as the command prints it, without colour.
fn render(diag: &dyn miette::Diagnostic) -> String {
    cli::output::render(diag, false)
}

#[pymodule]
fn _toolspec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Checked>()?;
    m.add_class::<CompiledSpec>()?;
    m.add_function(wrap_pyfunction!(compile_spec, m)?)?;
    m.add_function(wrap_pyfunction!(check_paths, m)?)?;
    m.add_function(wrap_pyfunction!(calls_json, m)?)?;
    m.add_function(wrap_pyfunction!(compile_config, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
