//! TF's `WorkerService` served by a ferroflow server: what a master (TF's or
//! ferroflow's) calls to run the partition of a step that lives on this task.
//!
//! `RegisterGraph` compiles a partition (every node already on one of this task's
//! devices) into a plan over the task's resource containers; `RunGraph` runs it for
//! one step with that step's rendezvous: the `send` tensors (client feeds) are put into
//! it first, the `recv_key`s (client fetches) read from it after. A `_Recv` whose
//! producer is another task pulls the value with `RecvTensor` from that task (the
//! receiver calls, TF's pull model); `RecvTensor` from others is served from the step's
//! table and may arrive before this task's `RunGraph` for the step. A step's state
//! lives until `CleanupGraph`.
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::{Mutex, RwLock};
use tokio::task::AbortHandle;
use tonic::{Request, Response, Status};

use ferroflow_core::device::TaskName;
use ferroflow_core::error::{Code, Error, Result};
use ferroflow_core::executor::{DirectSession, RunArgs, SessionOptions};
use ferroflow_core::framework::cancel::RunCancellation;
use ferroflow_core::framework::resource::ResourceMgr;
use ferroflow_core::framework::step::Wait;
use ferroflow_core::graph::Graph;
use ferroflow_core::kernels::sendrecv::node_key;
use ferroflow_core::runtime::rendezvous::{
    LocalRendezvous, ParsedKey, ReadyCallback, Received, RecvSlot, Rendezvous, parse_key,
};
use ferroflow_core::session::{PreparedRun, SessionBackend};
use ferroflow_core::tensor::Tensor;
use ferroflow_proto as pb;

use crate::codec::{RunGraphRequest, RunGraphResponse, TensorResponse};
use crate::limits::Limits;
use crate::request_ids::{RecentRequestIds, WORKER_TRACKED};
use crate::runtime::runtime;
use crate::services::worker::worker_service_client::WorkerServiceClient;
use crate::services::worker::worker_service_server::WorkerService;
use crate::state::ServerState;
use crate::status::{from_status, to_status};
use crate::transport::BoundedChannel;

/// A client of another task's worker service.
pub type WorkerClient = WorkerServiceClient<BoundedChannel>;

/// A lazily connected client of the worker at `host:port`.
pub fn worker_client(address: &str) -> Result<WorkerClient> {
    let rt = runtime()?;
    let _guard = rt.enter();
    Ok(WorkerServiceClient::new(crate::transport::channel(address, "worker address", Limits::default())?)
        .max_decoding_message_size(i32::MAX as usize)
        .max_encoding_message_size(i32::MAX as usize))
}

/// The addresses of a cluster's tasks, by task name.
#[derive(Default)]
pub struct Peers {
    addresses: HashMap<String, String>,
    clients: Mutex<HashMap<String, WorkerClient>>,
}

impl Peers {
    /// The tasks of `cluster` (`/job:J/replica:0/task:T` -> address).
    pub fn new(cluster: Option<&pb::ClusterDef>) -> Peers {
        let mut addresses = HashMap::new();
        for job in cluster.map(|c| c.job.as_slice()).unwrap_or_default() {
            for (task, address) in &job.tasks {
                addresses.insert(format!("/job:{}/replica:0/task:{task}", job.name), address.clone());
            }
        }
        Peers { addresses, clients: Mutex::new(HashMap::new()) }
    }

    /// The client of the task owning `device` (a full device name).
    pub fn client_for_device(&self, device: &str) -> Result<WorkerClient> {
        let task = device.split("/device:").next().unwrap_or(device);
        let address = self
            .addresses
            .get(task)
            .ok_or_else(|| Error::invalid_argument(format!("No worker known for device {device}")))?;
        let mut clients = self.clients.lock();
        if let Some(c) = clients.get(task) {
            return Ok(c.clone());
        }
        let c = worker_client(address)?;
        clients.insert(task.to_string(), c.clone());
        Ok(c)
    }
}

