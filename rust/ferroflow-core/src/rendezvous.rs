//! Rendezvous: where `_Send` and `_Recv` kernels meet (TF's `framework/rendezvous.h`,
//! `LocalRendezvous`, the step tables of `base_rendezvous_mgr.cc`).
//!
//! A tensor travels under a *key* naming the sending device (with its incarnation),
//! the receiving device, the edge and the loop frame/iteration, in TF's exact text
//! form ([`create_key`], [`parse_key`]), so keys built here match the ones a TF master
//! bakes into its graphs and a TF worker asks for in `RecvTensor`. A [`Rendezvous`] is
//! one step's table: `send` deposits a value, `recv` waits for it. [`LocalRendezvous`]
//! is the in-process table; a run whose plan has `_Send`/`_Recv` nodes and no
//! rendezvous of its own (`RunArgs::rendezvous`) gets a fresh one, as TF's
//! `DirectSession` makes one per step. The rpc crate implements the trait for a
//! worker's steps (local keys in a `LocalRendezvous`, remote ones fetched with a
//! `RecvTensor` call from inside `recv`, see [`RecvSlot`] for how such a wait honours
//! the run's deadline, cancellation and interrupts).
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::cancel::Wake;
use crate::device::DeviceSpec;
use crate::error::{Code, Error, Result};
use crate::queue::Wait;
use crate::tensor::Tensor;

/// A value that crossed a rendezvous: the tensor and whether it is dead (the untaken
/// side of a `Switch`; TF sends an empty float tensor then).
pub type Received = (Tensor, bool);

/// TF's `Rendezvous::CreateKey`: `<src_device>;<src_incarnation as 16 lowercase hex
/// digits>;<dst_device>;<tensor_name>;<frame_id>:<iter_id>`. Outside loops the frame
/// and iteration are both 0.
pub fn create_key(
    src_device: &str,
    src_incarnation: u64,
    dst_device: &str,
    tensor_name: &str,
    frame_id: u64,
    iter_id: i64,
) -> String {
    format!("{src_device};{src_incarnation:016x};{dst_device};{tensor_name};{frame_id}:{iter_id}")
}

/// A parsed rendezvous key (TF's `Rendezvous::ParsedKey`). Matching is always on the
/// whole string ([`ParsedKey::full`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedKey {
    full: String,
    /// The sending device's name as written in the key.
    pub src_device: String,
    /// The sending device, parsed.
    pub src: DeviceSpec,
    /// The sending device's incarnation.
    pub src_incarnation: u64,
    /// The receiving device's name as written in the key.
    pub dst_device: String,
    /// The receiving device, parsed.
    pub dst: DeviceSpec,
    /// The edge's name (`edge_12_x`, or `x:0` for a fed or fetched tensor).
    pub edge_name: String,
    /// The fifth part, `<frame_id>:<iter_id>` (TF checks only that it is not empty).
    pub frame_iter: String,
}

impl ParsedKey {
    /// The whole key.
    pub fn full(&self) -> &str {
        &self.full
    }

    /// The frame id and iteration of the fifth part, when it has TF's form.
    pub fn frame_and_iter(&self) -> Option<(u64, i64)> {
        let (f, i) = self.frame_iter.split_once(':')?;
        Some((f.parse().ok()?, i.parse().ok()?))
    }
}

impl std::fmt::Display for ParsedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.full)
    }
}

/// TF's `HexStringToUint64`: any number of hex digits of either case (not none);
/// digits beyond 16 shift the high ones out, as TF's loop does.
fn hex_u64(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    s.chars().try_fold(0u64, |v, c| Some((v << 4) | u64::from(c.to_digit(16)?)))
}

/// A device name TF's `DeviceNameUtils::ParseFullName` accepts (partial names too).
fn device_name(s: &str) -> Option<DeviceSpec> {
    if !s.is_empty() && !s.starts_with('/') {
        return None;
    }
    DeviceSpec::parse(s).ok()
}

/// TF's `Rendezvous::ParseKey`: exactly five `;`-separated parts, the first and
/// third valid device names, the second hex, the fourth and fifth not empty; anything
/// else is TF's `InvalidArgument` "Invalid  rendezvous key: <key>" (TF's text has the
/// two spaces).
pub fn parse_key(key: &str) -> Result<ParsedKey> {
    let bad = || Error::new(Code::InvalidArgument, format!("Invalid  rendezvous key: {key}"));
    let parts: Vec<&str> = key.split(';').collect();
    let [src_device, inc, dst_device, edge, frame_iter] = parts.as_slice() else { return Err(bad()) };
    if frame_iter.is_empty() || edge.is_empty() {
        return Err(bad());
    }
    let src = device_name(src_device).ok_or_else(bad)?;
    let src_incarnation = hex_u64(inc).ok_or_else(bad)?;
    let dst = device_name(dst_device).ok_or_else(bad)?;
    Ok(ParsedKey {
        full: key.to_string(),
        src_device: (*src_device).to_string(),
        src,
        src_incarnation,
        dst_device: (*dst_device).to_string(),
        dst,
        edge_name: (*edge).to_string(),
        frame_iter: (*frame_iter).to_string(),
    })
}

