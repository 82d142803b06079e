//! Direct sessions: own the variable values of one graph, compile run signatures into
//! cached plans, and execute them: small plans straight-line on the calling
//! thread, plans with enough independent work on the shared thread pool.
mod fuse;
mod partition;
mod place;
mod plan;
mod trace;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use smallvec::SmallVec;

pub use partition::{ClientTensor, ClusterOptions, ClusterPartition, TaskPartition, partition_for_cluster};
pub use place::Placement;
pub use plan::{CompileOptions, Plan};
use trace::NodeClock;
pub use trace::StepTrace;

/// The lock that guards a graph shared by Python handles and sessions.
pub type GraphLock<T> = RwLock<T>;

use crate::device::{DeviceSet, TaskName};
use crate::error::{Code, Error, Result};
use crate::framework::cancel::{CancelHandle, InterruptCheck, RunCancellation, Wake};
use crate::framework::pool;
use crate::framework::resource::ResourceMgr;
use crate::framework::step::Wait;
use crate::graph::{Graph, NodeId, Output};
use crate::kernels::{ExecEnv, OpContext, SubPlan, SubPlanCompiler, Value};
use crate::runtime::rendezvous::{LocalRendezvous, ReadyCallback, Rendezvous};
use crate::shape::PartialShape;
use crate::tensor::Tensor;

/// Settings of a session (from `ConfigProto`; 0 means the default).
#[derive(Clone, Debug, Default)]
pub struct SessionOptions {
    /// Threads that run independent ops at once.
    pub inter_op_threads: usize,
    /// Threads one large kernel may split its work across.
    pub intra_op_threads: usize,
    /// How long a run may block (on a queue) when its own options set no timeout
    /// (`ConfigProto.operation_timeout_in_ms`); `None` waits forever.
    pub operation_timeout: Option<Duration>,
    /// `allow_soft_placement`: a node whose requested device does not exist or lacks
    /// its kernel goes to one that has it.
    pub allow_soft_placement: bool,
    /// At most this many devices of each type (`ConfigProto.device_count`).
    pub device_count: HashMap<String, u32>,
    /// `log_device_placement`: each node's device is printed (TF's placer line,
    /// `name: (Op): device`, on standard output) the first time a run places it.
    pub log_device_placement: bool,
    /// The cluster task whose devices the session places nodes on (its devices are
    /// named `/job:ps/replica:0/task:1/device:CPU:0`); the default is TF's
    /// non-distributed `/job:localhost/replica:0/task:0`.
    pub task: TaskName,
    /// Leave contraction + bias + activation chains unfused
    /// (`graph_options.rewrite_options.remapping = OFF`, or `disable_meta_optimizer`).
    pub disable_remapping: bool,
}

impl SessionOptions {
    /// The settings a `ConfigProto` asks for: thread pools, the operation timeout, soft
    /// placement and device counts (parsed once, here, whatever the caller).
    pub fn from_config(config: &ferroflow_proto::ConfigProto) -> Self {
        let count = |n: i32| usize::try_from(n).unwrap_or(0);
        SessionOptions {
            inter_op_threads: count(config.inter_op_parallelism_threads),
            intra_op_threads: count(config.intra_op_parallelism_threads),
            operation_timeout: u64::try_from(config.operation_timeout_in_ms)
                .ok()
                .filter(|&ms| ms > 0)
                .map(Duration::from_millis),
            allow_soft_placement: config.allow_soft_placement,
            device_count: config
                .device_count
                .iter()
                .map(|(k, &v)| (k.to_uppercase(), u32::try_from(v).unwrap_or(0)))
                .collect(),
            log_device_placement: config.log_device_placement,
            task: TaskName::default(),
            disable_remapping: config.graph_options.as_ref().and_then(|g| g.rewrite_options.as_ref()).is_some_and(
                |r| r.disable_meta_optimizer || r.remapping == ferroflow_proto::rewriter_config::Toggle::Off as i32,
            ),
        }
    }
}

