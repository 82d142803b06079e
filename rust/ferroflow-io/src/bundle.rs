//! V2 checkpoints: TF's tensor bundle (formats.md §2). A bundle with prefix `P` is
//! `P.data-00000-of-00001` (tensor bytes back to back) and `P.index` (a sorted table:
//! the empty key holds a `BundleHeaderProto`, every tensor name a `BundleEntryProto`
//! with dtype, shape, offset, size and the masked CRC32C of the bytes).
//!
//! The writer produces TF's bytes exactly and is crash-safe: a process killed at any
//! instant leaves either the old bundle or the new one readable, never a mix (see
//! [`BundleWriter::finish`] for the protocol; TF's own writer can leave a new data file
//! beside the old index). The reader validates everything it reads before it
//! allocates from it (shapes, sizes and offsets against the data file's length), and
//! checks each entry's checksum: a damaged or truncated file is `DataLoss`, never a
//! crash or wrong values.
//! Values are raw little-endian bytes, or byte strings for `DT_STRING`; the caller
//! (the core's save/restore kernels) converts them to and from tensors.
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use ferroflow_proto as pb;
use prost::Message;

use crate::durable::{start_writeback, suffixed, sync_parent, temp_path, write_synced};
use crate::record::mask;
use crate::table::{TableBuilder, get_varint, read_table};
use crate::{Error, Result};

/// TF's `DT_STRING`.
pub const DT_STRING: i32 = 7;
/// The bundle format version this code writes and reads (TF's `kTensorBundleVersion`).
const VERSION: i32 = 1;

/// A tensor's values to store, borrowed from the tensor (no copy).
#[derive(Clone, Copy, Debug)]
pub enum TensorBytes<'a> {
    /// Little-endian element bytes, row-major (every dtype but strings).
    Dense(&'a [u8]),
    /// One byte string per element (`DT_STRING`).
    Strings(&'a [Vec<u8>]),
}

/// A tensor's values as read from a bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensorData {
    /// Little-endian element bytes, row-major (every dtype but strings).
    Dense(Vec<u8>),
    /// One byte string per element (`DT_STRING`).
    Strings(Vec<Vec<u8>>),
}

/// Bytes per element of the dense dtypes a bundle may hold (None: not dense).
fn dtype_size(dtype: i32) -> Option<usize> {
    match dtype {
        4 | 6 | 10 | 11 | 12 => Some(1), // uint8, int8, bool, qint8, quint8
        5 | 14 | 15 | 16 | 17 | 19 => Some(2),
        1 | 3 | 13 | 22 => Some(4),
        2 | 9 | 8 | 23 => Some(8),
        18 => Some(16),
        _ => None,
    }
}

/// The data file of shard 0 of 1.
pub fn data_path(prefix: &Path) -> PathBuf {
    suffixed(prefix, ".data-00000-of-00001")
}

/// The index file.
pub fn index_path(prefix: &Path) -> PathBuf {
    suffixed(prefix, ".index")
}

