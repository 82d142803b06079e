//! Component planes to pixels as libjpeg-turbo produces them: `jdsample.c`'s
//! upsampling (the fancy triangle filters with their alternating biases, or box
//! replication) and `jdcolor.c`'s colour conversions, then TF's own CMYK -> RGB.

use multiversion::multiversion;

use crate::kernels::image_codec::fix;

/// How a component's samples become full-size rows (`jinit_upsampler`'s choice).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Upsample {
    /// Already full size.
    Full,
    /// Each sample repeated `h x v` times (`int_upsample`, `h2v1_upsample`, ...).
    Box { h: usize, v: usize },
    /// 2:1 across, triangle filter (`h2v1_fancy_upsample`).
    FancyH2V1,
    /// 2:1 down (`h1v2_fancy_upsample`).
    FancyH1V2,
    /// 2:1 both ways (`h2v2_fancy_upsample`).
    FancyH2V2,
}

/// One component's decoded samples.
pub(super) struct Plane {
    pub data: Vec<u8>,
    pub stride: usize,
    /// The real samples (`downsampled_width` x `downsampled_height`); what lies beyond
    /// is padding from whole blocks, never read by the filters.
    pub width: usize,
    pub height: usize,
    pub upsample: Upsample,
}

impl Plane {
    fn row(&self, y: usize) -> &[u8] {
        let y = y.min(self.height - 1);
        &self.data[y * self.stride..y * self.stride + self.width]
    }

    /// Output row `y` of this component, `out.len()` samples wide: borrowed from the
    /// plane when it is full size, else upsampled into `out`.
    pub(super) fn upsampled<'p>(&'p self, y: usize, out: &'p mut [u8]) -> &'p [u8] {
        let n = out.len();
        match self.upsample {
            Upsample::Full => &self.data[y * self.stride..y * self.stride + n],
            Upsample::Box { h, v } => {
                let src = &self.data[(y / v) * self.stride..];
                for (x, o) in out.iter_mut().enumerate() {
                    *o = src[x / h];
                }
                out
            }
            Upsample::FancyH2V1 => {
                fancy_h2v1(self.row(y), out);
                out
            }
            Upsample::FancyH1V2 => {
                let (near, far, bias) = self.vertical_pair(y);
                for (x, o) in out.iter_mut().enumerate() {
                    *o = ((3 * u16::from(near[x]) + u16::from(far[x]) + bias) >> 2) as u8;
                }
                out
            }
            Upsample::FancyH2V2 => {
                let (near, far, _) = self.vertical_pair(y);
                fancy_h2v2(near, far, out);
                out
            }
        }
    }

    /// The nearer and further input rows of output row `y` (2:1 vertically), the
    /// image's edge rows repeated, and `h1v2`'s bias (1 above, 2 below).
    fn vertical_pair(&self, y: usize) -> (&[u8], &[u8], u16) {
        let near = y / 2;
        if y.is_multiple_of(2) {
            (self.row(near), self.row(near.saturating_sub(1)), 1)
        } else {
            (self.row(near), self.row(near + 1), 2)
        }
    }
}

/// `h2v1_fancy_upsample`: 3/4 of the nearer sample and 1/4 of the further, biased 1
/// and 2 alternately; the edge samples repeat.
fn fancy_h2v1(row: &[u8], out: &mut [u8]) {
    let w = row.len();
    let at = |i: usize| u16::from(row[i]);
    for (i, pair) in out.chunks_mut(2).enumerate() {
        let i = i.min(w - 1);
        let this = 3 * at(i);
        pair[0] = ((this + at(i.saturating_sub(1)) + 1) >> 2) as u8;
        if let Some(p) = pair.get_mut(1) {
            *p = ((this + at((i + 1).min(w - 1)) + 2) >> 2) as u8;
        }
    }
}

/// `h2v2_fancy_upsample`: column sums `3 * near + far`, then across as in h2v1 with
/// biases 8 and 7 at 1/16. The sums go through a buffer so both steps vectorise.
#[multiversion(targets("x86_64+avx2+fma", "aarch64+neon"))]
fn fancy_h2v2(near: &[u8], far: &[u8], out: &mut [u8]) {
    let w = near.len();
    // Column sums with the edge columns repeated: cs[i + 1] is column i.
    let mut cs = vec![0u16; w + 2];
    for ((c, &n), &f) in cs[1..=w].iter_mut().zip(near).zip(far) {
        *c = 3 * u16::from(n) + u16::from(f);
    }
    cs[0] = cs[1];
    cs[w + 1] = cs[w];
    for (pair, win) in out.chunks_exact_mut(2).zip(cs.windows(3)) {
        let this = 3 * win[1];
        pair[0] = ((this + win[0] + 8) >> 4) as u8;
        pair[1] = ((this + win[2] + 7) >> 4) as u8;
    }
    if out.len() % 2 == 1 {
        let i = out.len() / 2;
        let last = out.len() - 1;
        out[last] = ((3 * cs[i + 1] + cs[i] + 8) >> 4) as u8;
    }
}

