//! `ferroflow._ferroflow`: the native module behind `import ferroflow`. This crate
//! only converts values, manages the GIL and maps errors; all semantics live in
//! `ferroflow-core`.
mod checkpoint;
mod errors;
mod events;
mod graph;
mod host;
mod server;
mod session;
mod tensor;
mod threads;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The extension's Rust heap is mimalloc: input pipelines allocate and free many small
/// buffers (records, parsed values, queue elements) from several runner threads at
/// once, where glibc's malloc spent a third of the time (see docs/ARCHITECTURE.md).
/// Python's own objects keep Python's allocator; no buffer crosses between the two.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_t` (the sys crate keeps it
/// unnamed; its neighbours `mi_option_eager_commit_delay` = 14 and
/// `mi_option_use_numa_nodes` = 16 are named).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Lets freed memory go back to the OS only after a second unused (mimalloc's default
/// is 10 ms), unless `MIMALLOC_PURGE_DELAY` says otherwise. A training step frees and
/// allocates the same large buffers (activations, gradients, received tensors) every
/// few milliseconds; purged in between, each step faulted their pages in again, zeroed:
/// a fifth of a distributed training step's time.
fn configure_allocator() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one integer option; mimalloc reads options atomically.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 1000) }
    }
}

/// Names of every registered op type.
#[pyfunction]
fn op_names() -> Vec<&'static str> {
    ferroflow_core::ops::op_names()
}

/// How op type `name` takes part in `tf.gradients`: `"function"` (a registered
/// gradient), `"none"` (not differentiable) or `"missing"` (no registration).
#[pyfunction]
fn gradient_status(name: &str) -> &'static str {
    match ferroflow_core::autodiff::registry::gradient(name) {
        ferroflow_core::autodiff::registry::Gradient::Fn(_) => "function",
        ferroflow_core::autodiff::registry::Gradient::NotDifferentiable => "none",
        ferroflow_core::autodiff::registry::Gradient::Missing => "missing",
    }
}

/// One training op's signature from the core's table: `(op, [(input, kind)], flag,
/// doc)`, where kind is `ref`, `T`, `indices` or `step` and flag is the op's bool
/// attr besides `use_locking` with its default (or None).
type TrainingSignature = (&'static str, Vec<(&'static str, &'static str)>, Option<(&'static str, bool)>, String);

/// The signatures of every optimizer op, from which Python derives its wrappers.
#[pyfunction]
fn training_op_signatures() -> Vec<TrainingSignature> {
    use ferroflow_core::ops::training::InputKind;
    ferroflow_core::ops::training::training_op_signatures()
        .into_iter()
        .map(|s| {
            let inputs = s
                .inputs
                .into_iter()
                .map(|(name, kind)| {
                    let kind = match kind {
                        InputKind::Ref => "ref",
                        InputKind::Typed => "T",
                        InputKind::Indices => "indices",
                        InputKind::Step => "step",
                    };
                    (name, kind)
                })
                .collect();
            (s.op, inputs, s.flag, s.doc)
        })
        .collect()
}

/// Writes `data` to `path` atomically and durably (a synced temporary file renamed
/// into place, then the directory synced), raising TF's error class for an OS error.
#[pyfunction]
fn write_file_atomically(py: Python<'_>, path: std::path::PathBuf, data: &[u8]) -> PyResult<()> {
    errors::run_detached(py, || Ok(ferroflow_io::durable::write_atomically(&path, data)?))
}

/// What Python gets of one local device:
/// `(name, device_type, memory_limit, physical_device_desc, (bus_id, numa_node))`.
type LocalDevice = (String, String, u64, String, (i32, i32));

/// Each local device (`device_lib.list_local_devices`), as its device type describes it.
#[pyfunction]
fn local_devices() -> Vec<LocalDevice> {
    ferroflow_core::device::local_devices()
        .into_iter()
        .map(|(name, device_type, d)| {
            let locality = (d.locality.bus_id, d.locality.numa_node);
            (name, device_type, d.memory_limit, d.physical_device_desc, locality)
        })
        .collect()
}

/// The native module.
#[pymodule(gil_used = true)]
fn _ferroflow(m: &Bound<'_, PyModule>) -> PyResult<()> {
    configure_allocator();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FILE_DESCRIPTOR_SET", PyBytes::new(m.py(), ferroflow_proto::FILE_DESCRIPTOR_SET))?;
    m.add_class::<graph::PyGraph>()?;
    m.add_class::<graph::PyGradientWalk>()?;
    m.add_function(wrap_pyfunction!(gradient_status, m)?)?;
    ferroflow_rpc::register();
    // The GPU devices (wgpu adapters), before any session lists its devices.
    ferroflow_wgpu::register();
    m.add_class::<session::PySession>()?;
    m.add_class::<server::PyServer>()?;
    m.add_class::<session::PyPlan>()?;
    m.add_class::<tensor::TensorBuffer>()?;
    m.add_class::<tensor::PyTensorHandle>()?;
    m.add_class::<events::PyEventWriter>()?;
    m.add_class::<events::PyRecordReader>()?;
    m.add_class::<events::PyRecordWriter>()?;
    m.add_class::<checkpoint::PyCheckpointReader>()?;
    m.add_class::<threads::PyCoordinatorCore>()?;
    m.add_class::<threads::PyRunnerJob>()?;
    m.add_function(wrap_pyfunction!(threads::queue_runner_jobs, m)?)?;
    m.add_function(wrap_pyfunction!(session::reset_sessions, m)?)?;
    m.add_function(wrap_pyfunction!(op_names, m)?)?;
    m.add_function(wrap_pyfunction!(local_devices, m)?)?;
    m.add_function(wrap_pyfunction!(training_op_signatures, m)?)?;
    m.add_function(wrap_pyfunction!(write_file_atomically, m)?)?;
    m.add_function(wrap_pyfunction!(host::initialize_py_trampoline, m)?)?;
    // The `PyFunc` kernels reach Python through this (once per process: a second
    // import of the module finds it installed).
    ferroflow_core::host::install_host_callback(Box::new(host::PyHost));
    Ok(())
}
