//! String and file kernels: `DecodeRaw`, `DecodePaddedRaw`, `ParseTensor`,
//! `SerializeTensor`, `StringToNumber`, `StringJoin`, `Substr`,
//! `StringSplit`, `StringSplitV2`, `ReduceJoin`, `DecodeCSV`, `ReadFile` and `WriteFile`, with TF's
//! semantics and messages.
use super::{KernelBuild, OpContext, OpKernel, stateless};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::io::path_from_bytes;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// `DecodeRaw`: each string's bytes as a vector of `out_type`; `DecodePaddedRaw`: the
/// same over each string's first `fixed_length` bytes, zero-padded.
struct DecodeRaw {
    out_type: DType,
    little_endian: bool,
    padded: bool,
}

pub(crate) fn decode_raw_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(DecodeRaw {
        out_type: b.node.required_attr("out_type")?,
        little_endian: b.node.attr_or("little_endian", true)?,
        padded: b.node.op_type() == "DecodePaddedRaw",
    }))
}

impl DecodeRaw {
    /// The byte length every string decodes to: `fixed_length`, or the common length.
    fn length(&self, ctx: &OpContext<'_>, strings: &[Vec<u8>], width: usize) -> Result<usize> {
        if self.padded {
            let t = ctx.input(1)?;
            let fixed = crate::framework::tensor_util::int_values(t)?;
            let len = match fixed.as_slice() {
                [v] if t.shape().is_empty() => *v,
                _ => ff_bail!(InvalidArgument, "k must be scalar, got shape {}", fmt_shape(t.shape())),
            };
            let len = usize::try_from(len)
                .map_err(|_| Error::invalid_argument(format!("fixed_length must be non-negative, got {len}")))?;
            if !len.is_multiple_of(width) {
                ff_bail!(InvalidArgument, "fixed_length ({len}) must be a multiple of the size of out_type ({width})");
            }
            return Ok(len);
        }
        let len = strings.first().map_or(0, Vec::len);
        if !len.is_multiple_of(width) {
            ff_bail!(
                InvalidArgument,
                "Input to DecodeRaw has length {len} that is not a multiple of {width}, the size of {}",
                self.out_type.cpp_name()
            );
        }
        for (i, s) in strings.iter().enumerate() {
            if s.len() != len {
                ff_bail!(
                    InvalidArgument,
                    "DecodeRaw requires input strings to all be the same size, but element {i} has size {} != {len}",
                    s.len()
                );
            }
        }
        Ok(len)
    }
}

impl OpKernel for DecodeRaw {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0)?;
        let strings = input.as_strings()?;
        let width = self.out_type.size();
        let mut dims = input.shape().to_vec();
        if strings.is_empty() && !self.padded {
            dims.push(0);
            ctx.set_output(0, Tensor::zeros(self.out_type, &dims)?);
            return Ok(());
        }
        let len = self.length(ctx, strings, width)?;
        dims.push(len / width);
        let total = len
            .checked_mul(strings.len())
            .ok_or_else(|| Error::new(crate::error::Code::ResourceExhausted, "DecodeRaw: output too large"))?;
        let mut bytes = crate::buffer::try_vec(total)?;
        bytes.resize(total, 0u8);
        for (dst, s) in bytes.chunks_exact_mut(len.max(1)).zip(strings) {
            let n = s.len().min(len);
            dst[..n].copy_from_slice(&s[..n]);
        }
        if self.little_endian != cfg!(target_endian = "little") && width > 1 {
            for c in bytes.chunks_exact_mut(width) {
                c.reverse();
            }
        }
        ctx.set_output(0, Tensor::from_bytes(self.out_type, &dims, &bytes)?);
        Ok(())
    }
}

/// `ParseTensor`: a serialized `TensorProto` scalar as the tensor, of dtype `out_type`.
struct ParseTensor(DType);

pub(crate) fn parse_tensor_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ParseTensor(b.node.required_attr("out_type")?)))
}