/// One step's rendezvous on this task: the local table, plus `RecvTensor` calls to
/// the tasks that produce what this task's `_Recv`s wait for.
pub struct StepRendezvous {
    step_id: i64,
    /// The task the step's `RunGraph` runs as (its worker session's name for this
    /// task); set by the `RunGraph`, which may come after a `RecvTensor` made the step.
    task: OnceLock<String>,
    local: Arc<LocalRendezvous>,
    peers: Arc<Peers>,
    /// Remote keys whose `RecvTensor` was started with the step (their values arrive in
    /// `local`), and those calls.
    prefetched: Mutex<(HashSet<String>, Vec<AbortHandle>)>,
    /// Whether a `RunGraph` of this task joined the step (then `CleanupGraph` ends it),
    /// and how many `RecvTensor`s wait on it; both change under the worker's step lock.
    ran: AtomicBool,
    waiting: AtomicUsize,
}

/// Whether `device` (a full device name) is on `task` (`/job:J/replica:R/task:T`).
fn on_task(device: &str, task: &str) -> bool {
    device.strip_prefix(task).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

impl StepRendezvous {
    /// Starts the `RecvTensor` of every remote key at once, as the step begins (TF's
    /// `_Recv` is an asynchronous kernel that every step starts with): the values
    /// travel together instead of one round trip after another, and a `_Recv` finds
    /// its value here, in the local table. A failed call aborts the step.
    fn prefetch(&self, keys: &[ParsedKey]) -> Result<()> {
        let rt = runtime()?;
        let mut prefetched = self.prefetched.lock();
        for key in keys {
            if !prefetched.0.insert(key.full().to_string()) {
                continue;
            }
            let call = self.call(key)?;
            let (local, key) = (Arc::clone(&self.local), key.clone());
            let task = rt.spawn(async move {
                // A send into an aborted table fails; the abort's status already stands.
                let _ = match call.await {
                    Ok((t, is_dead)) => local.send(&key, t, is_dead),
                    Err(e) => {
                        local.start_abort(e);
                        Ok(())
                    }
                };
            });
            prefetched.1.push(task.abort_handle());
        }
        Ok(())
    }

    /// Whether `key`'s value arrives in the local table: made by this task, or
    /// prefetched.
    fn is_local(&self, key: &ParsedKey) -> bool {
        self.task.get().is_some_and(|task| on_task(&key.src_device, task))
            || self.prefetched.lock().0.contains(key.full())
    }

    /// The `RecvTensor` call for `key` to the task that produces it.
    fn call(&self, key: &ParsedKey) -> Result<impl std::future::Future<Output = Result<Received>> + use<>> {
        let mut client = self.peers.client_for_device(&key.src_device)?;
        let req = pb::RecvTensorRequest {
            step_id: self.step_id,
            rendezvous_key: key.full().to_string(),
            request_id: crate::request_ids::unique_request_id(),
            ..Default::default()
        };
        Ok(async move {
            match client.recv_tensor(req).await {
                Ok(resp) => {
                    let resp = resp.into_inner();
                    Ok((resp.tensor, resp.is_dead))
                }
                Err(s) => Err(from_status(&s)),
            }
        })
    }
}

impl Rendezvous for StepRendezvous {
    fn send(&self, key: &ParsedKey, value: Tensor, is_dead: bool) -> Result<()> {
        self.local.send(key, value, is_dead)
    }

    fn recv(&self, key: &ParsedKey, wait: &Wait<'_>) -> Result<Received> {
        if self.is_local(key) {
            return self.local.recv(key, wait);
        }
        if wait.nonblocking {
            return Err(Error::would_block());
        }
        if let Some(e) = self.local.aborted() {
            return Err(e);
        }
        let call = self.call(key)?;
        let slot = RecvSlot::new();
        let filler = Arc::clone(&slot);
        let call = runtime()?.spawn(async move {
            filler.fill(call.await);
        });
        let r = slot.wait(wait, "RecvFromRemoteAsync is cancelled.");
        if r.is_err() {
            call.abort();
        }
        r
    }

    fn notify_when_ready(&self, key: &ParsedKey, ready: ReadyCallback) -> bool {
        // Values of this task and prefetched ones arrive in the local table.
        self.is_local(key) && self.local.notify_when_ready(key, ready)
    }

    fn start_abort(&self, status: Error) {
        for call in self.prefetched.lock().1.drain(..) {
            call.abort();
        }
        self.local.start_abort(status);
    }
}

/// A registered partition: its compiled plan.
struct RegisteredGraph {
    run: Arc<dyn PreparedRun>,
    session: Arc<DirectSession>,
    /// The keys of its `_Recv`s from other tasks, fetched as each step starts.
    remote_recvs: Vec<ParsedKey>,
}

/// A worker session (`CreateWorkerSession`), or the legacy one of an empty handle.
struct WorkerSession {
    /// The name this task has in the session's cluster: the server's own, or the one a
    /// master gave it by propagating its own `ClusterSpec` (`ConfigProto.cluster_def`).
    task: String,
    graphs: Mutex<HashMap<String, Arc<RegisteredGraph>>>,
    peers: Arc<Peers>,
    /// The resource containers its graphs run over: the server's, or the session's own
    /// (`isolate_session_state`: its variables and queues go when the session does).
    resources: Arc<ResourceMgr>,
}

/// The worker of one server.
pub struct Worker {
    state: Arc<ServerState>,
    sessions: RwLock<HashMap<String, Arc<WorkerSession>>>,
    steps: Mutex<HashMap<i64, Arc<StepRendezvous>>>,
    next_graph: AtomicU64,
    peers: Arc<Peers>,
    /// Recent `RunGraph` and `RecvTensor` request ids: a repeat is refused.
    request_ids: RecentRequestIds,
}

/// Set when the RPC that started a run goes away (the master gave up on the step).
struct CancelOnDrop(Arc<AtomicBool>, bool);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.1 {
            self.0.store(true, Ordering::Release);
        }
    }
}

