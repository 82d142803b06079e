//! TF's `MutableDenseHashTable`: open addressing over a power-of-two number of
//! buckets with triangular probing, reserved `empty_key` and `deleted_key` values, and
//! TF's hashes (an integer key is its own hash; a string key TF's `Hash64`), so the
//! buckets, and hence `export`'s order, are TF's.
use parking_lot::RwLock;

use super::rows::{Rows, RowsOut, RowsRef};
use super::table::{LookupTable, batch_shape, check_find, check_key_values, check_types, tf_shape};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::kernels::ExecEnv;
use crate::kernels::hash::{hash64, hash64_combine};
use crate::tensor::Tensor;

/// A key element of a dense table: `int32`, `int64` or `string`.
pub(crate) trait DenseKey: Clone + PartialEq + Default + Send + Sync + 'static {
    const DTYPE: DType;
    fn elems(t: &Tensor) -> Result<&[Self]>;
    fn hash_scalar(&self) -> u64;
    fn to_tensor(shape: &[usize], v: Vec<Self>) -> Result<Tensor>;
}

impl DenseKey for i64 {
    const DTYPE: DType = DType::Int64;
    fn elems(t: &Tensor) -> Result<&[Self]> {
        t.as_slice()
    }
    fn hash_scalar(&self) -> u64 {
        *self as u64
    }
    fn to_tensor(shape: &[usize], v: Vec<Self>) -> Result<Tensor> {
        Tensor::from_slice(shape, &v)
    }
}

impl DenseKey for i32 {
    const DTYPE: DType = DType::Int32;
    fn elems(t: &Tensor) -> Result<&[Self]> {
        t.as_slice()
    }
    fn hash_scalar(&self) -> u64 {
        i64::from(*self) as u64
    }
    fn to_tensor(shape: &[usize], v: Vec<Self>) -> Result<Tensor> {
        Tensor::from_slice(shape, &v)
    }
}

impl DenseKey for Vec<u8> {
    const DTYPE: DType = DType::String;
    fn elems(t: &Tensor) -> Result<&[Self]> {
        t.as_strings()
    }
    fn hash_scalar(&self) -> u64 {
        hash64(self)
    }
    fn to_tensor(shape: &[usize], v: Vec<Self>) -> Result<Tensor> {
        Tensor::from_strings(shape, v)
    }
}

/// Where probing for a key ended.
enum Probe {
    Found(usize),
    Free(usize),
}

struct Buckets<K> {
    num_buckets: usize,
    num_entries: usize,
    keys: Vec<K>,
    values: Rows,
}

/// The dense hash table of keys `K`.
pub(crate) struct DenseTable<K: DenseKey> {
    value_dtype: DType,
    key_shape: Vec<usize>,
    value_shape: Vec<usize>,
    key_width: usize,
    value_width: usize,
    max_load_factor: f32,
    empty: Vec<K>,
    deleted: Vec<K>,
    empty_hash: u64,
    deleted_hash: u64,
    buckets: RwLock<Buckets<K>>,
}

/// The arguments of `MutableDenseHashTableV2`.
pub(crate) struct DenseSpec<'a> {
    pub empty_key: &'a Tensor,
    pub deleted_key: &'a Tensor,
    pub value_dtype: DType,
    pub value_shape: Vec<usize>,
    pub initial_num_buckets: i64,
    pub max_load_factor: f32,
}

fn hash_key<K: DenseKey>(row: &[K]) -> u64 {
    if row.len() == 1 {
        return row[0].hash_scalar();
    }
    row.iter().fold(0, |acc, k| hash64_combine(acc, k.hash_scalar()))
}

fn check_num_buckets(n: i64) -> Result<usize> {
    if n < 4 || (n & (n - 1)) != 0 {
        ff_bail!(InvalidArgument, "Number of buckets must be at least 4 and a power of 2, got: {n}");
    }
    usize::try_from(n).map_err(|_| Error::invalid_argument(format!("Number of buckets {n} is too large")))
}

