//! Convolution and pooling ops (NHWC): `Conv2D` with its two backprop ops, `MaxPool`,
//! `AvgPool` and their gradient ops, with TF's attrs, shape functions and errors.
use std::collections::BTreeMap;

use super::array::shape_input;
use super::math::FLOATS;
use super::{InferCtx, OpDef, Registry};
use crate::autodiff::nn_grad as g;
use crate::dispatch_float;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, OutputSpec};
use crate::kernels::conv::{
    ConvGeometry, Padding, conv2d, conv2d_backprop_filter, conv2d_backprop_input, windowed_output,
};
use crate::kernels::pool::{PoolGeometry, avg_pool, avg_pool_grad, max_pool, max_pool_grad, max_pool_grad_grad};
use crate::kernels::{KernelBuild, OpContext, OpKernel};
use crate::shape::{Dim, PartialShape};

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Conv2D", &["input", "filter"], infer_conv2d, conv_kernel).grad(g::conv2d));
    r.add(
        OpDef::new("Conv2DBackpropInput", &["input_sizes", "filter", "out_backprop"], infer_conv_input, conv_kernel)
            .grad(g::conv2d_backprop_input),
    );
    r.add(
        OpDef::new("Conv2DBackpropFilter", &["input", "filter_sizes", "out_backprop"], infer_conv_filter, conv_kernel)
            .grad(g::conv2d_backprop_filter),
    );
    r.add(OpDef::new("MaxPool", &["input"], infer_pool, pool_kernel).grad(g::max_pool));
    r.add(
        OpDef::new("MaxPoolGrad", &["orig_input", "orig_output", "grad"], infer_max_pool_grad, pool_kernel)
            .grad(g::max_pool_grad),
    );
    r.add(
        OpDef::new("MaxPoolGradGrad", &["orig_input", "orig_output", "grad"], infer_max_pool_grad_grad, pool_kernel)
            .grad(g::max_pool_grad_grad),
    );
    r.add(OpDef::new("AvgPool", &["value"], infer_pool, pool_kernel).grad(g::avg_pool));
    r.add(
        OpDef::new("AvgPoolGrad", &["orig_input_shape", "grad"], infer_avg_pool_grad, pool_kernel)
            .grad(g::avg_pool_grad),
    );
}

/// The window attrs of a conv or pool node, validated as TF's shape functions do.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WindowAttrs {
    /// `[rows, cols]` window of a pool (`ksize`); unused by convolutions.
    window: [usize; 2],
    strides: [usize; 2],
    dilations: [usize; 2],
    padding: Padding,
}

fn spatial(attrs: &BTreeMap<String, AttrValue>, op: &str, name: &str, default: Option<i64>) -> Result<[usize; 2]> {
    let values = match (attrs.get(name), default) {
        (Some(AttrValue::ListI(v)), _) => v.clone(),
        (None, Some(d)) => vec![d; 4],
        _ => return Err(Error::value(format!("{op} requires the '{name}' attribute (a list of 4 ints)"))),
    };
    if values.len() != 4 {
        return Err(Error::value(format!(
            "{op} requires the {name} attribute to contain 4 values, but got: {}",
            values.len()
        )));
    }
    if values[0] != 1 || values[3] != 1 {
        return Err(Error::value(format!(
            "{op}: {name} in the batch and depth dimensions must be 1 (this implementation does not yet support others), got {values:?}"
        )));
    }
    let as_size = |v: i64| {
        usize::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| Error::value(format!("{op}: {name} must be positive, got {values:?}")))
    };
    Ok([as_size(values[1])?, as_size(values[2])?])
}

fn window_attrs(attrs: &BTreeMap<String, AttrValue>, op: &str, pooling: bool) -> Result<WindowAttrs> {
    let padding = match attrs.get("padding") {
        Some(AttrValue::S(s)) => Padding::parse(&String::from_utf8_lossy(s)),
        _ => None,
    }
    .ok_or_else(|| Error::value(format!("{op}: padding must be 'SAME' or 'VALID'")))?;
    match attrs.get("data_format") {
        None => {}
        Some(AttrValue::S(s)) if s == b"NHWC" => {}
        Some(other) => {
            return Err(Error::value(format!(
                "{op}: only the NHWC data format is supported on the CPU, got {other:?}"
            )));
        }
    }
    Ok(WindowAttrs {
        window: if pooling { spatial(attrs, op, "ksize", None)? } else { [1, 1] },
        strides: spatial(attrs, op, "strides", None)?,
        dilations: if pooling { [1, 1] } else { spatial(attrs, op, "dilations", Some(1))? },
        padding,
    })
}

