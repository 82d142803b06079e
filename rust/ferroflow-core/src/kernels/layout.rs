//! Kernels that only rearrange elements (broadcast, transpose, slice, concat, unstack).
//! They work on bytes (one body for every dense dtype) or on string vectors, copying
//! contiguous runs of the innermost dimension at a time.
use super::num::Num;
use super::{KernelBuild, OpContext, OpKernel, stateless};
use crate::buffer::{AlignedBuf, try_vec};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
pub use crate::framework::shape_util::MirrorMode;
pub(crate) use crate::framework::shape_util::perm_of;
use crate::framework::tensor_util::{int_values, scalar_int, shape_from_values};
use crate::shape::{checked_num_elements, fmt_shape, normalize_axis, strides};
use crate::tensor::{Tensor, oom_error};

/// The elements of one tensor as bytes (dense) or strings, with the element size.
enum Elems<'a> {
    Bytes(&'a [u8]),
    Strings(&'a [Vec<u8>]),
}

fn elems(t: &Tensor) -> Result<Elems<'_>> {
    if t.dtype() == DType::String { Ok(Elems::Strings(t.as_strings()?)) } else { Ok(Elems::Bytes(t.as_bytes()?)) }
}

/// Output under construction: dense bytes written in order straight into the output's
/// aligned buffer (no second copy), or strings.
enum Sink {
    Bytes { buf: AlignedBuf, written: usize, elem: usize },
    Strings(Vec<Vec<u8>>),
}

impl Sink {
    /// An empty sink with room for an output of `shape`; TF's `InvalidArgument` when
    /// its element count overflows and `ResourceExhausted` (naming the shape) when the
    /// memory cannot be had: shapes come from users' values.
    fn for_output(dtype: DType, shape: &[usize]) -> Result<Sink> {
        let n = checked_num_elements(shape)?;
        let oom = |_| oom_error(dtype, shape);
        Ok(if dtype == DType::String {
            Sink::Strings(try_vec(n).map_err(oom)?)
        } else {
            let bytes = n.checked_mul(dtype.size()).ok_or_else(|| oom_error(dtype, shape))?;
            Sink::Bytes { buf: AlignedBuf::for_overwrite(bytes).map_err(oom)?, written: 0, elem: dtype.size() }
        })
    }
    /// Appends elements `start..start + len` of `src` (same dtype).
    fn extend(&mut self, src: &Elems<'_>, start: usize, len: usize) {
        match (self, src) {
            (Sink::Bytes { buf, written, elem }, Elems::Bytes(b)) => {
                let n = len * *elem;
                buf.as_mut_bytes()[*written..*written + n].copy_from_slice(&b[start * *elem..start * *elem + n]);
                *written += n;
            }
            (Sink::Strings(out), Elems::Strings(s)) => out.extend_from_slice(&s[start..start + len]),
            _ => unreachable!("source and sink dtypes agree"),
        }
    }
    /// Appends element `at` of `src` `count` times (a broadcast along the innermost
    /// dimension): one element, then copies of what is written, doubling each time.
    fn repeat(&mut self, src: &Elems<'_>, at: usize, count: usize) {
        match (self, src) {
            (Sink::Bytes { buf, written, elem }, Elems::Bytes(b)) => {
                let n = count * *elem;
                let out = &mut buf.as_mut_bytes()[*written..*written + n];
                if n > 0 {
                    out[..*elem].copy_from_slice(&b[at * *elem..(at + 1) * *elem]);
                    let mut filled = *elem;
                    while filled < n {
                        let more = filled.min(n - filled);
                        out.copy_within(..more, filled);
                        filled += more;
                    }
                }
                *written += n;
            }
            (Sink::Strings(out), Elems::Strings(s)) => out.extend(std::iter::repeat_n(&s[at], count).cloned()),
            _ => unreachable!("source and sink dtypes agree"),
        }
    }
    fn finish(self, dtype: DType, shape: &[usize]) -> Result<Tensor> {
        match self {
            Sink::Bytes { buf, written, .. } if written == buf.as_bytes().len() => Tensor::from_buf(dtype, shape, buf),
            Sink::Bytes { written, .. } => {
                Err(Error::new(Code::Internal, format!("layout kernel wrote {written} bytes of {}", fmt_shape(shape))))
            }
            Sink::Strings(s) => Tensor::from_strings(shape, s),
        }
    }
}

