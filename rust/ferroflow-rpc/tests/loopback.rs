//! The rpc crate on its own: real `tf.train.Server`s on loopback, driven through the
//! `grpc://` session backend it registers with the core (TF's client -> master ->
//! worker path): a session's create, run and close; the devices a task reports; a
//! step partitioned over two tasks (a cross-task `RecvTensor`); a step that fails on a
//! worker; a peer that dies between steps.
use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferroflow_core::error::Code;
use ferroflow_core::executor::RunArgs;
use ferroflow_core::session::SessionBackend;
use ferroflow_core::{AttrValue, DType, Graph, NodeSpec, Output, PartialShape, Tensor};
use ferroflow_proto as pb;
use ferroflow_rpc::server::GrpcServer;
use parking_lot::RwLock;

const JOB: &str = "worker";

/// Free loopback ports for the tasks of a cluster (bound, then released).
fn free_ports(n: usize) -> Vec<u16> {
    let listeners: Vec<TcpListener> = (0..n).map(|_| TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    listeners.iter().map(|l| l.local_addr().unwrap().port()).collect()
}

/// Started servers for every task of a one-job cluster on `ports`.
fn cluster(ports: &[u16]) -> Vec<Arc<GrpcServer>> {
    let mut job = pb::JobDef { name: JOB.into(), ..Default::default() };
    for (i, p) in ports.iter().enumerate() {
        job.tasks.insert(i as i32, format!("localhost:{p}"));
    }
    (0..ports.len())
        .map(|i| {
            let def = pb::ServerDef {
                cluster: Some(pb::ClusterDef { job: vec![job.clone()] }),
                job_name: JOB.into(),
                task_index: i as i32,
                protocol: "grpc".into(),
                ..Default::default()
            };
            let server = GrpcServer::new(def).unwrap();
            server.start().unwrap();
            server
        })
        .collect()
}

/// Adds a node; its first output.
fn add(
    g: &mut Graph,
    name: &str,
    op: &str,
    inputs: Vec<Output>,
    attrs: Vec<(&str, AttrValue)>,
    device: &str,
) -> Output {
    let node = g
        .add_node(NodeSpec {
            name: name.into(),
            op: op.into(),
            inputs,
            control_inputs: Vec::new(),
            attrs: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            device: device.into(),
        })
        .unwrap();
    Output { node, index: 0 }
}

fn constant(g: &mut Graph, name: &str, values: &[f32], device: &str) -> Output {
    let value = Tensor::from_slice(&[values.len()], values).unwrap();
    add(g, name, "Const", vec![], vec![("value", AttrValue::Tensor(value))], device)
}

fn session(target: &str, g: Graph) -> Arc<dyn SessionBackend> {
    ferroflow_rpc::register();
    ferroflow_core::session::new_session(target, Arc::new(RwLock::new(g)), &pb::ConfigProto::default()).unwrap()
}

fn args(timeout: Duration) -> RunArgs<'static> {
    RunArgs { timeout: Some(timeout), trace: false, interrupt: None, rendezvous: None }
}

fn floats(t: &Tensor) -> Vec<f32> {
    t.as_slice::<f32>().unwrap().to_vec()
}

#[test]
fn a_session_is_created_run_and_closed_on_its_server() {
    let servers = cluster(&free_ports(1));
    let mut g = Graph::new();
    let a = constant(&mut g, "a", &[1.0, 2.0], "");
    let b = constant(&mut g, "b", &[10.0, 20.0], "");
    let y = add(&mut g, "y", "AddV2", vec![a, b], vec![], "");
    let s = session(servers[0].target(), g);
    assert!(s.devices().iter().any(|d| d.ends_with("/job:worker/replica:0/task:0/device:CPU:0")));
    let run = s.prepare(&[], &[y], &[]).unwrap();
    for _ in 0..3 {
        let out = run.run(Vec::new(), &args(Duration::from_secs(30))).unwrap();
        assert_eq!(floats(&out.values[0]), [11.0, 22.0]);
    }
    s.close();
    assert!(s.is_closed());
    assert!(run.run(Vec::new(), &args(Duration::from_secs(30))).is_err(), "a closed session still ran");
    servers[0].stop();
}

#[test]
fn get_status_reports_the_task_devices_as_the_core_describes_them() {
    let ports = free_ports(1);
    let servers = cluster(&ports);
    let mut client = ferroflow_rpc::worker::worker_client(&format!("localhost:{}", ports[0])).unwrap();
    let rt = ferroflow_rpc::runtime::runtime().unwrap();
    let status = rt.block_on(client.get_status(pb::GetStatusRequest {})).unwrap().into_inner();
    let cpu = ferroflow_core::device::describe(ferroflow_core::device::CPU, 0);
    let [device] = status.device_attributes.as_slice() else { panic!("{status:?}") };
    assert_eq!(device.name, "/job:worker/replica:0/task:0/device:CPU:0");
    assert_eq!(device.memory_limit, cpu.memory_limit as i64);
    // TF's CPU device: a locality message, with no bus or node in it.
    let locality = device.locality.clone().expect("no locality");
    assert_eq!((locality.bus_id, locality.numa_node), (cpu.locality.bus_id, cpu.locality.numa_node));
    assert_eq!((locality.bus_id, locality.numa_node, locality.links), (0, 0, None));
    servers[0].stop();
}

