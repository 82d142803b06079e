//! Winograd's F(2x2, 3x3) for stride-1, undilated 3x3 convolutions in float32 and
//! float64 (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks", 2015).
//!
//! Each 2x2 block of outputs ("tile") comes from a 4x4 block of the input: the input
//! block and the filter are transformed (`V = Bᵀ d B`, `U = G g Gᵀ`), multiplied
//! element by element (16 products per input and output channel pair where the direct
//! sum takes 36), and transformed back (`Y = Aᵀ M Aᵀ`). Over channels the 16 products
//! are 16 matrix products, `M[k] = V[k] · U[k]`, batched over a block of tiles and run
//! by the `gemm` crate: 2.25x fewer multiply-adds than im2col's product. The
//! transforms' constants are 0, ±1 and ±1/2, so results differ from the direct sum
//! by rounding only (about one more ulp of the sum's magnitude).
//!
//! Blocks of tiles run in parallel by image (a tile's outputs are its own), each
//! transforming a block into a scratch matrix small enough to stay in cache.
use multiversion::multiversion;

use super::ExecEnv;
use super::conv::ConvGeometry;
use super::matmul::{MatRef, gemm_into};
use super::num::Float;
use crate::dtype::DType;

/// The 16 transformed positions of a tile.
const POSITIONS: usize = 16;

/// Tiles per block: the block's transformed input and products (16 x tiles x
/// channels each) stay in the core's L2 at 64 channels.
const BLOCK_TILES: usize = 256;
/// Tiles per block of the filter gradient: few enough that the block's transformed
/// inputs and output gradients (16 x tiles x (c + o)) stay in L2, enough that each
/// product's pass over its part of the 16 x c x o accumulator is amortised (measured:
/// 64 at 32-64 channels, 256 at 128).
fn filter_block_tiles(c: usize, o: usize) -> usize {
    (c * o / 64).clamp(64, 256)
}

/// Whether the convolution is one F(2x2, 3x3) computes, and large enough to gain:
/// 3x3, stride 1, no dilation, in float32 or float64, with enough channels that
/// the 16 products are real matrix products.
pub(super) fn applies<T: Float>(g: &ConvGeometry) -> bool {
    matches!(T::DTYPE, DType::Float32 | DType::Float64)
        && g.kh == 3
        && g.kw == 3
        && g.sh == 1
        && g.sw == 1
        && g.dh == 1
        && g.dw == 1
        && g.c >= 16
        && g.o >= 16
        && g.oh >= 2
        && g.ow >= 2
}

/// `U = G g Gᵀ` for every input and output channel: `[16][c][o]`, row-major, from the
/// `[3][3][c][o]` filter.
fn transform_filter<T: Float>(fs: &[T], c: usize, o: usize) -> Vec<T> {
    let half = T::from_f64(0.5);
    let co = c * o;
    let mut u = vec![T::ZERO; POSITIONS * co];
    // G times a column (a, b, c): G's rows are (1, 0, 0), (1/2, 1/2, 1/2),
    // (1/2, -1/2, 1/2) and (0, 0, 1).
    let g_times = |a: T, b: T, c: T| [a, half.mul(a.add(b).add(c)), half.mul(a.sub(b).add(c)), c];
    for e in 0..co {
        let f: [[T; 3]; 3] = std::array::from_fn(|r| std::array::from_fn(|s| fs[(r * 3 + s) * co + e]));
        // G f (4 x 3), column by column; then (G f) Gᵀ, row by row.
        let cols: [[T; 4]; 3] = std::array::from_fn(|s| g_times(f[0][s], f[1][s], f[2][s]));
        for i in 0..4 {
            for (j, value) in g_times(cols[0][i], cols[1][i], cols[2][i]).into_iter().enumerate() {
                u[(i * 4 + j) * co + e] = value;
            }
        }
    }
    u
}

/// `out[i] = f(a[i], b[i])` (a loop LLVM vectorises).
#[inline(always)]
fn zip2<T: Float>(out: &mut [T], a: &[T], b: &[T], f: impl Fn(T, T) -> T) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