impl OpKernel for ParseTensor {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        use prost::Message;
        let input = ctx.input(0)?;
        if !input.shape().is_empty() {
            ff_bail!(InvalidArgument, "Expected `serialized` to be a scalar, got shape: {}", fmt_shape(input.shape()));
        }
        let bytes = &input.as_strings()?[0];
        let bad = || {
            Error::invalid_argument(format!(
                "Could not parse `serialized` as TensorProto: '{}'",
                String::from_utf8_lossy(bytes)
            ))
        };
        let proto = ferroflow_proto::TensorProto::decode(bytes.as_slice()).map_err(|_| bad())?;
        let t = Tensor::from_proto(&proto).map_err(|_| bad())?;
        if t.dtype() != self.0 {
            ff_bail!(
                InvalidArgument,
                "Type mismatch between parsed tensor ({}) and dtype ({})",
                t.dtype().name(),
                self.0.name()
            );
        }
        ctx.set_output(0, t);
        Ok(())
    }
}

/// `SerializeTensor`: a tensor as a serialized `TensorProto` scalar.
pub(crate) fn serialize_tensor_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        use prost::Message;
        let bytes = ctx.input(0)?.to_proto().encode_to_vec();
        ctx.set_output(0, Tensor::from_strings(&[], vec![bytes])?);
        Ok(())
    })
}

/// `StringToNumber`.
struct StringToNumber(DType);

pub(crate) fn string_to_number_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(StringToNumber(b.node.attr_or("out_type", DType::Float32)?)))
}

fn convert_error(s: &[u8]) -> Error {
    Error::invalid_argument(format!(
        "StringToNumberOp could not correctly convert string: {}",
        String::from_utf8_lossy(s)
    ))
}

fn parse_num<T: std::str::FromStr>(s: &[u8]) -> Option<T> {
    std::str::from_utf8(s).ok()?.trim_ascii().parse().ok()
}

impl OpKernel for StringToNumber {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0)?;
        let strings = input.as_strings()?;
        let shape = input.shape().to_vec();
        fn all<T: std::str::FromStr + crate::dtype::Element>(strings: &[Vec<u8>], shape: &[usize]) -> Result<Tensor> {
            let v = strings
                .iter()
                .map(|s| parse_num::<T>(s).ok_or_else(|| convert_error(s)))
                .collect::<Result<Vec<T>>>()?;
            Tensor::from_slice(shape, &v)
        }
        let out = match self.0 {
            DType::Float32 => all::<f32>(strings, &shape)?,
            DType::Float64 => all::<f64>(strings, &shape)?,
            DType::Int32 => all::<i32>(strings, &shape)?,
            DType::Int64 => all::<i64>(strings, &shape)?,
            t => ff_bail!(InvalidArgument, "StringToNumber does not support {t}"),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `ReadFile`: the file's contents.
pub(crate) fn read_file_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let name = ctx.input(0)?;
        if !name.shape().is_empty() {
            ff_bail!(
                InvalidArgument,
                "Input filename tensor must be scalar, but had shape: {}",
                fmt_shape(name.shape())
            );
        }
        let path = &name.as_strings()?[0];
        let data = std::fs::read(path_from_bytes(path)?).map_err(|e| file_error(path, &e))?;
        ctx.set_output(0, Tensor::from_strings(&[], vec![data])?);
        Ok(())
    })
}

/// TF's message for a failed file operation: `path; reason`.
pub(crate) fn file_error(path: &[u8], e: &std::io::Error) -> Error {
    let reason = e.to_string();
    let reason = reason.split(" (os error").next().unwrap_or(&reason);
    Error::new(crate::error::io_code(e), format!("{}; {reason}", String::from_utf8_lossy(path)))
}

/// `WriteFile`: writes the contents, creating missing directories (as TF does).
pub(crate) fn write_file_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let name = ctx.input(0)?;
        let contents = ctx.input(1)?;
        if !name.shape().is_empty() {
            ff_bail!(
                InvalidArgument,
                "Input filename tensor must be scalar, but had shape: {}",
                fmt_shape(name.shape())
            );
        }
        if !contents.shape().is_empty() {
            ff_bail!(InvalidArgument, "Contents tensor must be scalar, but had shape: {}", fmt_shape(contents.shape()));
        }
        let path_bytes = &name.as_strings()?[0];
        let path = path_from_bytes(path_bytes)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| file_error(path_bytes, &e))?;
        }
        std::fs::write(&path, &contents.as_strings()?[0]).map_err(|e| file_error(path_bytes, &e))?;
        Ok(())
    })
}

