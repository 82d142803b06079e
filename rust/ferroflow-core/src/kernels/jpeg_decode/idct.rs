//! libjpeg-turbo's inverse DCTs, to the bit: `jidctint.c` (islow, TF's
//! `INTEGER_ACCURATE`), `jidctfst.c` (ifast, TF's default `INTEGER_FAST`) and
//! `jidctred.c`'s reduced 4x4, 2x2 and 1x1 outputs (TF's `ratio` 2, 4 and 8).
//!
//! Each pass works on all eight columns (or rows) at once, one array lane each, so it
//! vectorises. TF runs libjpeg-turbo's SIMD code, so that is what is followed where it
//! differs from the C code on values beyond 16 bits (corrupt data only): dequantised
//! values wrap as `pmullw` does, results saturate as the SIMD code packs them, and
//! islow adds in 16 bits where the SIMD code does and takes its shortcut for blocks
//! with only a first row. The C code's per-column and per-row shortcuts give the full
//! arithmetic's values and are left out.

use multiversion::multiversion;

/// Eight lanes of one coefficient (or one workspace entry) across columns or rows.
type L = [i32; 8];

// The lane helpers are plain loops over the eight lanes: LLVM turns each into one
// vector instruction (`std::array::from_fn` closures came out partly scalar).
macro_rules! lanes {
    ($(#[$m:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> [$t:ty; 8] => |$i:ident| $body:expr) => {
        $(#[$m])*
        #[inline(always)]
        fn $name($($arg: $ty),*) -> [$t; 8] {
            let mut r = [0; 8];
            for $i in 0..8 {
                r[$i] = $body;
            }
            r
        }
    };
}
lanes!(fn add(a: L, b: L) -> [i32; 8] => |i| a[i].wrapping_add(b[i]));
lanes!(fn sub(a: L, b: L) -> [i32; 8] => |i| a[i].wrapping_sub(b[i]));
lanes!(fn mul(a: L, c: i32) -> [i32; 8] => |i| a[i].wrapping_mul(c));
lanes!(fn shl(a: L, n: u32) -> [i32; 8] => |i| a[i].wrapping_shl(n));
lanes!(
    /// libjpeg's `DESCALE`: a right shift rounding half up.
    fn descale(a: L, n: u32) -> [i32; 8] => |i| a[i].wrapping_add(1 << (n - 1)) >> n
);

/// Which IDCT a component's blocks take, by its scaled block size.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Idct {
    /// 8x8, `jidctint.c`.
    Islow,
    /// 8x8, `jidctfst.c`.
    Ifast,
    /// 4x4, 2x2 and 1x1 from `jidctred.c`.
    Reduced4,
    Reduced2,
    Reduced1,
}

impl Idct {
    pub(super) fn size(self) -> usize {
        match self {
            Idct::Islow | Idct::Ifast => 8,
            Idct::Reduced4 => 4,
            Idct::Reduced2 => 2,
            Idct::Reduced1 => 1,
        }
    }

    /// The multiplier table (`jddctmgr.c`) from a quantisation table in natural order.
    pub(super) fn multipliers(self, quant: &[u16; 64]) -> [i32; 64] {
        match self {
            Idct::Ifast => std::array::from_fn(|i| {
                // `(q * aanscale + 2^11) >> 12`, kept in 16 bits (IFAST_MULT_TYPE).
                ((i64::from(quant[i]) * AAN_SCALES[i] + (1 << 11)) >> 12) as i16 as i32
            }),
            _ => std::array::from_fn(|i| quant[i] as i16 as i32),
        }
    }

    /// One block's samples into `out` (`size` rows of `size` at `stride`).
    #[inline]
    pub(super) fn run(self, coef: &[i16; 64], mult: &[i32; 64], out: &mut [u8], stride: usize) {
        match self {
            Idct::Islow => islow(coef, mult, out, stride),
            Idct::Ifast => ifast(coef, mult, out, stride),
            Idct::Reduced4 => reduced4(coef, mult, out, stride),
            Idct::Reduced2 => reduced2(coef, mult, out, stride),
            Idct::Reduced1 => {
                // jpeg_idct_1x1 (C in libjpeg-turbo: no 16-bit wrap).
                let dc = i32::from(coef[0]).wrapping_mul(mult[0]);
                out[0] = clamp(dc.wrapping_add(4) >> 3);
            }
        }
    }
}

/// `aanscales` of `jddctmgr.c`: the AA&N scale factors at 14 bits.
const AAN_SCALES: [i64; 64] = [
    16384, 22725, 21407, 19266, 16384, 12873, 8867, 4520, 22725, 31521, 29692, 26722, 22725, 17855, 12299, 6270, 21407,
    29692, 27969, 25172, 21407, 16819, 11585, 5906, 19266, 26722, 25172, 22654, 19266, 15137, 10426, 5315, 16384,
    22725, 21407, 19266, 16384, 12873, 8867, 4520, 12873, 17855, 16819, 15137, 12873, 10114, 6967, 3552, 8867, 12299,
    11585, 10426, 8867, 6967, 4799, 2446, 4520, 6270, 5906, 5315, 4520, 3552, 2446, 1247,
];

/// A sample from an IDCT output centred on 0, saturated as libjpeg-turbo's SIMD
/// code packs it (its C code's range-limit table wraps far-out values instead).
#[inline(always)]
fn clamp(v: i32) -> u8 {
    (v.wrapping_add(128)).clamp(0, 255) as u8
}

/// The block dequantised: row `k`, lane `c` is coefficient `(k, c)`.
#[inline(always)]
fn dequantise(coef: &[i16; 64], mult: &[i32; 64]) -> [L; 8] {
    let mut r = [[0i32; 8]; 8];
    for k in 0..8 {
        for c in 0..8 {
            r[k][c] = i32::from(coef[k * 8 + c]).wrapping_mul(mult[k * 8 + c]) as i16 as i32;
        }
    }
    r
}

#[inline(always)]
fn transpose(m: &[L; 8]) -> [L; 8] {
    let mut t = [[0i32; 8]; 8];
    for i in 0..8 {
        for j in 0..8 {
            t[i][j] = m[j][i];
        }
    }
    t
}

/// Writes `rows[k][r]` (output column `k` of row `r`) for an `n x n` block, descaled
/// with rounding by `shift` bits (0: already descaled).
#[inline(always)]
fn store(rows: &[L], n: usize, shift: u32, out: &mut [u8], stride: usize) {
    let bias = if shift == 0 { 0 } else { 1 << (shift - 1) };
    if n == 8 {
        let t = transpose(&[rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6], rows[7]]);
        for (r, v) in t.iter().enumerate() {
            let mut c = [0i32; 8];
            for i in 0..8 {
                c[i] = (v[i].wrapping_add(bias) >> shift).wrapping_add(128).clamp(0, 255);
            }
            for (px, &c) in out[r * stride..r * stride + 8].iter_mut().zip(&c) {
                *px = c as u8;
            }
        }
        return;
    }
    for r in 0..n {
        let line = &mut out[r * stride..r * stride + n];
        for (k, px) in line.iter_mut().enumerate() {
            *px = clamp(rows[k][r].wrapping_add(bias) >> shift);
        }
    }
}

