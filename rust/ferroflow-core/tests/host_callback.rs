//! The `PyFunc` kernels through the host-callback seam, with a Rust "host" installed
//! in place of Python (a process of its own: the callback is process-wide).
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::Builder;
use ferroflow_core::host::{HostCallback, HostValue, install_host_callback};
use ferroflow_core::{AttrValue, Code, DType, Error, Output, Tensor};

/// Doubles float32 inputs (`double`), returns whatever `Tout` should not be
/// (`wrong_*`), fails (`fail`), or reports an unconvertible value (`int16`).
struct TestHost {
    calls: AtomicUsize,
}

impl HostCallback for TestHost {
    fn call(&self, token: &str, inputs: Vec<Tensor>) -> ferroflow_core::Result<Vec<HostValue>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        match token {
            "double" => Ok(inputs
                .iter()
                .map(|t| {
                    let v: Vec<f32> = t.as_slice::<f32>().unwrap().iter().map(|x| x * 2.0).collect();
                    Ok(Tensor::from_slice(t.shape(), &v).unwrap())
                })
                .collect()),
            "wrong_count" => Ok(vec![Ok(Tensor::scalar(1f32)), Ok(Tensor::scalar(2f32))]),
            "wrong_dtype" => Ok(vec![Ok(Tensor::scalar(1f64))]),
            "int16" => Ok(vec![Err("int16".into())]),
            "none" => Ok(vec![]),
            _ => Err(Error::new(Code::OutOfRange, format!("StopIteration: {token}"))),
        }
    }
}

fn py_func(b: &Builder, op: &str, token: &str, inputs: &[Output], tout: Vec<DType>) -> Output {
    let attrs = vec![("token", AttrValue::S(token.as_bytes().to_vec())), ("Tout", AttrValue::ListType(tout))];
    b.op(op, token, inputs, attrs)
}

#[test]
fn py_func_calls_the_host_and_checks_what_comes_back() {
    static HOST: TestHost = TestHost { calls: AtomicUsize::new(0) };
    struct Forward;
    impl HostCallback for Forward {
        fn call(&self, token: &str, inputs: Vec<Tensor>) -> ferroflow_core::Result<Vec<HostValue>> {
            HOST.call(token, inputs)
        }
    }
    assert!(install_host_callback(Box::new(Forward)));
    assert!(!install_host_callback(Box::new(Forward)), "installed once per process");

    let b = Builder::new();
    let x = b.constant(Tensor::from_slice(&[2], &[1f32, 2.]).unwrap());
    let double = py_func(&b, "PyFunc", "double", &[x, x], vec![DType::Float32, DType::Float32]);
    {
        let g = b.graph.read();
        let spec = g.output_spec(Output { index: 1, ..double }).unwrap();
        assert_eq!(spec.dtype, DType::Float32);
        assert_eq!(spec.shape.rank(), None, "the outputs' static shapes are unknown, as TF's");
        let node = g.node(double.node).unwrap();
        assert_eq!(node.attr::<Vec<DType>>("Tin").unwrap(), Some(vec![DType::Float32, DType::Float32]));
    }
    let stateless = py_func(&b, "PyFuncStateless", "none", &[], vec![]);
    let sess = b.session(1);
    let got = sess.run_once(&[], &[double, Output { index: 1, ..double }], &[stateless.node]).unwrap();
    assert_eq!(got[0].as_slice::<f32>().unwrap(), &[2.0, 4.0]);
    assert_eq!(got[1].as_slice::<f32>().unwrap(), &[2.0, 4.0]);
    assert_eq!(HOST.calls.load(Ordering::SeqCst), 2);

    let cases = [
        ("wrong_count", "wrong_count returns 2 values, but expects to see 1 values.", Code::InvalidArgument),
        ("wrong_dtype", "0-th value returned by wrong_dtype is double, but expects float", Code::InvalidArgument),
        ("int16", "0-th value returned by int16 is int16, but expects float", Code::InvalidArgument),
        ("stop", "StopIteration: stop", Code::OutOfRange),
    ];
    for (token, message, code) in cases {
        let n = py_func(&b, "PyFunc", token, &[x], vec![DType::Float32]);
        let e = sess.run_once(&[], &[n], &[]).unwrap_err();
        assert_eq!((e.code, e.message.as_str(), e.node.as_deref()), (code, message, Some(token)));
    }
    // An empty `Tout` that arrives kindless (an empty list of ints) is an empty list.
    let kindless = vec![("token", AttrValue::S(b"none".to_vec())), ("Tout", AttrValue::ListI(vec![]))];
    let n = b.op("PyFunc", "kindless", &[], kindless).node;
    sess.run_once(&[], &[], &[n]).unwrap();
    assert!(ferroflow_core::ops::lookup("PyFunc").unwrap().stateful);
    assert!(!ferroflow_core::ops::lookup("PyFuncStateless").unwrap().stateful);
}
