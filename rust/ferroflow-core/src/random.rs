//! TensorFlow's counter-based random number generation: Philox-4x32-10 keyed by the
//! op's `(seed, seed2)`, and the distributions TF's random ops draw from it.
//!
//! Everything here reproduces TF's CPU kernels bit for bit (the same stream layout,
//! the same float construction and Box-Muller transform), so a graph with fixed
//! seeds gives the numbers TensorFlow gives. It is hand-written rather than taken
//! from a crate because the layout must match TF's exactly: how a seed pair becomes
//! key and counter, how `Skip` carries, and how groups of outputs map to 128-bit
//! blocks (which is also what makes the fill parallel: block `g` is computable
//! without generating blocks `0..g`).
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use parking_lot::Mutex;

const W32A: u32 = 0x9E37_79B9;
const W32B: u32 = 0xBB67_AE85;
const M4X32A: u32 = 0xD251_1F53;
const M4X32B: u32 = 0xCD9E_8D57;

/// The Philox-4x32-10 generator: each call yields one 128-bit block (4 x u32) and
/// advances the 128-bit counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Philox {
    key: [u32; 2],
    counter: [u32; 4],
}

#[inline]
fn mul_hi_lo(a: u32, b: u32) -> (u32, u32) {
    let p = u64::from(a) * u64::from(b);
    #[allow(clippy::cast_possible_truncation)]
    (p as u32, (p >> 32) as u32)
}

#[allow(clippy::cast_possible_truncation)]
impl Philox {
    /// TF's `PhiloxRandom(seed_lo, seed_hi)`: `seed` is the key, `seed2` the upper
    /// half of the counter.
    pub fn new(seed: u64, seed2: u64) -> Self {
        Philox { key: [seed as u32, (seed >> 32) as u32], counter: [0, 0, seed2 as u32, (seed2 >> 32) as u32] }
    }

    /// The key and the counter: what a device kernel needs to produce the same stream.
    pub fn state(&self) -> ([u32; 2], [u32; 4]) {
        (self.key, self.counter)
    }

    /// Skips `count` blocks (TF's carry rule, including its quirks for huge counts).
    pub fn skip(&mut self, count: u64) {
        let lo = count as u32;
        let mut hi = (count >> 32) as u32;
        self.counter[0] = self.counter[0].wrapping_add(lo);
        if self.counter[0] < lo {
            hi = hi.wrapping_add(1);
        }
        self.counter[1] = self.counter[1].wrapping_add(hi);
        if self.counter[1] < hi {
            self.counter[2] = self.counter[2].wrapping_add(1);
            if self.counter[2] == 0 {
                self.counter[3] = self.counter[3].wrapping_add(1);
            }
        }
    }

    fn skip_one(&mut self) {
        for c in &mut self.counter {
            *c = c.wrapping_add(1);
            if *c != 0 {
                break;
            }
        }
    }

    /// The next 128-bit block.
    #[inline]
    pub fn next_block(&mut self) -> [u32; 4] {
        let mut c = self.counter;
        let mut k = self.key;
        for round in 0..10 {
            let (lo0, hi0) = mul_hi_lo(M4X32A, c[0]);
            let (lo1, hi1) = mul_hi_lo(M4X32B, c[2]);
            c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
            if round < 9 {
                k = [k[0].wrapping_add(W32A), k[1].wrapping_add(W32B)];
            }
        }
        self.skip_one();
        c
    }
}

/// TF's `SingleSampleAdapter`: hands out a block's four words one at a time.
pub struct SingleSample<'a> {
    philox: &'a mut Philox,
    block: [u32; 4],
    used: usize,
}

impl<'a> SingleSample<'a> {
    /// An adapter over `philox` with no buffered words.
    pub fn new(philox: &'a mut Philox) -> Self {
        SingleSample { philox, block: [0; 4], used: 4 }
    }
    /// The next 32-bit word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        next_word(self.philox, &mut self.block, &mut self.used)
    }
}

/// The next word of a block read one word at a time (`used` of its 4 taken).
#[inline]
fn next_word(philox: &mut Philox, block: &mut [u32; 4], used: &mut usize) -> u32 {
    if *used == 4 {
        *block = philox.next_block();
        *used = 0;
    }
    *used += 1;
    block[*used - 1]
}

/// [`SingleSample`] owning its generator: a stream kept across calls (a shuffle
/// iterator's, a seed generator's).
#[derive(Clone, Copy, Debug)]
pub struct WordStream {
    philox: Philox,
    block: [u32; 4],
    used: usize,
}

