//! A baseline JPEG encoder that writes the bytes TensorFlow's `EncodeJpeg` writes.
//!
//! TF encodes with libjpeg-turbo: `jpeg_set_defaults`, `jpeg_set_quality(q, TRUE)`,
//! its JFIF density, 2x2 chroma subsampling unless `chroma_downsampling=False`, the
//! integer ("islow") DCT and the standard Huffman tables (optimal ones with
//! `optimize_size`). Each step here is libjpeg's arithmetic, so the file is TF's to
//! the byte (a test compares them):
//! - colour conversion: `jccolor.c`'s 16-bit fixed point (Y rounds at 1/2, Cb and Cr
//!   at 1/2 - 2^-16);
//! - edges: columns past the image repeat its last column and rows past it its last
//!   row (`jcprepct.c`, `jcsample.c`); chroma rows past the downsampled height repeat
//!   the last chroma row; blocks of an MCU wholly past the image are "dummy" blocks,
//!   zero but for the DC of the block before them (`jccoefct.c`);
//! - 2x2 downsampling: the mean of four with a bias of 1, 2, 1, 2, ... (`jcsample.c`);
//! - `jfdctint.c`'s DCT, then `jcdctmgr.c`'s quantisation by reciprocal multiply;
//! - `jchuff.c`'s entropy coding (and `jpeg_gen_optimal_table`), `jcmarker.c`'s markers.
//!
//! The coefficients of the whole image are computed first, MCU rows in parallel on
//! the intra-op pool, then entropy-coded in order (the DC of each block is coded as a
//! difference from the one before, so that part is sequential).
//! Progressive files are written by the jpeg-encoder crate (not TF's bytes).
use multiversion::multiversion;
use parking_lot::Mutex;

use super::image_codec::fix;
use super::jpeg_tables::*;
use crate::error::{Code, Error, Result};
use crate::framework::kernel::ExecEnv;

/// What `EncodeJpeg`'s attributes ask for (progressive aside).
#[derive(Clone, Debug)]
pub(crate) struct JpegSettings {
    /// 1..=100, scaled into the quantisation tables as `jpeg_set_quality` does.
    pub quality: u8,
    /// 2x2 chroma subsampling (TF's default) or none.
    pub chroma_downsampling: bool,
    /// Huffman tables made for this image (`optimize_size`), else the standard ones.
    pub optimize_coding: bool,
    /// JFIF density unit: 1 = dots per inch, 2 = per centimetre.
    pub density_unit: u8,
    pub x_density: u16,
    pub y_density: u16,
    /// XMP metadata, written in an APP1 marker after TF's namespace.
    pub xmp: Vec<u8>,
}

/// The quantisation tables of JPEG's Annex K (`jcparam.c`), in natural order.
const STD_LUMINANCE_QUANT: [u16; 64] = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51,
    87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101,
    72, 92, 95, 98, 112, 100, 103, 99,
];
const STD_CHROMINANCE_QUANT: [u16; 64] = [
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99,
];

/// `jpeg_quality_scaling` and `jpeg_add_quant_table(.., force_baseline = TRUE)`.
fn quant_table(basic: &[u16; 64], quality: u8) -> [u16; 64] {
    let q = u32::from(quality.clamp(1, 100));
    let scale = if q < 50 { 5000 / q } else { 200 - 2 * q };
    basic.map(|b| ((u32::from(b) * scale + 50) / 100).clamp(1, 255) as u16)
}

/// A quantisation table as `jcdctmgr.c` divides by it after the islow DCT (which
/// leaves its output scaled by 8): per coefficient a 16-bit reciprocal, a rounding
/// correction and a shift (`compute_reciprocal` with 16-bit `DCTELEM`s, as
/// libjpeg-turbo is built with its SIMD code). Natural order.
struct Divisors {
    recip: [u32; 64],
    corr: [u32; 64],
    shift: [u32; 64],
}

impl Divisors {
    fn new(table: &[u16; 64]) -> Divisors {
        let mut d = Divisors { recip: [0; 64], corr: [0; 64], shift: [0; 64] };
        for (i, &q) in table.iter().enumerate() {
            let divisor = u32::from(q) << 3;
            // `flss(divisor) - 1`, the index of the highest set bit.
            let b = 31 - divisor.leading_zeros();
            let mut r = 16 + b;
            let mut fq = (1u32 << r) / divisor;
            let fr = (1u32 << r) % divisor;
            let mut c = divisor / 2;
            if fr == 0 {
                fq >>= 1;
                r -= 1;
            } else if fr <= divisor / 2 {
                c += 1;
            } else {
                fq += 1;
            }
            d.recip[i] = fq;
            d.corr[i] = c;
            d.shift[i] = r;
        }
        d
    }
}

/// A Huffman table: the counts and symbols written in DHT, and per symbol its code
/// and length (`jpeg_make_c_derived_tbl`).
#[derive(Clone)]
struct HuffTable {
    bits: [u8; 16],
    values: Vec<u8>,
    code: [u16; 256],
    size: [u8; 256],
}

impl HuffTable {
    fn new(bits: &[u8; 16], values: &[u8]) -> HuffTable {
        let mut t = HuffTable { bits: *bits, values: values.to_vec(), code: [0; 256], size: [0; 256] };
        let mut code = 0u32;
        let mut k = 0;
        for (len, &count) in bits.iter().enumerate() {
            for _ in 0..count {
                let symbol = usize::from(values[k]);
                t.code[symbol] = code as u16;
                t.size[symbol] = len as u8 + 1;
                code += 1;
                k += 1;
            }
            code <<= 1;
        }
        t
    }

