//! Parallel execution: a plan's independent steps on the inter-op pool, blocking
//! steps (queues, receives) parked or on threads of their own, so none holds up a
//! pool thread others depend on.
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use parking_lot::Mutex;
use smallvec::SmallVec;

use super::trace::NodeClock;
use super::{Plan, StepTrace, compute, gather_input, is_dead, outputs_of, run_dead, store_outputs};
use crate::error::{Code, Error, Result};
use crate::framework::cancel::Wake;
use crate::framework::step::Wait;
use crate::kernels::{ExecEnv, OpContext, Value};
use crate::runtime::rendezvous::ReadyCallback;

/// Blocking steps handed to the calling thread, and the number of pieces of work
/// (pool tasks, handed-over steps, parked steps, steps waiting on their own threads)
/// not yet finished.
#[derive(Default)]
struct CallerLane {
    ready: Vec<usize>,
    /// Parked steps whose kernel said another attempt may get further.
    woken: Vec<usize>,
    /// How many steps are parked.
    parked: usize,
    in_flight: usize,
}

/// The calling thread's lane and the condition it waits on. Shared with the callbacks
/// that wake parked steps, which may come after the run is over.
#[derive(Default)]
struct Lane {
    state: Mutex<CallerLane>,
    changed: parking_lot::Condvar,
}

impl Wake for Lane {
    fn wake(&self) {
        let _lane = self.state.lock();
        self.changed.notify_all();
    }
}

/// What the calling thread does next.
enum LaneWork {
    /// Start a blocking step (alone: nothing else of the run is outstanding).
    Start(usize, bool),
    /// Try a parked step again.
    Resume(usize),
    /// End the parked steps: the run is over, cancelled or past its deadline.
    Expire,
}

/// State shared by the threads of one parallel run.
struct ParallelRun<'a> {
    plan: &'a Plan,
    env: &'a ExecEnv,
    wait: Wait<'a>,
    trace: Option<&'a StepTrace>,
    values: Vec<Mutex<Option<Value>>>,
    pending: Vec<AtomicUsize>,
    uses_left: Vec<AtomicUsize>,
    error: Mutex<Option<Error>>,
    // Dead steps (plans with control flow only; empty otherwise).
    dead: Vec<AtomicBool>,
    // Steps that may block (queue operations, `_Recv`) start on the calling thread,
    // which waits here for them; pool threads never block.
    lane: Arc<Lane>,
    // Steps whose kernel will call back when another attempt may get further (TF's
    // asynchronous kernels), by step.
    parked: Mutex<HashMap<usize, StartedStep<'a>>>,
}

/// A step whose kernel is ready to compute: its inputs gathered, its clock started.
struct StartedStep<'a> {
    idx: usize,
    ctx: OpContext<'a>,
    clock: Option<NodeClock>,
}

impl<'a> ParallelRun<'a> {
    /// Records the run's first error and ends the run: no new step starts, and every
    /// step of this run blocked on a queue is woken to fail with `Cancelled`, as TF's
    /// executor cancels a step's pending ops when one of them fails.
    fn fail(&self, e: Error) {
        let mut slot = self.error.lock();
        if slot.is_none() {
            *slot = Some(e);
        }
        drop(slot);
        self.wait.run.cancel();
    }

    fn is_over(&self) -> bool {
        self.wait.run.is_cancelled()
    }

