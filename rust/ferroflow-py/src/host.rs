//! The Python side of the core's host-callback seam (`ferroflow_core::host`): the
//! `PyFunc` kernels call [`PyHost`], which takes the GIL, hands the inputs to the
//! Python trampoline (`ferroflow.ops.script_ops._py_funcs`, TF's `FuncRegistry`) as
//! numpy arrays, and converts what the function returned back to tensors. TF's
//! `py_func.cc` plays the same part; the exception classes map to codes as there.
use parking_lot::Mutex;
use pyo3::exceptions::{PyMemoryError, PyNotImplementedError, PyStopIteration, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use ferroflow_core::error::{Code, Error};
use ferroflow_core::host::{HostCallback, HostValue};
use ferroflow_core::tensor::Tensor;

use crate::tensor::{tensor_from_py, tensor_to_py};

/// The Python callable that runs a registered function: `trampoline(token, args)`
/// returns the function's values as a list of numpy arrays.
static TRAMPOLINE: Mutex<Option<Py<PyAny>>> = Mutex::new(None);

/// Sets the callable the `PyFunc` kernels call (TF's `initialize_py_trampoline`).
#[pyfunction]
pub fn initialize_py_trampoline(trampoline: Py<PyAny>) {
    *TRAMPOLINE.lock() = Some(trampoline);
}

/// The host callback ferroflow-py installs into the core when the module loads.
pub struct PyHost;

impl HostCallback for PyHost {
    fn call(&self, token: &str, inputs: Vec<Tensor>) -> ferroflow_core::Result<Vec<HostValue>> {
        // Kernels run without the GIL and with no lock of the executor held, so taking
        // the GIL here cannot deadlock with a thread that waits for this run.
        Python::try_attach(|py| call_trampoline(py, token, inputs)).unwrap_or_else(|| {
            Err(Error::new(Code::Cancelled, format!("{token} cannot run: the Python interpreter is shutting down")))
        })
    }
}

fn call_trampoline(py: Python<'_>, token: &str, inputs: Vec<Tensor>) -> ferroflow_core::Result<Vec<HostValue>> {
    // Cloned out so no Rust lock is held while Python runs.
    let trampoline = TRAMPOLINE.lock().as_ref().map(|t| t.clone_ref(py));
    let Some(trampoline) = trampoline else {
        return Err(Error::new(Code::Internal, "the Python function registry of py_func is not initialized"));
    };
    let args = inputs.into_iter().map(|t| tensor_to_py(py, t)).collect::<PyResult<Vec<_>>>();
    let ret = args
        .and_then(|args| trampoline.bind(py).call1((token, PyList::new(py, args)?)))
        .map_err(|e| python_failure(py, &e))?;
    let values = ret.cast::<PyList>().map_err(|e| python_failure(py, &e.into()))?;
    values.iter().map(|v| host_value(&v)).collect()
}

/// A value the function returned (already a numpy array) as a tensor, or its dtype's
/// TF name when ferroflow has no such tensor type.
fn host_value(v: &Bound<'_, PyAny>) -> ferroflow_core::Result<HostValue> {
    if let Ok(t) = tensor_from_py(v) {
        return Ok(Ok(t));
    }
    let py = v.py();
    let dtype = v.getattr("dtype").map_err(|e| python_failure(py, &e))?;
    let kind: String = dtype.getattr("kind").and_then(|k| k.extract()).map_err(|e| python_failure(py, &e))?;
    if kind == "O" {
        // TF: an object array converts to strings only, element by element.
        let flat =
            v.call_method0("ravel").and_then(|f| f.call_method0("tolist")).map_err(|e| python_failure(py, &e))?;
        let flat = flat.cast::<PyList>().map_err(|e| python_failure(py, &e.into()))?;
        let odd = flat.iter().find(|x| !x.is_instance_of::<PyBytes>() && !x.is_instance_of::<PyString>());
        let name = match odd {
            Some(x) => x.get_type().name().map_or_else(|_| "object".into(), |n| n.to_string()),
            None => "object".into(),
        };
        return Err(Error::new(Code::Internal, format!("Unsupported object type {name}")));
    }
    let name: String = dtype.getattr("name").and_then(|n| n.extract()).map_err(|e| python_failure(py, &e))?;
    Ok(Err(match name.as_str() {
        "float32" => "float".into(),
        "float64" => "double".into(),
        "float16" => "half".into(),
        _ => name,
    }))
}

/// A Python exception raised by (or while calling) the function, as TF's `py_func`
/// reports it: `ValueError`/`TypeError` are `InvalidArgument`, `StopIteration`
/// `OutOfRange`, `MemoryError` `ResourceExhausted`, `NotImplementedError`
/// `Unimplemented`, anything else (a `tf.errors` class, `KeyboardInterrupt`)
/// `Unknown`; the message is `<class name>: <text>` and the traceback.
fn python_failure(py: Python<'_>, e: &PyErr) -> Error {
    let code = if e.is_instance_of::<PyValueError>(py) || e.is_instance_of::<PyTypeError>(py) {
        Code::InvalidArgument
    } else if e.is_instance_of::<PyStopIteration>(py) {
        Code::OutOfRange
    } else if e.is_instance_of::<PyMemoryError>(py) {
        Code::ResourceExhausted
    } else if e.is_instance_of::<PyNotImplementedError>(py) {
        Code::Unimplemented
    } else {
        Code::Unknown
    };
    let value = e.value(py);
    let name = value.get_type().name().map_or_else(|_| "Exception".into(), |n| n.to_string());
    let text = value.str().map_or_else(|_| String::new(), |s| s.to_string());
    let traceback = py
        .import("traceback")
        .and_then(|m| m.call_method1("format_exception", (value.get_type(), value, e.traceback(py))))
        .and_then(|lines| PyString::new(py, "").call_method1("join", (lines,)))
        .map_or_else(|_| String::new(), |s| s.to_string());
    Error::new(code, format!("{name}: {text}\n{traceback}"))
}