impl WordStream {
    /// The words of `Philox::new(seed, seed2)`, from the first.
    pub fn new(seed: u64, seed2: u64) -> Self {
        WordStream { philox: Philox::new(seed, seed2), block: [0; 4], used: 4 }
    }
    /// The next 32-bit word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        next_word(&mut self.philox, &mut self.block, &mut self.used)
    }
}

/// A float in `[0, 1)` from the low 23 bits of `x`.
#[inline]
pub fn uint32_to_f32(x: u32) -> f32 {
    f32::from_bits((127 << 23) | (x & 0x7f_ffff)) - 1.0
}

/// A half in `[0, 1)` from the low 10 bits of `x` (TF's `Uint16ToHalf`).
#[inline]
pub fn uint16_to_f16(x: u32) -> half::f16 {
    // The value in [1, 2) less one is exact in half.
    #[allow(clippy::cast_possible_truncation)]
    let bits = (15 << 10) | (x as u16 & 0x3ff);
    half::f16::from_bits(bits) - half::f16::ONE
}

/// A bfloat16 in `[0, 1)` from the low 7 bits of `x` (TF's `Uint16ToGfloat16`).
#[inline]
pub fn uint16_to_bf16(x: u32) -> half::bf16 {
    #[allow(clippy::cast_possible_truncation)]
    let bits = (127 << 7) | (x as u16 & 0x7f);
    half::bf16::from_bits(bits) - half::bf16::ONE
}

/// A double in `[0, 1)` from 52 bits of `x0:x1`.
#[inline]
pub fn uint64_to_f64(x0: u32, x1: u32) -> f64 {
    let man = (u64::from(x0 & 0xf_ffff) << 32) | u64::from(x1);
    f64::from_bits((1023 << 52) | man) - 1.0
}

/// Two standard normals from two words (TF's `BoxMullerFloat`, whose angle is
/// computed in double precision because `M_PI` is a double).
#[inline]
#[allow(clippy::cast_possible_truncation)]
pub fn box_muller_f32(x0: u32, x1: u32) -> [f32; 2] {
    let u1 = uint32_to_f32(x0).max(1.0e-7);
    let v1 = (2.0 * std::f64::consts::PI * f64::from(uint32_to_f32(x1))) as f32;
    let u2 = (-2.0f32 * u1.ln()).sqrt();
    let (s, c) = v1.sin_cos();
    [s * u2, c * u2]
}

/// Two standard normals from four words (TF's `BoxMullerDouble`).
#[inline]
pub fn box_muller_f64(x0: u32, x1: u32, x2: u32, x3: u32) -> [f64; 2] {
    let u1 = uint64_to_f64(x0, x1).max(1.0e-7);
    let v1 = 2.0 * std::f64::consts::PI * uint64_to_f64(x2, x3);
    let u2 = (-2.0 * u1.ln()).sqrt();
    let (s, c) = v1.sin_cos();
    [s * u2, c * u2]
}

/// An op's `(seed, seed2)` as Philox seeds: `(0, 0)` means seeded
/// nondeterministically, as in TF.
pub fn op_seeds(seed: i64, seed2: i64) -> (u64, u64) {
    if seed == 0 && seed2 == 0 {
        let entropy = RandomState::new();
        (entropy.hash_one(1u8), entropy.hash_one(2u8))
    } else {
        (seed.cast_unsigned(), seed2.cast_unsigned())
    }
}

/// TF's `GuardedPhiloxRandom`: the per-kernel generator every run reserves a fresh,
/// non-overlapping stretch of blocks from.
pub struct GuardedPhilox {
    generator: Mutex<Philox>,
}

impl GuardedPhilox {
    /// A generator for an op's `(seed, seed2)` attrs; `(0, 0)` means seeded
    /// nondeterministically, as in TF.
    pub fn new(seed: i64, seed2: i64) -> Self {
        let (s, s2) = op_seeds(seed, seed2);
        GuardedPhilox { generator: Mutex::new(Philox::new(s, s2)) }
    }

    /// Returns the generator at its current position and skips it past `blocks`.
    pub fn reserve_blocks(&self, blocks: u64) -> Philox {
        let mut g = self.generator.lock();
        let local = *g;
        g.skip(blocks);
        local
    }

    /// TF's `ReserveRandomOutputs`: room for `outputs` values at up to `multiplier`
    /// words each (the random ops reserve 256 per output, enough for rejection).
    pub fn reserve_outputs(&self, outputs: usize, multiplier: u64) -> Philox {
        self.reserve_blocks(outputs as u64 * multiplier)
    }

