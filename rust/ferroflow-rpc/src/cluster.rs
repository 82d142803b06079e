//! A master session over a cluster: TF's `MasterSession`.
//!
//! At creation it asks every task for its devices (`GetStatus`, retried while a task
//! is not up yet, within the session's operation timeout) and opens a worker session
//! on each (`CreateWorkerSession`). Each run signature is partitioned once by task
//! (the core's `partition_for_cluster`: `_Send`/`_Recv` pairs across tasks, feeds and
//! fetches at the master's own CPU) and each partition registered with its task
//! (`RegisterGraph`); every step then sends `RunGraph` to all partitions at once with
//! a fresh step id, and `CleanupGraph` afterwards. The first failing partition cancels
//! the others' calls (their workers then cancel their steps). The master's own task
//! is called in-process, never over gRPC (as TF).
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use tokio::task::JoinSet;

use ferroflow_core::error::{Code, Error, Result};
use ferroflow_core::executor::{ClientTensor, ClusterOptions, partition_for_cluster};
use ferroflow_core::graph::{Graph, NodeId, Output};
use ferroflow_core::tensor::Tensor;
use ferroflow_proto as pb;

use crate::state::{ServerState, random_u64};
use crate::status::{from_body, from_status};
use crate::worker::{Worker, WorkerClient, worker_client};

/// A task's worker: this process's own, or another reached over gRPC.
#[derive(Clone)]
pub enum WorkerHandle {
    /// The master's own task.
    Local(Arc<Worker>),
    /// Another task.
    Remote(WorkerClient),
}

impl WorkerHandle {
    async fn get_status(&self) -> Result<pb::GetStatusResponse> {
        match self {
            WorkerHandle::Local(w) => Ok(w.status()),
            WorkerHandle::Remote(c) => {
                c.clone().get_status(pb::GetStatusRequest {}).await.map(|r| r.into_inner()).map_err(|s| from_status(&s))
            }
        }
    }

    async fn create_worker_session(&self, req: pb::CreateWorkerSessionRequest) -> Result<()> {
        match self {
            WorkerHandle::Local(w) => w.create_worker_session(&req),
            WorkerHandle::Remote(c) => {
                c.clone().create_worker_session(req).await.map(|_| ()).map_err(|s| from_status(&s))
            }
        }
    }

    async fn delete_worker_session(&self, handle: String) -> Result<()> {
        match self {
            WorkerHandle::Local(w) => {
                w.delete_worker_session(&handle);
                Ok(())
            }
            WorkerHandle::Remote(c) => c
                .clone()
                .delete_worker_session(pb::DeleteWorkerSessionRequest { session_handle: handle })
                .await
                .map(|_| ())
                .map_err(|s| from_status(&s)),
        }
    }

    async fn register_graph(&self, req: pb::RegisterGraphRequest) -> Result<String> {
        match self {
            WorkerHandle::Local(w) => w.register_graph(&req).map(|r| r.graph_handle),
            WorkerHandle::Remote(c) => {
                c.clone().register_graph(req).await.map(|r| r.into_inner().graph_handle).map_err(|s| from_status(&s))
            }
        }
    }

    /// `RunGraph` with `send` put under its keys; the `recv_key` values by key. The
    /// master's own task gets the tensors as they are.
    async fn run_graph(&self, req: pb::RunGraphRequest, send: Vec<(String, Tensor)>) -> Result<Vec<(String, Tensor)>> {
        match self {
            WorkerHandle::Local(w) => w.run_graph_tensors(&req, send).await,
            WorkerHandle::Remote(c) => {
                let req = crate::codec::RunGraphRequest::new(req, send);
                let resp = c.clone().run_graph(req).await.map_err(|s| from_status(&s))?.into_inner();
                if let Some(e) = from_body(resp.message.status_code, &resp.message.status_error_message) {
                    return Err(e);
                }
                Ok(resp.tensors)
            }
        }
    }

    async fn cleanup_graph(&self, step_id: i64) {
        match self {
            WorkerHandle::Local(w) => w.cleanup_graph(step_id),
            WorkerHandle::Remote(c) => {
                let _ = c.clone().cleanup_graph(pb::CleanupGraphRequest { step_id }).await;
            }
        }
    }

    async fn cleanup_all(&self, containers: Vec<String>) -> Result<()> {
        match self {
            WorkerHandle::Local(w) => {
                w.cleanup_all(&containers);
                Ok(())
            }
            WorkerHandle::Remote(c) => c
                .clone()
                .cleanup_all(pb::CleanupAllRequest { container: containers })
                .await
                .map(|_| ())
                .map_err(|s| from_status(&s)),
        }
    }
}

