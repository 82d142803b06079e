//! Random and mutated input against a real `tf.train.Server` on loopback, in-process:
//! raw bytes after the HTTP/2 preface, gRPC messages with any prefix (flag, declared
//! length, compression), and TF's own requests (a graph, a step, a tensor) with bytes
//! flipped, cut or inserted, sent to every master and worker method. Each stream must
//! end (a status, a reset or a closed connection, within a bound), nothing may panic,
//! and the server must answer a good request after every case. Bounded so
//! `cargo test` stays fast.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use ferroflow_core::{AttrValue, DType, Graph, NodeSpec, Output, PartialShape, Tensor};
use ferroflow_proto as pb;
use ferroflow_rpc::runtime::runtime;
use ferroflow_rpc::server::GrpcServer;
use proptest::prelude::*;
use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const METHODS: &[&str] = &[
    "/tensorflow.MasterService/CreateSession",
    "/tensorflow.MasterService/ExtendSession",
    "/tensorflow.MasterService/RunStep",
    "/tensorflow.MasterService/CloseSession",
    "/tensorflow.MasterService/ListDevices",
    "/tensorflow.MasterService/MakeCallable",
    "/tensorflow.WorkerService/GetStatus",
    "/tensorflow.WorkerService/CreateWorkerSession",
    "/tensorflow.WorkerService/RegisterGraph",
    "/tensorflow.WorkerService/RunGraph",
    "/tensorflow.WorkerService/CleanupGraph",
    "/tensorflow.WorkerService/RecvTensor",
    "/tensorflow.WorkerService/Logging",
];

/// Panics anywhere in the process (handlers run on the network runtime's threads).
static PANICS: AtomicUsize = AtomicUsize::new(0);

/// One server for every case, with a short stall timeout and a 1 MiB message limit.
fn server() -> &'static (Arc<GrpcServer>, String) {
    static SERVER: OnceLock<(Arc<GrpcServer>, String)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            previous(info);
        }));
        let mut job = pb::JobDef { name: "fuzz".into(), ..Default::default() };
        job.tasks.insert(0, "localhost:0".into());
        let rpc = pb::RpcOptions {
            max_receive_message_size: 1 << 20,
            stalled_request_timeout_in_ms: 300,
            ..Default::default()
        };
        let def = pb::ServerDef {
            cluster: Some(pb::ClusterDef { job: vec![job] }),
            job_name: "fuzz".into(),
            protocol: "grpc".into(),
            default_session_config: Some(pb::ConfigProto { rpc_options: Some(rpc), ..Default::default() }),
            ..Default::default()
        };
        let s = GrpcServer::new(def).unwrap();
        s.start().unwrap();
        let address = s.target().trim_start_matches("grpc://").to_string();
        (s, address)
    })
}

/// TF's requests, well formed: what the mutations start from.
fn seeds() -> Vec<(usize, Vec<u8>)> {
    let mut g = Graph::new();
    let mut add = |name: &str, op: &str, inputs: Vec<Output>, attrs: Vec<(&str, AttrValue)>| {
        let node = g
            .add_node(NodeSpec {
                name: name.into(),
                op: op.into(),
                inputs,
                control_inputs: Vec::new(),
                attrs: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                device: String::new(),
            })
            .unwrap();
        Output { node, index: 0 }
    };
    let a = add(
        "a",
        "Const",
        vec![],
        vec![("value", AttrValue::Tensor(Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap()))],
    );
    let x = add(
        "x",
        "Placeholder",
        vec![],
        vec![("dtype", AttrValue::Type(DType::Float32)), ("shape", AttrValue::Shape(PartialShape::unknown()))],
    );
    add("y", "AddV2", vec![a, x], vec![]);
    let graph_def = g.to_graph_def(None);
    let feed = pb::NamedTensorProto {
        name: "x:0".into(),
        tensor: Some(Tensor::from_slice(&[2], &[3.0f32, 4.0]).unwrap().to_proto()),
    };
    let key =
        "/job:fuzz/replica:0/task:0/device:CPU:0;0000000000000001;/job:fuzz/replica:0/task:0/device:CPU:0;y:0;0:0";
    vec![
        (0, pb::CreateSessionRequest { graph_def: Some(graph_def.clone()), ..Default::default() }.encode_to_vec()),
        (
            2,
            pb::RunStepRequest {
                session_handle: "0000000000000001".into(),
                feed: vec![feed.clone()],
                fetch: vec!["y:0".into()],
                ..Default::default()
            }
            .encode_to_vec(),
        ),
        (8, pb::RegisterGraphRequest { graph_def: Some(graph_def), ..Default::default() }.encode_to_vec()),
        (9, pb::RunGraphRequest { step_id: 5, send: vec![feed], ..Default::default() }.encode_to_vec()),
        (11, pb::RecvTensorRequest { step_id: 99, rendezvous_key: key.into(), ..Default::default() }.encode_to_vec()),
    ]
}

