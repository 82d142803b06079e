//! Conds as `Switch`/`Merge`: only the taken branch's steps run (side effects
//! included), a control edge from a dead step kills its consumer, a `Merge` forwards
//! its live input, and fetching a dead value is TF's error.
mod common;

use common::Builder;
use ferroflow_core::{AttrValue, Code, DType, Output, PartialShape, Tensor};

fn bool_placeholder(b: &Builder) -> Output {
    b.op(
        "Placeholder",
        "p",
        &[],
        vec![("dtype", AttrValue::Type(DType::Bool)), ("shape", AttrValue::Shape(PartialShape::scalar()))],
    )
}

#[test]
fn only_the_taken_branch_runs() {
    for threads in [1, 2] {
        let b = Builder::new();
        let p = bool_placeholder(&b);
        let (v, init) = b.int_variable("v", 10);
        let sw = b.op("RefSwitch", "switch_v", &[v, p], vec![]);
        let taken = Output { node: sw.node, index: 1 };
        let one = b.constant(Tensor::scalar(1i64));
        let add = b.op("AssignAdd", "add", &[taken, one], vec![]);
        let read = b.op("Identity", "read", &[add], vec![]);
        let pred_sw = b.op("Switch", "pivot", &[p, p], vec![]);
        let pivot_f = b.op("Identity", "switch_f", &[pred_sw], vec![]);
        let other = b
            .try_op("Const", "other", &[], &[pivot_f.node], vec![("value", AttrValue::Tensor(Tensor::scalar(-1i64)))])
            .unwrap();
        let merged = b.op("Merge", "merge", &[other, read], vec![]);
        let index = Output { node: merged.node, index: 1 };
        let sess = b.session(threads);
        sess.run_once(&[], &[], &[init.node]).unwrap();
        for (pred, want, index_want, v_want) in [(true, 11, 1, 11), (false, -1, 0, 11), (true, 12, 1, 12)] {
            let out = sess.run_once(&[(p, Tensor::scalar(pred))], &[merged, index, v], &[]).unwrap();
            assert_eq!(out[0].scalar_value::<i64>().unwrap(), want);
            assert_eq!(out[1].scalar_value::<i32>().unwrap(), index_want);
            assert_eq!(out[2].scalar_value::<i64>().unwrap(), v_want);
        }
        let dead = sess.run_once(&[(p, Tensor::scalar(true))], &[pivot_f], &[]).unwrap_err();
        assert_eq!(dead.code, Code::InvalidArgument);
        assert_eq!(dead.message, "Retval[0] does not have value");
    }
}