/// `out[i] = f(a[i], b[i], c[i])`.
#[inline(always)]
fn zip3<T: Float>(out: &mut [T], a: &[T], b: &[T], c: &[T], f: impl Fn(T, T, T) -> T) {
    for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = f(x, y, z);
    }
}

/// Per-thread buffers of one chunk of images.
struct Scratch<T> {
    /// Transformed inputs of a block: `[16][BLOCK_TILES][c]`.
    v: Vec<T>,
    /// Products of a block: `[16][BLOCK_TILES][o]`.
    m: Vec<T>,
    /// `Bᵀ d` of one tile (16 channel vectors), then `Aᵀ M` (8 output-channel vectors).
    tmp: Vec<T>,
    /// One tile's four output pixels.
    y: Vec<T>,
    /// A zero pixel (padding).
    zeros: Vec<T>,
}

/// The forward convolution of `xs` (`n x h x w x c`) with the filter `fs`
/// (`3 x 3 x c x o`) into `ys` (`n x oh x ow x o`), every element written.
pub(super) fn conv2d<T: Float>(xs: &[T], fs: &[T], g: &ConvGeometry, env: &ExecEnv, ys: &mut [T]) {
    let (c, o) = (g.c, g.o);
    let u = transform_filter(fs, c, o);
    let (tiles_h, tiles_w) = (g.oh.div_ceil(2), g.ow.div_ceil(2));
    let per_image = tiles_h * tiles_w;
    let (image_in, image_out) = (g.h * g.w * c, g.oh * g.ow * o);
    // Images worth a thread: 16 products of (tiles x c x o) multiply-adds each.
    let image_flops = POSITIONS * per_image * c * o;
    let min_images = (1usize << 17).div_ceil(image_flops.max(1)).max(1);
    env.for_each_chunk(ys, min_images * image_out, image_out, |offset, chunk| {
        let first = offset / image_out;
        let total = chunk.len() / image_out * per_image;
        let mut sc = Scratch {
            v: vec![T::ZERO; POSITIONS * BLOCK_TILES * c],
            m: vec![T::ZERO; POSITIONS * BLOCK_TILES * o],
            tmp: vec![T::ZERO; POSITIONS * c.max(o)],
            y: vec![T::ZERO; 4 * o],
            zeros: vec![T::ZERO; c],
        };
        for start in (0..total).step_by(BLOCK_TILES) {
            let count = BLOCK_TILES.min(total - start);
            let tile = |t: usize| {
                let q = start + t;
                (q / per_image, q % per_image / tiles_w, q % per_image % tiles_w)
            };
            for t in 0..count {
                let (img, ty, tx) = tile(t);
                let x = &xs[(first + img) * image_in..][..image_in];
                let pixel = |r: usize, s: usize| -> &[T] {
                    let iy = (2 * ty + r).wrapping_sub(g.pad_top);
                    let ix = (2 * tx + s).wrapping_sub(g.pad_left);
                    if iy < g.h && ix < g.w { &x[(iy * g.w + ix) * c..][..c] } else { &sc.zeros }
                };
                let d: [[&[T]; 4]; 4] = std::array::from_fn(|r| std::array::from_fn(|s| pixel(r, s)));
                input_tile(&d, &mut sc.tmp, &mut sc.v, t, c, BLOCK_TILES);
            }
            for k in 0..POSITIONS {
                let lhs =
                    MatRef { data: &sc.v[k * BLOCK_TILES * c..][..count * c], rows: count, cols: c, transpose: false };
                let rhs = MatRef { data: &u[k * c * o..][..c * o], rows: c, cols: o, transpose: false };
                gemm_into(&mut sc.m[k * BLOCK_TILES * o..][..count * o], lhs, rhs, false);
            }
            for t in 0..count {
                let (img, ty, tx) = tile(t);
                output_tile(&sc.m, &mut sc.tmp, &mut sc.y, t, o);
                let y = &mut chunk[img * image_out..][..image_out];
                for (k, values) in sc.y.chunks_exact(o).enumerate() {
                    let (oy, ox) = (2 * ty + k / 2, 2 * tx + k % 2);
                    if oy < g.oh && ox < g.ow {
                        y[(oy * g.ow + ox) * o..][..o].copy_from_slice(values);
                    }
                }
            }
        }
    });
}

