//! TF's `MasterService` served by a ferroflow server: the sessions of clients that
//! connect to `grpc://host:port` (a TF client or a ferroflow one).
//!
//! A master session keeps the graph the client sent (`CreateSession`, then only the
//! new nodes in each `ExtendSession`) and runs each step with the core's executor over
//! the server's resource containers, so every session on a server sees its
//! variables. Runs happen on blocking threads, never on the network runtime; a client
//! that gives up (deadline, cancel) cancels the run.
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use tonic::{Request, Response, Status};

use ferroflow_core::device::TaskName;
use ferroflow_core::error::{Code, Error, Result};
use ferroflow_core::executor::{DirectSession, RunArgs, RunOutput, SessionOptions};
use ferroflow_core::framework::resource::ResourceMgr;
use ferroflow_core::graph::{Graph, NodeId, Output};
use ferroflow_core::session::PreparedRun;
use ferroflow_core::tensor::Tensor;
use ferroflow_proto as pb;

use crate::cluster::{ClusterSession, ClusterView, num_tasks};
use crate::codec::{RunStepRequest, RunStepResponse, WithTensors};
use crate::convert::{find_node, find_output};
use crate::request_ids::{MASTER_TRACKED, RecentRequestIds};
use crate::services::master::master_service_server::MasterService;
use crate::state::{ServerState, random_u64};
use crate::status::to_status;
use crate::worker::Worker;

/// How a callable runs: a prepared plan of this task, or a cluster signature.
#[derive(Clone)]
enum CallableRun {
    Direct(Arc<dyn PreparedRun>),
    Cluster(ClusterSignature),
}

/// A callable made by `MakeCallable`: how it runs and its feed count.
struct Callable {
    run: CallableRun,
    num_feeds: usize,
    options: pb::RunOptions,
}

/// What runs a master session's steps: this task alone (a one-task cluster), or
/// every task of the cluster through partitioned graphs.
enum Backend {
    Direct(Arc<DirectSession>),
    Cluster(ClusterSession),
}

/// One client session on this master.
pub struct MasterSession {
    graph: Arc<RwLock<Graph>>,
    version: Mutex<i64>,
    backend: Backend,
    callables: Mutex<HashMap<i64, Callable>>,
    next_callable: AtomicI64,
    operation_timeout_ms: i64,
}

/// A run signature as the cluster session caches it.
type ClusterSignature = (Vec<Output>, Vec<Output>, Vec<NodeId>);

/// What a run step asks, resolved against the session's graph.
struct Signature {
    feeds: Vec<Output>,
    fetches: Vec<Output>,
    targets: Vec<NodeId>,
}

impl MasterSession {
    fn resolve(&self, feeds: &[&str], fetches: &[String], targets: &[String]) -> Result<Signature> {
        let g = self.graph.read();
        Ok(Signature {
            feeds: feeds.iter().map(|f| find_output(&g, f)).collect::<Result<_>>()?,
            fetches: fetches.iter().map(|f| find_output(&g, f)).collect::<Result<_>>()?,
            targets: targets.iter().map(|t| find_node(&g, t)).collect::<Result<_>>()?,
        })
    }

    /// How `sig` runs (compiling it on this task, for a one-task cluster).
    fn prepare(&self, sig: Signature) -> Result<CallableRun> {
        match &self.backend {
            Backend::Direct(d) => Ok(CallableRun::Direct(ferroflow_core::session::SessionBackend::prepare(
                &**d,
                &sig.feeds,
                &sig.fetches,
                &sig.targets,
            )?)),
            Backend::Cluster(_) => Ok(CallableRun::Cluster((sig.feeds, sig.fetches, sig.targets))),
        }
    }