    /// `jpeg_gen_optimal_table`: Huffman's algorithm over the counts (ties to the
    /// larger symbol), a pseudo-symbol 256 keeping any code from being all ones,
    /// lengths over 16 folded as in JPEG's Annex K.2. libjpeg sizes its arrays for
    /// initial lengths up to 32 and fails past them (counts in the billions); these
    /// hold any length 257 symbols can reach, the folding is the same.
    fn optimal(counts: &[u64; 257]) -> HuffTable {
        const MAX_CLEN: usize = 256;
        let mut freq = *counts;
        freq[256] = 1;
        let mut codesize = [0usize; 257];
        let mut others = [usize::MAX; 257];
        loop {
            // The two smallest nonzero frequencies, the larger symbol on ties.
            let (mut c1, mut c2) = (usize::MAX, usize::MAX);
            let (mut v1, mut v2) = (u64::MAX, u64::MAX);
            for (i, &f) in freq.iter().enumerate() {
                if f != 0 && f <= v2 {
                    if f <= v1 {
                        (c2, v2) = (c1, v1);
                        (c1, v1) = (i, f);
                    } else {
                        (c2, v2) = (i, f);
                    }
                }
            }
            if c2 == usize::MAX {
                break;
            }
            freq[c1] += freq[c2];
            freq[c2] = 0;
            codesize[c1] += 1;
            while others[c1] != usize::MAX {
                c1 = others[c1];
                codesize[c1] += 1;
            }
            others[c1] = c2;
            codesize[c2] += 1;
            while others[c2] != usize::MAX {
                c2 = others[c2];
                codesize[c2] += 1;
            }
        }
        let mut bits = [0u32; MAX_CLEN + 1];
        for &size in codesize.iter().filter(|&&size| size > 0) {
            bits[size] += 1;
        }
        let mut i = MAX_CLEN;
        while i > 16 {
            while bits[i] > 0 {
                let mut j = i - 2;
                while bits[j] == 0 {
                    j -= 1;
                }
                bits[i] -= 2;
                bits[i - 1] += 1;
                bits[j + 1] += 2;
                bits[j] -= 1;
            }
            i -= 1;
        }
        while bits[i] == 0 {
            i -= 1;
        }
        bits[i] -= 1;
        // The symbols by code length, then by value (a stable sort of them in order).
        let mut values: Vec<u8> = (0..=255u8).filter(|&s| codesize[usize::from(s)] > 0).collect();
        values.sort_by_key(|&s| codesize[usize::from(s)]);
        let mut table_bits = [0u8; 16];
        for (t, &b) in table_bits.iter_mut().zip(&bits[1..=16]) {
            *t = b as u8;
        }
        HuffTable::new(&table_bits, &values)
    }
}

/// One colour component of the frame.
#[derive(Clone, Copy, Debug)]
struct Component {
    /// Sampling factors.
    h: usize,
    v: usize,
    /// Size in blocks of its (downsampled) plane: blocks past it are dummies.
    width_blocks: usize,
    height_blocks: usize,
    /// Quantisation and Huffman table number (0 luma, 1 chroma).
    table: usize,
}

/// The frame's layout: components, MCUs, the blocks of one MCU.
struct Frame {
    width: usize,
    height: usize,
    channels: usize,
    max_h: usize,
    max_v: usize,
    components: Vec<Component>,
    mcus_x: usize,
    mcus_y: usize,
    /// Blocks in one MCU, all components (`blocks_in_MCU`).
    mcu_blocks: usize,
}

impl Frame {
    fn new(height: usize, width: usize, channels: usize, subsample: bool) -> Frame {
        let (max_h, max_v) = if channels == 3 && subsample { (2, 2) } else { (1, 1) };
        let sampling: &[(usize, usize, usize)] =
            if channels == 1 { &[(1, 1, 0)] } else { &[(max_h, max_v, 0), (1, 1, 1), (1, 1, 1)] };
        let components: Vec<Component> = sampling
            .iter()
            .map(|&(h, v, table)| Component {
                h,
                v,
                width_blocks: (width * h).div_ceil(max_h * 8),
                height_blocks: (height * v).div_ceil(max_v * 8),
                table,
            })
            .collect();
        // One component is coded non-interleaved: an MCU is one block, with no
        // dummies (the others' sampling factors are 1, so one block each too).
        let mcu_blocks = components.iter().map(|c| c.h * c.v).sum();
        Frame {
            width,
            height,
            channels,
            max_h,
            max_v,
            mcus_x: width.div_ceil(8 * max_h),
            mcus_y: height.div_ceil(8 * max_v),
            components,
            mcu_blocks,
        }
    }

    fn row_blocks(&self) -> usize {
        self.mcus_x * self.mcu_blocks
    }

    /// The component of each block of an MCU (`MCU_membership`).
    fn membership(&self) -> Vec<usize> {
        self.components.iter().enumerate().flat_map(|(c, comp)| std::iter::repeat_n(c, comp.h * comp.v)).collect()
    }
}

/// libjpeg's RGB -> YCbCr constants (`jccolor.c`, 16-bit fixed point as the decoder's).
const Y_R: i32 = fix(0.29900);
const Y_G: i32 = fix(0.58700);
const Y_B: i32 = fix(0.11400);
const CB_R: i32 = fix(0.16874);
const CB_G: i32 = fix(0.33126);
const HALF: i32 = fix(0.50000);
const CR_G: i32 = fix(0.41869);
const CR_B: i32 = fix(0.08131);
/// Cb and Cr: centred at 128 and rounded at 1/2 - 2^-16 (so 255 cannot round up).
const CBCR_OFFSET: i32 = (128 << 16) + (1 << 15) - 1;

/// One pixel's Y, Cb and Cr (`rgb_ycc_convert`).
#[inline(always)]
fn ycc(r: i32, g: i32, b: i32) -> [u8; 3] {
    [
        ((Y_R * r + Y_G * g + Y_B * b + (1 << 15)) >> 16) as u8,
        ((HALF * b - CB_R * r - CB_G * g + CBCR_OFFSET) >> 16) as u8,
        ((HALF * r - CR_G * g - CR_B * b + CBCR_OFFSET) >> 16) as u8,
    ]
}

/// Pixels converted together: split into R, G and B planes first, so the arithmetic
/// runs on vectors.
const CONVERT_BLOCK: usize = 16;