impl Worker {
    /// A worker over a server's shared state.
    pub fn new(state: Arc<ServerState>) -> Arc<Worker> {
        let peers = Arc::new(Peers::new(state.server_def.cluster.as_ref()));
        Arc::new(Worker {
            state,
            sessions: RwLock::new(HashMap::new()),
            steps: Mutex::new(HashMap::new()),
            next_graph: AtomicU64::new(1),
            peers,
            request_ids: RecentRequestIds::new(WORKER_TRACKED),
        })
    }

    fn session(&self, handle: &str, create_worker_session_called: bool) -> Result<Arc<WorkerSession>> {
        if handle.is_empty() || !create_worker_session_called {
            let mut all = self.sessions.write();
            let legacy = all.entry(String::new()).or_insert_with(|| {
                Arc::new(WorkerSession {
                    task: self.state.task_name.clone(),
                    graphs: Mutex::new(HashMap::new()),
                    peers: Arc::clone(&self.peers),
                    resources: Arc::clone(&self.state.resources),
                })
            });
            return Ok(Arc::clone(legacy));
        }
        self.sessions.read().get(handle).cloned().ok_or_else(|| {
            Error::new(
                Code::Aborted,
                format!(
                    "Session handle is not found: {handle}. Possibly this worker (\"{}\") just restarted.",
                    self.state.task_name
                ),
            )
        })
    }

    /// The step's rendezvous, made by whichever of `RunGraph` and `RecvTensor` comes
    /// first; `run` is the task name a `RunGraph` runs as, `None` for a `RecvTensor`.
    fn step(&self, step_id: i64, peers: &Arc<Peers>, run: Option<&str>) -> Arc<StepRendezvous> {
        let mut steps = self.steps.lock();
        let step = steps.entry(step_id).or_insert_with(|| {
            Arc::new(StepRendezvous {
                step_id,
                task: OnceLock::new(),
                local: LocalRendezvous::new(),
                peers: Arc::clone(peers),
                prefetched: Mutex::new((HashSet::new(), Vec::new())),
                ran: AtomicBool::new(false),
                waiting: AtomicUsize::new(0),
            })
        });
        if let Some(task) = run {
            step.task.get_or_init(|| task.to_string());
            step.ran.store(true, Ordering::Relaxed);
        } else {
            step.waiting.fetch_add(1, Ordering::Relaxed);
        }
        Arc::clone(step)
    }