/// One step's table of tensors in flight (TF's `Rendezvous`).
///
/// `recv` blocks the way a queue's dequeue does: it registers with the run's
/// cancellation (`wait.run`), so a failing step of the same run or a cancelled run
/// wakes it with `Cancelled`; it fails with `DeadlineExceeded` at `wait.deadline`;
/// it polls the run's interrupt check every
/// [`INTERRUPT_POLL`](crate::cancel::INTERRUPT_POLL); a closed session
/// (`wait.closed`) fails it with `Cancelled`. With `wait.nonblocking` it must fail
/// at once with [`Error::would_block`] rather than wait (the executor then retries on
/// a thread of its own). [`RecvSlot`] implements all of this for a value that
/// arrives from elsewhere.
pub trait Rendezvous: Send + Sync {
    /// Deposits `value` under `key` (never blocks). A second send of a key before it
    /// is received queues behind the first.
    fn send(&self, key: &ParsedKey, value: Tensor, is_dead: bool) -> Result<()>;
    /// Waits for the value sent under `key` (see the trait's documentation).
    fn recv(&self, key: &ParsedKey, wait: &Wait<'_>) -> Result<Received>;
    /// Fails every waiting and every later `send`/`recv` with `status` (the first
    /// abort wins). A run that fails aborts its step's rendezvous with its error, as
    /// TF's executor does, which releases the receivers of the other tasks.
    fn start_abort(&self, status: Error);

    /// Calls `ready` once a nonblocking [`recv`](Self::recv) of `key` may find its
    /// value or fail for good (at once if it may now): the executor parks a `_Recv`
    /// this way instead of giving it a thread to wait on. `false`, without calling
    /// `ready`, where this rendezvous cannot tell; the caller then waits in `recv`.
    fn notify_when_ready(&self, key: &ParsedKey, ready: ReadyCallback) -> bool {
        let _ = (key, ready);
        false
    }
}

/// A one-shot place a receiver waits on until someone fills it: what
/// [`LocalRendezvous`] queues for a `recv` that came before its `send`, and what a
/// remote rendezvous hands to the thread or task that performs the network call.
///
/// The rpc crate's `recv` for a remote key can be: make a slot, start the `RecvTensor`
/// call with a clone of it (the call ends with `slot.fill(result)`), then
/// `slot.wait(wait, "RecvFromRemoteAsync is cancelled.")`; if that returns an error
/// the step was cancelled, timed out or interrupted, and the caller aborts the call.
/// To abort the call the moment the run is cancelled (not only when `wait` returns),
/// register a [`Wake`] of its own with `wait.run` before starting it.
#[derive(Default)]
pub struct RecvSlot {
    value: Mutex<Option<Result<Received>>>,
    filled: Condvar,
}

impl RecvSlot {
    /// An empty slot.
    pub fn new() -> Arc<RecvSlot> {
        Arc::new(RecvSlot::default())
    }

    /// Fills the slot and wakes its waiter; returns false (and drops `result`) if it
    /// was already filled.
    pub fn fill(&self, result: Result<Received>) -> bool {
        let mut v = self.value.lock();
        if v.is_some() {
            return false;
        }
        *v = Some(result);
        self.filled.notify_all();
        true
    }

    /// Takes what the slot holds, if it was filled (and not yet taken).
    pub fn try_take(&self) -> Option<Result<Received>> {
        self.value.lock().take()
    }

    /// Waits until the slot is filled and takes its value, honouring `wait` (see
    /// [`Rendezvous`]): cancellation and a closed session give `Cancelled` with
    /// `cancel_message`, the deadline `DeadlineExceeded`, an interrupt its own error.
    /// It does not honour `wait.nonblocking` (check that before starting the work
    /// that fills the slot).
    pub fn wait(self: &Arc<Self>, wait: &Wait<'_>, cancel_message: &str) -> Result<Received> {
        let _registered = wait.run.register(Arc::clone(self) as Arc<dyn Wake>);
        let mut v = self.value.lock();
        loop {
            if let Some(r) = v.take() {
                return r;
            }
            if wait.is_cancelled() {
                return Err(Error::new(Code::Cancelled, cancel_message));
            }
            Self::block(&self.filled, &mut v, wait)?;
        }
    }

    fn block(cv: &Condvar, v: &mut MutexGuard<'_, Option<Result<Received>>>, wait: &Wait<'_>) -> Result<()> {
        match wait.run.wake_time(wait.deadline) {
            Some(t) => {
                if cv.wait_until(v, t).timed_out() {
                    if v.is_some() {
                        return Ok(());
                    }
                    if wait.deadline.is_some_and(|d| Instant::now() >= d) {
                        return Err(Error::new(Code::DeadlineExceeded, "Timed out waiting for notification"));
                    }
                    // Never hold the slot's lock while the check takes the GIL.
                    MutexGuard::unlocked(v, || wait.run.poll_interrupt())?;
                }
            }
            None => cv.wait(v),
        }
        Ok(())
    }
}

impl Wake for RecvSlot {
    fn wake(&self) {
        let _v = self.value.lock();
        self.filled.notify_all();
    }
}

/// Called once when a key's `recv` may find its value (see
/// [`Rendezvous::notify_when_ready`]).
pub type ReadyCallback = Box<dyn FnOnce() + Send>;

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
    use std::time::Duration;

    use super::*;
    use crate::cancel::RunCancellation;

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
