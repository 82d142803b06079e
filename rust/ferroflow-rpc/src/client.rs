//! The session backend of `grpc://` targets: TF's `GrpcSession`.
//!
//! The graph is sent lazily, as TF's client does: the first run creates the remote
//! session with every node so far (`CreateSession`), later runs first send only the
//! nodes added since (`ExtendSession`). A run is one `RunStep` naming its feeds and
//! fetches `node:index` and its targets by node name; the master may answer in any
//! order. A target served by a server of this process is called in-process, without
//! gRPC (as TF's client does).
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::{Mutex, RwLock};

use ferroflow_core::error::{Code, Error, Result};
use ferroflow_core::executor::{RunArgs, RunOutput};
use ferroflow_core::graph::{Graph, NodeId, Output};
use ferroflow_core::session::{PreparedRun, SessionBackend, SessionFactory};
use ferroflow_core::tensor::Tensor;
use ferroflow_proto as pb;

use crate::convert::output_name;
use crate::limits::Limits;
use crate::master::Master;
use crate::runtime::runtime;
use crate::services::master::master_service_client::MasterServiceClient;
use crate::status::{from_body, from_status};
use crate::transport::BoundedChannel;

/// How often a waiting client checks its interrupt (Ctrl-C), as the core's waits do.
const INTERRUPT_POLL: Duration = Duration::from_millis(100);

/// `host:port` of a `grpc://host:port` target.
fn address(target: &str) -> Result<&str> {
    let rest = target
        .strip_prefix("grpc://")
        .ok_or_else(|| Error::invalid_argument(format!("Not a grpc:// target: {target}")))?;
    if rest.is_empty() || rest.contains('/') {
        return Err(Error::invalid_argument(format!("Invalid target: {target}")));
    }
    Ok(rest)
}

/// The masters of the servers started in this process, by target.
static LOCAL_MASTERS: Mutex<Vec<(String, Weak<Master>)>> = Mutex::new(Vec::new());

/// Records a started server's master: sessions for its target call it in-process.
pub(crate) fn register_local_master(target: &str, master: &Arc<Master>) {
    let mut all = LOCAL_MASTERS.lock();
    all.retain(|(t, m)| t != target && m.strong_count() > 0);
    all.push((target.to_string(), Arc::downgrade(master)));
}

/// Forgets a stopped server's master.
pub(crate) fn unregister_local_master(target: &str) {
    LOCAL_MASTERS.lock().retain(|(t, _)| t != target);
}

/// The master a session talks to: a server of this process, called directly (TF's
/// client bypasses gRPC there too), or a remote one.
#[derive(Clone)]
enum MasterHandle {
    Local(Arc<Master>),
    Remote(MasterServiceClient<BoundedChannel>),
}

impl MasterHandle {
    async fn create_session(self, req: pb::CreateSessionRequest) -> Result<pb::CreateSessionResponse> {
        match self {
            MasterHandle::Local(m) => m.create_session(req).await,
            MasterHandle::Remote(mut c) => {
                c.create_session(req).await.map(|r| r.into_inner()).map_err(|s| from_status(&s))
            }
        }
    }

    async fn extend_session(self, req: pb::ExtendSessionRequest) -> Result<pb::ExtendSessionResponse> {
        match self {
            MasterHandle::Local(m) => m.extend_session(req),
            MasterHandle::Remote(mut c) => {
                c.extend_session(req).await.map(|r| r.into_inner()).map_err(|s| from_status(&s))
            }
        }
    }

    /// One step: `req` names the fetches and targets (its `feed` is filled here for a
    /// remote master); the fetched values by name, and the step's stats if traced.
    async fn run_step(
        self,
        req: pb::RunStepRequest,
        feeds: Vec<(String, Tensor)>,
        timeout: Option<Duration>,
    ) -> Result<(Vec<(String, Tensor)>, Option<pb::StepStats>)> {
        match self {
            // In-process: the tensors as they are, no TensorProto copies.
            MasterHandle::Local(m) => {
                let options = req.options.unwrap_or_default();
                let out = m.run_tensors(&req.session_handle, feeds, &req.fetch, &req.target, options).await?;
                Ok((req.fetch.into_iter().zip(out.values).collect(), out.step_stats))
            }
            MasterHandle::Remote(mut c) => {
                let mut request = tonic::Request::new(crate::codec::RunStepRequest::new(req, feeds));
                if let Some(t) = timeout {
                    // A little beyond the run's own deadline, so that the master's
                    // DeadlineExceeded (naming the op that waited) arrives first.
                    request.set_timeout(t + Duration::from_secs(1));
                }
                let resp = c.run_step(request).await.map_err(|s| from_status(&s))?.into_inner();
                if let Some(e) = from_body(resp.message.status_code, &resp.message.status_error_message) {
                    return Err(e);
                }
                Ok((resp.tensors, resp.message.metadata.and_then(|m| m.step_stats)))
            }
        }
    }