/// `ycc` on a block of pixels, split into planes of bytes first (so the stride-3
/// reads become vector shuffles) and converted lane by lane.
#[inline(always)]
fn ycc_block(rgb: &[u8], y: &mut [u8], cb: &mut [u8], cr: &mut [u8]) {
    let mut planes = [[0u8; CONVERT_BLOCK]; 3];
    for (p, px) in rgb.chunks_exact(3).enumerate() {
        planes[0][p] = px[0];
        planes[1][p] = px[1];
        planes[2][p] = px[2];
    }
    for p in 0..CONVERT_BLOCK {
        [y[p], cb[p], cr[p]] = ycc(i32::from(planes[0][p]), i32::from(planes[1][p]), i32::from(planes[2][p]));
    }
}

/// One row of RGB pixels into Y, Cb and Cr rows, each then extended to its full
/// length by repeating the last pixel.
#[inline(always)]
fn rgb_row_to_ycc(rgb: &[u8], y: &mut [u8], cb: &mut [u8], cr: &mut [u8]) {
    let n = rgb.len() / 3;
    let mut blocks = rgb.chunks_exact(3 * CONVERT_BLOCK);
    let mut i = 0;
    for block in &mut blocks {
        let (y, cb, cr) = (&mut y[i..][..CONVERT_BLOCK], &mut cb[i..][..CONVERT_BLOCK], &mut cr[i..][..CONVERT_BLOCK]);
        ycc_block(block, y, cb, cr);
        i += CONVERT_BLOCK;
    }
    for px in blocks.remainder().chunks_exact(3) {
        [y[i], cb[i], cr[i]] = ycc(i32::from(px[0]), i32::from(px[1]), i32::from(px[2]));
        i += 1;
    }
    for plane in [y, cb, cr] {
        let last = plane[n - 1];
        plane[n..].fill(last);
    }
}

/// `h2v2_downsample`: each output sample the mean of a 2x2 square, with a bias of 1
/// and 2 alternating along the row (`out` has an even length). Sixteen outputs at a
/// time, so the pairs are split apart with vector shuffles.
#[inline(always)]
fn downsample_2x2(top: &[u8], bottom: &[u8], out: &mut [u8]) {
    #[inline(always)]
    fn one(t: &[u8], b: &[u8], j: usize) -> u8 {
        let sum = u16::from(t[2 * j]) + u16::from(t[2 * j + 1]) + u16::from(b[2 * j]) + u16::from(b[2 * j + 1]);
        ((sum + 1 + (j as u16 & 1)) >> 2) as u8
    }
    let mut groups = out.chunks_exact_mut(16);
    let mut done = 0;
    for (o, (t, b)) in (&mut groups).zip(top.chunks_exact(32).zip(bottom.chunks_exact(32))) {
        for (j, o) in o.iter_mut().enumerate() {
            *o = one(t, b, j);
        }
        done += 16;
    }
    for (j, o) in groups.into_remainder().iter_mut().enumerate() {
        *o = one(&top[2 * done..], &bottom[2 * done..], j);
    }
}

const CONST_BITS: i32 = 13;
const PASS1_BITS: i32 = 2;
const FIX_0_298631336: i32 = 2446;
const FIX_0_390180644: i32 = 3196;
const FIX_0_541196100: i32 = 4433;
const FIX_0_765366865: i32 = 6270;
const FIX_0_899976223: i32 = 7373;
const FIX_1_175875602: i32 = 9633;
const FIX_1_501321110: i32 = 12299;
const FIX_1_847759065: i32 = 15137;
const FIX_1_961570560: i32 = 16069;
const FIX_2_053119869: i32 = 16819;
const FIX_2_562915447: i32 = 20995;
const FIX_3_072711026: i32 = 25172;

/// `DESCALE`: a right shift rounding half up.
#[inline(always)]
fn descale(x: i32, n: i32) -> i32 {
    (x + (1 << (n - 1))) >> n
}

/// One pass of `jpeg_fdct_islow` over eight 1-D transforms at once: `d[k][lane]` is
/// the k-th input of the lane's transform, replaced by its k-th output. The first
/// pass (rows) scales up by `PASS1_BITS`; the second (columns) takes it off.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // lane `l` of eight arrays: the loop vectorises
fn fdct_pass(d: &mut [[i32; 8]; 8], rows: bool) {
    let (even_shift, odd_shift) =
        if rows { (0, CONST_BITS - PASS1_BITS) } else { (PASS1_BITS, CONST_BITS + PASS1_BITS) };
    for l in 0..8 {
        let tmp0 = d[0][l] + d[7][l];
        let tmp7 = d[0][l] - d[7][l];
        let tmp1 = d[1][l] + d[6][l];
        let tmp6 = d[1][l] - d[6][l];
        let tmp2 = d[2][l] + d[5][l];
        let tmp5 = d[2][l] - d[5][l];
        let tmp3 = d[3][l] + d[4][l];
        let tmp4 = d[3][l] - d[4][l];

        let tmp10 = tmp0 + tmp3;
        let tmp13 = tmp0 - tmp3;
        let tmp11 = tmp1 + tmp2;
        let tmp12 = tmp1 - tmp2;
        if rows {
            d[0][l] = (tmp10 + tmp11) << PASS1_BITS;
            d[4][l] = (tmp10 - tmp11) << PASS1_BITS;
        } else {
            d[0][l] = descale(tmp10 + tmp11, even_shift);
            d[4][l] = descale(tmp10 - tmp11, even_shift);
        }
        let z1 = (tmp12 + tmp13) * FIX_0_541196100;
        d[2][l] = descale(z1 + tmp13 * FIX_0_765366865, odd_shift);
        d[6][l] = descale(z1 - tmp12 * FIX_1_847759065, odd_shift);

        let z1 = tmp4 + tmp7;
        let z2 = tmp5 + tmp6;
        let z3 = tmp4 + tmp6;
        let z4 = tmp5 + tmp7;
        let z5 = (z3 + z4) * FIX_1_175875602;
        let tmp4 = tmp4 * FIX_0_298631336;
        let tmp5 = tmp5 * FIX_2_053119869;
        let tmp6 = tmp6 * FIX_3_072711026;
        let tmp7 = tmp7 * FIX_1_501321110;
        let z1 = -z1 * FIX_0_899976223;
        let z2 = -z2 * FIX_2_562915447;
        let z3 = -z3 * FIX_1_961570560 + z5;
        let z4 = -z4 * FIX_0_390180644 + z5;
        d[7][l] = descale(tmp4 + z1 + z3, odd_shift);
        d[5][l] = descale(tmp5 + z2 + z4, odd_shift);
        d[3][l] = descale(tmp6 + z2 + z3, odd_shift);
        d[1][l] = descale(tmp7 + z1 + z4, odd_shift);
    }
}

