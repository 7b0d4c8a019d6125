//! The results of a check as Python objects, built here from the library's report
//! ([`toolspec::report::Report`]), not from its JSON: [`Report`], one [`PairResult`] (`Result`)
//! per spec × transcript, each with its [`Finding`]s and [`Expectation`]s, and the code
//! registry ([`Code`], `CODES`).
//!
//! A check of bytes or Python objects decides its verdicts first and builds the whole report
//! when something asks for more than whether it passed ([`Checked`]): `report.passed` costs
//! what `Spec.passes` costs. The objects of a report are built when first asked for, once.

use std::sync::{Arc, OnceLock};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

use toolspec::check::run::{Given, Selection, SpecSet, STDIN_NAME};
use toolspec::check::verdicts::Verdict;
use toolspec::code::Code as CodeRow;
use toolspec::report::human;
use toolspec::transcript::{Document, Format};

use toolspec::cli::sources::SourceCache;

use crate::errors::{self, TranscriptError};

/// Width of the human text of `explain()` and of error messages.
pub(crate) const TEXT_WIDTH: usize = 100;

/// A transcript as the Python layer passes it: a file, bytes, or Python objects read as the
/// JSON document they stand for ([`crate::objects`]).
pub(crate) enum Input {
    Path(std::path::PathBuf),
    Bytes(Vec<u8>),
    Document(Document),
}

impl Input {
    pub(crate) fn given(&self) -> Given<'_> {
        match self {
            Input::Path(p) => Given::Path(p),
            Input::Bytes(b) => Given::Bytes(b),
            Input::Document(d) => Given::Document(d),
        }
    }
}

/// The report of one check and the texts to explain it with.
pub(crate) struct Checked {
    report: Built,
    sources: Arc<SourceCache>,
}

/// A check's report: built at once, or after its verdicts.
enum Built {
    Now(toolspec::report::Report),
    Later(Box<Later>),
}

/// A check whose verdicts were decided first and whose report is built when asked for.
pub(crate) struct Later {
    /// The report without its results: its errors, warnings and counts, which are those of the
    /// whole report.
    pub(crate) head: toolspec::report::Report,
    /// The whole report, once built.
    whole: OnceLock<toolspec::report::Report>,
    /// The compiled specs and the input (bytes or Python objects, never a path: a file is read
    /// once).
    pub(crate) set: Arc<SpecSet>,
    /// The specs of the set that check the input.
    pub(crate) selection: Selection,
    pub(crate) input: Input,
    pub(crate) forced: Option<Format>,
}

impl Later {
    pub(crate) fn new(
        head: toolspec::report::Report,
        set: Arc<SpecSet>,
        selection: Selection,
        input: Input,
        forced: Option<Format>,
    ) -> Later {
        Later {
            head,
            whole: OnceLock::new(),
            set,
            selection,
            input,
            forced,
        }
    }
}

impl Checked {
    /// A report built at once.
    pub(crate) fn ready(report: toolspec::report::Report, sources: Arc<SourceCache>) -> Checked {
        Checked {
            report: Built::Now(report),
            sources,
        }
    }

    /// A report whose verdicts are decided and whose results are built when asked for.
    pub(crate) fn later(later: Later, sources: Arc<SourceCache>) -> Checked {
        Checked {
            report: Built::Later(Box::new(later)),
            sources,
        }
    }

