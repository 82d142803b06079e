//! The process's one tokio runtime, for network I/O only.
//!
//! Built on first use with two worker threads; a forked child (Python's
//! `multiprocessing` default on Linux) cannot use its parent's threads, so a runtime
//! built by another process id is left behind (leaked) and a new one built.
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::runtime::{Builder, Runtime};

use ferroflow_core::error::{Code, Error, Result};

static RUNTIME: Mutex<Option<(u32, Arc<Runtime>)>> = Mutex::new(None);

/// The runtime of this process.
pub fn runtime() -> Result<Arc<Runtime>> {
    let pid = std::process::id();
    let mut slot = RUNTIME.lock();
    if let Some((owner, rt)) = slot.as_ref() {
        if *owner == pid {
            return Ok(Arc::clone(rt));
        }
        // A runtime of the parent process: its threads do not exist here.
        std::mem::forget(slot.take());
    }
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("ferroflow-rpc")
        .enable_all()
        .build()
        .map_err(|e| Error::new(Code::Internal, format!("could not start the gRPC runtime: {e}")))?;
    let rt = Arc::new(rt);
    *slot = Some((pid, Arc::clone(&rt)));
    Ok(rt)
}