/// Transposes an 8x8 matrix of bytes held as eight words (byte k of word r is
/// element (r, k)), by swapping ever larger blocks across the diagonal: 24 word
/// operations instead of 64 byte moves through memory.
#[inline(always)]
fn transpose_bytes(m: &mut [u64; 8]) {
    for (shift, mask, rows) in [
        (8, 0x00FF_00FF_00FF_00FFu64, [0usize, 2, 4, 6]),
        (16, 0x0000_FFFF_0000_FFFF, [0, 1, 4, 5]),
        (32, 0x0000_0000_FFFF_FFFF, [0, 1, 2, 3]),
    ] {
        let step = (shift / 8) as usize;
        for i in rows {
            let t = ((m[i] >> shift) ^ m[i + step]) & mask;
            m[i + step] ^= t;
            m[i] ^= t << shift;
        }
    }
}

/// An 8x8 transpose (whole rows in, so it is done in registers).
#[inline(always)]
fn transpose(m: &[[i32; 8]; 8]) -> [[i32; 8]; 8] {
    std::array::from_fn(|c| std::array::from_fn(|r| m[r][c]))
}

/// The quantised coefficients (natural order) of the 8x8 block of `plane` (rows of
/// `stride` samples) at `x`: `convsamp`, `jpeg_fdct_islow`, `quantize`.
#[inline(always)]
fn block_coefficients(plane: &[u8], stride: usize, x: usize, q: &Divisors) -> [i16; 64] {
    // Loaded transposed: d[k][r] is the k-th sample of row r, so the row pass works
    // on all eight rows at once; transposed again for the column pass.
    let mut rows: [u64; 8] = std::array::from_fn(|r| {
        let row = &plane[r * stride + x..][..8];
        u64::from_le_bytes(std::array::from_fn(|k| row[k]))
    });
    transpose_bytes(&mut rows);
    let mut d: [[i32; 8]; 8] = std::array::from_fn(|k| {
        let column = rows[k].to_le_bytes();
        std::array::from_fn(|r| i32::from(column[r]) - 128)
    });
    fdct_pass(&mut d, true);
    let mut t = transpose(&d);
    fdct_pass(&mut t, false);
    let mut out = [0i16; 64];
    for i in 0..64 {
        let v = t[i / 8][i % 8];
        let m = ((v.unsigned_abs() + q.corr[i]) * q.recip[i]) >> q.shift[i];
        out[i] = if v < 0 { -(m as i32) as i16 } else { m as i16 };
    }
    out
}

/// The component planes of one MCU row: rows of `stride` samples, 8 per block row.
struct McuRowPlanes {
    stride: usize,
    planes: Vec<Vec<u8>>,
    /// Full-resolution chroma rows, downsampled into `planes[1..]`.
    full: [Vec<u8>; 2],
}

impl McuRowPlanes {
    fn new(frame: &Frame) -> McuRowPlanes {
        let stride = frame.mcus_x * 8 * frame.max_h;
        let planes = frame.components.iter().map(|c| vec![0u8; stride * 8 * c.v]).collect();
        let sub = frame.max_v > 1;
        let full_len = if sub { stride * 8 * frame.max_v } else { 0 };
        McuRowPlanes { stride, planes, full: [vec![0u8; full_len], vec![0u8; full_len]] }
    }

    /// Converts (and downsamples) the image rows of MCU row `my`.
    #[inline(always)]
    fn fill(&mut self, frame: &Frame, pixels: &[u8], my: usize) {
        let (w, h, stride) = (frame.width, frame.height, self.stride);
        let rows = 8 * frame.max_v;
        let src_row = |i: usize| {
            let y = (my * rows + i).min(h - 1);
            &pixels[y * w * frame.channels..][..w * frame.channels]
        };
        if frame.channels == 1 {
            for i in 0..rows {
                let out = &mut self.planes[0][i * stride..][..stride];
                out[..w].copy_from_slice(src_row(i));
                let last = out[w - 1];
                out[w..].fill(last);
            }
            return;
        }
        let (y_plane, chroma) = self.planes.split_at_mut(1);
        let (cb_plane, cr_plane) = chroma.split_at_mut(1);
        if frame.max_v == 1 {
            for i in 0..rows {
                let (y, cb, cr) = (
                    &mut y_plane[0][i * stride..][..stride],
                    &mut cb_plane[0][i * stride..][..stride],
                    &mut cr_plane[0][i * stride..][..stride],
                );
                rgb_row_to_ycc(src_row(i), y, cb, cr);
            }
            return;
        }
        let [cb_full, cr_full] = &mut self.full;
        for i in 0..rows {
            rgb_row_to_ycc(
                src_row(i),
                &mut y_plane[0][i * stride..][..stride],
                &mut cb_full[i * stride..][..stride],
                &mut cr_full[i * stride..][..stride],
            );
        }
        // Chroma rows past the downsampled height repeat the last one.
        let chroma_rows = h.div_ceil(2);
        let half = stride / 2;
        for r in 0..8 {
            let k = (my * 8 + r).min(chroma_rows - 1) - my * 8;
            for (full, plane) in [(&*cb_full, &mut cb_plane[0]), (&*cr_full, &mut cr_plane[0])] {
                let top = &full[2 * k * stride..][..stride];
                let bottom = &full[(2 * k + 1) * stride..][..stride];
                downsample_2x2(top, bottom, &mut plane[r * stride..][..half]);
            }
        }
    }
}