    /// The whole report.
    fn report(&self) -> &toolspec::report::Report {
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
    pub(crate) fn head(&self) -> &toolspec::report::Report {
        match &self.report {
            Built::Now(report) => report,
            Built::Later(later) => &later.head,
        }
    }

    /// Whether the check passed: the outcome the check decided, the one `toolspec check` exits
    /// 0 on ([`passed`]).
    pub(crate) fn passed(&self) -> bool {
        passed(self.head())
    }

    /// The human report of result `index` (its findings with the transcript and spec excerpts,
    /// then its verdict line), without colour.
    fn explain(&self, index: usize) -> String {
        let report = self.report();
        let sources = |name: &str| self.sources.get(name);
        human::render_pair(&report.results[index], &sources, text_options())
    }

    /// The human text of the run's errors and warnings (spec compile errors, unreadable
    /// transcripts), as the command prints them on standard error.
    pub(crate) fn problems(&self) -> String {
        let sources = |name: &str| self.sources.get(name);
        self.pin_input();
        human::render_run_findings(self.head(), &sources, text_options())
    }

    /// The error a check that could not read everything raises: `E` with the human text of
    /// its errors and the `errors` of its JSON report as `diagnostics`.
    pub(crate) fn error<E: pyo3::PyTypeInfo>(&self, py: Python<'_>) -> PyErr {
        let text = py.detach(|| self.problems());
        match json_list(py, &self.head().errors) {
            Ok(diagnostics) => errors::raise::<E>(py, text.trim_end_matches('\n'), diagnostics),
            Err(e) => e,
        }
    }
}

/// Whether a check passed, from its report with or without results: the exit status the check
/// decided is 0 (`Report::exit_status`, read, not decided again here), as for the command.
pub(crate) fn passed(head: &toolspec::report::Report) -> bool {
    head.exit_status() == 0
}

/// How `explain()` and the errors' text render: the full (`-v`) text, without colour.
fn text_options() -> human::Options {
    human::Options {
        color: false,
        verbose: true,
        width: TEXT_WIDTH,
        summary: false,
    }
}

/// The check behind a report and the objects built from it, shared by the report and its
/// results (which hold this, not the report: no reference cycle).
struct Shared {
    checked: Checked,
    /// The report as `toolspec check --format json` writes it, as Python objects.
    raw: PyOnceLock<Py<PyDict>>,
}

impl Shared {
    fn raw<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let raw = self.raw.get_or_try_init(py, || {
            let value = py.detach(|| serde_json::to_value(self.checked.report()));
            let value =
                value.map_err(|e| errors::plain::<errors::ToolspecError>(py, e.to_string()))?;
            Ok::<_, PyErr>(to_py(py, &value)?.cast_into::<PyDict>()?.unbind())
        })?;
        Ok(raw.bind(py).clone())
    }
}

/// What a check found: one `Result` per spec × transcript checked.
///
/// The results are built when first asked for: `passed` alone reads nothing but the verdicts.
#[pyclass(frozen, module = "toolspec", name = "Report")]
pub(crate) struct Report {
    shared: Arc<Shared>,
    results: PyOnceLock<Py<PyList>>,
}

impl Report {
    pub(crate) fn new(checked: Checked) -> Report {
        Report {
            shared: Arc::new(Shared {
                checked,
                raw: PyOnceLock::new(),
            }),
            results: PyOnceLock::new(),
        }
    }

    pub(crate) fn checked(&self) -> &Checked {
        &self.shared.checked
    }

    fn results_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = self.results.get_or_try_init(py, || {
            let report = py.detach(|| self.shared.checked.report());
            let items = report
                .results
                .iter()
                .enumerate()
                .map(|(i, r)| Py::new(py, PairResult::new(py, self.shared.clone(), i, r)?))
                .collect::<PyResult<Vec<_>>>()?;
            Ok::<_, PyErr>(PyList::new(py, items)?.unbind())
        })?;
        Ok(list.bind(py).clone())
    }

    fn raw_key<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.shared.raw(py)?.get_item(key)? {
            Some(v) => Ok(v),
            None => Ok(PyList::empty(py).into_any()),
        }
    }
}

#[pymethods]
impl Report {
    /// The check's verdict, the one `toolspec check` exits 0 on: every result passed, but
    /// those of a spec with a `pass_rate`, which pass through the spec's rate (over the
    /// transcripts checked: over one transcript, the rate is that transcript's verdict), and
    /// nothing failed to be checked. Read from the check, never decided again here.
    ///
    /// A check that checked nothing (a dataset file of no records) passes, with a
    /// `nothing-checked` warning in `warnings`, as the command exits 0 with it; the command's
    /// `--strict`, which fails on any warning, is `passed and raw["summary"]["warnings"] == 0`
    /// (notes are listed with the warnings but are none).
    #[getter]
    fn passed(&self) -> bool {
        self.shared.checked.passed()
    }

