//! Event and record files for Python: the background `EventWriter` behind
//! `tf.summary.FileWriter`, `RecordReader`, the verifying TFRecord reader behind
//! `tf.train.summary_iterator` and `tf_record_iterator`, and `RecordWriter`, behind
//! `TFRecordWriter`.
use std::path::PathBuf;

use ferroflow_io::events::{EventFileWriter, WriterOptions, wall_time};
use ferroflow_io::record::{Compression, RecordFileWriter, RecordReader, open_record_file};
use parking_lot::{Mutex, RwLock};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{guarded, run_detached};

/// Writes one event file on a Rust thread (see `ferroflow_io::events`).
#[pyclass(frozen, name = "EventWriter", module = "ferroflow._ferroflow")]
pub struct PyEventWriter {
    // Adding and flushing share the writer; closing takes it exclusively.
    inner: RwLock<EventFileWriter>,
}

impl PyEventWriter {
    /// Queues the event `make` builds, releasing the GIL only when it must wait; after
    /// `close` the event is dropped (false), as TF's writer drops it.
    ///
    /// The writer's lock is never waited for with the GIL held, nor held while the GIL
    /// is re-acquired: a `close` waiting for the write lock blocks new readers, so a
    /// reader holding the GIL would wait for `close`, which waits for an earlier reader,
    /// which waits for the GIL (a deadlock with several threads adding to a full queue).
    fn queue(
        &self,
        py: Python<'_>,
        make: impl FnOnce(&EventFileWriter) -> ferroflow_io::Result<Vec<u8>> + Send,
    ) -> PyResult<bool> {
        let pending = match self.inner.try_read() {
            Some(writer) => {
                if writer.is_closed() {
                    return Ok(false);
                }
                guarded(py, || Ok(writer.try_add_event(make(&writer)?)?))?
            }
            None => return run_detached(py, || self.add_blocking(make)),
        };
        match pending {
            Some(event) => run_detached(py, || self.add_blocking(|_| Ok(event))),
            None => Ok(true),
        }
    }

    /// Queues an event, waiting for the lock and for room (call without the GIL).
    fn add_blocking(
        &self,
        make: impl FnOnce(&EventFileWriter) -> ferroflow_io::Result<Vec<u8>>,
    ) -> ferroflow_core::Result<bool> {
        let writer = self.inner.read();
        if writer.is_closed() {
            return Ok(false);
        }
        writer.add_event(make(&writer)?)?;
        Ok(true)
    }
}

#[pymethods]
impl PyEventWriter {
    /// Creates the event file in `logdir` and starts the writer thread.
    #[new]
    #[pyo3(signature = (logdir, max_queue = 10, flush_secs = 120.0, filename_suffix = "", hostname = "localhost"))]
    fn new(
        py: Python<'_>,
        logdir: PathBuf,
        max_queue: usize,
        flush_secs: f64,
        filename_suffix: &str,
        hostname: &str,
    ) -> PyResult<Self> {
        let options = WriterOptions {
            max_queue,
            flush_secs,
            filename_suffix: filename_suffix.to_owned(),
            hostname: hostname.to_owned(),
        };
        let writer = run_detached(py, || Ok(EventFileWriter::create(&logdir, &options)?))?;
        Ok(PyEventWriter { inner: RwLock::new(writer) })
    }

    /// The path of the event file.
    #[getter]
    fn path(&self) -> String {
        self.inner.read().path().display().to_string()
    }