/// Calls `row(src_offset)` for each innermost-dimension row of an output of
/// `out_shape`, where the source has element strides `src_strides` (per output dim).
fn for_each_row(out_shape: &[usize], src_strides: &[usize], mut row: impl FnMut(usize)) {
    let rank = out_shape.len();
    if out_shape.contains(&0) {
        return;
    }
    if rank <= 1 {
        row(0);
        return;
    }
    let mut idx: crate::shape::Shape = smallvec::smallvec![0usize; rank - 1];
    let mut offset = 0usize;
    loop {
        row(offset);
        let mut d = rank - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            offset += src_strides[d];
            if idx[d] < out_shape[d] {
                break;
            }
            offset -= src_strides[d] * out_shape[d];
            idx[d] = 0;
        }
    }
}

/// Copies `x` broadcast (numpy rules) to `shape`.
pub fn broadcast_to(x: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let xs = x.shape();
    if xs.len() > shape.len() {
        ff_bail!(
            InvalidArgument,
            "Unable to broadcast tensor of shape {} to tensor of shape {}",
            fmt_shape(xs),
            fmt_shape(shape)
        );
    }
    let pad = shape.len() - xs.len();
    let own = strides(xs);
    let mut st: crate::shape::Shape = smallvec::smallvec![0usize; shape.len()];
    for i in 0..shape.len() {
        if i >= pad {
            let d = xs[i - pad];
            if d != shape[i] && d != 1 {
                ff_bail!(
                    InvalidArgument,
                    "Unable to broadcast tensor of shape {} to tensor of shape {}",
                    fmt_shape(xs),
                    fmt_shape(shape)
                );
            }
            st[i] = if d == 1 { 0 } else { own[i - pad] };
        }
    }
    if xs == shape {
        return Ok(x.clone());
    }
    let src = elems(x)?;
    let mut sink = Sink::for_output(x.dtype(), shape)?;
    let inner = shape.last().copied().unwrap_or(1);
    let inner_stride = st.last().copied().unwrap_or(0);
    for_each_row(shape, &st, |off| {
        if inner_stride == 1 || inner == 1 {
            sink.extend(&src, off, inner);
        } else {
            sink.repeat(&src, off, inner);
        }
    });
    sink.finish(x.dtype(), shape)
}

/// Permutes the dimensions of `x`: output dim `i` is input dim `perm[i]`.
pub fn transpose(x: &Tensor, perm: &[usize]) -> Result<Tensor> {
    let xs = x.shape();
    let mut seen = vec![false; xs.len()];
    if perm.len() != xs.len() || perm.iter().any(|&p| p >= xs.len() || std::mem::replace(&mut seen[p], true)) {
        ff_bail!(InvalidArgument, "transpose expects a permutation of 0..{}, got {perm:?}", xs.len());
    }
    let out_shape: Vec<usize> = perm.iter().map(|&p| xs[p]).collect();
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(x.clone());
    }
    let own = strides(xs);
    let st: Vec<usize> = perm.iter().map(|&p| own[p]).collect();
    let src = elems(x)?;
    let mut sink = Sink::for_output(x.dtype(), x.shape())?;
    let inner = out_shape.last().copied().unwrap_or(1);
    let inner_stride = st.last().copied().unwrap_or(1);
    for_each_row(&out_shape, &st, |off| {
        if inner_stride == 1 {
            sink.extend(&src, off, inner);
        } else {
            for j in 0..inner {
                sink.extend(&src, off + j * inner_stride, 1);
            }
        }
    });
    sink.finish(x.dtype(), &out_shape)
}

