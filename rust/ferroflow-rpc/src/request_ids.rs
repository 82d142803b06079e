//! TF's `RecentRequestIds`: requests that must not run twice (`RunGraph`,
//! `RecvTensor`, `RunStep`, ...) carry a random `request_id`; a server remembers the
//! most recent ones and refuses a second request with the same id (a retry by a
//! transport that resent it, say) with `Aborted`, instead of running a step twice or
//! waiting forever for a tensor that was already taken.
//!
//! As TF's: a ring of the last `capacity` ids (the oldest forgotten first, a duplicate
//! not refreshed), id 0 never tracked (clients that set none), the same message.
use std::collections::HashSet;

use parking_lot::Mutex;

use ferroflow_core::error::{Code, Error, Result};

/// How many ids a worker tracks (TF's `Worker`), for `RunGraph` and `RecvTensor` together.
pub const WORKER_TRACKED: usize = 100_000;
/// How many ids a master tracks (TF's `Master`), for `RunStep`, `PartialRunSetup`,
/// `MakeCallable` and `RunCallable` together.
pub const MASTER_TRACKED: usize = 10_000;

/// The ids of recent requests, up to a capacity.
pub struct RecentRequestIds {
    capacity: usize,
    ring: Mutex<Ring>,
}

#[derive(Default)]
struct Ring {
    /// Ids in arrival order from `next` on (grows to `capacity`, then wraps).
    ids: Vec<i64>,
    next: usize,
    set: HashSet<i64>,
}

impl RecentRequestIds {
    /// Tracks the last `capacity` ids (at least one). Memory grows with the ids seen.
    pub fn new(capacity: usize) -> Self {
        RecentRequestIds { capacity: capacity.max(1), ring: Mutex::new(Ring::default()) }
    }

    /// Whether `request_id` is new (and now tracked); id 0 is always new.
    fn insert(&self, request_id: i64) -> bool {
        if request_id == 0 {
            return true;
        }
        let mut ring = self.ring.lock();
        if !ring.set.insert(request_id) {
            return false;
        }
        if ring.ids.len() < self.capacity {
            ring.ids.push(request_id);
        } else {
            let next = ring.next;
            let oldest = std::mem::replace(&mut ring.ids[next], request_id);
            ring.set.remove(&oldest);
            ring.next = (next + 1) % self.capacity;
        }
        true
    }

    /// `Ok` for a request not seen recently, TF's `Aborted` for a repeated one.
    /// `method` is TF's name for the handler ("RunGraph (Worker)"); `request` describes
    /// the request for the message (only called for a repeat).
    pub fn track_unique(&self, request_id: i64, method: &str, request: impl FnOnce() -> String) -> Result<()> {
        if self.insert(request_id) {
            return Ok(());
        }
        Err(Error::new(Code::Aborted, format!("The same {method} request was received twice. {}", request())))
    }
}

/// A fresh id for a request (TF's `GetUniqueRequestId`: random, never 0).
pub fn unique_request_id() -> i64 {
    i64::try_from(crate::state::random_u64() >> 1).unwrap_or(1).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_refused_until_forgotten_oldest_first() {
        let ids = RecentRequestIds::new(3);
        for id in [5, 6, 7] {
            ids.track_unique(id, "RunGraph (Worker)", String::new).unwrap();
        }
        let e = ids.track_unique(6, "RunGraph (Worker)", || "step_id: 1".into()).unwrap_err();
        assert_eq!(e.code, Code::Aborted);
        assert_eq!(e.message, "The same RunGraph (Worker) request was received twice. step_id: 1");
        // A fourth id pushes out the oldest (5), and only it.
        ids.track_unique(8, "m", String::new).unwrap();
        ids.track_unique(5, "m", String::new).unwrap();
        assert!(ids.track_unique(7, "m", String::new).is_err());
        assert!(ids.track_unique(8, "m", String::new).is_err());
        // Id 0 is never tracked.
        for _ in 0..3 {
            ids.track_unique(0, "m", String::new).unwrap();
        }
    }

    #[test]
    fn fresh_ids_are_positive_and_differ() {
        let a: HashSet<i64> = (0..1000).map(|_| unique_request_id()).collect();
        assert_eq!(a.len(), 1000);
        assert!(a.iter().all(|&i| i > 0));
    }
}