/// A gRPC message: its flag, its (true or false) declared length, its bytes.
fn framed(flag: u8, declared: u32, payload: &[u8]) -> Bytes {
    let mut out = vec![flag];
    out.extend_from_slice(&declared.to_be_bytes());
    out.extend_from_slice(payload);
    Bytes::from(out)
}

/// Sends one call; returns its `grpc-status` once it ended, or `None` for a reset, a
/// closed connection or a call still open after the bound. Whatever happens is fine
/// for the fuzz cases as long as nothing hangs or panics.
async fn call(address: &str, method: &str, body: Bytes, end: bool, gzip: bool) -> Option<i32> {
    let tcp = tokio::net::TcpStream::connect(address).await.ok()?;
    let (client, connection) = h2::client::handshake(tcp).await.ok()?;
    tokio::spawn(connection);
    let mut client = client.ready().await.ok()?;
    let mut request = http::Request::post(format!("http://{address}{method}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers");
    if gzip {
        request = request.header("grpc-encoding", "gzip");
    }
    let (response, mut stream) = client.send_request(request.body(()).unwrap(), false).ok()?;
    let _ = stream.send_data(body, end);
    let finished = async move {
        let response = response.await.ok()?;
        let status = |h: &http::HeaderMap| h.get("grpc-status")?.to_str().ok()?.parse::<i32>().ok();
        if let Some(code) = status(response.headers()) {
            return Some(code); // trailers-only
        }
        let mut body = response.into_body();
        while let Some(chunk) = body.data().await {
            let chunk = chunk.ok()?;
            let _ = body.flow_control().release_capacity(chunk.len());
        }
        status(&body.trailers().await.ok()??)
    };
    // The server's stall timeout (300 ms) ends a call left open by the client.
    let code = tokio::time::timeout(Duration::from_secs(5), finished).await.ok().flatten();
    drop(stream);
    code
}

/// Raw bytes after a valid HTTP/2 preface; reads until the server closes or 2 s pass.
async fn raw(address: &str, bytes: &[u8]) {
    let Ok(mut tcp) = tokio::net::TcpStream::connect(address).await else { return };
    let _ = tcp.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").await;
    let _ = tcp.write_all(bytes).await;
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while let Ok(n) = tcp.read(&mut sink).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
}

/// The server still serves: `GetStatus` answers with its device.
fn still_serving(address: &str) {
    let rt = runtime().unwrap();
    let mut client = ferroflow_rpc::worker::worker_client(address).unwrap();
    let answer = rt.block_on(async move {
        tokio::time::timeout(Duration::from_secs(10), client.get_status(pb::GetStatusRequest {})).await
    });
    let status = answer.expect("GetStatus timed out").expect("GetStatus failed");
    assert_eq!(status.into_inner().device_attributes.len(), 1);
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a handler panicked");
}

#[test]
fn the_raw_client_sees_statuses() {
    let (_, address) = server();
    let rt = runtime().unwrap();
    let get_status = "/tensorflow.WorkerService/GetStatus";
    assert_eq!(rt.block_on(call(address, get_status, framed(0, 0, &[]), true, false)), Some(0));
    // Declared and not sent: the stall timeout ends it with DEADLINE_EXCEEDED.
    assert_eq!(rt.block_on(call(address, get_status, framed(0, 1000, &[1, 2]), false, false)), Some(4));
    assert_eq!(rt.block_on(call(address, get_status, framed(0, 1 << 30, &[]), false, false)), Some(8));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_after_the_preface(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let (_, address) = server();
        runtime().unwrap().block_on(raw(address, &bytes));
        still_serving(address);
    }

    #[test]
    fn any_message_prefix(
        method in 0..METHODS.len(),
        flag in prop_oneof![Just(0u8), Just(1), any::<u8>()],
        declared in prop_oneof![0u32..64, 64u32..(2 << 20), any::<u32>()],
        payload in proptest::collection::vec(any::<u8>(), 0..128),
        end in any::<bool>(),
        gzip in any::<bool>(),
    ) {
        let (_, address) = server();
        let body = framed(flag, declared, &payload);
        let code = runtime().unwrap().block_on(call(address, METHODS[method], body, end, gzip));
        // A message over the 1 MiB limit is refused as soon as its prefix is read.
        if flag == 0 && declared > 1 << 20 {
            prop_assert_eq!(code, Some(8));
        }
        still_serving(address);
    }

    #[test]
    fn tfs_requests_mutated(
        seed in 0usize..5,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..6),
        to_other_method in any::<bool>(),
        other in 0..METHODS.len(),
    ) {
        let (_, address) = server();
        let (method, mut bytes) = seeds().swap_remove(seed);
        for (at, value, kind) in edits {
            let n = bytes.len().max(1);
            match kind {
                0 if !bytes.is_empty() => bytes[at % n] ^= value.max(1),
                1 => bytes.truncate(at % n),
                _ => bytes.insert(at % (bytes.len() + 1), value),
            }
        }
        let method = if to_other_method { METHODS[other] } else { METHODS[method] };
        let body = framed(0, bytes.len() as u32, &bytes);
        runtime().unwrap().block_on(call(address, method, body, true, false));
        still_serving(address);
    }
}
