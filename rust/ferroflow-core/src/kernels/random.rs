//! Random-op kernels. Each node draws from its own [`GuardedPhilox`], kept in the
//! session's resources so the stream continues across runs (and across plans that
//! fetch different things), exactly as a TF kernel's generator lives for the session.
use std::sync::Arc;

use super::array::gather;
use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::Result;
use crate::framework::tensor_util::{int_values, scalar_int, shape_from_values};
use crate::random::{
    BlockDistribution, GuardedPhilox, NormalF32, NormalF64, Philox, SingleSample, Uniform16, UniformF32, UniformF64,
    UniformI32, UniformI64, box_muller_f32, box_muller_f64, fill_blocks, fill_truncated, shuffle_permutation,
    uint16_to_bf16, uint16_to_f16, uint64_to_f64,
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
    shape_from_values(&int_values(ctx.input(0)?)?, "shape").map(smallvec::SmallVec::into_vec)
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

/// `Multinomial`: per batch row, `num_samples` classes drawn from `softmax(logits)`,
/// as TF's CPU kernel: an unnormalised cumulative distribution in f64 over the finite
/// logits (less their maximum), one `RandDouble` per sample (two words), found by
/// binary search. Rows are worked on in TF's shards (`Shard` with its cost model,
/// over the intra-op threads); each shard's stream starts `start_row *
/// (num_samples + 3) / 4` blocks in, so the samples equal TF's for the same seed
/// and thread count.
pub(crate) struct MultinomialKernel(Arc<GuardedPhilox>, DType);

pub(crate) fn multinomial_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(MultinomialKernel(generator(b)?, b.node.outputs[0].dtype)))
}

/// The rows per shard TF's `Shard(threads, pool, total, cost_per_unit, work)` uses
/// (`total` when it runs the work in one call): TF shards only when there are at
/// least two shards of 10k cycles, then hands the range to Eigen's `parallelFor`,
/// whose cost model picks the block size. A kernel whose random stream depends on
/// its shards must shard as TF does to draw TF's numbers.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
fn tf_shard_block(total: usize, cost_per_unit: i64, threads: usize) -> usize {
    const MIN_COST_PER_SHARD: i64 = 10_000;
    let shards = (total as i64).saturating_mul(cost_per_unit) / MIN_COST_PER_SHARD;
    if total <= 1 || threads <= 1 || shards.min(threads as i64) <= 1 {
        return total.max(1);
    }
    // Eigen's `CostModel::numThreads` (100k startup and per-thread cycles).
    let cost = cost_per_unit as f64;
    let eigen_threads = ((total as f64 * cost - 100_000.0) / 100_000.0 + 0.9).min(f64::from(i32::MAX)) as i64;
    if eigen_threads.clamp(1, threads as i64) == 1 {
        return total;
    }
    // Eigen's `CalculateParallelForBlock` (40k-cycle tasks, oversharding 4).
    let block_size_f = 40_000.0 / cost;
    let mut block = total.min(total.div_ceil(4 * threads).max(block_size_f as usize));
    let max_block = total.min(2 * block);
    let efficiency = |count: usize| count as f64 / (count.div_ceil(threads) * threads) as f64;
    let mut max_efficiency = efficiency(total.div_ceil(block));
    let mut prev_count = total.div_ceil(block);
    while max_efficiency < 1.0 && prev_count > 1 {
        let coarser = total.div_ceil(prev_count - 1);
        if coarser > max_block {
            break;
        }
        let coarser_count = total.div_ceil(coarser);
        prev_count = coarser_count;
        let coarser_efficiency = efficiency(coarser_count);
        if coarser_efficiency + 0.01 >= max_efficiency {
            block = coarser;
            max_efficiency = max_efficiency.max(coarser_efficiency);
        }
    }
    block
}

