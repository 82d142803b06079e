//! Process-wide rayon pools, one per thread count, built lazily and rebuilt after a
//! `fork()` (the child has none of the parent's threads; using the old pool would hang).
use std::any::Any;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

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

/// Pieces `0..total` of one kernel's work, claimed one at a time by the calling thread
/// and by pool workers that come to help.
struct Pieces {
    next: AtomicUsize,
    total: usize,
    done: Mutex<usize>,
    all_done: Condvar,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    // The caller's closure with its lifetime erased. Only called for a claimed piece
    // (`next` below `total`), and the caller returns only once every claimed piece has
    // finished, so no call outlives the borrow.
    f: *const (dyn Fn(usize) + Sync + 'static),
}

// SAFETY: `f` points to a `Sync` closure that outlives every call made through it (see
// the field's comment); the other fields are thread-safe.
unsafe impl Send for Pieces {}
// SAFETY: as above.
unsafe impl Sync for Pieces {}

impl Pieces {
    /// Runs unclaimed pieces until none is left.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::AcqRel);
            if i >= self.total {
                return;
            }
            // SAFETY: piece `i` is claimed, so the caller is still waiting for it.
            let result = catch_unwind(AssertUnwindSafe(|| unsafe { (*self.f)(i) }));
            if let Err(payload) = result {
                lock(&self.panic).get_or_insert(payload);
            }
            let mut done = lock(&self.done);
            *done += 1;
            if *done == self.total {
                self.all_done.notify_all();
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `f(0)`, ..., `f(pieces - 1)` on the calling thread and on idle workers of
/// `pool`, returning once all have run (a panic in a piece is resumed here).
///
/// Unlike `pool.install` + a parallel iterator, the calling thread never runs other
/// jobs of the pool while it waits: it only takes pieces of its own work, then waits
/// for pieces already running elsewhere. A kernel may hold a lock (a variable's, under
/// an optimizer update) while it splits its work; with rayon's work stealing the waiting
/// thread could pick up another step's node that takes the same lock and deadlock.
pub fn run_pieces(pool: &rayon::ThreadPool, pieces: usize, f: &(dyn Fn(usize) + Sync)) {
    let helpers = pool.current_num_threads().min(pieces).saturating_sub(1);
    if helpers == 0 {
        (0..pieces).for_each(f);
        return;
    }
    // SAFETY: only the lifetime changes; see `Pieces::f`.
    let f: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(f) };
    let state = Arc::new(Pieces {
        next: AtomicUsize::new(0),
        total: pieces,
        done: Mutex::new(0),
        all_done: Condvar::new(),
        panic: Mutex::new(None),
        f,
    });
    for _ in 0..helpers {
        let s = Arc::clone(&state);
        pool.spawn(move || s.work());
    }
    state.work();
    let mut done = lock(&state.done);
    while *done < pieces {
        done = state.all_done.wait(done).unwrap_or_else(std::sync::PoisonError::into_inner);
    }
    drop(done);
    if let Some(payload) = lock(&state.panic).take() {
        resume_unwind(payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_piece_runs_once() {
        let pool = shared_pool(4).expect("a pool");
        let hits: Vec<AtomicUsize> = (0..37).map(|_| AtomicUsize::new(0)).collect();
        run_pieces(&pool, hits.len(), &|i| {
            hits[i].fetch_add(1, Ordering::Relaxed);
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn a_waiting_caller_never_runs_foreign_jobs() {
        // Each job marks its thread while it splits work (as a kernel holding a
        // variable's lock would); a job that starts on a marked thread was run by a
        // waiting caller, which with a lock held deadlocks.
        thread_local!(static SPLITTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
        let pool = shared_pool(4).expect("a pool");
        let nested = AtomicUsize::new(0);
        pool.scope(|s| {
            for _ in 0..64 {
                s.spawn(|_| {
                    if SPLITTING.get() {
                        nested.fetch_add(1, Ordering::Relaxed);
                    }
                    SPLITTING.set(true);
                    run_pieces(&pool, 8, &|_| std::thread::sleep(std::time::Duration::from_micros(200)));
                    SPLITTING.set(false);
                });
            }
        });
        assert_eq!(nested.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_panicking_piece_reaches_the_caller() {
        let pool = shared_pool(2).expect("a pool");
        let r = catch_unwind(AssertUnwindSafe(|| run_pieces(&pool, 4, &|i| assert_ne!(i, 2, "piece two"))));
        assert!(r.is_err());
    }
}
