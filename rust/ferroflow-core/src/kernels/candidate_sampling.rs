//! The candidate samplers of sampled losses (TF's `candidate_sampler_ops` and
//! `range_sampler`): each run draws `num_sampled` class ids from a distribution over
//! `[0, range_max)` and reports the expected count of every sampled and true class,
//! and `ComputeAccidentalHits` finds the sampled ids that equal a row's true class.
//!
//! The draws come from the node's own Philox stream (seeded by `seed`/`seed2`, kept
//! for the session as the random ops' are), so a seeded graph repeats its samples; the
//! samples themselves are not TF's bit for bit (TF's `SimplePhilox` rejection and alias
//! tables), the distributions and the expected counts are. `LearnedUnigramCandidateSampler`
//! learns from the true classes it sees, across runs.
use std::sync::Arc;

use parking_lot::Mutex;

use super::{KernelBuild, OpContext, OpKernel};
use crate::error::Result;
use crate::random::{GuardedPhilox, Philox, SingleSample, uint64_to_f64};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// How a sampler draws and weighs ids in `[0, range)`.
enum Distribution {
    /// Every id equally likely.
    Uniform { range: u64 },
    /// `P(v) = log((v + 2) / (v + 1)) / log(range + 1)` (Zipfian class frequencies).
    LogUniform { range: u64 },
    /// Fixed weights (`FixedUnigramCandidateSampler`), with their prefix sums.
    Fixed { weights: Vec<f32>, cumulative: Vec<f64>, total: f32 },
    /// Counts learned from the true classes, starting at 1 each.
    Learned(Mutex<Counts>),
    /// `AllCandidateSampler`: every id `0..num_sampled` once.
    All,
}

/// Integer weights with a Fenwick tree, for drawing in proportion and updating in
/// `O(log n)` (TF's `WeightedPicker`).
pub(crate) struct Counts {
    weights: Vec<i64>,
    tree: Vec<i64>,
    total: i64,
}

impl Counts {
    fn ones(n: usize) -> Self {
        let mut c = Counts { weights: vec![0; n], tree: vec![0; n + 1], total: 0 };
        for i in 0..n {
            c.add(i, 1);
        }
        c
    }
    fn add(&mut self, i: usize, delta: i64) {
        self.weights[i] += delta;
        self.total += delta;
        let mut j = i + 1;
        while j < self.tree.len() {
            self.tree[j] += delta;
            j += j & j.wrapping_neg();
        }
    }
    /// The id whose cumulative weight range holds `u` (`0 <= u < total`).
    fn find(&self, mut u: i64) -> usize {
        let mut pos = 0;
        let mut step = (self.tree.len() - 1).next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next < self.tree.len() && self.tree[next] <= u {
                pos = next;
                u -= self.tree[next];
            }
            step >>= 1;
        }
        pos.min(self.weights.len() - 1)
    }
}

/// A uniform integer in `[0, n)` (unbiased: words past the last whole multiple of `n`
/// are redrawn).
fn uniform_below(rng: &mut SingleSample<'_>, n: u64) -> u64 {
    let zone = u64::MAX - (u64::MAX % n);
    loop {
        let v = (u64::from(rng.next_u32()) << 32) | u64::from(rng.next_u32());
        if v < zone {
            return v % n;
        }
    }
}

fn unit_f64(rng: &mut SingleSample<'_>) -> f64 {
    let (a, b) = (rng.next_u32(), rng.next_u32());
    uint64_to_f64(a, b)
}

/// TF's `ExpectedCountHelper`: `p * batch` without rejection, else the chance that the
/// id came up in `tries` draws, `1 - (1 - p)^tries`, computed stably.
pub fn expected_count(p: f32, batch: usize, tries: usize) -> f32 {
    if tries == batch {
        return p * batch as f32;
    }
    #[allow(clippy::cast_possible_truncation)]
    let v = -((tries as f32) * (-p).ln_1p()).exp_m1();
    v
}

impl Distribution {
    fn range(&self, num_sampled: usize) -> u64 {
        match self {
            Distribution::Uniform { range } | Distribution::LogUniform { range } => *range,
            Distribution::Fixed { weights, .. } => weights.len() as u64,
            Distribution::Learned(c) => c.lock().weights.len() as u64,
            Distribution::All => num_sampled as u64,
        }
    }

    fn probability(&self, v: i64, counts: Option<&Counts>) -> f32 {
        match self {
            #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
            Distribution::Uniform { range } => (1.0 / *range as f64) as f32,
            #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
            Distribution::LogUniform { range } => {
                let v = v as f64;
                (((v + 2.0) / (v + 1.0)).ln() / (*range as f64).ln_1p()) as f32
            }
            Distribution::Fixed { weights, total, .. } => {
                usize::try_from(v).ok().and_then(|i| weights.get(i)).map_or(0.0, |w| w / total)
            }
            #[allow(clippy::cast_precision_loss)]
            Distribution::Learned(_) => {
                let c = counts.expect("learned counts");
                usize::try_from(v).ok().and_then(|i| c.weights.get(i)).map_or(0.0, |&w| w as f32 / c.total as f32)
            }
            Distribution::All => 1.0,
        }
    }

