//! `tf.train.Server`: one gRPC server serving TF's MasterService and WorkerService
//! for one task of a cluster.
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::watch;

use ferroflow_core::error::{Code, Error, Result};
use ferroflow_proto as pb;

use crate::deadline::AnswerDeadlines;
use crate::limits::{BoundRequests, Limits};
use crate::master::Master;
use crate::runtime::runtime;
use crate::services::master::master_service_server::MasterServiceServer;
use crate::services::worker::worker_service_server::WorkerServiceServer;
use crate::state::ServerState;
use crate::worker::Worker;

/// The port and bind address of a task's cluster entry: TF binds every interface,
/// ferroflow only loopback when the entry names this machine by a loopback name.
fn bind_address(server_def: &pb::ServerDef) -> Result<SocketAddr> {
    let cluster = server_def.cluster.as_ref().ok_or_else(|| Error::invalid_argument("ServerDef has no cluster"))?;
    let job = cluster.job.iter().find(|j| j.name == server_def.job_name).ok_or_else(|| {
        Error::invalid_argument(format!("Job \"{}\" was not defined in cluster", server_def.job_name))
    })?;
    let address = job.tasks.get(&server_def.task_index).ok_or_else(|| {
        Error::invalid_argument(format!(
            "Task {} was not defined in job \"{}\"",
            server_def.task_index, server_def.job_name
        ))
    })?;
    let (host, port) = address
        .rsplit_once(':')
        .ok_or_else(|| Error::invalid_argument(format!("Could not parse port for local server from \"{address}\"")))?;
    let mut port: u16 = port
        .parse()
        .map_err(|_| Error::invalid_argument(format!("Could not parse port for local server from \"{address}\"")))?;
    if server_def.port != 0 {
        port = u16::try_from(server_def.port)
            .map_err(|_| Error::invalid_argument(format!("Invalid port {}", server_def.port)))?;
    }
    let loopback = matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "::1");
    let ip = if loopback { [127, 0, 0, 1] } else { [0, 0, 0, 0] };
    Ok(SocketAddr::from((ip, port)))
}

/// A started (or startable) server.
pub struct GrpcServer {
    state: Arc<ServerState>,
    master: Arc<Master>,
    worker: Arc<Worker>,
    listener: Mutex<Option<TcpListener>>,
    // Set to true to stop serving; `join` waits for the serving task to end.
    stop: watch::Sender<bool>,
    done: watch::Sender<bool>,
}

impl GrpcServer {
    /// Binds the task's port (an error now, as TF, if it is taken) without serving yet.
    pub fn new(server_def: pb::ServerDef) -> Result<Arc<GrpcServer>> {
        if !server_def.protocol.is_empty() && server_def.protocol != "grpc" {
            return Err(Error::new(
                Code::NotFound,
                format!("No server factory registered for the given ServerDef: protocol {:?}", server_def.protocol),
            ));
        }
        let addr = bind_address(&server_def)?;
        let listener = TcpListener::bind(addr)
            .map_err(|e| Error::new(Code::Unavailable, format!("Could not start gRPC server on {addr}: {e}")))?;
        let port = listener.local_addr().map_err(|e| Error::new(Code::Internal, e.to_string()))?.port();
        let state = Arc::new(ServerState::new(server_def, port));
        let (stop, _) = watch::channel(false);
        let (done, _) = watch::channel(false);
        let worker = Worker::new(Arc::clone(&state));
        Ok(Arc::new(GrpcServer {
            master: Master::new(Arc::clone(&state), Arc::clone(&worker)),
            worker,
            state,
            listener: Mutex::new(Some(listener)),
            stop,
            done,
        }))
    }

    /// The shared state (devices, resources, identity).
    pub fn state(&self) -> &Arc<ServerState> {
        &self.state
    }

    /// What this server accepts from a peer: its `default_session_config`'s
    /// `rpc_options` (TF's defaults when unset).
    pub fn limits(&self) -> Limits {
        let config = self.state.server_def.default_session_config.as_ref();
        Limits::from_rpc_options(config.and_then(|c| c.rpc_options.as_ref()))
    }

    /// `grpc://localhost:<port>`.
    pub fn target(&self) -> &str {
        &self.state.target
    }

    /// Starts serving (idempotent, as TF's `Server.start`).
    pub fn start(&self) -> Result<()> {
        let Some(listener) = self.listener.lock().take() else {
            return Ok(());
        };
        let rt = runtime()?;
        listener.set_nonblocking(true).map_err(|e| Error::new(Code::Internal, e.to_string()))?;
        let limits = self.limits();
        // Gzip requests are inflated by the bounding layer (limits.rs) and reach tonic
        // uncompressed; accepting gzip here only keeps it advertised.
        let master = MasterServiceServer::from_arc(Arc::clone(&self.master))
            .max_decoding_message_size(limits.max_message_size)
            .max_encoding_message_size(i32::MAX as usize)
            .accept_compressed(tonic::codec::CompressionEncoding::Gzip);
        let worker = WorkerServiceServer::from_arc(Arc::clone(&self.worker))
            .max_decoding_message_size(limits.max_message_size)
            .max_encoding_message_size(i32::MAX as usize)
            .accept_compressed(tonic::codec::CompressionEncoding::Gzip);
        let mut stop = self.stop.subscribe();
        let done = self.done.clone();
        let _guard = rt.enter();
        let listener =
            tokio::net::TcpListener::from_std(listener).map_err(|e| Error::new(Code::Internal, e.to_string()))?;
        rt.spawn(async move {
            let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
            let shutdown = async move {
                while !*stop.borrow_and_update() {
                    if stop.changed().await.is_err() {
                        break;
                    }
                }
            };
            let _ = crate::transport::server()
                .layer(AnswerDeadlines)
                .layer(BoundRequests(limits))
                .add_service(master)
                .add_service(worker)
                .serve_with_incoming_shutdown(incoming, shutdown)
                .await;
            done.send_replace(true);
        });
        crate::client::register_local_master(&self.state.target, &self.master);
        Ok(())
    }

    /// Blocks until the server stops (TF's `Server.join`: in practice, forever), or
    /// for at most `timeout`; returns whether it stopped.
    pub fn wait(&self, timeout: Option<std::time::Duration>) -> Result<bool> {
        let mut done = self.done.subscribe();
        let stopped = async move {
            while !*done.borrow_and_update() {
                if done.changed().await.is_err() {
                    break;
                }
            }
        };
        let rt = runtime()?;
        Ok(match timeout {
            None => {
                rt.block_on(stopped);
                true
            }
            Some(t) => rt.block_on(async move { tokio::time::timeout(t, stopped).await.is_ok() }),
        })
    }

    /// Stops serving and closes every session on this server.
    pub fn stop(&self) {
        crate::client::unregister_local_master(&self.state.target);
        if let Ok(rt) = runtime() {
            rt.block_on(self.master.close_all());
        }
        self.stop.send_replace(true);
        // A server never started has nothing to wait for.
        if self.listener.lock().take().is_some() {
            self.done.send_replace(true);
        }
    }
}