/// How one run is carried out.
#[derive(Clone, Default)]
pub struct RunArgs<'a> {
    /// How long the run may block (`RunOptions.timeout_in_ms`); `None` falls back to
    /// the session's operation timeout.
    pub timeout: Option<Duration>,
    /// Record step statistics (`RunOptions.trace_level` above `NO_TRACE`).
    pub trace: bool,
    /// Polled while the run waits; an error cancels the run (Ctrl-C from Python).
    pub interrupt: Option<InterruptCheck<'a>>,
    /// The step's rendezvous, where its `_Send`/`_Recv` nodes exchange tensors (a
    /// worker's per-step table, shared with the other tasks' steps). `None`: a plan
    /// with such nodes gets a fresh [`LocalRendezvous`] for the run, as TF's
    /// `DirectSession` makes one per step. A run that fails aborts it with its error.
    pub rendezvous: Option<Arc<dyn Rendezvous>>,
}

/// What a run returns: the fetched values and, for a traced run, TF's `StepStats`.
pub struct RunOutput {
    /// The fetched values, in the plan's fetch order.
    pub values: Vec<Tensor>,
    /// Per-node statistics of a traced run.
    pub step_stats: Option<ferroflow_proto::StepStats>,
}

type PlanKey = (Vec<Output>, Vec<Output>, Vec<NodeId>);

/// A direct (in-process) session on one graph: TF's `DirectSession`.
pub struct DirectSession {
    graph: Arc<RwLock<Graph>>,
    resources: Arc<ResourceMgr>,
    // A session made with its own resources drops them when it closes; one sharing a
    // server's leaves them to the server.
    owns_resources: bool,
    plans: Mutex<PlanCache>,
    closed: AtomicBool,
    inter_pool: Option<Arc<rayon::ThreadPool>>,
    env: ExecEnv,
    operation_timeout: Option<Duration>,
    placement: Placement,
    remap: bool,
    // The runs in progress, cancelled when the session closes.
    active_runs: Mutex<HashMap<u64, CancelHandle>>,
    next_run: AtomicU64,
    // With `log_device_placement`: the nodes whose placement was printed.
    logged_placements: Option<Mutex<HashSet<String>>>,
    me: Weak<DirectSession>,
}

/// Compiled plans by run signature, valid while the resources they bound exist.
#[derive(Default)]
struct PlanCache {
    generation: u64,
    plans: HashMap<PlanKey, Arc<Plan>>,
}

/// TF-1.x Python's rendering of a static shape in feed errors: `(?, 3)`.
fn py_shape(s: &PartialShape) -> String {
    match s.dims() {
        None => "<unknown>".into(),
        Some([d]) => format!("({},)", d.map_or("?".into(), |v| v.to_string())),
        Some(d) => {
            let parts: Vec<String> = d.iter().map(|x| x.map_or("?".into(), |v| v.to_string())).collect();
            format!("({})", parts.join(", "))
        }
    }
}

impl DirectSession {
    /// A session over `graph` with its own resources.
    pub fn new(graph: Arc<RwLock<Graph>>, options: SessionOptions) -> Arc<Self> {
        Self::build(graph, options, Arc::new(ResourceMgr::new()), true)
    }

    /// A session over `graph` that uses `resources`, shared with other sessions (a
    /// server's); closing it leaves them in place.
    pub fn with_resources(
        graph: Arc<RwLock<Graph>>,
        options: SessionOptions,
        resources: Arc<ResourceMgr>,
    ) -> Arc<Self> {
        Self::build(graph, options, resources, false)
    }