const CONST_BITS: u32 = 13;
const PASS1_BITS: u32 = 2;

const fn fix13(x: f64) -> i32 {
    (x * 8192.0 + 0.5) as i32
}

lanes!(
    /// A sum of two 16-bit values as the SIMD code's `paddw` leaves it: wrapped.
    fn add_w(a: L, b: L) -> [i32; 8] => |i| a[i].wrapping_add(b[i]) as i16 as i32
);
lanes!(fn sub_w(a: L, b: L) -> [i32; 8] => |i| a[i].wrapping_sub(b[i]) as i16 as i32);
lanes!(
    /// `DESCALE`, then `packssdw`'s saturation to 16 bits.
    fn descale_sat(a: L, n: u32) -> [i32; 8] => |i| (a[i].wrapping_add(1 << (n - 1)) >> n).clamp(-32768, 32767)
);

/// One 1-D pass of `jidctint.c` over eight lanes of 16-bit inputs, as libjpeg-turbo's
/// SSE2/AVX2 code computes it (TF's build, on any x86-64): the rotations as sums of two
/// products (`pmaddwd`, the same values as the C code's), but `in0 ± in4`, `in7 + in3`
/// and `in5 + in1` added in 16 bits (`paddw`, wrapping) and the outputs descaled by `n`
/// and saturated to 16 bits (`packssdw`). Valid data never wraps or saturates; corrupt
/// data does, and then gives what TF gives.
#[inline(always)]
fn islow_1d(x: &[L; 8], n: u32) -> [L; 8] {
    let (z2, z3) = (x[2], x[6]);
    let z1 = mul(add(z2, z3), fix13(0.541196100));
    let tmp2 = add(z1, mul(z3, -fix13(1.847759065)));
    let tmp3 = add(z1, mul(z2, fix13(0.765366865)));
    let tmp0 = shl(add_w(x[0], x[4]), CONST_BITS);
    let tmp1 = shl(sub_w(x[0], x[4]), CONST_BITS);
    let (tmp10, tmp13) = (add(tmp0, tmp3), sub(tmp0, tmp3));
    let (tmp11, tmp12) = (add(tmp1, tmp2), sub(tmp1, tmp2));

    let (t0, t1, t2, t3) = (x[7], x[5], x[3], x[1]);
    let z1 = add(t0, t3);
    let z2 = add(t1, t2);
    let z3 = add_w(t0, t2);
    let z4 = add_w(t1, t3);
    let z5 = mul(add(z3, z4), fix13(1.175875602));
    let t0 = mul(t0, fix13(0.298631336));
    let t1 = mul(t1, fix13(2.053119869));
    let t2 = mul(t2, fix13(3.072711026));
    let t3 = mul(t3, fix13(1.501321110));
    let z1 = mul(z1, -fix13(0.899976223));
    let z2 = mul(z2, -fix13(2.562915447));
    let z3 = add(mul(z3, -fix13(1.961570560)), z5);
    let z4 = add(mul(z4, -fix13(0.390180644)), z5);
    let t0 = add(t0, add(z1, z3));
    let t1 = add(t1, add(z2, z4));
    let t2 = add(t2, add(z2, z3));
    let t3 = add(t3, add(z1, z4));
    [
        descale_sat(add(tmp10, t3), n),
        descale_sat(add(tmp11, t2), n),
        descale_sat(add(tmp12, t1), n),
        descale_sat(add(tmp13, t0), n),
        descale_sat(sub(tmp13, t0), n),
        descale_sat(sub(tmp12, t1), n),
        descale_sat(sub(tmp11, t2), n),
        descale_sat(sub(tmp10, t3), n),
    ]
}