impl OpKernel for MultinomialKernel {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let logits = ctx.input(0)?;
        if logits.shape().len() != 2 {
            ff_bail!(
                InvalidArgument,
                "logits should be a matrix, got shape {}",
                crate::shape::fmt_shape(logits.shape())
            );
        }
        let n = ctx.input(1)?;
        if !n.shape().is_empty() {
            ff_bail!(
                InvalidArgument,
                "num_samples should be a scalar, got shape {}",
                crate::shape::fmt_shape(n.shape())
            );
        }
        let num_samples = n.scalar_value::<i32>()?;
        let Ok(num_samples) = usize::try_from(num_samples) else {
            ff_bail!(InvalidArgument, "num_samples should be nonnegative, got {num_samples}");
        };
        let (batch, classes) = (logits.shape()[0], logits.shape()[1]);
        if i32::try_from(batch).is_err() || i32::try_from(classes).is_err() {
            ff_bail!(InvalidArgument, "logits.shape = {} too large for int", crate::shape::fmt_shape(logits.shape()));
        }
        if classes == 0 {
            ff_bail!(InvalidArgument, "num_classes should be positive, got 0");
        }
        let mut out = Tensor::zeros(self.1, &[batch, num_samples])?;
        if out.num_elements() > 0 {
            let rows = super::array::cast(logits, DType::Float64)?;
            let rows = rows.as_slice::<f64>()?;
            // TF reserves ceil(num_samples / 4) * 4 samples per row, doubled on CPU
            // (a double takes two words), at 256 words each.
            let per_row = num_samples.div_ceil(4) * 4 * 2;
            let base = self.0.reserve_outputs(batch.saturating_mul(per_row), WORDS_PER_OUTPUT);
            // TF's cost estimate per row, and its sharding of rows over the threads.
            let cost = (50.0 * (num_samples as f64 * (classes as f64).log2() + classes as f64)) as i64;
            let block = tf_shard_block(batch, cost, ctx.env.intra_threads()) * num_samples;
            let job = Sampling { logits: rows, classes, num_samples, base };
            match self.1 {
                DType::Int32 => job.run(ctx, block, out.as_mut_slice::<i32>()?, |c| c as i32),
                _ => job.run(ctx, block, out.as_mut_slice::<i64>()?, |c| c as i64),
            }
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

/// One `Multinomial` run: the logits as f64 rows and the run's reserved stream.
struct Sampling<'a> {
    logits: &'a [f64],
    classes: usize,
    num_samples: usize,
    base: Philox,
}

impl Sampling<'_> {
    /// Fills `out` (`[batch, num_samples]`) shard by shard, `block` values a shard.
    fn run<T: Send>(&self, ctx: &OpContext<'_>, block: usize, out: &mut [T], class: impl Fn(usize) -> T + Sync) {
        ctx.env.for_each_chunk(out, block, block, |offset, chunk| {
            for (k, shard) in chunk.chunks_mut(block).enumerate() {
                self.sample_rows((offset + k * block) / self.num_samples, shard, &class);
            }
        });
    }

    /// The samples of the rows from `start_row` on, into `out` (whole rows), from
    /// the stream TF's shard starting at `start_row` uses.
    fn sample_rows<T>(&self, start_row: usize, out: &mut [T], class: &impl Fn(usize) -> T) {
        let (classes, num_samples) = (self.classes, self.num_samples);
        let mut philox = self.base;
        // TF skips `start_row * (num_samples + 3) / 4` blocks (in this order).
        philox.skip((start_row * (num_samples + 3) / 4) as u64);
        let mut words = SingleSample::new(&mut philox);
        let mut cdf = vec![0f64; classes];
        for (r, row_out) in out.chunks_mut(num_samples).enumerate() {
            let row = &self.logits[(start_row + r) * classes..(start_row + r + 1) * classes];
            // The maximum over the finite logits (with none, nothing is summed anyway).
            let max = row.iter().copied().filter(|v| v.is_finite()).fold(f64::MIN, f64::max);
            let mut running = 0f64;
            for (c, &v) in cdf.iter_mut().zip(row) {
                if v.is_finite() {
                    running += (v - max).exp();
                }
                *c = running;
            }
            for s in row_out.iter_mut() {
                let to_find = uint64_to_f64(words.next_u32(), words.next_u32()) * running;
                *s = class(cdf.partition_point(|&c| c <= to_find));
            }
        }
    }
}