/// The shape strings broadcast to (TF's rule for `StringJoin`: scalars broadcast, the
/// rest must have one shape).
fn common_shape<'a>(shapes: impl Iterator<Item = &'a [usize]>) -> Result<Vec<usize>> {
    let mut out: Option<Vec<usize>> = None;
    for s in shapes {
        if s.is_empty() {
            continue;
        }
        if out.is_none() {
            out = Some(s.to_vec());
        } else if let Some(o) = out.as_deref().filter(|o| *o != s) {
            ff_bail!(InvalidArgument, "Input shapes do not match: {} vs. {}", fmt_shape(o), fmt_shape(s));
        }
    }
    Ok(out.unwrap_or_default())
}

/// `StringJoin`: elementwise concatenation with a separator.
struct StringJoin(Vec<u8>);

pub(crate) fn string_join_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(StringJoin(b.node.attr_or::<String>("separator", String::new())?.into_bytes())))
}

impl OpKernel for StringJoin {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs: Vec<&Tensor> = (0..ctx.num_inputs()).map(|i| ctx.input(i)).collect::<Result<_>>()?;
        let shape = common_shape(inputs.iter().map(|t| t.shape()))?;
        let n: usize = shape.iter().product();
        let strings: Vec<&[Vec<u8>]> = inputs.iter().map(|t| t.as_strings()).collect::<Result<_>>()?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let mut s = Vec::new();
            for (j, v) in strings.iter().enumerate() {
                if j > 0 {
                    s.extend_from_slice(&self.0);
                }
                s.extend_from_slice(if v.len() == 1 && inputs[j].shape().is_empty() { &v[0] } else { &v[i] });
            }
            out.push(s);
        }
        ctx.set_output(0, Tensor::from_strings(&shape, out)?);
        Ok(())
    }
}

fn int_values(t: &Tensor) -> Result<Vec<i64>> {
    crate::framework::tensor_util::int_values(t).map(smallvec::SmallVec::into_vec)
}

/// `Substr` (unit `BYTE`): `len` bytes from `pos` (negative: from the end). `pos` and
/// `len` share a shape, broadcast against the input's (numpy rules, any rank; TF's
/// kernel stops at rank 2).
pub(crate) fn substr_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let unit = b.node.attr_or::<String>("unit", "BYTE".to_string())?;
    if unit != "BYTE" {
        ff_bail!(Unimplemented, "Substr with unit {unit} is not supported (only BYTE)");
    }
    stateless(|ctx| {
        let input = ctx.input(0)?;
        let (pos_t, len_t) = (ctx.input(1)?, ctx.input(2)?);
        if pos_t.shape() != len_t.shape() {
            ff_bail!(
                InvalidArgument,
                "pos and len should have the same shape, got: {} vs. {}",
                fmt_shape(pos_t.shape()),
                fmt_shape(len_t.shape())
            );
        }
        let shape = crate::shape::broadcast_shapes(input.shape(), pos_t.shape())?;
        let input = crate::kernels::layout::broadcast_to(input, &shape)?;
        let (pos, len) = (int_values(pos_t)?, int_values(len_t)?);
        let at = |v: &[i64], i: usize| if v.len() == 1 { v[0] } else { v[i] };
        let (pos, len) = if pos_t.shape() == shape.as_slice() || pos.len() == 1 {
            (pos, len)
        } else {
            let wide = |v: Vec<i64>| -> Result<Vec<i64>> {
                let t = Tensor::from_slice(pos_t.shape(), &v)?;
                Ok(crate::kernels::layout::broadcast_to(&t, &shape)?.as_slice::<i64>()?.to_vec())
            };
            (wide(pos)?, wide(len)?)
        };
        let strings = input.as_strings()?;
        let mut out = Vec::with_capacity(strings.len());
        for (i, s) in strings.iter().enumerate() {
            let (p, l) = (at(&pos, i), at(&len, i));
            let size = s.len() as i64;
            let start = if p < 0 { p + size } else { p };
            if !(0..=size).contains(&start) {
                ff_bail!(
                    InvalidArgument,
                    "pos {p} out of range for string b'{}' at index {i}",
                    String::from_utf8_lossy(s)
                );
            }
            let end = (start + l.max(0)).min(size);
            out.push(s[start as usize..end as usize].to_vec());
        }
        ctx.set_output(0, Tensor::from_strings(&shape, out)?);
        Ok(())
    })
}

