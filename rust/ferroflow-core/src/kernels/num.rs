//! Element arithmetic with TensorFlow's integer semantics (wrapping overflow, an error
//! for integer division by zero) so kernels can be written once for every numeric type.
use crate::dtype::Element;

/// A numeric element type.
pub trait Num: Element + PartialOrd {
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// The smallest value (`-inf` for floats): the identity of `max`.
    const LOWEST: Self;
    /// The largest value (`+inf` for floats): the identity of `min`.
    const HIGHEST: Self;
    /// `a + b` (wrapping for integers).
    fn add(self, b: Self) -> Self;
    /// `a - b` (wrapping for integers).
    fn sub(self, b: Self) -> Self;
    /// `a * b` (wrapping for integers).
    fn mul(self, b: Self) -> Self;
    /// `a / b`; integer callers check for a zero divisor first.
    fn div(self, b: Self) -> Self;
    /// `-a` (wrapping for integers).
    fn neg(self) -> Self;
    /// Larger of the two (NaN-propagating for floats, as TF's Maximum).
    fn max(self, b: Self) -> Self;
    /// Smaller of the two (NaN-propagating for floats).
    fn min(self, b: Self) -> Self;
    /// Absolute value (wrapping for the most negative integer).
    fn abs_val(self) -> Self;
    /// -1, 0 or 1 by sign (0 for NaN's sign is NaN, as TF).
    fn sign(self) -> Self;
    /// Lossy conversion from an element count (for means).
    fn from_usize(n: usize) -> Self;
    /// Whether this is zero.
    fn is_zero(self) -> bool {
        self == Self::ZERO
    }
    /// `then` where `self > b`, else `otherwise` (a choice rules write as a call, so a
    /// symbolic number can turn it into a select).
    #[inline]
    fn select_gt(self, b: Self, then: Self, otherwise: Self) -> Self {
        if self > b { then } else { otherwise }
    }
}

macro_rules! int_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            #[inline] fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            #[inline] fn sub(self, b: Self) -> Self { self.wrapping_sub(b) }
            #[inline] fn mul(self, b: Self) -> Self { self.wrapping_mul(b) }
            #[inline] fn div(self, b: Self) -> Self { if b == 0 { 0 } else { self.wrapping_div(b) } }
            #[inline] fn neg(self) -> Self { self.wrapping_neg() }
            #[inline] fn max(self, b: Self) -> Self { Ord::max(self, b) }
            #[allow(unused_comparisons)]
            #[inline] fn abs_val(self) -> Self { if self < 0 { self.wrapping_neg() } else { self } }
            #[allow(unused_comparisons)]
            #[inline] fn sign(self) -> Self { if self > 0 { 1 } else if self < 0 { (0 as $t).wrapping_sub(1) } else { 0 } }
            #[inline] fn min(self, b: Self) -> Self { Ord::min(self, b) }
            #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
            #[inline] fn from_usize(n: usize) -> Self { n as $t }
        }
    )*};
}
int_num!(i32, i64, u8, i8, i16, u16, u32, u64);

macro_rules! float_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            #[inline] fn add(self, b: Self) -> Self { self + b }
            #[inline] fn sub(self, b: Self) -> Self { self - b }
            #[inline] fn mul(self, b: Self) -> Self { self * b }
            #[inline] fn div(self, b: Self) -> Self { self / b }
            #[inline] fn neg(self) -> Self { -self }
            #[inline] fn max(self, b: Self) -> Self { if self.is_nan() || self > b { self } else { b } }
            #[inline] fn abs_val(self) -> Self { self.abs() }
            #[inline] fn sign(self) -> Self { if self > 0.0 { 1.0 } else if self < 0.0 { -1.0 } else { self } }
            #[inline] fn min(self, b: Self) -> Self { if self.is_nan() || self < b { self } else { b } }
            #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
            #[inline] fn from_usize(n: usize) -> Self { n as $t }
        }
    )*};
}
float_num!(f32, f64);

use half::{bf16, f16};

