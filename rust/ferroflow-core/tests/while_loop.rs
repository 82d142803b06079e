//! The functional `While` loop run natively: cond and body sub-graphs (placeholders
//! for the loop variables, a captured outer tensor fed as an input), many iterations,
//! the gradient op `_WhileGrad` against the closed form, shape-invariant checks at
//! run time, and a loop that never ends stopped by the run's deadline.
mod common;

use std::time::Duration;

use common::Builder;
use ferroflow_core::{AttrValue, Code, DType, Output, PartialShape, RunArgs, Tensor};

fn scalar_placeholder(b: &Builder, name: &str, dtype: DType) -> Output {
    b.op(
        "Placeholder",
        name,
        &[],
        vec![("dtype", AttrValue::Type(dtype)), ("shape", AttrValue::Shape(PartialShape::scalar()))],
    )
}

fn names(b: &Builder, outs: &[Output]) -> AttrValue {
    let g = b.graph.read();
    AttrValue::ListS(
        outs.iter().map(|o| format!("{}:{}", g.node(o.node).unwrap().name, o.index).into_bytes()).collect(),
    )
}

fn name(b: &Builder, o: Output) -> AttrValue {
    let g = b.graph.read();
    AttrValue::S(format!("{}:{}", g.node(o.node).unwrap().name, o.index).into_bytes())
}

/// `while i < n: (i, y) = (i + 1, y * w)` with `w` captured: `y * w^n`.
struct PowerLoop {
    b: Builder,
    i0: Output,
    y0: Output,
    w: Output,
    n: Output,
    feeds: AttrValue,
    cond: AttrValue,
    body: AttrValue,
    body_y: Output,
    pi: Output,
    py: Output,
}

fn power_loop() -> PowerLoop {
    let b = Builder::new();
    let i0 = scalar_placeholder(&b, "i0", DType::Int32);
    let y0 = scalar_placeholder(&b, "y0", DType::Float64);
    let w = scalar_placeholder(&b, "w", DType::Float64);
    let n = scalar_placeholder(&b, "n", DType::Int32);
    let pi = scalar_placeholder(&b, "while/loop_var", DType::Int32);
    let py = scalar_placeholder(&b, "while/loop_var_1", DType::Float64);
    let c = b.op("Less", "while/Less", &[pi, n], vec![]);
    let one = b.constant(Tensor::scalar(1i32));
    let next_i = b.op("AddV2", "while/add", &[pi, one], vec![]);
    let next_y = b.op("Mul", "while/mul", &[py, w], vec![]);
    let feeds = names(&b, &[pi, py, w, n]);
    let cond = name(&b, c);
    let body = names(&b, &[next_i, next_y]);
    PowerLoop { b, i0, y0, w, n, feeds, cond, body, body_y: next_y, pi, py }
}

fn while_op(l: &PowerLoop) -> Output {
    l.b.op(
        "While",
        "while",
        &[l.i0, l.y0, l.w, l.n],
        vec![("_feeds", l.feeds.clone()), ("_cond", l.cond.clone()), ("_body", l.body.clone())],
    )
}

#[test]
fn loops_until_the_cond_is_false() {
    let l = power_loop();
    let w_op = while_op(&l);
    let i_out = Output { node: w_op.node, index: 0 };
    let y_out = Output { node: w_op.node, index: 1 };
    let sess = l.b.session(1);
    for n in [0i32, 1, 5, 1000] {
        let feeds = [
            (l.i0, Tensor::scalar(0i32)),
            (l.y0, Tensor::scalar(3.0f64)),
            (l.w, Tensor::scalar(1.001f64)),
            (l.n, Tensor::scalar(n)),
        ];
        let out = sess.run_once(&feeds, &[i_out, y_out], &[]).unwrap();
        assert_eq!(out[0].scalar_value::<i32>().unwrap(), n);
        let want = 3.0 * 1.001f64.powi(n);
        assert!((out[1].scalar_value::<f64>().unwrap() - want).abs() < 1e-9 * want);
    }
}