    async fn run(&self, how: CallableRun, feeds: Vec<Tensor>, options: pb::RunOptions) -> Result<RunOutput> {
        match (how, &self.backend) {
            (CallableRun::Direct(p), _) => run_blocking(p, feeds, options, self.operation_timeout_ms).await,
            (CallableRun::Cluster(sig), Backend::Cluster(c)) => {
                let ms = if options.timeout_in_ms > 0 { options.timeout_in_ms } else { self.operation_timeout_ms };
                let timeout = u64::try_from(ms).ok().filter(|&m| m > 0).map(Duration::from_millis);
                let values = c.run(sig, feeds, timeout).await?;
                Ok(RunOutput { values, step_stats: (options.trace_level > 0).then(pb::StepStats::default) })
            }
            (CallableRun::Cluster(_), Backend::Direct(_)) => {
                Err(Error::new(Code::Internal, "a cluster signature on a one-task session"))
            }
        }
    }

    async fn close(&self) {
        match &self.backend {
            Backend::Direct(d) => ferroflow_core::session::SessionBackend::close(&**d),
            Backend::Cluster(c) => c.close().await,
        }
    }
}

/// The master of one server.
pub struct Master {
    state: Arc<ServerState>,
    worker: Arc<Worker>,
    sessions: Mutex<HashMap<String, Arc<MasterSession>>>,
    /// Recent `RunStep`, `PartialRunSetup`, `MakeCallable` and `RunCallable` request
    /// ids: a repeat is refused (before the session is looked up, as TF).
    request_ids: RecentRequestIds,
}

/// Set when the RPC that started a run goes away before it finishes (the client's
/// deadline or cancel): the run's interrupt check then cancels it.
struct CancelOnDrop(Arc<AtomicBool>, bool);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.1 {
            self.0.store(true, Ordering::Release);
        }
    }
}

/// Runs `prepared` on a blocking thread with `feeds`; a dropped RPC cancels it.
async fn run_blocking(
    prepared: Arc<dyn PreparedRun>,
    feeds: Vec<Tensor>,
    options: pb::RunOptions,
    default_timeout_ms: i64,
) -> Result<RunOutput> {
    let cancelled = Arc::new(AtomicBool::new(false));
    let mut guard = CancelOnDrop(Arc::clone(&cancelled), false);
    let timeout_ms = if options.timeout_in_ms > 0 { options.timeout_in_ms } else { default_timeout_ms };
    let joined = tokio::task::spawn_blocking(move || {
        let check = move || {
            if cancelled.load(Ordering::Acquire) {
                Err(Error::new(Code::Cancelled, "The RunStep call was cancelled by its client"))
            } else {
                Ok(())
            }
        };
        let args = RunArgs {
            timeout: u64::try_from(timeout_ms).ok().filter(|&ms| ms > 0).map(Duration::from_millis),
            trace: options.trace_level > 0,
            interrupt: Some(&check),
            ..RunArgs::default()
        };
        prepared.run(feeds, &args)
    })
    .await;
    guard.1 = true;
    joined.map_err(|e| Error::new(Code::Internal, format!("run thread failed: {e}")))?
}

impl Master {
    /// A master over a server's shared state.
    pub fn new(state: Arc<ServerState>, worker: Arc<Worker>) -> Arc<Master> {
        Arc::new(Master {
            state,
            worker,
            sessions: Mutex::new(HashMap::new()),
            request_ids: RecentRequestIds::new(MASTER_TRACKED),
        })
    }

    fn session(&self, handle: &str) -> Result<Arc<MasterSession>> {
        self.sessions
            .lock()
            .get(handle)
            .cloned()
            .ok_or_else(|| Error::new(Code::Aborted, format!("Session {handle} is not found.")))
    }

    /// Closes every session (a `Reset`, or the server stopping).
    pub async fn close_all(&self) {
        let all: Vec<_> = self.sessions.lock().drain().map(|(_, s)| s).collect();
        for s in all {
            s.close().await;
        }
    }

