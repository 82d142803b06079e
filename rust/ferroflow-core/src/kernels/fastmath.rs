//! Branch-free `f32` exponential, logarithms, hyperbolic tangent, sine and cosine that LLVM
//! vectorises (libm's are scalar calls, ~10-20x slower in a kernel loop). Each is the
//! approximation TensorFlow's Eigen kernels use on CPU: Cephes' `expf` (range
//! reduction by ln 2 and a degree-5 polynomial, < 2 ulp) and `logf` (exponent split off,
//! a degree-8 polynomial, < 2 ulp), Eigen's `log1p` built on that log, Eigen's 13/6
//! rational `tanh` (< 3 ulp) and its `psincos_float` (< 2 ulp), so our values sit as
//! close to TF's as to libm's. NaN propagates through all of them.

/// Bounds of [`exp_f32`]'s argument: ln(f32::MAX) and ln(f32::MIN_POSITIVE).
#[allow(clippy::excessive_precision)]
const EXP_HI: f32 = 88.722_839;
#[allow(clippy::excessive_precision)]
const EXP_LO: f32 = -87.336_55;

/// `a * b + c`: one fused multiply-add with `FMA` (only in code compiled for a target
/// that has the instruction; elsewhere `mul_add` is a slow libm call), else a multiply
/// and an add, each rounded.
#[inline(always)]
fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// `(p, n)` with `e^x = p 2^n` for `x` in [`EXP_LO`, `EXP_HI`]: Cephes' reduction by
/// the nearest multiple of ln 2 and its degree-5 polynomial on the remainder, its
/// multiply-adds fused with `FMA`.
#[inline(always)]
#[allow(clippy::excessive_precision, clippy::cast_possible_wrap)]
fn exp_reduced<const FMA: bool>(xc: f32) -> (f32, i32) {
    // n = round(x / ln 2) without `floor` or a float-to-int cast (a libm call on
    // baseline x86-64; a saturating cast stops LLVM from vectorising): adding 1.5 * 2^23
    // rounds to an integer and leaves it in the low mantissa bits.
    const SHIFT: f32 = 12_582_912.0;
    let t = xc * std::f32::consts::LOG2_E + SHIFT;
    let n = t - SHIFT;
    // r = x - n ln 2, with ln 2 split in two so the product is exact.
    let r = madd::<FMA>(n, 2.121_944_4e-4, madd::<FMA>(n, -0.693_359_375, xc));
    let z = r * r;
    let mut p = madd::<FMA>(1.987_569_15e-4, r, 1.398_199_95e-3);
    for c in [8.333_451_9e-3, 4.166_579_6e-2, 1.666_666_55e-1, 5.000_000_12e-1] {
        p = madd::<FMA>(p, r, c);
    }
    (madd::<FMA>(p, z, r) + 1.0, t.to_bits().wrapping_sub(0x4B40_0000) as i32)
}

/// `2^k` for `k` in [-126, 127].
#[inline(always)]
#[allow(clippy::cast_sign_loss)]
fn pow2(k: i32) -> f32 {
    f32::from_bits((k.wrapping_add(127) as u32) << 23)
}

/// `e^x` for `f32`: overflows to `inf` above ln(f32::MAX), flushes to 0 below
/// ln(f32::MIN_POSITIVE).
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    // `clamp` (not min/max) so NaN passes through.
    let (y, n) = exp_reduced::<false>(x.clamp(EXP_LO, EXP_HI));
    // 2^n as two factors, so n = 128 (at the upper bound) does not overflow the exponent.
    let half = n >> 1;
    let y = y * pow2(half) * pow2(n - half);
    if x > EXP_HI {
        f32::INFINITY
    } else if x < EXP_LO {
        0.0
    } else {
        y
    }
}

/// `e^x` for `f32` with `x <= 0` (softmax's shifted logits; NaN passes through):
/// [`exp_f32`] without its overflow side, so 2^n is one factor (n >= -126).
#[inline(always)]
pub fn exp_nonpositive_f32(x: f32) -> f32 {
    exp_nonpositive::<false>(x)
}

#[inline(always)]
fn exp_nonpositive<const FMA: bool>(x: f32) -> f32 {
    let (y, n) = exp_reduced::<FMA>(x.clamp(EXP_LO, 0.0));
    if x < EXP_LO { 0.0 } else { y * pow2(n) }
}