    /// A `RecvTensor` on `step` is over (answered, failed or dropped by its caller):
    /// a step that no `RunGraph` joined and nobody waits on any more is forgotten, so
    /// calls for steps that never run (a peer's garbage, a master that gave up) leave
    /// nothing behind. A `RunGraph` arriving later starts it afresh.
    fn recv_done(&self, step: &Arc<StepRendezvous>) {
        let mut steps = self.steps.lock();
        let last = step.waiting.fetch_sub(1, Ordering::Relaxed) == 1;
        if last && !step.ran.load(Ordering::Relaxed) && steps.get(&step.step_id).is_some_and(|s| Arc::ptr_eq(s, step)) {
            steps.remove(&step.step_id);
        }
    }

    /// The number of steps this worker holds state for.
    pub fn live_steps(&self) -> usize {
        self.steps.lock().len()
    }

    /// `GetStatus`: this task's devices.
    pub fn status(&self) -> pb::GetStatusResponse {
        pb::GetStatusResponse { device_attributes: self.state.devices.clone() }
    }

    /// `CleanupAll`: clears `containers` (none: the default one) of this task.
    pub fn cleanup_all(&self, containers: &[String]) {
        self.state.resources.clear_containers(containers);
    }

    /// `CreateWorkerSession`: a session of a master (re-creating one is a no-op), over
    /// the server's resources or, with `isolate_session_state`, its own.
    ///
    /// A session whose `server_def` has a cluster runs as the task that names (TF's
    /// renamed devices: a master may propagate a `ClusterSpec` of its own, in which this
    /// server is, say, `/job:worker/task:1`), and reaches that cluster's tasks.
    pub fn create_worker_session(&self, req: &pb::CreateWorkerSessionRequest) -> Result<()> {
        if req.session_handle.is_empty() {
            return Err(Error::invalid_argument("Session must be non-empty."));
        }
        let (peers, task) = match req.server_def.as_ref() {
            Some(d) if d.cluster.as_ref().is_some_and(|c| !c.job.is_empty()) && !d.job_name.is_empty() => (
                Arc::new(Peers::new(d.cluster.as_ref())),
                format!("/job:{}/replica:0/task:{}", d.job_name, d.task_index),
            ),
            _ => (Arc::clone(&self.peers), self.state.task_name.clone()),
        };
        TaskName::parse(&task)?;
        self.sessions.write().entry(req.session_handle.clone()).or_insert_with(|| {
            let resources = if req.isolate_session_state {
                Arc::new(ResourceMgr::new())
            } else {
                Arc::clone(&self.state.resources)
            };
            Arc::new(WorkerSession { task, graphs: Mutex::new(HashMap::new()), peers, resources })
        });
        Ok(())
    }

    /// `DeleteWorkerSession`.
    pub fn delete_worker_session(&self, handle: &str) {
        if let Some(s) = self.sessions.write().remove(handle) {
            for g in s.graphs.lock().drain().map(|(_, g)| g) {
                g.session.close();
            }
        }
    }

    /// `RegisterGraph`: compiles a partition of this task.
    pub fn register_graph(&self, req: &pb::RegisterGraphRequest) -> Result<pb::RegisterGraphResponse> {
        let session = self.session(&req.session_handle, req.create_worker_session_called)?;
        let def = req.graph_def.clone().unwrap_or_default();
        let mut graph = Graph::new();
        graph.extend_from_graph_def(&def)?;
        // Every node runs, except the sub-graphs a loop runs itself (shipped with it).
        let inside = ferroflow_core::kernels::functional::loop_only_nodes(&graph)?;
        let targets: Vec<usize> = (0..graph.len()).filter(|&n| !inside[n]).collect();
        let task = &session.task;
        let mut remote_recvs = Vec::new();
        for node in graph.nodes().iter().filter(|n| matches!(n.op_type(), "_Recv" | "_HostRecv")) {
            let key = node_key(node)?;
            if !on_task(&key.src_device, task) {
                remote_recvs.push(key);
            }
        }
        let config = req.config_proto.clone().unwrap_or_default();
        let mut options = SessionOptions::from_config(&config);
        options.task = TaskName::parse(&session.task)?;
        let direct =
            DirectSession::with_resources(Arc::new(RwLock::new(graph)), options, Arc::clone(&session.resources));
        let run = SessionBackend::prepare(&*direct, &[], &[], &targets)?;
        let handle = format!("{:016x}", self.next_graph.fetch_add(1, Ordering::Relaxed));
        session.graphs.lock().insert(handle.clone(), Arc::new(RegisteredGraph { run, session: direct, remote_recvs }));
        Ok(pb::RegisterGraphResponse { graph_handle: handle })
    }

