//! The session backend of `grpc://` targets: TF's `GrpcSession`.
//!
//! The graph is sent lazily, as TF's client does: the first run creates the remote
//! session with every node so far (`CreateSession`), later runs first send only the
//! nodes added since (`ExtendSession`). A run is one `RunStep` naming its feeds and
//! fetches `node:index` and its targets by node name; the master may answer in any
//! order. A target served by a server of this process is still called over gRPC on
//! loopback (TF's client bypasses the network there).
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use tonic::transport::{Channel, Endpoint};

use ferroflow_core::error::{Code, Error, Result};
use ferroflow_core::executor::{RunArgs, RunOutput};
use ferroflow_core::graph::{Graph, NodeId, Output};
use ferroflow_core::session::{PreparedRun, SessionBackend, SessionFactory};
use ferroflow_core::tensor::Tensor;
use ferroflow_proto as pb;

use crate::convert::{named, output_name, tensor_of};
use crate::runtime::runtime;
use crate::services::master::master_service_client::MasterServiceClient;
use crate::status::{from_body, from_status};

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

/// A client of the master at `target` (the connection is made on first use).
fn connect(target: &str) -> Result<MasterServiceClient<Channel>> {
    let rt = runtime()?;
    let _guard = rt.enter();
    let endpoint = Endpoint::from_shared(format!("http://{}", address(target)?))
        .map_err(|e| Error::invalid_argument(format!("Invalid target {target}: {e}")))?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(20));
    Ok(MasterServiceClient::new(endpoint.connect_lazy())
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
    client: MasterServiceClient<Channel>,
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
        let mut client = self.client.clone();
        match remote.handle.clone() {
            None => {
                let req = pb::CreateSessionRequest {
                    graph_def: Some(def),
                    config: Some(self.config.clone()),
                    target: self.target.clone(),
                };
                // A master of a cluster answers once every task is up (TF's master waits
                // for them too), so the wait must stay interruptible.
                let resp =
                    call(async move { client.create_session(req).await.map_err(|s| from_status(&s)) }, interrupt)?;
                let resp = resp.into_inner();
                remote.handle = Some(resp.session_handle);
                remote.version = resp.graph_version;
            }
            Some(handle) => {
                let req = pb::ExtendSessionRequest {
                    session_handle: handle,
                    graph_def: Some(def),
                    current_graph_version: remote.version,
                };
                let resp =
                    call(async move { client.extend_session(req).await.map_err(|s| from_status(&s)) }, interrupt)?;
                remote.version = resp.into_inner().new_graph_version;
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
            feed: self.feeds.iter().zip(&feeds).map(|(n, t)| named(n.clone(), t)).collect(),
            fetch: unique,
            target: self.targets.clone(),
            options: Some(options),
            store_errors_in_response_body: true,
            request_id: i64::try_from(crate::server::random_u64() >> 1).unwrap_or(1).max(1),
            ..Default::default()
        };
        let mut client = self.session.client.clone();
        let mut request = tonic::Request::new(req);
        if let Some(t) = timeout {
            request.set_timeout(t);
        }
        let resp = call(async move { client.run_step(request).await.map_err(|s| from_status(&s)) }, args.interrupt)?
            .into_inner();
        if let Some(e) = from_body(resp.status_code, &resp.status_error_message) {
            return Err(e);
        }
        let mut by_name: HashMap<&str, &pb::NamedTensorProto> = HashMap::new();
        for t in &resp.tensor {
            if !self.fetches.contains(&t.name) {
                return Err(Error::new(Code::Internal, format!("Received response for unrequested fetch: {}", t.name)));
            }
            by_name.insert(t.name.as_str(), t);
        }
        let values = self
            .fetches
            .iter()
            .map(|f| {
                by_name
                    .get(f.as_str())
                    .ok_or_else(|| Error::new(Code::Internal, format!("No response for fetch {f}")))
                    .and_then(|t| tensor_of(t))
            })
            .collect::<Result<Vec<_>>>()?;
        let step_stats = resp.metadata.and_then(|m| m.step_stats).or(args.trace.then(pb::StepStats::default));
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
        let mut client = self.client.clone();
        let req = pb::ListDevicesRequest { session_handle: handle };
        match call(async move { client.list_devices(req).await.map_err(|s| from_status(&s)) }, None) {
            Ok(r) => {
                let r = r.into_inner();
                r.local_device.into_iter().chain(r.remote_device).map(|d| d.name).collect()
            }
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
        let mut client = self.client.clone();
        let req = pb::CloseSessionRequest { session_handle: handle };
        // The master forgets the session either way; an unreachable one cannot be told.
        let _ = call(async move { client.close_session(req).await.map_err(|s| from_status(&s)) }, None);
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
        let client = connect(target)?;
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
        let mut client = connect(target)?;
        let req = pb::ResetRequest { container: containers.to_vec(), device_filters: Vec::new() };
        call(async move { client.reset(req).await.map_err(|s| from_status(&s)) }, None)?;
        Ok(())
    }
}