/// The name an existing bundle file keeps while a save replaces it.
fn prev_path(path: &Path) -> PathBuf {
    suffixed(path, ".prev")
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Keeps a second name for `path` at `prev` (a hard link; a synced copy where the
/// file system has none).
fn keep_previous(path: &Path, prev: &Path) -> Result<()> {
    let _ = std::fs::remove_file(prev);
    if std::fs::hard_link(path, prev).is_ok() {
        return Ok(());
    }
    let copied = std::fs::copy(path, prev).and_then(|_| File::open(prev)?.sync_all());
    copied.map_err(Error::io(prev.display().to_string()))
}

/// Whether the save of `prefix` that last replaced a bundle was cut short before its
/// index took the old one's place: the old index is still there (it equals its kept
/// copy), so the old data must be read from its kept copy.
fn save_was_interrupted(prefix: &Path) -> bool {
    let (index, index_prev) = (index_path(prefix), prev_path(&index_path(prefix)));
    if !exists(&prev_path(&data_path(prefix))) {
        return false;
    }
    match (std::fs::read(&index), std::fs::read(&index_prev)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Finishes what a killed save of `prefix` left: puts the old data back if the new
/// index never took over, and removes the kept copies and temporary files. Called
/// before every save; readers instead read around an unfinished save without changing
/// anything ([`BundleReader::open`]).
pub fn recover(prefix: &Path) -> Result<()> {
    let (data, index) = (data_path(prefix), index_path(prefix));
    let (data_prev, index_prev) = (prev_path(&data), prev_path(&index));
    if save_was_interrupted(prefix) {
        std::fs::rename(&data_prev, &data).map_err(Error::io(data.display().to_string()))?;
    }
    // The data copy goes first: an index copy alone means nothing.
    for p in [&data_prev, &index_prev] {
        if exists(p) {
            std::fs::remove_file(p).map_err(Error::io(p.display().to_string()))?;
        }
    }
    remove_temporaries(prefix);
    sync_parent(prefix)
}

/// Removes the temporary bundle files (`<prefix>.data-…` or `<prefix>.index` +
/// `.tempstate<pid>-<n>`) that killed writers left in `prefix`'s directory, of any
/// prefix (never a live writer's): a save killed at step N leaves files no later save
/// of another step's prefix would otherwise ever look at.
fn remove_temporaries(prefix: &Path) {
    let Some(dir) = prefix.parent() else { return };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let Ok(listing) = std::fs::read_dir(dir) else { return };
    for entry in listing.flatten() {
        let name = entry.file_name();
        let name = name.as_encoded_bytes();
        let Some(at) = name.windows(10).position(|w| w == b".tempstate") else { continue };
        let file = &name[..at];
        let bundle_file = file.windows(6).any(|w| w == b".data-") || file.ends_with(b".index");
        if bundle_file && crate::durable::is_stale_temporary(&name[at + 10..]) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn shape_proto(dims: &[i64]) -> pb::TensorShapeProto {
    pb::TensorShapeProto {
        dim: dims.iter().map(|&size| pb::tensor_shape_proto::Dim { size, name: String::new() }).collect(),
        unknown_rank: false,
    }
}

/// The bytes a string tensor takes in the data file, and the running CRC TF stores
/// for them (lengths as LE u32 or u64, the masked length checksum, the bytes).
fn encode_strings(values: &[Vec<u8>]) -> (Vec<u8>, u32) {
    let mut out = Vec::new();
    let mut lengths_crc = 0u32;
    for v in values {
        let mut n = v.len() as u64;
        while n >= 0x80 {
            #[allow(clippy::cast_possible_truncation)]
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        #[allow(clippy::cast_possible_truncation)]
        out.push(n as u8);
        lengths_crc = append_length(lengths_crc, v.len());
    }
    let masked = mask(lengths_crc).to_le_bytes();
    out.extend_from_slice(&masked);
    let mut crc = crc32c::crc32c_append(lengths_crc, &masked);
    for v in values {
        out.extend_from_slice(v);
        crc = crc32c::crc32c_append(crc, v);
    }
    (out, crc)
}

fn append_length(crc: u32, len: usize) -> u32 {
    match u32::try_from(len) {
        Ok(l) => crc32c::crc32c_append(crc, &l.to_le_bytes()),
        Err(_) => crc32c::crc32c_append(crc, &(len as u64).to_le_bytes()),
    }
}

/// Writes one single-shard bundle. Tensors may be added in any order (the data file
/// keeps that order; the index is sorted). Tensor bytes stream into a temporary data
/// file; a writer dropped before `finish` removes it.
pub struct BundleWriter {
    prefix: PathBuf,
    data_tmp: PathBuf,
    data: Option<BufWriter<File>>,
    offset: u64,
    /// Bytes before this offset have been handed to the disk (`start_writeback`).
    written_back: u64,
    /// By key bytes: tensor names, and the OrderedCode keys of slices ([`slice_key`]).
    entries: BTreeMap<Vec<u8>, pb::BundleEntryProto>,
}

/// Start writing data to disk every this many bytes, so a large save overlaps its
/// disk writes with producing the rest instead of waiting for all of it in `fsync`.
const WRITEBACK_EVERY: u64 = 16 << 20;

/// Bytes of a tensor checksummed and then written at a time: small enough to stay in
/// a core's cache between the two.
const WRITE_PIECE: usize = 256 << 10;

impl Drop for BundleWriter {
    fn drop(&mut self) {
        if self.data.take().is_some() {
            let _ = std::fs::remove_file(&self.data_tmp);
        }
    }
}

impl BundleWriter {
    /// A writer for the bundle `prefix` (its directory is created if missing).
    pub fn new(prefix: impl Into<PathBuf>) -> Result<Self> {
        let prefix = prefix.into();
        if let Some(dir) = prefix.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| match e.kind() {
                    // `create_dir_all` reports a file in the way as "exists"; TF's
                    // writer fails on it as "Not a directory" (FailedPrecondition).
                    std::io::ErrorKind::AlreadyExists => std::io::Error::from(std::io::ErrorKind::NotADirectory),
                    _ => e,
                })
                .map_err(Error::io(dir.display().to_string()))?;
        }
        recover(&prefix)?;
        let data_tmp = temp_path(&data_path(&prefix));
        let file = File::create(&data_tmp).map_err(Error::io(data_tmp.display().to_string()))?;
        Ok(BundleWriter {
            prefix,
            data_tmp,
            data: Some(BufWriter::new(file)),
            offset: 0,
            written_back: 0,
            entries: BTreeMap::new(),
        })
    }

    /// Adds the tensor `name` of TF dtype `dtype` and shape `dims`.
    pub fn add(&mut self, name: &str, dtype: i32, dims: &[i64], values: TensorBytes<'_>) -> Result<()> {
        if name.is_empty() {
            return Err(Error::InvalidArgument("the empty tensor name is reserved for the bundle header".into()));
        }
        self.add_keyed(name.as_bytes().to_vec(), name, dtype, dims, values)
    }

    /// Adds one slice of the partitioned tensor `name` (TF's `BundleWriter::AddSlice`):
    /// `extents` is (start, length) per dimension of `full_dims` (a length of -1 is the
    /// whole dimension) and `dims` the slice's shape, which `values` hold. The full
    /// tensor's entry (dtype, full shape, the list of slices) is made or extended, and
    /// the values are stored under the slice's key. A slice that is the whole tensor
    /// is stored as an ordinary tensor, as TF does.
    pub fn add_slice(
        &mut self,
        name: &str,
        dtype: i32,
        full_dims: &[i64],
        extents: &[(i64, i64)],
        values: TensorBytes<'_>,
    ) -> Result<()> {
        if name.is_empty() {
            return Err(Error::InvalidArgument("the empty tensor name is reserved for the bundle header".into()));
        }
        if extents.len() != full_dims.len() {
            return Err(Error::InvalidArgument(format!(
                "{name}: a slice of rank {} for a tensor of rank {}",
                extents.len(),
                full_dims.len()
            )));
        }
        let mut dims = Vec::with_capacity(extents.len());
        for (&(start, length), &d) in extents.iter().zip(full_dims) {
            let len = if length < 0 { d - start } else { length };
            if start < 0 || len < 0 || start.checked_add(len).is_none_or(|end| end > d) {
                return Err(Error::InvalidArgument(format!(
                    "{name}: the slice ({start}, {length}) lies outside a dimension of {d}"
                )));
            }
            dims.push(len);
        }
        if dims == full_dims {
            return self.add(name, dtype, full_dims, values);
        }
        let key = name.as_bytes();
        if let Some(full) = self.entries.get(key) {
            let same_shape =
                full.shape.as_ref().is_some_and(|s| s.dim.iter().map(|d| d.size).eq(full_dims.iter().copied()));
            if full.slices.is_empty() || full.dtype != dtype || !same_shape {
                return Err(Error::InvalidArgument(format!(
                    "{name}: a slice that does not match the tensor already added under that name"
                )));
            }
        }
        let slice_name = slice_key(name, extents);
        self.add_keyed(slice_name, name, dtype, &dims, values)?;
        let full = self.entries.entry(key.to_vec()).or_insert_with(|| pb::BundleEntryProto {
            dtype,
            shape: Some(shape_proto(full_dims)),
            ..Default::default()
        });
        full.slices.push(pb::TensorSliceProto {
            extent: extents
                .iter()
                .map(|&(start, length)| {
                    if length < 0 {
                        // TF records a whole dimension as an empty extent.
                        pb::tensor_slice_proto::Extent::default()
                    } else {
                        pb::tensor_slice_proto::Extent {
                            start,
                            has_length: Some(pb::tensor_slice_proto::extent::HasLength::Length(length)),
                        }
                    }
                })
                .collect(),
        });
        Ok(())
    }

    /// Adds an entry under `key` (a name, or a slice's key), writing its bytes.
    fn add_keyed(&mut self, key: Vec<u8>, name: &str, dtype: i32, dims: &[i64], values: TensorBytes<'_>) -> Result<()> {
        if self.entries.contains_key(&key) {
            return Err(Error::InvalidArgument(format!("Adding duplicate key: {name}")));
        }
        let elements: i64 = dims.iter().product();
        // A dense tensor's checksum is computed piece by piece as it is written (each
        // piece read from memory once, then copied from the cache); strings are encoded
        // with theirs.
        let (bytes, encoded_crc) = match values {
            TensorBytes::Dense(b) => {
                let want = dtype_size(dtype).map(|s| s as i64 * elements);
                if want != Some(b.len() as i64) {
                    return Err(Error::InvalidArgument(format!(
                        "{name}: {} bytes for dtype {dtype} and {elements} elements",
                        b.len()
                    )));
                }
                (std::borrow::Cow::Borrowed(b), None)
            }
            TensorBytes::Strings(s) => {
                if dtype != DT_STRING || s.len() as i64 != elements {
                    return Err(Error::InvalidArgument(format!(
                        "{name}: {} strings for dtype {dtype} and {elements} elements",
                        s.len()
                    )));
                }
                let (b, crc) = encode_strings(s);
                (std::borrow::Cow::Owned(b), Some(crc))
            }
        };
        let start = self.offset;
        let data = self.data.as_mut().ok_or_else(|| Error::FailedPrecondition("bundle writer finished".into()))?;
        let tmp = &self.data_tmp;
        let io = |e: std::io::Error| Error::Io(tmp.display().to_string(), e);
        let mut crc = 0;
        for piece in bytes.chunks(WRITE_PIECE) {
            if encoded_crc.is_none() {
                crc = crc32c::crc32c_append(crc, piece);
            }
            data.write_all(piece).map_err(io)?;
            self.offset += piece.len() as u64;
            if self.offset - self.written_back >= WRITEBACK_EVERY {
                data.flush().map_err(io)?;
                start_writeback(data.get_ref(), self.written_back, self.offset - self.written_back);
                self.written_back = self.offset;
            }
        }
        let entry = pb::BundleEntryProto {
            dtype,
            shape: Some(shape_proto(dims)),
            shard_id: 0,
            offset: start as i64,
            size: bytes.len() as i64,
            crc32c: mask(encoded_crc.unwrap_or(crc)),
            slices: Vec::new(),
        };
        self.entries.insert(key, entry);
        Ok(())
    }

    /// Makes the bundle durable and visible. Crash-safe at every instant:
    ///
    /// 1. the data and the index are written under temporary names and synced;
    /// 2. if a bundle of this prefix exists, its index and data files get second names
    ///    (`<file>.prev`, hard links), synced;
    /// 3. the new data file is renamed into place, then the new index (the commit
    ///    point), and the directory is synced;
    /// 4. the `.prev` names are removed.
    ///
    /// Killed between the two renames of step 3, the old index sits beside the new
    /// data; its `.prev` copy is identical to it, which tells readers to read the old
    /// data from `<data>.prev` and the next save to put it back ([`recover`]).
    pub fn finish(mut self) -> Result<()> {
        let header = pb::BundleHeaderProto {
            num_shards: 1,
            endianness: pb::bundle_header_proto::Endianness::Little as i32,
            version: Some(pb::VersionDef { producer: VERSION, min_consumer: 0, bad_consumers: Vec::new() }),
        };
        let mut table = TableBuilder::new();
        table.add(b"", &header.encode_to_vec())?;
        for (key, entry) in &self.entries {
            table.add(key, &entry.encode_to_vec())?;
        }
        let data = self.data.take().ok_or_else(|| Error::FailedPrecondition("bundle writer finished".into()))?;
        let tmp = self.data_tmp.display().to_string();
        let file = data.into_inner().map_err(|e| Error::Io(tmp.clone(), e.into_error()));
        if let Err(e) = file.and_then(|f| f.sync_all().map_err(|e| Error::Io(tmp.clone(), e))) {
            let _ = std::fs::remove_file(&self.data_tmp);
            return Err(e);
        }
        let (data, index) = (data_path(&self.prefix), index_path(&self.prefix));
        let index_tmp = temp_path(&index);
        if let Err(e) = write_synced(&index_tmp, &table.finish()) {
            let _ = std::fs::remove_file(&self.data_tmp);
            return Err(e);
        }
        let committed = self.commit(&data, &index, &index_tmp);
        if committed.is_err() {
            let _ = std::fs::remove_file(&self.data_tmp);
            let _ = std::fs::remove_file(&index_tmp);
        }
        committed
    }

    /// Steps 2 to 4 of [`finish`](Self::finish).
    fn commit(&self, data: &Path, index: &Path, index_tmp: &Path) -> Result<()> {
        let replacing = exists(index) && exists(data);
        if replacing {
            // The index copy first: a data copy without one would look like an
            // unfinished save.
            keep_previous(index, &prev_path(index))?;
            keep_previous(data, &prev_path(data))?;
            sync_parent(data)?;
        }
        std::fs::rename(&self.data_tmp, data).map_err(Error::io(data.display().to_string()))?;
        std::fs::rename(index_tmp, index).map_err(Error::io(index.display().to_string()))?;
        sync_parent(index)?;
        if replacing {
            for p in [prev_path(data), prev_path(index)] {
                std::fs::remove_file(&p).map_err(Error::io(p.display().to_string()))?;
            }
            sync_parent(index)?;
        }
        Ok(())
    }
}

/// Reads a bundle written by TF or by [`BundleWriter`].
pub struct BundleReader {
    prefix: PathBuf,
    num_shards: i32,
    entries: BTreeMap<String, pb::BundleEntryProto>,
    /// The slices of partitioned tensors, under their OrderedCode keys ([`slice_key`]).
    slice_entries: BTreeMap<Vec<u8>, pb::BundleEntryProto>,
    /// The data is in `<data>.prev`: a save replacing this bundle was killed before
    /// its index took over.
    read_previous: bool,
}

impl BundleReader {
    /// Opens the bundle `prefix`, reading and checking its index.
    pub fn open(prefix: impl Into<PathBuf>) -> Result<Self> {
        let prefix = prefix.into();
        let path = index_path(&prefix);
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).map_err(Error::io(name.clone()))?;
        let mut rows = read_table(&bytes, &name)?.into_iter();
        let (key, value) = rows.next().ok_or_else(|| Error::DataLoss(format!("{name}: no bundle header")))?;
        if !key.is_empty() {
            return Err(Error::DataLoss(format!("{name}: the first entry is not the bundle header")));
        }
        let header = pb::BundleHeaderProto::decode(value.as_slice())
            .map_err(|e| Error::DataLoss(format!("{name}: bad bundle header: {e}")))?;
        let version = header.version.unwrap_or_default();
        if version.producer < 0 || version.min_consumer > VERSION || version.bad_consumers.contains(&VERSION) {
            return Err(Error::InvalidArgument(format!(
                "{name}: checkpoint version {version:?} cannot be read by version {VERSION}"
            )));
        }
        if header.endianness != pb::bundle_header_proto::Endianness::Little as i32 {
            return Err(Error::InvalidArgument(format!("{name}: big-endian checkpoints are not supported")));
        }
        let mut entries = BTreeMap::new();
        let mut slice_entries = BTreeMap::new();
        for (key, value) in rows {
            let entry = pb::BundleEntryProto::decode(value.as_slice()).map_err(|e| {
                Error::DataLoss(format!("{name}: bad entry for {}: {e}", String::from_utf8_lossy(&key)))
            })?;
            // Slice keys start with OrderedCode's 0 (no tensor name starts with NUL).
            if key.first() == Some(&0) {
                slice_entries.insert(key, entry);
                continue;
            }
            let key = String::from_utf8(key).map_err(|_| Error::DataLoss(format!("{name}: a key is not UTF-8")))?;
            entries.insert(key, entry);
        }
        let read_previous = save_was_interrupted(&prefix);
        Ok(BundleReader { prefix, num_shards: header.num_shards.max(1), entries, slice_entries, read_previous })
    }

    /// The tensor names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The entry of `name` (dtype, shape, where its bytes are).
    pub fn entry(&self, name: &str) -> Option<&pb::BundleEntryProto> {
        self.entries.get(name)
    }

    /// The values of tensor `name`, checked against the entry's size and checksum.
    pub fn read(&self, name: &str) -> Result<TensorData> {
        let located = self.locate(name)?;
        if located.entry.dtype == DT_STRING {
            let bytes = located.read_vec()?;
            let elements = usize::try_from(located.elements).map_err(|_| located.bad("an invalid shape"))?;
            let (values, crc) = decode_strings(&bytes, elements)
                .ok_or_else(|| Error::DataLoss(format!("{}: bad string data for {name}", located.file_name)))?;
            check_crc(name, located.entry.crc32c, crc)?;
            return Ok(TensorData::Strings(values));
        }
        Ok(TensorData::Dense(located.read_vec()?))
    }

    /// Reads the dense tensor `name` straight into `out`, which must be exactly its
    /// size (the caller allocates the tensor; no intermediate copy), checking its
    /// checksum.
    pub fn read_dense_into(&self, name: &str, out: &mut [u8]) -> Result<()> {
        let located = self.locate(name)?;
        if located.entry.dtype == DT_STRING || out.len() as u64 != located.size {
            return Err(Error::InvalidArgument(format!(
                "{name}: a buffer of {} bytes cannot hold its {} bytes of dtype {}",
                out.len(),
                located.size,
                located.entry.dtype
            )));
        }
        located.read_exact(out)?;
        check_crc(name, located.entry.crc32c, crc32c::crc32c(out))
    }

    /// Whether `name` is a partitioned tensor, stored as slices.
    pub fn is_sliced(&self, name: &str) -> bool {
        self.entries.get(name).is_some_and(|e| !e.slices.is_empty())
    }

    /// Assembles the partitioned dense tensor `name` (of `dims` and `element_size`)
    /// into `out` from its slices, each read and checked as an ordinary entry.
    /// Slices that overlap or leave a gap are `DataLoss`.
    pub fn read_sliced_dense_into(
        &self,
        name: &str,
        dims: &[usize],
        element_size: usize,
        out: &mut [u8],
    ) -> Result<()> {
        let entry =
            self.entries.get(name).ok_or_else(|| Error::NotFound(format!("Key {name} not found in checkpoint")))?;
        let bad =
            |what: String| Error::DataLoss(format!("{}: {what} (partitioned tensor {name})", self.prefix.display()));
        let mut covered = 0u64;
        for slice in &entry.slices {
            if slice.extent.len() != dims.len() {
                return Err(bad(format!("a slice of rank {} for a tensor of rank {}", slice.extent.len(), dims.len())));
            }
            // (start, length) per dimension; the key records a whole dimension as (0, -1).
            let mut extents = Vec::with_capacity(dims.len());
            let mut region = Vec::with_capacity(dims.len());
            for (e, &d) in slice.extent.iter().zip(dims) {
                let length = match e.has_length {
                    Some(pb::tensor_slice_proto::extent::HasLength::Length(l)) => l,
                    None => -1,
                };
                extents.push((e.start, length));
                let start = usize::try_from(e.start).map_err(|_| bad(format!("a slice start of {}", e.start)))?;
                let len = if length < 0 { d.checked_sub(start) } else { usize::try_from(length).ok() }
                    .filter(|&l| start.checked_add(l).is_some_and(|end| end <= d))
                    .ok_or_else(|| bad(format!("a slice ({}, {length}) outside a dimension of {d}", e.start)))?;
                region.push((start, len));
            }
            let key = slice_key(name, &extents);
            let part =
                self.slice_entries.get(&key).ok_or_else(|| bad("a slice listed in the index is missing".into()))?;
            let located = self.locate_entry(name, part)?;
            let lengths: Vec<u64> = region.iter().map(|&(_, l)| l as u64).collect();
            let count = lengths
                .iter()
                .try_fold(1u64, |a, &l| a.checked_mul(l))
                .ok_or_else(|| bad("a slice too large".into()))?;
            if located.elements != count || located.size != count.saturating_mul(element_size as u64) {
                return Err(bad("a slice whose entry does not match its extent".into()));
            }
            let bytes = located.read_vec()?;
            scatter_slice(&bytes, dims, &region, element_size, out);
            covered += count;
        }
        let total = dims.iter().map(|&d| d as u64).product::<u64>();
        if covered != total {
            return Err(bad(format!("slices cover {covered} of {total} elements")));
        }
        Ok(())
    }

    /// Reads the region `region` ((start, length) per dimension) of the dense tensor
    /// `name` of `dims` into `out` (exactly the region's size; TF's `LookupSlice`),
    /// whether the tensor is stored whole or as slices: every stored slice that meets
    /// the region gives its part. A region the stored slices do not cover is
    /// `NotFound`.
    pub fn read_slice_dense_into(
        &self,
        name: &str,
        dims: &[usize],
        region: &[(usize, usize)],
        element_size: usize,
        out: &mut [u8],
    ) -> Result<()> {
        let entry =
            self.entries.get(name).ok_or_else(|| Error::NotFound(format!("Key {name} not found in checkpoint")))?;
        let lengths: Vec<usize> = region.iter().map(|&(_, l)| l).collect();
        let wanted = lengths.iter().product::<usize>();
        if region.len() != dims.len()
            || region.iter().zip(dims).any(|(&(s, l), &d)| s.checked_add(l).is_none_or(|end| end > d))
            || out.len() != wanted.saturating_mul(element_size)
        {
            return Err(Error::InvalidArgument(format!(
                "{name}: the slice {region:?} does not fit the tensor's shape {dims:?} or its buffer"
            )));
        }
        if entry.slices.is_empty() {
            let located = self.locate(name)?;
            if located.entry.dtype == DT_STRING {
                return Err(Error::InvalidArgument(format!("{name}: reading a slice of strings is not supported")));
            }
            let bytes = located.read_vec()?;
            let whole: Vec<(usize, usize)> = dims.iter().map(|&d| (0, d)).collect();
            copy_box(&bytes, &whole, out, region, element_size);
            return Ok(());
        }
        let bad =
            |what: String| Error::DataLoss(format!("{}: {what} (partitioned tensor {name})", self.prefix.display()));
        let mut covered = 0usize;
        for slice in &entry.slices {
            if slice.extent.len() != dims.len() {
                return Err(bad(format!("a slice of rank {} for a tensor of rank {}", slice.extent.len(), dims.len())));
            }
            let mut extents = Vec::with_capacity(dims.len());
            let mut stored = Vec::with_capacity(dims.len());
            for (e, &d) in slice.extent.iter().zip(dims) {
                let length = match e.has_length {
                    Some(pb::tensor_slice_proto::extent::HasLength::Length(l)) => l,
                    None => -1,
                };
                extents.push((e.start, length));
                let start = usize::try_from(e.start).map_err(|_| bad(format!("a slice start of {}", e.start)))?;
                let len = if length < 0 { d.checked_sub(start) } else { usize::try_from(length).ok() }
                    .filter(|&l| start.checked_add(l).is_some_and(|end| end <= d))
                    .ok_or_else(|| bad(format!("a slice ({}, {length}) outside a dimension of {d}", e.start)))?;
                stored.push((start, len));
            }
            // The part of the region this slice holds.
            let meet: Vec<(usize, usize)> = stored
                .iter()
                .zip(region)
                .map(|(&(s0, l0), &(s1, l1))| {
                    let (lo, hi) = (s0.max(s1), (s0 + l0).min(s1 + l1));
                    (lo, hi.saturating_sub(lo))
                })
                .collect();
            let count = meet.iter().map(|&(_, l)| l).product::<usize>();
            if count == 0 && !meet.is_empty() {
                continue;
            }
            let key = slice_key(name, &extents);
            let part =
                self.slice_entries.get(&key).ok_or_else(|| bad("a slice listed in the index is missing".into()))?;
            let located = self.locate_entry(name, part)?;
            let elements = stored.iter().map(|&(_, l)| l as u64).product::<u64>();
            if located.elements != elements || located.size != elements.saturating_mul(element_size as u64) {
                return Err(bad("a slice whose entry does not match its extent".into()));
            }
            let bytes = located.read_vec()?;
            // From the slice's buffer (its own coordinates) to the region's.
            let src: Vec<(usize, usize)> = meet.iter().zip(&stored).map(|(&(s, l), &(o, _))| (s - o, l)).collect();
            let dst: Vec<(usize, usize)> = meet.iter().zip(region).map(|(&(s, l), &(o, _))| (s - o, l)).collect();
            copy_box_between(
                &bytes,
                &stored.iter().map(|&(_, l)| l).collect::<Vec<_>>(),
                &src,
                out,
                &lengths,
                &dst,
                element_size,
            );
            covered += count;
        }
        if covered != wanted {
            return Err(Error::NotFound(format!(
                "{}: the slices stored for {name} cover {covered} of the {wanted} elements asked for",
                self.prefix.display()
            )));
        }
        Ok(())
    }

    /// Finds `name`'s bytes and checks everything its entry claims against the data
    /// file before anything is allocated from it.
    fn locate<'a>(&'a self, name: &'a str) -> Result<Located<'a>> {
        let entry =
            self.entries.get(name).ok_or_else(|| Error::NotFound(format!("Key {name} not found in checkpoint")))?;
        if !entry.slices.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "{name} is a partitioned tensor: read it with read_sliced_dense_into"
            )));
        }
        self.locate_entry(name, entry)
    }

    fn locate_entry<'a>(&'a self, name: &'a str, entry: &'a pb::BundleEntryProto) -> Result<Located<'a>> {
        let mut path = suffixed(&self.prefix, &format!(".data-{:05}-of-{:05}", entry.shard_id, self.num_shards));
        if self.read_previous {
            path = prev_path(&path);
        }
        let mut located =
            Located { name, entry, file_name: path.display().to_string(), path, size: 0, offset: 0, elements: 0 };
        located.size = u64::try_from(entry.size).map_err(|_| located.bad("a negative size"))?;
        located.offset = u64::try_from(entry.offset).map_err(|_| located.bad("a negative offset"))?;
        located.elements = entry_elements(entry).ok_or_else(|| located.bad("an invalid shape"))?;
        if entry.dtype == DT_STRING {
            // Every string takes at least its one-byte length.
            if located.elements > located.size {
                return Err(located.bad("more strings than bytes"));
            }
        } else {
            let want = dtype_size(entry.dtype).and_then(|s| located.elements.checked_mul(s as u64));
            if want != Some(located.size) {
                return Err(Error::DataLoss(format!("Invalid size in bundle entry: key {name}")));
            }
        }
        Ok(located)
    }
}

