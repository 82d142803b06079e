//! Stride-1 convolutions of inputs with few channels (an RGB first layer) as products
//! of sliding windows, without an im2col copy.
//!
//! Pad one image once, to `hp x wp` pixels with `wp = ow + kw - 1`, and number its
//! output positions `r = oy * wp + ox` over the padded width (the last `kw - 1`
//! columns of each row are computed and dropped). Filter row `i`'s taps of position
//! `r` are then the `kw * c` elements starting at pixel `r + i * dh * wp`: consecutive
//! positions' windows start one pixel (`c` elements) apart, so all of them form one
//! strided matrix over the padded image, read in place by the GEMM. The forward pass is
//! `kh` products `Y += window_i · F_i` (`F_i` the filter's row `i`, `kw * c x o`); the
//! filter gradient is `dF_i += window_iᵀ · dY`. With three channels, im2col's copies
//! of 27-element patches cost more than its product; here only the padded image and
//! the product over the padded width (`wp / ow` more rows) are extra.
use super::ExecEnv;
use super::conv::{ConvGeometry, sum_over_units};
use super::matmul::{Strided, gemm_strided};
use super::num::Float;
use crate::dtype::DType;

/// Input channels below which the sliding windows beat im2col (at 16 and above,
/// im2col's copies are long runs and its product is wide enough).
pub(super) const NARROW_CHANNELS: usize = 16;

/// Whether the convolution runs here: float32 or float64, few input channels, stride
/// 1, no dilation across columns, and a window larger than one pixel.
pub(super) fn applies<T: Float>(g: &ConvGeometry) -> bool {
    matches!(T::DTYPE, DType::Float32 | DType::Float64)
        && g.c < NARROW_CHANNELS
        && g.sh == 1
        && g.sw == 1
        && g.dw == 1
        && g.kh * g.kw > 1
        && g.oh > 0
        && g.ow > 0
}

/// The padded geometry: `(hp, wp)`, and the elements of a padded image (with `kw - 1`
/// zero pixels after its end, which the last window reads).
fn padded(g: &ConvGeometry) -> (usize, usize, usize) {
    let (hp, wp) = (g.oh + (g.kh - 1) * g.dh, g.ow + g.kw - 1);
    (hp, wp, (hp * wp + g.kw - 1) * g.c)
}

/// Copies image `img` (`h x w x c`) into `pad`, surrounded by zeros.
fn pad_image<T: Float>(img: &[T], g: &ConvGeometry, pad: &mut [T]) {
    let (hp, wp, _) = padded(g);
    let c = g.c;
    // Columns of the padded row that hold input columns: [lo, hi).
    let (lo, hi) = (g.pad_left.min(wp), (g.pad_left + g.w).min(wp));
    for (py, row) in pad.chunks_exact_mut(wp * c).take(hp).enumerate() {
        let iy = py.wrapping_sub(g.pad_top);
        if iy >= g.h || hi <= lo {
            row.fill(T::ZERO);
            continue;
        }
        row[..lo * c].fill(T::ZERO);
        row[lo * c..hi * c].copy_from_slice(&img[iy * g.w * c..][..(hi - lo) * c]);
        row[hi * c..].fill(T::ZERO);
    }
    pad[hp * wp * c..].fill(T::ZERO);
}

/// The windows of filter row `i` over a padded image: `positions x (kw * c)`.
fn windows<'a, T>(pad: &'a [T], g: &ConvGeometry, i: usize) -> Strided<'a, T> {
    let (_, wp, _) = padded(g);
    let c = g.c;
    Strided { data: &pad[i * g.dh * wp * c..], rows: g.oh * wp, cols: g.kw * c, row_stride: c, col_stride: 1 }
}

