//! Maps core errors to Python exceptions, once: construction-time errors become
//! `ValueError`/`TypeError` (as TensorFlow raises them), run-time statuses become
//! the `ferroflow.errors` class of their code, carrying the failing node's name.
use pyo3::exceptions::{PyLookupError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;

use std::sync::OnceLock;

use parking_lot::Mutex;

use ferroflow_core::error::{Code, Error, Kind};
use ferroflow_core::framework::cancel::InterruptCheck;

/// Converts a core error to the matching Python exception.
pub fn to_pyerr(py: Python<'_>, e: Error) -> PyErr {
    match e.kind {
        Kind::Value => PyValueError::new_err(e.message),
        Kind::Type => PyTypeError::new_err(e.message),
        Kind::Lookup => PyLookupError::new_err(e.message),
        Kind::Status | Kind::WouldBlock => {
            status_error(py, e.code, &e.message, e.node.as_deref()).unwrap_or_else(|import_failure| import_failure)
        }
    }
}

/// An instance of `ferroflow.errors.<Class>(None, None, message)` for `code`.
fn status_error(py: Python<'_>, code: Code, message: &str, node: Option<&str>) -> PyResult<PyErr> {
    static BY_CODE: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
    let table = BY_CODE.get_or_try_init(py, || -> PyResult<Py<PyDict>> {
        let m = py.import("ferroflow.errors")?;
        Ok(m.getattr("_CODE_TO_EXCEPTION")?.cast_into::<PyDict>()?.unbind())
    })?;
    let cls = match table.bind(py).get_item(code as i32)? {
        Some(c) => c,
        None => table.bind(py).get_item(Code::Unknown as i32)?.unwrap_or_else(|| py.None().into_bound(py)),
    };
    let exc = cls.call1((py.None(), py.None(), message))?;
    if let Some(n) = node {
        exc.setattr("_node_name", n)?;
    }
    Ok(PyErr::from_value(exc))
}

/// An `InternalError` for a Rust panic caught at the boundary.
pub fn panic_to_pyerr(py: Python<'_>, payload: &(dyn std::any::Any + Send)) -> PyErr {
    to_pyerr(py, Error::from_panic(payload))
}

/// Runs `f` with the GIL released, turning core errors and panics into Python exceptions.
pub fn run_detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> ferroflow_core::Result<T> + Send) -> PyResult<T> {
    match py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_pyerr(py, e)),
        Err(payload) => Err(panic_to_pyerr(py, &*payload)),
    }
}

/// [`run_detached`] for a run that may wait (`Session.run`): `f` gets a check that the
/// core polls while the run waits (every 100 ms). On Python's main thread it runs the
/// signal handlers, so Ctrl-C cancels the run (its blocked steps are woken) and the
/// handler's exception (`KeyboardInterrupt`) is raised; elsewhere it does nothing.
pub fn run_interruptible<T: Send>(
    py: Python<'_>,
    f: impl for<'a> FnOnce(InterruptCheck<'a>) -> ferroflow_core::Result<T> + Send,
) -> PyResult<T> {
    let raised: Mutex<Option<PyErr>> = Mutex::new(None);
    // Only the calling thread can run signal handlers, and only if it is Python's main
    // thread; the run's other threads (steps waiting on their own) skip the check.
    let caller = std::thread::current().id();
    let caller_is_main = OnceLock::new();
    let check = || -> ferroflow_core::Result<()> {
        if std::thread::current().id() != caller {
            return Ok(());
        }
        let signals = Python::attach(|py| {
            if !*caller_is_main.get_or_init(|| is_main_thread(py)) {
                return Ok(());
            }
            py.check_signals()
        });
        signals.map_err(|e| {
            *raised.lock() = Some(e);
            Error::new(Code::Cancelled, "Run was interrupted")
        })
    };
    let out = run_detached(py, || f(&check));
    match raised.into_inner() {
        Some(e) => Err(e),
        None => out,
    }
}

/// Whether the calling thread is Python's main thread (the one that runs signal handlers).
fn is_main_thread(py: Python<'_>) -> bool {
    let check = || -> PyResult<bool> {
        let threading = py.import("threading")?;
        let main = threading.call_method0("main_thread")?.getattr("ident")?;
        main.eq(threading.call_method0("get_ident")?)
    };
    check().unwrap_or(false)
}

/// Like [`run_detached`] for quick calls that keep the GIL (graph construction).
pub fn guarded<T>(py: Python<'_>, f: impl FnOnce() -> ferroflow_core::Result<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_pyerr(py, e)),
        Err(payload) => Err(panic_to_pyerr(py, &*payload)),
    }
}
