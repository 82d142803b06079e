//! V1 checkpoints (TF's `TensorSliceWriter`/`TensorSliceReader`): one LevelDB-style
//! table per file, whose empty key holds a `SavedTensorSlices` with the metadata of
//! every tensor (name, shape, dtype, saved slices) and whose other keys (TF's
//! `EncodeTensorNameSlice`, see [`bundle::slice_key`]) each hold one slice's values in
//! a `TensorProto`'s typed fields. A sharded save writes one file per device
//! (`<prefix>-00000-of-00002`); the reader takes a glob over them.
//!
//! Everything read is checked before it is used: shapes and slices must fit in memory
//! and inside their tensor, each slice's value count must match its extent, and a
//! tensor's slices must cover it.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ferroflow_proto as pb;
use prost::Message;

use crate::bundle::{TensorBytes, TensorData, slice_key};
use crate::durable::{sync_parent, temp_path, write_synced};
use crate::table::{TableBuilder, read_table};
use crate::{Error, Result};

const DT_STRING: i32 = 7;
const VERSION: i32 = 1;
/// TF's `kMaxMessageBytes`: a slice's `TensorProto` must stay under 2 GiB.
const MAX_SLICE_BYTES: usize = 1 << 31;

/// One dimension of a slice: `(start, length)`, length -1 for the whole dimension.
pub type Extent = (i64, i64);

fn elem_size(dtype: i32) -> Option<usize> {
    match dtype {
        4 | 6 | 10 => Some(1),       // uint8, int8, bool
        5 | 14 | 17 | 19 => Some(2), // int16, bfloat16, uint16, half
        1 | 3 | 22 => Some(4),       // float, int32, uint32
        2 | 9 | 23 => Some(8),       // double, int64, uint64
        _ => None,
    }
}

fn extents_proto(extents: &[Extent]) -> pb::TensorSliceProto {
    pb::TensorSliceProto {
        extent: extents
            .iter()
            .map(|&(start, length)| {
                if length < 0 {
                    pb::tensor_slice_proto::Extent { start: 0, has_length: None }
                } else {
                    pb::tensor_slice_proto::Extent {
                        start,
                        has_length: Some(pb::tensor_slice_proto::extent::HasLength::Length(length)),
                    }
                }
            })
            .collect(),
    }
}

fn extents_of(p: &pb::TensorSliceProto) -> Vec<Extent> {
    p.extent
        .iter()
        .map(|e| match e.has_length {
            Some(pb::tensor_slice_proto::extent::HasLength::Length(l)) => (e.start, l),
            None => (e.start, -1),
        })
        .collect()
}

/// The values of `data` in the typed field TF's V1 writer uses for `dtype`.
fn fill(dtype: i32, data: TensorBytes<'_>, proto: &mut pb::TensorProto) -> Result<()> {
    macro_rules! le {
        ($bytes:expr, $t:ty, $n:literal) => {
            $bytes.chunks_exact($n).map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or([0; $n])))
        };
    }
    match (dtype, data) {
        (DT_STRING, TensorBytes::Strings(s)) => proto.string_val = s.to_vec(),
        (1, TensorBytes::Dense(b)) => proto.float_val = le!(b, f32, 4).collect(),
        (2, TensorBytes::Dense(b)) => proto.double_val = le!(b, f64, 8).collect(),
        (3, TensorBytes::Dense(b)) => proto.int_val = le!(b, i32, 4).collect(),
        (9, TensorBytes::Dense(b)) => proto.int64_val = le!(b, i64, 8).collect(),
        (4 | 10, TensorBytes::Dense(b)) if dtype == 10 => proto.bool_val = b.iter().map(|&v| v != 0).collect(),
        (4, TensorBytes::Dense(b)) => proto.int_val = b.iter().map(|&v| i32::from(v)).collect(),
        (6, TensorBytes::Dense(b)) => proto.int_val = b.iter().map(|&v| i32::from(v as i8)).collect(),
        (5, TensorBytes::Dense(b)) => proto.int_val = le!(b, i16, 2).map(i32::from).collect(),
        (17, TensorBytes::Dense(b)) => proto.int_val = le!(b, u16, 2).map(i32::from).collect(),
        (14 | 19, TensorBytes::Dense(b)) => proto.half_val = le!(b, u16, 2).map(i32::from).collect(),
        (22, TensorBytes::Dense(b)) => proto.uint32_val = le!(b, u32, 4).collect(),
        (23, TensorBytes::Dense(b)) => proto.uint64_val = le!(b, u64, 8).collect(),
        _ => return Err(Error::InvalidArgument(format!("V1 checkpoints cannot hold dtype {dtype}"))),
    }
    Ok(())
}