/// The filter gradient of the convolution [`conv2d`] computes, into the zeroed
/// `3 x 3 x c x o` `dw`: by the same tiles, `dW = Gᵀ [Σ_tiles (Bᵀ d B) ⊙ (A dY Aᵀ)] G`
/// (the forward's transforms, transposed). Over channels the 16 sums are 16 matrix
/// products `M[k] += V[k]ᵀ · W[k]` per block of tiles (`W = A dY Aᵀ`), partial sums on
/// the threads; the filter transform back happens once at the end.
pub(super) fn backprop_filter<T: Float>(xs: &[T], dys: &[T], g: &ConvGeometry, env: &ExecEnv, dw: &mut [T]) {
    let (c, o) = (g.c, g.o);
    let (tiles_h, tiles_w) = (g.oh.div_ceil(2), g.ow.div_ceil(2));
    let per_image = tiles_h * tiles_w;
    let total = g.n * per_image;
    let (image_in, image_out) = (g.h * g.w * c, g.oh * g.ow * o);
    let block = filter_block_tiles(c, o);
    let blocks = total.div_ceil(block);
    let mut m = vec![T::ZERO; POSITIONS * c * o];
    super::conv::sum_over_units(env, blocks, POSITIONS * block * c * o, &mut m, |acc, range| {
        let mut sc = Scratch {
            v: vec![T::ZERO; POSITIONS * block * c],
            m: vec![T::ZERO; POSITIONS * block * o],
            tmp: vec![T::ZERO; POSITIONS * c.max(o)],
            y: Vec::new(),
            zeros: vec![T::ZERO; c.max(o)],
        };
        for b in range {
            let start = b * block;
            let count = block.min(total - start);
            for t in 0..count {
                let q = start + t;
                let (img, ty, tx) = (q / per_image, q % per_image / tiles_w, q % per_image % tiles_w);
                let x = &xs[img * image_in..][..image_in];
                let pixel = |r: usize, s: usize| -> &[T] {
                    let iy = (2 * ty + r).wrapping_sub(g.pad_top);
                    let ix = (2 * tx + s).wrapping_sub(g.pad_left);
                    if iy < g.h && ix < g.w { &x[(iy * g.w + ix) * c..][..c] } else { &sc.zeros[..c] }
                };
                let d: [[&[T]; 4]; 4] = std::array::from_fn(|r| std::array::from_fn(|s| pixel(r, s)));
                input_tile(&d, &mut sc.tmp, &mut sc.v, t, c, block);
                let dy = &dys[img * image_out..][..image_out];
                let grad = |r: usize, s: usize| -> &[T] {
                    let (oy, ox) = (2 * ty + r, 2 * tx + s);
                    if oy < g.oh && ox < g.ow { &dy[(oy * g.ow + ox) * o..][..o] } else { &sc.zeros[..o] }
                };
                let e: [[&[T]; 2]; 2] = std::array::from_fn(|r| std::array::from_fn(|s| grad(r, s)));
                grad_tile(&e, &mut sc.tmp, &mut sc.m, t, o, block);
            }
            for k in 0..POSITIONS {
                let lhs = MatRef { data: &sc.v[k * block * c..][..count * c], rows: count, cols: c, transpose: true };
                let rhs = MatRef { data: &sc.m[k * block * o..][..count * o], rows: count, cols: o, transpose: false };
                gemm_into(&mut acc[k * c * o..][..c * o], lhs, rhs, true);
            }
        }
    });
    untransform_filter(&m, c, o, dw);
}