/// The logistic function `1 / (1 + e^-x)` for `f32`, from `e = e^-|x|` (which cannot
/// overflow, so [`exp_nonpositive_f32`]'s cheaper form serves): `1 / (1 + e)` for
/// `x >= 0`, `e / (1 + e)` below. Under 4 ulp; 0 below ln(f32::MIN_POSITIVE), as
/// TF's float kernel; NaN passes through.
#[inline(always)]
pub fn sigmoid_f32(x: f32) -> f32 {
    sigmoid::<false>(x)
}

#[inline(always)]
fn sigmoid<const FMA: bool>(x: f32) -> f32 {
    let e = exp_nonpositive::<FMA>(-x.abs());
    let r = 1.0 / (1.0 + e);
    if x < 0.0 { e * r } else { r }
}

/// [`sigmoid_f32`] of each element of `out` in place, or of `src` into `out`: the
/// kernels' form, with the exponential's multiply-adds fused on targets that have FMA
/// (AVX2+FMA, AVX-512), as Eigen's and PyTorch's vectorised kernels are compiled.
/// Values may then differ from [`sigmoid_f32`]'s in the last bit.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl",
    "x86_64+avx2+fma",
    "aarch64+neon"
))]
pub fn sigmoid_f32_block(out: &mut [f32], src: Option<&[f32]>) {
    // AVX-512F implies FMA (the clone's feature list does not name it).
    const FMA: bool = multiversion::target::target_cfg_f!(any(target_feature = "fma", target_feature = "avx512f"));
    match src {
        Some(src) => out.iter_mut().zip(src).for_each(|(o, &x)| *o = sigmoid::<FMA>(x)),
        None => out.iter_mut().for_each(|o| *o = sigmoid::<FMA>(*o)),
    }
}

/// `tanh(x)` for `f32`: Eigen's rational approximation, exact to `x` near 0 and
/// saturating to ±1 beyond |x| ≈ 7.9.
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub fn tanh_f32(x: f32) -> f32 {
    const CLAMP: f32 = 7.905_311_107_635_498;
    let c = x.clamp(-CLAMP, CLAMP);
    let x2 = c * c;
    let mut p = x2 * -2.760_768_477_423_55e-16 + 2.000_187_904_824_77e-13;
    p = x2 * p + -8.604_671_522_137_35e-11;
    p = x2 * p + 5.122_297_090_371_14e-8;
    p = x2 * p + 1.485_722_357_179_79e-5;
    p = x2 * p + 6.372_619_288_754_36e-4;
    p = x2 * p + 4.893_524_558_917_86e-3;
    p *= c;
    let mut q = x2 * 1.198_258_394_667_02e-6 + 1.185_347_056_866_54e-4;
    q = x2 * q + 2.268_434_632_439_00e-3;
    q = x2 * q + 4.893_525_185_543_85e-3;
    if x.abs() < 4e-4 { x } else { p / q }
}

/// `ln(x)` for `f32` (Eigen's `plog`, Cephes' `logf`): NaN below zero, `-inf` at zero,
/// `inf` at `inf`; subnormal inputs count as the smallest normal (as Eigen's do).
#[inline(always)]
#[allow(clippy::excessive_precision, clippy::cast_possible_wrap, clippy::cast_precision_loss)]
pub fn ln_f32(x: f32) -> f32 {
    // `max` would turn NaN into the bound: NaN is restored at the end.
    let xc = if x > f32::MIN_POSITIVE { x } else { f32::MIN_POSITIVE };
    let bits = xc.to_bits();
    // x = m 2^e with m in [0.5, 1).
    let e = ((bits >> 23) as i32 - 126) as f32;
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f00_0000);
    // Below sqrt(1/2), 2m - 1 and e - 1 keep the polynomial's argument in
    // [sqrt(1/2) - 1, sqrt(2) - 1].
    let low = m < std::f32::consts::FRAC_1_SQRT_2;
    let r = if low { m + m - 1.0 } else { m - 1.0 };
    let e = if low { e - 1.0 } else { e };
    let z = r * r;
    let mut p = 7.037_683_629_2e-2 * r - 1.151_461_031_0e-1;
    p = p * r + 1.167_699_874_0e-1;
    p = p * r - 1.242_014_084_6e-1;
    p = p * r + 1.424_932_278_7e-1;
    p = p * r - 1.666_805_766_5e-1;
    p = p * r + 2.000_071_476_5e-1;
    p = p * r - 2.499_999_399_3e-1;
    p = p * r + 3.333_333_117_4e-1;
    // ln(1 + r) = r - r^2/2 + r^3 p(r); e ln 2 with ln 2 split in two.
    let y = p * r * z + e * -2.121_944_4e-4 - 0.5 * z;
    let v = r + y + e * 0.693_359_375;
    if x.is_nan() || x < 0.0 {
        f32::NAN
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        f32::INFINITY
    } else {
        v
    }
}

