//! The seam through which a graph calls back into its host language: TF's `PyFunc`
//! kernel asks the host (Python) to run the function registered under a token.
//!
//! The core knows no Python. A binding installs one [`HostCallback`] per process
//! (ferroflow-py does so when its module is imported); the `PyFunc` kernels
//! (`kernels/script.rs`) call it with the token and their input tensors and check
//! what comes back against the op's `Tout` with TF's messages. Kernels run with no
//! interpreter lock held, on whatever thread the executor picked (the caller of
//! `Session.run`, a pool worker, a queue-runner thread), so an implementation must
//! take whatever lock its language needs itself, and must not be called while the
//! caller holds a lock the host's code could wait for: the executor holds none while
//! a kernel computes.
use std::sync::OnceLock;

use crate::error::Result;
use crate::tensor::Tensor;

/// One value a host function returned: a tensor, or (when the host could not turn it
/// into one) the name of its element type as TF's C++ spells it (`int16`), which the
/// kernel reports as a dtype mismatch.
pub type HostValue = std::result::Result<Tensor, String>;

/// Runs host-language functions for the `PyFunc` kernels.
pub trait HostCallback: Send + Sync {
    /// Calls the function registered under `token` with `inputs` and returns its
    /// values in order. A failure of the function itself is an error whose code says
    /// what kind of failure it was (TF maps Python's `ValueError` and `TypeError` to
    /// `InvalidArgument`, `StopIteration` to `OutOfRange`, and so on).
    fn call(&self, token: &str, inputs: Vec<Tensor>) -> Result<Vec<HostValue>>;
}

static HOST: OnceLock<Box<dyn HostCallback>> = OnceLock::new();

/// Installs the process's host callback; `false` (and `callback` dropped) when one
/// is already installed.
pub fn install_host_callback(callback: Box<dyn HostCallback>) -> bool {
    HOST.set(callback).is_ok()
}

/// The installed host callback, if any.
pub fn host_callback() -> Option<&'static dyn HostCallback> {
    HOST.get().map(|b| &**b)
}