/// Writes `A e Aᵀ` of one tile's 2x2 output-gradient vectors `e` to `w[k][t][..o]`
/// (`A`'s rows: (1, 0), (1, 1), (1, -1), (0, -1)).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn grad_tile<T: Float>(e: &[[&[T]; 2]; 2], tmp: &mut [T], w: &mut [T], t: usize, o: usize, block: usize) {
    // tmp[i][j] = (A e)[i][j] for i < 4, j < 2.
    for j in 0..2 {
        let (e0, e1) = (e[0][j], e[1][j]);
        tmp[j * o..][..o].copy_from_slice(e0);
        zip2(&mut tmp[(2 + j) * o..][..o], e0, e1, T::add);
        zip2(&mut tmp[(4 + j) * o..][..o], e0, e1, T::sub);
        zip2(&mut tmp[(6 + j) * o..][..o], e1, e1, |_, b| b.neg());
    }
    for i in 0..4 {
        let (x0, x1) = (&tmp[(i * 2) * o..][..o], &tmp[(i * 2 + 1) * o..][..o]);
        let at = |k: usize| (k * block + t) * o;
        w[at(i * 4)..][..o].copy_from_slice(x0);
        zip2(&mut w[at(i * 4 + 1)..][..o], x0, x1, T::add);
        zip2(&mut w[at(i * 4 + 2)..][..o], x0, x1, T::sub);
        zip2(&mut w[at(i * 4 + 3)..][..o], x1, x1, |_, b| b.neg());
    }
}

/// `dw[r][s][c][o] = (Gᵀ M[c][o] G)[r][s]` from `m` (`[16][c][o]`), the transpose of
/// [`transform_filter`].
fn untransform_filter<T: Float>(m: &[T], c: usize, o: usize, dw: &mut [T]) {
    let half = T::from_f64(0.5);
    let co = c * o;
    // Gᵀ times a 4-vector (a, b, c, d): Gᵀ's rows are (1, 1/2, 1/2, 0), (0, 1/2, -1/2, 0)
    // and (0, 1/2, 1/2, 1).
    let gt_times = |a: T, b: T, c: T, d: T| [a.add(half.mul(b.add(c))), half.mul(b.sub(c)), half.mul(b.add(c)).add(d)];
    for e in 0..co {
        let q: [[T; 4]; 4] = std::array::from_fn(|i| std::array::from_fn(|j| m[(i * 4 + j) * co + e]));
        // Gᵀ M (3 x 4), column by column; then (Gᵀ M) G, row by row.
        let cols: [[T; 3]; 4] = std::array::from_fn(|j| gt_times(q[0][j], q[1][j], q[2][j], q[3][j]));
        for r in 0..3 {
            for (s, value) in gt_times(cols[0][r], cols[1][r], cols[2][r], cols[3][r]).into_iter().enumerate() {
                dw[(r * 3 + s) * co + e] = value;
            }
        }
    }
}

/// Writes `Bᵀ d B` of one tile's 4x4 channel vectors `d` to `v[k][t][..c]` (`Bᵀ`'s
/// rows: (1, 0, -1, 0), (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, 0, -1)).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn input_tile<T: Float>(d: &[[&[T]; 4]; 4], tmp: &mut [T], v: &mut [T], t: usize, c: usize, block: usize) {
    // tmp[r][s] = (Bᵀ d)[r][s], each a channel vector.
    for s in 0..4 {
        let (d0, d1, d2, d3) = (d[0][s], d[1][s], d[2][s], d[3][s]);
        zip2(&mut tmp[s * c..][..c], d0, d2, T::sub);
        zip2(&mut tmp[(4 + s) * c..][..c], d1, d2, T::add);
        zip2(&mut tmp[(8 + s) * c..][..c], d2, d1, T::sub);
        zip2(&mut tmp[(12 + s) * c..][..c], d1, d3, T::sub);
    }
    for r in 0..4 {
        let row = |s: usize| &tmp[(r * 4 + s) * c..][..c];
        let (t0, t1, t2, t3) = (row(0), row(1), row(2), row(3));
        let at = |k: usize| (k * block + t) * c;
        zip2(&mut v[at(r * 4)..][..c], t0, t2, T::sub);
        zip2(&mut v[at(r * 4 + 1)..][..c], t1, t2, T::add);
        zip2(&mut v[at(r * 4 + 2)..][..c], t2, t1, T::sub);
        zip2(&mut v[at(r * 4 + 3)..][..c], t1, t3, T::sub);
    }
}