/// The coefficient blocks of MCU rows `first..` into `out` (whole MCU rows, in the
/// order they are coded, dummy blocks included).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn mcu_rows_coefficients(frame: &Frame, pixels: &[u8], divisors: &[Divisors; 2], first: usize, out: &mut [[i16; 64]]) {
    let mut planes = McuRowPlanes::new(frame);
    let stride = planes.stride;
    for (i, row) in out.chunks_mut(frame.row_blocks()).enumerate() {
        let my = first + i;
        planes.fill(frame, pixels, my);
        let mut blocks = row.iter_mut();
        for mx in 0..frame.mcus_x {
            for (c, comp) in frame.components.iter().enumerate() {
                let plane = &planes.planes[c];
                let q = &divisors[comp.table];
                let mut prev_dc = 0i16;
                for by in 0..comp.v {
                    let row_real = my * comp.v + by < comp.height_blocks;
                    for bx in 0..comp.h {
                        let Some(block) = blocks.next() else { return };
                        let col = mx * comp.h + bx;
                        if row_real && col < comp.width_blocks {
                            *block = block_coefficients(&plane[by * 8 * stride..], stride, col * 8, q);
                        } else {
                            // A dummy block: the DC of the block before it in the MCU
                            // (for a dummy row, the last block of the row above).
                            *block = [0; 64];
                            block[0] = prev_dc;
                        }
                        prev_dc = block[0];
                    }
                }
            }
        }
    }
}

/// The bit writer of `jchuff.c`: codes most significant bit first into a 64-bit
/// buffer written out eight bytes at a time, and (`STUFF`) a zero byte after every
/// 0xFF. Segments of the scan are coded unstuffed on their own threads, then joined
/// and stuffed by one writer.
struct BitWriter<const STUFF: bool> {
    out: Vec<u8>,
    acc: u64,
    /// Bits of `acc` not yet holding code (64 when empty).
    free: u32,
}

impl<const STUFF: bool> BitWriter<STUFF> {
    fn new(out: Vec<u8>) -> Self {
        BitWriter { out, acc: 0, free: 64 }
    }

    /// Appends `size` (at most 32) bits: `code`, which has no bits above them.
    #[inline(always)]
    fn put(&mut self, code: u32, size: u32) {
        if size < self.free {
            self.free -= size;
            self.acc = (self.acc << size) | u64::from(code);
            return;
        }
        // The buffer fills: its bits and the top of `code` go out, the rest of
        // `code` stays (bits above it are shifted out before they are written).
        let spill = size - self.free;
        let word = (self.acc << self.free) | (u64::from(code) >> spill);
        self.acc = u64::from(code);
        self.free = 64 - spill;
        self.write(word);
    }

    #[inline(always)]
    fn write(&mut self, word: u64) {
        const ONES: u64 = 0x0101_0101_0101_0101;
        // No 0xFF byte in the word (the usual case): its eight bytes as they are.
        if !STUFF || ((!word).wrapping_sub(ONES) & word & (ONES << 7)) == 0 {
            self.out.extend_from_slice(&word.to_be_bytes());
        } else {
            for byte in word.to_be_bytes() {
                self.out.push(byte);
                if byte == 0xFF {
                    self.out.push(0);
                }
            }
        }
    }

    /// Appends another writer's bits (an unstuffed segment).
    fn append(&mut self, segment: &BitWriter<false>) {
        let mut words = segment.out.chunks_exact(8);
        for w in &mut words {
            self.put(u32::from_be_bytes([w[0], w[1], w[2], w[3]]), 32);
            self.put(u32::from_be_bytes([w[4], w[5], w[6], w[7]]), 32);
        }
        for &b in words.remainder() {
            self.put(u32::from(b), 8);
        }
        let valid = 64 - segment.free;
        if valid > 32 {
            self.put((segment.acc >> 32) as u32 & ((1u32 << (valid - 32)) - 1), valid - 32);
        }
        if valid > 0 {
            let low = valid.min(32);
            self.put((segment.acc as u32) & (u32::MAX >> (32 - low)), low);
        }
    }

    /// `flush_bits`: the last byte filled with one bits.
    fn finish(mut self) -> Vec<u8> {
        self.put(0x7F, 7);
        let mut valid = 64 - self.free;
        while valid >= 8 {
            valid -= 8;
            let byte = (self.acc >> valid) as u8;
            self.out.push(byte);
            if STUFF && byte == 0xFF {
                self.out.push(0);
            }
        }
        self.out
    }
}

/// The magnitude category of a coefficient (its bit length) and its value bits.
#[inline(always)]
fn category(v: i32) -> (u32, u32) {
    let nbits = 32 - v.unsigned_abs().leading_zeros();
    let bits = if v < 0 { v - 1 } else { v } as u32 & ((1u32 << nbits) - 1);
    (nbits, bits)
}

/// A block's coefficients in zigzag order, and which of its AC coefficients are not
/// zero (bit k for the k-th), so the runs of zeros are found a word at a time.
#[inline(always)]
fn zigzag(block: &[i16; 64]) -> ([i16; 64], u64) {
    let mut zz = [0i16; 64];
    for (z, &k) in zz.iter_mut().zip(&NATURAL_ORDER) {
        *z = block[k];
    }
    let mut nonzero = 0u64;
    for (k, &v) in zz.iter().enumerate().skip(1) {
        nonzero |= u64::from(v != 0) << k;
    }
    (zz, nonzero)
}

