//! Random-op kernels. Each node draws from its own [`GuardedPhilox`], kept in the
//! session's resources so the stream continues across runs (and across plans that
//! fetch different things), exactly as a TF kernel's generator lives for the session.
use std::sync::Arc;

use super::array::gather;
use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::{int_values, scalar_int, shape_from_values};
use crate::random::{
    BlockDistribution, GuardedPhilox, NormalF32, NormalF64, Philox, Uniform16, UniformF32, UniformF64, UniformI32,
    UniformI64, box_muller_f32, box_muller_f64, fill_blocks, fill_truncated, shuffle_permutation, uint16_to_bf16,
    uint16_to_f16,
};
use crate::tensor::Tensor;

/// Values per chunk below which a fill stays on one thread.
const MIN_CHUNK: usize = 1 << 15;
/// Words TF reserves per output value, so rejection sampling never overlaps runs.
pub const WORDS_PER_OUTPUT: u64 = 256;

/// The generator of a random op's node: one per node and session, seeded from its
/// `seed`/`seed2` attrs, shared by every plan (and device) that runs the node.
pub fn generator(b: &KernelBuild<'_>) -> Result<Arc<GuardedPhilox>> {
    let (seed, seed2) = (b.node.attr_or::<i64>("seed", 0)?, b.node.attr_or::<i64>("seed2", 0)?);
    b.resources.node_state(&b.node.name, || GuardedPhilox::new(seed, seed2))
}

/// The output shape of a random op (its `shape` input).
pub fn output_dims(ctx: &OpContext<'_>) -> Result<Vec<usize>> {
    shape_from_values(&int_values(ctx.input(0)?)?, "shape")
}

#[derive(Clone, Copy)]
enum Kind {
    Uniform,
    Normal,
    Truncated,
}

/// `RandomUniform`, `RandomStandardNormal` and `TruncatedNormal`.
pub(crate) struct FloatRandomKernel {
    philox: Arc<GuardedPhilox>,
    kind: Kind,
    dtype: DType,
}

pub(crate) fn float_random_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let kind = match b.node.op_type() {
        "RandomUniform" => Kind::Uniform,
        "RandomStandardNormal" => Kind::Normal,
        _ => Kind::Truncated,
    };
    Ok(Box::new(FloatRandomKernel { philox: generator(b)?, kind, dtype: b.node.outputs[0].dtype }))
}

fn fill_fixed<T: Send, D: BlockDistribution<T>>(ctx: &OpContext<'_>, dist: &D, base: Philox, out: &mut [T]) {
    ctx.env.for_each_chunk(out, MIN_CHUNK, D::N, |offset, chunk| fill_blocks(dist, base, offset, chunk));
}

impl OpKernel for FloatRandomKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dims = output_dims(ctx)?;
        let mut out = Tensor::zeros(self.dtype, &dims)?;
        let base = self.philox.reserve_outputs(out.num_elements(), WORDS_PER_OUTPUT);
        match (self.kind, self.dtype) {
            (Kind::Uniform, DType::Float16) => {
                fill_fixed(ctx, &Uniform16(uint16_to_f16), base, out.as_mut_slice::<half::f16>()?);
            }
            (Kind::Uniform, DType::BFloat16) => {
                fill_fixed(ctx, &Uniform16(uint16_to_bf16), base, out.as_mut_slice::<half::bf16>()?);
            }
            // TF draws 16-bit normals as floats and rounds each.
            (_, DType::Float16 | DType::BFloat16) => {
                let mut wide = Tensor::zeros(DType::Float32, &dims)?;
                fill_f32(ctx, self.kind, base, wide.as_mut_slice::<f32>()?);
                out = super::array::cast(&wide, self.dtype)?;
            }
            (kind, DType::Float32) => fill_f32(ctx, kind, base, out.as_mut_slice::<f32>()?),
            (Kind::Uniform, DType::Float64) => fill_fixed(ctx, &UniformF64, base, out.as_mut_slice::<f64>()?),
            (Kind::Normal, DType::Float64) => fill_fixed(ctx, &NormalF64, base, out.as_mut_slice::<f64>()?),
            (Kind::Truncated, DType::Float64) => {
                ctx.env.for_each_chunk(out.as_mut_slice::<f64>()?, MIN_CHUNK / 8, 2, |offset, chunk| {
                    let pair = |w: &mut crate::random::SingleSample<'_>| {
                        box_muller_f64(w.next_u32(), w.next_u32(), w.next_u32(), w.next_u32())
                    };
                    fill_truncated(base, offset, chunk, 2, pair, |v: f64| v.abs() < 2.0);
                });
            }
            (_, d) => ff_bail!(InvalidArgument, "no random kernel for {d}"),
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The float32 values of a `kind` op from the stream at `base`.
fn fill_f32(ctx: &OpContext<'_>, kind: Kind, base: Philox, out: &mut [f32]) {
    match kind {
        Kind::Uniform => fill_fixed(ctx, &UniformF32, base, out),
        Kind::Normal => fill_fixed(ctx, &NormalF32, base, out),
        Kind::Truncated => ctx.env.for_each_chunk(out, MIN_CHUNK / 8, 4, |offset, chunk| {
            let pair = |w: &mut crate::random::SingleSample<'_>| box_muller_f32(w.next_u32(), w.next_u32());
            fill_truncated(base, offset, chunk, 4, pair, |v: f32| v.abs() < 2.0);
        }),
    }
}

/// `RandomUniformInt`: integers in `[minval, maxval)`.
pub(crate) struct RandomIntKernel(Arc<GuardedPhilox>);

pub(crate) fn random_int_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(RandomIntKernel(generator(b)?)))
}

impl OpKernel for RandomIntKernel {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dims = output_dims(ctx)?;
        let lo = scalar_int(ctx.input(1)?, "minval")?;
        let hi = scalar_int(ctx.input(2)?, "maxval")?;
        let dtype = ctx.input(1)?.dtype();
        let mut out = Tensor::zeros(dtype, &dims)?;
        if out.num_elements() > 0 && lo >= hi {
            ff_bail!(InvalidArgument, "Need minval < maxval, got {lo} >= {hi}");
        }
        let base = self.0.reserve_outputs(out.num_elements(), WORDS_PER_OUTPUT);
        let range = hi.wrapping_sub(lo) as u64;
        match dtype {
            DType::Int32 => {
                let dist = UniformI32 { lo: lo as i32, range: range as u32 };
                fill_fixed(ctx, &dist, base, out.as_mut_slice::<i32>()?);
            }
            _ => fill_fixed(ctx, &UniformI64 { lo, range }, base, out.as_mut_slice::<i64>()?),
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `RandomShuffle`: permutes the first dimension.
pub(crate) struct RandomShuffleKernel(Arc<GuardedPhilox>);

pub(crate) fn random_shuffle_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(RandomShuffleKernel(generator(b)?)))
}

impl OpKernel for RandomShuffleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let n = x.shape().first().copied().unwrap_or(0);
        if x.num_elements() <= 1 || n <= 1 {
            ctx.set_output(0, x);
            return Ok(());
        }
        let perm = shuffle_permutation(n, self.0.reserve_words(n as u64 - 1));
        let indices: Vec<i64> = perm.iter().map(|&i| i as i64).collect();
        ctx.set_output(0, gather(&x, &indices, &[n], 0)?);
        Ok(())
    }
}