/// The colour conversion from the file's components to the output's samples.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Convert {
    /// Component 0 as it is (gray files, or the luma of YCbCr ones).
    Gray,
    /// `rgb_gray_convert`: the luma of an RGB file.
    RgbToGray,
    /// `gray_rgb_convert`.
    GrayToRgb,
    /// `ycc_rgb_convert`.
    YccToRgb,
    /// `rgb_rgb_convert`: the three planes interleaved.
    Rgb,
    /// CMYK (`null_convert`) or YCCK (`ycck_cmyk_convert`) files, then TF's CMYK ->
    /// RGB (`inverted`: an Adobe file stores the inks inverted).
    Cmyk { ycck: bool, inverted: bool },
}

impl Convert {
    pub(super) fn channels(self) -> usize {
        match self {
            Convert::Gray | Convert::RgbToGray => 1,
            _ => 3,
        }
    }

    /// Converts one output row from the components' rows.
    pub(super) fn row(self, rows: &[&[u8]], out: &mut [u8]) {
        match self {
            Convert::Gray => out.copy_from_slice(&rows[0][..out.len()]),
            Convert::RgbToGray => {
                for (x, o) in out.iter_mut().enumerate() {
                    *o = rgb_to_gray(rows[0][x], rows[1][x], rows[2][x]);
                }
            }
            Convert::GrayToRgb => {
                for (o, &g) in out.chunks_exact_mut(3).zip(rows[0]) {
                    o.fill(g);
                }
            }
            Convert::YccToRgb => ycc_row(rows[0], rows[1], rows[2], out),
            Convert::Rgb => {
                for (x, o) in out.chunks_exact_mut(3).enumerate() {
                    o.copy_from_slice(&[rows[0][x], rows[1][x], rows[2][x]]);
                }
            }
            Convert::Cmyk { ycck, inverted } => {
                for (x, o) in out.chunks_exact_mut(3).enumerate() {
                    let (mut c, mut m, mut y) = (rows[0][x], rows[1][x], rows[2][x]);
                    if ycck {
                        [c, m, y] = ycc_pixel_unclamped(c, m, y).map(|v| (255 - v).clamp(0, 255) as u8);
                    }
                    let k = i32::from(rows[3][x]);
                    let ink = |v: u8| {
                        let v = i32::from(v);
                        (if inverted { k * v / 255 } else { (255 - k) * (255 - v) / 255 }) as u8
                    };
                    o.copy_from_slice(&[ink(c), ink(m), ink(y)]);
                }
            }
        }
    }
}

/// `rgb_gray_convert` (and `jccolor.c`'s luma): 16-bit fixed point, rounded at 1/2.
fn rgb_to_gray(r: u8, g: u8, b: u8) -> u8 {
    let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
    ((fix(0.29900) * r + fix(0.58700) * g + fix(0.11400) * b + ONE_HALF) >> 16) as u8
}

/// libjpeg's YCbCr -> RGB constants (`jdcolor.c`, 16-bit fixed point).
const ONE_HALF: i32 = 1 << 15;
const CR_R: i32 = fix(1.40200);
const CB_B: i32 = fix(1.77200);
const CR_G: i32 = fix(0.71414);
const CB_G: i32 = fix(0.34414);

/// `ycc_rgb_convert`'s R, G and B of one pixel before the range limit (`cb` and `cr`
/// centred on 0).
#[inline(always)]
fn ycc_unclamped(y: i32, cb: i32, cr: i32) -> [i32; 3] {
    [
        y + ((CR_R * cr + ONE_HALF) >> 16),
        y + ((-CB_G * cb + ONE_HALF - CR_G * cr) >> 16),
        y + ((CB_B * cb + ONE_HALF) >> 16),
    ]
}

/// `ycc_rgb_convert` of one pixel.
#[inline(always)]
fn ycc_pixel(y: i32, cb: i32, cr: i32) -> [u8; 3] {
    ycc_unclamped(y, cb, cr).map(|v| v.clamp(0, 255) as u8)
}

/// `ycck_cmyk_convert`'s R, G and B before its inversion and range limit.
fn ycc_pixel_unclamped(y: u8, cb: u8, cr: u8) -> [i32; 3] {
    ycc_unclamped(i32::from(y), i32::from(cb) - 128, i32::from(cr) - 128)
}

