//! `tf.train.Server`'s native half: the rpc crate's gRPC server.
use std::sync::Arc;
use std::time::Duration;

use prost::Message;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use ferroflow_proto as pb;
use ferroflow_rpc::server::GrpcServer;

use crate::errors::{guarded, run_detached};

/// A gRPC server for one task of a cluster (TF's `GrpcServer`).
#[pyclass(frozen, name = "Server", module = "ferroflow._ferroflow")]
pub struct PyServer {
    inner: Arc<GrpcServer>,
}

#[pymethods]
impl PyServer {
    /// Binds the port of the task a serialized `ServerDef` names (not serving yet).
    #[new]
    fn new(py: Python<'_>, server_def: &[u8]) -> PyResult<Self> {
        let def =
            pb::ServerDef::decode(server_def).map_err(|e| PyValueError::new_err(format!("bad ServerDef: {e}")))?;
        let inner = guarded(py, || GrpcServer::new(def))?;
        Ok(PyServer { inner })
    }

    /// `grpc://localhost:<port>`.
    #[getter]
    fn target(&self) -> String {
        self.inner.target().to_string()
    }

    /// Starts serving (idempotent).
    fn start(&self, py: Python<'_>) -> PyResult<()> {
        let s = Arc::clone(&self.inner);
        run_detached(py, move || s.start())
    }

    /// Blocks until the server stops; Ctrl-C raises `KeyboardInterrupt`.
    fn join(&self, py: Python<'_>) -> PyResult<()> {
        loop {
            let s = Arc::clone(&self.inner);
            if run_detached(py, move || s.wait(Some(Duration::from_millis(100))))? {
                return Ok(());
            }
            py.check_signals()?;
        }
    }

    /// Stops serving and closes the sessions on this server.
    fn stop(&self, py: Python<'_>) {
        let s = Arc::clone(&self.inner);
        py.detach(move || s.stop());
    }
}
