//! The functions of `map`, `filter`, `flat_map`, `interleave` and generators. As a
//! `while_loop`'s body, a function is a sub-graph of the dataset op's own graph,
//! traced once by Python on one placeholder per component of its argument; every
//! outside tensor it uses is captured (an input of the dataset op, fed to the
//! sub-graph as is). The op names the sub-graph by tensor names in two attrs:
//! `_<f>_feeds` (the argument placeholders, then the captures' positions) and
//! `_<f>_outputs`. The kernel compiles the sub-plan once; each call runs it on the
//! calling thread (a pipeline thread or the session run's), without the GIL.
use std::sync::Arc;

use super::{Element, IterCtx};
use crate::error::{Code, Error, Result};
use crate::graph::Output;
use crate::kernels::functional::{compile_on, loop_tensor_names, parse_tensor};
use crate::kernels::{KernelBuild, OpContext, SubPlan, Value};

/// A function's compiled sub-plan, made when the dataset op's kernel is built.
pub(crate) struct FunctionPlan {
    plan: Arc<dyn SubPlan>,
    /// Feeds for the argument's components (the rest are captures).
    n_args: usize,
    /// Captured tensors the sub-graph is fed (they are inputs of the op).
    n_captures: usize,
    name: String,
}

impl FunctionPlan {
    /// The function the attrs `_<name>_feeds` / `_<name>_outputs` of `b`'s node
    /// name, whose last `n_captures` feeds are captured tensors.
    pub(crate) fn compile(b: &KernelBuild<'_>, name: &str, n_captures: usize) -> Result<Self> {
        let names = |suffix: &str| -> Result<Vec<Output>> {
            let attr = format!("_{name}_{suffix}");
            if !b.node.attrs.contains_key(&attr) {
                ff_bail!(InvalidArgument, "{} '{}' has no attr {attr}", b.node.op_type(), b.node.name);
            }
            loop_tensor_names(b.node, &attr).iter().map(|n| parse_tensor(b.graph, n)).collect()
        };
        let feeds = names("feeds")?;
        let outputs = names("outputs")?;
        let n_args = feeds.len().checked_sub(n_captures).ok_or_else(|| {
            Error::invalid_argument(format!("{} '{}': more captures than feeds", b.node.op_type(), b.node.name))
        })?;
        let plan = compile_on(b, b.devices.host_only(), &feeds, &outputs)?;
        Ok(FunctionPlan { plan: Arc::from(plan), n_args, n_captures, name: format!("{}/{name}", b.node.name) })
    }

    /// How many of the op's inputs it captures.
    pub(crate) fn captures(&self) -> usize {
        self.n_captures
    }

    /// The function bound to its captured values: inputs `first..first + n_captures`
    /// of the dataset op.
    pub(crate) fn bind(&self, ctx: &OpContext<'_>, first: usize) -> Result<Arc<Function>> {
        let mut captures = Vec::with_capacity(self.n_captures);
        for i in first..first + self.n_captures {
            captures.push(ctx.input_value(i)?);
        }
        Ok(Arc::new(Function { plan: Arc::clone(&self.plan), n_args: self.n_args, captures, name: self.name.clone() }))
    }
}

/// A function with its captured values: what a dataset holds and calls.
pub(crate) struct Function {
    plan: Arc<dyn SubPlan>,
    n_args: usize,
    captures: Vec<Value>,
    name: String,
}

impl Function {
    /// The function's results on `args` (an element's components), as values: a
    /// dataset result (`flat_map`) is a resource value.
    pub(crate) fn call_values(&self, args: Element, ctx: &IterCtx<'_>) -> Result<Vec<Value>> {
        if args.len() != self.n_args {
            ff_bail!(
                InvalidArgument,
                "{} takes {} components, got an element of {}",
                self.name,
                self.n_args,
                args.len()
            );
        }
        let mut feeds: Vec<Value> = args.into_iter().map(Value::Tensor).collect();
        feeds.extend(self.captures.iter().cloned());
        self.plan.run(feeds, ctx.env, ctx.wait)
    }

    /// The function's results on `args`, as tensors.
    pub(crate) fn call(&self, args: Element, ctx: &IterCtx<'_>) -> Result<Element> {
        self.call_values(args, ctx)?.into_iter().map(Value::into_tensor).collect()
    }

    /// A predicate's result: one scalar bool (TF's message otherwise).
    pub(crate) fn predicate(&self, args: Element, ctx: &IterCtx<'_>) -> Result<bool> {
        let out = self.call(args, ctx)?;
        match out.as_slice() {
            // TF takes any one-element bool tensor.
            [t] if t.dtype() == crate::dtype::DType::Bool && t.num_elements() == 1 => Ok(t.as_slice::<bool>()?[0]),
            _ => Err(Error::new(Code::InvalidArgument, "Filter predicate `f` must return a scalar bool.")),
        }
    }
}