/// `StringSplit`: a sparse `[batch, token]` matrix of the tokens of a vector of
/// strings, split at any byte of the delimiter (each byte, for an empty one).
struct StringSplit(bool);

pub(crate) fn string_split_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(StringSplit(b.node.attr_or("skip_empty", true)?)))
}

impl OpKernel for StringSplit {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0)?;
        if input.shape().len() != 1 {
            ff_bail!(InvalidArgument, "input must be a vector, got shape: {}", fmt_shape(input.shape()));
        }
        let delim_t = ctx.input(1)?;
        if !delim_t.shape().is_empty() {
            ff_bail!(InvalidArgument, "delimiter must be a scalar, got shape: {}", fmt_shape(delim_t.shape()));
        }
        let delim = &delim_t.as_strings()?[0];
        let mut indices: Vec<i64> = Vec::new();
        let mut values: Vec<Vec<u8>> = Vec::new();
        let mut max_tokens = 0usize;
        let rows = input.shape()[0];
        for (row, s) in input.as_strings()?.iter().enumerate() {
            let tokens: Vec<&[u8]> = if delim.is_empty() {
                s.chunks(1).collect()
            } else {
                s.split(|c| delim.contains(c)).filter(|t| !self.0 || !t.is_empty()).collect()
            };
            max_tokens = max_tokens.max(tokens.len());
            for (j, t) in tokens.into_iter().enumerate() {
                indices.extend([row as i64, j as i64]);
                values.push(t.to_vec());
            }
        }
        let n = values.len();
        ctx.set_output(0, Tensor::from_slice(&[n, 2], &indices)?);
        ctx.set_output(1, Tensor::from_strings(&[n], values)?);
        ctx.set_output(2, Tensor::from_slice(&[2], &[rows as i64, max_tokens as i64])?);
        Ok(())
    }
}

/// `StringSplitV2`: Python's `str.split` of each string of a vector, as TF's kernel
/// does it: an empty `sep` splits at runs of ASCII whitespace (no empty tokens), any
/// other `sep` at each occurrence of the whole string; after `maxsplit` splits (when
/// positive) the rest of the string is the last token, even when empty.
struct StringSplitV2(i64);

pub(crate) fn string_split_v2_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(StringSplitV2(b.node.attr_or("maxsplit", -1i64)?)))
}

fn is_ascii_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// TF's `SplitV2` (`string_split_op.cc`), byte for byte.
fn split_v2<'a>(text: &'a [u8], sep: &[u8], maxsplit: i64) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    if maxsplit == 0 {
        out.push(text);
        return out;
    }
    let mut rest = text;
    let mut splits = 0i64;
    if sep.is_empty() {
        let skip = |t: &'a [u8]| &t[t.iter().position(|&c| !is_ascii_space(c)).unwrap_or(t.len())..];
        rest = skip(rest);
        while !rest.is_empty() {
            let end = rest.iter().position(|&c| is_ascii_space(c)).unwrap_or(rest.len());
            out.push(&rest[..end]);
            rest = skip(&rest[end..]);
            splits += 1;
            if maxsplit > 0 && splits == maxsplit {
                out.push(rest);
                return out;
            }
        }
        return out;
    }
    while let Some(at) = rest.windows(sep.len()).position(|w| w == sep) {
        out.push(&rest[..at]);
        rest = &rest[at + sep.len()..];
        splits += 1;
        if maxsplit > 0 && splits == maxsplit {
            break;
        }
    }
    out.push(rest);
    out
}