    fn build(graph: Arc<RwLock<Graph>>, options: SessionOptions, resources: Arc<ResourceMgr>, owns: bool) -> Arc<Self> {
        let or_default = |n: usize| if n == 0 { pool::default_threads() } else { n };
        let inter = or_default(options.inter_op_threads);
        let intra = or_default(options.intra_op_threads);
        Arc::new_cyclic(|me| DirectSession {
            graph,
            resources,
            owns_resources: owns,
            plans: Mutex::new(PlanCache::default()),
            closed: AtomicBool::new(false),
            inter_pool: pool::shared_pool(inter),
            env: ExecEnv { intra_pool: pool::shared_pool(intra) },
            operation_timeout: options.operation_timeout,
            remap: !options.disable_remapping,
            placement: Placement {
                devices: DeviceSet::for_task(&options.task, &options.device_count),
                soft: options.allow_soft_placement,
            },
            active_runs: Mutex::new(HashMap::new()),
            next_run: AtomicU64::new(0),
            logged_placements: options.log_device_placement.then(|| Mutex::new(HashSet::new())),
            me: Weak::clone(me),
        })
    }

    /// A counted handle to this session (for prepared runs that keep it alive).
    pub fn handle(&self) -> Option<Arc<DirectSession>> {
        self.me.upgrade()
    }

    /// The resources its ops use.
    pub fn resources(&self) -> &Arc<ResourceMgr> {
        &self.resources
    }

    /// The devices this session places nodes on.
    pub fn devices(&self) -> &DeviceSet {
        &self.placement.devices
    }

    /// The graph this session runs.
    pub fn graph(&self) -> &Arc<RwLock<Graph>> {
        &self.graph
    }

    /// The compiled plan for a run signature, from the cache or freshly compiled.
    pub fn prepare(&self, feeds: &[Output], fetches: &[Output], targets: &[NodeId]) -> Result<Arc<Plan>> {
        self.check_open()?;
        let key = (feeds.to_vec(), fetches.to_vec(), targets.to_vec());
        let generation = self.resources.generation();
        {
            let mut cache = self.plans.lock();
            if cache.generation != generation {
                // Resources were dropped (a container reset): plans bound the old ones.
                *cache = PlanCache { generation, plans: HashMap::new() };
            } else if let Some(p) = cache.plans.get(&key) {
                return Ok(Arc::clone(p));
            }
        }
        let threads = self.inter_pool.as_ref().map_or(1, |p| p.current_num_threads());
        let plan = Arc::new(Plan::compile(
            &self.graph.read(),
            &self.resources,
            &self.placement,
            feeds,
            fetches,
            targets,
            CompileOptions { pool_threads: threads, remap: self.remap },
        )?);
        self.log_placement(&plan)?;
        let mut cache = self.plans.lock();
        if cache.generation == generation {
            cache.plans.insert(key, Arc::clone(&plan));
        }
        Ok(plan)
    }