/// The forward convolution of `xs` with `fs` into `ys`, every element written.
pub(super) fn conv2d<T: Float>(xs: &[T], fs: &[T], g: &ConvGeometry, env: &ExecEnv, ys: &mut [T]) {
    let (_, wp, pad_len) = padded(g);
    let (c, o) = (g.c, g.o);
    let (image_in, image_out) = (g.h * g.w * c, g.oh * g.ow * o);
    let image_flops = g.oh * wp * g.kh * g.kw * c * o;
    let min_images = (1usize << 17).div_ceil(image_flops.max(1)).max(1);
    env.for_each_chunk(ys, min_images * image_out, image_out, |offset, chunk| {
        let (mut pad, mut yp) = (vec![T::ZERO; pad_len], vec![T::ZERO; g.oh * wp * o]);
        for (j, y) in chunk.chunks_exact_mut(image_out).enumerate() {
            let img = offset / image_out + j;
            pad_image(&xs[img * image_in..][..image_in], g, &mut pad);
            if !direct::conv2d(&pad, fs, g, &mut yp) {
                for i in 0..g.kh {
                    let f = &fs[i * g.kw * c * o..][..g.kw * c * o];
                    let filter_row = Strided { data: f, rows: g.kw * c, cols: o, row_stride: o, col_stride: 1 };
                    gemm_strided(&mut yp, windows(&pad, g, i), filter_row, i > 0);
                }
            }
            for (dst, src) in y.chunks_exact_mut(g.ow * o).zip(yp.chunks_exact(wp * o)) {
                dst.copy_from_slice(&src[..g.ow * o]);
            }
        }
    });
}

/// The forward pass as a direct register-blocked kernel for float32 with at most four
/// input channels and output channels in multiples of 16 (an RGB first layer): each
/// block of 8 positions x 16 output channels is 8 vector accumulators, and each of the
/// `kh * kw * c` taps adds a broadcast pixel times one filter vector to each (a fused
/// multiply-add on FMA targets), as oneDNN's direct kernel does. The GEMM over the
/// sliding windows packs its overlapping windows and has only `kw * c` (9) terms per
/// pass; this reads the padded image in place.
mod direct {
    use super::super::conv::ConvGeometry;
    use super::super::num::Float;
    use super::padded;
    use crate::dtype::DType;

    /// Positions per block.
    const P: usize = 8;
    /// Output channels per block (one AVX-512 vector, two AVX2 ones).
    const L: usize = 16;

    /// Fills `yp` (positions over the padded width x `o`) when the kernel applies; false
    /// (nothing written) when it does not.
    pub(super) fn conv2d<T: Float>(pad: &[T], fs: &[T], g: &ConvGeometry, yp: &mut [T]) -> bool {
        if T::DTYPE != DType::Float32 || g.c > 4 || !g.o.is_multiple_of(L) {
            return false;
        }
        // SAFETY: T is f32 (checked above), so each slice is the same memory as f32s.
        let (pad, fs, yp) = unsafe {
            (
                std::slice::from_raw_parts(pad.as_ptr().cast::<f32>(), pad.len()),
                std::slice::from_raw_parts(fs.as_ptr().cast::<f32>(), fs.len()),
                std::slice::from_raw_parts_mut(yp.as_mut_ptr().cast::<f32>(), yp.len()),
            )
        };
        match g.c {
            1 => blocks::<1>(pad, fs, g, yp),
            2 => blocks::<2>(pad, fs, g, yp),
            3 => blocks::<3>(pad, fs, g, yp),
            _ => blocks::<4>(pad, fs, g, yp),
        }
        true
    }

