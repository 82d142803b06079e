//! Rendezvous: where `_Send` and `_Recv` kernels meet (TF's `framework/rendezvous.h`,
//! `LocalRendezvous`, the step tables of `base_rendezvous_mgr.cc`).
//!
//! A tensor travels under a *key* naming the sending device (with its incarnation),
//! the receiving device, the edge and the loop frame/iteration, in TF's exact text
//! form ([`create_key`], [`parse_key`]), so keys built here match the ones a TF master
//! bakes into its graphs and a TF worker asks for in `RecvTensor`. A [`Rendezvous`] is
//! one step's table: `send` deposits a value, `recv` waits for it. [`LocalRendezvous`](crate::runtime::rendezvous::LocalRendezvous)
//! is the in-process table; a run whose plan has `_Send`/`_Recv` nodes and no
//! rendezvous of its own (`RunArgs::rendezvous`) gets a fresh one, as TF's
//! `DirectSession` makes one per step (the table is [`crate::runtime::rendezvous`]). The rpc crate implements the trait for a
//! worker's steps (local keys in a `LocalRendezvous`, remote ones fetched with a
//! `RecvTensor` call from inside `recv`, see [`RecvSlot`] for how such a wait honours
//! the run's deadline, cancellation and interrupts).
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::device::DeviceSpec;
use crate::error::{Code, Error, Result};
use crate::framework::cancel::Wake;
use crate::framework::step::Wait;
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
    pub(crate) full: String,
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
/// [`INTERRUPT_POLL`](crate::framework::cancel::INTERRUPT_POLL); a closed session
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