/// A tensor's bytes in a data file, with its entry validated.
struct Located<'a> {
    name: &'a str,
    entry: &'a pb::BundleEntryProto,
    path: PathBuf,
    file_name: String,
    size: u64,
    offset: u64,
    elements: u64,
}

impl Located<'_> {
    fn bad(&self, what: &str) -> Error {
        Error::DataLoss(format!("{}: {what} in the bundle entry of {}", self.file_name, self.name))
    }

    /// Opens the data file, checking that the bytes lie within it (a truncated file
    /// is `DataLoss`).
    fn open(&self) -> Result<File> {
        let file = File::open(&self.path).map_err(Error::io(self.file_name.clone()))?;
        let file_len = file.metadata().map_err(Error::io(self.file_name.clone()))?.len();
        if self.offset.checked_add(self.size).is_none_or(|end| end > file_len) {
            return Err(Error::DataLoss(format!(
                "{}: the data of {} ({} bytes at offset {}) lies past the end of the file ({file_len} bytes): \
                 the file is truncated",
                self.file_name, self.name, self.size, self.offset
            )));
        }
        Ok(file)
    }

    /// Reads the bytes into `out` (exactly `size` long).
    fn read_exact(&self, out: &mut [u8]) -> Result<()> {
        self.read_from(self.open()?, out)
    }

    /// Reads the bytes from the opened (and bounds-checked) data file into `out`.
    fn read_from(&self, mut file: File, out: &mut [u8]) -> Result<()> {
        file.seek(SeekFrom::Start(self.offset))
            .and_then(|_| file.read_exact(out))
            .map_err(Error::io(self.file_name.clone()))
    }

    /// Reads the bytes into a new vector (the bounds are checked first, so a damaged
    /// entry never allocates more than the file holds).
    fn read_vec(&self) -> Result<Vec<u8>> {
        let file = self.open()?;
        let size = usize::try_from(self.size).map_err(|_| self.bad("a size beyond this machine's address space"))?;
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(size).map_err(|_| {
            Error::ResourceExhausted(format!("OOM when allocating {size} bytes to restore {}", self.name))
        })?;
        bytes.resize(size, 0);
        self.read_from(file, &mut bytes)?;
        if self.entry.dtype != DT_STRING {
            check_crc(self.name, self.entry.crc32c, crc32c::crc32c(&bytes))?;
        }
        Ok(bytes)
    }
}