/// `half` and `bfloat16`: each operation computes in `f32` and rounds once to the
/// 16-bit type (nearest even), as Eigen's `half` and `bfloat16` operators do (so a
/// kernel written for every type gives TF's results).
macro_rules! half_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const ZERO: Self = <$t>::ZERO;
            const ONE: Self = <$t>::ONE;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            #[inline]
            fn add(self, b: Self) -> Self {
                <$t>::from_f32(self.to_f32() + b.to_f32())
            }
            #[inline]
            fn sub(self, b: Self) -> Self {
                <$t>::from_f32(self.to_f32() - b.to_f32())
            }
            #[inline]
            fn mul(self, b: Self) -> Self {
                <$t>::from_f32(self.to_f32() * b.to_f32())
            }
            #[inline]
            fn div(self, b: Self) -> Self {
                <$t>::from_f32(self.to_f32() / b.to_f32())
            }
            #[inline]
            fn neg(self) -> Self {
                -self
            }
            #[inline]
            fn max(self, b: Self) -> Self {
                if self.is_nan() || self > b { self } else { b }
            }
            #[inline]
            fn min(self, b: Self) -> Self {
                if self.is_nan() || self < b { self } else { b }
            }
            #[inline]
            fn abs_val(self) -> Self {
                <$t>::from_bits(self.to_bits() & 0x7fff)
            }
            #[inline]
            fn sign(self) -> Self {
                if self > <$t>::ZERO {
                    <$t>::ONE
                } else if self < <$t>::ZERO {
                    <$t>::NEG_ONE
                } else {
                    self
                }
            }
            #[allow(clippy::cast_precision_loss)]
            #[inline]
            fn from_usize(n: usize) -> Self {
                <$t>::from_f32(n as f32)
            }
            #[inline]
            fn is_zero(self) -> bool {
                self.to_bits() & 0x7fff == 0
            }
        }
    )*};
}
half_num!(f16, bf16);

