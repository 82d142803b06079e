//! The in-process rendezvous table (TF's `LocalRendezvous`); the keys, the
//! [`Rendezvous`] trait and [`RecvSlot`] are the framework's
//! ([`crate::framework::rendezvous`]).
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::{Error, Result};
pub use crate::framework::rendezvous::{
    ParsedKey, ReadyCallback, Received, RecvSlot, Rendezvous, create_key, parse_key,
};
use crate::framework::step::Wait;
use crate::tensor::Tensor;

/// What a key's line holds: values sent before anyone asked, or receivers waiting
/// before anything was sent (never both).
enum Item {
    Value(Received),
    Waiter(Arc<RecvSlot>),
}

#[derive(Default)]
struct LocalState {
    table: HashMap<String, VecDeque<Item>>,
    aborted: Option<Error>,
    // Callers to tell when a key's value arrives (or the table is aborted).
    ready: HashMap<String, Vec<ReadyCallback>>,
}

/// The in-process rendezvous (TF's `LocalRendezvous`): per key, a line of sent values
/// or of waiting receivers. A value sent before its `recv` waits in the table; a
/// `recv` before its `send` waits in line; sends and receives of one key pair up in
/// order. [`start_abort`](Rendezvous::start_abort) fails all current and later
/// operations with its status.
///
/// The rpc crate's worker keeps one per step: it injects `RunGraph.send` tensors with
/// `send`, reads `RunGraph.recv_key`s with `recv` after the run, and serves
/// `RecvTensor` from it (which may come before the producing step has run).
#[derive(Default)]
pub struct LocalRendezvous {
    state: Mutex<LocalState>,
}

impl LocalRendezvous {
    /// An empty table.
    pub fn new() -> Arc<LocalRendezvous> {
        Arc::new(LocalRendezvous::default())
    }

    /// The status it was aborted with, if it was.
    pub fn aborted(&self) -> Option<Error> {
        self.state.lock().aborted.clone()
    }

    /// Number of keys with values sent and not yet received.
    pub fn pending_values(&self) -> usize {
        self.state.lock().table.values().filter(|q| matches!(q.front(), Some(Item::Value(_)))).count()
    }
}

impl Rendezvous for LocalRendezvous {
    fn send(&self, key: &ParsedKey, value: Tensor, is_dead: bool) -> Result<()> {
        let mut value = Some(value);
        let (waiter, ready) = {
            let mut st = self.state.lock();
            if let Some(e) = &st.aborted {
                return Err(e.clone());
            }
            let ready = st.ready.remove(&key.full).unwrap_or_default();
            let line = st.table.entry(key.full.clone()).or_default();
            match line.front() {
                Some(Item::Waiter(_)) => {
                    let Some(Item::Waiter(w)) = line.pop_front() else { unreachable!("checked above") };
                    if line.is_empty() {
                        st.table.remove(&key.full);
                    }
                    (Some(w), ready)
                }
                _ => {
                    line.extend(value.take().map(|v| Item::Value((v, is_dead))));
                    (None, ready)
                }
            }
        };
        // Fill and call outside the table's lock (a waiter that gives up takes the
        // table's lock after releasing its slot's; a callback may recv at once).
        if let (Some(w), Some(v)) = (waiter, value) {
            w.fill(Ok((v, is_dead)));
        }
        for r in ready {
            r();
        }
        Ok(())
    }

    fn recv(&self, key: &ParsedKey, wait: &Wait<'_>) -> Result<Received> {
        let slot = {
            let mut st = self.state.lock();
            if let Some(e) = &st.aborted {
                return Err(e.clone());
            }
            if let Some(line) = st.table.get_mut(&key.full)
                && let Some(Item::Value(_)) = line.front()
            {
                let Some(Item::Value(v)) = line.pop_front() else { unreachable!("checked above") };
                if line.is_empty() {
                    st.table.remove(&key.full);
                }
                return Ok(v);
            }
            if wait.nonblocking {
                return Err(Error::would_block());
            }
            let slot = RecvSlot::new();
            st.table.entry(key.full.clone()).or_default().push_back(Item::Waiter(Arc::clone(&slot)));
            slot
        };
        match slot.wait(wait, "RecvAsync is cancelled.") {
            Ok(v) => Ok(v),
            Err(e) => {
                // Leave the line; a send that filled the slot meanwhile still counts.
                let mut st = self.state.lock();
                let mut still_waiting = false;
                if let Some(line) = st.table.get_mut(&key.full) {
                    let before = line.len();
                    line.retain(|i| !matches!(i, Item::Waiter(w) if Arc::ptr_eq(w, &slot)));
                    still_waiting = line.len() != before;
                    if line.is_empty() {
                        st.table.remove(&key.full);
                    }
                }
                drop(st);
                if still_waiting {
                    return Err(e);
                }
                slot.try_take().unwrap_or(Err(e))
            }
        }
    }