    #[multiversion::multiversion(targets(
        "x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl",
        "x86_64+avx2+fma",
        "aarch64+neon"
    ))]
    fn blocks<const C: usize>(pad: &[f32], fs: &[f32], g: &ConvGeometry, yp: &mut [f32]) {
        // AVX-512F implies FMA (the clone's feature list does not name it).
        const FMA: bool = multiversion::target::target_cfg_f!(any(target_feature = "fma", target_feature = "avx512f"));
        let (_, wp, pad_len) = padded(g);
        let (o, taps) = (g.o, g.kw * C);
        let positions = g.oh * wp;
        // Every tap of position r reads pixel r + i * dh * wp + t / C, below
        // `pad_len / C` for r < positions; the last block reads past `positions`.
        assert!(pad.len() >= pad_len && yp.len() >= positions * o && fs.len() >= g.kh * taps * o);
        for ob in (0..o).step_by(L) {
            let mut r0 = 0;
            while r0 < positions {
                let n = P.min(positions - r0);
                let mut acc = [[0.0f32; L]; P];
                for i in 0..g.kh {
                    let start = (r0 + i * g.dh * wp) * C;
                    // The window rows of this block: `n` positions' taps, one pixel apart.
                    let window = &pad[start..start + (n - 1) * C + taps];
                    let filter = &fs[i * taps * o..][..taps * o];
                    for t in 0..taps {
                        let f: &[f32; L] = filter[t * o + ob..][..L].try_into().unwrap_or(&[0.0; L]);
                        // SAFETY: p < n and t < taps, so p * C + t < window.len().
                        let pixel = |p: usize| unsafe { *window.get_unchecked(p * C + t) };
                        // The two loops differ only in `take(n)`: a whole block's
                        // constant trip count lets the loop unroll into one vector FMA per
                        // accumulator. The body stays written out twice: moved into a
                        // closure or an inlined helper, one build (the criterion bench's)
                        // vectorised across the pixels with gathers instead, 40x slower.
                        if n == P {
                            for (p, a) in acc.iter_mut().enumerate() {
                                let x = pixel(p);
                                for (a, &f) in a.iter_mut().zip(f) {
                                    *a = if FMA { x.mul_add(f, *a) } else { *a + x * f };
                                }
                            }
                        } else {
                            for (p, a) in acc.iter_mut().enumerate().take(n) {
                                let x = pixel(p);
                                for (a, &f) in a.iter_mut().zip(f) {
                                    *a = if FMA { x.mul_add(f, *a) } else { *a + x * f };
                                }
                            }
                        }
                    }
                }
                for (p, a) in acc.iter().enumerate().take(n) {
                    yp[(r0 + p) * o + ob..][..L].copy_from_slice(a);
                }
                r0 += n;
            }
        }
    }
}