    fn sample(&self, rng: &mut SingleSample<'_>, counts: Option<&Counts>) -> i64 {
        #[allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        match self {
            Distribution::Uniform { range } => uniform_below(rng, *range) as i64,
            Distribution::LogUniform { range } => {
                let log_range = (*range as f64).ln_1p();
                let v = ((unit_f64(rng) * log_range).exp() as i64 - 1).max(0);
                v % (*range as i64)
            }
            Distribution::Fixed { cumulative, weights, .. } => {
                let total = cumulative.last().copied().unwrap_or(0.0);
                let u = unit_f64(rng) * total;
                let i = cumulative.partition_point(|&c| c <= u).min(weights.len() - 1);
                i as i64
            }
            Distribution::Learned(_) => {
                let c = counts.expect("learned counts");
                let u = uniform_below(rng, c.total as u64) as i64;
                c.find(u) as i64
            }
            Distribution::All => 0,
        }
    }
}

/// A candidate sampler node: its attrs, distribution and generator.
struct SamplerKernel {
    op: &'static str,
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    dist: Arc<Distribution>,
    philox: Arc<GuardedPhilox>,
}

fn positive(b: &KernelBuild<'_>, name: &str) -> Result<usize> {
    let v: i64 = b.node.required_attr(name)?;
    usize::try_from(v)
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| crate::error::Error::invalid_argument(format!("{name} must be positive, got {v}")))
}

/// The weights of `FixedUnigramCandidateSampler` (TF's `FixedUnigramSampler`): zeros
/// for the reserved ids of this shard, then `w ^ distortion` for this shard's entries of
/// `unigrams` or of the last comma-separated field of `vocab_file`'s lines.
fn fixed_weights(b: &KernelBuild<'_>, range: usize) -> Result<Distribution> {
    let n = b.node;
    let vocab_file: String = n.attr_or("vocab_file", String::new())?;
    let unigrams: Vec<f32> = n.attr_or("unigrams", Vec::new())?;
    if vocab_file.is_empty() && unigrams.is_empty() {
        ff_bail!(InvalidArgument, "Must provide either vocab_file or unigrams.");
    }
    if !vocab_file.is_empty() && !unigrams.is_empty() {
        ff_bail!(InvalidArgument, "Must only provide one of vocab_file and unigrams.");
    }
    let distortion: f32 = n.attr_or("distortion", 1.0)?;
    let reserved: i64 = n.attr_or("num_reserved_ids", 0)?;
    let shards: i64 = n.attr_or("num_shards", 1)?;
    let shard: i64 = n.attr_or("shard", 0)?;
    if shards < 1 || shard < 0 || shard >= shards {
        ff_bail!(InvalidArgument, "shard must be in [0, num_shards), got shard {shard} of {shards}");
    }
    let mut weights: Vec<f32> = (0..reserved).filter(|id| id % shards == shard).map(|_| 0.0).collect();
    let raw = if vocab_file.is_empty() {
        unigrams
    } else {
        let text = std::fs::read_to_string(&vocab_file)
            .map_err(|e| crate::error::Error::new(crate::error::Code::NotFound, format!("{vocab_file}; {e}")))?;
        let mut v = Vec::new();
        for line in text.lines() {
            let last = line.rsplit(',').next().unwrap_or("");
            let w: f32 = last.trim().parse().map_err(|_| {
                crate::error::Error::invalid_argument(format!("Wrong vocabulary format at line: {line}"))
            })?;
            v.push(w);
        }
        v
    };
    // As TF, the first unigram's id is the number of weights so far (this shard's
    // reserved ids).
    let mut total = 0.0f32;
    let first = weights.len() as i64;
    for (k, w) in raw.into_iter().enumerate() {
        if (first + k as i64) % shards == shard {
            let w = w.powf(distortion);
            total += w;
            weights.push(w);
        }
    }
    if weights.len() != range {
        ff_bail!(InvalidArgument, "range is {range} must be equal to weights size  {}", weights.len());
    }
    let mut acc = 0.0f64;
    let cumulative = weights
        .iter()
        .map(|&w| {
            acc += f64::from(w);
            acc
        })
        .collect();
    Ok(Distribution::Fixed { weights, cumulative, total })
}