    /// TF's placer log (`log_device_placement`): `name: (Op): device` on standard
    /// output for each graph node a plan placed, once per node.
    fn log_placement(&self, plan: &Plan) -> Result<()> {
        let Some(logged) = &self.logged_placements else { return Ok(()) };
        let mut lines = String::new();
        {
            let graph = self.graph.read();
            let mut logged = logged.lock();
            for (name, device) in plan.placement() {
                // Copies the plan inserted are not graph nodes: TF logs none either.
                if let Some(id) = graph.find(name)
                    && logged.insert(name.to_string())
                {
                    lines.push_str(&format!("{name}: ({}): {device}\n", graph.node(id)?.op_type()));
                }
            }
        }
        // A closed or full standard output must not fail the run.
        let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), lines.as_bytes());
        Ok(())
    }

    fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::new(Code::Cancelled, "Session has been closed."));
        }
        Ok(())
    }

    /// Runs `plan` with one value per fed tensor (in the plan's feed order) and returns
    /// the fetched values.
    pub fn run(&self, plan: &Plan, feeds: Vec<Tensor>) -> Result<Vec<Tensor>> {
        Ok(self.run_with(plan, feeds, &RunArgs::default())?.values)
    }

    /// [`run`](Self::run) with a limit on how long it may block (`RunOptions.timeout_in_ms`;
    /// `None` falls back to the session's operation timeout). A run that blocks past it
    /// fails with `DeadlineExceeded`; closing the session cancels it.
    pub fn run_with_timeout(&self, plan: &Plan, feeds: Vec<Tensor>, timeout: Option<Duration>) -> Result<Vec<Tensor>> {
        Ok(self.run_with(plan, feeds, &RunArgs { timeout, ..RunArgs::default() })?.values)
    }

    /// [`run_with_timeout`](Self::run_with_timeout), recording every node's times and
    /// outputs (a traced run: `RunOptions.trace_level` above `NO_TRACE`); returns the
    /// fetched values and TF's `StepStats`.
    pub fn run_traced(
        &self,
        plan: &Plan,
        feeds: Vec<Tensor>,
        timeout: Option<Duration>,
    ) -> Result<(Vec<Tensor>, ferroflow_proto::StepStats)> {
        let out = self.run_with(plan, feeds, &RunArgs { timeout, trace: true, ..RunArgs::default() })?;
        Ok((out.values, out.step_stats.unwrap_or_default()))
    }

    /// Runs `plan` as `args` say: its deadline, whether to trace it, and an interrupt
    /// check polled while it waits. The run has its own cancellation: when a step
    /// fails (or the check reports an interrupt) every step of this run that is blocked
    /// is woken to fail with `Cancelled`, and the run returns the first error.
    pub fn run_with(&self, plan: &Plan, feeds: Vec<Tensor>, args: &RunArgs<'_>) -> Result<RunOutput> {
        self.check_open()?;
        if feeds.len() != plan.feeds.len() {
            ff_bail!(Internal, "plan expects {} feeds, got {}", plan.feeds.len(), feeds.len());
        }
        for (t, f) in feeds.iter().zip(&plan.feeds) {
            if t.dtype() != f.dtype {
                ff_bail!(
                    InvalidArgument,
                    "Cannot feed a {} value to Tensor '{}' of dtype {}",
                    t.dtype(),
                    f.name,
                    f.dtype
                );
            }
            if !f.shape.is_compatible_with(t.shape()) {
                return Err(Error::value(format!(
                    "Cannot feed value of shape {} for Tensor '{}', which has shape '{}'",
                    py_shape(&PartialShape::known(t.shape())),
                    f.name,
                    py_shape(&f.shape)
                )));
            }
        }
        let mut values: Vec<Option<Value>> = vec![None; plan.num_slots];
        for (i, t) in feeds.into_iter().enumerate() {
            values[i] = Some(Value::Tensor(t));
        }
        let deadline = args.timeout.or(self.operation_timeout).and_then(|t| Instant::now().checked_add(t));
        let cancellation = RunCancellation::new(args.interrupt);
        let _active = ActiveRun::start(self, &cancellation);
        let rendezvous: Option<Arc<dyn Rendezvous>> = match &args.rendezvous {
            Some(r) => Some(Arc::clone(r)),
            None if plan.uses_rendezvous => Some(LocalRendezvous::new() as Arc<dyn Rendezvous>),
            None => None,
        };
        // What the step's loops keep for their gradients; dropped with the step.
        let tapes = crate::framework::step::Tapes::default();
        let wait = Wait {
            deadline,
            closed: &self.closed,
            run: &cancellation,
            nonblocking: false,
            rendezvous: rendezvous.as_deref(),
            loops: crate::framework::step::LoopFrame { tapes: Some(&tapes), path: &[], record: false },
        };
        let trace = args.trace.then(StepTrace::new);
        let result = self.execute(plan, values, wait, trace.as_ref());
        let result = match result {
            Ok(_) if cancellation.is_cancelled() => Err(Error::new(Code::Cancelled, "Session has been closed.")),
            r => r,
        };
        let values = match result {
            Ok(v) => v,
            Err(e) => {
                // TF's executor aborts the step's rendezvous when the step fails, which
                // releases the receivers of the other tasks' steps.
                if let Some(r) = &rendezvous {
                    r.start_abort(e.clone());
                }
                return Err(e);
            }
        };
        let fetched = plan
            .fetches
            .iter()
            .enumerate()
            .map(|(i, &s)| match &values[s] {
                Some(v) => v.clone().into_tensor(),
                // A dead value: the untaken side of a `Switch` (TF's message).
                None if plan.control_flow => Err(Error::invalid_argument(format!("Retval[{i}] does not have value"))),
                None => Err(Error::new(Code::Internal, "fetched value was not produced")),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(RunOutput { values: fetched, step_stats: trace.map(|t| t.into_proto(plan)) })
    }

    /// Runs the plan's steps the way the plan says (on the pool, or inline).
    fn execute(
        &self,
        plan: &Plan,
        values: Vec<Option<Value>>,
        wait: Wait<'_>,
        trace: Option<&StepTrace>,
    ) -> Result<Vec<Option<Value>>> {
        Ok(if plan.parallel {
            // A plan parallel only for its blocking steps may meet a one-thread session.
            match &self.inter_pool {
                Some(pool) => run_parallel(plan, values, pool, &self.env, wait, trace)?,
                None => {
                    let pool = pool::shared_pool(2).ok_or_else(|| Error::new(Code::Internal, "no thread pool"))?;
                    run_parallel(plan, values, &pool, &self.env, wait, trace)?
                }
            }
        } else if plan.control_flow {
            run_inline_cf(plan, values, &self.env, wait, trace)?
        } else {
            run_inline(plan, values, &self.env, wait, trace)?
        })
    }

    /// Convenience: prepare and run.
    pub fn run_once(&self, feeds: &[(Output, Tensor)], fetches: &[Output], targets: &[NodeId]) -> Result<Vec<Tensor>> {
        let names: Vec<Output> = feeds.iter().map(|(o, _)| *o).collect();
        let plan = self.prepare(&names, fetches, targets)?;
        self.run(&plan, feeds.iter().map(|(_, t)| t.clone()).collect())
    }

    /// Closes the session: later runs fail, runs blocked on a queue are cancelled, and
    /// variable values are released.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        // Take the list first: cancelling wakes waiters, which must not run under it.
        let runs: Vec<CancelHandle> = self.active_runs.lock().values().cloned().collect();
        for run in runs {
            run.cancel();
        }
        self.resources.wake_blocked();
        self.plans.lock().plans.clear();
        if self.owns_resources {
            self.resources.clear();
        }
    }

    /// Whether `close` was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }
}