/// Floating-point element types and the transcendental functions kernels need.
pub trait Float: Num {
    /// Machine epsilon (the gap between one and the next value).
    const EPSILON: Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Natural exponential.
    fn exp(self) -> Self;
    /// Natural exponential of a value known not to be positive (softmax's shifted
    /// logits): no overflow side to handle.
    #[inline(always)]
    fn exp_nonpositive(self) -> Self {
        self.exp()
    }
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// `ln(1 + x)`.
    fn ln_1p(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// The logistic function `1 / (1 + e^-x)`.
    #[inline(always)]
    fn sigmoid(self) -> Self {
        Self::ONE.div(Self::ONE.add(self.neg().exp()))
    }
    /// [`sigmoid`](Self::sigmoid) of each element of `out` in place, or of `src` into
    /// `out`: what kernels call (`f32` overrides it with a vectorised block that fuses
    /// multiply-adds where the CPU has FMA).
    #[inline]
    fn sigmoid_block(out: &mut [Self], src: Option<&[Self]>) {
        match src {
            Some(src) => out.iter_mut().zip(src).for_each(|(o, &x)| *o = x.sigmoid()),
            None => out.iter_mut().for_each(|o| *o = o.sigmoid()),
        }
    }
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// `x` raised to `y`.
    fn powf(self, y: Self) -> Self;
    /// Rounds toward negative infinity.
    fn floor(self) -> Self;
    /// Rounds toward positive infinity.
    fn ceil(self) -> Self;
    /// Rounds to the nearest integer, halves to even (TF's `Round`).
    fn round_even(self) -> Self;
    /// The nearest value to `x` (rounding as `as` does).
    fn from_f64(x: f64) -> Self;
    /// Whether the value is NaN.
    fn is_nan(self) -> bool;
    /// Whether the value is neither infinite nor NaN.
    fn is_finite(self) -> bool;
}

// `f32` kernels use the vectorisable `exp`/`tanh` of `fastmath` (TF's Eigen
// approximations); `f64` keeps libm's correctly rounded ones, as Eigen does.
macro_rules! float_fns {
    ($($t:ty => $exp:path, $exp_np:path, $ln:path, $ln_1p:path, $tanh:path $(, $sigmoid:path, $sigmoid_block:path)?);*) => {$(
        impl Float for $t {
            const EPSILON: Self = <$t>::EPSILON;
            #[inline] fn sqrt(self) -> Self { <$t>::sqrt(self) }
            #[inline] fn exp(self) -> Self { $exp(self) }
            #[inline(always)] fn exp_nonpositive(self) -> Self { $exp_np(self) }
            #[inline] fn ln(self) -> Self { $ln(self) }
            #[inline] fn ln_1p(self) -> Self { $ln_1p(self) }
            #[inline] fn tanh(self) -> Self { $tanh(self) }
            $(
                #[inline(always)] fn sigmoid(self) -> Self { $sigmoid(self) }
                #[inline] fn sigmoid_block(out: &mut [Self], src: Option<&[Self]>) { $sigmoid_block(out, src) }
            )?
            #[inline] fn sin(self) -> Self { <$t>::sin(self) }
            #[inline] fn cos(self) -> Self { <$t>::cos(self) }
            #[inline] fn abs(self) -> Self { <$t>::abs(self) }
            #[inline] fn powf(self, y: Self) -> Self { <$t>::powf(self, y) }
            #[inline] fn floor(self) -> Self { <$t>::floor(self) }
            #[inline] fn ceil(self) -> Self { <$t>::ceil(self) }
            #[inline] fn round_even(self) -> Self { <$t>::round_ties_even(self) }
            #[inline] fn from_f64(x: f64) -> Self { x as $t }
            #[inline] fn is_nan(self) -> bool { <$t>::is_nan(self) }
            #[inline] fn is_finite(self) -> bool { <$t>::is_finite(self) }
        }
    )*};
}
float_fns!(
    f32 => super::fastmath::exp_f32, super::fastmath::exp_nonpositive_f32, super::fastmath::ln_f32,
        super::fastmath::ln_1p_f32, super::fastmath::tanh_f32, super::fastmath::sigmoid_f32,
        super::fastmath::sigmoid_f32_block;
    f64 => f64::exp, f64::exp, f64::ln, f64::ln_1p, f64::tanh
);

/// `half`'s and `bfloat16`'s functions: the `f32` function of the value, rounded to
/// the 16-bit type (Eigen's).
macro_rules! half_float {
    ($($t:ty),*) => {$(
        impl Float for $t {
            const EPSILON: Self = <$t>::EPSILON;
            half_float!(@via_f32 $t; sqrt => f32::sqrt, exp => super::fastmath::exp_f32,
                ln => super::fastmath::ln_f32, ln_1p => super::fastmath::ln_1p_f32, tanh => super::fastmath::tanh_f32, sin => f32::sin, cos => f32::cos,
                floor => f32::floor, ceil => f32::ceil, round_even => f32::round_ties_even);
            #[inline]
            fn abs(self) -> Self {
                self.abs_val()
            }
            #[inline]
            fn powf(self, y: Self) -> Self {
                <$t>::from_f32(self.to_f32().powf(y.to_f32()))
            }
            #[allow(clippy::cast_possible_truncation)]
            #[inline]
            fn from_f64(x: f64) -> Self {
                // Eigen converts through `float`.
                <$t>::from_f32(x as f32)
            }
            #[inline]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
        }
    )*};
    (@via_f32 $t:ty; $($name:ident => $f:expr),*) => {$(
        #[inline]
        fn $name(self) -> Self {
            <$t>::from_f32($f(self.to_f32()))
        }
    )*};
}
half_float!(f16, bf16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_rounds_each_operation_once() {
        let h = f16::from_f32;
        // 2049 is not a half: 2048 + 1 rounds to even (2048), twice.
        let a = h(2048.0).add(f16::ONE).add(f16::ONE);
        assert_eq!(a, h(2048.0));
        assert_eq!(h(0.1).mul(h(3.0)), h(h(0.1).to_f32() * 3.0));
        assert_eq!(h(1.0).div(h(3.0)), h(1.0 / 3.0));
        assert!(Num::max(f16::NAN, f16::ONE).is_nan() && Num::min(f16::ONE, f16::NAN).is_nan());
        assert_eq!(h(-0.0).sign().to_bits(), h(-0.0).to_bits());
        assert_eq!(h(-2.5).abs_val(), h(2.5));
        assert!(h(-0.0).is_zero());
        assert_eq!(Float::sqrt(h(2.0)), h(std::f32::consts::SQRT_2));
        assert_eq!(Float::round_even(h(2.5)), h(2.0));
        assert_eq!(f16::from_usize(3000), h(3000.0));
        // Through float, as Eigen's half(double): 1 + 2^-11 + 2^-40 rounds to 1 via float.
        assert_eq!(<f16 as Float>::from_f64(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), h(1.0));
    }

    #[test]
    fn bfloat16_rounds_each_operation_to_nearest_even() {
        let b = bf16::from_f32;
        // bfloat16 has 8 significand bits: 256 + 1 is halfway and rounds to even.
        assert_eq!(b(256.0).add(bf16::ONE), b(256.0));
        assert_eq!(b(256.0).add(b(3.0)), b(260.0));
        assert_eq!(b(1.0).div(b(3.0)), b(1.0 / 3.0));
        assert!(Num::max(bf16::NAN, bf16::ONE).is_nan());
        assert_eq!(b(-3.5).abs_val(), b(3.5));
        assert_eq!(Float::exp(b(1.0)), b(std::f32::consts::E));
        assert_eq!(<bf16 as Float>::from_f64(1e39), b(1e39_f64 as f32));
    }
}