/// One task of the session's cluster.
struct Task {
    name: String,
    worker: WorkerHandle,
    devices: Vec<pb::DeviceAttributes>,
}

/// A partition registered with its task.
struct RegisteredPartition {
    task: usize,
    graph_handle: String,
    feeds: Vec<ClientTensor>,
    fetches: Vec<ClientTensor>,
}

type Signature = (Vec<Output>, Vec<Output>, Vec<NodeId>);

/// The cluster a master session runs over, as the master sees it.
pub struct ClusterView {
    /// The tasks and their addresses.
    pub cluster: pb::ClusterDef,
    /// The master's own task's name in it (`/job:J/replica:0/task:T`).
    pub own_task: String,
    /// Whether each task keeps the session's state apart (`isolate_session_state`).
    pub isolate: bool,
}

impl ClusterView {
    /// The server's own cluster, as the server was started.
    pub fn of_server(state: &ServerState, config: &pb::ConfigProto) -> ClusterView {
        ClusterView {
            cluster: state.server_def.cluster.clone().unwrap_or_default(),
            own_task: state.task_name.clone(),
            isolate: config.isolate_session_state,
        }
    }

    /// The cluster a client propagated in `ConfigProto.cluster_def` (TF's "ClusterSpec
    /// propagation"): the master's task is the one at the address the client called
    /// (`target`), and sessions are always isolated unless the config's experimental
    /// `share_session_state_in_clusterspec_propagation` says otherwise (TF's rules and
    /// messages).
    pub fn propagated(
        state: &ServerState,
        cluster: &pb::ClusterDef,
        target: &str,
        config: &pb::ConfigProto,
    ) -> Result<ClusterView> {
        let address = target.strip_prefix("grpc://").unwrap_or(target);
        let mut matches = Vec::new();
        for job in &cluster.job {
            for (task, a) in &job.tasks {
                if a == address {
                    matches.push((job.name.clone(), *task));
                }
            }
        }
        let (job, task) = match matches.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(Error::invalid_argument(format!(
                    "The master (current machine) is not included in the provided cluster_def. {cluster:?}"
                )));
            }
            _ => {
                return Err(Error::invalid_argument(format!(
                    "Found multiple matching tasks that correspond to to the master. Master target: '{target}'. \
                     ClusterDef: {cluster:?}"
                )));
            }
        };
        if job == state.server_def.job_name && task == state.server_def.task_index {
            return Err(Error::invalid_argument(format!(
                "The ClusterSpec names the job and task index to be the same names that were provided when the \
                 server booted. This is currently not allowed. Job: {job}, task index: {task}"
            )));
        }
        let share = config.experimental.as_ref().is_some_and(|e| e.share_session_state_in_clusterspec_propagation);
        Ok(ClusterView {
            cluster: cluster.clone(),
            own_task: format!("/job:{job}/replica:0/task:{task}"),
            isolate: !share,
        })
    }
}

/// A master session whose graph runs across the tasks of a cluster.
pub struct ClusterSession {
    /// The master's own task in the cluster.
    own_task: String,
    handle: String,
    graph: Arc<RwLock<Graph>>,
    tasks: Vec<Task>,
    client_device: String,
    allow_soft_placement: bool,
    registered: Mutex<HashMap<Signature, Arc<Vec<RegisteredPartition>>>>,
}

/// The tasks of `cluster`, by name and address.
fn cluster_tasks(cluster: &pb::ClusterDef) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for job in &cluster.job {
        let mut tasks: Vec<_> = job.tasks.iter().collect();
        tasks.sort();
        for (task, address) in tasks {
            out.push((format!("/job:{}/replica:0/task:{task}", job.name), address.clone()));
        }
    }
    out
}

/// The number of tasks a cluster has.
pub fn num_tasks(cluster: Option<&pb::ClusterDef>) -> usize {
    cluster.map_or(0, |c| c.job.iter().map(|j| j.tasks.len()).sum())
}

/// Whether `filter` (`/job:ps`, `/job:worker/task:1`) admits the task `task`.
fn filter_admits(filter: &str, task: &str) -> bool {
    let field = |s: &str, key: &str| s.split('/').find_map(|p| p.strip_prefix(key)).map(str::to_string);
    let job_ok = field(filter, "job:").is_none_or(|j| field(task, "job:").as_deref() == Some(&j));
    let task_ok = field(filter, "task:").is_none_or(|t| field(task, "task:").as_deref() == Some(&t));
    job_ok && task_ok
}

