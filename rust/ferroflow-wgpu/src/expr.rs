//! A symbolic `f32` that writes WGSL: the core's element functions and optimizer rules
//! run on it once, and what they compute becomes a kernel's body. So a GPU kernel is
//! generated from the same definitions as the CPU's (`Rule::step`, `BinaryFn::apply`)
//! and computes the same formula, term for term.
//!
//! An [`Expr`] is an index into a thread-local trace of WGSL `let` statements; each
//! operation appends one. It is `Copy`, as the core's number traits require. Values
//! are compared only through [`Num::select_gt`], `max` and `min`, which become WGSL
//! `select`s; Rust's `PartialOrd` on an `Expr` compares trace positions and is never
//! meaningful (the rules never branch on values otherwise).
use std::cell::RefCell;
use std::fmt;

use ferroflow_core::DType;
use ferroflow_core::dtype::Element;
use ferroflow_core::kernels::num::{Float, Num};

/// A WGSL `f32` value being traced.
#[derive(Clone, Copy, Default, PartialEq, PartialOrd, Debug)]
pub struct Expr(u32);

/// Constants with fixed indices (the number traits need them as `const`s).
const CONSTANTS: [f32; 5] = [0.0, 1.0, f32::NEG_INFINITY, f32::INFINITY, f32::EPSILON];

thread_local! {
    static TRACE: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// A WGSL literal of exactly `v` (bit pattern, so infinities and NaN are exact too).
pub fn literal(v: f32) -> String {
    format!("bitcast<f32>({}u)", v.to_bits())
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match CONSTANTS.get(self.0 as usize) {
            Some(&c) => f.write_str(&literal(c)),
            None => write!(f, "t{}", self.0),
        }
    }
}

impl Expr {
    /// A value given by WGSL `text` (an input element, a parameter).
    pub fn var(text: impl Into<String>) -> Expr {
        TRACE.with(|t| {
            let mut t = t.borrow_mut();
            let id = (CONSTANTS.len() + t.len()) as u32;
            t.push(format!("    let t{id}: f32 = {};\n", text.into()));
            Expr(id)
        })
    }
    fn op(text: String) -> Expr {
        Expr::var(text)
    }
}

/// Runs `f` on a fresh trace: its result and the WGSL statements it recorded.
pub fn trace<R>(f: impl FnOnce() -> R) -> (R, String) {
    TRACE.with(|t| t.borrow_mut().clear());
    let out = f();
    let body = TRACE.with(|t| t.borrow_mut().drain(..).collect::<String>());
    (out, body)
}

impl Element for Expr {
    const DTYPE: DType = DType::Float32;
}

impl Num for Expr {
    const ZERO: Self = Expr(0);
    const ONE: Self = Expr(1);
    const LOWEST: Self = Expr(2);
    const HIGHEST: Self = Expr(3);
    fn add(self, b: Self) -> Self {
        Expr::op(format!("{self} + {b}"))
    }
    fn sub(self, b: Self) -> Self {
        Expr::op(format!("{self} - {b}"))
    }
    fn mul(self, b: Self) -> Self {
        Expr::op(format!("{self} * {b}"))
    }
    fn div(self, b: Self) -> Self {
        Expr::op(format!("{self} / {b}"))
    }
    fn neg(self) -> Self {
        Expr::op(format!("-{self}"))
    }
    // NaN-propagating, as the CPU's.
    fn max(self, b: Self) -> Self {
        Expr::op(format!("select({b}, {self}, {self} != {self} || {self} > {b})"))
    }
    fn min(self, b: Self) -> Self {
        Expr::op(format!("select({b}, {self}, {self} != {self} || {self} < {b})"))
    }
    fn abs_val(self) -> Self {
        Expr::op(format!("abs({self})"))
    }
    // -1, 0 or 1; zero and NaN are themselves, as the CPU's.
    fn sign(self) -> Self {
        Expr::op(format!("select(select({self}, -1.0, {self} < 0.0), 1.0, {self} > 0.0)"))
    }
    #[allow(clippy::cast_precision_loss)]
    fn from_usize(n: usize) -> Self {
        Expr::op(literal(n as f32))
    }
    fn is_zero(self) -> bool {
        // Never asked by the functions traced here; a symbolic value is not known.
        false
    }
    fn select_gt(self, b: Self, then: Self, otherwise: Self) -> Self {
        Expr::op(format!("select({otherwise}, {then}, {self} > {b})"))
    }
}

impl Float for Expr {
    const EPSILON: Self = Expr(4);
    fn sqrt(self) -> Self {
        Expr::op(format!("sqrt({self})"))
    }
    fn exp(self) -> Self {
        Expr::op(format!("exp({self})"))
    }
    fn ln(self) -> Self {
        Expr::op(format!("log({self})"))
    }
    // `log(1 + x)` corrected for the rounding of `1 + x` (exact for tiny `x`).
    fn ln_1p(self) -> Self {
        let u = Expr::op(format!("1.0 + {self}"));
        Expr::op(format!("select(log({u}) * {self} / ({u} - 1.0), {self}, {u} == 1.0)"))
    }
    // From `exp(-2|x|)`, which never overflows (a built-in `tanh` may give NaN for
    // large arguments on some drivers).
    fn tanh(self) -> Self {
        let e = Expr::op(format!("exp(-2.0 * abs({self}))"));
        Expr::op(format!("sign({self}) * (1.0 - {e}) / (1.0 + {e})"))
    }
    fn sin(self) -> Self {
        Expr::op(format!("sin({self})"))
    }
    fn cos(self) -> Self {
        Expr::op(format!("cos({self})"))
    }
    fn abs(self) -> Self {
        Expr::op(format!("abs({self})"))
    }
    fn powf(self, y: Self) -> Self {
        Expr::op(format!("pow({self}, {y})"))
    }
    fn floor(self) -> Self {
        Expr::op(format!("floor({self})"))
    }
    fn ceil(self) -> Self {
        Expr::op(format!("ceil({self})"))
    }
    // WGSL's `round` rounds halves to even, as TF's `Round`.
    fn round_even(self) -> Self {
        Expr::op(format!("round({self})"))
    }
    #[allow(clippy::cast_possible_truncation)]
    fn from_f64(x: f64) -> Self {
        Expr::op(literal(x as f32))
    }
    fn is_nan(self) -> bool {
        false
    }
    fn is_finite(self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferroflow_core::kernels::training::{Adam, Rule};

    #[test]
    fn a_rule_traces_to_one_let_per_operation() {
        let ((), body) = trace(|| {
            let mut x = [Expr::var("s0[i]"), Expr::var("s1[i]"), Expr::var("s2[i]")];
            let h = |k: usize| Expr::var(format!("bitcast<f32>(p[{k}])"));
            Adam::<Expr, false>::new(h(0), h(1), h(2), h(3), h(4), h(5)).step(&mut x, Expr::var("grad[i]"));
        });
        assert!(body.starts_with("    let t5: f32 = s0[i];\n"), "{body}");
        assert!(body.contains("sqrt("), "{body}");
        assert!(!body.contains("NaN"), "{body}");
    }
}