    /// TF's `ReserveSamples32`: room for `words` 32-bit samples.
    pub fn reserve_words(&self, words: u64) -> Philox {
        self.reserve_blocks(words.div_ceil(4))
    }
}

/// A distribution that turns each 128-bit block into a fixed group of `N` values.
pub trait BlockDistribution<T>: Sync {
    /// Values per block.
    const N: usize;
    /// The group of values block `b` yields (`out.len() == N`, or fewer for the tail).
    fn fill(&self, b: [u32; 4], out: &mut [T]);
}

/// Uniform `[0, 1)` floats: four per block.
pub struct UniformF32;
impl BlockDistribution<f32> for UniformF32 {
    const N: usize = 4;
    fn fill(&self, b: [u32; 4], out: &mut [f32]) {
        for (o, w) in out.iter_mut().zip(b) {
            *o = uint32_to_f32(w);
        }
    }
}

/// Uniform `[0, 1)` 16-bit floats (`half` or `bfloat16`): four per block, one from
/// each word's low bits, as TF's 16-bit uniform distributions.
pub struct Uniform16<T>(pub fn(u32) -> T);
impl<T: Send + Sync> BlockDistribution<T> for Uniform16<T> {
    const N: usize = 4;
    fn fill(&self, b: [u32; 4], out: &mut [T]) {
        for (o, w) in out.iter_mut().zip(b) {
            *o = (self.0)(w);
        }
    }
}

/// Uniform `[0, 1)` doubles: two per block.
pub struct UniformF64;
impl BlockDistribution<f64> for UniformF64 {
    const N: usize = 2;
    fn fill(&self, b: [u32; 4], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = uint64_to_f64(b[2 * i], b[2 * i + 1]);
        }
    }
}

/// Standard normal floats: four per block.
pub struct NormalF32;
impl BlockDistribution<f32> for NormalF32 {
    const N: usize = 4;
    fn fill(&self, b: [u32; 4], out: &mut [f32]) {
        let v = [box_muller_f32(b[0], b[1]), box_muller_f32(b[2], b[3])];
        for (o, x) in out.iter_mut().zip(v.as_flattened()) {
            *o = *x;
        }
    }
}

/// Standard normal doubles: two per block.
pub struct NormalF64;
impl BlockDistribution<f64> for NormalF64 {
    const N: usize = 2;
    fn fill(&self, b: [u32; 4], out: &mut [f64]) {
        let v = box_muller_f64(b[0], b[1], b[2], b[3]);
        for (o, x) in out.iter_mut().zip(v) {
            *o = x;
        }
    }
}

/// Uniform int32 in `[lo, lo + range)`: four per block.
pub struct UniformI32 {
    /// Lower bound.
    pub lo: i32,
    /// `hi - lo`, as unsigned (it may exceed `i32::MAX`).
    pub range: u32,
}
impl BlockDistribution<i32> for UniformI32 {
    const N: usize = 4;
    #[allow(clippy::cast_possible_wrap)]
    fn fill(&self, b: [u32; 4], out: &mut [i32]) {
        for (o, w) in out.iter_mut().zip(b) {
            *o = self.lo.wrapping_add((w % self.range) as i32);
        }
    }
}

/// Uniform int64 in `[lo, lo + range)`: two per block.
pub struct UniformI64 {
    /// Lower bound.
    pub lo: i64,
    /// `hi - lo`, as unsigned.
    pub range: u64,
}
impl BlockDistribution<i64> for UniformI64 {
    const N: usize = 2;
    #[allow(clippy::cast_possible_wrap)]
    fn fill(&self, b: [u32; 4], out: &mut [i64]) {
        for (i, o) in out.iter_mut().enumerate() {
            let bits = u64::from(b[2 * i]) | (u64::from(b[2 * i + 1]) << 32);
            *o = self.lo.wrapping_add((bits % self.range) as i64);
        }
    }
}

/// Fills `chunk`, which starts at element `offset` of the output, from the stream
/// at `base` (block `g` gives output group `g`). `offset` is a multiple of `D::N`.
pub fn fill_blocks<T, D: BlockDistribution<T>>(dist: &D, base: Philox, offset: usize, chunk: &mut [T]) {
    debug_assert_eq!(offset % D::N, 0);
    let mut philox = base;
    philox.skip((offset / D::N) as u64);
    for group in chunk.chunks_mut(D::N) {
        dist.fill(philox.next_block(), group);
    }
}