#[multiversion(targets("x86_64+avx2+fma", "aarch64+neon"))]
fn islow(coef: &[i16; 64], mult: &[i32; 64], out: &mut [u8], stride: usize) {
    let x = dequantise(coef, mult);
    // Pass 1 down the columns: ws[k] holds row k of the workspace. The SIMD code
    // takes a shortcut when every coefficient below the first row is 0: each column
    // is its first value shifted left in 16 bits (`psllw`, wrapping).
    let ws = if coef[8..].iter().all(|&c| c == 0) {
        [x[0].map(|v| (v << PASS1_BITS) as i16 as i32); 8]
    } else {
        islow_1d(&x, CONST_BITS - PASS1_BITS)
    };
    // Pass 2 along the rows: lane r of input k is workspace (r, k).
    let y = islow_1d(&transpose(&ws), CONST_BITS + PASS1_BITS + 3);
    store(&y, 8, 0, out, stride);
}

/// `jidctfst.c`'s constants at 8 fractional bits.
const F_1_082: i32 = 277;
const F_1_414: i32 = 362;
const F_1_847: i32 = 473;
const F_1_613: i32 = 669 - 256;

/// Eight 16-bit lanes: ifast runs as libjpeg-turbo's SSE2 code runs it, every sum
/// wrapping at 16 bits (the C code's `int`s give the same values until they would
/// overflow, which only corrupt data makes them do).
type W = [i16; 8];