/// The block of `x` starting at `begin` with extent `size` per dimension.
pub fn slice(x: &Tensor, begin: &[usize], size: &[usize]) -> Result<Tensor> {
    let xs = x.shape();
    if begin.len() != xs.len() || size.len() != xs.len() {
        ff_bail!(InvalidArgument, "Expected begin and size arguments to be 1-D tensors of size {}", xs.len());
    }
    for i in 0..xs.len() {
        if begin[i] + size[i] > xs[i] {
            ff_bail!(
                InvalidArgument,
                "Expected size[{i}] in [0, {}], but got {}",
                xs[i].saturating_sub(begin[i]),
                size[i]
            );
        }
    }
    let own = strides(xs);
    let base: usize = begin.iter().zip(&own).map(|(b, s)| b * s).sum();
    let src = elems(x)?;
    let mut sink = Sink::for_output(x.dtype(), size)?;
    let inner = size.last().copied().unwrap_or(1);
    for_each_row(size, &own, |off| sink.extend(&src, base + off, inner));
    sink.finish(x.dtype(), size)
}

/// Concatenates same-dtype tensors along `axis`.
pub fn concat(values: &[&Tensor], axis: usize) -> Result<Tensor> {
    let first = values[0];
    let rank = first.shape().len();
    let mut out_shape = first.shape().to_vec();
    out_shape[axis] = 0;
    for (i, v) in values.iter().enumerate() {
        let s = v.shape();
        if s.len() != rank || v.dtype() != first.dtype() {
            ff_bail!(
                InvalidArgument,
                "ConcatOp : Ranks of all input tensors should match: shape[0] = {} vs. shape[{i}] = {}",
                fmt_shape(first.shape()),
                fmt_shape(s)
            );
        }
        for d in 0..rank {
            if d != axis && s[d] != first.shape()[d] {
                ff_bail!(
                    InvalidArgument,
                    "ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = {} vs. shape[{i}] = {}",
                    fmt_shape(first.shape()),
                    fmt_shape(s)
                );
            }
        }
        out_shape[axis] += s[axis];
    }
    let outer: usize = first.shape()[..axis].iter().product();
    let blocks: Vec<usize> = values.iter().map(|v| v.shape()[axis..].iter().product()).collect();
    let srcs: Vec<Elems<'_>> = values.iter().map(|v| elems(v)).collect::<Result<_>>()?;
    let mut sink = Sink::for_output(first.dtype(), &out_shape)?;
    for o in 0..outer {
        for (src, &b) in srcs.iter().zip(&blocks) {
            sink.extend(src, o * b, b);
        }
    }
    sink.finish(first.dtype(), &out_shape)
}

/// Splits `x` along `axis` into its `x.shape[axis]` slices (TF's `Unpack`).
pub fn unstack(x: &Tensor, axis: usize) -> Result<Vec<Tensor>> {
    let xs = x.shape();
    let n = xs[axis];
    let outer: usize = xs[..axis].iter().product();
    let inner: usize = xs[axis + 1..].iter().product();
    let mut out_shape = xs.to_vec();
    out_shape.remove(axis);
    let src = elems(x)?;
    (0..n)
        .map(|k| {
            let mut sink = Sink::for_output(x.dtype(), &[outer, inner])?;
            for o in 0..outer {
                sink.extend(&src, (o * n + k) * inner, inner);
            }
            sink.finish(x.dtype(), &out_shape)
        })
        .collect()
}

/// `x` repeated `multiples[i]` times along each dimension (TF's `Tile`). The output,
/// viewed as `[m0, d0, m1, d1, ...]`, reads the source with strides `[0, s0, 0, s1, ...]`,
/// so whole innermost rows are copied at a time.
pub fn tile(x: &Tensor, multiples: &[usize]) -> Result<Tensor> {
    let xs = x.shape();
    if multiples.len() != xs.len() {
        ff_bail!(
            InvalidArgument,
            "Expected multiples argument to be a vector of length {} but got length {}",
            xs.len(),
            multiples.len()
        );
    }
    let out_shape: Vec<usize> =
        xs.iter().zip(multiples).map(|(&d, &m)| checked_num_elements(&[d, m])).collect::<Result<_>>()?;
    let own = strides(xs);
    let view: Vec<usize> = multiples.iter().zip(xs).flat_map(|(&m, &d)| [m, d]).collect();
    let view_strides: Vec<usize> = own.iter().flat_map(|&s| [0, s]).collect();
    let src = elems(x)?;
    let mut sink = Sink::for_output(x.dtype(), &out_shape)?;
    let inner = view.last().copied().unwrap_or(1);
    for_each_row(&view, &view_strides, |off| sink.extend(&src, off, inner));
    sink.finish(x.dtype(), &out_shape)
}