/// Copies a slice's row-major bytes into the full tensor `out` of `dims`, at `region`
/// ((start, length) per dimension). The caller checked that the region lies inside.
fn scatter_slice(src: &[u8], dims: &[usize], region: &[(usize, usize)], element_size: usize, out: &mut [u8]) {
    let rank = dims.len();
    if rank == 0 {
        out[..element_size].copy_from_slice(&src[..element_size]);
        return;
    }
    if region.iter().any(|&(_, l)| l == 0) {
        return;
    }
    // Strides of the full tensor, in elements.
    let mut strides = vec![1usize; rank];
    for i in (0..rank - 1).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    let row = region[rank - 1].1 * element_size;
    let mut index = vec![0usize; rank - 1];
    let mut from = 0;
    loop {
        let offset: usize =
            (0..rank).map(|i| (region[i].0 + if i < rank - 1 { index[i] } else { 0 }) * strides[i]).sum();
        out[offset * element_size..offset * element_size + row].copy_from_slice(&src[from..from + row]);
        from += row;
        // Next row of the region, last outer dimension fastest.
        let mut d = rank - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < region[d].1 {
                break;
            }
            index[d] = 0;
        }
    }
}

/// Copies `region` of the whole tensor `src` (of the dims `whole` gives as (0, d))
/// into `out`, which holds exactly the region.
fn copy_box(src: &[u8], whole: &[(usize, usize)], out: &mut [u8], region: &[(usize, usize)], element_size: usize) {
    let src_dims: Vec<usize> = whole.iter().map(|&(_, d)| d).collect();
    let out_dims: Vec<usize> = region.iter().map(|&(_, l)| l).collect();
    let dst: Vec<(usize, usize)> = out_dims.iter().map(|&l| (0, l)).collect();
    copy_box_between(src, &src_dims, region, out, &out_dims, &dst, element_size);
}

