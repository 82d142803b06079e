//! TensorFlow's `Tensor::SummarizeValue`: the text that `Print` and `Assert` show for a
//! tensor — its first `max_entries` elements in nested brackets, `...` where cut off —
//! with TF's element formatting (shortest of `%.6g`/`%.9g` that round-trips a float,
//! `%.15g`/`%.17g` for a double, bools as `1`/`0`, strings C-escaped).
use crate::dtype::DType;
use crate::tensor::Tensor;

/// The summary of `t`'s first `max_entries` elements (all of them when negative).
pub fn summarize_value(t: &Tensor, max_entries: i64) -> String {
    let n = t.num_elements();
    let limit = usize::try_from(max_entries).map_or(n, |m| m.min(n));
    if limit == 0 && t.dtype() == DType::Bool {
        return String::new(); // TF's bool summary of no entries is empty, without "..."
    }
    let elements = format_elements(t, limit);
    let mut out = String::new();
    if t.shape().is_empty() {
        out.push_str(&elements.join(" "));
    } else {
        let mut next = 0;
        print_dim(0, t.shape(), &elements, &mut next, &mut out);
    }
    if n > limit {
        out.push_str("...");
    }
    out
}

/// TF's `PrintOneDim`: brackets for every dimension but the last; a row cut off by the
/// limit ends in `...` unless it is the outermost dimension.
fn print_dim(dim: usize, shape: &[usize], elements: &[String], next: &mut usize, out: &mut String) {
    let limit = elements.len();
    if *next >= limit {
        return;
    }
    if dim == shape.len() - 1 {
        for i in 0..shape[dim] {
            if *next >= limit {
                if dim != 0 {
                    out.push_str("...");
                }
                return;
            }
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&elements[*next]);
            *next += 1;
        }
        return;
    }
    for _ in 0..shape[dim] {
        let opened = *next < limit;
        if opened {
            out.push('[');
        }
        print_dim(dim + 1, shape, elements, next, out);
        if *next < limit || opened {
            out.push(']');
        }
    }
}

fn format_elements(t: &Tensor, limit: usize) -> Vec<String> {
    fn each<T: crate::dtype::Element>(t: &Tensor, limit: usize, f: impl Fn(T) -> String) -> Vec<String> {
        t.as_slice::<T>().map(|s| s[..limit].iter().map(|&v| f(v)).collect()).unwrap_or_default()
    }
    match t.dtype() {
        DType::Float32 => each(t, limit, format_f32),
        DType::Float64 => each(t, limit, format_f64),
        // Stored as little-endian bits; printed through float as TF does.
        DType::Float16 => each(t, limit, |v: half::f16| format_f32(v.to_f32())),
        DType::BFloat16 => each(t, limit, |v: half::bf16| format_f32(v.to_f32())),
        DType::Int32 => each(t, limit, |v: i32| v.to_string()),
        DType::Int64 => each(t, limit, |v: i64| v.to_string()),
        DType::UInt8 => each(t, limit, |v: u8| v.to_string()),
        DType::Int8 => each(t, limit, |v: i8| v.to_string()),
        DType::Int16 => each(t, limit, |v: i16| v.to_string()),
        DType::UInt16 => each(t, limit, |v: u16| v.to_string()),
        DType::UInt32 => each(t, limit, |v: u32| v.to_string()),
        DType::UInt64 => each(t, limit, |v: u64| v.to_string()),
        DType::Bool => each(t, limit, |v: bool| if v { "1" } else { "0" }.to_string()),
        // TF's `PrintOneElement` of a `std::complex`: `(re,im)`.
        DType::Complex64 => {
            each(t, limit, |v: num_complex::Complex32| format!("({},{})", format_f32(v.re), format_f32(v.im)))
        }
        DType::Complex128 => {
            each(t, limit, |v: num_complex::Complex64| format!("({},{})", format_f64(v.re), format_f64(v.im)))
        }
        DType::String => t.as_strings().map(|s| s[..limit].iter().map(|b| c_escape(b)).collect()).unwrap_or_default(),
        DType::Resource | DType::Variant => vec![format!("<{}>", t.dtype().name()); limit],
    }
}

/// TF's `FloatToBuffer`: `%.6g`, or `%.9g` when that does not read back as `v`.
pub fn format_f32(v: f32) -> String {
    shortest_g(f64::from(v), [6, 9], |s| s.parse::<f32>().ok() == Some(v))
}

/// TF's `DoubleToBuffer`: `%.15g`, or `%.17g` when that does not read back as `v`.
pub fn format_f64(v: f64) -> String {
    shortest_g(v, [15, 17], |s| s.parse::<f64>().ok() == Some(v))
}

fn shortest_g(v: f64, precisions: [usize; 2], round_trips: impl Fn(&str) -> bool) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let short = format_g(v, precisions[0]);
    if round_trips(&short) { short } else { format_g(v, precisions[1]) }
}

/// C's `%.{precision}g`: `precision` significant digits, exponent form when the
/// exponent is below -4 or at least `precision`, trailing zeros removed.
fn format_g(v: f64, precision: usize) -> String {
    let precision = precision.max(1);
    let sci = format!("{:.*e}", precision - 1, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    #[allow(clippy::cast_possible_wrap)]
    if exp < -4 || exp >= precision as i64 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.unsigned_abs())
    } else {
        #[allow(clippy::cast_sign_loss, clippy::cast_possible_wrap)]
        let decimals = (precision as i64 - 1 - exp) as usize;
        strip_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s }
}

/// absl's `Utf8SafeCEscape`: C escapes for quotes, backslash and control bytes (octal);
/// bytes of multi-byte UTF-8 sequences pass through.
pub fn c_escape(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x20..=0x7e | 0x80..=0xff => out.push(b),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_tensorflow_prints_them() {
        assert_eq!(format_f32(0.1), "0.1");
        assert_eq!(format_f32(1e-7), "1e-07");
        assert_eq!(format_f32(123_456_789.0), "123456792");
        assert_eq!(format_f32(1.0), "1");
        assert_eq!(format_f32(-2.5), "-2.5");
        assert_eq!(format_f64(1.0 / 3.0), "0.33333333333333331");
        assert_eq!(format_f64(1e20), "1e+20");
        assert_eq!(format_f64(100_000.0), "100000");
        assert_eq!(format_f64(1_234_567.0), "1234567");
        assert_eq!(format_f64(0.1), "0.1");
        assert_eq!(format_f64(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn nested_brackets_and_ellipses_as_tensorflow() {
        let t = Tensor::from_slice(&[2, 2, 3], &(0..12).collect::<Vec<i64>>()).unwrap();
        assert_eq!(summarize_value(&t, 3), "[[0 1 2]]...");
        assert_eq!(summarize_value(&t, 5), "[[0 1 2][3 4...]]...");
        assert_eq!(summarize_value(&t, -1), "[[0 1 2][3 4 5]][[6 7 8][9 10 11]]");
        assert_eq!(summarize_value(&t, 0), "...");
        let v = Tensor::from_slice(&[4], &[1i32, 2, 3, 4]).unwrap();
        assert_eq!(summarize_value(&v, 3), "1 2 3...");
        assert_eq!(summarize_value(&Tensor::scalar(1.0f32), 0), "...");
        assert_eq!(summarize_value(&Tensor::zeros(DType::Float32, &[2, 0]).unwrap(), 3), "");
    }

    #[test]
    fn strings_are_c_escaped_but_utf8_passes() {
        assert_eq!(c_escape(b"a\"b\n\\\x01"), "a\\\"b\\n\\\\\\001");
        assert_eq!(c_escape("é".as_bytes()), "é");
    }
}