/// One tile's 2x2 outputs `Aᵀ M A` from `m[k][t][..o]` into `y` (four output-channel
/// vectors, row-major; `Aᵀ`'s rows: (1, 1, 1, 0), (0, 1, -1, -1)).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn output_tile<T: Float>(m: &[T], tmp: &mut [T], y: &mut [T], t: usize, o: usize) {
    let q = |k: usize| &m[(k * BLOCK_TILES + t) * o..][..o];
    // tmp[i][col] = (Aᵀ M)[i][col].
    for col in 0..4 {
        zip3(&mut tmp[col * o..][..o], q(col), q(4 + col), q(8 + col), |a, b, c| a.add(b).add(c));
        zip3(&mut tmp[(4 + col) * o..][..o], q(4 + col), q(8 + col), q(12 + col), |a, b, c| a.sub(b).sub(c));
    }
    for i in 0..2 {
        let s = |col: usize| &tmp[(i * 4 + col) * o..][..o];
        zip3(&mut y[(i * 2) * o..][..o], s(0), s(1), s(2), |a, b, c| a.add(b).add(c));
        zip3(&mut y[(i * 2 + 1) * o..][..o], s(1), s(2), s(3), |a, b, c| a.sub(b).sub(c));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_gradient_matches_im2cols_with_odd_sizes_and_every_padding() {
        for (h, w, pad, n, threads) in [(7usize, 5usize, 1usize, 2usize, 1usize), (6, 9, 0, 1, 2), (5, 5, 2, 3, 2)] {
            let (c, o) = (17, 19);
            let g = geometry(n, h, w, c, o, pad);
            let (oh, ow) = (g.oh, g.ow);
            let value = |i: usize| ((i * 7919) % 1000) as f64 / 500.0 - 1.0;
            let xs: Vec<f64> = (0..n * h * w * c).map(value).collect();
            let dys: Vec<f64> = (0..n * oh * ow * o).map(|i| value(i + 29)).collect();
            let want = crate::kernels::conv::tests::naive_filter_grad(&xs, &dys, &g);
            let env = if threads == 1 {
                ExecEnv::SINGLE_THREADED
            } else {
                ExecEnv { intra_pool: crate::framework::pool::shared_pool(threads) }
            };
            let mut got = vec![0.0; 9 * c * o];
            backprop_filter(&xs, &dys, &g, &env, &mut got);
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-11 * w.abs().max(1.0), "{g} vs {w}");
            }
        }
    }

    /// A 3x3, stride-1 convolution padded by `pad` on every side.
    fn geometry(n: usize, h: usize, w: usize, c: usize, o: usize, pad: usize) -> ConvGeometry {
        let (oh, ow) = (h + 2 * pad - 2, w + 2 * pad - 2);
        ConvGeometry { n, h, w, c, kh: 3, kw: 3, o, sh: 1, sw: 1, dh: 1, dw: 1, oh, ow, pad_top: pad, pad_left: pad }
    }

    #[test]
    fn matches_the_direct_sum_with_odd_sizes_and_every_padding() {
        let env = ExecEnv::SINGLE_THREADED;
        for (h, w, pad, n) in [(7usize, 5usize, 1usize, 2usize), (6, 9, 0, 1), (5, 5, 2, 3)] {
            let (c, o) = (17, 19);
            let g = geometry(n, h, w, c, o, pad);
            let (oh, ow) = (g.oh, g.ow);
            assert!(applies::<f64>(&g));
            let value = |i: usize| ((i * 7919) % 1000) as f64 / 500.0 - 1.0;
            let xs: Vec<f64> = (0..n * h * w * c).map(value).collect();
            let fs: Vec<f64> = (0..9 * c * o).map(|i| value(i + 13)).collect();
            let mut ys = vec![f64::NAN; n * oh * ow * o];
            conv2d(&xs, &fs, &g, &env, &mut ys);
            for (got, want) in ys.iter().zip(crate::kernels::conv::tests::naive(&xs, &fs, &g)) {
                assert!((got - want).abs() < 1e-12 * want.abs().max(1.0), "{got} vs {want}");
            }
        }
    }
}