/// A run in progress, listed with its session until it ends (so closing the session
/// cancels it: its steps waiting on a rendezvous or a queue are woken).
struct ActiveRun<'s> {
    session: &'s DirectSession,
    id: u64,
}

impl<'s> ActiveRun<'s> {
    fn start(session: &'s DirectSession, run: &RunCancellation<'_>) -> Self {
        let id = session.next_run.fetch_add(1, Ordering::Relaxed);
        session.active_runs.lock().insert(id, run.handle());
        // Listed first, then checked: a close that comes later finds the run.
        if session.closed.load(Ordering::Acquire) {
            run.cancel();
        }
        ActiveRun { session, id }
    }
}

impl Drop for ActiveRun<'_> {
    fn drop(&mut self) {
        self.session.active_runs.lock().remove(&self.id);
    }
}

/// The executor's [`SubPlanCompiler`]: loop and dataset kernels' sub-graphs become
/// [`Plan`]s run on the calling thread.
pub(crate) struct PlanCompiler;

impl SubPlanCompiler for PlanCompiler {
    fn compile(
        &self,
        graph: &Graph,
        resources: &ResourceMgr,
        devices: DeviceSet,
        feeds: &[Output],
        fetches: &[Output],
    ) -> Result<Box<dyn SubPlan>> {
        let placement = Placement { devices, soft: true };
        let options = CompileOptions { pool_threads: 1, remap: true };
        Ok(Box::new(Plan::compile(graph, resources, &placement, feeds, fetches, &[], options)?))
    }
}