/// `ycc_rgb_convert` over a row, 64 pixels at a time through planes so each step runs
/// on vectors.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn ycc_row(y: &[u8], cb: &[u8], cr: &[u8], out: &mut [u8]) {
    const N: usize = 64;
    let n = out.len() / 3;
    let (y, cb, cr) = (&y[..n], &cb[..n], &cr[..n]);
    let mut outs = out.chunks_exact_mut(3 * N);
    for (((o, y), cb), cr) in (&mut outs).zip(y.chunks_exact(N)).zip(cb.chunks_exact(N)).zip(cr.chunks_exact(N)) {
        let (mut r, mut g, mut b) = ([0u8; N], [0u8; N], [0u8; N]);
        for i in 0..N {
            [r[i], g[i], b[i]] = ycc_pixel(i32::from(y[i]), i32::from(cb[i]) - 128, i32::from(cr[i]) - 128);
        }
        for (i, px) in o.chunks_exact_mut(3).enumerate() {
            px[0] = r[i];
            px[1] = g[i];
            px[2] = b[i];
        }
    }
    let done = n / N * N;
    for (i, px) in outs.into_remainder().chunks_exact_mut(3).enumerate() {
        let j = done + i;
        px.copy_from_slice(&ycc_pixel(i32::from(y[j]), i32::from(cb[j]) - 128, i32::from(cr[j]) - 128));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `h2v2_fancy_upsample` transcribed from libjpeg-turbo.
    fn reference_h2v2(near: &[u8], far: &[u8]) -> Vec<u8> {
        let w = near.len();
        let cs: Vec<i32> = (0..w).map(|i| i32::from(near[i]) * 3 + i32::from(far[i])).collect();
        let mut out = vec![(cs[0] * 4 + 8) >> 4, (cs[0] * 3 + cs[1] + 7) >> 4];
        for i in 1..w - 1 {
            out.push((cs[i] * 3 + cs[i - 1] + 8) >> 4);
            out.push((cs[i] * 3 + cs[i + 1] + 7) >> 4);
        }
        out.push((cs[w - 1] * 3 + cs[w - 2] + 8) >> 4);
        out.push((cs[w - 1] * 4 + 7) >> 4);
        out.into_iter().map(|v| v as u8).collect()
    }

    #[test]
    fn fancy_h2v2_is_libjpegs_at_every_width() {
        let mut seed = 7u32;
        for w in 3..300 {
            let mut next = || {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (seed >> 16) as u8
            };
            let near: Vec<u8> = (0..w).map(|_| next()).collect();
            let far: Vec<u8> = (0..w).map(|_| next()).collect();
            let want = reference_h2v2(&near, &far);
            for out_w in [2 * w, 2 * w - 1] {
                let mut out = vec![0u8; out_w];
                fancy_h2v2(&near, &far, &mut out);
                assert_eq!(out, want[..out_w], "width {w} -> {out_w}");
            }
        }
    }

    #[test]
    fn ycc_rows_are_libjpegs_table_conversion_for_every_input() {
        // jdcolor.c's `build_ycc_rgb_table` and `ycc_rgb_convert`, written as there.
        let x = |i: usize| i as i32 - 128;
        let cr_r: Vec<i32> = (0..256).map(|i| (fix(1.40200) * x(i) + ONE_HALF) >> 16).collect();
        let cb_b: Vec<i32> = (0..256).map(|i| (fix(1.77200) * x(i) + ONE_HALF) >> 16).collect();
        let cr_g: Vec<i32> = (0..256).map(|i| -fix(0.71414) * x(i)).collect();
        let cb_g: Vec<i32> = (0..256).map(|i| -fix(0.34414) * x(i) + ONE_HALF).collect();
        let limit = |v: i32| v.clamp(0, 255) as u8;
        // All 2^24 pixels as one row, and a tail shorter than a block.
        let n = (1usize << 24) + 5;
        let planes: [Vec<u8>; 3] = std::array::from_fn(|c| (0..n).map(|p| (p >> (16 - 8 * c)) as u8).collect());
        let want: Vec<u8> = (0..n)
            .flat_map(|p| {
                let (y, cb, cr) = (i32::from(planes[0][p]), usize::from(planes[1][p]), usize::from(planes[2][p]));
                [limit(y + cr_r[cr]), limit(y + ((cb_g[cb] + cr_g[cr]) >> 16)), limit(y + cb_b[cb])]
            })
            .collect();
        let mut out = vec![0u8; 3 * n];
        ycc_row(&planes[0], &planes[1], &planes[2], &mut out);
        assert!(out == want, "a pixel differs from libjpeg's conversion");
    }

    #[test]
    fn fancy_h2v1_edges_repeat() {
        let row = [10u8, 20, 30];
        let mut out = [0u8; 6];
        fancy_h2v1(&row, &mut out);
        // (3*10+10+1)>>2, (30+20+2)>>2, (60+10+1)>>2, (60+30+2)>>2, (90+20+1)>>2, (90+30+2)>>2
        assert_eq!(out, [10, 13, 17, 23, 27, 30]);
    }
}
