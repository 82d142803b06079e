//! End-to-end through the core alone: build graphs with the op registry, run them in
//! sessions, and check values, errors, pruning, variables and parallel plans.
mod common;

use std::sync::Arc;

use common::Builder;
use ferroflow_core::{AttrValue, Code, DType, PartialShape, Tensor};

#[test]
fn arithmetic_with_feeds_and_fetches() {
    let b = Builder::new();
    let x = b.op(
        "Placeholder",
        "x",
        &[],
        vec![("dtype", AttrValue::Type(DType::Float32)), ("shape", AttrValue::Shape(PartialShape::from_dims([None])))],
    );
    let two = b.constant(Tensor::scalar(2.0f32));
    let y = b.op("Mul", "mul", &[x, two], vec![]);
    let axes = b.constant(Tensor::from_slice(&[1], &[0i32]).unwrap());
    let s = b.op("Sum", "sum", &[y, axes], vec![]);
    assert_eq!(b.graph.read().output_spec(s).unwrap().shape, PartialShape::scalar());
    let sess = b.session(1);
    let out = sess.run_once(&[(x, Tensor::from_slice(&[3], &[1f32, 2., 3.]).unwrap())], &[s, y], &[]).unwrap();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[12.0]);
    assert_eq!(out[1].as_slice::<f32>().unwrap(), &[2.0, 4.0, 6.0]);
    let err = sess.run_once(&[], &[s], &[]).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.node.as_deref(), Some("x"));
    let shape_err = sess.run_once(&[(x, Tensor::scalar(1f32))], &[s], &[]).unwrap_err();
    assert!(shape_err.message.contains("Cannot feed value of shape"), "{}", shape_err.message);
}

#[test]
fn construction_errors_are_value_and_type_errors() {
    let b = Builder::new();
    let f = b.constant(Tensor::from_slice(&[2], &[1f32, 2.]).unwrap());
    let i = b.constant(Tensor::from_slice(&[2], &[1i32, 2]).unwrap());
    let g3 = b.constant(Tensor::from_slice(&[3], &[1f32, 2., 3.]).unwrap());
    let e = b.try_op("AddV2", "add", &[f, i], &[], vec![]).unwrap_err();
    assert_eq!(e.kind, ferroflow_core::error::Kind::Type);
    let e = b.try_op("AddV2", "add", &[f, g3], &[], vec![]).unwrap_err();
    assert_eq!(e.kind, ferroflow_core::error::Kind::Value);
    let e = b.try_op("NoSuchOp", "x", &[], &[], vec![]).unwrap_err();
    assert!(e.message.contains("not registered"));
    let e = b.try_op("Assign", "a", &[f, f], &[], vec![]).unwrap_err();
    assert!(e.message.contains("mutable tensor"));
}

#[test]
fn variables_live_in_sessions_and_control_deps_order_reads() {
    let b = Builder::new();
    let (v, init) = b.int_variable("v", 10);
    let one = b.constant(Tensor::scalar(1i64));
    let inc = b.op("AssignAdd", "inc", &[v, one], vec![]);
    let read = b.try_op("Identity", "read", &[v], &[inc.node], vec![]).unwrap();
    let s1 = b.session(1);
    let s2 = b.session(1);
    let uninit = s1.run_once(&[], &[read], &[]).unwrap_err();
    assert_eq!(uninit.code, Code::FailedPrecondition);
    assert!(uninit.message.contains("uninitialized value v"));
    s1.run_once(&[], &[], &[init.node]).unwrap();
    s2.run_once(&[], &[], &[init.node]).unwrap();
    for expected in 11..14 {
        let out = s1.run_once(&[], &[read], &[]).unwrap();
        assert_eq!(out[0].scalar_value::<i64>().unwrap(), expected);
    }
    assert_eq!(s2.run_once(&[], &[v], &[]).unwrap()[0].scalar_value::<i64>().unwrap(), 10);
    s1.close();
    assert_eq!(s1.run_once(&[], &[v], &[]).unwrap_err().code, Code::Cancelled);
}

