//! The `toolspec._toolspec` extension module: the adapter between Python and the toolspec
//! library, as `src/cli/` is the adapter between the terminal and it. The Python package
//! (`toolspec/`) re-exports what it defines: the results of a check as typed objects built from
//! the library's report ([`report`]: `Report`, `Result`, `Finding`, `Expectation`, `CODES`),
//! the exceptions ([`errors`]), and the functions that take paths, bytes and Python objects
//! (read as the JSON document they stand for, [`objects`]) and run the library's check, reader
//! and compiler.
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
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};

use toolspec::check::paths::{absolute, display_path};
use toolspec::check::run::{check, CheckOptions, Selection, SpecSet, Unselected, STDIN_NAME};
use toolspec::check::settings::LoadedSettings;
use toolspec::guard::RootGuard;
use toolspec::report::stream::Verdicts;
use toolspec::transcript::{Format, Reader};

use toolspec::cli;
use toolspec::cli::sources::SourceCache;

mod errors;
mod objects;
mod report;

use errors::{SpecError, ToolspecError, TranscriptError};
use report::{Checked, Input, Later, Report};

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
    /// else the file's one spec). Raises `ToolspecError` when the file holds several specs and
    /// none is chosen, `TranscriptError` when the transcript cannot be read.
    #[pyo3(signature = (transcript, input_format=None, spec_name=None))]
    fn check(
        &self,
        py: Python<'_>,
        transcript: &Bound<'_, PyAny>,
        input_format: Option<&str>,
        spec_name: Option<&str>,
    ) -> PyResult<Report> {
        let input = input(transcript)?;
        let forced = format::<ToolspecError>(py, input_format)?;
        let selection = self.select(py, &input, spec_name)?;
        let checked = py.detach(|| {
            let sources = self.sources();
            if let Input::Path(_) = input {
                let report = self.set.check_selected(&selection, input.given(), forced);
                return Checked::ready(report, sources);
            }
            // Bytes and objects: the verdicts now, the whole report when asked for.
            let head = self
                .set
                .check_selected_with(&selection, input.given(), forced, &Verdicts)
                .report;
            Checked::later(
                Later::new(head, self.set.clone(), selection, input, forced),
                sources,
            )
        });
        if !checked.head().errors.is_empty() {
            return Err(report::unreadable(py, &checked));
        }
        Ok(Report::new(checked))
    }

    /// Whether `transcript` (a path, bytes or Python objects) passes the specs that check it:
    /// the verdicts of [`CompiledSpec::check`] without building a result
    /// (`report::stream::Verdicts`). Raises as `check` does.
    #[pyo3(signature = (transcript, input_format=None, spec_name=None))]
    fn passes(
        &self,
        py: Python<'_>,
        transcript: &Bound<'_, PyAny>,
        input_format: Option<&str>,
        spec_name: Option<&str>,
    ) -> PyResult<bool> {
        let input = input(transcript)?;
        let forced = format::<ToolspecError>(py, input_format)?;
        let selection = self.select(py, &input, spec_name)?;
        let head = py.detach(|| {
            self.set
                .check_selected_with(&selection, input.given(), forced, &Verdicts)
                .report
        });
        if head.errors.is_empty() {
            return Ok(report::passed(&head));
        }
        // The error, with the input shown in its snippets, as `check` raises it.
        let checked = match input {
            Input::Path(_) => Checked::ready(head, self.sources()),
            input => Checked::later(
                Later::new(head, self.set.clone(), selection, input, forced),
                self.sources(),
            ),
        };
        Err(report::unreadable(py, &checked))
    }
}

impl CompiledSpec {
    /// The specs that check `input` (`SpecSet::select`), or why the caller must name one.
    fn select(
        &self,
        py: Python<'_>,
        input: &Input,
        spec_name: Option<&str>,
    ) -> PyResult<Selection> {
        self.set.select(input.given(), spec_name).map_err(|e| {
            let how = match e {
                Unselected::Ambiguous { .. } => {
                    " (`spec_name=` of `toolspec.check`, `name=` of `toolspec.Spec`)"
                }
                Unselected::UnknownName { .. } => "",
            };
            errors::plain::<ToolspecError>(py, format!("{e}{how}"))
        })
    }

    /// The texts a report of this spec shows: the spec's own text when it was given as text.
    fn sources(&self) -> Arc<SourceCache> {
        let sources = Arc::new(SourceCache::default());
        if let Some((name, text)) = &self.text {
            sources.pin_text(name, text.clone());
        }
        sources
    }
}

/// How spec source text is named: a file of this name at the project root, which its includes
/// and globs are relative to.
const TEXT_SPEC_FILE: &str = "spec.toolspec";