/// `x` with `pad[i] = (before, after)` elements of `value` (a scalar of `x`'s dtype)
/// around each dimension (TF's `Pad`/`PadV2`).
pub fn pad(x: &Tensor, pads: &[(usize, usize)], value: &Tensor) -> Result<Tensor> {
    let xs = x.shape();
    let out_shape: Vec<usize> = xs.iter().zip(pads).map(|(d, (b, a))| b + d + a).collect();
    let mut out = super::array::fill(&out_shape, value)?;
    if x.num_elements() == 0 {
        return Ok(out);
    }
    let out_strides = strides(&out_shape);
    let base: usize = pads.iter().zip(&out_strides).map(|((b, _), s)| b * s).sum();
    let inner = xs.last().copied().unwrap_or(1);
    match elems(x)? {
        Elems::Bytes(src) => {
            let e = x.dtype().size();
            let dst = out.as_mut_bytes()?;
            let mut next = 0usize;
            for_each_row(xs, &out_strides, |off| {
                let o = (base + off) * e;
                dst[o..o + inner * e].copy_from_slice(&src[next..next + inner * e]);
                next += inner * e;
            });
        }
        Elems::Strings(src) => {
            let mut values = out.as_strings()?.to_vec();
            let mut next = 0usize;
            for_each_row(xs, &out_strides, |off| {
                values[base + off..base + off + inner].clone_from_slice(&src[next..next + inner]);
                next += inner;
            });
            out = Tensor::from_strings(&out_shape, values)?;
        }
    }
    Ok(out)
}

/// Visits `(source offset, output index)` of a strided selection: dimension `i` starts
/// at `begin[i]`, steps `step[i]` (negative steps walk backwards) and takes `size[i]`
/// elements, over a row-major source with `own` strides.
fn for_each_strided(begin: &[usize], step: &[isize], size: &[usize], own: &[usize], mut f: impl FnMut(usize, usize)) {
    if size.contains(&0) {
        return;
    }
    let rank = size.len();
    let base: isize = begin.iter().zip(own).map(|(&b, &s)| (b * s) as isize).sum();
    let deltas: Vec<isize> = step.iter().zip(own).map(|(&st, &s)| st * s as isize).collect();
    let mut idx = vec![0usize; rank];
    let mut off = base;
    for k in 0.. {
        f(off as usize, k);
        let mut d = rank;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            off += deltas[d];
            if idx[d] < size[d] {
                break;
            }
            off -= deltas[d] * size[d] as isize;
            idx[d] = 0;
        }
    }
}

/// The strided selection of `x` (see `for_each_strided`), shaped `size`.
pub fn strided_gather(x: &Tensor, begin: &[usize], step: &[isize], size: &[usize]) -> Result<Tensor> {
    let src = elems(x)?;
    let mut sink = Sink::for_output(x.dtype(), size)?;
    for_each_strided(begin, step, size, &strides(x.shape()), |off, _| sink.extend(&src, off, 1));
    sink.finish(x.dtype(), size)
}

/// Zeros of `shape` with `values` written at the strided selection (the gradient of
/// `strided_gather`: selected positions are distinct, so writing equals adding).
pub fn strided_scatter(values: &Tensor, shape: &[usize], begin: &[usize], step: &[isize]) -> Result<Tensor> {
    let mut out = Tensor::zeros(values.dtype(), shape)?;
    let own = strides(shape);
    match elems(values)? {
        Elems::Bytes(src) => {
            let e = values.dtype().size();
            let dst = out.as_mut_bytes()?;
            for_each_strided(begin, step, values.shape(), &own, |off, k| {
                dst[off * e..(off + 1) * e].copy_from_slice(&src[k * e..(k + 1) * e]);
            });
        }
        Elems::Strings(src) => {
            let mut v = out.as_strings()?.to_vec();
            for_each_strided(begin, step, values.shape(), &own, |off, k| v[off].clone_from(&src[k]));
            out = Tensor::from_strings(shape, v)?;
        }
    }
    Ok(out)
}