    async fn close_session(self, session_handle: String) -> Result<()> {
        match self {
            MasterHandle::Local(m) => m.close_session(&session_handle).await,
            MasterHandle::Remote(mut c) => c
                .close_session(pb::CloseSessionRequest { session_handle })
                .await
                .map(|_| ())
                .map_err(|s| from_status(&s)),
        }
    }

    async fn list_devices(self, session_handle: String) -> Result<pb::ListDevicesResponse> {
        match self {
            MasterHandle::Local(m) => m.list_devices(&session_handle),
            MasterHandle::Remote(mut c) => c
                .list_devices(pb::ListDevicesRequest { session_handle })
                .await
                .map(|r| r.into_inner())
                .map_err(|s| from_status(&s)),
        }
    }

    async fn reset(self, container: Vec<String>) -> Result<()> {
        match self {
            MasterHandle::Local(m) => m.reset(&container).await,
            MasterHandle::Remote(mut c) => c
                .reset(pb::ResetRequest { container, device_filters: Vec::new() })
                .await
                .map(|_| ())
                .map_err(|s| from_status(&s)),
        }
    }
}

/// The master of `target`: in-process when a server of this process serves it; a
/// remote one's responses are bounded by `limits`.
fn connect(target: &str, limits: Limits) -> Result<MasterHandle> {
    if let Some(m) = LOCAL_MASTERS.lock().iter().find(|(t, _)| t == target).and_then(|(_, m)| m.upgrade()) {
        return Ok(MasterHandle::Local(m));
    }
    remote_master(target, limits).map(MasterHandle::Remote)
}

/// A client of the master at `target` (the connection is made on first use).
fn remote_master(target: &str, limits: Limits) -> Result<MasterServiceClient<BoundedChannel>> {
    let rt = runtime()?;
    let _guard = rt.enter();
    Ok(MasterServiceClient::new(crate::transport::channel(address(target)?, "target", limits)?)
        .max_decoding_message_size(i32::MAX as usize)
        .max_encoding_message_size(i32::MAX as usize))
}

/// Runs an RPC future to completion on the network runtime from a plain thread,
/// polling `interrupt` meanwhile; an interrupt aborts the call (the server sees the
/// cancellation) and returns its error.
fn call<T: Send + 'static>(
    fut: impl std::future::Future<Output = Result<T>> + Send + 'static,
    interrupt: Option<&(dyn Fn() -> Result<()> + Sync)>,
) -> Result<T> {
    let rt = runtime()?;
    let task = rt.spawn(fut);
    let Some(check) = interrupt else {
        return rt.block_on(task).map_err(|e| Error::new(Code::Internal, e.to_string()))?;
    };
    let abort = task.abort_handle();
    rt.block_on(async move {
        tokio::pin!(task);
        loop {
            tokio::select! {
                r = &mut task => return r.map_err(|e| Error::new(Code::Cancelled, e.to_string()))?,
                () = tokio::time::sleep(INTERRUPT_POLL) => {
                    if let Err(e) = check() {
                        abort.abort();
                        return Err(e);
                    }
                }
            }
        }
    })
}

/// The remote session's handle and how much of the graph it has.
#[derive(Default)]
struct Remote {
    handle: Option<String>,
    version: i64,
    sent: usize,
}

/// A session whose graph runs on a master reached over gRPC.
pub struct GrpcSession {
    target: String,
    client: MasterHandle,
    graph: Arc<RwLock<Graph>>,
    config: pb::ConfigProto,
    remote: Mutex<Remote>,
    closed: AtomicBool,
    me: Weak<GrpcSession>,
}

impl GrpcSession {
    /// Sends the nodes the master does not have yet (creating the session first).
    fn extend(&self, interrupt: Option<&(dyn Fn() -> Result<()> + Sync)>) -> Result<String> {
        let mut remote = self.remote.lock();
        let len = self.graph.read().len();
        if let Some(h) = &remote.handle
            && remote.sent == len
        {
            return Ok(h.clone());
        }
        let mut def = self.graph.read().to_graph_def(Some(len));
        def.node.drain(..remote.sent);
        let client = self.client.clone();
        match remote.handle.clone() {
            None => {
                let req = pb::CreateSessionRequest {
                    graph_def: Some(def),
                    config: Some(self.config.clone()),
                    target: self.target.clone(),
                };
                // A master of a cluster answers once every task is up (TF's master waits
                // for them too), so the wait must stay interruptible.
                let resp = call(client.create_session(req), interrupt)?;
                remote.handle = Some(resp.session_handle);
                remote.version = resp.graph_version;
            }
            Some(handle) => {
                let req = pb::ExtendSessionRequest {
                    session_handle: handle,
                    graph_def: Some(def),
                    current_graph_version: remote.version,
                };
                let resp = call(client.extend_session(req), interrupt)?;
                remote.version = resp.new_graph_version;
            }
        }
        remote.sent = len;
        Ok(remote.handle.clone().unwrap_or_default())
    }

    fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::new(Code::Cancelled, "Session has been closed."));
        }
        Ok(())
    }
}