/// Walks the symbols of a block as `encode_one_block` codes them, calling
/// `f(table, symbol, size, bits)` for each (`table` 0 for DC, 1 for AC; `bits` are the
/// `size` value bits that follow the symbol's code): the DC difference's category,
/// then per nonzero AC coefficient its runs of 16 zeros and its run/category symbol,
/// then end-of-block if the block ends in zeros. Coding and counting
/// (`htest_one_block`) both walk this way, so they agree on every symbol. A
/// coefficient too large for 8-bit JPEG (libjpeg's `JERR_BAD_DCT_COEF`) is an error.
#[inline(always)]
fn for_each_symbol(
    block: &[i16; 64],
    last_dc: i32,
    mut f: impl FnMut(usize, usize, u32, u32) -> Result<()>,
) -> Result<()> {
    let (nbits, bits) = category(i32::from(block[0]) - last_dc);
    if nbits > 11 {
        return Err(bad_coefficient());
    }
    f(0, nbits as usize, nbits, bits)?;
    let (zz, mut nonzero) = zigzag(block);
    let mut last = 0u32;
    while nonzero != 0 {
        let k = nonzero.trailing_zeros();
        nonzero &= nonzero - 1;
        let mut run = k - last - 1;
        last = k;
        while run > 15 {
            f(1, 0xF0, 0, 0)?;
            run -= 16;
        }
        let (nbits, bits) = category(i32::from(zz[k as usize]));
        if nbits > 10 {
            return Err(bad_coefficient());
        }
        f(1, ((run << 4) + nbits) as usize, nbits, bits)?;
    }
    if last != 63 {
        f(1, 0, 0, 0)?;
    }
    Ok(())
}

/// `encode_one_block`: each symbol's code followed by its value bits.
#[inline(always)]
fn encode_block(
    w: &mut BitWriter<false>,
    block: &[i16; 64],
    last_dc: i32,
    dc: &HuffTable,
    ac: &HuffTable,
) -> Result<()> {
    for_each_symbol(block, last_dc, |table, symbol, nbits, bits| {
        let table = if table == 0 { dc } else { ac };
        let size = u32::from(table.size[symbol]);
        // Only an optimal table lacks symbols, and only ones it never counted.
        if size == 0 {
            return Err(bad_coefficient());
        }
        w.put((u32::from(table.code[symbol]) << nbits) | bits, size + nbits);
        Ok(())
    })
}

fn bad_coefficient() -> Error {
    Error::new(Code::Internal, "JPEG encoding failed: DCT coefficient out of range")
}

/// `htest_one_block`: the symbols `encode_block` would code, counted.
fn count_block(block: &[i16; 64], last_dc: i32, counts: &mut [[u64; 257]; 2]) -> Result<()> {
    for_each_symbol(block, last_dc, |table, symbol, _, _| {
        counts[table][symbol] += 1;
        Ok(())
    })
}

/// Walks `blocks` (whole MCUs) in coding order with each block's component and the
/// DC coded before it, starting from the DCs `last_dc`; stops at the first error.
#[inline(always)]
fn for_each_block(
    frame: &Frame,
    blocks: &[[i16; 64]],
    mut last_dc: [i32; 3],
    mut f: impl FnMut(&[i16; 64], usize, i32) -> Result<()>,
) -> Result<()> {
    let membership = frame.membership();
    for mcu in blocks.chunks_exact(frame.mcu_blocks) {
        for (block, &c) in mcu.iter().zip(&membership) {
            f(block, c, last_dc[c])?;
            last_dc[c] = i32::from(block[0]);
        }
    }
    Ok(())
}

/// The DC of each component's last block before block `start` (an MCU boundary):
/// where a segment of the scan coded on its own starts its predictions.
fn dc_before(frame: &Frame, blocks: &[[i16; 64]], start: usize) -> [i32; 3] {
    let mut last_dc = [0; 3];
    if start >= frame.mcu_blocks {
        let mcu = &blocks[start - frame.mcu_blocks..start];
        for (block, &c) in mcu.iter().zip(&frame.membership()) {
            last_dc[c] = i32::from(block[0]);
        }
    }
    last_dc
}

/// Codes a run of whole MCUs, unstuffed, whose predictions start from `last_dc`.
#[multiversion(targets("x86_64+avx2+fma+bmi1+bmi2+lzcnt", "aarch64+neon"))]
fn encode_run(
    w: &mut BitWriter<false>,
    frame: &Frame,
    run: &[[i16; 64]],
    last_dc: [i32; 3],
    dc: &[HuffTable],
    ac: &[HuffTable],
) -> Result<()> {
    // A local writer, so its buffer's bits stay in registers.
    let mut local = BitWriter::<false> { out: std::mem::take(&mut w.out), acc: w.acc, free: w.free };
    let coded = for_each_block(frame, run, last_dc, |block, c, last| {
        let t = frame.components[c].table;
        encode_block(&mut local, block, last, &dc[t], &ac[t])
    });
    *w = local;
    coded
}

/// Runs `f(run, last_dc)` over the MCU rows of `blocks` cut into runs (one per piece
/// of the intra-op pool, two per thread; one run without a pool or for a small image),
/// each with the DCs coded before it (all coefficients are known, so a run coded on
/// its own thread knows where its predictions start). The results are in order.
fn by_runs<T: Send>(
    env: &ExecEnv,
    frame: &Frame,
    blocks: &[[i16; 64]],
    f: impl Fn(&[[i16; 64]], [i32; 3]) -> T + Sync,
) -> Result<Vec<T>> {
    let pieces = if blocks.len() >= 1024 { (env.intra_threads() * 2).min(frame.mcus_y) } else { 1 };
    if pieces <= 1 {
        return Ok(vec![f(blocks, [0; 3])]);
    }
    let run_blocks = frame.mcus_y.div_ceil(pieces) * frame.row_blocks();
    let results: Vec<Mutex<Option<T>>> = blocks.chunks(run_blocks).map(|_| Mutex::new(None)).collect();
    env.run_pieces(results.len(), |i| {
        let start = i * run_blocks;
        let run = &blocks[start..(start + run_blocks).min(blocks.len())];
        *results[i].lock() = Some(f(run, dc_before(frame, blocks, start)));
    });
    // Every piece runs; a missing run would be a corrupt file, so it is an error.
    results.into_iter().map(|r| r.into_inner().ok_or_else(|| Error::new(Code::Internal, "JPEG run lost"))).collect()
}