/// `n` values of `dtype` from a saved slice's `TensorProto` (its typed field, or
/// `tensor_content`), checked to be exactly `n`.
fn values_of(dtype: i32, proto: &pb::TensorProto, n: usize, name: &str) -> Result<TensorData> {
    let count_error =
        |got: usize| Error::DataLoss(format!("V1 checkpoint: slice of {name} holds {got} values, expected {n}"));
    if dtype == DT_STRING {
        if proto.string_val.len() != n {
            return Err(count_error(proto.string_val.len()));
        }
        return Ok(TensorData::Strings(proto.string_val.clone()));
    }
    let size = elem_size(dtype).ok_or_else(|| Error::DataLoss(format!("V1 checkpoint: {name} has dtype {dtype}")))?;
    if !proto.tensor_content.is_empty() {
        if proto.tensor_content.len() != n * size {
            return Err(count_error(proto.tensor_content.len() / size));
        }
        return Ok(TensorData::Dense(proto.tensor_content.clone()));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(n * size).map_err(|_| Error::ResourceExhausted(format!("{} bytes", n * size)))?;
    let got = match dtype {
        1 => proto.float_val.iter().map(|v| out.extend_from_slice(&v.to_le_bytes())).count(),
        2 => proto.double_val.iter().map(|v| out.extend_from_slice(&v.to_le_bytes())).count(),
        3 => proto.int_val.iter().map(|v| out.extend_from_slice(&v.to_le_bytes())).count(),
        9 => proto.int64_val.iter().map(|v| out.extend_from_slice(&v.to_le_bytes())).count(),
        10 => proto.bool_val.iter().map(|&v| out.push(u8::from(v))).count(),
        4 | 6 => proto.int_val.iter().map(|&v| out.push(v as u8)).count(),
        5 | 17 => proto.int_val.iter().map(|&v| out.extend_from_slice(&(v as u16).to_le_bytes())).count(),
        14 | 19 => proto.half_val.iter().map(|&v| out.extend_from_slice(&(v as u16).to_le_bytes())).count(),
        22 => proto.uint32_val.iter().map(|v| out.extend_from_slice(&v.to_le_bytes())).count(),
        23 => proto.uint64_val.iter().map(|v| out.extend_from_slice(&v.to_le_bytes())).count(),
        _ => 0,
    };
    if got != n {
        return Err(count_error(got));
    }
    Ok(TensorData::Dense(out))
}

/// The number of elements of `dims`, checked (`DataLoss` for a hostile shape).
fn checked_count(dims: &[i64], what: &str) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |acc, &d| {
            usize::try_from(d).ok().and_then(|d| acc.checked_mul(d)).filter(|&n| n <= isize::MAX as usize)
        })
        .ok_or_else(|| Error::DataLoss(format!("V1 checkpoint: bad shape {dims:?} of {what}")))
}

/// The shape of a slice of `full`, checked to lie inside it.
fn slice_dims(full: &[i64], extents: &[Extent], what: &str) -> Result<Vec<i64>> {
    if extents.len() != full.len() {
        return Err(Error::DataLoss(format!(
            "V1 checkpoint: slice of rank {} for {what} of rank {}",
            extents.len(),
            full.len()
        )));
    }
    full.iter()
        .zip(extents)
        .map(|(&d, &(start, len))| {
            let len = if len < 0 { d } else { len };
            if start < 0 || len < 0 || start.checked_add(len).is_none_or(|end| end > d) {
                return Err(Error::DataLoss(format!(
                    "V1 checkpoint: slice {extents:?} outside {what} of shape {full:?}"
                )));
            }
            Ok(len)
        })
        .collect()
}