impl OpKernel for StringSplitV2 {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0)?;
        if input.shape().len() != 1 {
            ff_bail!(InvalidArgument, "input must be a vector, got shape: {}", fmt_shape(input.shape()));
        }
        let sep_t = ctx.input(1)?;
        if !sep_t.shape().is_empty() {
            ff_bail!(InvalidArgument, "sep must be a scalar, got shape: {}", fmt_shape(sep_t.shape()));
        }
        let sep = &sep_t.as_strings()?[0];
        let rows = input.shape()[0];
        let mut indices: Vec<i64> = Vec::new();
        let mut values: Vec<Vec<u8>> = Vec::new();
        let mut max_tokens = 0usize;
        for (row, s) in input.as_strings()?.iter().enumerate() {
            let tokens = split_v2(s, sep, self.0);
            max_tokens = max_tokens.max(tokens.len());
            for (j, t) in tokens.into_iter().enumerate() {
                indices.extend([row as i64, j as i64]);
                values.push(t.to_vec());
            }
        }
        let n = values.len();
        ctx.set_output(0, Tensor::from_slice(&[n, 2], &indices)?);
        ctx.set_output(1, Tensor::from_strings(&[n], values)?);
        ctx.set_output(2, Tensor::from_slice(&[2], &[rows as i64, max_tokens as i64])?);
        Ok(())
    }
}

/// `ReduceJoin`: joins the strings along the reduced dimensions (in order).
struct ReduceJoin {
    keep_dims: bool,
    separator: Vec<u8>,
}

pub(crate) fn reduce_join_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ReduceJoin {
        keep_dims: b.node.attr_or("keep_dims", false)?,
        separator: b.node.attr_or::<String>("separator", String::new())?.into_bytes(),
    }))
}

impl OpKernel for ReduceJoin {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0)?;
        let dims = input.shape().to_vec();
        let rank = dims.len() as i64;
        let mut reduced = vec![false; dims.len()];
        // Reduced in the order listed: the first listed varies fastest.
        let mut order = Vec::new();
        for a in int_values(ctx.input(1)?)? {
            let axis = if a < 0 { a + rank } else { a };
            if !(0..rank).contains(&axis) {
                ff_bail!(InvalidArgument, "Invalid reduction dimension {a} for input with {rank} dimension(s)");
            }
            if std::mem::replace(&mut reduced[axis as usize], true) {
                ff_bail!(InvalidArgument, "Duplicate reduction dimension {a}");
            }
            order.push(axis as usize);
        }
        let strings = input.as_strings()?;
        let mut strides = vec![1usize; dims.len()];
        for d in (0..dims.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * dims[d + 1];
        }
        let kept: Vec<usize> = (0..dims.len()).filter(|&d| !reduced[d]).collect();
        let gone: Vec<usize> = order.into_iter().rev().collect();
        let out_n: usize = kept.iter().map(|&d| dims[d]).product();
        let red_n: usize = gone.iter().map(|&d| dims[d]).product();
        let offset = |idx: usize, axes: &[usize]| {
            let mut rest = idx;
            let mut off = 0;
            for &d in axes.iter().rev() {
                off += (rest % dims[d]) * strides[d];
                rest /= dims[d];
            }
            off
        };
        let mut out = Vec::with_capacity(out_n);
        for o in 0..out_n {
            let base = offset(o, &kept);
            let mut s = Vec::new();
            for r in 0..red_n {
                if r > 0 {
                    s.extend_from_slice(&self.separator);
                }
                s.extend_from_slice(&strings[base + offset(r, &gone)]);
            }
            out.push(s);
        }
        let shape: Vec<usize> = (0..dims.len())
            .filter_map(|d| if reduced[d] { self.keep_dims.then_some(1) } else { Some(dims[d]) })
            .collect();
        ctx.set_output(0, Tensor::from_strings(&shape, out)?);
        Ok(())
    }
}

/// `DecodeCSV`: the fields of each record, converted to the defaults' types.
struct DecodeCsv {
    delim: u8,
    use_quote_delim: bool,
    na_value: Vec<u8>,
    select_cols: Vec<usize>,
}