/// Entropy-codes the scan after the headers in `out`: runs of MCU rows coded unstuffed
/// on their own threads, joined in order and stuffed as they are joined.
fn entropy_code(
    env: &ExecEnv,
    frame: &Frame,
    blocks: &[[i16; 64]],
    dc: &[HuffTable],
    ac: &[HuffTable],
    out: Vec<u8>,
) -> Result<Vec<u8>> {
    let runs = by_runs(env, frame, blocks, |run, last_dc| {
        let mut w = BitWriter::<false>::new(Vec::with_capacity(run.len() * 16));
        encode_run(&mut w, frame, run, last_dc, dc, ac).map(|()| w)
    })?;
    let mut w = BitWriter::<true>::new(out);
    for run in runs {
        w.append(&run?);
    }
    Ok(w.finish())
}

/// The symbols each Huffman table codes, counted over the image (`optimize_coding`'s
/// first pass): `[table number][DC or AC][symbol]`.
fn symbol_counts(env: &ExecEnv, frame: &Frame, blocks: &[[i16; 64]]) -> Result<[[[u64; 257]; 2]; 2]> {
    let runs = by_runs(env, frame, blocks, |run, last_dc| {
        let mut counts = [[[0u64; 257]; 2]; 2];
        for_each_block(frame, run, last_dc, |block, c, last| {
            count_block(block, last, &mut counts[frame.components[c].table])
        })
        .map(|()| counts)
    })?;
    let mut total = [[[0u64; 257]; 2]; 2];
    for counts in runs {
        for (t, c) in total.iter_mut().flatten().flatten().zip(counts?.iter().flatten().flatten()) {
            *t += c;
        }
    }
    Ok(total)
}

fn marker(out: &mut Vec<u8>, code: u8, payload: &[u8]) -> Result<()> {
    let len = u16::try_from(payload.len() + 2)
        .map_err(|_| Error::new(Code::Internal, "JPEG encoding failed: a marker is longer than 65533 bytes"))?;
    out.extend_from_slice(&[0xFF, code]);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(payload);
    Ok(())
}

/// libjpeg's limits on a side, which TF reports as `Internal`.
pub(crate) fn check_size(height: usize, width: usize) -> Result<()> {
    if (1..=MAX_DIMENSION).contains(&width) && (1..=MAX_DIMENSION).contains(&height) {
        return Ok(());
    }
    Err(Error::new(
        Code::Internal,
        format!("JPEG encoding failed: width and height must be in [1, {MAX_DIMENSION}], got {height}x{width}"),
    ))
}

/// The APP1 payload TF writes for XMP metadata: Adobe's namespace, NUL-terminated,
/// then the metadata.
pub(crate) fn xmp_segment(xmp: &[u8]) -> Vec<u8> {
    let mut app1 = b"http://ns.adobe.com/xap/1.0/\0".to_vec();
    app1.extend_from_slice(xmp);
    app1
}

