//! Max and average pooling over NHWC windows, and their gradients. Channels are
//! innermost, so every window step is a contiguous, vectorisable pass over `c`
//! values; images (or, for one image, nothing smaller) run in parallel.
use super::ExecEnv;
use super::conv::{Padding, windowed_output};
use super::num::Float;
use crate::error::Result;
use crate::tensor::Tensor;

/// Shapes of one pooling: input `n x h x w x c`, window `kh x kw`, output `n x oh x ow x c`.
#[derive(Clone, Copy, Debug)]
pub struct PoolGeometry {
    /// Batch.
    pub n: usize,
    /// Input rows.
    pub h: usize,
    /// Input columns.
    pub w: usize,
    /// Channels.
    pub c: usize,
    /// Window rows.
    pub kh: usize,
    /// Window columns.
    pub kw: usize,
    /// Row stride.
    pub sh: usize,
    /// Column stride.
    pub sw: usize,
    /// Output rows.
    pub oh: usize,
    /// Output columns.
    pub ow: usize,
    /// Padding rows above.
    pub pad_top: usize,
    /// Padding columns to the left.
    pub pad_left: usize,
}

impl PoolGeometry {
    /// The geometry of pooling `input` (NHWC) with window `[kh, kw]` and `strides`.
    pub fn new(
        input: &[usize],
        window: [usize; 2],
        strides: [usize; 2],
        padding: Padding,
    ) -> std::result::Result<Self, String> {
        let [n, h, w, c]: [usize; 4] =
            input.try_into().map_err(|_| format!("input must be 4-dimensional, got {} dimensions", input.len()))?;
        let (oh, pad_top) = windowed_output(h, window[0], 1, strides[0], padding)?;
        let (ow, pad_left) = windowed_output(w, window[1], 1, strides[1], padding)?;
        Ok(PoolGeometry {
            n,
            h,
            w,
            c,
            kh: window[0],
            kw: window[1],
            sh: strides[0],
            sw: strides[1],
            oh,
            ow,
            pad_top,
            pad_left,
        })
    }

    /// The element offsets (within one image) of the input pixels that the window of
    /// output pixel `p` covers, padding excluded, in row-then-column order; each pixel's
    /// `c` channels start there.
    fn window(&self, p: usize) -> impl ExactSizeIterator<Item = usize> + Clone + use<> {
        let (oh, ow) = (p / self.ow, p % self.ow);
        let (r0, c0) =
            ((oh * self.sh) as isize - self.pad_top as isize, (ow * self.sw) as isize - self.pad_left as isize);
        let clamp = |v: isize, hi: usize| v.clamp(0, hi as isize) as usize;
        let rows = clamp(r0, self.h)..clamp(r0 + self.kh as isize, self.h);
        let cols = clamp(c0, self.w)..clamp(c0 + self.kw as isize, self.w);
        let (w, c, width) = (self.w, self.c, cols.len());
        (0..rows.len() * width).map(move |i| ((rows.start + i / width) * w + cols.start + i % width) * c)
    }

    fn image_in(&self) -> usize {
        self.h * self.w * self.c
    }
    fn image_out(&self) -> usize {
        self.oh * self.ow * self.c
    }
}

/// Minimum work per thread, in output elements of one image.
const MIN_CHUNK: usize = 1 << 14;

/// Runs `f(image, out_image)` for every image of `out` (split into `per_image` chunks).
fn per_image<T: Send>(env: &ExecEnv, out: &mut [T], per_image: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    if per_image == 0 {
        return;
    }
    let min = per_image * MIN_CHUNK.div_ceil(per_image);
    env.for_each_chunk(out, min, per_image, |offset, chunk| {
        for (j, img) in chunk.chunks_exact_mut(per_image).enumerate() {
            f(offset / per_image + j, img);
        }
    });
}

/// `MaxPool`.
pub fn max_pool<T: Float>(x: &Tensor, g: &PoolGeometry, env: &ExecEnv) -> Result<Tensor> {
    let xs = x.as_slice::<T>()?;
    let mut out = Tensor::zeros(x.dtype(), &[g.n, g.oh, g.ow, g.c])?;
    per_image(env, out.as_mut_slice::<T>()?, g.image_out(), |n, img_out| {
        let img = &xs[n * g.image_in()..][..g.image_in()];
        for (p, dst) in img_out.chunks_exact_mut(g.c).enumerate() {
            dst.fill(T::LOWEST);
            for base in g.window(p) {
                // `Num::max` propagates NaN.
                dst.iter_mut().zip(&img[base..][..g.c]).for_each(|(d, &s)| *d = d.max(s));
            }
        }
    });
    Ok(out)
}

