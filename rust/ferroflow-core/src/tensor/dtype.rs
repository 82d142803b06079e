//! Tensor element types, with TensorFlow's `DataType` numbers.
use crate::error::{Error, Result};

/// The element type of a tensor. The discriminants are TensorFlow's `DataType` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(i32)]
pub enum DType {
    /// 32-bit IEEE float (`DT_FLOAT`).
    Float32 = 1,
    /// 64-bit IEEE float (`DT_DOUBLE`).
    Float64 = 2,
    /// 32-bit signed integer.
    Int32 = 3,
    /// 8-bit unsigned integer.
    UInt8 = 4,
    /// 16-bit signed integer.
    Int16 = 5,
    /// 8-bit signed integer.
    Int8 = 6,
    /// Variable-length byte strings.
    String = 7,
    /// Complex number of two `f32`s (`DT_COMPLEX64`): real part first, as C++'s
    /// `std::complex<float>` and numpy's `complex64`.
    Complex64 = 8,
    /// 64-bit signed integer.
    Int64 = 9,
    /// Boolean, one byte per element.
    Bool = 10,
    /// 16-bit IEEE float (`DT_HALF`): arithmetic rounds each operation to half, as
    /// Eigen's `half` does; reductions and `MatMul` accumulate in `f32`.
    Float16 = 19,
    /// Brain float (`DT_BFLOAT16`): float32's exponent with 8 significand bits;
    /// arithmetic rounds each operation to bfloat16 (nearest even), as Eigen's
    /// `bfloat16` does; reductions and `MatMul` accumulate in `f32`.
    BFloat16 = 14,
    /// 16-bit unsigned integer.
    UInt16 = 17,
    /// Complex number of two `f64`s (`DT_COMPLEX128`).
    Complex128 = 18,
    /// A handle to a session resource (a queue); never the element type of a tensor.
    Resource = 20,
    /// An opaque host value (`DT_VARIANT`): a `tf.data` dataset; like `Resource`,
    /// never the element type of a dense tensor.
    Variant = 21,
    /// 32-bit unsigned integer.
    UInt32 = 22,
    /// 64-bit unsigned integer.
    UInt64 = 23,
}

impl DType {
    /// Every dtype ferroflow knows.
    pub const ALL: [DType; 18] = [
        DType::Float32,
        DType::Float64,
        DType::Int32,
        DType::UInt8,
        DType::Int16,
        DType::Int8,
        DType::String,
        DType::Int64,
        DType::Bool,
        DType::UInt16,
        DType::Float16,
        DType::BFloat16,
        DType::Resource,
        DType::Variant,
        DType::UInt32,
        DType::UInt64,
        DType::Complex64,
        DType::Complex128,
    ];

    /// The dtype with TensorFlow `DataType` number `code` (ref types, base + 100, map to their base).
    pub fn from_code(code: i32) -> Result<DType> {
        let base = if code > 100 { code - 100 } else { code };
        DType::ALL
            .into_iter()
            .find(|d| *d as i32 == base)
            .ok_or_else(|| Error::type_error(format!("ferroflow does not support DataType {code}")))
    }

