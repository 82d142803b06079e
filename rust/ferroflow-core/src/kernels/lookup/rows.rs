//! Values of a lookup table as fixed-width rows of one dtype (TF's value shape is the
//! row): little-endian bytes for dense dtypes, owned strings for `string`. Rows are
//! filled from and copied into tensors without a per-element dtype dispatch.
use crate::buffer::try_vec;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// Rows of `width` elements each.
pub(super) enum Rows {
    Dense { dtype: DType, row_bytes: usize, data: Vec<u8> },
    Strings { width: usize, data: Vec<Vec<u8>> },
}

/// The rows of a tensor (its leading elements split into rows of `width`), borrowed.
pub(super) enum RowsRef<'a> {
    Dense { row_bytes: usize, data: &'a [u8] },
    Strings { width: usize, data: &'a [Vec<u8>] },
}

impl<'a> RowsRef<'a> {
    /// `t` as rows of `width` elements.
    pub(super) fn of(t: &'a Tensor, width: usize) -> Result<Self> {
        Ok(if t.dtype() == DType::String {
            RowsRef::Strings { width, data: t.as_strings()? }
        } else {
            RowsRef::Dense { row_bytes: width * t.dtype().size(), data: t.as_bytes()? }
        })
    }
    /// Row `i` of dense rows (empty for strings).
    pub(super) fn dense_row(&self, i: usize) -> &'a [u8] {
        match self {
            RowsRef::Dense { row_bytes: n, data } => &data[i * n..(i + 1) * n],
            RowsRef::Strings { .. } => &[],
        }
    }
    /// Row `i` of string rows (empty for dense rows).
    pub(super) fn string_row(&self, i: usize) -> &'a [Vec<u8>] {
        match self {
            RowsRef::Strings { width: w, data } => &data[i * w..(i + 1) * w],
            RowsRef::Dense { .. } => &[],
        }
    }
    /// Whether rows `i` of `self` and `j` of `other` hold the same elements.
    pub(super) fn row_eq(&self, i: usize, other: &RowsRef<'_>, j: usize) -> bool {
        match (self, other) {
            (RowsRef::Dense { row_bytes: n, data: a }, RowsRef::Dense { data: b, .. }) => {
                a[i * n..(i + 1) * n] == b[j * n..(j + 1) * n]
            }
            (RowsRef::Strings { width: w, data: a }, RowsRef::Strings { data: b, .. }) => {
                a[i * w..(i + 1) * w] == b[j * w..(j + 1) * w]
            }
            _ => false,
        }
    }
}

impl Rows {
    /// `n` rows of zeros (empty strings) of `width` elements.
    pub(super) fn zeroed(dtype: DType, width: usize, n: usize) -> Result<Self> {
        let elems = n.checked_mul(width).ok_or_else(|| crate::buffer::alloc_failed(usize::MAX))?;
        Ok(if dtype == DType::String {
            let mut data = try_vec(elems)?;
            data.resize(elems, Vec::new());
            Rows::Strings { width, data }
        } else {
            let bytes = elems.checked_mul(dtype.size()).ok_or_else(|| crate::buffer::alloc_failed(usize::MAX))?;
            let mut data = try_vec(bytes)?;
            data.resize(bytes, 0);
            Rows::Dense { dtype, row_bytes: width * dtype.size(), data }
        })
    }