/// For each element of the mirror-padded output, in row-major order, the flat index of
/// the input element it copies. Paddings must be valid for the mode (checked by the op).
fn mirror_sources(shape: &[usize], pads: &[(usize, usize)], mode: MirrorMode) -> Vec<usize> {
    let skip_edge = usize::from(mode == MirrorMode::Reflect);
    // Per dimension: the source coordinate of every output coordinate.
    let maps: Vec<Vec<usize>> = shape
        .iter()
        .zip(pads)
        .map(|(&n, &(before, after))| {
            (0..before + n + after)
                .map(|i| {
                    if i < before {
                        before - i - 1 + skip_edge
                    } else if i - before < n {
                        i - before
                    } else {
                        2 * n - 1 - skip_edge - (i - before)
                    }
                })
                .collect()
        })
        .collect();
    let in_strides = strides(shape);
    let mut out = vec![0usize];
    for (map, stride) in maps.iter().zip(in_strides) {
        out = out.iter().flat_map(|&base| map.iter().map(move |&j| base + j * stride)).collect();
    }
    out
}

/// `MirrorPad`: `x` with reflected copies of its borders added around each dimension.
pub fn mirror_pad(x: &Tensor, pads: &[(usize, usize)], mode: MirrorMode) -> Result<Tensor> {
    let out_shape: Vec<usize> = x.shape().iter().zip(pads).map(|(d, (b, a))| b + d + a).collect();
    let sources = if x.num_elements() == 0 { Vec::new() } else { mirror_sources(x.shape(), pads, mode) };
    let src = elems(x)?;
    let mut sink = Sink::for_output(x.dtype(), &out_shape)?;
    for &i in &sources {
        sink.extend(&src, i, 1);
    }
    sink.finish(x.dtype(), &out_shape)
}

/// `MirrorPadGrad`: folds the gradient of a mirror-padded tensor back onto the input
/// (`in_shape`), adding every copy's gradient to the element it copied.
pub fn mirror_pad_grad<T: Num>(
    dy: &Tensor,
    in_shape: &[usize],
    pads: &[(usize, usize)],
    mode: MirrorMode,
) -> Result<Tensor> {
    let g = dy.as_slice::<T>()?;
    let mut dx = vec![T::ZERO; in_shape.iter().product()];
    if !dx.is_empty() {
        for (&i, &v) in mirror_sources(in_shape, pads, mode).iter().zip(g) {
            dx[i] = dx[i].add(v);
        }
    }
    Tensor::from_slice(in_shape, &dx)
}

/// `ConcatOffset`: where each input of a concat starts in the output (zeros except
/// along `concat_dim`), after checking that the other dimensions agree.
fn concat_offset_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let n = ctx.num_inputs() - 1;
    let first = int_values(ctx.input(1)?)?;
    let rank = first.len();
    let axis = scalar_int(ctx.input(0)?, "concat_dim")?;
    let Some(ax) = normalize_axis(axis, rank) else {
        ff_bail!(InvalidArgument, "Concat dim is out of range: {axis} vs. {rank}");
    };
    let dtype = ctx.input(1)?.dtype();
    let mut offset = 0i64;
    for i in 0..n {
        let s = int_values(ctx.input(i + 1)?)?;
        if s.len() != rank {
            ff_bail!(InvalidArgument, "input {i} should contain {rank} elements, but got {}", s.len());
        }
        if let Some(d) = (0..rank).find(|&d| d != ax && s[d] != first[d]) {
            ff_bail!(
                InvalidArgument,
                "All dimensions except {ax} must match. Input {i} has shape [{}] and doesn't match input 0 with shape [{}] (dimension {d}).",
                join(&s),
                join(&first)
            );
        }
        let mut out = vec![0i64; rank];
        out[ax] = offset;
        offset += s[ax];
        ctx.set_output(i, crate::kernels::array::cast(&Tensor::from_slice(&[rank], &out)?, dtype)?);
    }
    Ok(())
}

fn join(v: &[i64]) -> String {
    v.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
}

/// Non-negative sizes from an int tensor.
fn sizes(t: &Tensor, what: &str) -> Result<Vec<usize>> {
    crate::framework::tensor_util::dims_from(&int_values(t)?, what).map(smallvec::SmallVec::into_vec)
}

fn broadcast_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let shape = shape_from_values(&int_values(ctx.input(1)?)?, "shape")?;
    let out = broadcast_to(ctx.input(0)?, &shape)?;
    ctx.set_output(0, out);
    Ok(())
}

