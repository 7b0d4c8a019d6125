//! The `toolspec._toolspec` extension module: the adapter between Python and the toolspec
//! library, as `src/cli/` is the adapter between the terminal and it. The Python package
//! (`toolspec/`) wraps these functions in its documented API; this module takes paths, bytes and
//! JSON-like Python values, runs the library's check, reader and compiler, and hands back their
//! JSON (the same documents the command prints) or rendered text.
//!
//! The `toolspec` command of the package is the command line of the root crate (`src/cli/`),
//! compiled into this module and run in-process by [`main`]: one implementation, whichever way
//! toolspec is installed.
#![forbid(unsafe_code)]

// The command line of the `toolspec` binary, the same source. Parts of it the binary uses
// (its `main`) are unused here.
#[path = "../../src/cli/mod.rs"]
#[allow(dead_code, clippy::all, clippy::pedantic)]
mod cli;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};
use serde_json::{Map, Number, Value};

use toolspec::check::run::{check, CheckOptions, STDIN_NAME};
use toolspec::check::settings::LoadedSettings;
use toolspec::compile::{compile as compile_source, FsLoader};
use toolspec::report::{human, Report};
use toolspec::source::SourceFile;
use toolspec::transcript::{Format, Reader};

use cli::sources::SourceCache;

/// The deepest nesting of a Python value converted to JSON: the readers' own JSON nesting limit
/// is far below it; past it the value is refused rather than recursed into.
const MAX_DEPTH: usize = 512;

/// A transcript as the Python layer passes it: a file, bytes, or a JSON-like value.
enum Input {
    Path(PathBuf),
    Bytes(Vec<u8>),
}

/// What `_check` returns: the report of one check and the texts to explain it with.
#[pyclass(frozen, module = "toolspec._toolspec")]
struct Checked {
    report: Report,
    sources: Arc<SourceCache>,
}

#[pymethods]
impl Checked {
    /// The report as `toolspec check --format json` prints it.
    #[getter]
    fn json(&self) -> String {
        toolspec::report::json::render(&self.report)
    }

    /// The human report of result `index` (its findings with the transcript and spec excerpts,
    /// then its verdict line), without colour.
    fn explain(&self, py: Python<'_>, index: usize, width: usize) -> PyResult<String> {
        let Some(result) = self.report.results.get(index) else {
            return Err(PyValueError::new_err(format!("no result {index}")));
        };
        let mut one = Report {
            version: self.report.version,
            results: vec![result.clone()],
            ..Report::default()
        };
        one.recount();
        let sources = |name: &str| self.sources.get(name);
        let opts = human::Options {
            color: false,
            verbose: true,
            width,
        };
        Ok(py.detach(|| human::render(&one, &sources, opts).stdout))
    }

    /// The human text of the run's errors and warnings (spec compile errors, unreadable
    /// transcripts), as the command prints them on standard error.
    fn problems(&self, width: usize) -> String {
        let sources = |name: &str| self.sources.get(name);
        let opts = human::Options {
            color: false,
            verbose: true,
            width,
        };
        human::render_run_findings(&self.report, &sources, opts)
    }
}

/// Check `transcript` (a path, bytes, or a JSON-like Python value) against every spec of the
/// file `spec`, as `toolspec check --spec SPEC TRANSCRIPT` does (bytes and values as
/// `toolspec check --spec SPEC -` reads standard input).
#[pyfunction]
#[pyo3(signature = (spec, transcript, input_format=None, allow_outside_root=false))]
fn check_spec(
    py: Python<'_>,
    spec: PathBuf,
    transcript: &Bound<'_, PyAny>,
    input_format: Option<&str>,
    allow_outside_root: bool,
) -> PyResult<Checked> {
    let input = input(transcript)?;
    let input_format = format(input_format)?;
    py.detach(|| {
        let cwd = current_dir()?;
        let settings =
            LoadedSettings::discover(&cwd).map_err(|e| PyValueError::new_err(render(&e)))?;
        let sources = Arc::new(SourceCache::default());
        let (paths, stdin) = match input {
            Input::Path(p) => (vec![p], None),
            Input::Bytes(b) => {
                sources.pin(STDIN_NAME, &b);
                (Vec::new(), Some(Arc::<[u8]>::from(b)))
            }
        };
        let opts = CheckOptions {
            paths,
            spec: Some(spec),
            stdin,
            input_format,
            allow_outside_root,
            ..CheckOptions::default()
        };
        Ok(Checked {
            report: check(&opts, &settings, &cwd),
            sources,
        })
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
        Ok(Checked {
            report: check(&opts, &settings, &cwd),
            sources: Arc::new(SourceCache::default()),
        })
    })
}

