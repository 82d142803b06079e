//! Kernels of TF's logging ops `Assert` and `Print` (shapes and registration in
//! `ops/logging.rs`).
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::error::Result;
use crate::kernels::summarize::summarize_value;
use crate::kernels::{KernelBuild, OpContext, OpKernel};

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

/// `Assert`: fails the step with its data summarised when the condition is false.
pub(crate) fn assert_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(AssertKernel { summarize: b.node.attr_or::<i64>("summarize", 3)? }))
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

/// `Print`: passes its input through, writing its data to standard error.
pub(crate) fn print_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(PrintKernel {
        message: b.node.attr_or::<String>("message", String::new())?,
        summarize: b.node.attr_or::<i64>("summarize", 3)?,
        first_n: b.node.attr_or::<i64>("first_n", -1)?,
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