    /// `CreateSession`: a new session on `graph_def`, configured by the server's
    /// default session config merged under the client's.
    pub async fn create_session(&self, req: pb::CreateSessionRequest) -> Result<pb::CreateSessionResponse> {
        let mut config = self.state.server_def.default_session_config.clone().unwrap_or_default();
        // A cluster the client propagates (its own config's, not the server's default).
        let propagated = req.config.as_ref().and_then(|c| c.cluster_def.clone()).filter(|c| !c.job.is_empty());
        if let Some(c) = req.config {
            merge_config(&mut config, c);
        }
        let mut graph = Graph::new();
        if let Some(def) = &req.graph_def {
            graph.extend_from_graph_def(def)?;
        }
        let graph = Arc::new(RwLock::new(graph));
        let handle = format!("{:016x}", random_u64());
        let view = match propagated {
            Some(cluster) => Some(ClusterView::propagated(&self.state, &cluster, &req.target, &config)?),
            None if num_tasks(self.state.server_def.cluster.as_ref()) > 1 => {
                Some(ClusterView::of_server(&self.state, &config))
            }
            None => None,
        };
        let backend = if let Some(view) = view {
            Backend::Cluster(
                ClusterSession::create(view, Arc::clone(&self.worker), handle.clone(), Arc::clone(&graph), &config)
                    .await?,
            )
        } else {
            let mut options = SessionOptions::from_config(&config);
            options.task = TaskName::parse(&self.state.task_name)?;
            // Isolated: the session's variables are its own and go with it (TF's
            // `isolate_session_state`); otherwise every session shares the server's.
            let resources = if config.isolate_session_state {
                Arc::new(ResourceMgr::new())
            } else {
                Arc::clone(&self.state.resources)
            };
            Backend::Direct(DirectSession::with_resources(Arc::clone(&graph), options, resources))
        };
        let s = MasterSession {
            graph,
            version: Mutex::new(0),
            backend,
            callables: Mutex::new(HashMap::new()),
            next_callable: AtomicI64::new(0),
            operation_timeout_ms: config.operation_timeout_in_ms,
        };
        self.sessions.lock().insert(handle.clone(), Arc::new(s));
        Ok(pb::CreateSessionResponse { session_handle: handle, graph_version: 0 })
    }

    /// `ExtendSession`: adds the client's new nodes, at the version it last saw.
    pub fn extend_session(&self, req: pb::ExtendSessionRequest) -> Result<pb::ExtendSessionResponse> {
        let s = self.session(&req.session_handle)?;
        let mut version = s.version.lock();
        if *version != req.current_graph_version {
            return Err(Error::new(
                Code::Aborted,
                format!("Current version is {} but caller expected {}.", *version, req.current_graph_version),
            ));
        }
        if let Some(def) = &req.graph_def {
            s.graph.write().extend_from_graph_def(def)?;
        }
        *version += 1;
        Ok(pb::ExtendSessionResponse { new_graph_version: *version })
    }

    /// `RunStep`: runs the fetches and targets with the feeds; each fetched value is
    /// named by its fetch string.
    pub async fn run_step(&self, req: RunStepRequest) -> Result<RunStepResponse> {
        let WithTensors { message: req, tensors: feeds } = req;
        self.request_ids.track_unique(req.request_id, "RunStep (Master)", || {
            format!(
                "session_handle: {:?} fetch: {:?} target: {:?} request_id: {}",
                req.session_handle, req.fetch, req.target, req.request_id
            )
        })?;
        if !req.partial_run_handle.is_empty() {
            return Err(Error::new(Code::Unimplemented, "Partial runs are not supported by this master"));
        }
        let options = req.options.unwrap_or_default();
        let out = self.run_tensors(&req.session_handle, feeds, &req.fetch, &req.target, options).await?;
        let metadata = out.step_stats.map(|st| pb::RunMetadata { step_stats: Some(st), ..Default::default() });
        Ok(RunStepResponse::new(
            pb::RunStepResponse { metadata, ..Default::default() },
            req.fetch.into_iter().zip(out.values).collect(),
        ))
    }

    /// `RunStep` with its tensors as they are: `feeds` by `name:k`, the values of
    /// `fetch` in its order. A client in this process calls it directly, without
    /// copies through `TensorProto`s.
    pub async fn run_tensors(
        &self,
        session_handle: &str,
        feeds: Vec<(String, Tensor)>,
        fetch: &[String],
        target: &[String],
        options: pb::RunOptions,
    ) -> Result<RunOutput> {
        let s = self.session(session_handle)?;
        let (names, values): (Vec<String>, Vec<Tensor>) = feeds.into_iter().unzip();
        let feed_names: Vec<&str> = names.iter().map(String::as_str).collect();
        let sig = s.resolve(&feed_names, fetch, target)?;
        let how = s.prepare(sig)?;
        s.run(how, values, options).await
    }

