//! What every service of one server shares ([`ServerState`]: the task's identity, its
//! devices, the resource containers of its sessions), and the random ids they hand
//! out. The server, master, worker and cluster sessions all build on it.
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ferroflow_core::framework::resource::ResourceMgr;
use ferroflow_proto as pb;

/// A random non-zero 64-bit number (session handles, incarnations, step ids).
pub fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        let v = h.finish();
        if v != 0 {
            return v;
        }
    }
}

/// What every service of one server shares: the task's identity, its devices and
/// the resource containers of all sessions on it.
pub struct ServerState {
    /// The definition it was made from (cluster, job, task, default session config).
    pub server_def: pb::ServerDef,
    /// `/job:<job>/replica:<r>/task:<t>`.
    pub task_name: String,
    /// This task's devices, as GetStatus reports them.
    pub devices: Vec<pb::DeviceAttributes>,
    /// Variables, queues and other resources shared by every session on this server.
    pub resources: Arc<ResourceMgr>,
    /// `grpc://localhost:<port>`.
    pub target: String,
}

impl ServerState {
    /// The state of the task `server_def` names, serving on `port`: its CPU device,
    /// described as the core's device registry describes it.
    pub fn new(server_def: pb::ServerDef, port: u16) -> ServerState {
        let replica = server_def.replica;
        let task_name = format!("/job:{}/replica:{replica}/task:{}", server_def.job_name, server_def.task_index);
        let cpu = ferroflow_core::device::describe(ferroflow_core::device::CPU, 0);
        let devices = vec![pb::DeviceAttributes {
            name: format!("{task_name}/device:CPU:0"),
            device_type: ferroflow_core::device::CPU.into(),
            memory_limit: i64::try_from(cpu.memory_limit).unwrap_or(i64::MAX),
            locality: Some(pb::DeviceLocality {
                bus_id: cpu.locality.bus_id,
                numa_node: cpu.locality.numa_node,
                links: None,
            }),
            incarnation: random_u64(),
            physical_device_desc: cpu.physical_device_desc,
            xla_global_id: -1,
        }];
        ServerState {
            server_def,
            task_name,
            devices,
            resources: Arc::new(ResourceMgr::new()),
            target: format!("grpc://localhost:{port}"),
        }
    }
}