/// Writes one V1 checkpoint file (`SaveSlices`): tensors or slices of them, added in
/// any order, written sorted and atomically by [`finish`](Self::finish).
pub struct SliceWriter {
    path: PathBuf,
    meta: Vec<pb::SavedSliceMeta>,
    index: BTreeMap<String, usize>,
    data: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl SliceWriter {
    /// A writer of the file `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        SliceWriter { path: path.into(), meta: Vec::new(), index: BTreeMap::new(), data: BTreeMap::new() }
    }

    /// Adds `values` as the slice `extents` (`None`: the whole tensor) of tensor `name`
    /// of shape `full`. TF's checks: one tensor keeps one shape and dtype.
    pub fn add(
        &mut self,
        name: &str,
        dtype: i32,
        full: &[i64],
        extents: Option<&[Extent]>,
        values: TensorBytes<'_>,
    ) -> Result<()> {
        let whole: Vec<Extent> = full.iter().map(|_| (0, -1)).collect();
        let extents = extents.unwrap_or(&whole);
        let dims = slice_dims(full, extents, name).map_err(|e| Error::InvalidArgument(e.to_string()))?;
        let n = checked_count(&dims, name)?;
        let got = match values {
            TensorBytes::Strings(s) => s.len(),
            TensorBytes::Dense(b) => b.len() / elem_size(dtype).unwrap_or(1).max(1),
        };
        if got != n {
            return Err(Error::InvalidArgument(format!("{name}: {got} values for a slice of {n}")));
        }
        let shape = pb::TensorShapeProto {
            dim: full.iter().map(|&size| pb::tensor_shape_proto::Dim { size, name: String::new() }).collect(),
            unknown_rank: false,
        };
        let i = match self.index.get(name) {
            Some(&i) => {
                let m = &self.meta[i];
                if m.shape.as_ref() != Some(&shape) || m.r#type != dtype {
                    return Err(Error::InvalidArgument(format!("Mismatching shapes or types for tensor {name}")));
                }
                i
            }
            None => {
                self.meta.push(pb::SavedSliceMeta {
                    name: name.to_string(),
                    shape: Some(shape),
                    r#type: dtype,
                    slice: Vec::new(),
                });
                self.index.insert(name.to_string(), self.meta.len() - 1);
                self.meta.len() - 1
            }
        };
        let slice = extents_proto(extents);
        self.meta[i].slice.push(slice.clone());
        let mut proto = pb::TensorProto::default();
        fill(dtype, values, &mut proto)?;
        let value = pb::SavedTensorSlices {
            meta: None,
            data: Some(pb::SavedSlice { name: name.to_string(), slice: Some(slice), data: Some(proto) }),
        }
        .encode_to_vec();
        if value.len() >= MAX_SLICE_BYTES {
            return Err(Error::InvalidArgument(format!(
                "Tensor slice is too large to serialize (conservative estimate: {} bytes)",
                value.len()
            )));
        }
        self.data.insert(slice_key(name, extents), value);
        Ok(())
    }

    /// Writes the file: a temporary file synced, renamed over `path`, the directory
    /// synced.
    pub fn finish(self) -> Result<()> {
        let meta = pb::SavedTensorSlices {
            meta: Some(pb::SavedTensorSliceMeta {
                tensor: self.meta,
                versions: Some(pb::VersionDef { producer: VERSION, min_consumer: 0, bad_consumers: Vec::new() }),
            }),
            data: None,
        };
        let mut table = TableBuilder::new();
        table.add(b"", &meta.encode_to_vec())?;
        for (k, v) in &self.data {
            table.add(k, v)?;
        }
        let tmp = temp_path(&self.path);
        write_synced(&tmp, &table.finish())?;
        std::fs::rename(&tmp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::Io(self.path.display().to_string(), e)
        })?;
        sync_parent(&self.path)
    }
}

/// What a V1 checkpoint says of one tensor.
#[derive(Clone, Debug)]
pub struct SavedTensor {
    /// TF's `DataType` code.
    pub dtype: i32,
    /// The full shape.
    pub shape: Vec<i64>,
    /// The saved slices: `(file, extents)`.
    slices: Vec<(usize, Vec<Extent>)>,
}