#[test]
fn a_step_partitioned_over_two_tasks_receives_its_tensors_across() {
    let servers = cluster(&free_ports(2));
    let mut g = Graph::new();
    let t0 = "/job:worker/replica:0/task:0/device:CPU:0";
    let t1 = "/job:worker/replica:0/task:1/device:CPU:0";
    let a = constant(&mut g, "a", &[1.0, 2.0, 3.0], t0);
    let b = constant(&mut g, "b", &[4.0, 5.0, 6.0], t1);
    // Computed on task 1 from a value of task 0, then back on task 0: two RecvTensors.
    let prod = add(&mut g, "prod", "Mul", vec![a, b], vec![], t1);
    let x = add(
        &mut g,
        "x",
        "Placeholder",
        vec![],
        vec![("dtype", AttrValue::Type(DType::Float32)), ("shape", AttrValue::Shape(PartialShape::unknown()))],
        t1,
    );
    let y = add(&mut g, "y", "AddV2", vec![prod, x], vec![], t0);
    let s = session(servers[0].target(), g);
    let run = s.prepare(&[x], &[y, prod], &[]).unwrap();
    let feed = Tensor::from_slice(&[3], &[0.5f32, 0.5, 0.5]).unwrap();
    let out = run.run(vec![feed], &args(Duration::from_secs(30))).unwrap();
    assert_eq!(floats(&out.values[0]), [4.5, 10.5, 18.5]);
    assert_eq!(floats(&out.values[1]), [4.0, 10.0, 18.0]);
    s.close();
    servers.iter().for_each(|s| s.stop());
}

#[test]
fn a_step_that_fails_on_a_worker_reports_tfs_error_and_the_session_goes_on() {
    let servers = cluster(&free_ports(2));
    let mut g = Graph::new();
    let t1 = "/job:worker/replica:0/task:1/device:CPU:0";
    let a = constant(&mut g, "a", &[1.0, 2.0, 3.0], t1);
    let shape = add(
        &mut g,
        "shape",
        "Placeholder",
        vec![],
        vec![("dtype", AttrValue::Type(DType::Int32)), ("shape", AttrValue::Shape(PartialShape::unknown()))],
        "",
    );
    let y = add(&mut g, "reshaped", "Reshape", vec![a, shape], vec![], t1);
    let s = session(servers[0].target(), g);
    let run = s.prepare(&[shape], &[y], &[]).unwrap();
    let bad = Tensor::from_slice(&[1], &[2i32]).unwrap();
    let e = run.run(vec![bad], &args(Duration::from_secs(30))).err().expect("a 3-element reshape to [2] ran");
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(e.message.contains("reshape"), "{e}");
    let good = Tensor::from_slice(&[2], &[3i32, 1]).unwrap();
    let out = run.run(vec![good], &args(Duration::from_secs(30))).unwrap();
    assert_eq!(out.values[0].shape(), [3, 1]);
    s.close();
    servers.iter().for_each(|s| s.stop());
}

#[test]
fn a_peer_that_dies_fails_the_next_step_promptly_instead_of_hanging() {
    let servers = cluster(&free_ports(2));
    let mut g = Graph::new();
    let t1 = "/job:worker/replica:0/task:1/device:CPU:0";
    let a = constant(&mut g, "a", &[1.0], "");
    let b = constant(&mut g, "b", &[2.0], t1);
    let y = add(&mut g, "y", "AddV2", vec![a, b], vec![], "");
    let s = session(servers[0].target(), g);
    let run = s.prepare(&[], &[y], &[]).unwrap();
    assert_eq!(floats(&run.run(Vec::new(), &args(Duration::from_secs(30))).unwrap().values[0]), [3.0]);
    servers[1].stop();
    assert!(servers[1].wait(Some(Duration::from_secs(10))).unwrap(), "the server did not stop");
    let started = Instant::now();
    let e = run.run(Vec::new(), &args(Duration::from_secs(60))).err().expect("ran without its peer");
    assert!(matches!(e.code, Code::Unavailable | Code::Aborted), "unexpected error for a dead peer: {e}");
    assert!(started.elapsed() < Duration::from_secs(30), "the step waited {:?}", started.elapsed());
    s.close();
    servers[0].stop();
}