    /// `DeregisterGraph`.
    pub fn deregister_graph(&self, req: &pb::DeregisterGraphRequest) -> Result<()> {
        let session = self.session(&req.session_handle, req.create_worker_session_called)?;
        if let Some(g) = session.graphs.lock().remove(&req.graph_handle) {
            g.session.close();
        }
        Ok(())
    }

    /// `RunGraph`: one step of a registered partition, its `send` and `recv` tensors
    /// as they are (the codec reads and writes them without `TensorProto`s).
    pub async fn run_graph(&self, req: RunGraphRequest) -> Result<RunGraphResponse> {
        let recv = self.run_graph_tensors(&req.message, req.tensors).await?;
        Ok(RunGraphResponse::new(pb::RunGraphResponse::default(), recv))
    }

    /// `RunGraph` with its tensors as they are (`req.send` is ignored): `send` goes into
    /// the step's table under its keys, and the `recv_key` values come back by key. The
    /// master of this task calls it directly.
    pub async fn run_graph_tensors(
        &self,
        req: &pb::RunGraphRequest,
        send: Vec<(String, Tensor)>,
    ) -> Result<Vec<(String, Tensor)>> {
        self.request_ids.track_unique(req.request_id, "RunGraph (Worker)", || {
            format!(
                "graph_handle: {:?} step_id: {} session_handle: {:?} request_id: {}",
                req.graph_handle, req.step_id, req.session_handle, req.request_id
            )
        })?;
        let session = self.session(&req.session_handle, req.create_worker_session_called)?;
        let graph = session
            .graphs
            .lock()
            .get(&req.graph_handle)
            .cloned()
            .ok_or_else(|| Error::new(Code::Aborted, format!("Graph handle is not found: {}", req.graph_handle)))?;
        let step = self.step(req.step_id, &session.peers, Some(&session.task));
        for (name, t) in send {
            let key = parse_key(&name)?;
            if !on_task(&key.src_device, &session.task) {
                return Err(Error::invalid_argument(format!(
                    "Invalid rendezvous key (src): {name} @ {}",
                    session.task
                )));
            }
            step.send(&key, t, false)?;
        }
        let recv_keys = req.recv_key.iter().map(|k| parse_key(k)).collect::<Result<Vec<_>>>()?;
        step.prefetch(&graph.remote_recvs)?;
        let cancelled = Arc::new(AtomicBool::new(false));
        let mut guard = CancelOnDrop(Arc::clone(&cancelled), false);
        let rendezvous = Arc::clone(&step);
        let joined = tokio::task::spawn_blocking(move || -> Result<Vec<(String, Tensor)>> {
            let check = || {
                if cancelled.load(Ordering::Acquire) {
                    Err(Error::new(Code::Cancelled, "The RunGraph call was cancelled"))
                } else {
                    Ok(())
                }
            };
            let args = RunArgs {
                interrupt: Some(&check),
                rendezvous: Some(Arc::clone(&rendezvous) as Arc<dyn Rendezvous>),
                ..RunArgs::default()
            };
            if let Err(e) = graph.run.run(Vec::new(), &args) {
                rendezvous.start_abort(e.clone());
                return Err(e);
            }
            // The run has finished, so every fetched value is in the table already.
            let run = RunCancellation::new(None);
            let closed = AtomicBool::new(false);
            let wait = Wait {
                deadline: None,
                closed: &closed,
                run: &run,
                nonblocking: false,
                rendezvous: None,
                loops: Default::default(),
            };
            recv_keys.iter().map(|k| rendezvous.local.recv(k, &wait).map(|(t, _)| (k.full().to_string(), t))).collect()
        })
        .await;
        guard.1 = true;
        joined.map_err(|e| Error::new(Code::Internal, format!("run thread failed: {e}")))?
    }