/// Records the defaulted attrs on the node as TF does, and returns the validated set.
fn infer_attrs(ctx: &mut InferCtx<'_>, pooling: bool) -> Result<WindowAttrs> {
    ctx.attrs.entry("data_format".into()).or_insert_with(|| AttrValue::S(b"NHWC".to_vec()));
    if !pooling {
        ctx.attrs.entry("dilations".into()).or_insert_with(|| AttrValue::ListI(vec![1; 4]));
        ctx.attrs.entry("use_cudnn_on_gpu".into()).or_insert(AttrValue::B(true));
        ctx.attrs.entry("explicit_paddings".into()).or_insert_with(|| AttrValue::ListI(vec![]));
    }
    window_attrs(ctx.attrs, ctx.def.name, pooling)
}

fn rank4(ctx: &InferCtx<'_>, shape: &PartialShape, what: &str) -> Result<[Dim; 4]> {
    match shape.dims() {
        None => Ok([None; 4]),
        Some(&[a, b, c, d]) => Ok([a, b, c, d]),
        Some(d) => {
            Err(Error::value(format!("Shape must be rank 4 but is rank {} for '{}' ({what})", d.len(), ctx.name)))
        }
    }
}

fn float_type(ctx: &mut InferCtx<'_>, inputs: &[usize]) -> Result<crate::dtype::DType> {
    let t = ctx.same_type(inputs)?;
    ctx.check_type(inputs[0], FLOATS)?;
    Ok(t)
}

/// One output dimension, when its input size is known.
fn out_dim(input: Dim, window: Dim, dilation: usize, stride: usize, padding: Padding, op: &str) -> Result<Dim> {
    match (input, window) {
        (Some(i), Some(k)) => windowed_output(i, k, dilation, stride, padding)
            .map(|(o, _)| Some(o))
            .map_err(|m| Error::value(format!("{op}: {m}"))),
        (Some(i), None) if padding == Padding::Same => Ok(Some(i.div_ceil(stride))),
        _ => Ok(None),
    }
}

fn infer_conv2d(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0, 1])?;
    let a = infer_attrs(&mut ctx, false)?;
    let [n, h, w, c] = rank4(&ctx, &ctx.input(0).shape, "input")?;
    let [kh, kw, fc, o] = rank4(&ctx, &ctx.input(1).shape, "filter")?;
    if let (Some(c), Some(fc)) = (c, fc)
        && c != fc
    {
        return Err(Error::value(format!(
            "Depth of input ({c}) does not equal the input depth of filter ({fc}) for '{}' (grouped convolutions are not supported)",
            ctx.name
        )));
    }
    let op = ctx.def.name;
    let oh = out_dim(h, kh, a.dilations[0], a.strides[0], a.padding, op)?;
    let ow = out_dim(w, kw, a.dilations[1], a.strides[1], a.padding, op)?;
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([n, oh, ow, o]))])
}

fn infer_conv_input(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[1, 2])?;
    infer_attrs(&mut ctx, false)?;
    let shape = shape_input(&ctx, 0, "input_sizes")?;
    rank4(&ctx, &shape, "input_sizes")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_conv_filter(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0, 2])?;
    infer_attrs(&mut ctx, false)?;
    let shape = shape_input(&ctx, 1, "filter_sizes")?;
    rank4(&ctx, &shape, "filter_sizes")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_pool(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0])?;
    let a = infer_attrs(&mut ctx, true)?;
    let [n, h, w, c] = rank4(&ctx, &ctx.input(0).shape, "input")?;
    let op = ctx.def.name;
    let oh = out_dim(h, Some(a.window[0]), 1, a.strides[0], a.padding, op)?;
    let ow = out_dim(w, Some(a.window[1]), 1, a.strides[1], a.padding, op)?;
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([n, oh, ow, c]))])
}

fn infer_max_pool_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0, 1, 2])?;
    infer_attrs(&mut ctx, true)?;
    let shape = ctx.input(0).shape.clone();
    rank4(&ctx, &shape, "orig_input")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_max_pool_grad_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0, 1, 2])?;
    infer_attrs(&mut ctx, true)?;
    rank4(&ctx, &ctx.input(0).shape, "orig_input")?;
    let shape = ctx.input(1).shape.clone();
    rank4(&ctx, &shape, "orig_output")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_avg_pool_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[1])?;
    infer_attrs(&mut ctx, true)?;
    let shape = shape_input(&ctx, 0, "orig_input_shape")?;
    rank4(&ctx, &shape, "orig_input_shape")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

/// The kernel of every op here: the validated attrs and which op it is.
struct WindowKernel {
    op: &'static str,
    attrs: WindowAttrs,
}

fn conv_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(WindowKernel { op: b.node.op_type(), attrs: window_attrs(&b.node.attrs, b.node.op_type(), false)? }))
}

