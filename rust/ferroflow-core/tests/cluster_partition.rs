//! A master's partitioning, end to end without a network: a graph over a ps task and
//! two worker tasks is cut into one `GraphDef` per task, each imported into a graph of
//! its own and run by a session named for its task; one `LocalRendezvous` shared by
//! the three sessions stands in for the network. The results equal the unpartitioned
//! run, and a step failing on one task releases the other tasks' blocked `_Recv`s.
mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::Builder;
use ferroflow_core::device::TaskName;
use ferroflow_core::executor::{ClusterOptions, ClusterPartition, GraphLock, partition_for_cluster};
use ferroflow_core::framework::cancel::RunCancellation;
use ferroflow_core::framework::resource::ResourceMgr;
use ferroflow_core::framework::step::Wait;
use ferroflow_core::proto as pb;
use ferroflow_core::runtime::rendezvous::{LocalRendezvous, Rendezvous, parse_key};
use ferroflow_core::{
    AttrValue, Code, DType, DirectSession, Error, Graph, Output, PartialShape, RunArgs, SessionOptions, Tensor,
};

const PS: &str = "/job:ps/replica:0/task:0/device:CPU:0";
const W0: &str = "/job:worker/replica:0/task:0/device:CPU:0";
const W1: &str = "/job:worker/replica:0/task:1/device:CPU:0";

fn devices() -> Vec<String> {
    vec![PS.to_string(), W1.to_string(), W0.to_string()]
}

fn incarnation(device: &str) -> u64 {
    match device {
        PS => 0x1111_2222_3333_4444,
        W0 => 0x5b7f_6574_af0f_9030,
        _ => 0xffff_0000_ffff_0001,
    }
}

fn options(devices: &[String]) -> ClusterOptions<'_> {
    ClusterOptions { devices, client_device: W0, allow_soft_placement: false }
}

/// A worker's `RegisterGraph`: the GraphDef's nodes in a new graph.
fn import(def: &pb::GraphDef) -> Graph {
    let mut g = Graph::new();
    g.extend_from_graph_def(def).unwrap();
    g
}