/// A sub-plan (a loop's cond or body, see `kernels::functional`) runs on the calling
/// thread within the run of the kernel that owns it: `feeds` fill the plan's feed
/// slots in order, and the fetched values come back (a variable reference read).
/// A fed tensor must have its feed's dtype and a shape compatible with its static
/// shape (for a loop variable, its shape invariant). Its queue operations may wait.
impl SubPlan for Plan {
    fn has_blocking_steps(&self) -> bool {
        Plan::has_blocking_steps(self)
    }
    fn run_partial(&self, feeds: Vec<Option<Value>>, env: &ExecEnv, wait: Wait<'_>) -> Result<Vec<Option<Value>>> {
        run_subplan_partial(self, feeds, env, wait)
    }
}

fn run_subplan_partial(
    plan: &Plan,
    feeds: Vec<Option<Value>>,
    env: &ExecEnv,
    mut wait: Wait<'_>,
) -> Result<Vec<Option<Value>>> {
    // The loop kernel already runs where it may wait (see `kernels::functional`).
    wait.nonblocking = false;
    if feeds.len() != plan.feeds.len() {
        ff_bail!(Internal, "sub-plan expects {} feeds, got {}", plan.feeds.len(), feeds.len());
    }
    for (v, f) in feeds.iter().zip(&plan.feeds) {
        if let Some(Value::Tensor(t)) = v {
            if t.dtype() != f.dtype {
                ff_bail!(
                    InvalidArgument,
                    "Loop value for '{}' is a {} tensor, expected {}",
                    f.name,
                    t.dtype(),
                    f.dtype
                );
            }
            if !f.shape.is_compatible_with(t.shape()) {
                ff_bail!(
                    InvalidArgument,
                    "Loop value for '{}' has shape {}, which is not compatible with its shape invariant {}",
                    f.name,
                    py_shape(&PartialShape::known(t.shape())),
                    py_shape(&f.shape)
                );
            }
        }
    }
    let mut values: Vec<Option<Value>> = vec![None; plan.num_slots];
    for (i, v) in feeds.into_iter().enumerate() {
        values[i] = v;
    }
    let values = if plan.control_flow {
        run_inline_cf(plan, values, env, wait, None)?
    } else {
        run_inline(plan, values, env, wait, None)?
    };
    plan.fetches
        .iter()
        .map(|&s| match &values[s] {
            Some(Value::Ref(var)) => Ok(Some(Value::Tensor(var.read()?))),
            v => Ok(v.clone()),
        })
        .collect()
}

/// Runs one kernel, turning a panic inside it into an `Internal` error for that step
/// (so the failing op is named and no panic crosses into the pool or the bindings).
fn compute(step: &plan::Step, ctx: &mut OpContext<'_>) -> Result<()> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| step.kernel.compute(ctx))) {
        Ok(r) => r,
        Err(payload) => Err(Error::from_panic(&*payload)),
    }
}

fn gather_input(v: Option<Value>, deref: bool) -> Result<Option<Value>> {
    match v {
        Some(Value::Ref(var)) if deref => Ok(Some(Value::Tensor(var.read()?))),
        other => Ok(other),
    }
}

fn store_outputs(step: &plan::Step, outs: SmallVec<[Option<Value>; 2]>, mut put: impl FnMut(usize, Option<Value>)) {
    for (i, v) in outs.into_iter().enumerate().take(step.num_outputs) {
        put(step.out_base + i, v);
    }
}

/// Straight-line execution on the calling thread. (A plan with more than one
/// blocking step is always parallel, so a step blocked here delays no other.)
fn run_inline(
    plan: &Plan,
    mut values: Vec<Option<Value>>,
    env: &ExecEnv,
    wait: Wait<'_>,
    trace: Option<&StepTrace>,
) -> Result<Vec<Option<Value>>> {
    for (idx, step) in plan.steps.iter().enumerate() {
        let mut clock = trace.map(|_| NodeClock::start());
        let mut inputs: SmallVec<[Option<Value>; 4]> = SmallVec::with_capacity(step.inputs.len());
        for i in &step.inputs {
            let v = if i.take { values[i.slot].take() } else { values[i.slot].clone() };
            inputs.push(gather_input(v, i.deref).map_err(|e| e.with_node(&step.name))?);
        }
        let mut ctx = OpContext::new(inputs, step.num_outputs, env, wait);
        if let Some(c) = clock.as_mut() {
            c.op_start();
        }
        compute(step, &mut ctx).map_err(|e| e.with_node(&step.name))?;
        if let Some(c) = clock.as_mut() {
            c.op_end();
        }
        let outs = ctx.into_outputs().map_err(|e| e.with_node(&step.name))?;
        if let (Some(t), Some(c)) = (trace, clock) {
            t.record(idx, c, &outs);
        }
        store_outputs(step, outs, |slot, v| values[slot] = v);
    }
    Ok(values)
}