/// A run signature of a `grpc://` session: the names it sends in each `RunStep`.
pub struct GrpcRun {
    session: Arc<GrpcSession>,
    feeds: Vec<String>,
    fetches: Vec<String>,
    targets: Vec<String>,
}

impl PreparedRun for GrpcRun {
    fn run(&self, feeds: Vec<Tensor>, args: &RunArgs<'_>) -> Result<RunOutput> {
        self.session.check_open()?;
        let handle = self.session.extend(args.interrupt)?;
        let mut options = pb::RunOptions::default();
        let timeout = args.timeout.or_else(|| {
            u64::try_from(self.session.config.operation_timeout_in_ms)
                .ok()
                .filter(|&m| m > 0)
                .map(Duration::from_millis)
        });
        if let Some(t) = timeout {
            options.timeout_in_ms = i64::try_from(t.as_millis()).unwrap_or(i64::MAX);
        }
        if args.trace {
            options.trace_level = pb::run_options::TraceLevel::FullTrace as i32;
        }
        // TF's client sends each fetch once and matches the answers by name.
        let mut unique: Vec<String> = Vec::new();
        for f in &self.fetches {
            if !unique.contains(f) {
                unique.push(f.clone());
            }
        }
        let req = pb::RunStepRequest {
            session_handle: handle,
            fetch: unique,
            target: self.targets.clone(),
            options: Some(options),
            store_errors_in_response_body: true,
            request_id: crate::request_ids::unique_request_id(),
            ..Default::default()
        };
        let feeds = self.feeds.iter().cloned().zip(feeds).collect();
        let client = self.session.client.clone();
        let (fetched, step_stats) = call(client.run_step(req, feeds, timeout), args.interrupt)?;
        let mut by_name: HashMap<String, Tensor> = HashMap::new();
        for (name, t) in fetched {
            if !self.fetches.contains(&name) {
                return Err(Error::new(Code::Internal, format!("Received response for unrequested fetch: {name}")));
            }
            by_name.insert(name, t);
        }
        let values = self
            .fetches
            .iter()
            .map(|f| {
                by_name.get(f).cloned().ok_or_else(|| Error::new(Code::Internal, format!("No response for fetch {f}")))
            })
            .collect::<Result<Vec<_>>>()?;
        let step_stats = step_stats.or(args.trace.then(pb::StepStats::default));
        Ok(RunOutput { values, step_stats })
    }

    fn num_steps(&self) -> usize {
        0
    }

    fn is_parallel(&self) -> bool {
        true
    }

    fn placement(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

impl SessionBackend for GrpcSession {
    fn prepare(&self, feeds: &[Output], fetches: &[Output], targets: &[NodeId]) -> Result<Arc<dyn PreparedRun>> {
        self.check_open()?;
        let me = self.me.upgrade().ok_or_else(|| Error::new(Code::Cancelled, "Session has been closed."))?;
        let g = self.graph.read();
        let name = |o: &Output| -> Result<String> {
            g.node(o.node)?;
            Ok(output_name(&g, *o))
        };
        Ok(Arc::new(GrpcRun {
            feeds: feeds.iter().map(name).collect::<Result<_>>()?,
            fetches: fetches.iter().map(name).collect::<Result<_>>()?,
            targets: targets.iter().map(|t| g.node(*t).map(|n| n.name.clone())).collect::<Result<_>>()?,
            session: me,
        }))
    }

    fn devices(&self) -> Vec<String> {
        let handle = match self.extend(None) {
            Ok(h) => h,
            Err(_) => return Vec::new(),
        };
        match call(self.client.clone().list_devices(handle), None) {
            Ok(r) => r.local_device.into_iter().chain(r.remote_device).map(|d| d.name).collect(),
            Err(_) => Vec::new(),
        }
    }

    fn close(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        let Some(handle) = self.remote.lock().handle.take() else {
            return;
        };
        // The master forgets the session either way; an unreachable one cannot be told.
        let _ = call(self.client.clone().close_session(handle), None);
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }
}

/// Makes `grpc://` sessions (TF's `GRPC_SESSION` factory).
#[derive(Default)]
pub struct GrpcSessionFactory;

impl SessionFactory for GrpcSessionFactory {
    fn name(&self) -> &str {
        "GRPC_SESSION"
    }

    fn accepts(&self, target: &str) -> bool {
        target.starts_with("grpc://")
    }

    fn new_session(
        &self,
        target: &str,
        graph: Arc<RwLock<Graph>>,
        config: &pb::ConfigProto,
    ) -> Result<Arc<dyn SessionBackend>> {
        // The session's RPCOptions bound what its master may send back.
        let client = connect(target, Limits::from_rpc_options(config.rpc_options.as_ref()))?;
        Ok(Arc::new_cyclic(|me| GrpcSession {
            target: target.to_string(),
            client,
            graph,
            config: config.clone(),
            remote: Mutex::new(Remote::default()),
            closed: AtomicBool::new(false),
            me: Weak::clone(me),
        }))
    }

    fn reset(&self, target: &str, containers: &[String]) -> Result<()> {
        call(connect(target, Limits::default())?.reset(containers.to_vec()), None)
    }
}