    /// Gathers step `idx`'s inputs into a context.
    fn start(&self, idx: usize) -> Result<StartedStep<'a>> {
        let step = &self.plan.steps[idx];
        let clock = self.trace.map(|_| NodeClock::start());
        let mut inputs: SmallVec<[Option<Value>; 4]> = SmallVec::with_capacity(step.inputs.len());
        for i in &step.inputs {
            // The consumer that brings the count to zero moves the value; others clone.
            // Count under the cell's lock: otherwise a consumer could count first, and
            // read after the last one (counting second) had already moved the value out.
            let mut cell = self.values[i.slot].lock();
            let last = self.uses_left[i.slot].fetch_sub(1, Ordering::AcqRel) == 1;
            let v = if last { cell.take() } else { cell.clone() };
            drop(cell);
            inputs.push(gather_input(v, i.deref)?);
        }
        Ok(StartedStep { idx, ctx: OpContext::new(inputs, step.num_outputs, self.env, self.wait), clock })
    }

    /// Computes a started step and stores its outputs.
    fn compute(&self, s: &mut StartedStep<'a>) -> Result<()> {
        if let Some(c) = s.clock.as_mut() {
            c.op_start();
        }
        compute(&self.plan.steps[s.idx], &mut s.ctx)?;
        if let Some(c) = s.clock.as_mut() {
            c.op_end();
        }
        Ok(())
    }

    /// Stores a computed step's outputs.
    fn store(&self, s: StartedStep<'a>) -> Result<()> {
        let step = &self.plan.steps[s.idx];
        let outs = outputs_of(step, s.ctx)?;
        if let (Some(t), Some(c)) = (self.trace, s.clock) {
            t.record(s.idx, c, &outs);
        }
        store_outputs(step, outs, |slot, v| *self.values[slot].lock() = v);
        Ok(())
    }

    /// Starts `idx`: a blocking step goes to the calling thread's lane, any other is
    /// spawned on the pool.
    fn dispatch<'s>(&'s self, idx: usize, scope: &rayon::Scope<'s>) {
        let mut lane = self.lane.state.lock();
        lane.in_flight += 1;
        if self.plan.steps[idx].blocking {
            lane.ready.push(idx);
            self.lane.changed.notify_all();
        } else {
            drop(lane);
            scope.spawn(move |sc| self.run_from(idx, sc));
        }
    }

    /// Marks one piece of work finished.
    fn finish(&self) {
        let mut lane = self.lane.state.lock();
        lane.in_flight -= 1;
        if lane.in_flight == 0 {
            self.lane.changed.notify_all();
        }
    }

    /// Runs `idx`, then keeps going with one ready successor on this thread and
    /// dispatches the others, so a chain never bounces between threads.
    fn run_from<'s>(&'s self, mut idx: usize, scope: &rayon::Scope<'s>) {
        loop {
            match self.run_one(idx, scope) {
                Some(n) if !self.plan.steps[n].blocking => idx = n,
                Some(n) => {
                    self.dispatch(n, scope);
                    break;
                }
                None => break,
            }
        }
        self.finish();
    }

    /// In a plan with control flow: whether step `idx` is dead (then it is marked so,
    /// and not run). Its inputs are all complete, so an empty slot is a dead value.
    fn skip_dead(&self, idx: usize) -> bool {
        if !self.plan.control_flow {
            return false;
        }
        let step = &self.plan.steps[idx];
        let dead = is_dead(step, |s| self.values[s].lock().is_some(), |p| self.dead[p].load(Ordering::Acquire));
        if dead {
            self.dead[idx].store(true, Ordering::Release);
        }
        dead
    }

    /// Runs step `idx` and dispatches its ready successors but one, which it returns.
    fn run_one<'s>(&'s self, idx: usize, scope: &rayon::Scope<'s>) -> Option<usize> {
        if self.is_over() {
            return None;
        }
        if self.skip_dead(idx) {
            return self.complete(idx, run_dead(&self.plan.steps[idx], self.env, self.wait), scope);
        }
        let result = self.start(idx).and_then(|mut s| {
            self.compute(&mut s)?;
            self.store(s)
        });
        self.complete(idx, result, scope)
    }

    /// After step `idx` ended with `result`: fails the run, or dispatches the step's
    /// ready successors but one, which it returns.
    fn complete<'s>(&'s self, idx: usize, result: Result<()>, scope: &rayon::Scope<'s>) -> Option<usize> {
        if let Err(e) = result {
            self.fail(e.with_node(&self.plan.steps[idx].name));
            return None;
        }
        let mut next = None;
        for &s in &self.plan.steps[idx].successors {
            if self.pending[s].fetch_sub(1, Ordering::AcqRel) == 1
                && let Some(prev) = next.replace(s)
            {
                self.dispatch(prev, scope);
            }
        }
        next
    }

    /// The calling thread's loop: runs the blocking steps handed to it until no work
    /// is left anywhere. Each is first tried without waiting; one that would wait runs
    /// here only when nothing else of the run is outstanding. Otherwise it is parked
    /// when its kernel can call back once another try may get further (a `_Recv`,
    /// TF's asynchronous kernel), or waits on a thread of its own, so blocked steps of
    /// one run never wait one after another. While it waits for work, the calling
    /// thread polls for an interrupt, and ends the parked steps when the run is over,
    /// cancelled or past its deadline.
    fn serve_lane<'s, 't>(&'s self, scope: &'t rayon::Scope<'s>, threads: &'t std::thread::Scope<'t, '_>)
    where
        's: 't,
    {
        // A cancellation (a failed step, a closed session) wakes this loop too.
        let _cancel_wakes_lane = self.wait.run.register(Arc::clone(&self.lane) as Arc<dyn Wake>);
        loop {
            let work = {
                let mut lane = self.lane.state.lock();
                loop {
                    if let Some(i) = lane.woken.pop() {
                        lane.parked = lane.parked.saturating_sub(1);
                        break LaneWork::Resume(i);
                    }
                    if let Some(i) = lane.ready.pop() {
                        break LaneWork::Start(i, lane.ready.is_empty() && lane.in_flight == 1);
                    }
                    if lane.in_flight == 0 {
                        return;
                    }
                    let past_deadline = self.wait.deadline.is_some_and(|d| Instant::now() >= d);
                    if lane.parked > 0 && (self.wait.is_cancelled() || past_deadline) {
                        lane.parked = 0;
                        lane.woken.clear();
                        break LaneWork::Expire;
                    }
                    let deadline = if lane.parked > 0 { self.wait.deadline } else { None };
                    match self.wait.run.wake_time(deadline) {
                        Some(t) => {
                            if self.lane.changed.wait_until(&mut lane, t).timed_out() {
                                // Never hold the lane's lock while the check takes the GIL,
                                // nor while failing the run (its cancellation wakes the lane).
                                parking_lot::MutexGuard::unlocked(&mut lane, || {
                                    if let Err(e) = self.wait.run.poll_interrupt() {
                                        self.fail(e);
                                    }
                                });
                            }
                        }
                        None => self.lane.changed.wait(&mut lane),
                    }
                }
            };
            match work {
                LaneWork::Start(idx, alone) => self.start_on_lane(idx, alone, scope, threads),
                LaneWork::Resume(idx) => {
                    let parked = self.parked.lock().remove(&idx);
                    if let Some(started) = parked {
                        self.attempt(started, false, scope, threads);
                    }
                }
                LaneWork::Expire => {
                    let parked: Vec<StartedStep<'a>> = self.parked.lock().drain().map(|(_, s)| s).collect();
                    for mut started in parked {
                        if self.is_over() {
                            self.finish();
                            continue;
                        }
                        // The wait ends at once, with the kernel's own error.
                        started.ctx.wait.nonblocking = false;
                        let idx = started.idx;
                        let result = self.compute(&mut started).and_then(|()| self.store(started));
                        self.end_on_lane(idx, result, scope);
                    }
                }
            }
        }
    }

    /// Starts blocking step `idx` on the calling thread.
    fn start_on_lane<'s, 't>(
        &'s self,
        idx: usize,
        alone: bool,
        scope: &'t rayon::Scope<'s>,
        threads: &'t std::thread::Scope<'t, '_>,
    ) where
        's: 't,
    {
        if self.is_over() {
            self.finish();
            return;
        }
        if self.skip_dead(idx) {
            let result = run_dead(&self.plan.steps[idx], self.env, self.wait);
            self.end_on_lane(idx, result, scope);
            return;
        }
        match self.start(idx) {
            Ok(started) => self.attempt(started, alone, scope, threads),
            Err(e) => {
                self.complete(idx, Err(e), scope);
                self.finish();
            }
        }
    }

    /// Computes a started blocking step: waiting here when `alone`, else without
    /// waiting, and a step that would wait is parked or handed to a thread of its own.
    fn attempt<'s, 't>(
        &'s self,
        mut started: StartedStep<'a>,
        alone: bool,
        scope: &'t rayon::Scope<'s>,
        threads: &'t std::thread::Scope<'t, '_>,
    ) where
        's: 't,
    {
        let idx = started.idx;
        started.ctx.wait.nonblocking = !alone;
        match self.compute(&mut started) {
            Err(e) if e.is_would_block() => {
                let lane = Arc::clone(&self.lane);
                let ready: ReadyCallback = Box::new(move || {
                    let mut state = lane.state.lock();
                    state.woken.push(idx);
                    lane.changed.notify_all();
                });
                // Only this thread takes woken steps, so a callback made at once still
                // finds the step parked by the time it looks.
                if self.plan.steps[idx].kernel.notify_when_ready(&started.ctx, ready) {
                    self.parked.lock().insert(idx, started);
                    self.lane.state.lock().parked += 1;
                    return;
                }
                started.ctx.wait.nonblocking = false;
                let waiter = std::thread::Builder::new().name("ferroflow-blocked-step".into());
                let spawned = waiter.spawn_scoped(threads, move || {
                    let result = self.compute(&mut started).and_then(|()| self.store(started));
                    if let Some(n) = self.complete(idx, result, scope) {
                        self.dispatch(n, scope);
                    }
                    self.finish();
                });
                if let Err(e) = spawned {
                    let e = Error::new(Code::ResourceExhausted, format!("could not start a thread: {e}"));
                    self.complete(idx, Err(e), scope);
                    self.finish();
                }
            }
            result => self.end_on_lane(idx, result.and_then(|()| self.store(started)), scope),
        }
    }

    /// After a blocking step ended on the calling thread: its successors, its count.
    fn end_on_lane<'s>(&'s self, idx: usize, result: Result<()>, scope: &rayon::Scope<'s>) {
        if let Some(n) = self.complete(idx, result, scope) {
            self.dispatch(n, scope);
        }
        self.finish();
    }
}