    /// TensorFlow's Python name (`float32`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Int32 => "int32",
            DType::UInt8 => "uint8",
            DType::String => "string",
            DType::Int64 => "int64",
            DType::Bool => "bool",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Resource => "resource",
            DType::Variant => "variant",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::UInt16 => "uint16",
            DType::UInt32 => "uint32",
            DType::UInt64 => "uint64",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
        }
    }

    /// The `DataType` enum's name without its `DT_` prefix (`FLOAT`, `HALF`), as TF's
    /// kernel-registration messages spell it.
    pub fn enum_name(self) -> &'static str {
        match self {
            DType::Float32 => "FLOAT",
            DType::Float64 => "DOUBLE",
            DType::Int32 => "INT32",
            DType::UInt8 => "UINT8",
            DType::String => "STRING",
            DType::Int64 => "INT64",
            DType::Bool => "BOOL",
            DType::Float16 => "HALF",
            DType::BFloat16 => "BFLOAT16",
            DType::Resource => "RESOURCE",
            DType::Variant => "VARIANT",
            DType::Int8 => "INT8",
            DType::Int16 => "INT16",
            DType::UInt16 => "UINT16",
            DType::UInt32 => "UINT32",
            DType::UInt64 => "UINT64",
            DType::Complex64 => "COMPLEX64",
            DType::Complex128 => "COMPLEX128",
        }
    }

    /// TensorFlow's C++ name (`DataTypeString`: `float`, `double`), as its kernels'
    /// messages spell it.
    pub fn cpp_name(self) -> &'static str {
        match self {
            DType::Float32 => "float",
            DType::Float64 => "double",
            DType::Float16 => "half",
            other => other.name(),
        }
    }

    /// Bytes per element in a dense buffer (0 for strings, which are stored apart).
    pub fn size(self) -> usize {
        match self {
            DType::Complex128 => 16,
            DType::Float64 | DType::Int64 | DType::UInt64 | DType::Complex64 => 8,
            DType::Float32 | DType::Int32 | DType::UInt32 => 4,
            DType::Float16 | DType::BFloat16 | DType::Int16 | DType::UInt16 => 2,
            DType::UInt8 | DType::Int8 | DType::Bool => 1,
            DType::String | DType::Resource | DType::Variant => 0,
        }
    }

    /// Whether this is a floating-point type.
    pub fn is_floating(self) -> bool {
        matches!(self, DType::Float32 | DType::Float64 | DType::Float16 | DType::BFloat16)
    }

    /// Whether this is an integer type.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            DType::Int32
                | DType::Int64
                | DType::UInt8
                | DType::Int8
                | DType::Int16
                | DType::UInt16
                | DType::UInt32
                | DType::UInt64
        )
    }

    /// Whether this is a complex type.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }

    /// The type of a complex type's parts (`float32` of `complex64`); a real type's own.
    pub fn real_part(self) -> DType {
        match self {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            other => other,
        }
    }

    /// The complex type of parts of this type (`complex64` of `float32`), if any.
    pub fn complex_of(self) -> Option<DType> {
        match self {
            DType::Float32 => Some(DType::Complex64),
            DType::Float64 => Some(DType::Complex128),
            _ => None,
        }
    }

    /// Whether arithmetic kernels exist for this (real) type; complex types have their
    /// own kernels (`dispatch_complex!`).
    pub fn is_numeric(self) -> bool {
        self.is_floating() || self.is_integer()
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type that is the element type of a dense tensor.
pub trait Element: Copy + Send + Sync + Default + PartialEq + std::fmt::Debug + 'static {
    /// The matching dtype.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => { $(impl Element for $t { const DTYPE: DType = DType::$d; })* };
}
element!(f32 => Float32, f64 => Float64, i32 => Int32, i64 => Int64, u8 => UInt8, bool => Bool, half::f16 => Float16, half::bf16 => BFloat16,
    i8 => Int8, i16 => Int16, u16 => UInt16, u32 => UInt32, u64 => UInt64,
    num_complex::Complex32 => Complex64, num_complex::Complex64 => Complex128);