/// The filter gradient of the convolution [`conv2d`] computes, into the zeroed
/// `kh x kw x c x o` `dw`: images split over the threads, partial sums added.
pub(super) fn backprop_filter<T: Float>(xs: &[T], dys: &[T], g: &ConvGeometry, env: &ExecEnv, dw: &mut [T]) {
    let (_, wp, pad_len) = padded(g);
    let (c, o) = (g.c, g.o);
    let (image_in, image_out) = (g.h * g.w * c, g.oh * g.ow * o);
    let image_flops = g.oh * wp * g.kh * g.kw * c * o;
    sum_over_units(env, g.n, image_flops, dw, |acc, images| {
        // The output gradient over the padded width: its extra columns stay zero.
        let (mut pad, mut dyp) = (vec![T::ZERO; pad_len], vec![T::ZERO; g.oh * wp * o]);
        for img in images {
            pad_image(&xs[img * image_in..][..image_in], g, &mut pad);
            let dy = &dys[img * image_out..][..image_out];
            for (dst, src) in dyp.chunks_exact_mut(wp * o).zip(dy.chunks_exact(g.ow * o)) {
                dst[..g.ow * o].copy_from_slice(src);
            }
            let grad = Strided { data: &dyp[..], rows: g.oh * wp, cols: o, row_stride: o, col_stride: 1 };
            for i in 0..g.kh {
                let w = windows(&pad, g, i);
                let transposed = Strided {
                    data: w.data,
                    rows: w.cols,
                    cols: w.rows,
                    row_stride: w.col_stride,
                    col_stride: w.row_stride,
                };
                gemm_strided(&mut acc[i * g.kw * c * o..][..g.kw * c * o], transposed, grad, true);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_direct_sums_with_every_padding_and_dilation() {
        let value = |i: usize| ((i * 7919) % 1000) as f64 / 500.0 - 1.0;
        for (h, w, c, kh, kw, dh, pad, n, threads) in [
            (7usize, 5usize, 3usize, 3usize, 3usize, 1usize, 1usize, 2usize, 1usize),
            (6, 9, 1, 5, 2, 1, 0, 3, 2),
            (8, 6, 4, 3, 3, 2, 2, 2, 2),
            (5, 5, 3, 2, 3, 1, 3, 1, 1),
        ] {
            let o = 5;
            // Rows: dilated window; columns: `pad` either side (clipped to a valid size).
            let oh = h + 2 * pad - (kh - 1) * dh;
            let ow = w + 2 * pad - (kw - 1);
            let g =
                ConvGeometry { n, h, w, c, kh, kw, o, sh: 1, sw: 1, dh, dw: 1, oh, ow, pad_top: pad, pad_left: pad };
            assert!(applies::<f64>(&g));
            let xs: Vec<f64> = (0..n * h * w * c).map(value).collect();
            let fs: Vec<f64> = (0..kh * kw * c * o).map(|i| value(i + 11)).collect();
            let dys: Vec<f64> = (0..n * oh * ow * o).map(|i| value(i + 23)).collect();
            let want_y = crate::kernels::conv::tests::naive(&xs, &fs, &g);
            let want_dw = crate::kernels::conv::tests::naive_filter_grad(&xs, &dys, &g);
            let env = if threads == 1 {
                ExecEnv::SINGLE_THREADED
            } else {
                ExecEnv { intra_pool: crate::framework::pool::shared_pool(threads) }
            };
            let mut ys = vec![f64::NAN; want_y.len()];
            conv2d(&xs, &fs, &g, &env, &mut ys);
            let mut dw = vec![0.0; want_dw.len()];
            backprop_filter(&xs, &dys, &g, &env, &mut dw);
            for (got, want) in ys.iter().zip(&want_y).chain(dw.iter().zip(&want_dw)) {
                assert!((got - want).abs() < 1e-12 * want.abs().max(1.0), "{got} vs {want}");
            }
        }
    }

    #[test]
    fn the_direct_float32_kernel_matches_the_direct_sums() {
        // One to four input channels and 16-channel output blocks: `direct::conv2d`,
        // with position counts that leave a partial last block of 8.
        let value = |i: usize| ((i * 7919) % 1000) as f32 / 500.0 - 1.0;
        for (h, w, c, kh, kw, dh, pad, o) in [
            (7usize, 5usize, 3usize, 3usize, 3usize, 1usize, 1usize, 32usize),
            (6, 9, 1, 5, 2, 1, 0, 16),
            (8, 6, 4, 3, 3, 2, 2, 48),
            (5, 5, 2, 2, 3, 1, 3, 16),
        ] {
            let n = 2;
            let oh = h + 2 * pad - (kh - 1) * dh;
            let ow = w + 2 * pad - (kw - 1);
            let g =
                ConvGeometry { n, h, w, c, kh, kw, o, sh: 1, sw: 1, dh, dw: 1, oh, ow, pad_top: pad, pad_left: pad };
            let xs: Vec<f32> = (0..n * h * w * c).map(value).collect();
            let fs: Vec<f32> = (0..kh * kw * c * o).map(|i| value(i + 11)).collect();
            let wide = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
            let want = crate::kernels::conv::tests::naive(&wide(&xs), &wide(&fs), &g);
            let mut ys = vec![f32::NAN; want.len()];
            conv2d(&xs, &fs, &g, &ExecEnv::SINGLE_THREADED, &mut ys);
            for (&got, &want) in ys.iter().zip(&want) {
                assert!((f64::from(got) - want).abs() < 1e-5 * want.abs().max(1.0), "{got} vs {want}");
            }
        }
    }
}