lanes!(fn add16(a: W, b: W) -> [i16; 8] => |i| a[i].wrapping_add(b[i]));
lanes!(fn sub16(a: W, b: W) -> [i16; 8] => |i| a[i].wrapping_sub(b[i]));
// `MULTIPLY(x, c)` as SSE2 does it: `pmulhw(x << 2, c << 6)`, i.e. `(x * c) >> 8`
// with `x << 2` wrapping at 16 bits.
lanes!(fn mulf(a: W, c: i32) -> [i16; 8] => |i| ((i32::from(a[i].wrapping_shl(2)) * (c << 6)) >> 16) as i16);

#[inline(always)]
fn ifast_1d(x: &[W; 8]) -> [W; 8] {
    let tmp10 = add16(x[0], x[4]);
    let tmp11 = sub16(x[0], x[4]);
    let tmp13 = add16(x[2], x[6]);
    let tmp12 = sub16(mulf(sub16(x[2], x[6]), F_1_414), tmp13);
    let tmp0 = add16(tmp10, tmp13);
    let tmp3 = sub16(tmp10, tmp13);
    let tmp1 = add16(tmp11, tmp12);
    let tmp2 = sub16(tmp11, tmp12);

    let z13 = add16(x[5], x[3]);
    let z10 = sub16(x[5], x[3]);
    let z11 = add16(x[1], x[7]);
    let z12 = sub16(x[1], x[7]);
    let tmp7 = add16(z11, z13);
    let tmp11 = mulf(sub16(z11, z13), F_1_414);
    let z5 = mulf(add16(z10, z12), F_1_847);
    let tmp10 = sub16(mulf(z12, F_1_082), z5);
    // -2.613 * z10 as -1.613 * z10 - z10 (SSE2's way to keep the constant in 16 bits;
    // the same value as the C code's).
    let tmp12 = add16(sub16(mulf(z10, -F_1_613), z10), z5);
    let tmp6 = sub16(tmp12, tmp7);
    let tmp5 = sub16(tmp11, tmp6);
    let tmp4 = add16(tmp10, tmp5);
    [
        add16(tmp0, tmp7),
        add16(tmp1, tmp6),
        add16(tmp2, tmp5),
        sub16(tmp3, tmp4),
        add16(tmp3, tmp4),
        sub16(tmp2, tmp5),
        sub16(tmp1, tmp6),
        sub16(tmp0, tmp7),
    ]
}

#[multiversion(targets("x86_64+avx2+fma", "aarch64+neon"))]
fn ifast(coef: &[i16; 64], mult: &[i32; 64], out: &mut [u8], stride: usize) {
    // `pmullw`: the dequantised coefficient's low 16 bits.
    let mut x = [[0i16; 8]; 8];
    for k in 0..8 {
        for c in 0..8 {
            x[k][c] = coef[k * 8 + c].wrapping_mul(mult[k * 8 + c] as i16);
        }
    }
    let ws = ifast_1d(&x);
    let mut t = [[0i16; 8]; 8];
    for i in 0..8 {
        for j in 0..8 {
            t[i][j] = ws[j][i];
        }
    }
    // Lane r of output k is pixel (r, k).
    let y = ifast_1d(&t);
    for r in 0..8 {
        for (k, px) in out[r * stride..r * stride + 8].iter_mut().enumerate() {
            *px = ((y[k][r] >> 5).clamp(-128, 127) + 128) as u8;
        }
    }
}

/// `jpeg_idct_4x4`'s 1-D pass: four outputs from inputs 0, 1, 2, 3, 5, 6, 7.
#[inline(always)]
fn reduced4_1d(x: &[L; 8]) -> [L; 4] {
    let tmp0 = shl(x[0], CONST_BITS + 1);
    let tmp2 = add(mul(x[2], fix13(1.847759065)), mul(x[6], -fix13(0.765366865)));
    let (tmp10, tmp12) = (add(tmp0, tmp2), sub(tmp0, tmp2));
    let (z1, z2, z3, z4) = (x[7], x[5], x[3], x[1]);
    let tmp0 = add(
        add(mul(z1, -fix13(0.211164243)), mul(z2, fix13(1.451774981))),
        add(mul(z3, -fix13(2.172734803)), mul(z4, fix13(1.061594337))),
    );
    let tmp2 = add(
        add(mul(z1, -fix13(0.509795579)), mul(z2, -fix13(0.601344887))),
        add(mul(z3, fix13(0.899976223)), mul(z4, fix13(2.562915447))),
    );
    [add(tmp10, tmp2), add(tmp12, tmp0), sub(tmp12, tmp0), sub(tmp10, tmp2)]
}