/// Runs `$body` with `$C` bound to the Rust type of a complex `$dtype` and `$R` to that
/// of its parts; other dtypes run `$otherwise`.
#[macro_export]
macro_rules! dispatch_complex {
    ($dtype:expr, $C:ident, $R:ident => $body:expr, _ => $otherwise:expr) => {
        match $dtype {
            $crate::dtype::DType::Complex64 => {
                type $C = $crate::num_complex::Complex32;
                #[allow(dead_code)]
                type $R = f32;
                $body
            }
            $crate::dtype::DType::Complex128 => {
                type $C = $crate::num_complex::Complex64;
                #[allow(dead_code)]
                type $R = f64;
                $body
            }
            #[allow(unreachable_patterns)]
            _ => $otherwise,
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust type of a numeric `$dtype`; other dtypes
/// run `$otherwise`.
#[macro_export]
macro_rules! dispatch_numeric {
    ($dtype:expr, $T:ident => $body:expr, _ => $otherwise:expr) => {
        match $dtype {
            $crate::dtype::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::dtype::DType::Float64 => {
                type $T = f64;
                $body
            }
            $crate::dtype::DType::Int32 => {
                type $T = i32;
                $body
            }
            $crate::dtype::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::dtype::DType::UInt8 => {
                type $T = u8;
                $body
            }
            $crate::dtype::DType::Float16 => {
                type $T = $crate::half::f16;
                $body
            }
            $crate::dtype::DType::BFloat16 => {
                type $T = $crate::half::bf16;
                $body
            }
            $crate::dtype::DType::Int8 => {
                type $T = i8;
                $body
            }
            $crate::dtype::DType::Int16 => {
                type $T = i16;
                $body
            }
            $crate::dtype::DType::UInt16 => {
                type $T = u16;
                $body
            }
            $crate::dtype::DType::UInt32 => {
                type $T = u32;
                $body
            }
            $crate::dtype::DType::UInt64 => {
                type $T = u64;
                $body
            }
            #[allow(unreachable_patterns)]
            _ => $otherwise,
        }
    };
}

/// Like [`dispatch_numeric!`] but also covers `bool`.
#[macro_export]
macro_rules! dispatch_pod {
    ($dtype:expr, $T:ident => $body:expr, _ => $otherwise:expr) => {
        match $dtype {
            $crate::dtype::DType::Bool => { type $T = bool; $body }
            other => $crate::dispatch_numeric!(other, $T => $body, _ => $otherwise),
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust type of a floating `$dtype`.
#[macro_export]
macro_rules! dispatch_float {
    ($dtype:expr, $T:ident => $body:expr, _ => $otherwise:expr) => {
        match $dtype {
            $crate::dtype::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::dtype::DType::Float64 => {
                type $T = f64;
                $body
            }
            $crate::dtype::DType::Float16 => {
                type $T = $crate::half::f16;
                $body
            }
            $crate::dtype::DType::BFloat16 => {
                type $T = $crate::half::bf16;
                $body
            }
            #[allow(unreachable_patterns)]
            _ => $otherwise,
        }
    };
}

/// Conversion between element types with the results TF's CPU kernels give: C++
/// `static_cast` as x86 executes it. Integer-to-integer wraps (Rust `as`); a float
/// that is NaN or out of an integer type's range becomes that type's minimum (the x86
/// "integer indefinite" value, where Rust `as` would saturate), and a float to `uint8`
/// goes through int32 (`-2.5` is 254, NaN is 0).
pub trait Castable: Element {
    /// As f64.
    fn to_f64(self) -> f64;
    /// As i64.
    fn to_i64(self) -> i64;
    /// From f64.
    fn from_f64(v: f64) -> Self;
    /// From i64.
    fn from_i64(v: i64) -> Self;
}

macro_rules! castable {
    ($($t:ty),*) => {$(
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss,
                clippy::cast_possible_wrap, clippy::cast_lossless)]
        impl Castable for $t {
            fn to_f64(self) -> f64 { self as f64 }
            fn to_i64(self) -> i64 { self as i64 }
            fn from_f64(v: f64) -> Self { v as $t }
            fn from_i64(v: i64) -> Self { v as $t }
        }
    )*};
}
castable!(f32, f64);

macro_rules! castable_half {
    ($($t:ty),*) => {$(
        #[allow(clippy::cast_possible_truncation)]
        impl Castable for $t {
            fn to_f64(self) -> f64 {
                f64::from(self.to_f32())
            }
            fn to_i64(self) -> i64 {
                f64_to_i64(self.to_f64())
            }
            fn from_f64(v: f64) -> Self {
                // Eigen's `half(double)` and `bfloat16(double)` round to `float` first.
                <$t>::from_f32(v as f32)
            }
            #[allow(clippy::cast_precision_loss)]
            fn from_i64(v: i64) -> Self {
                <$t>::from_f32(v as f32)
            }
        }
    )*};
}
castable_half!(half::f16, half::bf16);

macro_rules! castable_int {
    ($($t:ty => $from_f64:expr),*) => {$(
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss,
                clippy::cast_possible_wrap, clippy::cast_lossless)]
        impl Castable for $t {
            fn to_f64(self) -> f64 { self as f64 }
            fn to_i64(self) -> i64 { self as i64 }
            fn from_f64(v: f64) -> Self { $from_f64(v) }
            fn from_i64(v: i64) -> Self { v as $t }
        }
    )*};
}
castable_int!(i32 => f64_to_i32, i64 => f64_to_i64, u8 => |v| f64_to_i32(v) as u8,
    i8 => |v| f64_to_i32(v) as i8, i16 => |v| f64_to_i32(v) as i16, u16 => |v| f64_to_i32(v) as u16,
    u32 => |v| f64_to_i64(v) as u32, u64 => f64_to_u64);

/// x86-64's float-to-uint64 conversion as compilers emit it: below 2^63 the signed
/// conversion, above it the signed conversion of `v - 2^63` with the top bit set;
/// NaN and values out of range give `2^63`.
#[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)]
fn f64_to_u64(v: f64) -> u64 {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if v < TWO_63 { f64_to_i64(v) as u64 } else { (f64_to_i64(v - TWO_63) as u64) ^ (1 << 63) }
}

/// x86's truncating float-to-int32 conversion (`cvttsd2si`): NaN and values outside
/// int32's range give `i32::MIN`.
#[allow(clippy::cast_possible_truncation)]
fn f64_to_i32(v: f64) -> i32 {
    if v > -2_147_483_649.0 && v < 2_147_483_648.0 { v as i32 } else { i32::MIN }
}

/// x86's truncating float-to-int64 conversion: NaN and values outside int64's range
/// give `i64::MIN`.
#[allow(clippy::cast_possible_truncation)]
fn f64_to_i64(v: f64) -> i64 {
    if v > -9_223_372_036_854_777_856.0 && v < 9_223_372_036_854_775_808.0 { v as i64 } else { i64::MIN }
}

impl Castable for bool {
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn from_i64(v: i64) -> Self {
        v != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_refs_map_to_base() {
        for d in DType::ALL {
            assert_eq!(DType::from_code(d as i32).unwrap(), d);
        }
        assert_eq!(DType::from_code(101).unwrap(), DType::Float32);
        assert!(DType::from_code(11).is_err());
        assert_eq!(DType::from_code(8).unwrap(), DType::Complex64);
        assert_eq!(DType::Complex128.size(), 16);
    }
}