/// Blocks reserved per truncated-normal group: TF restarts each group's rejection
/// sampling this far into the stream, so groups are independent of each other.
const TRUNCATED_BLOCKS_PER_GROUP_VALUE: u64 = 256 / 4;

/// Fills `chunk` (starting at element `offset`) with standard normals truncated to
/// `(-2, 2)` by rejection, `n` values per group (4 for f32, 2 for f64), as TF's
/// `TruncatedNormalDistribution` over a `SingleSampleAdapter`.
pub fn fill_truncated<T: Copy>(
    base: Philox,
    offset: usize,
    chunk: &mut [T],
    n: usize,
    pair: impl Fn(&mut SingleSample<'_>) -> [T; 2],
    inside: impl Fn(T) -> bool,
) {
    debug_assert_eq!(offset % n, 0);
    for (i, group) in chunk.chunks_mut(n).enumerate() {
        let g = (offset / n + i) as u64;
        let mut philox = base;
        philox.skip(g * n as u64 * TRUNCATED_BLOCKS_PER_GROUP_VALUE);
        let mut words = SingleSample::new(&mut philox);
        let mut filled = 0;
        'group: loop {
            for v in pair(&mut words) {
                if inside(v) {
                    group[filled] = v;
                    filled += 1;
                    if filled == group.len() {
                        break 'group;
                    }
                }
            }
        }
    }
}

/// Fisher-Yates as TF's `RandomShuffle`: position `i` swaps with `i + u % (n - i)`,
/// drawing exactly `n - 1` words. Returns the permutation of `0..n`.
pub fn shuffle_permutation(n: usize, mut philox: Philox) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    let mut words = SingleSample::new(&mut philox);
    for i in 0..n.saturating_sub(1) {
        let span = n - i;
        let r = if let Ok(span32) = u32::try_from(span) {
            (words.next_u32() % span32) as usize
        } else {
            // Dimensions past 2^32 take two words per draw.
            let bits = u64::from(words.next_u32()) | (u64::from(words.next_u32()) << 32);
            (bits % span as u64) as usize
        };
        perm.swap(i, i + r);
    }
    perm
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_matches_the_reference_vectors() {
        // Known-answer tests of Random123's Philox4x32-10 (kat_vectors): key and
        // counter zero, and all ones.
        let mut g = Philox { key: [0, 0], counter: [0; 4] };
        assert_eq!(g.next_block(), [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]);
        let mut g = Philox { key: [u32::MAX; 2], counter: [u32::MAX; 4] };
        assert_eq!(g.next_block(), [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]);
    }

    #[test]
    fn skip_equals_drawing() {
        let mut a = Philox::new(7, 11);
        let mut b = a;
        for _ in 0..5 {
            a.next_block();
        }
        b.skip(5);
        assert_eq!(a, b);
        let mut c = Philox { key: [1, 2], counter: [u32::MAX, 0, 0, 0] };
        c.skip(1);
        assert_eq!(c.counter, [0, 1, 0, 0]);
    }

    #[test]
    fn floats_are_in_the_unit_interval() {
        assert_eq!(uint32_to_f32(0), 0.0);
        assert!(uint32_to_f32(u32::MAX) < 1.0);
        assert_eq!(uint64_to_f64(0, 0), 0.0);
        assert!(uint64_to_f64(u32::MAX, u32::MAX) < 1.0);
    }

    #[test]
    fn chunked_fill_equals_one_pass() {
        let base = Philox::new(1, 2);
        let mut whole = vec![0f32; 37];
        fill_blocks(&NormalF32, base, 0, &mut whole);
        let mut parts = vec![0f32; 37];
        let (a, b) = parts.split_at_mut(16);
        fill_blocks(&NormalF32, base, 16, b);
        fill_blocks(&NormalF32, base, 0, a);
        assert_eq!(whole, parts);
        let tn = |w: &mut SingleSample<'_>| box_muller_f32(w.next_u32(), w.next_u32());
        let mut t = vec![0f32; 10];
        fill_truncated(base, 0, &mut t, 4, tn, |v: f32| v.abs() < 2.0);
        assert!(t.iter().all(|v| v.abs() < 2.0));
        let mut t2 = vec![0f32; 6];
        fill_truncated(base, 4, &mut t2, 4, tn, |v: f32| v.abs() < 2.0);
        assert_eq!(&t[4..], &t2[..]);
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut p = shuffle_permutation(100, Philox::new(3, 4));
        p.sort_unstable();
        assert_eq!(p, (0..100).collect::<Vec<_>>());
        assert_eq!(shuffle_permutation(1, Philox::new(3, 4)), vec![0]);
    }
}