    /// The server's own name of `device` when it is on this task: named as the server
    /// was started, or as a worker session names this task.
    fn own_device_name(&self, device: &str) -> Option<String> {
        let task = &self.state.task_name;
        if on_task(device, task) {
            return Some(device.to_string());
        }
        let sessions = self.sessions.read();
        let rest = sessions
            .values()
            .find_map(|s| device.strip_prefix(&s.task).filter(|r| r.is_empty() || r.starts_with('/')))?;
        Some(format!("{task}{rest}"))
    }

    /// `CleanupGraph`: drops the step's state.
    pub fn cleanup_graph(&self, step_id: i64) {
        if let Some(s) = self.steps.lock().remove(&step_id) {
            s.start_abort(Error::new(Code::Aborted, format!("Cleanup {step_id}")));
        }
    }

    /// `RecvTensor`: the value this task produced under a key, once it exists.
    pub async fn recv_tensor(&self, req: pb::RecvTensorRequest) -> Result<TensorResponse> {
        self.request_ids.track_unique(req.request_id, "RecvTensor (GrpcWorker)", || {
            format!("step_id: {} rendezvous_key: {:?} request_id: {}", req.step_id, req.rendezvous_key, req.request_id)
        })?;
        let key = parse_key(&req.rendezvous_key)?;
        let Some(device) = self.own_device_name(&key.src_device) else {
            return Err(Error::invalid_argument(format!(
                "Invalid rendezvous key (src): {} @ {}",
                req.rendezvous_key, self.state.task_name
            )));
        };
        if let Some(d) = self.state.devices.iter().find(|d| d.name == device)
            && d.incarnation != key.src_incarnation
        {
            return Err(Error::new(
                Code::Aborted,
                format!(
                    "RecvTensor expects a different device incarnation: {} vs. {}. Your worker job (\"{}\") was \
                     probably restarted. Check your worker job for the reason why it was restarted.",
                    key.src_incarnation, d.incarnation, self.state.task_name
                ),
            ));
        }
        let step = self.step(req.step_id, &self.peers, None);
        // Runs when this call ends however it ends, its future dropped included.
        struct Done<'a>(&'a Worker, Arc<StepRendezvous>);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.recv_done(&self.1);
            }
        }
        let _done = Done(self, Arc::clone(&step));
        let micros = || {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros());
            i64::try_from(now).unwrap_or(i64::MAX)
        };
        // Waits without a thread: the step's table calls back once the value is there
        // (or the step was aborted), then the nonblocking recv takes it. A call the
        // client drops just drops this future.
        let (run, closed) = (RunCancellation::new(None), AtomicBool::new(false));
        let now = Wait {
            deadline: None,
            closed: &closed,
            run: &run,
            nonblocking: true,
            rendezvous: None,
            loops: Default::default(),
        };
        let (tensor, is_dead) = loop {
            match step.local.recv(&key, &now) {
                Ok(v) => break v,
                Err(e) if !e.is_would_block() => return Err(e),
                Err(_) => {}
            }
            let (ready, arrived) = tokio::sync::oneshot::channel();
            step.local.notify_when_ready(
                &key,
                Box::new(move || {
                    let _ = ready.send(());
                }),
            );
            if arrived.await.is_err() {
                return Err(Error::new(Code::Aborted, format!("Step {} was cleaned up", req.step_id)));
            }
        };
        Ok(TensorResponse { tensor, is_dead, send_start_micros: micros() })
    }
}

type Reply<T> = std::result::Result<Response<T>, Status>;

fn reply<T>(r: Result<T>) -> Reply<T> {
    r.map(Response::new).map_err(|e| to_status(&e))
}

#[tonic::async_trait]
impl WorkerService for Worker {
    async fn get_status(&self, _req: Request<pb::GetStatusRequest>) -> Reply<pb::GetStatusResponse> {
        Ok(Response::new(self.status()))
    }

    async fn create_worker_session(
        &self,
        req: Request<pb::CreateWorkerSessionRequest>,
    ) -> Reply<pb::CreateWorkerSessionResponse> {
        reply(Worker::create_worker_session(self, &req.into_inner()).map(|()| pb::CreateWorkerSessionResponse {}))
    }