/// Whether step `step` is dead: a dead (missing) data input, or for a `Merge` all of
/// them, or a dead control input.
fn is_dead(step: &plan::Step, live: impl Fn(usize) -> bool, dead_step: impl Fn(usize) -> bool) -> bool {
    let inputs_dead = match step.flow {
        plan::Flow::Merge => !step.inputs.iter().any(|i| live(i.slot)),
        _ => !step.inputs.iter().all(|i| live(i.slot)),
    };
    inputs_dead || step.control_preds.iter().any(|&p| dead_step(p))
}

/// Outputs of a computed step: a `Switch` leaves one dead, a `_Recv` of a dead value
/// its output, any other sets them all.
fn outputs_of(step: &plan::Step, ctx: OpContext<'_>) -> Result<SmallVec<[Option<Value>; 2]>> {
    if matches!(step.flow, plan::Flow::Switch | plan::Flow::Recv) {
        Ok(ctx.into_outputs_allow_dead())
    } else {
        ctx.into_outputs()
    }
}

/// What a dead step does: nothing, except a `_Send`, which sends the deadness on (its
/// kernel sees no input), so the receiving task's step is dead too instead of waiting.
fn run_dead(step: &plan::Step, env: &ExecEnv, wait: Wait<'_>) -> Result<()> {
    if step.flow != plan::Flow::Send {
        return Ok(());
    }
    let mut ctx = OpContext::new(smallvec::smallvec![None; step.inputs.len()], step.num_outputs, env, wait);
    compute(step, &mut ctx).map_err(|e| e.with_node(&step.name))
}

/// [`run_inline`] for plans with `Switch`/`Merge`: a value never produced (its slot
/// empty when read, since producers run first) is dead, and so is every step that
/// reads one (but a `Merge` with a live input) or runs after a dead step. Dead steps
/// are skipped, so only the taken branch of a cond runs.
fn run_inline_cf(
    plan: &Plan,
    mut values: Vec<Option<Value>>,
    env: &ExecEnv,
    wait: Wait<'_>,
    trace: Option<&StepTrace>,
) -> Result<Vec<Option<Value>>> {
    let mut dead = vec![false; plan.steps.len()];
    for (idx, step) in plan.steps.iter().enumerate() {
        if is_dead(step, |s| values[s].is_some(), |p| dead[p]) {
            dead[idx] = true;
            run_dead(step, env, wait)?;
            continue;
        }
        let mut clock = trace.map(|_| NodeClock::start());
        let mut inputs: SmallVec<[Option<Value>; 4]> = SmallVec::with_capacity(step.inputs.len());
        for i in &step.inputs {
            let v = if i.take { values[i.slot].take() } else { values[i.slot].clone() };
            inputs.push(gather_input(v, i.deref).map_err(|e| e.with_node(&step.name))?);
        }
        let mut ctx = OpContext::new(inputs, step.num_outputs, env, wait);
        if let Some(c) = clock.as_mut() {
            c.op_start();
        }
        compute(step, &mut ctx).map_err(|e| e.with_node(&step.name))?;
        if let Some(c) = clock.as_mut() {
            c.op_end();
        }
        let outs = outputs_of(step, ctx).map_err(|e| e.with_node(&step.name))?;
        if let (Some(t), Some(c)) = (trace, clock) {
            t.record(idx, c, &outs);
        }
        store_outputs(step, outs, |slot, v| values[slot] = v);
    }
    Ok(values)
}

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

fn run_parallel(
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