/// Copies the box `from` ((start, length) per dimension) of the row-major `src` of
/// `src_dims` to the box `to` (same lengths) of the row-major `out` of `out_dims`.
/// The caller checked that both boxes lie inside their tensors.
fn copy_box_between(
    src: &[u8],
    src_dims: &[usize],
    from: &[(usize, usize)],
    out: &mut [u8],
    out_dims: &[usize],
    to: &[(usize, usize)],
    element_size: usize,
) {
    let rank = src_dims.len();
    if rank == 0 {
        out[..element_size].copy_from_slice(&src[..element_size]);
        return;
    }
    if from.iter().any(|&(_, l)| l == 0) {
        return;
    }
    let strides = |dims: &[usize]| {
        let mut st = vec![1usize; rank];
        for i in (0..rank - 1).rev() {
            st[i] = st[i + 1] * dims[i + 1];
        }
        st
    };
    let (src_st, out_st) = (strides(src_dims), strides(out_dims));
    let row = from[rank - 1].1 * element_size;
    let mut index = vec![0usize; rank];
    loop {
        let at = |b: &[(usize, usize)], st: &[usize]| -> usize {
            (0..rank).map(|i| (b[i].0 + index[i]) * st[i]).sum::<usize>() * element_size
        };
        let (s, d) = (at(from, &src_st), at(to, &out_st));
        out[d..d + row].copy_from_slice(&src[s..s + row]);
        // Next row: the outer dimensions count up, the last fastest.
        let mut dim = rank - 1;
        loop {
            if dim == 0 {
                return;
            }
            dim -= 1;
            index[dim] += 1;
            if index[dim] < from[dim].1 {
                break;
            }
            index[dim] = 0;
        }
    }
}

/// TF's `EncodeTensorNameSlice`: the OrderedCode key under which a bundle stores one
/// slice of a partitioned tensor (`0`, the name, the rank, then start and length per
/// dimension; a whole dimension is (0, -1)).
pub fn slice_key(name: &str, extents: &[(i64, i64)]) -> Vec<u8> {
    let mut key = Vec::new();
    write_num_increasing(&mut key, 0);
    for &b in name.as_bytes() {
        match b {
            0 => key.extend_from_slice(&[0, 0xff]),
            0xff => key.extend_from_slice(&[0xff, 0]),
            _ => key.push(b),
        }
    }
    key.extend_from_slice(&[0, 1]);
    write_num_increasing(&mut key, extents.len() as u64);
    for &(start, length) in extents {
        write_signed_num_increasing(&mut key, start);
        write_signed_num_increasing(&mut key, length);
    }
    key
}

/// OrderedCode's `WriteNumIncreasing`: a length byte, then the big-endian bytes
/// without leading zeros.
fn write_num_increasing(out: &mut Vec<u8>, v: u64) {
    let bytes = v.to_be_bytes();
    let skip = bytes.iter().take_while(|&&b| b == 0).count();
    out.push((8 - skip) as u8);
    out.extend_from_slice(&bytes[skip..]);
}

/// OrderedCode's `WriteSignedNumIncreasing`: a self-delimiting, order-preserving
/// encoding of an i64 in 1 to 10 bytes (`ordered_code.cc`).
fn write_signed_num_increasing(out: &mut Vec<u8>, v: i64) {
    const HEADER: [[u8; 2]; 11] = [
        [0, 0],
        [0x80, 0],
        [0xc0, 0],
        [0xe0, 0],
        [0xf0, 0],
        [0xf8, 0],
        [0xfc, 0],
        [0xfe, 0],
        [0xff, 0],
        [0xff, 0x80],
        [0xff, 0xc0],
    ];
    let x = if v < 0 { !v } else { v } as u64;
    if x < 64 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        out.push(0x80 ^ (v as u8));
        return;
    }
    // Bits needed, plus the sign bit; 7 payload bits per byte of header.
    let bits = 64 - x.leading_zeros() as usize + 1;
    let len = bits.div_ceil(7).min(10);
    let sign = if v < 0 { 0xff } else { 0 };
    let mut buf = [sign; 10];
    buf[2..].copy_from_slice(&v.to_be_bytes());
    let begin = 10 - len;
    buf[begin] ^= HEADER[len][0];
    buf[begin + 1] ^= HEADER[len][1];
    out.extend_from_slice(&buf[begin..]);
}

/// The element count of an entry's shape: `None` for a negative dimension or a count
/// that overflows TF's `int64`.
fn entry_elements(entry: &pb::BundleEntryProto) -> Option<u64> {
    let mut n: u64 = 1;
    let mut zero = false;
    for d in entry.shape.as_ref().map_or(&[][..], |s| &s.dim[..]) {
        let d = u64::try_from(d.size).ok()?;
        if d == 0 {
            zero = true;
        } else {
            n = n.checked_mul(d).filter(|&p| p <= i64::MAX as u64)?;
        }
    }
    Some(if zero { 0 } else { n })
}

fn check_crc(name: &str, stored: u32, computed: u32) -> Result<()> {
    if mask(computed) != stored {
        return Err(Error::DataLoss(format!(
            "Checksum does not match: stored {stored} vs. calculated on the restored bytes {} (key {name})",
            mask(computed)
        )));
    }
    Ok(())
}

/// The strings of a string tensor's data bytes and the running CRC over them.
fn decode_strings(bytes: &[u8], elements: usize) -> Option<(Vec<Vec<u8>>, u32)> {
    let mut pos = 0;
    let mut lengths = Vec::with_capacity(elements);
    let mut crc = 0u32;
    for _ in 0..elements {
        let len = usize::try_from(get_varint(bytes, &mut pos)?).ok()?;
        crc = append_length(crc, len);
        lengths.push(len);
    }
    let masked = bytes.get(pos..pos + 4)?;
    if u32::from_le_bytes(masked.try_into().ok()?) != mask(crc) {
        return None;
    }
    crc = crc32c::crc32c_append(crc, masked);
    pos += 4;
    let mut values = Vec::with_capacity(elements);
    for len in lengths {
        let v = bytes.get(pos..pos.checked_add(len)?)?;
        crc = crc32c::crc32c_append(crc, v);
        values.push(v.to_vec());
        pos += len;
    }
    (pos == bytes.len()).then_some((values, crc))
}