impl<K: DenseKey> DenseTable<K> {
    /// A table with `initial_num_buckets` empty buckets, checked as TF's constructor.
    pub(crate) fn new(spec: DenseSpec<'_>) -> Result<Self> {
        if !(spec.max_load_factor > 0.0 && spec.max_load_factor < 1.0) {
            ff_bail!(InvalidArgument, "max_load_factor must be between 0 and 1, got: {}", spec.max_load_factor);
        }
        if spec.value_shape.len() > 1 {
            ff_bail!(
                InvalidArgument,
                "Empty value must be a scalar or a vector, got shape {}",
                tf_shape(&spec.value_shape)
            );
        }
        let key_shape = spec.empty_key.shape().to_vec();
        if key_shape.len() > 1 {
            ff_bail!(InvalidArgument, "Empty key must be a scalar or a vector, got shape {}", tf_shape(&key_shape));
        }
        if spec.deleted_key.shape() != key_shape.as_slice() {
            ff_bail!(
                InvalidArgument,
                "Empty and deleted keys must have same shape, got shapes: {} and {}",
                tf_shape(&key_shape),
                tf_shape(spec.deleted_key.shape())
            );
        }
        let empty = K::elems(spec.empty_key)?.to_vec();
        let deleted = K::elems(spec.deleted_key)?.to_vec();
        if empty == deleted {
            ff_bail!(InvalidArgument, "Empty and deleted keys cannot be equal");
        }
        let value_width = crate::shape::checked_num_elements(&spec.value_shape)?;
        let table = DenseTable {
            value_dtype: spec.value_dtype,
            key_width: empty.len(),
            key_shape,
            value_shape: spec.value_shape,
            value_width,
            max_load_factor: spec.max_load_factor,
            empty_hash: hash_key(&empty),
            deleted_hash: hash_key(&deleted),
            empty,
            deleted,
            buckets: RwLock::new(Buckets {
                num_buckets: 0,
                num_entries: 0,
                keys: Vec::new(),
                values: Rows::zeroed(spec.value_dtype, value_width, 0)?,
            }),
        };
        let n = check_num_buckets(spec.initial_num_buckets)?;
        *table.buckets.write() = table.allocate(n)?;
        Ok(table)
    }

    fn allocate(&self, n: usize) -> Result<Buckets<K>> {
        let elems = n.checked_mul(self.key_width).ok_or_else(|| crate::buffer::alloc_failed(usize::MAX))?;
        let mut keys = crate::buffer::try_vec(elems)?;
        for _ in 0..n {
            keys.extend_from_slice(&self.empty);
        }
        Ok(Buckets {
            num_buckets: n,
            num_entries: 0,
            keys,
            values: Rows::zeroed(self.value_dtype, self.value_width, n)?,
        })
    }

    fn row<'a>(&self, keys: &'a [K], i: usize) -> &'a [K] {
        &keys[i * self.key_width..(i + 1) * self.key_width]
    }

    /// The number of keys in a batch: the first dimension (TF's dense-table check).
    fn batch_len(&self, keys: &Tensor) -> Result<usize> {
        let n = keys.shape().first().copied().unwrap_or(1);
        if keys.num_elements() != n * self.key_width {
            let want: Vec<usize> = std::iter::once(n).chain(self.key_shape.iter().copied()).collect();
            ff_bail!(InvalidArgument, "Expected key shape {} got {}", tf_shape(&want), tf_shape(keys.shape()));
        }
        Ok(n)
    }

    /// Refuses the reserved keys (or, importing, skips them): whether to skip.
    fn reserved(&self, row: &[K], hash: u64, skip: bool) -> Result<bool> {
        if hash == self.empty_hash && row == self.empty.as_slice() {
            if skip {
                return Ok(true);
            }
            ff_bail!(InvalidArgument, "Using the empty_key as a table key is not allowed");
        }
        if hash == self.deleted_hash && row == self.deleted.as_slice() {
            if skip {
                return Ok(true);
            }
            ff_bail!(InvalidArgument, "Using the deleted_key as a table key is not allowed");
        }
        Ok(false)
    }

    /// TF's triangular probing from `row`'s bucket: the bucket holding `row`
    /// (`Found`), or the first empty one (`Free`; with `reuse_deleted`, a deleted one
    /// too, as TF's insert takes it). `what` names the operation in TF's message for a
    /// full table.
    fn probe(&self, b: &Buckets<K>, row: &[K], hash: u64, reuse_deleted: bool, what: &str) -> Result<Probe> {
        let mask = b.num_buckets - 1;
        let mut bucket = (hash as usize) & mask;
        let mut probes = 0usize;
        loop {
            let at = self.row(&b.keys, bucket);
            if at == row {
                return Ok(Probe::Found(bucket));
            }
            if at == self.empty.as_slice() || (reuse_deleted && at == self.deleted.as_slice()) {
                return Ok(Probe::Free(bucket));
            }
            probes += 1;
            bucket = (bucket + probes) & mask;
            if probes >= b.num_buckets {
                ff_bail!(Internal, "Internal error in MutableDenseHashTable {what}");
            }
        }
    }

    /// TF's `DoInsert`: probe from the key's bucket to the key or the first free one.
    fn do_insert(&self, b: &mut Buckets<K>, keys: &[K], values: &RowsRef<'_>, n: usize, skip: bool) -> Result<()> {
        for i in 0..n {
            let row = self.row(keys, i);
            let hash = hash_key(row);
            if self.reserved(row, hash, skip)? {
                continue;
            }
            match self.probe(b, row, hash, true, "insert")? {
                Probe::Found(bucket) => b.values.set(bucket, values, i),
                Probe::Free(bucket) => {
                    b.num_entries += 1;
                    b.keys[bucket * self.key_width..(bucket + 1) * self.key_width].clone_from_slice(row);
                    b.values.set(bucket, values, i);
                }
            }
        }
        Ok(())
    }

    fn rebucket(&self, b: &mut Buckets<K>, n: usize) -> Result<()> {
        let old = std::mem::replace(b, self.allocate(n)?);
        let old_values = old.values.as_ref();
        self.do_insert(b, &old.keys, &old_values, old.num_buckets, true)
    }
}