pub(crate) fn decode_csv_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let delim = b.node.attr_or::<String>("field_delim", ",".to_string())?.into_bytes();
    if delim.len() != 1 {
        ff_bail!(InvalidArgument, "field_delim should be only 1 char");
    }
    let select: Vec<i64> = b.node.attr_or("select_cols", Vec::new())?;
    let select_cols = select
        .iter()
        .map(|&c| usize::try_from(c).map_err(|_| Error::invalid_argument("select_cols should be non-negative")))
        .collect::<Result<Vec<_>>>()?;
    if select_cols.windows(2).any(|w| w[0] >= w[1]) {
        ff_bail!(InvalidArgument, "select_cols is not strictly increasing.");
    }
    Ok(Box::new(DecodeCsv {
        delim: delim[0],
        use_quote_delim: b.node.attr_or("use_quote_delim", true)?,
        na_value: b.node.attr_or::<String>("na_value", String::new())?.into_bytes(),
        select_cols,
    }))
}

impl DecodeCsv {
    /// The fields of one record (TF's `ExtractFields`).
    fn fields(&self, record: &[u8], index: usize) -> Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        let mut i = 0;
        let n = record.len();
        loop {
            let mut field = Vec::new();
            if self.use_quote_delim && i < n && record[i] == b'"' {
                i += 1;
                loop {
                    if i >= n {
                        ff_bail!(
                            InvalidArgument,
                            "Quoted field has to end with quote followed by delim or end: record {index}"
                        );
                    }
                    if record[i] == b'"' {
                        if i + 1 < n && record[i + 1] == b'"' {
                            field.push(b'"');
                            i += 2;
                            continue;
                        }
                        i += 1;
                        if i < n && record[i] != self.delim {
                            ff_bail!(
                                InvalidArgument,
                                "Quote inside a string has to be escaped by another quote in record {index}"
                            );
                        }
                        break;
                    }
                    field.push(record[i]);
                    i += 1;
                }
            } else {
                while i < n && record[i] != self.delim {
                    let c = record[i];
                    if self.use_quote_delim && (c == b'"' || c == b'\n' || c == b'\r') {
                        ff_bail!(InvalidArgument, "Unquoted fields cannot have quotes/CRLFs inside in record {index}");
                    }
                    field.push(c);
                    i += 1;
                }
            }
            out.push(field);
            if i >= n {
                break;
            }
            i += 1; // the delimiter
        }
        Ok(out)
    }
}

enum Column {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    Str(Vec<Vec<u8>>),
}