/// Reads V1 checkpoints written by TF or by [`SliceWriter`]: every file matching a
/// pattern, their metadata merged.
pub struct SliceReader {
    tables: Vec<BTreeMap<Vec<u8>, Vec<u8>>>,
    tensors: BTreeMap<String, SavedTensor>,
}

/// Whether `path` is a V1 checkpoint file: a table whose first key is empty.
pub fn is_v1_file(path: &Path) -> bool {
    std::fs::read(path).ok().and_then(|b| read_table(&b, "").ok()).is_some_and(|rows| {
        rows.first().is_some_and(|(k, v)| {
            k.is_empty() && pb::SavedTensorSlices::decode(v.as_slice()).is_ok_and(|s| s.meta.is_some())
        })
    })
}

impl SliceReader {
    /// Opens every file matching `pattern` (a path or a glob such as
    /// `model-?????-of-00002`); `NotFound` when none does.
    pub fn open(pattern: &Path) -> Result<Self> {
        let bytes = pattern.as_os_str().as_encoded_bytes();
        let files = crate::glob::matching_paths(bytes)?;
        if files.is_empty() {
            return Err(Error::NotFound(format!("Failed to find any matching files for {}", pattern.display())));
        }
        let mut reader = SliceReader { tables: Vec::new(), tensors: BTreeMap::new() };
        for file in files {
            let path = crate::glob::path_from_bytes(&file)?;
            reader.add_file(&path)?;
        }
        Ok(reader)
    }

    fn add_file(&mut self, path: &Path) -> Result<()> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(Error::io(name.clone()))?;
        let rows = read_table(&bytes, &name)?;
        let mut rows = rows.into_iter();
        let meta = match rows.next() {
            Some((k, v)) if k.is_empty() => pb::SavedTensorSlices::decode(v.as_slice())
                .ok()
                .and_then(|s| s.meta)
                .ok_or_else(|| Error::DataLoss(format!("{name}: not a V1 checkpoint (no metadata)")))?,
            _ => return Err(Error::DataLoss(format!("{name}: not a V1 checkpoint (no metadata)"))),
        };
        let file = self.tables.len();
        for t in meta.tensor {
            let shape: Vec<i64> = t.shape.as_ref().map(|s| s.dim.iter().map(|d| d.size).collect()).unwrap_or_default();
            checked_count(&shape, &t.name)?;
            let entry = self.tensors.entry(t.name.clone()).or_insert_with(|| SavedTensor {
                dtype: t.r#type,
                shape: shape.clone(),
                slices: Vec::new(),
            });
            if entry.dtype != t.r#type || entry.shape != shape {
                return Err(Error::DataLoss(format!("{name}: tensor {} saved with two shapes or dtypes", t.name)));
            }
            for s in &t.slice {
                let extents = extents_of(s);
                slice_dims(&shape, &extents, &t.name)?;
                entry.slices.push((file, extents));
            }
        }
        self.tables.push(rows.collect());
        Ok(())
    }

    /// The tensor names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tensors.keys().map(String::as_str)
    }

    /// What the checkpoint says of tensor `name`.
    pub fn tensor(&self, name: &str) -> Option<&SavedTensor> {
        self.tensors.get(name)
    }

    /// The whole tensor `name`, assembled from its slices (which must cover it).
    pub fn read(&self, name: &str) -> Result<TensorData> {
        let t = self.tensors.get(name).ok_or_else(|| Error::NotFound(format!("Key {name} not found in checkpoint")))?;
        let n = checked_count(&t.shape, name)?;
        let mut covered = 0usize;
        let mut out = if t.dtype == DT_STRING {
            TensorData::Strings(vec![Vec::new(); n])
        } else {
            let size = elem_size(t.dtype)
                .ok_or_else(|| Error::DataLoss(format!("V1 checkpoint: {name} has dtype {}", t.dtype)))?;
            let mut v = Vec::new();
            v.try_reserve_exact(n * size).map_err(|_| Error::ResourceExhausted(format!("{} bytes", n * size)))?;
            v.resize(n * size, 0);
            TensorData::Dense(v)
        };
        for (file, extents) in &t.slices {
            let key = slice_key(name, extents);
            let value = self.tables[*file]
                .get(&key)
                .ok_or_else(|| Error::DataLoss(format!("V1 checkpoint: the data of a slice of {name} is missing")))?;
            let saved = pb::SavedTensorSlices::decode(value.as_slice())
                .ok()
                .and_then(|s| s.data)
                .ok_or_else(|| Error::DataLoss(format!("V1 checkpoint: bad slice data of {name}")))?;
            let dims = slice_dims(&t.shape, extents, name)?;
            let count = checked_count(&dims, name)?;
            let values = values_of(t.dtype, &saved.data.unwrap_or_default(), count, name)?;
            copy_into(&mut out, &values, &t.shape, extents, &dims, t.dtype);
            covered += count;
        }
        if covered < n {
            return Err(Error::DataLoss(format!("V1 checkpoint: the saved slices of {name} do not cover it")));
        }
        Ok(out)
    }
}