#[multiversion(targets("x86_64+avx2+fma", "aarch64+neon"))]
fn reduced4(coef: &[i16; 64], mult: &[i32; 64], out: &mut [u8], stride: usize) {
    let x = dequantise(coef, mult);
    let ws = reduced4_1d(&x).map(|v| descale(v, CONST_BITS - PASS1_BITS + 1));
    // Pass 2 reads the four workspace rows: lane r of input k is workspace (r, k).
    let t: [L; 8] = std::array::from_fn(|k| std::array::from_fn(|r| if r < 4 { ws[r][k] } else { 0 }));
    let y = reduced4_1d(&t);
    store(&y, 4, CONST_BITS + PASS1_BITS + 3 + 1, out, stride);
}

/// `jpeg_idct_2x2`'s 1-D pass: two outputs from inputs 0, 1, 3, 5, 7.
#[inline(always)]
fn reduced2_1d(x: &[L; 8]) -> [L; 2] {
    let tmp10 = shl(x[0], CONST_BITS + 2);
    let tmp0 = add(
        add(mul(x[7], -fix13(0.720959822)), mul(x[5], fix13(0.850430095))),
        add(mul(x[3], -fix13(1.272758580)), mul(x[1], fix13(3.624509785))),
    );
    [add(tmp10, tmp0), sub(tmp10, tmp0)]
}

