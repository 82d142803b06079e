//! The fused contraction kernels TF's remapper runs on the CPU: `_FusedMatMul`,
//! `_FusedConv2D` and `_FusedDepthwiseConv2dNative` compute the contraction, then add
//! the bias and apply the activation in one pass over the product while it is still in
//! cache (the unfused `BiasAdd` and activation are two more passes). The plan forms
//! them from `MatMul`/`Conv2D`/`DepthwiseConv2dNative` -> `BiasAdd` [-> activation]
//! chains (`executor::fuse`); a graph may also name them directly, as a GraphDef that
//! grappler rewrote does.
//!
//! A `MatMul` read only by an `Add` becomes `_FusedMatMul` with `fused_ops = ["Add"]`
//! (ours, not TF's): gemm adds the product into the addend's buffer, which is how a
//! loop gradient's accumulator (`acc + x^T dy` per iteration) costs no extra pass.
//! Its sums are gemm's (the addend joins the product's running sum), which may differ
//! from the unfused `Add` in the last bit.
//!
//! Each element of the other forms is computed by the same functions as the unfused ops (`BiasAdd`'s add,
//! then `Relu`'s clamp or `Tanh`'s polynomial), so a fused step's output equals the
//! unfused chain's bit for bit.
use multiversion::multiversion;

use super::math::{FloatFn, TanhFn};
use super::nn::{ActivationFn, EluFn, bias_add, bias_channels, clamp};
use super::num::Float;
use super::{ExecEnv, KernelBuild, OpContext, OpKernel};
use crate::dispatch_float;
use crate::error::Result;
use crate::graph::{AttrValue, Node};
use crate::kernels::elementwise::{PARALLEL_MIN, unary, unary_chunks};
use crate::tensor::Tensor;

/// The activation a fused step applies after the bias.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// None: the step is the contraction and `BiasAdd`.
    Identity,
    /// `Relu`.
    Relu,
    /// `Relu6`.
    Relu6,
    /// `Elu`.
    Elu,
    /// `Tanh`.
    Tanh,
    /// `Sigmoid`.
    Sigmoid,
}

/// The activation ops a fused step applies, by name (as `fused_ops` lists them).
const ACTIVATIONS: [(&str, Activation); 5] = [
    ("Relu", Activation::Relu),
    ("Relu6", Activation::Relu6),
    ("Elu", Activation::Elu),
    ("Tanh", Activation::Tanh),
    ("Sigmoid", Activation::Sigmoid),
];

/// Each contraction and the fused op it becomes.
const CONTRACTIONS: [(&str, &str); 3] =
    [("MatMul", "_FusedMatMul"), ("Conv2D", "_FusedConv2D"), ("DepthwiseConv2dNative", "_FusedDepthwiseConv2dNative")];

impl Activation {
    /// The activation op `op` fuses as, if it does.
    pub fn of_op(op: &str) -> Option<Self> {
        ACTIVATIONS.iter().find(|(name, _)| *name == op).map(|&(_, a)| a)
    }

    /// The op's name, as `fused_ops` lists it.
    pub fn op_name(self) -> Option<&'static str> {
        ACTIVATIONS.iter().find(|(_, a)| *a == self).map(|&(name, _)| name)
    }
}

/// The contraction a fused op wraps.
pub fn contraction_of(fused_op: &str) -> Option<&'static str> {
    CONTRACTIONS.iter().find(|(_, fused)| *fused == fused_op).map(|&(c, _)| c)
}

/// The fused op for a contraction.
pub fn fused_op_of(contraction: &str) -> Option<&'static str> {
    CONTRACTIONS.iter().find(|(c, _)| *c == contraction).map(|&(_, fused)| fused)
}

/// A contraction kernel followed by the bias and activation.
struct FusedKernel {
    contraction: Box<dyn OpKernel>,
    channels_first: bool,
    activation: Activation,
}

/// The kernel of the fused ops: the contraction's own kernel, built from the node's
/// attrs (the fused node carries the contraction's), and the `fused_ops` epilogue.
pub(crate) fn fused_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let node = b.node;
    let op = node.op_type();
    let Some(contraction) = contraction_of(op) else { ff_bail!(Unimplemented, "{op} is not a fused contraction") };
    let fused_ops: Vec<String> = match node.attrs.get("fused_ops") {
        Some(AttrValue::ListS(ops)) => ops.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect(),
        _ => Vec::new(),
    };
    if contraction == "MatMul" && fused_ops == ["Add"] {
        if node.inputs.len() != 3 {
            ff_bail!(InvalidArgument, "{op} with Add takes one argument (the addend)");
        }
        return Ok(Box::new(MatMulAddKernel {
            transpose_a: node.attr_or("transpose_a", false)?,
            transpose_b: node.attr_or("transpose_b", false)?,
        }));
    }
    let activation = match fused_ops.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["BiasAdd"] => Some(Activation::Identity),
        ["BiasAdd", act] => Activation::of_op(act),
        _ => None,
    };
    let Some(activation) = activation else {
        ff_bail!(
            Unimplemented,
            "{op} with fused_ops {fused_ops:?} is not supported (BiasAdd, then an optional Relu, Relu6, Elu, Tanh or Sigmoid)"
        );
    };
    let num_args: i64 = node.attr_or("num_args", 1)?;
    if num_args != 1 || node.inputs.len() != 3 {
        ff_bail!(InvalidArgument, "{op} with BiasAdd takes one argument (the bias), not {num_args}");
    }
    let inner_node = Node {
        name: node.name.clone(),
        def: crate::ops::lookup(contraction)?,
        inputs: node.inputs[..2].to_vec(),
        control_inputs: Vec::new(),
        attrs: node.attrs.clone(),
        device: node.device.clone(),
        outputs: node.outputs.clone(),
    };
    let factory = crate::kernels::registry::find_kernel(&inner_node, &b.device.device_type)
        .ok_or_else(|| crate::error::Error::value(format!("no {contraction} kernel for {}", node.name)))?
        .factory;
    let contraction = factory(&KernelBuild { node: &inner_node, ..*b })?;
    let channels_first = contraction_channels_first(node)?;
    Ok(Box::new(FusedKernel { contraction, channels_first, activation }))
}

