//! Generates the tonic server and client code of TensorFlow's two gRPC services.
//!
//! TF's `.proto` files declare the services in package `tensorflow.grpc`, but TF's
//! runtime serves and calls them as `/tensorflow.MasterService/<Method>` and
//! `/tensorflow.WorkerService/<Method>` (spec/distributed.md §1.1): the services are
//! therefore declared here, in Rust, under package `tensorflow`, over the message types
//! of `ferroflow-proto` (whose field numbers are TF's).
use tonic_build::manual::{Builder, Method, Service};

fn service(name: &str, methods: &[&str]) -> Service {
    let mut b = Service::builder().name(name).package("tensorflow");
    for m in methods {
        // The messages that carry tensors of any size have their own codec, which writes
        // and reads the tensors' bytes without a TensorProto in between (src/codec.rs).
        let (input, output, codec) = match *m {
            "RecvTensor" => (
                "::ferroflow_proto::RecvTensorRequest".to_string(),
                "crate::codec::TensorResponse".to_string(),
                "crate::codec::WireCodec",
            ),
            "RunStep" | "RunGraph" => {
                (format!("crate::codec::{m}Request"), format!("crate::codec::{m}Response"), "crate::codec::WireCodec")
            }
            _ => (
                format!("::ferroflow_proto::{m}Request"),
                format!("::ferroflow_proto::{m}Response"),
                "::tonic_prost::ProstCodec",
            ),
        };
        b = b.method(
            Method::builder()
                .name(snake(m))
                .route_name(*m)
                .input_type(input)
                .output_type(output)
                .codec_path(codec)
                .build(),
        );
    }
    b.build()
}

fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn main() {
    let master = service(
        "MasterService",
        &[
            "CreateSession",
            "ExtendSession",
            "PartialRunSetup",
            "RunStep",
            "CloseSession",
            "ListDevices",
            "Reset",
            "MakeCallable",
            "RunCallable",
            "ReleaseCallable",
        ],
    );
    let worker = service(
        "WorkerService",
        &[
            "GetStatus",
            "CreateWorkerSession",
            "DeleteWorkerSession",
            "RegisterGraph",
            "DeregisterGraph",
            "RunGraph",
            "CleanupGraph",
            "CleanupAll",
            "RecvTensor",
            "MarkRecvFinished",
            "Logging",
            "Tracing",
        ],
    );
    Builder::new().compile(&[master, worker]);
}