/// The working folder and the project's settings: those of `root` when the caller states it
/// (`root=`; [`LoadedSettings::at_root`]), else found from the working folder up as the
/// command finds them. Every file the call reads goes through the root guard of their root.
fn project<E: pyo3::PyTypeInfo>(
    py: Python<'_>,
    root: Option<&Path>,
) -> PyResult<(PathBuf, LoadedSettings)> {
    let cwd = current_dir::<E>(py)?;
    let settings = match root {
        Some(r) => LoadedSettings::at_root(&absolute(r)),
        None => LoadedSettings::discover(&cwd),
    }
    .map_err(|e| errors::plain::<E>(py, render(&e)))?;
    Ok((cwd, settings))
}

/// The project root without reading the settings (for what reads no settings: `compile`,
/// `calls`): `root` as stated, else the one the command finds from the working folder.
fn project_root<E: pyo3::PyTypeInfo>(py: Python<'_>, root: Option<&Path>) -> PyResult<PathBuf> {
    Ok(match root {
        Some(r) => absolute(r),
        None => toolspec::check::settings::project_root(&current_dir::<E>(py)?),
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
/// guard, widened to anywhere by `allow_outside_root`. Raises `SpecError` (the compile errors
/// as its diagnostics) when the spec cannot be read or does not compile, `ToolspecError` when
/// the settings cannot be read or the file has no spec named `name`.
#[pyfunction]
#[pyo3(signature = (path, text=None, allow_outside_root=false, root=None, name=None))]
fn compile_spec(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    allow_outside_root: bool,
    root: Option<PathBuf>,
    name: Option<String>,
) -> PyResult<CompiledSpec> {
    let (cwd, settings) = project::<ToolspecError>(py, root.as_deref())?;
    let given_as_text = text.is_some();
    let shown_path = path.clone();
    let (path, shown) = spec_path(path, &text, &settings.root, &cwd);
    let root = absolute(&settings.root);
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    let pinned = text.as_ref().map(|t| (shown, Arc::new(t.clone())));
    let compiled = py.detach(|| {
        SpecSet::compile(&path, text, &settings, &cwd, allow_outside_root).map_err(Box::new)
    });
    let set = match compiled {
        Ok(set) => set,
        Err(report) => {
            let sources = Arc::new(SourceCache::default());
            if let Some((name, t)) = &pinned {
                sources.pin_text(name, t.clone());
            }
            return Err(Checked::ready(*report, sources).error::<SpecError>(py));
        }
    };
    if let Some(name) = &name {
        if !set.names().any(|n| n == name) {
            let place = if given_as_text {
                "the spec text".to_owned()
            } else {
                shown_path.map_or_else(String::new, |p| p.display().to_string())
            };
            let names: Vec<&str> = set.names().collect();
            let quoted = PyString::new(py, name).repr()?;
            return Err(errors::plain::<ToolspecError>(
                py,
                format!(
                    "no spec named {quoted} in {place}; it has: {}",
                    names.join(", ")
                ),
            ));
        }
    }
    Ok(CompiledSpec {
        set: Arc::new(set),
        text: pinned,
        root,
    })
}

/// Check the project as `toolspec check PATHS...` does: every spec file under `paths` against
/// the transcripts its globs name (no paths: the current folder). The report keeps what could
/// not be checked in its errors (the pytest plugin makes an item of them).
#[pyfunction]
#[pyo3(signature = (paths, allow_outside_root=false, root=None))]
fn check_paths(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    allow_outside_root: bool,
    root: Option<PathBuf>,
) -> PyResult<Report> {
    let (cwd, settings) = project::<ToolspecError>(py, root.as_deref())?;
    let opts = CheckOptions {
        paths,
        allow_outside_root,
        ..CheckOptions::default()
    };
    // As many workers as `toolspec check` starts here: one per core, fewer when memory holds
    // fewer (a Ray worker or a capped container), on this thread when none can start.
    let report = py.detach(|| cli::memory::with_threads(None, || check(&opts, &settings, &cwd)));
    Ok(Report::new(Checked::ready(
        report,
        Arc::new(SourceCache::default()),
    )))
}

/// [`check_paths`], raising `ToolspecError` (the report's errors as its diagnostics) when
/// something could not be checked. The error's `report` is the whole report: every result that
/// could be checked is kept, one unreadable file does not lose the others.
#[pyfunction]
#[pyo3(signature = (paths, allow_outside_root=false, root=None))]
fn check_project(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    allow_outside_root: bool,
    root: Option<PathBuf>,
) -> PyResult<Report> {
    let report = check_paths(py, paths, allow_outside_root, root)?;
    if report.checked().head().errors.is_empty() {
        return Ok(report);
    }
    let err = report.checked().error::<ToolspecError>(py);
    err.value(py).setattr("report", Py::new(py, report)?)?;
    Err(err)
}

fn current_dir<E: pyo3::PyTypeInfo>(py: Python<'_>) -> PyResult<PathBuf> {
    std::env::current_dir()
        .map_err(|e| errors::plain::<E>(py, format!("cannot read the current folder: {e}")))
}

/// The calls read from `transcript` (a path, bytes or Python objects): a list with one list
/// per transcript the input holds, each call a dict as `toolspec calls --json` prints it.
/// Raises `TranscriptError` when it cannot be read.
#[pyfunction]
#[pyo3(signature = (transcript, input_format=None, allow_outside_root=false, root=None))]
fn calls_by_transcript<'py>(
    py: Python<'py>,
    transcript: &Bound<'py, PyAny>,
    input_format: Option<&str>,
    allow_outside_root: bool,
    root: Option<PathBuf>,
) -> PyResult<Bound<'py, PyList>> {
    let input = input(transcript)?;
    let format = format::<TranscriptError>(py, input_format)?;
    // A path is read through the project's root guard, as `check` reads it.
    let root = project_root::<TranscriptError>(py, root.as_deref())?;
    let all = py.detach(|| {
        let guard = RootGuard::for_project(&root, allow_outside_root);
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
        read.map(|transcripts| {
            serde_json::Value::Array(
                transcripts
                    .iter()
                    .map(cli::commands::calls::calls_json)
                    .collect(),
            )
        })
        .map_err(|e| render(&e))
    });
    let all = all.map_err(|e| errors::plain::<TranscriptError>(py, e))?;
    Ok(report::to_py(py, &all)?.cast_into::<PyList>()?)
}

/// Compile the spec file `path`, or `text` as spec source (named [`TEXT_SPEC_FILE`] at the
/// project root), as `toolspec compile` does: the file and its includes read through the
/// project's root guard, widened to anywhere by `allow_outside_root`. Returns the config as the
/// command prints it (JSON text). Raises `SpecError` when the spec file cannot be read (naming
/// it and why, never quoting it) or does not compile: its diagnostics are `code`, `severity`,
/// `message` and `text` (as the command prints it) each.
#[pyfunction]
#[pyo3(signature = (path, text=None, allow_outside_root=false, root=None))]
fn compile_config(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    allow_outside_root: bool,
    root: Option<PathBuf>,
) -> PyResult<String> {
    let root = project_root::<SpecError>(py, root.as_deref())?;
    let cwd = current_dir::<SpecError>(py)?;
    let (path, shown) = spec_path(path, &text, &root, &cwd);
    // Spec text is named as the reports name it; a file as it was given.
    let name = if text.is_some() {
        PathBuf::from(&shown)
    } else {
        path
    };
    let guard = RootGuard::for_project(&root, allow_outside_root);
    let result = py
        .detach(|| cli::commands::compile::compile_spec(&name, text, &guard))
        .map_err(|e| errors::plain::<SpecError>(py, e))?;
    let Some(file) = result.file else {
        let diagnostics = PyList::empty(py);
        let mut texts = Vec::new();
        for d in &result.diagnostics {
            let text = cli::output::render(&d.renderable(), false);
            texts.push(text.trim_end_matches('\n').to_owned());
            let dict = PyDict::new(py);
            dict.set_item("code", d.code.name())?;
            dict.set_item("severity", if d.is_error() { "error" } else { "warning" })?;
            dict.set_item("message", &d.message)?;
            dict.set_item("text", text)?;
            diagnostics.append(dict)?;
        }
        let message = if texts.is_empty() {
            format!("{} does not compile", name.display())
        } else {
            texts.join("\n")
        };
        return Err(errors::raise::<SpecError>(py, message, diagnostics));
    };
    toolspec::text::json::to_string(&file)
        .map_err(|e| errors::plain::<SpecError>(py, e.to_string()))
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

/// The format named `name`, or `E` saying the name is unknown.
fn format<E: pyo3::PyTypeInfo>(py: Python<'_>, name: Option<&str>) -> PyResult<Option<Format>> {
    name.map(|n| {
        n.parse::<Format>()
            .map_err(|e| errors::plain::<E>(py, e.to_string()))
    })
    .transpose()
}

/// A diagnostic as the command prints it, without colour.
fn render(diag: &dyn miette::Diagnostic) -> String {
    cli::output::render(diag, false)
}

#[pymodule]
fn _toolspec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<Report>()?;
    m.add_class::<report::PairResult>()?;
    m.add_class::<report::Finding>()?;
    m.add_class::<report::Expectation>()?;
    m.add_class::<report::Code>()?;
    m.add_class::<CompiledSpec>()?;
    m.add("CODES", report::codes(m.py())?)?;
    // The stub's `Literal` types, for `toolspec.Severity` and `toolspec.Stage` at run time.
    let literal = m.py().import("typing")?.getattr("Literal")?;
    m.add("Severity", literal.get_item(("error", "warning", "note"))?)?;
    m.add(
        "Stage",
        literal.get_item(("spec", "read", "run", "engine", "rule"))?,
    )?;
    m.add("TEXT_WIDTH", report::TEXT_WIDTH)?;
    m.add_function(wrap_pyfunction!(compile_spec, m)?)?;
    m.add_function(wrap_pyfunction!(check_paths, m)?)?;
    m.add_function(wrap_pyfunction!(check_project, m)?)?;
    m.add_function(wrap_pyfunction!(calls_by_transcript, m)?)?;
    m.add_function(wrap_pyfunction!(compile_config, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