#[multiversion(targets("x86_64+avx2+fma", "aarch64+neon"))]
fn reduced2(coef: &[i16; 64], mult: &[i32; 64], out: &mut [u8], stride: usize) {
    let x = dequantise(coef, mult);
    let ws = reduced2_1d(&x).map(|v| descale(v, CONST_BITS - PASS1_BITS + 2));
    let t: [L; 8] = std::array::from_fn(|k| std::array::from_fn(|r| if r < 2 { ws[r][k] } else { 0 }));
    let y = reduced2_1d(&t);
    store(&y, 2, CONST_BITS + PASS1_BITS + 3 + 2, out, stride);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `jidctint.c` transcribed literally (per column, then per row, in 64 bits), with
    /// what libjpeg-turbo's SIMD code does differently when values leave 16 bits: the
    /// dequantised inputs, `in0 ± in4`, `in7 + in3`, `in5 + in1` and the first row
    /// shifted alone wrap, each pass's outputs saturate. To check the lane-parallel form
    /// against.
    fn islow_reference(coef: &[i16; 64], q: &[i32; 64]) -> [u8; 64] {
        let d = |v: i64, n: u32| ((v + (1 << (n - 1))) >> n).clamp(-32768, 32767);
        let mut ws = [0i64; 64];
        let dc_only = coef[8..].iter().all(|&c| c == 0);
        for c in 0..8 {
            let x: Vec<i64> = (0..8).map(|k| i64::from((i32::from(coef[k * 8 + c]) * q[k * 8 + c]) as i16)).collect();
            let out = reference_1d(&x);
            for k in 0..8 {
                ws[k * 8 + c] = if dc_only { i64::from((x[0] << 2) as i16) } else { d(out[k], 11) };
            }
        }
        let mut px = [0u8; 64];
        for r in 0..8 {
            let out = reference_1d(&ws[r * 8..r * 8 + 8]);
            for k in 0..8 {
                px[r * 8 + k] = (d(out[k], 18) + 128).clamp(0, 255) as u8;
            }
        }
        px
    }

    fn reference_1d(x: &[i64]) -> [i64; 8] {
        let f = |v: f64| (v * 8192.0 + 0.5) as i64;
        let w = |v: i64| i64::from(v as i16);
        let z1 = (x[2] + x[6]) * f(0.541196100);
        let tmp2 = z1 + x[6] * -f(1.847759065);
        let tmp3 = z1 + x[2] * f(0.765366865);
        let tmp0 = w(x[0] + x[4]) << 13;
        let tmp1 = w(x[0] - x[4]) << 13;
        let (tmp10, tmp13, tmp11, tmp12) = (tmp0 + tmp3, tmp0 - tmp3, tmp1 + tmp2, tmp1 - tmp2);
        let (t0, t1, t2, t3) = (x[7], x[5], x[3], x[1]);
        let (z1, z2, z3, z4) = (t0 + t3, t1 + t2, w(t0 + t2), w(t1 + t3));
        let z5 = (z3 + z4) * f(1.175875602);
        let (t0, t1, t2, t3) = (t0 * f(0.298631336), t1 * f(2.053119869), t2 * f(3.072711026), t3 * f(1.501321110));
        let (z1, z2) = (z1 * -f(0.899976223), z2 * -f(2.562915447));
        let z3 = z3 * -f(1.961570560) + z5;
        let z4 = z4 * -f(0.390180644) + z5;
        let (t0, t1, t2, t3) = (t0 + z1 + z3, t1 + z2 + z4, t2 + z2 + z3, t3 + z1 + z4);
        [tmp10 + t3, tmp11 + t2, tmp12 + t1, tmp13 + t0, tmp13 - t0, tmp12 - t1, tmp11 - t2, tmp10 - t3]
    }

    #[test]
    fn islow_lanes_equal_the_scalar_form() {
        let mut seed = 0x1234_5678_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let q: [i32; 64] = std::array::from_fn(|i| 1 + (i as i32 * 7) % 40);
        for round in 0..2000 {
            let sparse = round % 3;
            let coef: [i16; 64] = std::array::from_fn(|i| {
                let r = next();
                // Mostly what an 8-bit image's DCT holds; every fifth block large enough
                // to wrap and saturate.
                let span = if round % 5 == 0 { 20001 } else { 121 };
                if round % 11 == 0 && i >= 8 {
                    return 0; // the first row alone: the SIMD code's shortcut
                }
                if sparse > 0 && (i > 0 || round % 7 == 0) && r % 4 != 0 {
                    0
                } else {
                    ((r >> 8) % span) as i16 - (span / 2) as i16
                }
            });
            let mut out = [0u8; 64];
            islow(&coef, &q, &mut out, 8);
            assert_eq!(out, islow_reference(&coef, &q), "block {coef:?}");
        }
    }

    #[test]
    fn islow_wraps_and_saturates_as_the_simd_code() {
        let q = [1i32; 64];
        // Every coefficient below the first row 0: the shortcut's 16-bit shift wraps
        // 4 * 9000 to -29536, which pass 2 takes to black (C's 32-bit ints: white).
        let mut coef = [0i16; 64];
        coef[0] = 9000;
        let mut out = [0u8; 64];
        islow(&coef, &q, &mut out, 8);
        assert!(out.iter().all(|&v| v == 0), "{out:?}");
        // With one more coefficient the pass runs and saturates (`packssdw`) instead.
        coef[9] = 1;
        islow(&coef, &q, &mut out, 8);
        assert!(out.iter().all(|&v| v == 255), "{out:?}");
        // `in0 + in4` wraps in 16 bits: 30000 + 30000 = -5536 (C: 60000, white), in
        // the rows it reaches; `in0 - in4` is 0 in the others.
        let mut coef = [0i16; 64];
        coef[0] = 30000;
        coef[32] = 30000;
        islow(&coef, &q, &mut out, 8);
        for (r, row) in out.chunks(8).enumerate() {
            let want = if [0, 3, 4, 7].contains(&r) { 0 } else { 128 };
            assert!(row.iter().all(|&v| v == want), "row {r}: {row:?}");
        }
    }

    #[test]
    fn dc_only_blocks_are_flat_at_every_size() {
        let mut coef = [0i16; 64];
        coef[0] = -37;
        for idct in [Idct::Islow, Idct::Ifast, Idct::Reduced4, Idct::Reduced2, Idct::Reduced1] {
            let n = idct.size();
            let mut out = [0u8; 64];
            idct.run(&coef, &idct.multipliers(&[3; 64]), &mut out, n);
            // -111 / 8 = -13.875, rounded (islow) or floored (ifast) to -14.
            assert!(out[..n * n].iter().all(|&v| v == 128 - 14), "{idct:?}: {:?}", &out[..n * n]);
        }
    }
}