/// `_FusedMatMul` with `fused_ops = ["Add"]` (a ferroflow plan's own form, not TF's):
/// `addend + a @ b`, the product accumulated into the addend's buffer by gemm
/// (`matmul::matmul_add`).
struct MatMulAddKernel {
    transpose_a: bool,
    transpose_b: bool,
}

impl OpKernel for MatMulAddKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let addend = ctx.take_input(2)?;
        let out = super::matmul::matmul_add(
            addend,
            ctx.input(0)?,
            ctx.input(1)?,
            self.transpose_a,
            self.transpose_b,
            ctx.env,
        )?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// Whether a contraction node's output has its channels before the spatial dimensions.
pub fn contraction_channels_first(node: &Node) -> Result<bool> {
    Ok(!node.op_type().ends_with("MatMul") && node.attr_or("data_format", "NHWC".to_string())?.starts_with("NC"))
}

impl OpKernel for FusedKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        // Cloned (a counted handle), not taken: the contraction's kernel may look at
        // every input it is given.
        let bias = ctx.input(2)?.clone();
        self.contraction.compute(ctx)?;
        let product = ctx.take_output_tensor(0)?;
        let out = dispatch_float!(product.dtype(), T => bias_activation::<T>(product, &bias, self.channels_first, self.activation, ctx.env)?,
            _ => ff_bail!(InvalidArgument, "no fused kernel for {}", product.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `activation(value + bias)` along the channel axis.
fn bias_activation<T: Float>(
    value: Tensor,
    bias: &Tensor,
    channels_first: bool,
    activation: Activation,
    env: &ExecEnv,
) -> Result<Tensor> {
    let cf = channels_first;
    match activation {
        Activation::Identity => with_bias(value, bias, cf, env, |v: T| v, None),
        Activation::Relu => with_bias(value, bias, cf, env, clamp::<T, false>, None),
        Activation::Relu6 => with_bias(value, bias, cf, env, clamp::<T, true>, None),
        Activation::Elu => with_bias(value, bias, cf, env, EluFn::apply::<T>, None),
        Activation::Tanh => with_bias(value, bias, cf, env, TanhFn::apply::<T>, None),
        // The `Sigmoid` kernel's own block function, so the values are its values.
        Activation::Sigmoid => with_bias(value, bias, cf, env, |v: T| v, Some(T::sigmoid_block)),
    }
}

/// A kernel's block function: `f(out, None)` maps `out` in place.
type Block<T> = fn(&mut [T], Option<&[T]>);

/// `f(value + bias)`, then `block` over the result: one pass over the rows of a
/// channels-last product that nothing else shares; otherwise `BiasAdd` and then the
/// activation.
fn with_bias<T: Float>(
    value: Tensor,
    bias: &Tensor,
    channels_first: bool,
    env: &ExecEnv,
    f: impl Fn(T) -> T + Sync + Copy,
    block: Option<Block<T>>,
) -> Result<Tensor> {
    let data_format = if channels_first { "NCHW" } else { "NHWC" };
    let (c, inner) = bias_channels(value.shape(), bias, data_format)?;
    if inner != 1 || c == 0 || !value.is_unique() {
        let summed = bias_add::<T>(value, bias, data_format)?;
        return match block {
            Some(block) => unary_chunks::<T>(summed, env, block),
            None => unary::<T>(summed, env, f),
        };
    }
    let b = bias.as_slice::<T>()?;
    let mut out = value;
    env.for_each_chunk(out.as_mut_slice::<T>()?, PARALLEL_MIN, c, |_, rows| {
        add_rows_then(rows, b, &f);
        if let Some(block) = block {
            block(rows, None);
        }
    });
    Ok(out)
}

/// `row = f(row + b)` for every row of `b`'s length.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn add_rows_then<T: Float, F: Fn(T) -> T>(out: &mut [T], b: &[T], f: &F) {
    for row in out.chunks_exact_mut(b.len()) {
        row.iter_mut().zip(b).for_each(|(o, &v)| *o = f(o.add(v)));
    }
}