/// `ln(1 + x)` for `f32` (Eigen's `generic_log1p`): `x` itself where `1 + x` rounds
/// to one, else `ln(u) x / (u - 1)` with `u = 1 + x`, which cancels `u`'s rounding.
#[inline(always)]
pub fn ln_1p_f32(x: f32) -> f32 {
    let u = x + 1.0;
    let log_u = ln_f32(u);
    if u == 1.0 {
        x
    } else if u == f32::INFINITY {
        log_u
    } else {
        x * (log_u / (u - 1.0))
    }
}

/// Magnitude below which [`sin_cos_reduced_f32`] is within 2 ulp: Eigen's threshold for
/// its cosine (its sine's is 25966) with the four-part reduction used without FMA.
pub const TRIG_REDUCED_MAX: f32 = 18_838.0;

/// `sin(x)` (`SINE`) or `cos(x)` for `f32` with `|x| <` [`TRIG_REDUCED_MAX`]: Eigen's
/// `psincos_float` without FMA. `x` is reduced by the nearest multiple of pi/2 (pi/2
/// split in four parts, so each product is exact), then a degree-7 sine or degree-8
/// cosine polynomial on [-pi/4, pi/4] is picked by the quadrant, whose bits also give
/// the sign. Larger or non-finite `x` need another reduction: see [`sin_cos_f32`].
#[inline(always)]
#[allow(clippy::excessive_precision, clippy::unreadable_literal)]
pub fn sin_cos_reduced_f32<const SINE: bool>(x: f32) -> f32 {
    let a = x.abs();
    // Round a * 2/pi to an integer in the low mantissa bits (as `exp_f32` does).
    const SHIFT: f32 = 12_582_912.0;
    let rounded = a * 0.636_619_746_685_028_076_171_875 + SHIFT;
    let quadrant = rounded.to_bits();
    let n = rounded - SHIFT;
    let mut r = n * -1.570_312_5 + a;
    r += n * -0.000_483_989_715_576_171_875;
    r += n * 1.628_650_352_358_818_054_199_218_75e-7;
    r += n * 5.564_431_554_416_771_064_097_702_037_543_058_395_385_742_187_5e-11;
    // Bit 1 of the quadrant (of quadrant + 1 for the cosine) is the sign; the sine also
    // takes x's own sign (it is odd).
    let sign = if SINE { x.to_bits() ^ (quadrant << 30) } else { quadrant.wrapping_add(1) << 30 } & 0x8000_0000;
    let r2 = r * r;
    let cos = (((2.437_226_612_528_320_401_906_967_163_085_937_5e-5 * r2
        - 0.001_388_652_017_340_064_048_767_089_843_75)
        * r2
        + 0.041_666_619_479_656_219_482_421_875)
        * r2
        - 0.5)
        * r2
        + 1.0;
    let sin = ((-0.000_195_923_411_408_370_289_846_919_698_462_102_132_907_602_936_029_434_204_101_562_5 * r2
        + 0.008_332_687_365_561_685_169_379_479_987_128_434_004_262_089_729_309_082_031_25)
        * r2
        - 0.166_666_620_398_229_825_550_373_561_782_180_331_647_396_087_646_484_375)
        * r2
        * r
        + r;
    // Even quadrants take the sine polynomial for sin and the cosine one for cos.
    let even = quadrant & 1 == 0;
    let v = if even == SINE { sin } else { cos };
    f32::from_bits(v.to_bits() ^ sign)
}