/// TF's `MergeBundles` (`MergeV2Checkpoints`): the bundles `sources` (one per device of
/// a sharded save) become the one bundle `dest`. Data files are renamed, never
/// copied (source `i`'s shards follow those of the sources before it); the merged
/// index names each entry's new shard and is written durably before the source indexes
/// are removed. With `delete_old_dirs`, each source's directory is then removed if
/// it is empty (TF's `_temp_<uuid>` directories). Two sources holding one tensor is
/// TF's `InvalidArgument`.
pub fn merge(sources: &[PathBuf], dest: &Path, delete_old_dirs: bool) -> Result<()> {
    let mut merged: BTreeMap<Vec<u8>, pb::BundleEntryProto> = BTreeMap::new();
    let mut renames = Vec::new();
    let mut total: i32 = 0;
    let mut headers = Vec::new();
    for src in sources {
        let path = index_path(src);
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).map_err(Error::io(name.clone()))?;
        let mut rows = read_table(&bytes, &name)?.into_iter();
        let header = match rows.next() {
            Some((key, value)) if key.is_empty() => pb::BundleHeaderProto::decode(value.as_slice())
                .map_err(|e| Error::DataLoss(format!("{name}: bad bundle header: {e}")))?,
            _ => return Err(Error::DataLoss(format!("{name}: no bundle header"))),
        };
        let shards = header.num_shards.max(1);
        for (key, value) in rows {
            let mut entry = pb::BundleEntryProto::decode(value.as_slice()).map_err(|e| {
                Error::DataLoss(format!("{name}: bad entry for {}: {e}", String::from_utf8_lossy(&key)))
            })?;
            if entry.shard_id < 0 || entry.shard_id >= shards {
                return Err(Error::DataLoss(format!("{name}: entry names shard {} of {shards}", entry.shard_id)));
            }
            entry.shard_id += total;
            if merged.insert(key.clone(), entry).is_some() {
                return Err(Error::InvalidArgument(format!(
                    "Duplicate tensor keyed by {} encountered, when merging prefix: {}",
                    String::from_utf8_lossy(&key),
                    src.display()
                )));
            }
        }
        for s in 0..shards {
            renames.push((suffixed(src, &format!(".data-{s:05}-of-{shards:05}")), total + s));
        }
        total = total.checked_add(shards).ok_or_else(|| Error::InvalidArgument("too many shards".into()))?;
        headers.push(header);
    }
    let version = headers.first().and_then(|h| h.version.clone());
    let header = pb::BundleHeaderProto {
        num_shards: total.max(1),
        endianness: pb::bundle_header_proto::Endianness::Little as i32,
        version: version.or(Some(pb::VersionDef { producer: VERSION, min_consumer: 0, bad_consumers: Vec::new() })),
    };
    for (from, shard) in &renames {
        let to = suffixed(dest, &format!(".data-{shard:05}-of-{:05}", header.num_shards));
        std::fs::rename(from, &to).map_err(Error::io(from.display().to_string()))?;
    }
    let mut table = TableBuilder::new();
    table.add(b"", &header.encode_to_vec())?;
    for (key, entry) in &merged {
        table.add(key, &entry.encode_to_vec())?;
    }
    let index = index_path(dest);
    let tmp = temp_path(&index);
    write_synced(&tmp, &table.finish())?;
    std::fs::rename(&tmp, &index).map_err(Error::io(index.display().to_string()))?;
    sync_parent(&index)?;
    for src in sources {
        let path = index_path(src);
        std::fs::remove_file(&path).map_err(Error::io(path.display().to_string()))?;
        if delete_old_dirs && let Some(dir) = src.parent() {
            // Fails, as TF's `DeleteDir` does, when other files are still there.
            let _ = std::fs::remove_dir(dir);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_save_removes_killed_writers_temporaries_of_every_prefix() {
        let dir = tempfile::tempdir().unwrap();
        // Process ids above pid_max never exist: these writers are gone.
        let dead = "4194999";
        let live = std::process::id();
        let names = [
            format!("model.ckpt-5.data-00000-of-00001.tempstate{dead}-12"),
            format!("model.ckpt-5.index.tempstate{dead}-3"),
            format!("model.ckpt-7.index.tempstate{live}-9"),
            format!("events.out.tempstate{dead}-1"),
            "model.ckpt-8.index.tempstate77".to_string(),
        ];
        for n in &names {
            std::fs::write(dir.path().join(n), b"x").unwrap();
        }
        let w = BundleWriter::new(dir.path().join("model.ckpt-10")).unwrap();
        w.finish().unwrap();
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|n| n.contains("tempstate"))
            .collect();
        left.sort();
        assert_eq!(left, [names[3].clone(), names[2].clone(), names[4].clone()]);
    }

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace().map(|b| u8::from_str_radix(b, 16).unwrap()).collect()
    }

    fn f32s(v: &[f32]) -> TensorData {
        TensorData::Dense(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }

    /// Adds `values` (owned test data) through the borrowing API.
    fn add(w: &mut BundleWriter, name: &str, dtype: i32, dims: &[i64], values: &TensorData) -> Result<()> {
        match values {
            TensorData::Dense(b) => w.add(name, dtype, dims, TensorBytes::Dense(b)),
            TensorData::Strings(s) => w.add(name, dtype, dims, TensorBytes::Strings(s)),
        }
    }

    #[test]
    fn worked_example_a_is_byte_exact() {
        // formats.md §2.7: one float32 scalar v = 1.0, as TensorFlow wrote it.
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("ckpt");
        let mut w = BundleWriter::new(&prefix).unwrap();
        add(&mut w, "v", 1, &[], &f32s(&[1.0])).unwrap();
        w.finish().unwrap();
        let index =
            hex("00 00 06 08 01 1a 02 08 01 00 01 0b 76 08 01 12 00 28 04 35 81 a5 da 2b 00 00 00 00 01 00 00 00
             00 95 ce d3 f3 00 00 00 00 01 00 00 00 00 c0 f2 a1 b0 00 01 02 77 00 20 00 00 00 00 01 00 00 00
             00 3e 1e a4 62 25 08 32 0e 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
             00 00 00 00 00 00 00 00 00 00 00 00 00 57 fb 80 8b 24 75 47 db");
        assert_eq!(std::fs::read(index_path(&prefix)).unwrap(), index);
        assert_eq!(std::fs::read(data_path(&prefix)).unwrap(), hex("00 00 80 3f"));
        let r = BundleReader::open(&prefix).unwrap();
        assert_eq!(r.names().collect::<Vec<_>>(), ["v"]);
        assert_eq!(r.read("v").unwrap(), f32s(&[1.0]));
        assert!(matches!(r.read("w"), Err(Error::NotFound(_))));
    }

    #[test]
    fn worked_example_b_is_byte_exact() {
        // formats.md §2.8: a TF1 Saver checkpoint of six variables, added in creation order.
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("model.ckpt-15");
        let strings = |v: &[&[u8]]| TensorData::Strings(v.iter().map(|s| s.to_vec()).collect());
        let mut w = BundleWriter::new(&prefix).unwrap();
        // The Saver adds them sorted, so the data file is in key order.
        add(&mut w, "alpha/w", 1, &[2, 3], &f32s(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0])).unwrap();
        add(&mut w, "dbl", 2, &[], &TensorData::Dense(0.5f64.to_le_bytes().to_vec())).unwrap();
        add(&mut w, "global_step", 9, &[], &TensorData::Dense(0i64.to_le_bytes().to_vec())).unwrap();
        add(&mut w, "str_var", DT_STRING, &[], &strings(&[b"hi"])).unwrap();
        add(&mut w, "str_vec", DT_STRING, &[2], &strings(&[b"", b"abc"])).unwrap();
        add(&mut w, "zeta/bias", 1, &[3], &f32s(&[1.5, -2.0, 3.25])).unwrap();
        w.finish().unwrap();
        let data =
            hex("00 00 00 00 00 00 80 3f 00 00 00 40 00 00 40 40 00 00 80 40 00 00 a0 40 00 00 00 00 00 00 e0 3f
             00 00 00 00 00 00 00 00 02 d8 d8 10 73 68 69 00 03 ec c6 ea 19 61 62 63 00 00 c0 3f 00 00 00 c0
             00 00 50 40");
        let index =
            hex("00 00 06 08 01 1a 02 08 01 00 07 13 61 6c 70 68 61 2f 77 08 01 12 08 12 02 08 02 12 02 08 03 28
             18 35 c0 db 3d 17 00 03 0d 64 62 6c 08 02 12 00 20 18 28 08 35 e6 1d 44 d4 00 0b 0d 67 6c 6f 62
             61 6c 5f 73 74 65 70 08 09 12 00 20 20 28 08 35 29 03 98 07 00 07 0d 73 74 72 5f 76 61 72 08 07
             12 00 20 28 28 07 35 09 eb 4d 15 05 02 11 65 63 08 07 12 04 12 02 08 02 20 2f 28 09 35 14 47 34
             35 00 09 11 7a 65 74 61 2f 62 69 61 73 08 01 12 04 12 02 08 03 20 38 28 0c 35 22 93 1b 90 00 00
             00 00 01 00 00 00 00 da 0f e3 3b 00 00 00 00 01 00 00 00 00 c0 f2 a1 b0 00 01 03 7b 00 a6 01 00
             00 00 00 01 00 00 00 00 3d 8c 78 8b ab 01 08 b8 01 0f 00 00 00 00 00 00 00 00 00 00 00 00 00 00
             00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 57 fb 80 8b 24 75 47 db");
        assert_eq!(std::fs::read(data_path(&prefix)).unwrap(), data);
        assert_eq!(std::fs::read(index_path(&prefix)).unwrap(), index);
        let r = BundleReader::open(&prefix).unwrap();
        assert_eq!(r.read("str_vec").unwrap(), strings(&[b"", b"abc"]));
        assert_eq!(r.read("zeta/bias").unwrap(), f32s(&[1.5, -2.0, 3.25]));
        assert_eq!(r.entry("alpha/w").unwrap().shape, Some(shape_proto(&[2, 3])));
    }

    #[test]
    fn corruption_is_data_loss_and_bad_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("sub/dir/ckpt");
        let mut w = BundleWriter::new(&prefix).unwrap();
        add(&mut w, "a", 1, &[2], &f32s(&[1.0, 2.0])).unwrap();
        assert!(add(&mut w, "a", 1, &[2], &f32s(&[1.0, 2.0])).is_err(), "duplicate");
        assert!(add(&mut w, "b", 1, &[3], &f32s(&[1.0, 2.0])).is_err(), "wrong size");
        assert!(add(&mut w, "", 1, &[], &f32s(&[1.0])).is_err(), "reserved key");
        w.finish().unwrap();
        let data = data_path(&prefix);
        let mut bytes = std::fs::read(&data).unwrap();
        bytes[0] ^= 0x40;
        std::fs::write(&data, &bytes).unwrap();
        let r = BundleReader::open(&prefix).unwrap();
        assert!(matches!(r.read("a"), Err(Error::DataLoss(m)) if m.contains("Checksum does not match")));
        let index = index_path(&prefix);
        let mut bytes = std::fs::read(&index).unwrap();
        bytes[12] ^= 1;
        std::fs::write(&index, &bytes).unwrap();
        assert!(matches!(BundleReader::open(&prefix), Err(Error::DataLoss(_))));
        assert!(matches!(BundleReader::open(dir.path().join("missing")), Err(Error::Io(..))));
        let leftovers: Vec<_> = std::fs::read_dir(prefix.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|n| n.contains("tempstate"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        // A writer dropped before finishing leaves nothing behind.
        let mut w = BundleWriter::new(dir.path().join("abandoned")).unwrap();
        add(&mut w, "a", 1, &[1], &f32s(&[1.0])).unwrap();
        drop(w);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|n| n.starts_with("abandoned"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }

    /// Rewrites the index of `prefix` with `entry` for `name` (header kept), as an
    /// attacker editing the file (with valid block checksums) would.
    fn craft(prefix: &Path, name: &str, entry: &pb::BundleEntryProto) {
        let bytes = std::fs::read(index_path(prefix)).unwrap();
        let rows = read_table(&bytes, "index").unwrap();
        let mut t = TableBuilder::new();
        for (k, v) in rows {
            if k == name.as_bytes() {
                t.add(&k, &entry.encode_to_vec()).unwrap();
            } else {
                t.add(&k, &v).unwrap();
            }
        }
        std::fs::write(index_path(prefix), t.finish()).unwrap();
    }

    #[test]
    fn crafted_entries_are_data_loss_before_any_allocation() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("ckpt");
        let mut w = BundleWriter::new(&prefix).unwrap();
        add(&mut w, "v", 1, &[4], &f32s(&[1.0, 2.0, 3.0, 4.0])).unwrap();
        w.finish().unwrap();
        let good = BundleReader::open(&prefix).unwrap().entry("v").unwrap().clone();
        let with = |dims: &[i64], dtype: i32, size: i64, offset: i64| pb::BundleEntryProto {
            dtype,
            shape: Some(shape_proto(dims)),
            size,
            offset,
            ..good.clone()
        };
        let cases = [
            // The element count wraps to 4 in 64 bits: 16 bytes would "fit".
            with(&[(1 << 62) + 1, 4], 1, 16, 0),
            // 2**40 bytes claimed: must be checked against the file, not allocated.
            with(&[1 << 38], 1, 1 << 40, 0),
            // A string tensor of 2**40 elements in 16 bytes.
            with(&[1 << 40], DT_STRING, 16, 0),
            with(&[-1, 4], 1, 16, 0),
            with(&[4], 1, 16, -8),
            with(&[4], 1, 16, i64::MAX),
            with(&[4], 1, -16, 0),
            with(&[2], 1, 16, 0),
        ];
        for entry in cases {
            craft(&prefix, "v", &entry);
            let r = BundleReader::open(&prefix).unwrap();
            assert!(matches!(r.read("v"), Err(Error::DataLoss(_))), "{entry:?}");
        }
    }

    #[test]
    fn a_truncated_data_file_is_data_loss() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("ckpt");
        let mut w = BundleWriter::new(&prefix).unwrap();
        add(&mut w, "v", 1, &[4], &f32s(&[1.0, 2.0, 3.0, 4.0])).unwrap();
        w.finish().unwrap();
        for len in [8, 0] {
            std::fs::File::options().write(true).open(data_path(&prefix)).unwrap().set_len(len).unwrap();
            let r = BundleReader::open(&prefix).unwrap();
            assert!(matches!(r.read("v"), Err(Error::DataLoss(m)) if m.contains("truncated")));
        }
    }

    #[test]
    fn a_save_killed_between_its_renames_leaves_the_old_bundle_readable() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("ckpt");
        let save = |v: f32| {
            let mut w = BundleWriter::new(&prefix).unwrap();
            add(&mut w, "v", 1, &[2], &f32s(&[v, v])).unwrap();
            w.finish().unwrap();
        };
        save(1.0);
        // Simulate the kill: the old index and data kept, the new data renamed into
        // place, the new index never.
        let (data, index) = (data_path(&prefix), index_path(&prefix));
        keep_previous(&index, &prev_path(&index)).unwrap();
        keep_previous(&data, &prev_path(&data)).unwrap();
        // The new data arrives by rename (a new file; the kept name is a hard link).
        let new_data: Vec<u8> = std::fs::read(&data).unwrap().iter().map(|b| b ^ 0xff).collect();
        let tmp = dir.path().join("new-data");
        std::fs::write(&tmp, new_data).unwrap();
        std::fs::rename(&tmp, &data).unwrap();
        let r = BundleReader::open(&prefix).unwrap();
        assert_eq!(r.read("v").unwrap(), f32s(&[1.0, 1.0]), "read from the kept data");
        // The next save repairs and replaces; nothing is left behind.
        save(2.0);
        assert_eq!(BundleReader::open(&prefix).unwrap().read("v").unwrap(), f32s(&[2.0, 2.0]));
        let names: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // Killed after the new index took over, before the kept copies were removed:
        // the new bundle is read.
        let (old_index, old_data) = (std::fs::read(&index).unwrap(), std::fs::read(&data).unwrap());
        save(3.0);
        std::fs::write(prev_path(&index), old_index).unwrap();
        std::fs::write(prev_path(&data), old_data).unwrap();
        assert_eq!(BundleReader::open(&prefix).unwrap().read("v").unwrap(), f32s(&[3.0, 3.0]));
        save(4.0);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn slice_keys_follow_tfs_ordered_code() {
        // formats.md 2.6: `pv` [4,3] in two parts along dim 0.
        assert_eq!(slice_key("pv", &[(0, 2), (0, 3)]), b"\x00pv\x00\x01\x01\x02\x80\x82\x80\x83");
        assert_eq!(slice_key("pv", &[(2, 2), (0, 3)]), b"\x00pv\x00\x01\x01\x02\x82\x82\x80\x83");
        assert_eq!(slice_key("a", &[(0, -1)]), b"\x00a\x00\x01\x01\x01\x80\x7f");
        // Multi-byte numbers: 64 takes two bytes (10 000000 01000000 -> c0 40... as TF).
        let mut b = Vec::new();
        write_signed_num_increasing(&mut b, 64);
        assert_eq!(b, [0xc0, 0x40]);
        b.clear();
        write_signed_num_increasing(&mut b, -65);
        assert_eq!(b, [0x3f, 0xbf]);
        b.clear();
        write_signed_num_increasing(&mut b, 134);
        assert_eq!(b, [0xc0, 0x86]);
    }

    /// `tests/fixtures/checkpoints/partitioned`, written by TF (see its script).
    fn tf_partitioned_fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/checkpoints/partitioned/model")
    }

    fn f32_bytes(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
        v.into_iter().flat_map(f32::to_le_bytes).collect()
    }

    /// Rows `rows` and columns `cols` of the row-major `full` of `width` columns.
    fn block(full: &[f32], width: usize, rows: std::ops::Range<usize>, cols: std::ops::Range<usize>) -> Vec<f32> {
        rows.flat_map(|r| cols.clone().map(move |c| full[r * width + c])).collect()
    }

    #[test]
    fn slices_are_written_as_tf_writes_them_byte_for_byte() {
        // The values of make_checkpoints.py, saved in the order TF's Saver saves them.
        let pv: Vec<f32> = (0..12).map(|i| i as f32).collect();
        let wide: Vec<f32> = (0..600).map(|i| i as f32 - 300.0).collect();
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("model");
        let mut w = BundleWriter::new(&prefix).unwrap();
        w.add("plain", 1, &[2], TensorBytes::Dense(&f32_bytes([9.0, 8.0]))).unwrap();
        for (start, len) in [(0, 2), (2, 2)] {
            let part = f32_bytes(block(&pv, 3, start..start + len, 0..3));
            w.add_slice("pv", 1, &[4, 3], &[(start as i64, len as i64), (0, 3)], TensorBytes::Dense(&part)).unwrap();
        }
        for (start, len) in [(0, 67), (67, 67), (134, 66)] {
            let part = f32_bytes(block(&wide, 200, 0..3, start..start + len));
            w.add_slice("wide", 1, &[3, 200], &[(0, 3), (start as i64, len as i64)], TensorBytes::Dense(&part))
                .unwrap();
        }
        // A slice of a name already slices of another shape, or already whole, is refused.
        let err = w.add_slice("pv", 1, &[4, 4], &[(0, 1), (0, 4)], TensorBytes::Dense(&f32_bytes([0.0; 4])));
        assert!(matches!(err, Err(Error::InvalidArgument(_))));
        let err = w.add_slice("plain", 1, &[2], &[(0, 1)], TensorBytes::Dense(&f32_bytes([0.0])));
        assert!(matches!(err, Err(Error::InvalidArgument(_))));
        let err = w.add_slice("pv", 1, &[4, 3], &[(0, 2), (0, 3)], TensorBytes::Dense(&f32_bytes([0.0; 6])));
        assert!(matches!(err, Err(Error::InvalidArgument(m)) if m.contains("duplicate")));
        w.finish().unwrap();
        let tf = tf_partitioned_fixture();
        assert_eq!(std::fs::read(index_path(&prefix)).unwrap(), std::fs::read(index_path(&tf)).unwrap());
        assert_eq!(std::fs::read(data_path(&prefix)).unwrap(), std::fs::read(data_path(&tf)).unwrap());
    }

    #[test]
    fn a_whole_slice_is_stored_as_a_plain_tensor_and_full_extents_are_empty() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("b");
        let mut w = BundleWriter::new(&prefix).unwrap();
        w.add_slice("whole", 1, &[2], &[(0, 2)], TensorBytes::Dense(&f32_bytes([1.0, 2.0]))).unwrap();
        w.add_slice("half", 1, &[2, 2], &[(1, 1), (0, -1)], TensorBytes::Dense(&f32_bytes([3.0, 4.0]))).unwrap();
        w.finish().unwrap();
        let r = BundleReader::open(&prefix).unwrap();
        assert!(!r.is_sliced("whole"));
        assert_eq!(r.read("whole").unwrap(), f32s(&[1.0, 2.0]));
        let half = r.entry("half").unwrap();
        assert_eq!(half.slices[0].extent[1], pb::tensor_slice_proto::Extent::default());
        // Half of the tensor is stored: reading the other half is NotFound.
        let mut out = vec![0u8; 8];
        r.read_slice_dense_into("half", &[2, 2], &[(1, 1), (0, 2)], 4, &mut out).unwrap();
        assert_eq!(out, f32_bytes([3.0, 4.0]));
        let err = r.read_slice_dense_into("half", &[2, 2], &[(0, 1), (0, 2)], 4, &mut out);
        assert!(matches!(err, Err(Error::NotFound(_))));
    }

    #[test]
    fn any_region_is_read_from_tfs_slices_or_from_a_whole_tensor() {
        let r = BundleReader::open(tf_partitioned_fixture()).unwrap();
        let wide: Vec<f32> = (0..600).map(|i| i as f32 - 300.0).collect();
        // Across the three stored slices (columns 0-66, 67-133, 134-199).
        for (rows, cols) in [(1..3, 60..140), (0..3, 0..200), (2..3, 133..134), (0..3, 67..134)] {
            let region = [(rows.start, rows.len()), (cols.start, cols.len())];
            let mut out = vec![0u8; rows.len() * cols.len() * 4];
            r.read_slice_dense_into("wide", &[3, 200], &region, 4, &mut out).unwrap();
            assert_eq!(out, f32_bytes(block(&wide, 200, rows, cols)));
        }
        let mut out = vec![0u8; 4];
        r.read_slice_dense_into("plain", &[2], &[(1, 1)], 4, &mut out).unwrap();
        assert_eq!(out, f32_bytes([8.0]));
        // A region outside the tensor or a buffer of another size is refused.
        let err = r.read_slice_dense_into("plain", &[2], &[(1, 2)], 4, &mut out);
        assert!(matches!(err, Err(Error::InvalidArgument(_))));
        let err = r.read_slice_dense_into("missing", &[2], &[(0, 1)], 4, &mut out);
        assert!(matches!(err, Err(Error::NotFound(_))));
    }

    #[test]
    fn merge_renames_shards_and_joins_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let parts: Vec<PathBuf> = (0..2).map(|i| dir.path().join(format!("tmp/part-{i}"))).collect();
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        for (i, p) in parts.iter().enumerate() {
            let mut w = BundleWriter::new(p).unwrap();
            let v = [i as u8; 4];
            w.add(&format!("v{i}"), 4, &[4], TensorBytes::Dense(&v)).unwrap();
            w.finish().unwrap();
        }
        let dest = dir.path().join("model");
        merge(&parts, &dest, true).unwrap();
        assert!(!dir.path().join("tmp").exists());
        let r = BundleReader::open(&dest).unwrap();
        assert_eq!(r.names().collect::<Vec<_>>(), ["v0", "v1"]);
        assert_eq!(r.read("v1").unwrap(), TensorData::Dense(vec![1; 4]));
        assert!(suffixed(&dest, ".data-00001-of-00002").exists());
        // A tensor in two parts is refused.
        for p in &parts[..1] {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        }
        let mut w = BundleWriter::new(&parts[0]).unwrap();
        w.add("v0", 4, &[1], TensorBytes::Dense(&[9])).unwrap();
        w.finish().unwrap();
        let again = [parts[0].clone(), dest.clone()];
        assert!(matches!(merge(&again, &dir.path().join("other"), false), Err(Error::InvalidArgument(_))));
    }
}
