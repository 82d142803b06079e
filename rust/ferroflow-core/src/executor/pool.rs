//! Process-wide rayon pools, one per thread count, built lazily and rebuilt after a
//! `fork()` (the child has none of the parent's threads; using the old pool would hang).
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

type Pools = Mutex<(u32, HashMap<usize, Arc<rayon::ThreadPool>>)>;

/// Default thread count: `FERROFLOW_NUM_THREADS`, else the machine's parallelism.
pub fn default_threads() -> usize {
    std::env::var("FERROFLOW_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
}

/// The shared pool with `threads` workers (`None` for one thread: run inline).
pub fn shared_pool(threads: usize) -> Option<Arc<rayon::ThreadPool>> {
    if threads <= 1 {
        return None;
    }
    static POOLS: OnceLock<Pools> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new((std::process::id(), HashMap::new())));
    let mut guard = pools.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let pid = std::process::id();
    if guard.0 != pid {
        // Forked: the parent's worker threads do not exist here. Leak the old pools
        // (dropping them would join threads that are gone) and start afresh.
        for (_, p) in guard.1.drain() {
            std::mem::forget(p);
        }
        guard.0 = pid;
    }
    if let Some(p) = guard.1.get(&threads) {
        return Some(Arc::clone(p));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("ferroflow-pool-{i}"))
        .build()
        .ok()
        .map(Arc::new)?;
    guard.1.insert(threads, Arc::clone(&pool));
    Some(pool)
}