/// The five candidate samplers.
pub(crate) fn sampler_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let op = b.node.op_type();
    let num_true = positive(b, "num_true")?;
    let num_sampled = positive(b, "num_sampled")?;
    let unique: bool = b.node.required_attr("unique")?;
    let range = || -> Result<usize> { positive(b, "range_max") };
    let dist = match op {
        "UniformCandidateSampler" => Distribution::Uniform { range: range()? as u64 },
        "LogUniformCandidateSampler" => Distribution::LogUniform { range: range()? as u64 },
        "LearnedUnigramCandidateSampler" => {
            let r = range()?;
            if i32::try_from(r).is_err() || r == i32::MAX as usize {
                ff_bail!(InvalidArgument, "range_max must be less than {} for unigram samplers, got {r}", i32::MAX);
            }
            // The counts live for the session, as TF's kernel's sampler does.
            let key = format!("{}/unigram_counts", b.node.name);
            return Ok(Box::new(SamplerKernel {
                op,
                num_true,
                num_sampled,
                unique,
                dist: b.resources.node_state(&key, || Distribution::Learned(Mutex::new(Counts::ones(r))))?,
                philox: generator(b)?,
            }));
        }
        "FixedUnigramCandidateSampler" => fixed_weights(b, range()?)?,
        _ => Distribution::All,
    };
    Ok(Box::new(SamplerKernel { op, num_true, num_sampled, unique, dist: Arc::new(dist), philox: generator(b)? }))
}

fn generator(b: &KernelBuild<'_>) -> Result<Arc<GuardedPhilox>> {
    let (seed, seed2) = (b.node.attr_or::<i64>("seed", 0)?, b.node.attr_or::<i64>("seed2", 0)?);
    b.resources.node_state(&b.node.name, || GuardedPhilox::new(seed, seed2))
}

/// What one run of a sampler draws: `(sampled, sampled_expected, true_expected)`.
pub fn sample_batch(
    dist_is_all: bool,
    draw: &mut dyn FnMut() -> i64,
    probability: &dyn Fn(i64) -> f32,
    num_sampled: usize,
    unique: bool,
    true_classes: &[i64],
) -> (Vec<i64>, Vec<f32>, Vec<f32>) {
    if dist_is_all {
        let sampled = (0..num_sampled as i64).collect();
        return (sampled, vec![1.0; num_sampled], vec![1.0; true_classes.len()]);
    }
    let mut sampled = Vec::with_capacity(num_sampled);
    let tries = if unique {
        let mut used = std::collections::HashSet::with_capacity(num_sampled);
        let mut tries = 0;
        while sampled.len() < num_sampled {
            tries += 1;
            let v = draw();
            if used.insert(v) {
                sampled.push(v);
            }
        }
        tries
    } else {
        sampled.extend((0..num_sampled).map(|_| draw()));
        num_sampled
    };
    let count = |v: &i64| expected_count(probability(*v), num_sampled, tries);
    let sampled_expected = sampled.iter().map(count).collect();
    let true_expected = true_classes.iter().map(count).collect();
    (sampled, sampled_expected, true_expected)
}

impl OpKernel for SamplerKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0)?;
        let &[batch, cols] = t.shape() else { ff_bail!(InvalidArgument, "true_classes must be a matrix") };
        if cols != self.num_true {
            ff_bail!(
                InvalidArgument,
                "true_classes must have num_true columns, expected: {cols} was: {}",
                self.num_true
            );
        }
        let range = self.dist.range(self.num_sampled);
        if self.unique && self.num_sampled as u64 > range {
            ff_bail!(InvalidArgument, "Sampler's range is too small.");
        }
        let true_classes = t.as_slice::<i64>()?.to_vec();
        if let Some(&bad) = true_classes.iter().find(|&&c| c < 0 || c as u64 >= range) {
            ff_bail!(InvalidArgument, "`true_candidate` out of range [0, {range}), received {bad}");
        }
        let mut philox: Philox = self.philox.reserve_words(2048 * self.num_sampled as u64);
        let mut rng = SingleSample::new(&mut philox);
        let learned = match &*self.dist {
            Distribution::Learned(c) => Some(c),
            _ => None,
        };
        let (sampled, sampled_expected, true_expected) = {
            let guard = learned.map(|c| c.lock());
            let counts = guard.as_deref();
            let dist = &*self.dist;
            let mut draw = || dist.sample(&mut rng, counts);
            let probability = |v: i64| dist.probability(v, counts);
            sample_batch(
                matches!(dist, Distribution::All),
                &mut draw,
                &probability,
                self.num_sampled,
                self.unique,
                &true_classes,
            )
        };
        if let Some(c) = learned {
            // TF's `Update`: each true class seen counts once more.
            let mut c = c.lock();
            let room = usize::try_from(i64::from(i32::MAX) - c.total).unwrap_or(0);
            for &v in true_classes.iter().take(room) {
                c.add(usize::try_from(v).unwrap_or(0), 1);
            }
        }
        debug_assert!(!self.op.is_empty());
        ctx.set_output(0, Tensor::from_slice(&[self.num_sampled], &sampled)?);
        ctx.set_output(1, Tensor::from_slice(&[batch, cols], &true_expected)?);
        ctx.set_output(2, Tensor::from_slice(&[self.num_sampled], &sampled_expected)?);
        Ok(())
    }
}