    /// One `Result` per spec × transcript, in the report's order.
    #[getter]
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.results_list(py)
    }

    /// The results that did not pass.
    #[getter]
    fn failed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let failed = self
            .results_list(py)?
            .iter()
            .filter(|r| r.cast::<PairResult>().is_ok_and(|r| !r.get().passed))
            .collect::<Vec<_>>();
        PyList::new(py, failed)
    }

    /// The whole report exactly as `toolspec check --format json` writes it.
    #[getter]
    fn raw<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.shared.raw(py)
    }

    /// Warnings about the run (e.g. a transcript without a single call), as the JSON report
    /// writes them.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.raw_key(py, "warnings")
    }

    /// The pass rate of each spec checked with a `pass_rate`, as the JSON report writes them:
    /// `passed`, `total`, `rate`, `required`, `met`.
    #[getter]
    fn rates<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.raw_key(py, "rates")
    }

    /// The human report of every result, failed ones first.
    fn explain(&self, py: Python<'_>) -> String {
        let checked = &self.shared.checked;
        py.detach(|| {
            let report = checked.report();
            let (failed, passed): (Vec<usize>, Vec<usize>) =
                (0..report.results.len()).partition(|&i| !report.results[i].passed);
            failed
                .into_iter()
                .chain(passed)
                .map(|i| checked.explain(i))
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    /// The run's verdicts (`check::verdicts`), one per thing that can fail it, in report
    /// order: `("pair", result, passed, [], "")` for a result that stands alone, `("rate",
    /// rate, met, [its results], its verdict line)` for a spec's pass rate. For the pytest
    /// plugin.
    fn _verdicts(&self, py: Python<'_>) -> Vec<(&'static str, usize, bool, Vec<usize>, String)> {
        let report = py.detach(|| self.shared.checked.report());
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

    /// The human text of the run's errors and warnings, as the command prints them on standard
    /// error. For the pytest plugin.
    fn _problems(&self, py: Python<'_>) -> String {
        py.detach(|| self.shared.checked.problems())
    }

    fn __bool__(&self) -> bool {
        self.passed()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let n = self.results_list(py)?.len();
        Ok(format!(
            "<toolspec.Report passed={} results={n}>",
            if self.passed() { "True" } else { "False" }
        ))
    }
}

/// The result of one spec on one transcript.
#[pyclass(frozen, module = "toolspec", name = "Result")]
pub(crate) struct PairResult {
    shared: Arc<Shared>,
    index: usize,
    /// The spec's name.
    #[pyo3(get)]
    spec: String,
    /// The spec file, as the report shows it.
    #[pyo3(get)]
    spec_file: String,
    /// The transcript, as the report shows it (`<stdin>` for bytes and Python objects).
    #[pyo3(get)]
    transcript: String,
    /// For a dataset file (one transcript per line), the 1-based line of this transcript.
    #[pyo3(get)]
    record: Option<usize>,
    /// The transcript format read (e.g. `openai-chat`).
    #[pyo3(get)]
    format: String,
    #[pyo3(get)]
    passed: bool,
    /// Score in [0, 1].
    #[pyo3(get)]
    score: f64,
    #[pyo3(get)]
    threshold: f64,
    /// For a failed pair, what failed it besides the score (e.g. ``forbidden call `x` ``).
    #[pyo3(get)]
    failure: Option<String>,
    #[pyo3(get)]
    findings: Vec<Py<Finding>>,
    #[pyo3(get)]
    expectations: Vec<Py<Expectation>>,
}

impl PairResult {
    fn new(
        py: Python<'_>,
        shared: Arc<Shared>,
        index: usize,
        r: &toolspec::report::model::PairResult,
    ) -> PyResult<PairResult> {
        let findings = r
            .findings
            .iter()
            .map(|f| Py::new(py, Finding::new(py, f, r)?))
            .collect::<PyResult<Vec<_>>>()?;
        let expectations = r
            .expectations
            .iter()
            .map(|x| Py::new(py, Expectation::new(x)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PairResult {
            shared,
            index,
            spec: r.spec.clone(),
            spec_file: r.spec_file.clone(),
            transcript: r.transcript.clone(),
            record: r.record,
            format: r.format.clone(),
            passed: r.passed,
            score: r.score,
            threshold: r.threshold,
            failure: r.failure.clone(),
            findings,
            expectations,
        })
    }
}

#[pymethods]
impl PairResult {
    /// The result exactly as `toolspec check --format json` writes it.
    #[getter]
    fn raw<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.shared
            .raw(py)?
            .get_item("results")?
            .ok_or_else(|| errors::plain::<errors::ToolspecError>(py, "the report has no results"))?
            .get_item(self.index)
    }

    /// The human report of this result, as `toolspec check` prints it: each finding with the
    /// transcript and spec lines it points at, then the verdict line.
    fn explain(&self, py: Python<'_>) -> String {
        py.detach(|| self.shared.checked.explain(self.index))
    }

    fn __bool__(&self) -> bool {
        self.passed
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut s = format!(
            "Result(spec={}, spec_file={}, transcript={}",
            repr(py, &self.spec)?,
            repr(py, &self.spec_file)?,
            repr(py, &self.transcript)?
        );
        if let Some(record) = self.record {
            s.push_str(&format!(", record={record}"));
        }
        s.push_str(&format!(
            ", passed={}, score={}, threshold={}, findings={})",
            if self.passed { "True" } else { "False" },
            py_float(self.score),
            py_float(self.threshold),
            self.findings.len()
        ));
        Ok(s)
    }
}

/// One thing wrong (or worth knowing) about a run.
#[pyclass(frozen, module = "toolspec", name = "Finding")]
pub(crate) struct Finding {
    /// Stable code, one of `CODES` (e.g. `missing-call`, `argument-mismatch`).
    #[pyo3(get)]
    code: String,
    /// `error`, `warning` or `note`.
    #[pyo3(get)]
    severity: &'static str,
    /// What is wrong, in one sentence.
    #[pyo3(get)]
    message: String,
    /// How to fix it, if there is something to say.
    #[pyo3(get)]
    help: Option<String>,
    /// Position (0-based) of the call the finding is about among the transcript's calls;
    /// `None` when it is about no one call (a missing call).
    #[pyo3(get)]
    call: Option<usize>,
    /// The label of the expectation it comes from (`refund` in `refund: call
    /// issue_refund(...)`), if the expectation has one.
    #[pyo3(get)]
    expectation: Option<String>,
    /// Where it is in the transcript: `file`, `line`, `column`, `end_line`, `end_column`,
    /// `span` (byte offsets); `None` when it has no place.
    #[pyo3(get)]
    location: Option<Py<PyDict>>,
    /// Where the expectation or rule it comes from is written in the spec.
    #[pyo3(get)]
    related: Option<Py<PyDict>>,
}

impl Finding {
    fn new(
        py: Python<'_>,
        f: &toolspec::report::model::Finding,
        r: &toolspec::report::model::PairResult,
    ) -> PyResult<Finding> {
        let expectation = f.expectation.and_then(|i| {
            r.expectations
                .iter()
                .find(|x| x.index == i)
                .and_then(|x| x.label.clone())
        });
        Ok(Finding {
            code: f.code.clone(),
            severity: f.severity.name(),
            message: f.message.clone(),
            help: f.help.clone(),
            call: f.call.as_ref().map(|c| c.index),
            expectation,
            location: location(py, f.location.as_ref())?,
            related: location(py, f.related.as_ref())?,
        })
    }
}

#[pymethods]
impl Finding {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Finding(code={}, severity={}, message={}, call={}, expectation={})",
            repr(py, &self.code)?,
            repr(py, self.severity)?,
            repr(py, &self.message)?,
            self.call.map_or("None".to_owned(), |c| c.to_string()),
            repr_opt(py, self.expectation.as_deref())?,
        ))
    }
}

