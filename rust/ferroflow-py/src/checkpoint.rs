//! Checkpoint reading for Python: `CheckpointReader`, behind
//! `tf.train.NewCheckpointReader`, `load_checkpoint`, `list_variables` and
//! `load_variable`. It opens a V2 bundle or V1 tensor-slice files (TF's or ours) and returns tensors as numpy
//! arrays; the core's `restore_tensor` validates every entry before allocating.
use std::path::PathBuf;

use ferroflow_core::error::{Code, Error};
use ferroflow_core::kernels::io::Checkpoint;
use pyo3::prelude::*;

use crate::errors::run_detached;
use crate::tensor::tensor_to_py;

/// An open checkpoint: its tensors' names, dtypes and shapes, and their values.
#[pyclass(frozen, name = "CheckpointReader", module = "ferroflow._ferroflow")]
pub struct PyCheckpointReader {
    inner: Checkpoint,
}

#[pymethods]
impl PyCheckpointReader {
    /// Opens the checkpoint `prefix` (reads and checks its index).
    #[new]
    fn new(py: Python<'_>, prefix: PathBuf) -> PyResult<Self> {
        let inner = run_detached(py, || {
            Checkpoint::open(&prefix).map_err(|e| match e.code {
                Code::NotFound => Error::new(
                    Code::NotFound,
                    format!(
                        "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {}",
                        prefix.display()
                    ),
                ),
                _ => e,
            })
        })?;
        Ok(PyCheckpointReader { inner })
    }

    /// `(name, TF dtype code, shape)` of every tensor, sorted by name.
    fn entries(&self) -> Vec<(String, i32, Vec<i64>)> {
        self.inner.entries()
    }

    /// The value of tensor `name` as a numpy array (a numpy scalar or `bytes` for
    /// rank 0); `NotFoundError` if the checkpoint has no such tensor.
    fn get_tensor<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let t = run_detached(py, || self.inner.restore(name))?;
        tensor_to_py(py, t)
    }
}
