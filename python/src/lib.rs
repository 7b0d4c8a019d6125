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
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};
use serde_json::Value;

use toolspec::check::run::{check, CheckOptions, Given, SpecSet, STDIN_NAME};
use toolspec::check::settings::LoadedSettings;
use toolspec::compile::{compile as compile_source, FsLoader};
use toolspec::report::stream::Verdicts;
use toolspec::report::{human, Report};
use toolspec::source::SourceFile;
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
                later.set.check(later.input.given(), later.forced)
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
    /// Whether the check passed (and checked at least one result), nothing failing to be
    /// checked: every result passed, but for those of a spec with a `pass_rate`, which pass
    /// through their spec's rate.
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
        let mut one = Report {
            version: report.version,
            results: vec![result.clone()],
            ..Report::default()
        };
        one.recount();
        let sources = |name: &str| self.sources.get(name);
        let opts = text_options(width);
        Ok(py.detach(|| human::render(&one, &sources, opts).stdout))
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

/// Whether a check passed, from its report with or without results: something was checked,
/// nothing failed to be, and every result passed (through its spec's rate, if it has one).
fn passed(head: &Report) -> bool {
    head.errors.is_empty() && head.summary.checked > 0 && !head.summary.fails()
}

/// The specs of one spec file, compiled once ([`toolspec::check::run::SpecSet`]), with the
/// settings found from the current folder when it was compiled.
#[pyclass(frozen, module = "toolspec._toolspec")]
struct CompiledSpec {
    set: Arc<SpecSet>,
    /// The name and text of a spec given as text, for the snippets of `explain()`.
    text: Option<(String, Arc<String>)>,
}

#[pymethods]
impl CompiledSpec {
    /// The names of its specs, in the file's order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.set.names().map(str::to_owned).collect()
    }

    /// Check `transcript` (a path, bytes or Python objects) against every spec, as
    /// `toolspec check --spec SPEC TRANSCRIPT` does.
    #[pyo3(signature = (transcript, input_format=None))]
    fn check(
        &self,
        py: Python<'_>,
        transcript: &Bound<'_, PyAny>,
        input_format: Option<&str>,
    ) -> PyResult<Checked> {
        let input = input(transcript)?;
        let forced = format(input_format)?;
        Ok(py.detach(|| {
            let sources = Arc::new(SourceCache::default());
            if let Some((name, text)) = &self.text {
                sources.pin_text(name, text.clone());
            }
            if let Input::Path(_) = input {
                return Checked::ready(self.set.check(input.given(), forced), sources);
            }
            // Bytes and objects: the verdicts now, the whole report when asked for.
            let head = self.set.check_with(input.given(), forced, &Verdicts).report;
            Checked {
                report: Built::Later(Box::new(Later {
                    head,
                    whole: OnceLock::new(),
                    set: self.set.clone(),
                    input,
                    forced,
                })),
                sources,
            }
        }))
    }

    /// Whether `transcript` (a path, bytes or Python objects) passes every spec, and whether
    /// something could not be checked: the verdicts of [`CompiledSpec::check`] without
    /// building a result (`report::stream::Verdicts`).
    #[pyo3(signature = (transcript, input_format=None))]
    fn passes(
        &self,
        py: Python<'_>,
        transcript: &Bound<'_, PyAny>,
        input_format: Option<&str>,
    ) -> PyResult<(bool, bool)> {
        let input = input(transcript)?;
        let forced = format(input_format)?;
        Ok(py.detach(|| {
            let head = self.set.check_with(input.given(), forced, &Verdicts).report;
            (passed(&head), !head.errors.is_empty())
        }))
    }
}

/// Compile the spec file `path`, or `text` as its content (nothing is then read at `path`),
/// under the settings found from the current folder. Returns the compiled specs, or `None` and
/// the report of why not (its errors); the report holds the compile warnings either way.
#[pyfunction]
#[pyo3(signature = (path, text=None, allow_outside_root=false))]
fn compile_spec(
    py: Python<'_>,
    path: PathBuf,
    text: Option<String>,
    allow_outside_root: bool,
) -> PyResult<(Option<CompiledSpec>, Checked)> {
    py.detach(|| {
        let cwd = current_dir()?;
        let settings =
            LoadedSettings::discover(&cwd).map_err(|e| PyValueError::new_err(render(&e)))?;
        let sources = Arc::new(SourceCache::default());
        let shown =
            toolspec::check::paths::display_path(&toolspec::check::paths::absolute(&path), &cwd);
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
fn check_paths(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Checked> {
    py.detach(|| {
        let cwd = current_dir()?;
        let settings =
            LoadedSettings::discover(&cwd).map_err(|e| PyValueError::new_err(render(&e)))?;
        let opts = CheckOptions {
            paths,
            ..CheckOptions::default()
        };
        Ok(Checked::ready(
            check(&opts, &settings, &cwd),
            Arc::new(SourceCache::default()),
        ))
    })
}

fn current_dir() -> PyResult<PathBuf> {
    std::env::current_dir()
        .map_err(|e| PyValueError::new_err(format!("cannot read the current folder: {e}")))
}

/// The calls read from `transcript` (a path, bytes or Python objects): a JSON array
/// with one array per transcript the input holds, each call as `toolspec calls --json` prints it.
#[pyfunction]
#[pyo3(signature = (transcript, input_format=None))]
fn calls_json(
    py: Python<'_>,
    transcript: &Bound<'_, PyAny>,
    input_format: Option<&str>,
) -> PyResult<String> {
    let input = input(transcript)?;
    let format = format(input_format)?;
    py.detach(|| {
        let reader = Reader::new().format(format);
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

/// Compile the spec source `text` (named `name` in diagnostics; includes are read relative to
/// it). Returns the config as `toolspec compile` prints it (JSON, or `None` when it does not
/// compile) and the diagnostics: `(code, severity, message, rendered text)` each.
#[pyfunction]
fn compile_text(
    py: Python<'_>,
    name: String,
    text: String,
) -> PyResult<(Option<String>, Vec<Diagnostic>)> {
    py.detach(|| {
        let result = compile_source(&SourceFile::new(name, text), &FsLoader);
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

/// Read a spec file as `toolspec compile` does: its text, or the reason it cannot be read.
#[pyfunction]
fn read_spec(path: PathBuf) -> PyResult<String> {
    toolspec::guard::read_text(&path)
        .map_err(|e| PyValueError::new_err(format!("cannot read {}: {e}", path.display())))
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
    m.add_function(wrap_pyfunction!(compile_text, m)?)?;
    m.add_function(wrap_pyfunction!(read_spec, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