/// How one expectation of the spec fared.
#[pyclass(frozen, module = "toolspec", name = "Expectation")]
pub(crate) struct Expectation {
    /// Its position among the spec's expectations (0-based).
    #[pyo3(get)]
    index: usize,
    /// The tool it expects.
    #[pyo3(get)]
    tool: String,
    #[pyo3(get)]
    label: Option<String>,
    /// `matched`, `name_only`, `missing`, ...
    #[pyo3(get)]
    status: String,
    #[pyo3(get)]
    passed: bool,
    /// Positions (0-based) of the calls it matched.
    #[pyo3(get)]
    calls: Vec<usize>,
    /// Why it is not met: the message of each constraint a matched call fails (empty when
    /// met, and for a missing call, which its `missing-call` finding explains).
    #[pyo3(get)]
    reasons: Vec<String>,
}

impl Expectation {
    fn new(x: &toolspec::report::model::ExpectationResult) -> Expectation {
        Expectation {
            index: x.index,
            tool: x.tool.clone(),
            label: x.label.clone(),
            status: x.status.clone(),
            passed: x.passed,
            calls: x.calls.iter().map(|c| c.index).collect(),
            reasons: x.failures.iter().map(|f| f.message.clone()).collect(),
        }
    }
}

#[pymethods]
impl Expectation {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Expectation(index={}, tool={}, label={}, status={}, passed={}, calls={:?})",
            self.index,
            repr(py, &self.tool)?,
            repr_opt(py, self.label.as_deref())?,
            repr(py, &self.status)?,
            if self.passed { "True" } else { "False" },
            self.calls,
        ))
    }
}