    fn start_abort(&self, status: Error) {
        let (lines, ready) = {
            let mut st = self.state.lock();
            if st.aborted.is_some() {
                return;
            }
            st.aborted = Some(status.clone());
            (std::mem::take(&mut st.table), std::mem::take(&mut st.ready))
        };
        for item in lines.into_values().flatten() {
            if let Item::Waiter(w) = item {
                w.fill(Err(status.clone()));
            }
        }
        for r in ready.into_values().flatten() {
            r();
        }
    }

    fn notify_when_ready(&self, key: &ParsedKey, ready: ReadyCallback) -> bool {
        {
            let mut st = self.state.lock();
            let now = st.aborted.is_some()
                || matches!(st.table.get(&key.full).and_then(VecDeque::front), Some(Item::Value(_)));
            if !now {
                st.ready.entry(key.full.clone()).or_default().push(ready);
                return true;
            }
        }
        ready();
        true
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::error::Code;
    use crate::framework::cancel::RunCancellation;

    const CPU0: &str = "/job:worker/replica:0/task:0/device:CPU:0";
    const PS0: &str = "/job:ps/replica:0/task:0/device:CPU:0";

    fn key(name: &str) -> ParsedKey {
        parse_key(&create_key(CPU0, 0x5b7f_6574_af0f_9030, PS0, name, 0, 0)).unwrap()
    }

    fn wait<'a>(run: &'a RunCancellation<'a>, closed: &'a AtomicBool, timeout: Option<Duration>) -> Wait<'a> {
        Wait {
            deadline: timeout.map(|t| Instant::now() + t),
            closed,
            run,
            nonblocking: false,
            rendezvous: None,
            loops: Default::default(),
        }
    }

    #[test]
    fn keys_have_tfs_form_and_parse_back() {
        let k = create_key(CPU0, 0x5b7f_6574_af0f_9030, PS0, "edge_12__recv_x_0", 0, 0);
        assert_eq!(
            k,
            "/job:worker/replica:0/task:0/device:CPU:0;5b7f6574af0f9030;/job:ps/replica:0/task:0/device:CPU:0;\
             edge_12__recv_x_0;0:0"
        );
        assert_eq!(create_key(CPU0, 1, CPU0, "x:0", 3, 7).split(';').nth(1), Some("0000000000000001"));
        let p = parse_key(&k).unwrap();
        assert_eq!(p.full(), k);
        assert_eq!(p.src_device, CPU0);
        assert_eq!(p.dst_device, PS0);
        assert_eq!(p.src_incarnation, 0x5b7f_6574_af0f_9030);
        assert_eq!(p.edge_name, "edge_12__recv_x_0");
        assert_eq!(p.frame_and_iter(), Some((0, 0)));
        assert_eq!(p.src.job.as_deref(), Some("worker"));
        assert_eq!(p.dst.task, Some(0));
        // Any length and case of hex.
        assert_eq!(parse_key(&format!("{CPU0};AbC;{PS0};t;0:0")).unwrap().src_incarnation, 0xabc);
    }

    #[test]
    fn bad_keys_are_tfs_invalid_argument() {
        for bad in [
            format!("{CPU0};1;{PS0};t"),
            format!("{CPU0};1;{PS0};t;0:0;extra"),
            format!("{CPU0};1;{PS0};;0:0"),
            format!("{CPU0};1;{PS0};t;"),
            format!("{CPU0};xyz;{PS0};t;0:0"),
            format!("{CPU0};;{PS0};t;0:0"),
            format!("job:x;1;{PS0};t;0:0"),
            format!("{CPU0};1;/job:ps/task:x;t;0:0"),
        ] {
            let e = parse_key(&bad).unwrap_err();
            assert_eq!(e.code, Code::InvalidArgument);
            assert_eq!(e.message, format!("Invalid  rendezvous key: {bad}"));
        }
    }

    #[test]
    fn send_before_recv_and_recv_before_send() {
        let r = LocalRendezvous::new();
        let run = RunCancellation::new(None);
        let closed = AtomicBool::new(false);
        r.send(&key("a"), Tensor::scalar(1.0f32), false).unwrap();
        r.send(&key("a"), Tensor::scalar(2.0f32), false).unwrap();
        assert_eq!(r.pending_values(), 1);
        let w = wait(&run, &closed, None);
        assert_eq!(r.recv(&key("a"), &w).unwrap().0.scalar_value::<f32>().unwrap(), 1.0);
        assert_eq!(r.recv(&key("a"), &w).unwrap().0.scalar_value::<f32>().unwrap(), 2.0);
        let r2 = Arc::clone(&r);
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            r2.send(&key("b"), Tensor::scalar(3.0f32), true).unwrap();
        });
        let (t, dead) = r.recv(&key("b"), &w).unwrap();
        assert!(dead);
        assert_eq!(t.scalar_value::<f32>().unwrap(), 3.0);
        sender.join().unwrap();
        let nb = Wait { nonblocking: true, ..w };
        assert!(r.recv(&key("c"), &nb).unwrap_err().is_would_block());
    }

    #[test]
    fn deadlines_cancellation_and_abort_release_receivers() {
        let r = LocalRendezvous::new();
        let closed = AtomicBool::new(false);
        let run = RunCancellation::new(None);
        let e = r.recv(&key("a"), &wait(&run, &closed, Some(Duration::from_millis(20)))).unwrap_err();
        assert_eq!(e.code, Code::DeadlineExceeded);
        // The timed-out receiver left its line: a later send waits for a new one.
        r.send(&key("a"), Tensor::scalar(1i32), false).unwrap();
        assert_eq!(r.pending_values(), 1);

        let handle = run.handle();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            handle.cancel();
        });
        let e = r.recv(&key("b"), &wait(&run, &closed, None)).unwrap_err();
        assert_eq!(e.code, Code::Cancelled);
        assert_eq!(e.message, "RecvAsync is cancelled.");
        canceller.join().unwrap();

        let run = RunCancellation::new(None);
        let r2 = Arc::clone(&r);
        let aborter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            r2.start_abort(Error::new(Code::FailedPrecondition, "boom"));
        });
        let e = r.recv(&key("c"), &wait(&run, &closed, None)).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (Code::FailedPrecondition, "boom"));
        aborter.join().unwrap();
        r.start_abort(Error::new(Code::Internal, "second abort is ignored"));
        assert_eq!(r.send(&key("d"), Tensor::scalar(1i32), false).unwrap_err().message, "boom");
        assert_eq!(r.recv(&key("a"), &wait(&run, &closed, None)).unwrap_err().message, "boom");
    }

    #[test]
    fn interrupts_are_polled_while_waiting() {
        let r = LocalRendezvous::new();
        let closed = AtomicBool::new(false);
        let check = || Err(Error::new(Code::Cancelled, "interrupted"));
        let run = RunCancellation::new(Some(&check));
        let e = r.recv(&key("a"), &wait(&run, &closed, None)).unwrap_err();
        assert_eq!(e.message, "interrupted");
    }

    #[test]
    fn a_slot_filled_from_another_thread() {
        let slot = RecvSlot::new();
        let s2 = Arc::clone(&slot);
        let t = std::thread::spawn(move || s2.fill(Ok((Tensor::scalar(5i64), false))));
        let closed = AtomicBool::new(false);
        let run = RunCancellation::new(None);
        let (v, _) = slot.wait(&wait(&run, &closed, Some(Duration::from_secs(5))), "x").unwrap();
        assert_eq!(v.scalar_value::<i64>().unwrap(), 5);
        assert!(t.join().unwrap());
        assert!(slot.fill(Ok((Tensor::scalar(6i64), false))), "a taken slot can be filled again");
        assert!(!slot.fill(Ok((Tensor::scalar(7i64), false))), "the first fill wins");
        assert_eq!(slot.try_take().unwrap().unwrap().0.scalar_value::<i64>().unwrap(), 6);
    }
}