/// Runs every partition of `parts` on a thread of its own (a session named for its
/// task, sharing that task's resources), all on one rendezvous; injects `feeds` and
/// reads the fetches back, as a master does through `RunGraph`.
fn run_cluster(
    parts: &ClusterPartition,
    resources: &HashMap<TaskName, Arc<ResourceMgr>>,
    feeds: &[Tensor],
) -> ferroflow_core::Result<Vec<Tensor>> {
    let table = LocalRendezvous::new();
    for p in &parts.partitions {
        for f in &p.feeds {
            table.send(&parse_key(&f.key)?, feeds[f.index].clone(), false)?;
        }
    }
    let results: Vec<ferroflow_core::Result<()>> = std::thread::scope(|scope| {
        let runs: Vec<_> = parts
            .partitions
            .iter()
            .map(|p| {
                let table = Arc::clone(&table) as Arc<dyn Rendezvous>;
                scope.spawn(move || {
                    let graph = import(&p.graph_def);
                    for n in graph.nodes() {
                        assert!(n.device.starts_with(&p.task.to_string()), "{} on {}", n.name, n.device);
                    }
                    let all: Vec<usize> = (0..graph.len()).collect();
                    let options = SessionOptions { task: p.task.clone(), inter_op_threads: 2, ..Default::default() };
                    let session = DirectSession::with_resources(
                        Arc::new(GraphLock::new(graph)),
                        options,
                        Arc::clone(&resources[&p.task]),
                    );
                    let plan = session.prepare(&[], &[], &all)?;
                    let args = RunArgs {
                        timeout: Some(Duration::from_secs(20)),
                        rendezvous: Some(table),
                        ..RunArgs::default()
                    };
                    session.run_with(&plan, vec![], &args).map(|_| ())
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    // The master's rule: the first error that is not a derived cancellation.
    let mut errors: Vec<Error> = results.into_iter().filter_map(Result::err).collect();
    errors.sort_by_key(|e| e.code == Code::Cancelled);
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }
    let run = RunCancellation::new(None);
    let closed = std::sync::atomic::AtomicBool::new(false);
    let wait = Wait {
        deadline: None,
        closed: &closed,
        run: &run,
        nonblocking: true,
        rendezvous: None,
        loops: Default::default(),
    };
    let mut out: Vec<Option<Tensor>> = Vec::new();
    for p in &parts.partitions {
        let mut received: HashMap<&str, Tensor> = HashMap::new();
        for f in &p.fetches {
            if !received.contains_key(f.key.as_str()) {
                let (t, dead) = table.recv(&parse_key(&f.key)?, &wait)?;
                assert!(!dead);
                received.insert(&f.key, t);
            }
            if out.len() <= f.index {
                out.resize(f.index + 1, None);
            }
            out[f.index] = Some(received[f.key.as_str()].clone());
        }
    }
    Ok(out.into_iter().map(Option::unwrap).collect())
}

/// The test graph, its nodes on `dev(task)`: a variable `v` on the ps, initialized
/// by `init`; `delta = x * x` on worker 1; `inc = AssignAdd(v, delta)` (colocated
/// with `v`); `y = x @ inc` on worker 0; `z = 10 * x` on worker 1 after `y`.
struct Model {
    b: Builder,
    x: Output,
    init: usize,
    y: Output,
    z: Output,
    v: Output,
}

fn model(dev: impl Fn(&str) -> String) -> Model {
    let b = Builder::new();
    let shape = PartialShape::from_dims([Some(2), Some(2)]);
    let v = b.op_on(
        &dev("/job:ps/task:0"),
        "VariableV2",
        "v",
        &[],
        vec![("dtype", AttrValue::Type(DType::Float32)), ("shape", AttrValue::Shape(shape.clone()))],
    );
    let start = b.constant(Tensor::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap());
    let init = b.op("Assign", "init", &[v, start], vec![]).node;
    let x = b.op_on(
        &dev("/job:worker/task:1"),
        "Placeholder",
        "x",
        &[],
        vec![("dtype", AttrValue::Type(DType::Float32)), ("shape", AttrValue::Shape(shape))],
    );
    let delta = b.op_on(&dev("/job:worker/task:1"), "Mul", "delta", &[x, x], vec![]);
    let inc = b.op("AssignAdd", "inc", &[v, delta], vec![]);
    let y = b.op_on(&dev("/job:worker/task:0"), "MatMul", "y", &[x, inc], vec![]);
    let ten = b.op_on(
        &dev("/job:worker/task:1"),
        "Const",
        "ten",
        &[],
        vec![("value", AttrValue::Tensor(Tensor::scalar(10.0f32)))],
    );
    let z = b.op_full(&dev("/job:worker/task:1"), "Mul", "z", &[ten, x], &[y.node], vec![]);
    Model { b, x, init, y, z, v }
}

fn floats(t: &Tensor) -> Vec<f32> {
    t.as_slice::<f32>().unwrap().to_vec()
}

#[test]
fn partitions_run_on_their_tasks_as_the_whole_graph_runs() {
    let feed = Tensor::from_slice(&[2, 2], &[0.5f32, -1.0, 2.0, 1.5]).unwrap();
    // The unpartitioned run.
    let local = model(|_| String::new());
    let sess = local.b.session(2);
    sess.run_once(&[], &[], &[local.init]).unwrap();
    let expected = sess.run_once(&[(local.x, feed.clone())], &[local.y, local.z, local.y], &[]).unwrap();

    let m = model(str::to_string);
    let graph = m.b.graph.read();
    let devices = devices();
    let init_parts = partition_for_cluster(&graph, &[], &[], &[m.init], &options(&devices), incarnation).unwrap();
    // The initial value's constant asks for no device: it goes to the client device
    // (worker 0), and its value is sent to the ps.
    let init_tasks: Vec<String> = init_parts.partitions.iter().map(|p| p.task.to_string()).collect();
    assert_eq!(init_tasks, ["/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0"]);
    let parts = partition_for_cluster(&graph, &[m.x], &[m.y, m.z, m.y], &[], &options(&devices), incarnation).unwrap();
    let tasks: Vec<String> = parts.partitions.iter().map(|p| p.task.to_string()).collect();
    assert_eq!(tasks, ["/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"]);

    // The layout: feeds and fetches on the client device's task, TF's names and keys.
    let client = parts.partition(&TaskName::new("worker", 0, 0)).unwrap();
    assert_eq!(client.feeds.len(), 1);
    assert_eq!(client.feeds[0].tensor, "x:0");
    assert_eq!(client.feeds[0].key, format!("{W0};5b7f6574af0f9030;{W0};x:0;0:0"));
    let fetch_keys: Vec<&str> = client.fetches.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(fetch_keys[0], fetch_keys[2], "a tensor fetched twice has one key");
    assert!(fetch_keys[1].ends_with(";z:0;0:0"));
    let def = |task: &str, name: &str| -> pb::NodeDef {
        let p = parts.partition(&TaskName::parse(task).unwrap()).unwrap();
        p.graph_def.node.iter().find(|n| n.name == name).cloned().unwrap_or_else(|| panic!("{name} not on {task}"))
    };
    let recv_x = def("/job:worker/replica:0/task:0", "_recv_x_0");
    assert_eq!(recv_x.op, "_Recv");
    assert_eq!(recv_x.device, W0);
    let attr = |n: &pb::NodeDef, a: &str| n.attr[a].clone();
    assert_eq!(attr(&recv_x, "client_terminated"), AttrValue::B(true).to_proto());
    assert_eq!(attr(&recv_x, "send_device"), AttrValue::S(W0.as_bytes().to_vec()).to_proto());
    assert_eq!(attr(&recv_x, "send_device_incarnation"), AttrValue::I(0x5b7f_6574_af0f_9030).to_proto());
    let send_z = def("/job:worker/replica:0/task:0", "_send_z_0");
    assert_eq!((send_z.op.as_str(), attr(&send_z, "tensor_name")), ("_Send", AttrValue::S(b"z:0".to_vec()).to_proto()));
    // The variable and its update keep their names on the ps.
    assert_eq!(def("/job:ps/replica:0/task:0", "v").device, PS);
    assert_eq!(def("/job:ps/replica:0/task:0", "inc").device, PS);
    // Worker 1 receives the fed `x` once, though two of its nodes read it.
    let w1 = parts.partition(&TaskName::new("worker", 0, 1)).unwrap();
    let x_recvs: Vec<&pb::NodeDef> = w1
        .graph_def
        .node
        .iter()
        .filter(|n| {
            n.op == "_Recv"
                && matches!(AttrValue::from_proto(&attr(n, "tensor_name")), Some(AttrValue::S(t)) if t.ends_with(b"__recv_x_0"))
        })
        .collect();
    assert_eq!(x_recvs.len(), 1, "one pair per (output, task)");
    assert_eq!(attr(x_recvs[0], "send_device"), AttrValue::S(W0.as_bytes().to_vec()).to_proto());
    assert_eq!(attr(x_recvs[0], "recv_device"), AttrValue::S(W1.as_bytes().to_vec()).to_proto());
    assert_eq!(attr(x_recvs[0], "send_device_incarnation"), AttrValue::I(0x5b7f_6574_af0f_9030).to_proto());
    // The control edge y -> z crosses tasks through TF's dummy constant.
    assert!(parts.partitions.iter().flat_map(|p| &p.graph_def.node).any(|n| n.name.starts_with("y/ctrl_S")));
    for p in &parts.partitions {
        for n in &p.graph_def.node {
            assert!(n.device.starts_with(&p.task.to_string()) && n.device.ends_with("/device:CPU:0"), "{n:?}");
        }
    }

    let resources: HashMap<TaskName, Arc<ResourceMgr>> =
        parts.partitions.iter().map(|p| (p.task.clone(), Arc::new(ResourceMgr::new()))).collect();
    run_cluster(&init_parts, &resources, &[]).unwrap();
    let got = run_cluster(&parts, &resources, std::slice::from_ref(&feed)).unwrap();
    assert_eq!(got.len(), 3);
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(floats(g), floats(e));
    }
    // The variable lives on in the ps's resources: a second step sees the first's update.
    let expected = sess.run_once(&[(local.x, feed.clone())], &[local.y, local.z, local.y], &[]).unwrap();
    let got = run_cluster(&parts, &resources, &[feed]).unwrap();
    assert_eq!(floats(&got[0]), floats(&expected[0]));
    let _ = m.v;
}

#[test]
fn a_failing_task_releases_the_others() {
    let b = Builder::new();
    let nan = b.op_on(
        "/job:worker/task:1",
        "Const",
        "nan",
        &[],
        vec![("value", AttrValue::Tensor(Tensor::scalar(f32::NAN)))],
    );
    let bad = b.op_on(
        "/job:worker/task:1",
        "CheckNumerics",
        "bad",
        &[nan],
        vec![("message", AttrValue::S(b"bad value".to_vec()))],
    );
    let on_w0 = b.op_on("/job:worker/task:0", "Square", "on_w0", &[bad], vec![]);
    let on_ps = b.op_on("/job:ps/task:0", "Neg", "on_ps", &[bad], vec![]);
    let graph = b.graph.read();
    let devices = devices();
    let parts = partition_for_cluster(&graph, &[], &[on_w0, on_ps], &[], &options(&devices), incarnation).unwrap();
    assert_eq!(parts.partitions.len(), 3);
    let resources: HashMap<TaskName, Arc<ResourceMgr>> =
        parts.partitions.iter().map(|p| (p.task.clone(), Arc::new(ResourceMgr::new()))).collect();
    let start = Instant::now();
    let e = run_cluster(&parts, &resources, &[]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(e.message.contains("bad value"), "{e}");
    assert!(start.elapsed() < Duration::from_secs(10), "the blocked receivers were released");
}

#[test]
fn placement_errors_are_tfs() {
    let b = Builder::new();
    let c =
        b.op_on("/job:worker/task:7", "Const", "c", &[], vec![("value", AttrValue::Tensor(Tensor::scalar(1.0f32)))]);
    let graph = b.graph.read();
    let devices = devices();
    let e = partition_for_cluster(&graph, &[], &[c], &[], &options(&devices), incarnation).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.starts_with("Cannot assign a device for operation c: {{node c}} was explicitly assigned to /job:worker/task:7 but available devices are [ "),
        "{}",
        e.message
    );
    let bad_client = ClusterOptions { client_device: "/job:chief/replica:0/task:0/device:CPU:0", ..options(&devices) };
    let e = partition_for_cluster(&graph, &[], &[], &[], &bad_client, incarnation).unwrap_err();
    assert_eq!(e.message, "/job:chief/replica:0/task:0/device:CPU:0 unknown device.");
    // A session named for a task places nodes of that task and refuses another's.
    let g = Builder::new();
    let here =
        g.op_on("/job:ps/task:1", "Const", "here", &[], vec![("value", AttrValue::Tensor(Tensor::scalar(2.0f32)))]);
    let there =
        g.op_on("/job:ps/task:0", "Const", "there", &[], vec![("value", AttrValue::Tensor(Tensor::scalar(3.0f32)))]);
    let sess = g.session_with(SessionOptions { task: TaskName::new("ps", 0, 1), ..Default::default() });
    let plan = sess.prepare(&[], &[here], &[]).unwrap();
    assert_eq!(plan.placement(), [("here", "/job:ps/replica:0/task:1/device:CPU:0")]);
    let e = sess.prepare(&[], &[there], &[]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("was explicitly assigned to /job:ps/task:0 but available devices are [ /job:ps/replica:0/task:1/device:CPU:0 ]"), "{}", e.message);
}