fn concat_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let n = ctx.num_inputs() - 1;
    let axis = int_values(ctx.input(n)?)?.first().copied().unwrap_or(0);
    let values: Vec<&Tensor> = (0..n).map(|i| ctx.input(i)).collect::<Result<_>>()?;
    let rank = values[0].shape().len();
    let Some(ax) = normalize_axis(axis, rank) else {
        ff_bail!(
            InvalidArgument,
            "ConcatOp : Expected concatenating dimensions in the range [{}, {rank}), but got {axis}",
            -(rank as i64)
        );
    };
    let out = concat(&values, ax)?;
    ctx.set_output(0, out);
    Ok(())
}

fn slice_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let begin = sizes(ctx.input(1)?, "begin")?;
    let size: Vec<usize> = int_values(ctx.input(2)?)?
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            if s == -1 {
                x.shape().get(i).copied().unwrap_or(0).saturating_sub(begin.get(i).copied().unwrap_or(0))
            } else {
                usize::try_from(s).unwrap_or(usize::MAX)
            }
        })
        .collect();
    let out = slice(x, &begin, &size)?;
    ctx.set_output(0, out);
    Ok(())
}

fn transpose_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let perm = perm_of(ctx.input(1)?, x.shape().len())?;
    let out = transpose(x, &perm)?;
    ctx.set_output(0, out);
    Ok(())
}

fn invert_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let p = sizes(x, "x")?;
    let mut inv = vec![usize::MAX; p.len()];
    for (i, &v) in p.iter().enumerate() {
        if v >= p.len() || inv[v] != usize::MAX {
            ff_bail!(InvalidArgument, "{v} is not a valid permutation entry of {p:?}");
        }
        inv[v] = i;
    }
    let v: Vec<i64> = inv.iter().map(|&i| i64::try_from(i).unwrap_or(i64::MAX)).collect();
    let out = crate::kernels::array::cast(&Tensor::from_slice(&[v.len()], &v)?, x.dtype())?;
    ctx.set_output(0, out);
    Ok(())
}

fn expand_dims_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let a = int_values(ctx.input(1)?)?.first().copied().unwrap_or(0);
    let x = ctx.take_input(0)?;
    let Some(ax) = normalize_axis(a, x.shape().len() + 1) else {
        ff_bail!(InvalidArgument, "Tried to expand dim index {a} for tensor with {} dimensions.", x.shape().len());
    };
    let mut shape = crate::shape::Shape::from_slice(x.shape());
    shape.insert(ax, 1);
    ctx.set_output(0, x.reshaped(&shape)?);
    Ok(())
}

struct UnpackKernel(i64);

/// `Unpack`'s kernel.
pub(crate) fn unpack_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(UnpackKernel(b.node.attr_or("axis", 0)?)))
}

impl OpKernel for UnpackKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let Some(ax) = normalize_axis(self.0, x.shape().len()) else {
            ff_bail!(InvalidArgument, "axis = {} not in range for shape {}", self.0, fmt_shape(x.shape()));
        };
        let parts = unstack(x, ax)?;
        if parts.len() != ctx.num_outputs() {
            ff_bail!(
                InvalidArgument,
                "Input shape axis {ax} must equal {}, got shape {}",
                ctx.num_outputs(),
                fmt_shape(x.shape())
            );
        }
        for (i, p) in parts.into_iter().enumerate() {
            ctx.set_output(i, p);
        }
        Ok(())
    }
}

/// `BroadcastTo`.
pub(crate) fn broadcast_to_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(broadcast_compute)
}

/// `ConcatV2`.
pub(crate) fn concat_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(concat_compute)
}

/// `ConcatOffset`.
pub(crate) fn concat_offset_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(concat_offset_compute)
}

/// `Slice`.
pub(crate) fn slice_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(slice_compute)
}

/// `Transpose`.
pub(crate) fn transpose_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(transpose_compute)
}

/// `InvertPermutation`.
pub(crate) fn invert_permutation_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(invert_compute)
}