/// `sin` (`SINE`) or `cos` of each element of `xs`, in place, into `out` when given
/// `src`: [`sin_cos_reduced_f32`] in vectorised blocks, with libm's exact reduction for
/// the rare block holding an element beyond [`TRIG_REDUCED_MAX`], an infinity or NaN.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl",
    "x86_64+avx2+fma",
    "aarch64+neon"
))]
// `!(|x| < max)` rather than `>=`: NaN must count as out of range.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub fn sin_cos_f32<const SINE: bool>(out: &mut [f32], src: Option<&[f32]>) {
    const BLOCK: usize = 64;
    for (i, block) in out.chunks_mut(BLOCK).enumerate() {
        if let Some(src) = src {
            block.copy_from_slice(&src[i * BLOCK..i * BLOCK + block.len()]);
        }
        let wide = block.iter().fold(false, |w, &x| w | !(x.abs() < TRIG_REDUCED_MAX));
        if wide {
            for x in block.iter_mut() {
                *x = if x.abs() < TRIG_REDUCED_MAX {
                    sin_cos_reduced_f32::<SINE>(*x)
                } else if SINE {
                    x.sin()
                } else {
                    x.cos()
                };
            }
        } else {
            for x in block.iter_mut() {
                *x = sin_cos_reduced_f32::<SINE>(*x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn max_rel_err(f: impl Fn(f32) -> f32, exact: impl Fn(f64) -> f64, lo: f32, hi: f32) -> f64 {
        let n = 200_001;
        (0..n)
            .map(|i| {
                let x = lo + (hi - lo) * i as f32 / (n - 1) as f32;
                let want = exact(f64::from(x));
                let got = f64::from(f(x));
                if want == 0.0 { got.abs() } else { ((got - want) / want).abs() }
            })
            .fold(0.0, f64::max)
    }

    /// Ulps between `a` and the correctly rounded `b` (as whole steps between floats).
    fn ulps(a: f32, b: f64) -> f64 {
        let key = |v: f32| {
            let i = v.to_bits() as i64;
            if i < 0x8000_0000 { i } else { 0x8000_0000 - i }
        };
        (key(a) - key(b as f32)).unsigned_abs() as f64
    }

    #[test]
    fn sigmoid_is_within_four_ulp_fused_or_not() {
        let exact = |x: f64| 1.0 / (1.0 + (-x).exp());
        let n = 400_001;
        let (lo, hi) = (EXP_LO, 40.0f32);
        let xs: Vec<f32> = (0..n).map(|i| lo + (hi - lo) * i as f32 / (n - 1) as f32).collect();
        let mut blocked = vec![0.0; n];
        sigmoid_f32_block(&mut blocked, Some(&xs));
        for (&x, &b) in xs.iter().zip(&blocked) {
            let want = exact(f64::from(x));
            for got in [sigmoid::<false>(x), sigmoid::<true>(x), b] {
                assert!(ulps(got, want) <= 4.0, "{x}: {got} vs {want}");
            }
        }
        // Below ln(f32::MIN_POSITIVE) it is 0, as TF's; the edges and NaN.
        for (x, want) in [(-88.0, 0.0), (f32::NEG_INFINITY, 0.0), (f32::INFINITY, 1.0), (0.0, 0.5), (-0.0, 0.5)] {
            assert_eq!(sigmoid_f32(x), want, "{x}");
        }
        assert!(sigmoid_f32(f32::NAN).is_nan());
        let mut in_place = xs.clone();
        sigmoid_f32_block(&mut in_place, None);
        assert_eq!(in_place, blocked);
    }

    #[test]
    fn sin_and_cos_are_within_two_ulp_below_the_threshold_and_exact_above() {
        let n = 400_001;
        let mut worst = (0.0f64, 0.0f32);
        for i in 0..n {
            let x = -TRIG_REDUCED_MAX + 2.0 * TRIG_REDUCED_MAX * i as f32 / (n - 1) as f32;
            for (got, want) in [
                (sin_cos_reduced_f32::<true>(x), f64::from(x).sin()),
                (sin_cos_reduced_f32::<false>(x), f64::from(x).cos()),
            ] {
                // Near a zero of the function, a relative ulp is meaningless: bound the
                // absolute error there (Eigen's: 5.96e-8).
                let e = if want.abs() < 1e-3 { (f64::from(got) - want).abs() / 5.96e-8 } else { ulps(got, want) };
                if e > worst.0 {
                    worst = (e, x);
                }
            }
        }
        assert!(worst.0 <= 2.0, "{worst:?}");
        let xs: Vec<f32> = vec![0.0, -0.0, 1.0, -3.5, 18_837.9, 18_838.0, -1e6, 3.0e38, f32::INFINITY, f32::NAN, 1e-30];
        for sine in [true, false] {
            let mut out = vec![0.0; xs.len()];
            if sine {
                sin_cos_f32::<true>(&mut out, Some(&xs));
            } else {
                sin_cos_f32::<false>(&mut out, Some(&xs));
            }
            for (&x, &y) in xs.iter().zip(&out) {
                let want = if sine { f64::from(x).sin() } else { f64::from(x).cos() };
                if want.is_nan() {
                    assert!(y.is_nan(), "{x}");
                } else {
                    assert!(ulps(y, want) <= 2.0 || (f64::from(y) - want).abs() < 1.2e-7, "{x}: {y} vs {want}");
                }
            }
        }
        assert_eq!(sin_cos_reduced_f32::<true>(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(sin_cos_reduced_f32::<false>(0.0), 1.0);
    }

    #[test]
    fn exp_of_nonpositive_values_is_exp_f32() {
        for i in 0..200_001 {
            let x = -90.0 * i as f32 / 200_000.0;
            assert_eq!(exp_nonpositive_f32(x).to_bits(), exp_f32(x).to_bits(), "{x}");
        }
        assert_eq!(exp_nonpositive_f32(f32::NEG_INFINITY), 0.0);
        assert!(exp_nonpositive_f32(f32::NAN).is_nan());
    }

    #[test]
    fn exp_is_within_two_ulp_and_handles_the_edges() {
        assert!(max_rel_err(exp_f32, f64::exp, -87.0, 88.0) < 2.5e-7);
        assert!(max_rel_err(exp_f32, f64::exp, -1.0, 1.0) < 2.5e-7);
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(100.0), f32::INFINITY);
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(-100.0), 0.0);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert!(exp_f32(f32::NAN).is_nan());
        assert!(exp_f32(88.7).is_finite());
    }

    #[test]
    fn ln_and_ln_1p_are_within_two_ulp_and_handle_the_edges() {
        // Relative error away from ln's zero at 1; absolute error around it.
        assert!(max_rel_err(ln_f32, f64::ln, 1e-30, 0.5) < 2.5e-7);
        assert!(max_rel_err(ln_f32, f64::ln, 2.0, 1e30) < 2.5e-7);
        let abs_err = (0..100_001)
            .map(|i| 0.5 + 1.5 * i as f32 / 100_000.0)
            .map(|x| (f64::from(ln_f32(x)) - f64::from(x).ln()).abs())
            .fold(0.0, f64::max);
        assert!(abs_err < 1.2e-7, "{abs_err}");
        for (lo, hi) in [(-0.999, -0.01), (-0.01, 0.01), (0.01, 1e6)] {
            assert!(max_rel_err(ln_1p_f32, f64::ln_1p, lo, hi) < 4e-7);
        }
        assert_eq!(ln_f32(1.0), 0.0);
        assert_eq!(ln_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(ln_f32(f32::INFINITY), f32::INFINITY);
        assert!(ln_f32(-1.0).is_nan() && ln_f32(f32::NAN).is_nan());
        assert_eq!(ln_1p_f32(1e-10), 1e-10);
        assert_eq!(ln_1p_f32(-1.0), f32::NEG_INFINITY);
        assert_eq!(ln_1p_f32(f32::INFINITY), f32::INFINITY);
        assert!(ln_1p_f32(-2.0).is_nan() && ln_1p_f32(f32::NAN).is_nan());
    }

    #[test]
    fn tanh_is_within_a_few_ulp_and_saturates() {
        assert!(max_rel_err(tanh_f32, f64::tanh, -9.0, 9.0) < 4e-7);
        assert!(max_rel_err(tanh_f32, f64::tanh, -0.01, 0.01) < 4e-7);
        assert_eq!(tanh_f32(0.0), 0.0);
        assert_eq!(tanh_f32(50.0), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
        assert!(tanh_f32(f32::NAN).is_nan());
    }
}