/// A diagnostic code of toolspec (`toolspec rules`, `docs/cli.md`'s table of codes).
#[pyclass(frozen, module = "toolspec", name = "Code")]
pub(crate) struct Code {
    /// The code as reports print it (`missing-call`, `toolspec::syntax`).
    #[pyo3(get)]
    id: &'static str,
    /// Its kebab-case name (`syntax`).
    #[pyo3(get)]
    name: &'static str,
    /// What reports it: `spec`, `read`, `run`, `engine` or `rule`.
    #[pyo3(get)]
    stage: &'static str,
    /// Its default severity: `error`, `warning` or `note`.
    #[pyo3(get)]
    severity: &'static str,
    /// What it means, in one line.
    #[pyo3(get)]
    description: &'static str,
}

#[pymethods]
impl Code {
    fn __repr__(&self) -> String {
        format!("<toolspec.Code {} ({})>", self.id, self.severity)
    }
}

/// `CODES`: every code of the registry (`toolspec::code::Code`), by the id reports print.
pub(crate) fn codes(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let dict = PyDict::new(py);
    for c in CodeRow::ALL {
        let code = Code {
            id: c.id(),
            name: c.name(),
            stage: c.stage().name(),
            severity: c.severity().name(),
            description: c.description(),
        };
        dict.set_item(c.id(), Py::new(py, code)?)?;
    }
    Ok(dict)
}

/// A location as the JSON report writes it, as a dict.
fn location(
    py: Python<'_>,
    loc: Option<&toolspec::report::model::Location>,
) -> PyResult<Option<Py<PyDict>>> {
    let Some(loc) = loc else {
        return Ok(None);
    };
    let dict = PyDict::new(py);
    dict.set_item("file", &loc.file)?;
    dict.set_item("line", loc.line)?;
    dict.set_item("column", loc.column)?;
    dict.set_item("end_line", loc.end_line)?;
    dict.set_item("end_column", loc.end_column)?;
    dict.set_item("span", PyList::new(py, loc.span)?)?;
    Ok(Some(dict.unbind()))
}

/// A list of findings as the JSON report writes them (the `errors` a `ToolspecError` carries).
pub(crate) fn json_list<'py>(
    py: Python<'py>,
    findings: &[toolspec::report::model::Finding],
) -> PyResult<Bound<'py, PyList>> {
    let value = serde_json::to_value(findings)
        .map_err(|e| errors::plain::<errors::ToolspecError>(py, e.to_string()))?;
    Ok(to_py(py, &value)?.cast_into::<PyList>()?)
}

/// A JSON value as the Python objects `json.loads` reads it as.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// A string as Python's `repr` writes it.
fn repr(py: Python<'_>, s: &str) -> PyResult<String> {
    Ok(pyo3::types::PyString::new(py, s).repr()?.to_string())
}

/// An optional string as Python's `repr` writes it (`None`).
fn repr_opt(py: Python<'_>, s: Option<&str>) -> PyResult<String> {
    s.map_or_else(|| Ok("None".to_owned()), |s| repr(py, s))
}

/// A float as Python's `repr` writes it for the usual scores (`1.0`, `0.75`).
fn py_float(f: f64) -> String {
    let s = format!("{f}");
    if s.contains(['.', 'e', 'E', 'n', 'N']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// Raise [`TranscriptError`] for a check that could not read its transcript.
pub(crate) fn unreadable(py: Python<'_>, checked: &Checked) -> PyErr {
    checked.error::<TranscriptError>(py)
}