/// Copies a slice's row-major values into the full tensor's buffer.
fn copy_into(out: &mut TensorData, values: &TensorData, full: &[i64], extents: &[Extent], dims: &[i64], dtype: i32) {
    let rank = full.len();
    let size = elem_size(dtype).unwrap_or(1);
    let total: usize = dims.iter().map(|&d| d as usize).product();
    if total == 0 {
        return;
    }
    let mut strides = vec![1usize; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * full[d + 1] as usize;
    }
    let mut index = vec![0usize; rank];
    for i in 0..total {
        let mut at = 0usize;
        for d in 0..rank {
            at += (extents[d].0 as usize + index[d]) * strides[d];
        }
        match (&mut *out, values) {
            (TensorData::Dense(o), TensorData::Dense(v)) => {
                o[at * size..(at + 1) * size].copy_from_slice(&v[i * size..(i + 1) * size]);
            }
            (TensorData::Strings(o), TensorData::Strings(v)) => o[at] = v[i].clone(),
            _ => {}
        }
        for d in (0..rank).rev() {
            index[d] += 1;
            if (index[d] as i64) < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_of_whole_tensors_and_slices() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.ckpt");
        let mut w = SliceWriter::new(&path);
        let floats: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        w.add("w", 1, &[2, 3], None, TensorBytes::Dense(&floats)).unwrap();
        let strings = vec![b"a".to_vec(), b"bc".to_vec()];
        w.add("s", DT_STRING, &[2], None, TensorBytes::Strings(&strings)).unwrap();
        let top: Vec<u8> = [7i64, 8].iter().flat_map(|v| v.to_le_bytes()).collect();
        let bottom: Vec<u8> = [9i64, 10].iter().flat_map(|v| v.to_le_bytes()).collect();
        w.add("p", 9, &[2, 2], Some(&[(1, 1), (0, -1)]), TensorBytes::Dense(&bottom)).unwrap();
        w.add("p", 9, &[2, 2], Some(&[(0, 1), (0, -1)]), TensorBytes::Dense(&top)).unwrap();
        w.finish().unwrap();
        assert!(is_v1_file(&path));
        let r = SliceReader::open(&path).unwrap();
        assert_eq!(r.names().collect::<Vec<_>>(), ["p", "s", "w"]);
        assert_eq!(r.read("w").unwrap(), TensorData::Dense(floats));
        assert_eq!(r.read("s").unwrap(), TensorData::Strings(strings));
        let all: Vec<u8> = [7i64, 8, 9, 10].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(r.read("p").unwrap(), TensorData::Dense(all));
        assert!(matches!(r.read("q"), Err(Error::NotFound(_))));
    }

    #[test]
    fn hostile_metadata_is_refused() {
        assert!(slice_dims(&[4], &[(3, 2)], "x").is_err());
        assert!(slice_dims(&[4, 2], &[(0, -1)], "x").is_err());
        assert!(checked_count(&[i64::MAX, 4], "x").is_err());
        assert!(checked_count(&[-1], "x").is_err());
        let p = pb::TensorProto { float_val: vec![1.0], ..Default::default() };
        assert!(values_of(1, &p, 2, "x").is_err());
    }
}