#[test]
fn parallel_and_inline_plans_agree() {
    let b = Builder::new();
    let n = 256usize;
    let data: Vec<f32> = (0..n * n).map(|i| ((i % 97) as f32) / 97.0).collect();
    let a = b.constant(Tensor::from_slice(&[n, n], &data).unwrap());
    let axes = b.constant(Tensor::from_slice(&[2], &[0i32, 1]).unwrap());
    let mut sums = Vec::new();
    for k in 0..4 {
        let m = b.op("MatMul", "mm", &[a, a], vec![]);
        let scale = b.constant(Tensor::scalar(k as f32));
        let scaled = b.op("Mul", "scale", &[m, scale], vec![]);
        sums.push(b.op("Sum", "sum", &[scaled, axes], vec![]));
    }
    let left = b.op("AddV2", "l", &[sums[0], sums[1]], vec![]);
    let right = b.op("AddV2", "r", &[sums[2], sums[3]], vec![]);
    let total = b.op("AddV2", "total", &[left, right], vec![]);
    let parallel = b.session(2);
    let plan = parallel.prepare(&[], &[total, sums[3]], &[]).unwrap();
    assert!(plan.is_parallel());
    let got = parallel.run(&plan, vec![]).unwrap();
    let inline = b.session(1);
    let plan1 = inline.prepare(&[], &[total, sums[3]], &[]).unwrap();
    assert!(!plan1.is_parallel());
    let want = inline.run(&plan1, vec![]).unwrap();
    for (g, w) in got.iter().zip(&want) {
        let (g, w) = (g.scalar_value::<f32>().unwrap(), w.scalar_value::<f32>().unwrap());
        assert!((g - w).abs() <= 1e-3 * w.abs(), "{g} vs {w}");
    }

    // Traced, both plans record every step once, with TF's labels, in start order,
    // each node starting after its inputs finished.
    for (sess, plan) in [(&parallel, &plan), (&inline, &plan1)] {
        let (values, stats) = sess.run_traced(plan, vec![], None).unwrap();
        assert_eq!(values.len(), 2);
        assert_eq!(stats.dev_stats.len(), 1);
        let dev = &stats.dev_stats[0];
        assert_eq!(dev.device, "/job:localhost/replica:0/task:0/device:CPU:0");
        assert_eq!(dev.node_stats.len(), plan.num_steps());
        let by_name: std::collections::HashMap<&str, _> =
            dev.node_stats.iter().map(|n| (n.node_name.as_str(), n)).collect();
        assert_eq!(by_name["total"].timeline_label, "total = AddV2(l, r)");
        assert_eq!(by_name["mm"].timeline_label, "mm = MatMul(Const, Const)");
        let out = &by_name["mm"].output[0].tensor_description.as_ref().unwrap();
        assert_eq!(out.allocation_description.as_ref().unwrap().requested_bytes, (n * n * 4) as i64);
        assert!(dev.node_stats.windows(2).all(|w| w[0].all_start_nanos <= w[1].all_start_nanos));
        let end = |name: &str| by_name[name].all_start_nanos + by_name[name].all_end_rel_nanos;
        assert!(end("l") <= by_name["total"].all_start_nanos && end("r") <= by_name["total"].all_start_nanos);
        for ns in &dev.node_stats {
            assert!(0 <= ns.op_start_rel_nanos && ns.op_start_rel_nanos <= ns.op_end_rel_nanos);
            assert!(ns.op_end_rel_nanos <= ns.all_end_rel_nanos);
        }
    }
}

#[test]
fn pruning_skips_unfetched_nodes_and_plans_are_cached() {
    let b = Builder::new();
    let _unfed = b.op(
        "Placeholder",
        "unfed",
        &[],
        vec![("dtype", AttrValue::Type(DType::Float32)), ("shape", AttrValue::Shape(PartialShape::unknown()))],
    );
    let c = b.constant(Tensor::scalar(3i32));
    let d = b.op("Neg", "neg", &[c], vec![]);
    let sess = b.session(1);
    let p1 = sess.prepare(&[], &[d], &[]).unwrap();
    let p2 = sess.prepare(&[], &[d], &[]).unwrap();
    assert!(Arc::ptr_eq(&p1, &p2));
    assert_eq!(p1.num_steps(), 2);
    assert_eq!(sess.run(&p1, vec![]).unwrap()[0].scalar_value::<i32>().unwrap(), -3);
}

#[test]
fn feeding_a_placeholder_satisfies_its_control_edges() {
    // TF redirects a fed placeholder's control edges to the feed: `with
    // tf.control_dependencies([x])` on a placeholder then needs only x fed.
    let b = Builder::new();
    let x = b.placeholder("x");
    let c = b.constant(Tensor::from_slice(&[1], &[4f32]).unwrap());
    let after = b.try_op("Identity", "after", &[c], &[x.node], vec![]).unwrap();
    let sess = b.session(1);
    let fed = sess.run_once(&[(x, Tensor::from_slice(&[1], &[1f32]).unwrap())], &[after], &[]).unwrap();
    assert_eq!(fed[0].as_slice::<f32>().unwrap(), &[4.0]);
    let e = sess.run_once(&[], &[after], &[]).unwrap_err();
    assert!(e.message.contains("You must feed a value for placeholder tensor 'x'"), "{}", e.message);
}
