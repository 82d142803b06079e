//! TF's logging ops: `Assert` (fails the step with its data summarised when the
//! condition is false) and `Print` (passes its input through, writing its data to
//! standard error).
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, OutputSpec};
use crate::kernels::summarize::summarize_value;
use crate::kernels::{KernelBuild, OpContext, OpKernel};

pub(crate) fn register(r: &mut Registry) {
    r.add(
        OpDef::new("Assert", &["condition", "data"], infer_assert, assert_kernel)
            .variadic_or_empty()
            .stateful()
            .no_grad(),
    );
    r.add(
        OpDef::new("Print", &["input", "data"], infer_print, print_kernel)
            .variadic_or_empty()
            .stateful()
            .grad(crate::autodiff::array_grad::print),
    );
}

/// Records the `data` inputs' types as the list attr `attr`.
fn data_types(ctx: &mut InferCtx<'_>, attr: &str) {
    let types: Vec<DType> = ctx.inputs[1..].iter().map(|s| s.dtype).collect();
    ctx.attrs.insert(attr.into(), AttrValue::ListType(types));
}

fn infer_assert(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let cond = ctx.input(0);
    if cond.dtype != DType::Bool {
        return Err(Error::type_error(format!(
            "Input 'condition' of 'Assert' Op has type {} that does not match expected type of bool.",
            cond.dtype
        )));
    }
    ctx.check_rank(0, 0)?;
    data_types(&mut ctx, "T");
    ctx.attrs.entry("summarize".into()).or_insert(AttrValue::I(3));
    Ok(vec![])
}

fn infer_print(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let input = ctx.input(0).clone();
    ctx.attrs.insert("T".into(), AttrValue::Type(input.dtype));
    data_types(&mut ctx, "U");
    ctx.attrs.entry("message".into()).or_insert_with(|| AttrValue::S(Vec::new()));
    ctx.attrs.entry("first_n".into()).or_insert(AttrValue::I(-1));
    ctx.attrs.entry("summarize".into()).or_insert(AttrValue::I(3));
    Ok(vec![input])
}

/// `[summary] [summary] ...` of inputs `1..`, `separator` between them (TF's layout).
fn summarize_data(ctx: &OpContext<'_>, summarize: i64, separator: &str) -> Result<String> {
    let parts = (1..ctx.num_inputs())
        .map(|i| Ok(format!("[{}]", summarize_value(ctx.input(i)?, summarize))))
        .collect::<Result<Vec<_>>>()?;
    Ok(parts.join(separator))
}

struct AssertKernel {
    summarize: i64,
}

fn assert_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(AssertKernel { summarize: b.node.attr_int_or("summarize", 3)? }))
}

impl OpKernel for AssertKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let cond = ctx.input(0)?;
        if !cond.shape().is_empty() {
            ff_bail!(InvalidArgument, "In[0] should be a scalar: {}", crate::shape::fmt_shape(cond.shape()));
        }
        if cond.scalar_value::<bool>()? {
            return Ok(());
        }
        ff_bail!(InvalidArgument, "assertion failed: {}", summarize_data(ctx, self.summarize, " ")?)
    }
}

struct PrintKernel {
    message: String,
    summarize: i64,
    first_n: i64,
    /// How many times it has printed in this session (shared by every plan).
    printed: Arc<AtomicI64>,
}

fn print_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(PrintKernel {
        message: b.node.attr_str_or("message", "")?,
        summarize: b.node.attr_int_or("summarize", 3)?,
        first_n: b.node.attr_int_or("first_n", -1)?,
        printed: b.resources.node_state(&b.node.name, || AtomicI64::new(0))?,
    }))
}

impl OpKernel for PrintKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.take_input(0)?;
        let within_first_n = self.first_n < 0
            || self
                .printed
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| (n < self.first_n).then_some(n + 1))
                .is_ok();
        if within_first_n {
            let line = format!("{}{}\n", self.message, summarize_data(ctx, self.summarize, "")?);
            // One write per line so lines from concurrent steps do not interleave.
            use std::io::Write;
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
        }
        ctx.set_output(0, input);
        Ok(())
    }
}