#[test]
fn gradient_op_matches_the_closed_form() {
    let l = power_loop();
    let seed = scalar_placeholder(&l.b, "grad/seed", DType::Float64);
    let acc = scalar_placeholder(&l.b, "grad/acc", DType::Float64);
    // VJP of the body: d(y * w)/dy = w, d/dw = y.
    let gy = l.b.op("Mul", "grad/gy", &[seed, l.w], vec![]);
    let gw_step = l.b.op("Mul", "grad/gw", &[seed, l.py], vec![]);
    let gw = l.b.op("AddV2", "grad/acc_w", &[acc, gw_step], vec![]);
    let dy = scalar_placeholder(&l.b, "dy", DType::Float64);
    let dw = scalar_placeholder(&l.b, "dw", DType::Float64);
    let grad = l.b.op(
        "_WhileGrad",
        "while_grad",
        &[l.i0, l.y0, l.w, l.n, dy, dw],
        vec![
            ("_feeds", l.feeds.clone()),
            ("_cond", l.cond.clone()),
            ("_body", l.body.clone()),
            ("_diff", AttrValue::ListI(vec![1, 2])),
            ("_grad_feeds", names(&l.b, &[seed, acc])),
            ("_grad_fetches", names(&l.b, &[gy, gw])),
        ],
    );
    let _ = (l.body_y, l.pi);
    let sess = l.b.session(1);
    let (y0, w, n) = (1.5f64, 0.7f64, 4i32);
    let feeds = [
        (l.i0, Tensor::scalar(0i32)),
        (l.y0, Tensor::scalar(y0)),
        (l.w, Tensor::scalar(w)),
        (l.n, Tensor::scalar(n)),
        (dy, Tensor::scalar(1.0f64)),
        (dw, Tensor::scalar(0.25f64)),
    ];
    let out = sess.run_once(&feeds, &[grad, Output { node: grad.node, index: 1 }], &[]).unwrap();
    // y = y0 * w^n: dy/dy0 = w^n, dy/dw = n * y0 * w^(n-1) (plus the pass-through 0.25).
    let want_y0 = w.powi(n);
    let want_w = f64::from(n) * y0 * w.powi(n - 1) + 0.25;
    assert!((out[0].scalar_value::<f64>().unwrap() - want_y0).abs() < 1e-12);
    assert!((out[1].scalar_value::<f64>().unwrap() - want_w).abs() < 1e-12);
}

#[test]
fn a_body_that_breaks_the_shape_invariant_fails_at_run_time() {
    let b = Builder::new();
    let x0 = b.placeholder("x0");
    let pi = b.op(
        "Placeholder",
        "while/loop_var",
        &[],
        vec![("dtype", AttrValue::Type(DType::Float32)), ("shape", AttrValue::Shape(PartialShape::known(&[2])))],
    );
    let c = b.op("Less", "while/c", &[pi, pi], vec![]);
    let all = b.op("All", "while/all", &[c, b.constant(Tensor::from_slice(&[1], &[0i32]).unwrap())], vec![]);
    let t = b.op("LogicalNot", "while/not", &[all], vec![]);
    let doubled = b.op("ConcatV2", "while/cat", &[pi, pi, b.constant(Tensor::scalar(0i32))], vec![]);
    let w = b.op(
        "While",
        "while",
        &[x0],
        vec![
            ("_feeds", names(&b, &[pi])),
            ("_cond", name(&b, t)),
            ("_body", names(&b, &[doubled])),
            ("output_shapes", AttrValue::ListShape(vec![PartialShape::from_dims([None])])),
        ],
    );
    let sess = b.session(1);
    let x = Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap();
    let err = sess.run_once(&[(x0, x)], &[w], &[]).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument, "{err}");
    assert!(err.message.contains("shape invariant"), "{err}");
}

#[test]
fn an_endless_loop_stops_at_the_deadline() {
    let b = Builder::new();
    let i0 = scalar_placeholder(&b, "i0", DType::Int32);
    let pi = scalar_placeholder(&b, "while/loop_var", DType::Int32);
    let zero = b.constant(Tensor::scalar(0i32));
    let c = b.op("GreaterEqual", "while/ge", &[pi, zero], vec![]);
    let w = b.op(
        "While",
        "while",
        &[i0],
        vec![("_feeds", names(&b, &[pi])), ("_cond", name(&b, c)), ("_body", names(&b, &[pi]))],
    );
    let sess = b.session(1);
    let plan = sess.prepare(&[i0], &[w], &[]).unwrap();
    let args = RunArgs { timeout: Some(Duration::from_millis(100)), ..RunArgs::default() };
    let err = sess.run_with(&plan, vec![Tensor::scalar(0i32)], &args).err().unwrap();
    assert_eq!(err.code, Code::DeadlineExceeded);
}