    /// Whether `close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.read().is_closed()
    }

    /// Queues a serialized `Event`; false (dropped) after `close`.
    fn add_event(&self, py: Python<'_>, event: &[u8]) -> PyResult<bool> {
        self.queue(py, |_| Ok(event.to_vec()))
    }

    /// Queues `Event{wall_time, step, summary}` for a `Summary` message or its
    /// serialization (`wall_time` defaults to now); false (dropped) after `close`.
    #[pyo3(signature = (summary, step = None, wall_time = None))]
    fn add_summary(
        &self,
        py: Python<'_>,
        summary: &Bound<'_, PyAny>,
        step: Option<i64>,
        wall_time: Option<f64>,
    ) -> PyResult<bool> {
        let serialized;
        let bytes = match summary.cast::<PyBytes>() {
            Ok(b) => b.as_bytes(),
            Err(_) => {
                serialized = summary.call_method0("SerializeToString")?.cast_into::<PyBytes>()?;
                serialized.as_bytes()
            }
        };
        let when = wall_time.unwrap_or_else(self::wall_time);
        self.queue(py, |w| w.summary_event(bytes, step, when))
    }

    /// Writes every queued event to the file.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        run_detached(py, || Ok(self.inner.read().flush()?))
    }

    /// Writes every queued event, syncs the file and stops the thread (idempotent).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        run_detached(py, || Ok(self.inner.write().close()?))
    }
}

/// Iterates over the payloads of a TFRecord file, verifying both CRCs.
#[pyclass(frozen, name = "RecordReader", module = "ferroflow._ferroflow")]
pub struct PyRecordReader {
    inner: Mutex<RecordReader<Box<dyn std::io::Read + Send>>>,
}

/// TF's `TFRecordCompressionType` code (0 none, 1 zlib, 2 gzip).
fn compression(code: u8) -> PyResult<Compression> {
    match code {
        0 => Ok(Compression::None),
        1 => Ok(Compression::Zlib),
        2 => Ok(Compression::Gzip),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!("unknown compression type {code}"))),
    }
}

#[pymethods]
impl PyRecordReader {
    /// Opens `path` (`NotFoundError` if it does not exist); `compression` is TF's
    /// `TFRecordCompressionType` (0 none, 1 zlib, 2 gzip). A partial header at the end
    /// ends the file (as TF's readers: a writer may be appending).
    #[new]
    #[pyo3(signature = (path, compression = 0))]
    fn new(py: Python<'_>, path: PathBuf, compression: u8) -> PyResult<Self> {
        let kind = self::compression(compression)?;
        let reader = guarded(py, || Ok(open_record_file(&path, kind)?))?;
        Ok(PyRecordReader { inner: Mutex::new(reader) })
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// The next payload; `DataLossError` names the file and offset of a corrupted or
    /// truncated record.
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let next = run_detached(py, || Ok(self.inner.lock().next_record()?))?;
        Ok(next.map(|payload| PyBytes::new(py, &payload)))
    }
}

/// Writes a TFRecord file (`tf.python_io.TFRecordWriter`), compressed as asked.
#[pyclass(frozen, name = "RecordWriter", module = "ferroflow._ferroflow")]
pub struct PyRecordWriter {
    inner: Mutex<RecordFileWriter>,
}

#[pymethods]
impl PyRecordWriter {
    /// Creates (or truncates) `path`; `compression` as for `RecordReader`, `level` the
    /// compression level (0-9; None: the default).
    #[new]
    #[pyo3(signature = (path, compression = 0, level = None))]
    fn new(py: Python<'_>, path: PathBuf, compression: u8, level: Option<u32>) -> PyResult<Self> {
        let kind = self::compression(compression)?;
        let writer = run_detached(py, || Ok(RecordFileWriter::create(&path, kind, level)?))?;
        Ok(PyRecordWriter { inner: Mutex::new(writer) })
    }

    /// Appends one record.
    fn write(&self, py: Python<'_>, record: &[u8]) -> PyResult<()> {
        run_detached(py, || Ok(self.inner.lock().write(record)?))
    }

    /// Hands what is buffered to the OS.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        run_detached(py, || Ok(self.inner.lock().flush()?))
    }

    /// Finishes the file (its compressed stream too), syncs and closes it.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        run_detached(py, || Ok(self.inner.lock().close()?))
    }
}