pub(super) fn run_parallel(
    plan: &Plan,
    values: Vec<Option<Value>>,
    pool: &rayon::ThreadPool,
    env: &ExecEnv,
    wait: Wait<'_>,
    trace: Option<&StepTrace>,
) -> Result<Vec<Option<Value>>> {
    let state = ParallelRun {
        plan,
        env,
        wait,
        trace,
        values: values.into_iter().map(Mutex::new).collect(),
        pending: plan.steps.iter().map(|s| AtomicUsize::new(s.num_predecessors)).collect(),
        // Fetched slots keep one extra use, so no consumer moves them out.
        uses_left: plan.uses.iter().map(|&u| AtomicUsize::new(u)).collect(),
        error: Mutex::new(None),
        dead: if plan.control_flow { plan.steps.iter().map(|_| AtomicBool::new(false)).collect() } else { Vec::new() },
        lane: Arc::new(Lane::default()),
        parked: Mutex::new(HashMap::new()),
    };
    let roots: Vec<usize> = (0..plan.steps.len()).filter(|&i| plan.steps[i].num_predecessors == 0).collect();
    let st = &state;
    // The closure runs on this (calling) thread, which serves the blocking steps; the
    // threads of steps that wait are joined before the pool's scope ends.
    pool.in_place_scope(|scope| {
        std::thread::scope(|threads| {
            for r in roots {
                st.dispatch(r, scope);
            }
            st.serve_lane(scope, threads);
        });
    });
    if let Some(e) = state.error.into_inner() {
        return Err(e);
    }
    Ok(state.values.into_iter().map(Mutex::into_inner).collect())
}