impl ClusterSession {
    /// Opens a session over `view`'s cluster: waits for every task's `GetStatus`
    /// (or the session's operation timeout), then creates a worker session on each.
    pub async fn create(
        view: ClusterView,
        own: Arc<Worker>,
        handle: String,
        graph: Arc<RwLock<Graph>>,
        config: &pb::ConfigProto,
    ) -> Result<ClusterSession> {
        let ClusterView { cluster, own_task, isolate } = view;
        let deadline = u64::try_from(config.operation_timeout_in_ms)
            .ok()
            .filter(|&ms| ms > 0)
            .map(|ms| Instant::now() + Duration::from_millis(ms));
        let mut tasks = Vec::new();
        for (name, address) in cluster_tasks(&cluster) {
            let is_own = name == own_task;
            if !is_own
                && !config.device_filters.is_empty()
                && !config.device_filters.iter().any(|f| filter_admits(f, &name))
            {
                continue;
            }
            let worker = if is_own {
                WorkerHandle::Local(Arc::clone(&own))
            } else {
                WorkerHandle::Remote(worker_client(&address)?)
            };
            let status = loop {
                match worker.get_status().await {
                    Ok(s) => break s,
                    Err(e) if e.code == Code::Unavailable => {
                        if deadline.is_some_and(|d| Instant::now() >= d) {
                            return Err(Error::new(
                                Code::Unavailable,
                                format!("CreateSession: task {name} at {address} could not be reached: {}", e.message),
                            ));
                        }
                        tokio::time::sleep(Duration::from_millis(250)).await;
                    }
                    Err(e) => return Err(e),
                }
            };
            let mut devices = status.device_attributes;
            for d in &mut devices {
                // TF rewrites names from the wrong task to the queried task's prefix.
                if !d.name.starts_with(&name)
                    && let Some((_, dev)) = d.name.split_once("/device:")
                {
                    d.name = format!("{name}/device:{dev}");
                }
            }
            tasks.push(Task { name, worker, devices });
        }
        for t in &tasks {
            let (job, index) = parse_task(&t.name);
            let req = pb::CreateWorkerSessionRequest {
                session_handle: handle.clone(),
                server_def: Some(pb::ServerDef {
                    cluster: Some(cluster.clone()),
                    job_name: job,
                    task_index: index,
                    protocol: "grpc".into(),
                    ..Default::default()
                }),
                isolate_session_state: isolate,
                ..Default::default()
            };
            t.worker.create_worker_session(req).await?;
        }
        let client_device = format!("{own_task}/device:CPU:0");
        Ok(ClusterSession {
            own_task,
            handle,
            graph,
            tasks,
            client_device,
            allow_soft_placement: config.allow_soft_placement,
            registered: Mutex::new(HashMap::new()),
        })
    }

    /// Every device of the cluster: the master's own task's, and the others'.
    pub fn devices(&self) -> (Vec<pb::DeviceAttributes>, Vec<pb::DeviceAttributes>) {
        let (mut local, mut remote) = (Vec::new(), Vec::new());
        for t in &self.tasks {
            if t.name == self.own_task { local.extend(t.devices.clone()) } else { remote.extend(t.devices.clone()) }
        }
        (local, remote)
    }

    async fn partitions(&self, sig: &Signature) -> Result<Arc<Vec<RegisteredPartition>>> {
        if let Some(p) = self.registered.lock().get(sig) {
            return Ok(Arc::clone(p));
        }
        let names: Vec<String> = self.tasks.iter().flat_map(|t| t.devices.iter().map(|d| d.name.clone())).collect();
        let incarnations: HashMap<&str, u64> =
            self.tasks.iter().flat_map(|t| t.devices.iter().map(|d| (d.name.as_str(), d.incarnation))).collect();
        let partition = {
            let g = self.graph.read();
            let options = ClusterOptions {
                devices: &names,
                client_device: &self.client_device,
                allow_soft_placement: self.allow_soft_placement,
            };
            partition_for_cluster(&g, &sig.0, &sig.1, &sig.2, &options, |d| incarnations.get(d).copied().unwrap_or(0))?
        };
        let mut registered = Vec::new();
        for p in partition.partitions {
            let task_name = p.task.to_string();
            let task = self
                .tasks
                .iter()
                .position(|t| t.name == task_name)
                .ok_or_else(|| Error::new(Code::Internal, format!("no worker for task {task_name}")))?;
            let req = pb::RegisterGraphRequest {
                session_handle: self.handle.clone(),
                create_worker_session_called: true,
                graph_def: Some(p.graph_def),
                ..Default::default()
            };
            let graph_handle = self.tasks[task].worker.register_graph(req).await?;
            registered.push(RegisteredPartition { task, graph_handle, feeds: p.feeds, fetches: p.fetches });
        }
        let registered = Arc::new(registered);
        self.registered.lock().insert(sig.clone(), Arc::clone(&registered));
        Ok(registered)
    }

