//! `ferroflow._ferroflow`: the native module behind `import ferroflow`. This crate
//! only converts values, manages the GIL and maps errors; all semantics live in
//! `ferroflow-core`.
mod checkpoint;
mod errors;
mod events;
mod graph;
mod session;
mod tensor;
mod threads;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Names of every registered op type.
#[pyfunction]
fn op_names() -> Vec<&'static str> {
    ferroflow_core::ops::op_names()
}

/// Writes `data` to `path` atomically and durably (a synced temporary file renamed
/// into place, then the directory synced), raising TF's error class for an OS error.
#[pyfunction]
fn write_file_atomically(py: Python<'_>, path: std::path::PathBuf, data: &[u8]) -> PyResult<()> {
    errors::run_detached(py, || Ok(ferroflow_io::durable::write_atomically(&path, data)?))
}

/// The native module.
#[pymodule(gil_used = true)]
fn _ferroflow(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FILE_DESCRIPTOR_SET", PyBytes::new(m.py(), ferroflow_proto::FILE_DESCRIPTOR_SET))?;
    m.add_class::<graph::PyGraph>()?;
    m.add_class::<session::PySession>()?;
    m.add_class::<session::PyPlan>()?;
    m.add_class::<tensor::TensorBuffer>()?;
    m.add_class::<tensor::PyTensorHandle>()?;
    m.add_class::<events::PyEventWriter>()?;
    m.add_class::<events::PyRecordReader>()?;
    m.add_class::<checkpoint::PyCheckpointReader>()?;
    m.add_class::<threads::PyCoordinatorCore>()?;
    m.add_class::<threads::PyRunnerJob>()?;
    m.add_function(wrap_pyfunction!(threads::queue_runner_jobs, m)?)?;
    m.add_function(wrap_pyfunction!(session::reset_sessions, m)?)?;
    m.add_function(wrap_pyfunction!(op_names, m)?)?;
    m.add_function(wrap_pyfunction!(write_file_atomically, m)?)?;
    Ok(())
}