    async fn delete_worker_session(
        &self,
        req: Request<pb::DeleteWorkerSessionRequest>,
    ) -> Reply<pb::DeleteWorkerSessionResponse> {
        Worker::delete_worker_session(self, &req.into_inner().session_handle);
        Ok(Response::new(pb::DeleteWorkerSessionResponse {}))
    }

    async fn register_graph(&self, req: Request<pb::RegisterGraphRequest>) -> Reply<pb::RegisterGraphResponse> {
        reply(Worker::register_graph(self, &req.into_inner()))
    }

    async fn deregister_graph(&self, req: Request<pb::DeregisterGraphRequest>) -> Reply<pb::DeregisterGraphResponse> {
        reply(Worker::deregister_graph(self, &req.into_inner()).map(|()| pb::DeregisterGraphResponse {}))
    }

    async fn run_graph(&self, req: Request<RunGraphRequest>) -> Reply<RunGraphResponse> {
        let req = req.into_inner();
        let in_body = req.message.store_errors_in_response_body;
        match Worker::run_graph(self, req).await {
            Ok(r) => Ok(Response::new(r)),
            Err(e) if in_body => Ok(Response::new(RunGraphResponse::new(
                pb::RunGraphResponse {
                    status_code: e.code as i32,
                    status_error_message: e.message,
                    ..Default::default()
                },
                Vec::new(),
            ))),
            Err(e) => Err(to_status(&e)),
        }
    }

    async fn cleanup_graph(&self, req: Request<pb::CleanupGraphRequest>) -> Reply<pb::CleanupGraphResponse> {
        Worker::cleanup_graph(self, req.into_inner().step_id);
        Ok(Response::new(pb::CleanupGraphResponse {}))
    }

    async fn cleanup_all(&self, req: Request<pb::CleanupAllRequest>) -> Reply<pb::CleanupAllResponse> {
        self.cleanup_all(&req.into_inner().container);
        Ok(Response::new(pb::CleanupAllResponse {}))
    }

    async fn recv_tensor(&self, req: Request<pb::RecvTensorRequest>) -> Reply<TensorResponse> {
        reply(Worker::recv_tensor(self, req.into_inner()).await)
    }

    async fn mark_recv_finished(
        &self,
        _req: Request<pb::MarkRecvFinishedRequest>,
    ) -> Reply<pb::MarkRecvFinishedResponse> {
        // Responses are not cached for retries (TF's `cache_rpc_response` is off by
        // default), so there is nothing to release.
        Ok(Response::new(pb::MarkRecvFinishedResponse {}))
    }

    async fn logging(&self, _req: Request<pb::LoggingRequest>) -> Reply<pb::LoggingResponse> {
        Ok(Response::new(pb::LoggingResponse::default()))
    }

    async fn tracing(&self, _req: Request<pb::TracingRequest>) -> Reply<pb::TracingResponse> {
        // TF's own workers answer this way too.
        Err(Status::unimplemented("Tracing is not implemented"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abandoned_recv_tensors_leave_no_step_behind() {
        let task = "/job:w/replica:0/task:0";
        let state = Arc::new(ServerState {
            server_def: pb::ServerDef { job_name: "w".into(), ..Default::default() },
            task_name: task.into(),
            devices: Vec::new(),
            resources: Arc::new(ResourceMgr::new()),
            target: String::new(),
        });
        let worker = Worker::new(state);
        let rt = crate::runtime::runtime().unwrap();
        let key = format!("{task}/device:CPU:0;0000000000000001;{task}/device:CPU:0;x;0:0");
        for step_id in 0..500 {
            let req = pb::RecvTensorRequest { step_id, rendezvous_key: key.clone(), ..Default::default() };
            let call = worker.recv_tensor(req);
            let r = rt.block_on(async { tokio::time::timeout(std::time::Duration::from_millis(1), call).await });
            assert!(r.is_err(), "no value was ever sent");
        }
        assert_eq!(worker.live_steps(), 0);
        // A step a RunGraph joined stays until CleanupGraph, whatever its receivers do.
        let step = worker.step(7, &Arc::clone(&worker.peers), Some(task));
        drop(step);
        assert_eq!(worker.live_steps(), 1);
        worker.cleanup_graph(7);
        assert_eq!(worker.live_steps(), 0);
    }
}