/// `ExpandDims`.
pub(crate) fn expand_dims_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(expand_dims_compute)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota(shape: &[usize]) -> Tensor {
        let n: usize = shape.iter().product();
        Tensor::from_slice(shape, &(0..n as i32).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn mirror_pad_reflects_and_its_gradient_folds_back() {
        let x = Tensor::from_slice(&[3], &[1i32, 2, 3]).unwrap();
        let r = mirror_pad(&x, &[(2, 2)], MirrorMode::Reflect).unwrap();
        assert_eq!(r.as_slice::<i32>().unwrap(), &[3, 2, 1, 2, 3, 2, 1]);
        let s = mirror_pad(&x, &[(2, 3)], MirrorMode::Symmetric).unwrap();
        assert_eq!(s.as_slice::<i32>().unwrap(), &[2, 1, 1, 2, 3, 3, 2, 1]);
        let m = mirror_pad(&iota(&[2, 2]), &[(1, 0), (0, 1)], MirrorMode::Reflect).unwrap();
        assert_eq!(m.shape(), &[3, 3]);
        assert_eq!(m.as_slice::<i32>().unwrap(), &[2, 3, 2, 0, 1, 0, 2, 3, 2]);
        let dy = Tensor::from_slice(&[7], &[1.0f32; 7]).unwrap();
        let dx = mirror_pad_grad::<f32>(&dy, &[3], &[(2, 2)], MirrorMode::Reflect).unwrap();
        assert_eq!(dx.as_slice::<f32>().unwrap(), &[2.0, 3.0, 2.0]);
    }

    #[test]
    fn layout_ops() {
        let x = iota(&[2, 3]);
        let b = broadcast_to(&Tensor::from_slice(&[3], &[1i32, 2, 3]).unwrap(), &[2, 3]).unwrap();
        assert_eq!(b.as_slice::<i32>().unwrap(), &[1, 2, 3, 1, 2, 3]);
        let c = broadcast_to(&Tensor::from_slice(&[2, 1], &[7i32, 8]).unwrap(), &[2, 3]).unwrap();
        assert_eq!(c.as_slice::<i32>().unwrap(), &[7, 7, 7, 8, 8, 8]);
        let t = transpose(&x, &[1, 0]).unwrap();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(t.as_slice::<i32>().unwrap(), &[0, 3, 1, 4, 2, 5]);
        let s = slice(&iota(&[3, 4]), &[1, 1], &[2, 2]).unwrap();
        assert_eq!(s.as_slice::<i32>().unwrap(), &[5, 6, 9, 10]);
        let cc = concat(&[&x, &iota(&[2, 1])], 1).unwrap();
        assert_eq!(cc.as_slice::<i32>().unwrap(), &[0, 1, 2, 0, 3, 4, 5, 1]);
        let parts = unstack(&x, 1).unwrap();
        assert_eq!(parts[2].as_slice::<i32>().unwrap(), &[2, 5]);
        let tl = tile(&Tensor::from_slice(&[2], &[1i32, 2]).unwrap(), &[3]).unwrap();
        assert_eq!(tl.as_slice::<i32>().unwrap(), &[1, 2, 1, 2, 1, 2]);
        let t2 = tile(&x, &[2, 1]).unwrap();
        assert_eq!(t2.shape(), &[4, 3]);
        assert_eq!(&t2.as_slice::<i32>().unwrap()[6..], &[0, 1, 2, 3, 4, 5]);
        let p = pad(&x, &[(1, 0), (0, 2)], &Tensor::scalar(9i32)).unwrap();
        assert_eq!(p.as_slice::<i32>().unwrap(), &[9, 9, 9, 9, 9, 0, 1, 2, 9, 9, 3, 4, 5, 9, 9]);
        let r = strided_gather(&iota(&[3, 4]), &[2, 3], &[-1, -2], &[2, 2]).unwrap();
        assert_eq!(r.as_slice::<i32>().unwrap(), &[11, 9, 7, 5]);
        let back = strided_scatter(&r, &[3, 4], &[2, 3], &[-1, -2]).unwrap();
        assert_eq!(back.as_slice::<i32>().unwrap(), &[0, 0, 0, 0, 0, 5, 0, 7, 0, 9, 0, 11]);
        assert!(broadcast_to(&x, &[3, 3]).is_err());
        assert!(slice(&x, &[1, 0], &[2, 1]).is_err());
    }
}