fn pool_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(WindowKernel { op: b.node.op_type(), attrs: window_attrs(&b.node.attrs, b.node.op_type(), true)? }))
}

fn sizes(ctx: &OpContext<'_>, i: usize, what: &str) -> Result<Vec<usize>> {
    let v = super::int_values(ctx.input(i)?)?;
    if v.len() != 4 {
        ff_bail!(InvalidArgument, "{what} must be a 4-element vector, got {} elements", v.len());
    }
    super::dims_from(&v, what)
}

fn invalid(op: &str) -> impl Fn(String) -> Error + '_ {
    move |m| Error::invalid_argument(format!("{op}: {m}"))
}

impl WindowKernel {
    fn conv_geometry(&self, input: &[usize], filter: &[usize]) -> Result<ConvGeometry> {
        ConvGeometry::new(input, filter, self.attrs.strides, self.attrs.dilations, self.attrs.padding)
            .map_err(invalid(self.op))
    }
    fn pool_geometry(&self, input: &[usize]) -> Result<PoolGeometry> {
        PoolGeometry::new(input, self.attrs.window, self.attrs.strides, self.attrs.padding).map_err(invalid(self.op))
    }
    /// Checks that input `what` has the shape `want` (of the forward op's output or input).
    fn check_shape(&self, what: &str, got: &[usize], want: &[usize], of: &str) -> Result<()> {
        if got != want {
            ff_bail!(
                InvalidArgument,
                "{}: {what} has shape {} but {of} has shape {}",
                self.op,
                crate::shape::fmt_shape(got),
                crate::shape::fmt_shape(want)
            );
        }
        Ok(())
    }
    /// Checks that a gradient fed to a backprop op has the forward output's shape.
    fn check_grad(&self, dy: &[usize], want: [usize; 4]) -> Result<()> {
        self.check_shape("out_backprop", dy, &want, "the forward output")
    }
}

impl OpKernel for WindowKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let env = ctx.env;
        // The last input is the float operand of every op here.
        let dtype = ctx.input(ctx.num_inputs() - 1)?.dtype();
        let out = match self.op {
            "Conv2D" => {
                let (x, f) = (ctx.input(0)?, ctx.input(1)?);
                let geo = self.conv_geometry(x.shape(), f.shape())?;
                dispatch_float!(dtype, T => conv2d::<T>(x, f, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            "Conv2DBackpropInput" => {
                let (sizes, f, dy) = (sizes(ctx, 0, "input_sizes")?, ctx.input(1)?, ctx.input(2)?);
                let geo = self.conv_geometry(&sizes, f.shape())?;
                self.check_grad(dy.shape(), [geo.n, geo.oh, geo.ow, geo.o])?;
                dispatch_float!(dtype, T => conv2d_backprop_input::<T>(f, dy, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            "Conv2DBackpropFilter" => {
                let (x, sizes, dy) = (ctx.input(0)?, sizes(ctx, 1, "filter_sizes")?, ctx.input(2)?);
                let geo = self.conv_geometry(x.shape(), &sizes)?;
                self.check_grad(dy.shape(), [geo.n, geo.oh, geo.ow, geo.o])?;
                dispatch_float!(dtype, T => conv2d_backprop_filter::<T>(x, dy, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            "MaxPool" | "AvgPool" => {
                let x = ctx.input(0)?;
                let geo = self.pool_geometry(x.shape())?;
                if self.op == "MaxPool" {
                    dispatch_float!(dtype, T => max_pool::<T>(x, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
                } else {
                    dispatch_float!(dtype, T => avg_pool::<T>(x, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
                }
            }
            "MaxPoolGrad" => {
                let (x, dy) = (ctx.input(0)?, ctx.input(2)?);
                let geo = self.pool_geometry(x.shape())?;
                self.check_grad(dy.shape(), [geo.n, geo.oh, geo.ow, geo.c])?;
                dispatch_float!(dtype, T => max_pool_grad::<T>(x, dy, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            "MaxPoolGradGrad" => {
                let (x, y, gx) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
                let geo = self.pool_geometry(x.shape())?;
                self.check_shape("orig_output", y.shape(), &[geo.n, geo.oh, geo.ow, geo.c], "the pooled output")?;
                self.check_shape("grad", gx.shape(), x.shape(), "orig_input")?;
                dispatch_float!(dtype, T => max_pool_grad_grad::<T>(x, y, gx, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            _ => {
                let (sizes, dy) = (sizes(ctx, 0, "orig_input_shape")?, ctx.input(1)?);
                let geo = self.pool_geometry(&sizes)?;
                self.check_grad(dy.shape(), [geo.n, geo.oh, geo.ow, geo.c])?;
                dispatch_float!(dtype, T => avg_pool_grad::<T>(dy, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}