/// Encodes `pixels` (`height` x `width` x `channels`, 1 or 3) as TF's `EncodeJpeg`.
pub(crate) fn encode(
    env: &ExecEnv,
    pixels: &[u8],
    height: usize,
    width: usize,
    channels: usize,
    s: &JpegSettings,
) -> Result<Vec<u8>> {
    check_size(height, width)?;
    debug_assert_eq!(pixels.len(), height * width * channels);
    let frame = Frame::new(height, width, channels, s.chroma_downsampling);
    let tables = [quant_table(&STD_LUMINANCE_QUANT, s.quality), quant_table(&STD_CHROMINANCE_QUANT, s.quality)];
    let divisors = [Divisors::new(&tables[0]), Divisors::new(&tables[1])];

    let row_blocks = frame.row_blocks();
    let total =
        frame.mcus_y.checked_mul(row_blocks).ok_or_else(|| Error::new(Code::ResourceExhausted, "JPEG too large"))?;
    let mut blocks: Vec<[i16; 64]> = Vec::new();
    blocks
        .try_reserve_exact(total)
        .map_err(|_| Error::new(Code::ResourceExhausted, format!("OOM encoding a {height}x{width} JPEG")))?;
    blocks.resize(total, [0; 64]);
    // Whole MCU rows per piece, at least 512 blocks (about 0.1 ms of work), so the
    // pieces are many enough to balance across the threads.
    env.for_each_chunk(&mut blocks, row_blocks.max(512), row_blocks, |offset, chunk| {
        mcu_rows_coefficients(&frame, pixels, &divisors, offset / row_blocks, chunk);
    });

    let tables_used = if channels == 1 { 1 } else { 2 };
    let mut dc: Vec<HuffTable> =
        vec![HuffTable::new(&DC_LUMINANCE_BITS, &DC_VALUES), HuffTable::new(&DC_CHROMINANCE_BITS, &DC_VALUES)];
    let mut ac: Vec<HuffTable> = vec![
        HuffTable::new(&AC_LUMINANCE_BITS, &AC_LUMINANCE_VALUES),
        HuffTable::new(&AC_CHROMINANCE_BITS, &AC_CHROMINANCE_VALUES),
    ];
    if s.optimize_coding {
        let counts = symbol_counts(env, &frame, &blocks)?;
        for t in 0..tables_used {
            let [dc_counts, ac_counts] = &counts[t];
            dc[t] = HuffTable::optimal(dc_counts);
            ac[t] = HuffTable::optimal(ac_counts);
        }
    }

    let mut out = Vec::new();
    out.try_reserve(pixels.len() / 4 + 1024).map_err(|_| Error::new(Code::ResourceExhausted, "OOM encoding a JPEG"))?;
    out.extend_from_slice(&[0xFF, 0xD8]);
    // JFIF 1.01 with TF's density, no thumbnail.
    let mut jfif = b"JFIF\0\x01\x01".to_vec();
    jfif.push(s.density_unit);
    jfif.extend_from_slice(&s.x_density.to_be_bytes());
    jfif.extend_from_slice(&s.y_density.to_be_bytes());
    jfif.extend_from_slice(&[0, 0]);
    marker(&mut out, 0xE0, &jfif)?;
    if !s.xmp.is_empty() {
        marker(&mut out, 0xE1, &xmp_segment(&s.xmp))?;
    }
    for (t, table) in tables.iter().enumerate().take(tables_used) {
        let mut dqt = vec![t as u8];
        dqt.extend(NATURAL_ORDER.iter().map(|&i| table[i] as u8));
        marker(&mut out, 0xDB, &dqt)?;
    }
    let mut sof = vec![8];
    sof.extend_from_slice(&(height as u16).to_be_bytes());
    sof.extend_from_slice(&(width as u16).to_be_bytes());
    sof.push(channels as u8);
    for (i, c) in frame.components.iter().enumerate() {
        sof.extend_from_slice(&[i as u8 + 1, ((c.h << 4) | c.v) as u8, c.table as u8]);
    }
    marker(&mut out, 0xC0, &sof)?;
    for t in 0..tables_used {
        for (class, table) in [(0u8, &dc[t]), (0x10, &ac[t])] {
            let mut dht = vec![class | t as u8];
            dht.extend_from_slice(&table.bits);
            dht.extend_from_slice(&table.values);
            marker(&mut out, 0xC4, &dht)?;
        }
    }
    let mut sos = vec![channels as u8];
    for (i, c) in frame.components.iter().enumerate() {
        sos.extend_from_slice(&[i as u8 + 1, ((c.table << 4) | c.table) as u8]);
    }
    sos.extend_from_slice(&[0, 63, 0]);
    marker(&mut out, 0xDA, &sos)?;

    let mut out = entropy_code(env, &frame, &blocks, &dc, &ac, out)?;
    out.extend_from_slice(&[0xFF, 0xD9]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reciprocals_divide_as_libjpeg_rounds() {
        // `quantize` must equal rounding division for every coefficient it can see.
        for q in 1..=255u16 {
            let d = Divisors::new(&[q; 64]);
            let divisor = i32::from(q) * 8;
            for v in -16384i32..=16384 {
                let m = ((v.unsigned_abs() + d.corr[0]) * d.recip[0]) >> d.shift[0];
                let got = if v < 0 { -(m as i32) } else { m as i32 };
                let want = (v.abs() + divisor / 2) / divisor * v.signum();
                assert_eq!(got, want, "{v} / {divisor}");
            }
        }
    }

    #[test]
    fn block_colour_conversion_is_libjpegs_for_every_pixel() {
        // All 2^24 colours, through the block path (and a tail through the scalar one).
        let n = (1usize << 24) + 5;
        let rgb: Vec<u8> = (0..n).flat_map(|p| [(p >> 16) as u8, (p >> 8) as u8, p as u8]).collect();
        let (mut y, mut cb, mut cr) = (vec![0u8; n + 3], vec![0u8; n + 3], vec![0u8; n + 3]);
        rgb_row_to_ycc(&rgb, &mut y, &mut cb, &mut cr);
        for (p, px) in rgb.chunks_exact(3).enumerate() {
            let want = ycc(i32::from(px[0]), i32::from(px[1]), i32::from(px[2]));
            assert_eq!([y[p], cb[p], cr[p]], want, "pixel {px:?}");
        }
        assert_eq!(&y[n..], &[y[n - 1]; 3]);
    }

    #[test]
    fn downsampling_is_libjpegs_at_every_length() {
        for half in [2usize, 8, 16, 24, 40, 64, 72] {
            let top: Vec<u8> = (0..2 * half).map(|i| (i * 37 % 256) as u8).collect();
            let bottom: Vec<u8> = (0..2 * half).map(|i| (255 - i * 11 % 256) as u8).collect();
            let mut out = vec![0u8; half];
            downsample_2x2(&top, &bottom, &mut out);
            let mut bias = 1u32;
            for (j, &o) in out.iter().enumerate() {
                let sum: u32 =
                    [top[2 * j], top[2 * j + 1], bottom[2 * j], bottom[2 * j + 1]].map(u32::from).iter().sum();
                assert_eq!(u32::from(o), (sum + bias) >> 2, "{half} {j}");
                bias ^= 3;
            }
        }
    }

    #[test]
    fn bytes_transpose() {
        let m: [[u8; 8]; 8] = std::array::from_fn(|r| std::array::from_fn(|k| (r * 8 + k) as u8));
        let mut words = m.map(u64::from_le_bytes);
        transpose_bytes(&mut words);
        for (k, w) in words.iter().enumerate() {
            assert_eq!(w.to_le_bytes(), std::array::from_fn(|r| m[r][k]));
        }
    }

    #[test]
    fn the_standard_tables_make_the_standard_codes() {
        let t = HuffTable::new(&DC_LUMINANCE_BITS, &DC_VALUES);
        assert_eq!((t.code[0], t.size[0]), (0b00, 2));
        assert_eq!((t.code[1], t.size[1]), (0b010, 3));
        assert_eq!((t.code[11], t.size[11]), (0b1_1111_1110, 9));
        let t = HuffTable::new(&AC_LUMINANCE_BITS, &AC_LUMINANCE_VALUES);
        assert_eq!((t.code[0x00], t.size[0x00]), (0b1010, 4));
        assert_eq!((t.code[0xF0], t.size[0xF0]), (0b111_1111_1001, 11));
    }

    #[test]
    fn optimal_tables_never_pass_16_bits_or_use_an_all_ones_code() {
        // Fibonacci counts make the deepest unconstrained tree (39 levels, past libjpeg's
        // 32 and JPEG's 16).
        let mut counts = [0u64; 257];
        let (mut a, mut b) = (1u64, 1u64);
        for c in counts.iter_mut().take(40) {
            *c = a;
            (a, b) = (b, a + b);
        }
        let t = HuffTable::optimal(&counts);
        assert_eq!(t.bits.iter().map(|&b| usize::from(b)).sum::<usize>(), 40);
        for s in 0..40 {
            let size = u32::from(t.size[s]);
            assert!((1..=16).contains(&size));
            assert_ne!(u32::from(t.code[s]), (1 << size) - 1, "symbol {s} has an all-ones code");
            // A prefix code: no symbol's code starts another's.
            for o in (0..40).filter(|&o| o != s && t.size[o] >= t.size[s]) {
                let prefix = u32::from(t.code[o]) >> (u32::from(t.size[o]) - size);
                assert_ne!(prefix, u32::from(t.code[s]), "{s} is a prefix of {o}");
            }
        }
    }
}