/// `MaxPoolGrad`: each output's gradient goes to the first maximum of its window
/// (scanning rows, then columns), as TF's CPU kernel does; overlapping windows add up.
pub fn max_pool_grad<T: Float>(x: &Tensor, dy: &Tensor, g: &PoolGeometry, env: &ExecEnv) -> Result<Tensor> {
    let (xs, dys) = (x.as_slice::<T>()?, dy.as_slice::<T>()?);
    let mut dx = Tensor::zeros(x.dtype(), &[g.n, g.h, g.w, g.c])?;
    per_image(env, dx.as_mut_slice::<T>()?, g.image_in(), |n, dimg| {
        let img = &xs[n * g.image_in()..][..g.image_in()];
        let grads = &dys[n * g.image_out()..][..g.image_out()];
        let mut best = vec![T::LOWEST; g.c];
        let mut arg = vec![usize::MAX; g.c];
        for (p, gy) in grads.chunks_exact(g.c).enumerate() {
            best.fill(T::LOWEST);
            arg.fill(usize::MAX);
            for base in g.window(p) {
                for (ch, &s) in img[base..][..g.c].iter().enumerate() {
                    if arg[ch] == usize::MAX || s > best[ch] {
                        best[ch] = s;
                        arg[ch] = base + ch;
                    }
                }
            }
            for (&i, &v) in arg.iter().zip(gy) {
                if i != usize::MAX {
                    dimg[i] = dimg[i].add(v);
                }
            }
        }
    });
    Ok(dx)
}

/// `MaxPoolGradGrad`: each output takes the incoming gradient `gx` (shaped like the
/// input) at the window element equal to the pooled maximum `y`; TF's CPU kernel
/// keeps the last such element in row-then-column order, and so do we.
pub fn max_pool_grad_grad<T: Float>(
    x: &Tensor,
    y: &Tensor,
    gx: &Tensor,
    g: &PoolGeometry,
    env: &ExecEnv,
) -> Result<Tensor> {
    let (xs, ys, gxs) = (x.as_slice::<T>()?, y.as_slice::<T>()?, gx.as_slice::<T>()?);
    let mut out = Tensor::zeros(x.dtype(), &[g.n, g.oh, g.ow, g.c])?;
    per_image(env, out.as_mut_slice::<T>()?, g.image_out(), |n, img_out| {
        let img = &xs[n * g.image_in()..][..g.image_in()];
        let grads = &gxs[n * g.image_in()..][..g.image_in()];
        let pooled = &ys[n * g.image_out()..][..g.image_out()];
        for (p, dst) in img_out.chunks_exact_mut(g.c).enumerate() {
            let maxima = &pooled[p * g.c..][..g.c];
            for base in g.window(p) {
                let (vals, gs) = (&img[base..][..g.c], &grads[base..][..g.c]);
                for (((d, &m), &v), &gv) in dst.iter_mut().zip(maxima).zip(vals).zip(gs) {
                    if v == m {
                        *d = gv;
                    }
                }
            }
        }
    });
    Ok(out)
}

/// `AvgPool`: the mean over the window's elements inside the input (padding is not counted).
pub fn avg_pool<T: Float>(x: &Tensor, g: &PoolGeometry, env: &ExecEnv) -> Result<Tensor> {
    let xs = x.as_slice::<T>()?;
    let mut out = Tensor::zeros(x.dtype(), &[g.n, g.oh, g.ow, g.c])?;
    per_image(env, out.as_mut_slice::<T>()?, g.image_out(), |n, img_out| {
        let img = &xs[n * g.image_in()..][..g.image_in()];
        for (p, dst) in img_out.chunks_exact_mut(g.c).enumerate() {
            let window = g.window(p);
            let count = T::from_usize(window.len());
            for base in window {
                dst.iter_mut().zip(&img[base..][..g.c]).for_each(|(d, &s)| *d = d.add(s));
            }
            dst.iter_mut().for_each(|d| *d = d.div(count));
        }
    });
    Ok(out)
}

/// `AvgPoolGrad`: spreads each output's gradient evenly over its window.
pub fn avg_pool_grad<T: Float>(dy: &Tensor, g: &PoolGeometry, env: &ExecEnv) -> Result<Tensor> {
    let dys = dy.as_slice::<T>()?;
    let mut dx = Tensor::zeros(dy.dtype(), &[g.n, g.h, g.w, g.c])?;
    per_image(env, dx.as_mut_slice::<T>()?, g.image_in(), |n, dimg| {
        let grads = &dys[n * g.image_out()..][..g.image_out()];
        let mut share = vec![T::ZERO; g.c];
        for (p, gy) in grads.chunks_exact(g.c).enumerate() {
            let window = g.window(p);
            let count = T::from_usize(window.len());
            share.iter_mut().zip(gy).for_each(|(s, &v)| *s = v.div(count));
            for base in window {
                dimg[base..][..g.c].iter_mut().zip(&share).for_each(|(d, &s)| *d = d.add(s));
            }
        }
    });
    Ok(dx)
}
