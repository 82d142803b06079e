//! TF's `WorkerService` served by a ferroflow server: what a master (TF's or
//! ferroflow's) calls to run the partition of a step that lives on this task.
use std::collections::HashSet;
use std::sync::Arc;

use parking_lot::Mutex;
use tonic::{Request, Response, Status};

use ferroflow_proto as pb;

use crate::server::ServerState;
use crate::services::worker::worker_service_server::WorkerService;

/// The worker of one server.
pub struct Worker {
    state: Arc<ServerState>,
    sessions: Mutex<HashSet<String>>,
}

impl Worker {
    /// A worker over a server's shared state.
    pub fn new(state: Arc<ServerState>) -> Arc<Worker> {
        Arc::new(Worker { state, sessions: Mutex::new(HashSet::new()) })
    }
}

type Reply<T> = std::result::Result<Response<T>, Status>;

fn not_yet(what: &str) -> Status {
    Status::unimplemented(format!("{what}: this ferroflow worker does not run partitioned graphs yet"))
}

#[tonic::async_trait]
impl WorkerService for Worker {
    async fn get_status(&self, _req: Request<pb::GetStatusRequest>) -> Reply<pb::GetStatusResponse> {
        Ok(Response::new(pb::GetStatusResponse { device_attributes: self.state.devices.clone() }))
    }

    async fn create_worker_session(
        &self,
        req: Request<pb::CreateWorkerSessionRequest>,
    ) -> Reply<pb::CreateWorkerSessionResponse> {
        self.sessions.lock().insert(req.into_inner().session_handle);
        Ok(Response::new(pb::CreateWorkerSessionResponse {}))
    }

    async fn delete_worker_session(
        &self,
        req: Request<pb::DeleteWorkerSessionRequest>,
    ) -> Reply<pb::DeleteWorkerSessionResponse> {
        self.sessions.lock().remove(&req.into_inner().session_handle);
        Ok(Response::new(pb::DeleteWorkerSessionResponse {}))
    }

    async fn register_graph(&self, _req: Request<pb::RegisterGraphRequest>) -> Reply<pb::RegisterGraphResponse> {
        Err(not_yet("RegisterGraph"))
    }

    async fn deregister_graph(&self, _req: Request<pb::DeregisterGraphRequest>) -> Reply<pb::DeregisterGraphResponse> {
        Ok(Response::new(pb::DeregisterGraphResponse {}))
    }

    async fn run_graph(&self, _req: Request<pb::RunGraphRequest>) -> Reply<pb::RunGraphResponse> {
        Err(not_yet("RunGraph"))
    }

    async fn cleanup_graph(&self, _req: Request<pb::CleanupGraphRequest>) -> Reply<pb::CleanupGraphResponse> {
        Ok(Response::new(pb::CleanupGraphResponse {}))
    }

    async fn cleanup_all(&self, req: Request<pb::CleanupAllRequest>) -> Reply<pb::CleanupAllResponse> {
        self.state.resources.clear_containers(&req.into_inner().container);
        Ok(Response::new(pb::CleanupAllResponse {}))
    }

    async fn recv_tensor(&self, _req: Request<pb::RecvTensorRequest>) -> Reply<pb::RecvTensorResponse> {
        Err(not_yet("RecvTensor"))
    }

    async fn mark_recv_finished(
        &self,
        _req: Request<pb::MarkRecvFinishedRequest>,
    ) -> Reply<pb::MarkRecvFinishedResponse> {
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
