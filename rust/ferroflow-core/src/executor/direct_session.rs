//! The direct session (TF's `DirectSession`): owns the variable values of one graph,
//! compiles run signatures into cached plans, and runs them: small plans straight-line
//! on the calling thread, plans with enough independent work on the inter-op pool.
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};

use super::inline::run_inline;
use super::parallel::run_parallel;
use super::{CompileOptions, Placement, Plan, StepTrace, py_shape};
use crate::device::{DeviceSet, TaskName};
use crate::error::{Code, Error, Result};
use crate::framework::cancel::{CancelHandle, CancellationPool, InterruptCheck, RunCancellation};
use crate::framework::pool;
use crate::framework::resource::ResourceMgr;
use crate::framework::step::Wait;
use crate::graph::{Graph, NodeId, Output};
use crate::kernels::{ExecEnv, Value};
use crate::runtime::rendezvous::{LocalRendezvous, Rendezvous};
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
    // Finished runs' cancellation states, for the next runs.
    cancellations: CancellationPool,
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
            cancellations: CancellationPool::default(),
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
        let mut values = Vec::with_capacity(plan.fetches.len());
        let step_stats = self.run_into(plan, feeds, args, &mut values)?;
        Ok(RunOutput { values, step_stats })
    }

    /// [`run_with`](Self::run_with), appending the fetched values to `fetched` (as TF's
    /// `Session::Run` fills its `outputs` vector) and returning the step statistics of
    /// a traced run. With a `fetched` that has room, a steady-state run of an inline
    /// plan makes no allocator calls.
    pub fn run_into(
        &self,
        plan: &Plan,
        feeds: Vec<Tensor>,
        args: &RunArgs<'_>,
        fetched: &mut Vec<Tensor>,
    ) -> Result<Option<ferroflow_proto::StepStats>> {
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
        let mut values = plan.take_slots();
        for (i, t) in feeds.into_iter().enumerate() {
            values[i] = Some(Value::Tensor(t));
        }
        let deadline = args.timeout.or(self.operation_timeout).and_then(|t| Instant::now().checked_add(t));
        let cancellation = self.cancellations.start(args.interrupt);
        let active = ActiveRun::start(self, &cancellation);
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
        drop(active);
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
        self.cancellations.finish(cancellation);
        let first = fetched.len();
        for (i, &s) in plan.fetches.iter().enumerate() {
            let value = match &values[s] {
                Some(v) => v.clone().into_tensor(),
                // A dead value: the untaken side of a `Switch` (TF's message).
                None if plan.control_flow => Err(Error::invalid_argument(format!("Retval[{i}] does not have value"))),
                None => Err(Error::new(Code::Internal, "fetched value was not produced")),
            };
            match value {
                Ok(t) => fetched.push(t),
                Err(e) => {
                    fetched.truncate(first);
                    return Err(e);
                }
            }
        }
        plan.give_back_slots(values);
        Ok(trace.map(|t| t.into_proto(plan)))
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
