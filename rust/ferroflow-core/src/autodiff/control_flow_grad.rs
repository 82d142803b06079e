//! Gradients of `Switch` and `Merge` (TF's `control_flow_grad.py`, for conds).
use super::{Grad, GradCtx};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Output};

type Grads = Result<Vec<Option<Grad>>>;

/// `Switch`: the gradients of its two outputs merged. The output of the branch that
/// sent none back gets zeros shaped like it, which are dead exactly when that branch
/// was not taken. Each gradient is switched again on the predicate (TF's
/// `_SwitchGrad` outside a cond context), so only the taken branch's gradient
/// reaches the `Merge` even when the other one is live: a gradient taken of the
/// untaken output of a bare `switch` is zero, as TF's.
pub(crate) fn switch(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    if g.iter().all(Option::is_none) {
        return Ok(vec![None, None]);
    }
    let pred = ctx.input(1);
    let mut parts = Vec::with_capacity(2);
    for i in 0..2 {
        let grad = match ctx.dense_out(g, i)? {
            Some(d) => d,
            None => {
                let o = ctx.output(i);
                ctx.op("ZerosLike", &[o], vec![])?
            }
        };
        let dtype = ctx.spec(grad)?.dtype;
        let node = ctx.node("Switch", &[grad, pred], vec![("T", AttrValue::Type(dtype))])?;
        parts.push(Output { node, index: i });
    }
    let merged = ctx.op("Merge", &parts, vec![])?;
    Ok(vec![Some(Grad::Dense(merged)), None])
}

/// `Merge` of a cond: the gradient goes back to the input that was forwarded, through
/// a `Switch` on that input's index (TF switches on the cond's predicate, which is
/// true exactly when the merge forwarded its second input).
pub(crate) fn merge(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let n = ctx.num_inputs();
    let Some(dy) = ctx.dense_out(g, 0)? else {
        return Ok(vec![None; n]);
    };
    if n != 2 {
        return Err(Error::value(format!("the gradient of a Merge of {n} inputs (outside a cond) is not supported")));
    }
    let index = Output { node: ctx.output(1).node, index: 1 };
    let one = ctx.scalar(DType::Int32, 1.0)?;
    let pred = ctx.op("Equal", &[index, one], vec![])?;
    let node = ctx.node("Switch", &[dy, pred], vec![("T", AttrValue::Type(ctx.spec(dy)?.dtype))])?;
    Ok((0..2).map(|index| Some(Grad::Dense(Output { node, index }))).collect())
}