impl<K: DenseKey> LookupTable for DenseTable<K> {
    fn kind(&self) -> &'static str {
        "MutableDenseHashTable"
    }
    fn key_dtype(&self) -> DType {
        K::DTYPE
    }
    fn value_dtype(&self) -> DType {
        self.value_dtype
    }
    fn key_shape(&self) -> &[usize] {
        &self.key_shape
    }
    fn value_shape(&self) -> &[usize] {
        &self.value_shape
    }
    fn size(&self) -> usize {
        self.buckets.read().num_entries
    }

    fn find(&self, keys: &Tensor, default: &Tensor, _env: &ExecEnv) -> Result<Tensor> {
        let per_key = check_find(self, keys, default)?;
        let n = self.batch_len(keys)?;
        let k = K::elems(keys)?;
        let defaults = RowsRef::of(default, self.value_width)?;
        let b = self.buckets.read();
        let rows = b.values.as_ref();
        let shape: Vec<usize> = batch_shape(self, keys.shape())?.iter().chain(&self.value_shape).copied().collect();
        let mut out = RowsOut::new(self.value_dtype, self.value_width, &shape)?;
        for i in 0..n {
            let row = self.row(k, i);
            let hash = hash_key(row);
            self.reserved(row, hash, false)?;
            match self.probe(&b, row, hash, false, "lookup")? {
                Probe::Found(bucket) => out.push(&rows, bucket)?,
                Probe::Free(_) => out.push(&defaults, if per_key { i } else { 0 })?,
            }
        }
        out.finish()
    }

    fn insert(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        check_key_values(self, keys, values)?;
        let n = self.batch_len(keys)?;
        let k = K::elems(keys)?;
        let v = RowsRef::of(values, self.value_width)?;
        let mut b = self.buckets.write();
        // As TF: every key is counted as new, so a batch may grow the table early.
        let pending = b.num_entries.saturating_add(n) as f64;
        let load = f64::from(self.max_load_factor);
        if pending > b.num_buckets as f64 * load {
            let mut grown = b.num_buckets;
            while pending > grown as f64 * load {
                grown = grown.checked_mul(2).ok_or_else(|| Error::new(Code::ResourceExhausted, "table too large"))?;
            }
            self.rebucket(&mut b, grown)?;
        }
        self.do_insert(&mut b, k, &v, n, false)
    }

    fn remove(&self, keys: &Tensor) -> Result<()> {
        check_types(self, keys, None)?;
        let n = self.batch_len(keys)?;
        let k = K::elems(keys)?;
        let mut b = self.buckets.write();
        for i in 0..n {
            let row = self.row(k, i);
            let hash = hash_key(row);
            self.reserved(row, hash, false)?;
            if let Probe::Found(bucket) = self.probe(&b, row, hash, false, "remove")? {
                b.num_entries -= 1;
                b.keys[bucket * self.key_width..(bucket + 1) * self.key_width].clone_from_slice(&self.deleted);
            }
        }
        Ok(())
    }

    fn export(&self) -> Result<(Tensor, Tensor)> {
        let b = self.buckets.read();
        // As TF: the bucket matrices, one row of `key_width` (`value_width`) per bucket.
        let kshape = [b.num_buckets, self.key_width];
        let vshape = [b.num_buckets, self.value_width];
        let keys = K::to_tensor(&kshape, b.keys.clone())?;
        let mut values = RowsOut::new(self.value_dtype, self.value_width, &vshape)?;
        let rows = b.values.as_ref();
        for i in 0..b.num_buckets {
            values.push(&rows, i)?;
        }
        Ok((keys, values.finish()?))
    }

    fn import(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        check_key_values(self, keys, values)?;
        let n = self.batch_len(keys)?;
        let n_buckets = check_num_buckets(n as i64)?;
        let k = K::elems(keys)?;
        let v = RowsRef::of(values, self.value_width)?;
        let mut b = self.buckets.write();
        *b = self.allocate(n_buckets)?;
        self.do_insert(&mut b, k, &v, n, true)
    }
}