impl OpKernel for DecodeCsv {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let records_t = ctx.input(0)?;
        let shape = records_t.shape().to_vec();
        let records = records_t.as_strings()?;
        let ncols = ctx.num_inputs() - 1;
        let defaults: Vec<&Tensor> = (1..=ncols).map(|i| ctx.input(i)).collect::<Result<_>>()?;
        for d in &defaults {
            if d.shape().len() > 1 || d.shape().iter().product::<usize>() > 1 {
                ff_bail!(InvalidArgument, "Shape of a default must be a length-0 or length-1 vector, or a scalar.");
            }
        }
        let mut cols: Vec<Column> = defaults
            .iter()
            .map(|d| {
                Ok(match d.dtype() {
                    DType::Float32 => Column::F32(Vec::with_capacity(records.len())),
                    DType::Float64 => Column::F64(Vec::with_capacity(records.len())),
                    DType::Int32 => Column::I32(Vec::with_capacity(records.len())),
                    DType::Int64 => Column::I64(Vec::with_capacity(records.len())),
                    DType::String => Column::Str(Vec::with_capacity(records.len())),
                    t => ff_bail!(InvalidArgument, "csv: data type {t} not supported in field"),
                })
            })
            .collect::<Result<_>>()?;
        for (r, record) in records.iter().enumerate() {
            let mut fields = self.fields(record, r)?;
            if !self.select_cols.is_empty() {
                let have = fields.len();
                if self.select_cols.last().is_some_and(|&c| c >= have) {
                    ff_bail!(InvalidArgument, "Expect {} fields but have {have} in record {r}", ncols);
                }
                fields = self.select_cols.iter().map(|&c| std::mem::take(&mut fields[c])).collect();
            }
            if fields.len() != ncols {
                ff_bail!(InvalidArgument, "Expect {ncols} fields but have {} in record {r}", fields.len());
            }
            for (f, ((field, col), d)) in fields.iter().zip(cols.iter_mut()).zip(&defaults).enumerate() {
                let missing = field.is_empty() || *field == self.na_value;
                if missing && d.shape().iter().product::<usize>() == 0 {
                    ff_bail!(InvalidArgument, "Field {f} is required but missing in record {r}!");
                }
                let text = || String::from_utf8_lossy(field).into_owned();
                macro_rules! num {
                    ($v:expr, $t:ty, $name:literal) => {
                        $v.push(if missing {
                            d.as_slice::<$t>()?[0]
                        } else {
                            std::str::from_utf8(field).ok().and_then(|s| s.parse::<$t>().ok()).ok_or_else(|| {
                                Error::invalid_argument(format!(
                                    "Field {f} in record {r} is not a valid {}: {}",
                                    $name,
                                    text()
                                ))
                            })?
                        })
                    };
                }
                match col {
                    Column::F32(v) => num!(v, f32, "float"),
                    Column::F64(v) => num!(v, f64, "double"),
                    Column::I32(v) => num!(v, i32, "int32"),
                    Column::I64(v) => num!(v, i64, "int64"),
                    Column::Str(v) => v.push(if missing { d.as_strings()?[0].clone() } else { field.clone() }),
                }
            }
        }
        for (i, col) in cols.into_iter().enumerate() {
            let t = match col {
                Column::F32(v) => Tensor::from_slice(&shape, &v)?,
                Column::F64(v) => Tensor::from_slice(&shape, &v)?,
                Column::I32(v) => Tensor::from_slice(&shape, &v)?,
                Column::I64(v) => Tensor::from_slice(&shape, &v)?,
                Column::Str(v) => Tensor::from_strings(&shape, v)?,
            };
            ctx.set_output(i, t);
        }
        Ok(())
    }
}

/// `MatchingFiles`: the sorted files matching one or more glob patterns.
pub(crate) fn matching_files_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let patterns = ctx.input(0)?;
        if patterns.shape().len() > 1 {
            ff_bail!(
                InvalidArgument,
                "Input pattern tensor must be scalar or vector, but had shape: {}",
                fmt_shape(patterns.shape())
            );
        }
        let mut all = Vec::new();
        for p in patterns.as_strings()? {
            all.extend(ferroflow_io::glob::matching_paths(p)?);
        }
        all.sort();
        let n = all.len();
        ctx.set_output(0, Tensor::from_strings(&[n], all)?);
        Ok(())
    })
}

/// `AsString`: numbers and bools as text, with C's `printf` padding (`width` and a
/// `fill` flag: `0`, space or `-`) and, for floats, a fixed `precision` (default 6).
struct AsString {
    precision: Option<usize>,
    width: usize,
    fill: Option<char>,
}

pub(crate) fn as_string_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let precision: i64 = b.node.attr_or("precision", -1)?;
    let width: i64 = b.node.attr_or("width", -1)?;
    let fill: String = b.node.attr_or("fill", String::new())?;
    if fill.chars().count() > 1 {
        ff_bail!(InvalidArgument, "Fill string must be one or fewer characters");
    }
    if b.node.attr_or("scientific", false)? || b.node.attr_or("shortest", false)? {
        ff_bail!(Unimplemented, "AsString: scientific and shortest float formats are not supported");
    }
    Ok(Box::new(AsString {
        precision: usize::try_from(precision).ok(),
        width: usize::try_from(width).unwrap_or(0),
        fill: fill.chars().next(),
    }))
}

impl AsString {
    fn pad(&self, s: String) -> Vec<u8> {
        if s.len() >= self.width {
            return s.into_bytes();
        }
        let n = self.width - s.len();
        let out = match self.fill {
            Some('-') => format!("{s}{}", " ".repeat(n)),
            Some('0') => match s.strip_prefix('-') {
                Some(rest) => format!("-{}{rest}", "0".repeat(n)),
                None => format!("{}{s}", "0".repeat(n)),
            },
            _ => format!("{}{s}", " ".repeat(n)),
        };
        out.into_bytes()
    }
}