fn current_dir() -> PyResult<PathBuf> {
    std::env::current_dir()
        .map_err(|e| PyValueError::new_err(format!("cannot read the current folder: {e}")))
}

/// The calls read from `transcript` (a path, bytes, or a JSON-like Python value): a JSON array
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
        };
        let transcripts = read.map_err(|e| PyValueError::new_err(render(&e)))?;
        let all: Vec<Value> = transcripts
            .iter()
            .map(cli::commands::calls::calls_json)
            .collect();
        Ok(Value::Array(all).to_string())
    })
}

/// Compile the spec source `text` (named `name` in diagnostics; includes are read relative to
/// it). Returns the config as `toolspec compile` prints it (JSON, or `None` when it does not
/// compile) and the diagnostics: `(code, severity, message, rendered text)` each.
#[pyfunction]
fn compile_text(
    py: Python<'_>,
    name: String,
    text: String,
) -> PyResult<(Option<String>, Vec<(String, String, String, String)>)> {
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
    let value = to_json(transcript, 0)?;
    serde_json::to_vec(&value)
        .map(Input::Bytes)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A JSON-like Python value as JSON: dicts (string keys), lists, tuples, strings, numbers,
/// booleans and `None`; a pydantic model (the OpenAI and Anthropic SDKs' messages, LangChain's
/// messages) as its `model_dump(mode="json")`, a dataclass as `dataclasses.asdict`, any other
/// mapping or sequence by its items.
fn to_json(v: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "the transcript nests deeper than {MAX_DEPTH} levels"
        )));
    }
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut map = Map::with_capacity(d.len());
        for (k, item) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "a transcript's dict keys must be strings, not {}",
                    k.get_type().name()?
                )));
            };
            map.insert(key.to_cow()?.into_owned(), to_json(&item, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = v.cast::<PyList>() {
        return l.iter().map(|x| to_json(&x, depth + 1)).collect();
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        return t.iter().map(|x| to_json(&x, depth + 1)).collect();
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = v.extract::<u64>() {
            return Ok(Value::from(u));
        }
        let f: f64 = v.extract()?;
        return finite(f);
    }
    if v.is_instance_of::<PyFloat>() {
        return finite(v.extract()?);
    }
    let py = v.py();
    if v.hasattr("model_dump")? {
        let kwargs = PyDict::new(py);
        kwargs.set_item("mode", "json")?;
        let dumped = v.call_method("model_dump", (), Some(&kwargs))?;
        return to_json(&dumped, depth + 1);
    }
    let dataclasses = py.import("dataclasses")?;
    if dataclasses
        .call_method1("is_dataclass", (v,))?
        .is_truthy()?
        && !v.is_instance_of::<pyo3::types::PyType>()
    {
        let d = dataclasses.call_method1("asdict", (v,))?;
        return to_json(&d, depth + 1);
    }
    let abc = py.import("collections.abc")?;
    if v.is_instance(&abc.getattr("Mapping")?)? {
        let d = PyDict::new(py);
        for item in v.call_method0("items")?.try_iter()? {
            let (k, x): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
            d.set_item(k, x)?;
        }
        return to_json(d.as_any(), depth);
    }
    if v.is_instance(&abc.getattr("Sequence")?)? {
        return v.try_iter()?.map(|x| to_json(&x?, depth + 1)).collect();
    }
    Err(PyTypeError::new_err(format!(
        "cannot read a {} as part of a transcript: give dicts, lists, strings, numbers, \
         booleans, None, pydantic models or dataclasses (or the transcript's path or bytes)",
        v.get_type().name()?
    )))
}

fn finite(f: f64) -> PyResult<Value> {
    Number::from_f64(f).map(Value::Number).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{f} is not a JSON number (NaN and infinities are not)"
        ))
    })
}

fn format(name: Option<&str>) -> PyResult<Option<Format>> {
    name.map(|n| {
        n.parse::<Format>()
            .map_err(|e| PyValueError::new_err(e.to_string()))
    })
    .transpose()
}

/// A diagnostic as the command prints it, without colour.
fn render(diag: &dyn miette::Diagnostic) -> String {
    cli::output::render(diag, false)
}

#[pymodule]
fn _toolspec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Checked>()?;
    m.add_function(wrap_pyfunction!(check_spec, m)?)?;
    m.add_function(wrap_pyfunction!(check_paths, m)?)?;
    m.add_function(wrap_pyfunction!(calls_json, m)?)?;
    m.add_function(wrap_pyfunction!(compile_text, m)?)?;
    m.add_function(wrap_pyfunction!(read_spec, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
