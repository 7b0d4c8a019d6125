//! The exceptions of the `toolspec` module, raised from here: [`ToolspecError`] for anything that
//! could not be checked, [`SpecError`] for a spec that cannot be read or does not compile,
//! [`TranscriptError`] for a transcript that cannot be read.
//!
//! `str(error)` is the human text the command prints; `error.diagnostics` is a list with a dict
//! per problem (`code`, `severity`, `message`, and more where the source has more: the `errors`
//! of the JSON report, or a spec's compile diagnostics).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::PyTypeInfo;

create_exception!(
    toolspec,
    ToolspecError,
    PyException,
    "Something could not be checked: a spec that does not compile, a transcript that cannot be \
     read, an unknown format or spec name.\n\n`str(error)` is the human text `toolspec` prints; \
     `diagnostics` holds each problem as a dict with at least `code`, `severity` and `message` \
     (the `errors` of `toolspec check --format json`, or a spec's compile diagnostics). \
     `report` is, for `check_project`, the report of everything that could be checked (its \
     results and its `errors`), else `None`."
);
create_exception!(
    toolspec,
    SpecError,
    ToolspecError,
    "A spec that cannot be read or does not compile."
);
create_exception!(
    toolspec,
    TranscriptError,
    ToolspecError,
    "A transcript that cannot be read (not found, not a known format, malformed)."
);

/// An exception of type `E` with `message`, its `diagnostics` (each a dict) and no `report`
/// (`check_project` sets it to the report of what could be checked).
pub(crate) fn raise<E: PyTypeInfo>(
    py: Python<'_>,
    message: impl Into<String>,
    diagnostics: Bound<'_, PyList>,
) -> PyErr {
    let err = PyErr::new::<E, _>(message.into());
    let value = err.value(py);
    match value
        .setattr("diagnostics", diagnostics)
        .and_then(|()| value.setattr("report", py.None()))
    {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// An exception of type `E` with `message` and no diagnostics.
pub(crate) fn plain<E: PyTypeInfo>(py: Python<'_>, message: impl Into<String>) -> PyErr {
    raise::<E>(py, message, PyList::empty(py))
}

/// Add the exceptions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ToolspecError", py.get_type::<ToolspecError>())?;
    m.add("SpecError", py.get_type::<SpecError>())?;
    m.add("TranscriptError", py.get_type::<TranscriptError>())?;
    Ok(())
}