impl OpKernel for AsString {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0)?;
        let p = self.precision.unwrap_or(6);
        let text: Vec<Vec<u8>> = match t.dtype() {
            DType::Bool => t.as_slice::<bool>()?.iter().map(|v| self.pad(v.to_string())).collect(),
            DType::Float32 => t.as_slice::<f32>()?.iter().map(|v| self.pad(format!("{v:.p$}"))).collect(),
            DType::Float64 => t.as_slice::<f64>()?.iter().map(|v| self.pad(format!("{v:.p$}"))).collect(),
            d if d.is_integer() => int_values(t)?.into_iter().map(|v| self.pad(v.to_string())).collect(),
            d => ff_bail!(InvalidArgument, "Type {} not supported by AsString", d.cpp_name()),
        };
        ctx.set_output(0, Tensor::from_strings(t.shape(), text)?);
        Ok(())
    }
}

/// `RegexFullMatch` (pattern as an input) and `StaticRegexFullMatch` (as an attr):
/// whether each string matches the whole RE2 pattern (the `regex` crate's syntax is
/// RE2's).
struct RegexFullMatch(Option<regex::bytes::Regex>);

fn full_match_regex(pattern: &str) -> Result<regex::bytes::Regex> {
    regex::bytes::Regex::new(&format!("^(?:{pattern})$"))
        .map_err(|e| Error::invalid_argument(format!("Invalid pattern: {pattern}, error: {e}")))
}

pub(crate) fn regex_full_match_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    if b.node.op_type() == "StaticRegexFullMatch" {
        let pattern: String = b.node.attr_or("pattern", String::new())?;
        return Ok(Box::new(RegexFullMatch(Some(full_match_regex(&pattern)?))));
    }
    Ok(Box::new(RegexFullMatch(None)))
}

impl OpKernel for RegexFullMatch {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let owned;
        let re = match &self.0 {
            Some(re) => re,
            None => {
                let p = ctx.input(1)?;
                if !p.shape().is_empty() {
                    ff_bail!(InvalidArgument, "Pattern must be scalar, but received {}", fmt_shape(p.shape()));
                }
                owned = full_match_regex(&String::from_utf8_lossy(&p.as_strings()?[0]))?;
                &owned
            }
        };
        let input = ctx.input(0)?;
        let out: Vec<bool> = input.as_strings()?.iter().map(|s| re.is_match(s)).collect();
        ctx.set_output(0, Tensor::from_slice(input.shape(), &out)?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_v2_is_tensorflows_str_split() {
        let split = |s: &str, sep: &str, max: i64| -> Vec<String> {
            split_v2(s.as_bytes(), sep.as_bytes(), max)
                .iter()
                .map(|t| String::from_utf8_lossy(t).into_owned())
                .collect()
        };
        assert_eq!(split("  a b\t\nc  ", "", -1), ["a", "b", "c"]);
        assert_eq!(split("   ", "", -1), Vec::<String>::new());
        assert_eq!(split("a b c", "", 1), ["a", "b c"]);
        // TF pushes the (empty) rest after the last allowed split; Python would not.
        assert_eq!(split("a b", "", 2), ["a", "b", ""]);
        assert_eq!(split(" a b", "", 0), [" a b"]);
        assert_eq!(split("1<>2<><>3", "<>", -1), ["1", "2", "", "3"]);
        assert_eq!(split("", ",", -1), [""]);
        assert_eq!(split("a,b,c", ",", 1), ["a", "b,c"]);
        assert_eq!(split("a,", ",", -1), ["a", ""]);
    }

    #[test]
    fn csv_fields_follow_tf_quoting() {
        let k = DecodeCsv { delim: b',', use_quote_delim: true, na_value: Vec::new(), select_cols: Vec::new() };
        assert_eq!(k.fields(b"a,\"b,\"\"c\"\"\",", 0).unwrap(), [b"a".to_vec(), b"b,\"c\"".to_vec(), Vec::new()]);
        assert!(k.fields(b"\"a", 0).is_err());
        assert!(k.fields(b"a\"b", 0).is_err());
    }
}