    /// One step: `RunGraph` on every partition at once, then `CleanupGraph`.
    pub async fn run(&self, sig: Signature, feeds: Vec<Tensor>, timeout: Option<Duration>) -> Result<Vec<Tensor>> {
        let parts = self.partitions(&sig).await?;
        let step_id = i64::try_from(random_u64() & ((1 << 57) - 1)).unwrap_or(1);
        let mut calls = JoinSet::new();
        for (i, p) in parts.iter().enumerate() {
            let mut recv_key: Vec<String> = Vec::new();
            for f in &p.fetches {
                if !recv_key.contains(&f.key) {
                    recv_key.push(f.key.clone());
                }
            }
            let req = pb::RunGraphRequest {
                session_handle: self.handle.clone(),
                create_worker_session_called: true,
                graph_handle: p.graph_handle.clone(),
                step_id,
                recv_key,
                store_errors_in_response_body: true,
                request_id: crate::request_ids::unique_request_id(),
                ..Default::default()
            };
            let send = p.feeds.iter().map(|f| (f.key.clone(), feeds[f.index].clone())).collect();
            let worker = self.tasks[p.task].worker.clone();
            calls.spawn(async move { (i, worker.run_graph(req, send).await) });
        }
        let collect = async {
            let mut responses: Vec<Option<Vec<(String, Tensor)>>> = parts.iter().map(|_| None).collect();
            while let Some(joined) = calls.join_next().await {
                let (i, r) = joined.map_err(|e| Error::new(Code::Internal, e.to_string()))?;
                // The first error ends the step: dropping the set cancels the others.
                responses[i] = Some(r?);
            }
            Ok::<_, Error>(responses)
        };
        let result = match timeout {
            Some(t) => tokio::time::timeout(t, collect)
                .await
                .unwrap_or_else(|_| Err(Error::new(Code::DeadlineExceeded, "Timed out waiting for the step"))),
            None => collect.await,
        };
        calls.abort_all();
        for p in parts.iter() {
            let worker = self.tasks[p.task].worker.clone();
            tokio::spawn(async move { worker.cleanup_graph(step_id).await });
        }
        let responses = result?;
        let mut out: Vec<Option<Tensor>> = vec![None; sig.1.len()];
        for (p, recv) in parts.iter().zip(responses) {
            let by_key: HashMap<String, Tensor> = recv.unwrap_or_default().into_iter().collect();
            for f in &p.fetches {
                let t = by_key
                    .get(f.key.as_str())
                    .ok_or_else(|| Error::new(Code::Internal, format!("No value received for {}", f.tensor)))?;
                out[f.index] = Some(t.clone());
            }
        }
        out.into_iter()
            .enumerate()
            .map(|(i, t)| t.ok_or_else(|| Error::new(Code::Internal, format!("fetch {i} was not produced"))))
            .collect()
    }

    /// Deletes the worker sessions (CloseSession).
    pub async fn close(&self) {
        for t in &self.tasks {
            let _ = t.worker.delete_worker_session(self.handle.clone()).await;
        }
    }

    /// `CleanupAll` on every task (Reset).
    pub async fn cleanup_all(&self, containers: &[String]) -> Result<()> {
        for t in &self.tasks {
            t.worker.cleanup_all(containers.to_vec()).await?;
        }
        Ok(())
    }
}

fn parse_task(name: &str) -> (String, i32) {
    let mut job = String::new();
    let mut task = 0;
    for part in name.split('/') {
        if let Some(j) = part.strip_prefix("job:") {
            job = j.to_string();
        } else if let Some(t) = part.strip_prefix("task:") {
            task = t.parse().unwrap_or(0);
        }
    }
    (job, task)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_filters_match_jobs_and_tasks() {
        assert!(filter_admits("/job:ps", "/job:ps/replica:0/task:3"));
        assert!(!filter_admits("/job:ps", "/job:worker/replica:0/task:0"));
        assert!(filter_admits("/job:worker/task:1", "/job:worker/replica:0/task:1"));
        assert!(!filter_admits("/job:worker/task:1", "/job:worker/replica:0/task:10"));
        assert_eq!(parse_task("/job:worker/replica:0/task:7"), ("worker".to_string(), 7));
    }

    #[test]
    fn cluster_tasks_are_listed_by_job_then_index() {
        let cluster = pb::ClusterDef {
            job: vec![
                pb::JobDef { name: "ps".into(), tasks: [(0, "a:1".to_string())].into() },
                pb::JobDef { name: "worker".into(), tasks: [(1, "c:3".to_string()), (0, "b:2".to_string())].into() },
            ],
        };
        let tasks: Vec<String> = cluster_tasks(&cluster).into_iter().map(|(n, _)| n).collect();
        assert_eq!(tasks, ["/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"]);
        assert_eq!(num_tasks(Some(&cluster)), 3);
    }
}