    /// `CloseSession`.
    pub async fn close_session(&self, handle: &str) -> Result<()> {
        let s = self
            .sessions
            .lock()
            .remove(handle)
            .ok_or_else(|| Error::new(Code::Aborted, format!("Session {handle} is not found.")))?;
        s.close().await;
        Ok(())
    }

    /// `ListDevices`: this task's devices (all local to this master).
    pub fn list_devices(&self, handle: &str) -> Result<pb::ListDevicesResponse> {
        if !handle.is_empty() {
            let s =
                self.session(handle).map_err(|_| Error::invalid_argument(format!("Session {handle} is not found.")))?;
            if let Backend::Cluster(c) = &s.backend {
                let (local_device, remote_device) = c.devices();
                return Ok(pb::ListDevicesResponse { local_device, remote_device });
            }
        }
        Ok(pb::ListDevicesResponse { local_device: self.state.devices.clone(), remote_device: Vec::new() })
    }

    /// `Reset`: clears the containers (on every task of a cluster session) and closes
    /// every session.
    pub async fn reset(&self, containers: &[String]) -> Result<()> {
        let all: Vec<_> = self.sessions.lock().values().cloned().collect();
        for s in &all {
            if let Backend::Cluster(c) = &s.backend {
                c.cleanup_all(containers).await?;
            }
        }
        self.close_all().await;
        self.state.resources.clear_containers(containers);
        Ok(())
    }

    /// `MakeCallable`.
    pub fn make_callable(&self, req: pb::MakeCallableRequest) -> Result<pb::MakeCallableResponse> {
        self.request_ids.track_unique(req.request_id, "MakeCallable (Master)", || {
            format!("session_handle: {:?} request_id: {}", req.session_handle, req.request_id)
        })?;
        let s = self.session(&req.session_handle)?;
        let options = req.options.unwrap_or_default();
        if !options.tensor_connection.is_empty() {
            return Err(Error::new(Code::Unimplemented, "CallableOptions.tensor_connection is not supported"));
        }
        let feed_names: Vec<&str> = options.feed.iter().map(String::as_str).collect();
        let sig = s.resolve(&feed_names, &options.fetch, &options.target)?;
        let run = s.prepare(sig)?;
        let handle = s.next_callable.fetch_add(1, Ordering::Relaxed);
        s.callables.lock().insert(
            handle,
            Callable { run, num_feeds: options.feed.len(), options: options.run_options.unwrap_or_default() },
        );
        Ok(pb::MakeCallableResponse { handle })
    }

    /// `RunCallable`: feeds in the callable's feed order, fetches in its fetch order.
    pub async fn run_callable(&self, req: pb::RunCallableRequest) -> Result<pb::RunCallableResponse> {
        self.request_ids.track_unique(req.request_id, "RunCallable (Master)", || {
            format!("session_handle: {:?} handle: {} request_id: {}", req.session_handle, req.handle, req.request_id)
        })?;
        let s = self.session(&req.session_handle)?;
        let (run, num_feeds, options) = {
            let c = s.callables.lock();
            let c = c.get(&req.handle).ok_or_else(|| {
                Error::invalid_argument(format!("Attempted to run callable {} that was not found.", req.handle))
            })?;
            (c.run.clone(), c.num_feeds, c.options)
        };
        if req.feed.len() != num_feeds {
            return Err(Error::invalid_argument(format!(
                "Invalid number of feed values: expected {num_feeds}, got {}",
                req.feed.len()
            )));
        }
        let feeds = req.feed.iter().map(Tensor::from_proto).collect::<Result<Vec<_>>>()?;
        let out = s.run(run, feeds, options).await?;
        let metadata = out.step_stats.map(|st| pb::RunMetadata { step_stats: Some(st), ..Default::default() });
        Ok(pb::RunCallableResponse { fetch: out.values.iter().map(Tensor::to_proto).collect(), metadata })
    }