/// `ComputeAccidentalHits`: for each `true_classes[i, j]` equal to a sampled id, the row
/// `i`, the sampled position (the last one holding that id, as TF's map) and the weight
/// `-FLT_MAX`.
pub fn accidental_hits(true_classes: &Tensor, sampled: &Tensor, num_true: usize) -> Result<[Tensor; 3]> {
    let (batch, cols) = match true_classes.shape() {
        &[b, c] if c == num_true => (b, c),
        _ => ff_bail!(InvalidArgument, "true_candidates must be a batch_size * num_true matrix"),
    };
    if sampled.shape().len() != 1 {
        ff_bail!(
            InvalidArgument,
            "sampled_candidates must be a vector, which is typically an output from CandidateSampler, got shape {}",
            fmt_shape(sampled.shape())
        );
    }
    let mut position = std::collections::HashMap::new();
    for (i, &s) in sampled.as_slice::<i64>()?.iter().enumerate() {
        position.insert(s, i as i64);
    }
    let (mut rows, mut ids) = (Vec::new(), Vec::new());
    let tc = true_classes.as_slice::<i64>()?;
    for i in 0..batch {
        for &c in &tc[i * cols..][..cols] {
            if let Some(&p) = position.get(&c) {
                rows.push(i32::try_from(i).unwrap_or(i32::MAX));
                ids.push(p);
            }
        }
    }
    let n = rows.len();
    Ok([
        Tensor::from_slice(&[n], &rows)?,
        Tensor::from_slice(&[n], &ids)?,
        Tensor::from_slice(&[n], &vec![-f32::MAX; n])?,
    ])
}

struct AccidentalHitsKernel {
    num_true: usize,
}

/// `ComputeAccidentalHits`.
pub(crate) fn accidental_hits_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let num_true: i64 = b.node.required_attr("num_true")?;
    Ok(Box::new(AccidentalHitsKernel { num_true: usize::try_from(num_true).unwrap_or(usize::MAX) }))
}

impl OpKernel for AccidentalHitsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let [rows, ids, weights] = accidental_hits(ctx.input(0)?, ctx.input(1)?, self.num_true)?;
        ctx.set_output(0, rows);
        ctx.set_output(1, ids);
        ctx.set_output(2, weights);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_counts_follow_tf() {
        assert!((expected_count(0.1, 4, 4) - 0.4).abs() < 1e-7);
        let want = 1.0 - (1.0f64 - 0.1).powi(7);
        assert!((f64::from(expected_count(0.1, 4, 7)) - want).abs() < 1e-6);
    }

    #[test]
    fn counts_draw_in_proportion_and_update() {
        let mut c = Counts::ones(5);
        assert_eq!((0..5).map(|u| c.find(u)).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
        c.add(2, 3);
        assert_eq!(c.total, 8);
        assert_eq!((0..8).map(|u| c.find(u)).collect::<Vec<_>>(), vec![0, 1, 2, 2, 2, 2, 3, 4]);
    }

    #[test]
    fn unique_samples_are_distinct_and_in_range() {
        let mut philox = Philox::new(7, 9);
        let mut rng = SingleSample::new(&mut philox);
        let dist = Distribution::LogUniform { range: 20 };
        let mut draw = || dist.sample(&mut rng, None);
        let probability = |v: i64| dist.probability(v, None);
        let (s, se, te) = sample_batch(false, &mut draw, &probability, 10, true, &[0, 3]);
        let mut sorted = s.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 10);
        assert!(s.iter().all(|&v| (0..20).contains(&v)));
        assert!(se.iter().chain(&te).all(|&e| e > 0.0 && e <= 1.0));
        let total: f64 = (0..20).map(|v| f64::from(dist.probability(v, None))).sum();
        assert!((total - 1.0).abs() < 1e-5);
    }

    #[test]
    fn accidental_hits_name_the_last_sampled_position() {
        let t = Tensor::from_slice(&[2, 2], &[1i64, 5, 3, 1]).unwrap();
        let s = Tensor::from_slice(&[4], &[1i64, 2, 3, 1]).unwrap();
        let [rows, ids, w] = accidental_hits(&t, &s, 2).unwrap();
        assert_eq!(rows.as_slice::<i32>().unwrap(), &[0, 1, 1]);
        assert_eq!(ids.as_slice::<i64>().unwrap(), &[3, 2, 3]);
        assert_eq!(w.as_slice::<f32>().unwrap(), &[-f32::MAX; 3]);
    }
}
