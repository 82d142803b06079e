//! Max and average pooling over NHWC (2-D) and NDHWC (3-D) windows, and their
//! gradients. Channels are innermost, so every window step is a contiguous,
//! vectorisable pass over `c` values; images (or, for one image, nothing smaller) run
//! in parallel. A 2-D pooling is the 3-D one with a depth of 1.
use super::ExecEnv;
use super::conv::{Padding, windowed_output};
use super::num::Float;
use crate::error::Result;
use crate::tensor::Tensor;

/// Shapes of one pooling: input `n x d x h x w x c`, window `kd x kh x kw`, output
/// `n x od x oh x ow x c` (`d = kd = od = 1` for a 2-D pooling).
#[derive(Clone, Copy, Debug)]
pub struct PoolGeometry {
    /// Batch.
    pub n: usize,
    /// Input planes (depth).
    pub d: usize,
    /// Input rows.
    pub h: usize,
    /// Input columns.
    pub w: usize,
    /// Channels.
    pub c: usize,
    /// Window planes.
    pub kd: usize,
    /// Window rows.
    pub kh: usize,
    /// Window columns.
    pub kw: usize,
    /// Plane stride.
    pub sd: usize,
    /// Row stride.
    pub sh: usize,
    /// Column stride.
    pub sw: usize,
    /// Output planes.
    pub od: usize,
    /// Output rows.
    pub oh: usize,
    /// Output columns.
    pub ow: usize,
    /// Padding planes in front.
    pub pad_front: usize,
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
        Self::new_3d(&[n, 1, h, w, c], [1, window[0], window[1]], [1, strides[0], strides[1]], padding)
    }

    /// The geometry of pooling `input` (NDHWC) with window `[kd, kh, kw]` and `strides`.
    pub fn new_3d(
        input: &[usize],
        window: [usize; 3],
        strides: [usize; 3],
        padding: Padding,
    ) -> std::result::Result<Self, String> {
        let [n, d, h, w, c]: [usize; 5] =
            input.try_into().map_err(|_| format!("input must be 5-dimensional, got {} dimensions", input.len()))?;
        let (od, pad_front) = windowed_output(d, window[0], 1, strides[0], padding)?;
        let (oh, pad_top) = windowed_output(h, window[1], 1, strides[1], padding)?;
        let (ow, pad_left) = windowed_output(w, window[2], 1, strides[2], padding)?;
        Ok(PoolGeometry {
            n,
            d,
            h,
            w,
            c,
            kd: window[0],
            kh: window[1],
            kw: window[2],
            sd: strides[0],
            sh: strides[1],
            sw: strides[2],
            od,
            oh,
            ow,
            pad_front,
            pad_top,
            pad_left,
        })
    }

    /// The element offsets (within one image) of the input pixels that the window of
    /// output pixel `p` covers, padding excluded, in plane-then-row-then-column order;
    /// each pixel's `c` channels start there.
    fn window(&self, p: usize) -> impl ExactSizeIterator<Item = usize> + Clone + use<> {
        let (od, rest) = (p / (self.oh * self.ow), p % (self.oh * self.ow));
        let (oh, ow) = (rest / self.ow, rest % self.ow);
        let start = |o: usize, stride: usize, pad: usize| (o * stride) as isize - pad as isize;
        let clamp = |v: isize, hi: usize| v.clamp(0, hi as isize) as usize;
        let span = |s: isize, k: usize, hi: usize| clamp(s, hi)..clamp(s + k as isize, hi);
        let planes = span(start(od, self.sd, self.pad_front), self.kd, self.d);
        let rows = span(start(oh, self.sh, self.pad_top), self.kh, self.h);
        let cols = span(start(ow, self.sw, self.pad_left), self.kw, self.w);
        let (h, w, c, width, area) = (self.h, self.w, self.c, cols.len(), rows.len() * cols.len());
        (0..planes.len() * area).map(move |i| {
            let (z, r) = (planes.start + i / area, i % area);
            (((z * h + rows.start + r / width) * w) + cols.start + r % width) * c
        })
    }

    fn image_in(&self) -> usize {
        self.d * self.h * self.w * self.c
    }
    fn image_out(&self) -> usize {
        self.od * self.oh * self.ow * self.c
    }
    /// The output's shape: NHWC for a 2-D pooling, NDHWC for a 3-D one.
    fn out_shape(&self, three_d: bool) -> Vec<usize> {
        self.shape(three_d, [self.od, self.oh, self.ow])
    }
    /// The input's shape, in the same layout.
    fn in_shape(&self, three_d: bool) -> Vec<usize> {
        self.shape(three_d, [self.d, self.h, self.w])
    }
    fn shape(&self, three_d: bool, [d, h, w]: [usize; 3]) -> Vec<usize> {
        if three_d { vec![self.n, d, h, w, self.c] } else { vec![self.n, h, w, self.c] }
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
    let mut out = Tensor::zeros(x.dtype(), &g.out_shape(x.shape().len() == 5))?;
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
    let mut dx = Tensor::zeros(x.dtype(), &g.in_shape(x.shape().len() == 5))?;
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
    let mut out = Tensor::zeros(x.dtype(), &g.out_shape(x.shape().len() == 5))?;
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
    let mut out = Tensor::zeros(x.dtype(), &g.out_shape(x.shape().len() == 5))?;
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
    let mut dx = Tensor::zeros(dy.dtype(), &g.in_shape(dy.shape().len() == 5))?;
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