    /// `ReleaseCallable`.
    pub fn release_callable(&self, req: &pb::ReleaseCallableRequest) -> Result<()> {
        let s = self.session(&req.session_handle)?;
        s.callables.lock().remove(&req.handle);
        Ok(())
    }
}

/// TF's merge of a client config over the server's default (`MergeFrom`: scalars the
/// client sets win, repeated fields append).
fn merge_config(base: &mut pb::ConfigProto, client: pb::ConfigProto) {
    use prost::Message;
    let mut bytes = base.encode_to_vec();
    bytes.extend(client.encode_to_vec());
    if let Ok(merged) = pb::ConfigProto::decode(bytes.as_slice()) {
        *base = merged;
    }
}

fn reply<T>(r: Result<T>) -> std::result::Result<Response<T>, Status> {
    r.map(Response::new).map_err(|e| to_status(&e))
}

#[tonic::async_trait]
impl MasterService for Master {
    async fn create_session(
        &self,
        req: Request<pb::CreateSessionRequest>,
    ) -> std::result::Result<Response<pb::CreateSessionResponse>, Status> {
        reply(Master::create_session(self, req.into_inner()).await)
    }

    async fn extend_session(
        &self,
        req: Request<pb::ExtendSessionRequest>,
    ) -> std::result::Result<Response<pb::ExtendSessionResponse>, Status> {
        reply(Master::extend_session(self, req.into_inner()))
    }

    async fn partial_run_setup(
        &self,
        _req: Request<pb::PartialRunSetupRequest>,
    ) -> std::result::Result<Response<pb::PartialRunSetupResponse>, Status> {
        Err(Status::unimplemented("Partial runs are not supported by this master"))
    }

    async fn run_step(&self, req: Request<RunStepRequest>) -> std::result::Result<Response<RunStepResponse>, Status> {
        let req = req.into_inner();
        let in_body = req.message.store_errors_in_response_body;
        match Master::run_step(self, req).await {
            Ok(r) => Ok(Response::new(r)),
            Err(e) if in_body => Ok(Response::new(RunStepResponse::new(
                pb::RunStepResponse {
                    status_code: e.code as i32,
                    status_error_message: e.message,
                    ..Default::default()
                },
                Vec::new(),
            ))),
            Err(e) => Err(to_status(&e)),
        }
    }

    async fn close_session(
        &self,
        req: Request<pb::CloseSessionRequest>,
    ) -> std::result::Result<Response<pb::CloseSessionResponse>, Status> {
        reply(Master::close_session(self, &req.into_inner().session_handle).await.map(|()| pb::CloseSessionResponse {}))
    }

    async fn list_devices(
        &self,
        req: Request<pb::ListDevicesRequest>,
    ) -> std::result::Result<Response<pb::ListDevicesResponse>, Status> {
        reply(Master::list_devices(self, &req.into_inner().session_handle))
    }

    async fn reset(&self, req: Request<pb::ResetRequest>) -> std::result::Result<Response<pb::ResetResponse>, Status> {
        reply(Master::reset(self, &req.into_inner().container).await.map(|()| pb::ResetResponse {}))
    }

    async fn make_callable(
        &self,
        req: Request<pb::MakeCallableRequest>,
    ) -> std::result::Result<Response<pb::MakeCallableResponse>, Status> {
        reply(Master::make_callable(self, req.into_inner()))
    }

    async fn run_callable(
        &self,
        req: Request<pb::RunCallableRequest>,
    ) -> std::result::Result<Response<pb::RunCallableResponse>, Status> {
        reply(Master::run_callable(self, req.into_inner()).await)
    }

    async fn release_callable(
        &self,
        req: Request<pb::ReleaseCallableRequest>,
    ) -> std::result::Result<Response<pb::ReleaseCallableResponse>, Status> {
        reply(Master::release_callable(self, &req.into_inner()).map(|()| pb::ReleaseCallableResponse {}))
    }
}