    /// The rows, borrowed.
    pub(super) fn as_ref(&self) -> RowsRef<'_> {
        match self {
            Rows::Dense { row_bytes, data, .. } => RowsRef::Dense { row_bytes: *row_bytes, data },
            Rows::Strings { width, data } => RowsRef::Strings { width: *width, data },
        }
    }

    /// Overwrites row `r` with row `i` of `src` (same dtype and width).
    pub(super) fn set(&mut self, r: usize, src: &RowsRef<'_>, i: usize) {
        match (self, src) {
            (Rows::Dense { row_bytes: n, data, .. }, RowsRef::Dense { data: s, .. }) => {
                let n = *n;
                data[r * n..(r + 1) * n].copy_from_slice(&s[i * n..(i + 1) * n]);
            }
            (Rows::Strings { width: w, data }, RowsRef::Strings { data: s, .. }) => {
                let w = *w;
                data[r * w..(r + 1) * w].clone_from_slice(&s[i * w..(i + 1) * w]);
            }
            _ => {}
        }
    }

    /// Appends row `i` of `src`; the new row's index.
    pub(super) fn push(&mut self, src: &RowsRef<'_>, i: usize) -> Result<usize> {
        match (self, src) {
            (Rows::Dense { row_bytes: n, data, .. }, RowsRef::Dense { data: s, .. }) => {
                let n = *n;
                data.try_reserve(n).map_err(|_| crate::buffer::alloc_failed(n))?;
                data.extend_from_slice(&s[i * n..(i + 1) * n]);
                Ok(data.len().checked_div(n).map_or(0, |r| r - 1))
            }
            (Rows::Strings { width: w, data }, RowsRef::Strings { data: s, .. }) => {
                let w = *w;
                data.try_reserve(w).map_err(|_| crate::buffer::alloc_failed(w))?;
                data.extend_from_slice(&s[i * w..(i + 1) * w]);
                Ok(data.len().checked_div(w).map_or(0, |r| r - 1))
            }
            _ => Ok(0),
        }
    }

    /// Row `r`'s first element as text (for TF's duplicate-key message).
    pub(super) fn fmt_first(&self, r: usize) -> String {
        fmt_first(&self.as_ref(), r, self.dtype())
    }

    fn dtype(&self) -> DType {
        match self {
            Rows::Dense { dtype, .. } => *dtype,
            Rows::Strings { .. } => DType::String,
        }
    }
}

/// Row `i`'s first element as TF prints it in messages.
pub(super) fn fmt_first(rows: &RowsRef<'_>, i: usize, dtype: DType) -> String {
    match rows {
        RowsRef::Strings { width, data } => String::from_utf8_lossy(&data[i * width]).into_owned(),
        RowsRef::Dense { row_bytes, data } => {
            let b = &data[i * row_bytes..];
            let take = |n: usize| -> [u8; 8] {
                let mut a = [0u8; 8];
                a[..n].copy_from_slice(&b[..n]);
                a
            };
            match dtype {
                DType::Int64 => i64::from_le_bytes(take(8)).to_string(),
                DType::Int32 => (u32::from_le_bytes(take(4)[..4].try_into().unwrap_or([0; 4])) as i32).to_string(),
                DType::Float32 => f32::from_le_bytes(take(4)[..4].try_into().unwrap_or([0; 4])).to_string(),
                DType::Float64 => f64::from_le_bytes(take(8)).to_string(),
                DType::Bool => (b[0] != 0).to_string(),
                _ => format!("{:?}", &b[..dtype.size().min(b.len())]),
            }
        }
    }
}

/// Output rows written straight into the output tensor (a lookup or an export).
pub(super) enum RowsOut {
    Dense { row_bytes: usize, tensor: Tensor, at: usize },
    Strings { width: usize, shape: Vec<usize>, data: Vec<Vec<u8>> },
}

impl RowsOut {
    /// An output of `shape` (rows of `width` elements of `dtype`), filled by `push`.
    pub(super) fn new(dtype: DType, width: usize, shape: &[usize]) -> Result<Self> {
        Ok(if dtype == DType::String {
            let n = crate::shape::checked_num_elements(shape)?;
            RowsOut::Strings { width, shape: shape.to_vec(), data: try_vec(n)? }
        } else {
            RowsOut::Dense { row_bytes: width * dtype.size(), tensor: Tensor::for_overwrite(dtype, shape)?, at: 0 }
        })
    }

    /// Appends row `i` of `src`.
    pub(super) fn push(&mut self, src: &RowsRef<'_>, i: usize) -> Result<()> {
        match (self, src) {
            (RowsOut::Dense { row_bytes: n, tensor, at }, RowsRef::Dense { data: s, .. }) => {
                let n = *n;
                tensor.as_mut_bytes()?[*at..*at + n].copy_from_slice(&s[i * n..(i + 1) * n]);
                *at += n;
            }
            (RowsOut::Strings { width: w, data, .. }, RowsRef::Strings { data: s, .. }) => {
                data.extend_from_slice(&s[i * *w..(i + 1) * *w]);
            }
            _ => {}
        }
        Ok(())
    }

    /// The filled tensor.
    pub(super) fn finish(self) -> Result<Tensor> {
        match self {
            RowsOut::Dense { tensor, .. } => Ok(tensor),
            RowsOut::Strings { shape, data, .. } => Tensor::from_strings(&shape, data),
        }
    }
}
