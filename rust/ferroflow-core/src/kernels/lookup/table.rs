//! The lookup-table resource and TF's two hash-map tables: `HashTable` (initialized
//! once, then read-only: `tf.lookup.StaticHashTable`) and `MutableHashTable` (scalar or
//! tensor values: `MutableHashTableOfTensors`). Keys are `int32`, `int64` or
//! `string`; values any dtype, as rows of the table's value shape.
use std::collections::HashMap;

use parking_lot::RwLock;

use super::rows::{Rows, RowsOut, RowsRef};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::kernels::ExecEnv;
use crate::tensor::Tensor;

type Hasher = foldhash::fast::RandomState;

/// What every table does (TF's `LookupInterface`).
pub(crate) trait LookupTable: Send + Sync {
    /// TF's class name, for messages (`HashTable`, `MutableHashTable`, ...).
    fn kind(&self) -> &'static str;
    fn key_dtype(&self) -> DType;
    fn value_dtype(&self) -> DType;
    /// The shape of one key (empty but for a dense table with vector keys).
    fn key_shape(&self) -> &[usize] {
        &[]
    }
    fn value_shape(&self) -> &[usize];
    /// The number of entries.
    fn size(&self) -> usize;
    /// The value of each key (the default's where a key is missing), spread over the
    /// intra-op threads of `env` for large batches.
    fn find(&self, keys: &Tensor, default: &Tensor, env: &ExecEnv) -> Result<Tensor>;
    /// Adds or overwrites entries.
    fn insert(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        let _ = (keys, values);
        ff_bail!(Unimplemented, "Insert not supported by InitializableLookupTable implementations");
    }
    /// Removes entries (missing keys are ignored).
    fn remove(&self, keys: &Tensor) -> Result<()> {
        let _ = keys;
        ff_bail!(Unimplemented, "Remove not supported by InitializableLookupTable implementations");
    }
    /// Every key and its value (for checkpoints).
    fn export(&self) -> Result<(Tensor, Tensor)>;
    /// Replaces the contents with `keys` and `values` (from a checkpoint).
    fn import(&self, keys: &Tensor, values: &Tensor) -> Result<()>;
    /// Fills an initializable table from `source` (TF's `InitializableLookupTable`).
    fn initialize(&self, source: &mut dyn InitSource) -> Result<()> {
        let _ = source;
        ff_bail!(InvalidArgument, "Table of type {} is not initializable", self.kind());
    }
    /// Whether an initializable table has been initialized (mutable tables always are).
    fn is_initialized(&self) -> bool {
        true
    }
}

/// Key-value batches that initialize a table (TF's `InitTableIterator`): a pair of
/// tensors, or the lines of a vocabulary file.
pub(crate) trait InitSource {
    /// The number of entries it will give (TF's `total_size`; -1 when unknown).
    fn total_size(&self) -> i64;
    /// The next batch of keys and values, `None` at the end.
    fn next_batch(&mut self) -> Result<Option<(Tensor, Tensor)>>;
}

/// TF's `CheckKeyAndValueTypes` and the shape check of inserts and imports: keys of any
/// shape ending with the key shape, values of the keys' shape then the value shape.
pub(super) fn check_key_values(t: &dyn LookupTable, keys: &Tensor, values: &Tensor) -> Result<()> {
    check_types(t, keys, Some(values))?;
    let batch = batch_shape(t, keys.shape())?;
    let want: Vec<usize> = batch.iter().chain(t.value_shape()).copied().collect();
    if values.shape() != want.as_slice() {
        ff_bail!(InvalidArgument, "Expected shape {} for value, got {}", tf_shape(&want), tf_shape(values.shape()));
    }
    Ok(())
}

/// TF's `CheckFindArguments`: the default is one value or one per key.
pub(super) fn check_find(t: &dyn LookupTable, keys: &Tensor, default: &Tensor) -> Result<bool> {
    check_types(t, keys, Some(default))?;
    let batch = batch_shape(t, keys.shape())?;
    let full: Vec<usize> = batch.iter().chain(t.value_shape()).copied().collect();
    if default.shape() == t.value_shape() {
        Ok(false)
    } else if default.shape() == full.as_slice() {
        Ok(true)
    } else {
        ff_bail!(
            InvalidArgument,
            "Expected shape {} or {} for default value, got {}",
            tf_shape(t.value_shape()),
            tf_shape(&full),
            tf_shape(default.shape())
        )
    }
}

pub(super) fn check_types(t: &dyn LookupTable, keys: &Tensor, values: Option<&Tensor>) -> Result<()> {
    if keys.dtype() != t.key_dtype() {
        ff_bail!(InvalidArgument, "Key must be type {} but got {}", t.key_dtype().cpp_name(), keys.dtype().cpp_name());
    }
    if let Some(v) = values
        && v.dtype() != t.value_dtype()
    {
        ff_bail!(InvalidArgument, "Value must be type {} but got {}", t.value_dtype().cpp_name(), v.dtype().cpp_name());
    }
    Ok(())
}

/// The keys' shape without the table's key shape (TF's `CheckKeyShape`).
pub(super) fn batch_shape<'a>(t: &dyn LookupTable, shape: &'a [usize]) -> Result<&'a [usize]> {
    let ks = t.key_shape();
    if shape.len() < ks.len() || &shape[shape.len() - ks.len()..] != ks {
        ff_bail!(
            InvalidArgument,
            "Input key shape {} must end with the table's key shape {}",
            tf_shape(shape),
            tf_shape(ks)
        );
    }
    Ok(&shape[..shape.len() - ks.len()])
}

/// A shape as TF's `TensorShape::DebugString` writes it: `[2,3]`.
pub(super) fn tf_shape(s: &[usize]) -> String {
    let dims: Vec<String> = s.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(","))
}

/// The slot of a key the table lacks.
const MISSING: u32 = u32::MAX;
/// Keys per parallel piece of a find (a few tens of microseconds of probes).
const FIND_CHUNK: usize = 4096;

/// The output of a find: row `slots[i]` of `rows` for each key, the default's row
/// (`i`'s when `per_key`) where the slot is [`MISSING`].
fn gather(
    rows: &RowsRef<'_>,
    defaults: &RowsRef<'_>,
    per_key: bool,
    slots: &[u32],
    dtype: DType,
    shape: &[usize],
    env: &ExecEnv,
) -> Result<Tensor> {
    let source = |i: usize| match slots[i] {
        MISSING => (defaults, if per_key { i } else { 0 }),
        s => (rows, s as usize),
    };
    match rows {
        RowsRef::Dense { row_bytes, .. } => {
            let row_bytes = *row_bytes;
            let mut out = Tensor::for_overwrite(dtype, shape)?;
            if row_bytes > 0 {
                env.for_each_chunk(out.as_mut_bytes()?, FIND_CHUNK * row_bytes, row_bytes, |off, chunk| {
                    for (j, dst) in chunk.chunks_exact_mut(row_bytes).enumerate() {
                        let (src, r) = source(off / row_bytes + j);
                        dst.copy_from_slice(src.dense_row(r));
                    }
                });
            }
            Ok(out)
        }
        RowsRef::Strings { width, .. } => {
            let width = *width;
            let n = crate::shape::checked_num_elements(shape)?;
            let mut out = crate::buffer::try_vec::<Vec<u8>>(n)?;
            out.resize(n, Vec::new());
            if width > 0 {
                env.for_each_chunk(&mut out, FIND_CHUNK * width, width, |off, chunk| {
                    for (j, dst) in chunk.chunks_exact_mut(width).enumerate() {
                        let (src, r) = source(off / width + j);
                        dst.clone_from_slice(src.string_row(r));
                    }
                });
            }
            Tensor::from_strings(shape, out)
        }
    }
}

/// The keys of a tensor, integer keys widened.
enum KeysRef<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    Str(&'a [Vec<u8>]),
}

impl<'a> KeysRef<'a> {
    fn of(t: &'a Tensor) -> Result<Self> {
        Ok(match t.dtype() {
            DType::Int32 => KeysRef::I32(t.as_slice()?),
            DType::Int64 => KeysRef::I64(t.as_slice()?),
            DType::String => KeysRef::Str(t.as_strings()?),
            d => ff_bail!(InvalidArgument, "Key type {} is not supported by lookup tables", d.cpp_name()),
        })
    }
    fn len(&self) -> usize {
        match self {
            KeysRef::I32(k) => k.len(),
            KeysRef::I64(k) => k.len(),
            KeysRef::Str(k) => k.len(),
        }
    }
    fn fmt(&self, i: usize) -> String {
        match self {
            KeysRef::I32(k) => k[i].to_string(),
            KeysRef::I64(k) => k[i].to_string(),
            KeysRef::Str(k) => String::from_utf8_lossy(&k[i]).into_owned(),
        }
    }
}

/// Keys to row slots.
enum Index {
    Int(HashMap<i64, u32, Hasher>),
    Str(HashMap<Box<[u8]>, u32, Hasher>),
}

impl Index {
    fn new(key_dtype: DType) -> Self {
        if key_dtype == DType::String { Index::Str(HashMap::default()) } else { Index::Int(HashMap::default()) }
    }
    fn len(&self) -> usize {
        match self {
            Index::Int(m) => m.len(),
            Index::Str(m) => m.len(),
        }
    }
    fn get(&self, keys: &KeysRef<'_>, i: usize) -> Option<u32> {
        match (self, keys) {
            (Index::Int(m), KeysRef::I32(k)) => m.get(&i64::from(k[i])).copied(),
            (Index::Int(m), KeysRef::I64(k)) => m.get(&k[i]).copied(),
            (Index::Str(m), KeysRef::Str(k)) => m.get(k[i].as_slice()).copied(),
            _ => None,
        }
    }
    fn insert(&mut self, keys: &KeysRef<'_>, i: usize, slot: u32) {
        match (self, keys) {
            (Index::Int(m), KeysRef::I32(k)) => {
                m.insert(i64::from(k[i]), slot);
            }
            (Index::Int(m), KeysRef::I64(k)) => {
                m.insert(k[i], slot);
            }
            (Index::Str(m), KeysRef::Str(k)) => {
                m.insert(k[i].clone().into_boxed_slice(), slot);
            }
            _ => {}
        }
    }
    fn remove(&mut self, keys: &KeysRef<'_>, i: usize) -> Option<u32> {
        match (self, keys) {
            (Index::Int(m), KeysRef::I32(k)) => m.remove(&i64::from(k[i])),
            (Index::Int(m), KeysRef::I64(k)) => m.remove(&k[i]),
            (Index::Str(m), KeysRef::Str(k)) => m.remove(k[i].as_slice()),
            _ => None,
        }
    }
    fn reserve(&mut self, n: usize) -> Result<()> {
        let ok = match self {
            Index::Int(m) => m.try_reserve(n).is_ok(),
            Index::Str(m) => m.try_reserve(n).is_ok(),
        };
        if ok { Ok(()) } else { Err(crate::buffer::alloc_failed(n.saturating_mul(16))) }
    }
}

/// Whether a hash table is initialized once (TF's `HashTable`) or mutable.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mutability {
    Static,
    Mutable,
}

struct State {
    initialized: bool,
    index: Index,
    rows: Rows,
    free: Vec<u32>,
}

/// TF's `HashTable`, `MutableHashTable` and `MutableHashTableOfTensors`.
pub(crate) struct HashTable {
    mutability: Mutability,
    key_dtype: DType,
    value_dtype: DType,
    value_shape: Vec<usize>,
    width: usize,
    state: RwLock<State>,
}

impl HashTable {
    /// An empty table (an uninitialized one when static).
    pub(crate) fn new(
        mutability: Mutability,
        key_dtype: DType,
        value_dtype: DType,
        value_shape: Vec<usize>,
    ) -> Result<Self> {
        if !matches!(key_dtype, DType::Int32 | DType::Int64 | DType::String) {
            ff_bail!(InvalidArgument, "Key type {} is not supported by lookup tables", key_dtype.cpp_name());
        }
        if matches!(value_dtype, DType::Resource | DType::Variant) {
            ff_bail!(InvalidArgument, "Value type {} is not supported by lookup tables", value_dtype.cpp_name());
        }
        let width = crate::shape::checked_num_elements(&value_shape)?;
        let state = State {
            initialized: mutability == Mutability::Mutable,
            index: Index::new(key_dtype),
            rows: Rows::zeroed(value_dtype, width, 0)?,
            free: Vec::new(),
        };
        Ok(HashTable { mutability, key_dtype, value_dtype, value_shape, width, state: RwLock::new(state) })
    }

    /// Puts row `i` of `values` under key `i`: overwriting (mutable tables) or
    /// refusing a different value for a key (TF's static `DoInsert`).
    fn put(&self, st: &mut State, keys: &KeysRef<'_>, values: &RowsRef<'_>) -> Result<()> {
        st.index.reserve(keys.len().min(1 << 20))?;
        for i in 0..keys.len() {
            if let Some(slot) = st.index.get(keys, i) {
                if self.mutability == Mutability::Mutable {
                    st.rows.set(slot as usize, values, i);
                } else if !st.rows.as_ref().row_eq(slot as usize, values, i) {
                    ff_bail!(
                        FailedPrecondition,
                        "HashTable has different value for same key. Key {} has {} and trying to add value {}",
                        keys.fmt(i),
                        st.rows.fmt_first(slot as usize),
                        super::rows::fmt_first(values, i, self.value_dtype)
                    );
                }
                continue;
            }
            let slot = match st.free.pop() {
                Some(s) => {
                    st.rows.set(s as usize, values, i);
                    s
                }
                None => {
                    let r = st.rows.push(values, i)?;
                    u32::try_from(r).map_err(|_| Error::new(Code::ResourceExhausted, "lookup table is full"))?
                }
            };
            st.index.insert(keys, i, slot);
        }
        Ok(())
    }

    fn fail_uninitialized() -> Error {
        Error::new(Code::FailedPrecondition, "Table not initialized.")
    }
}

impl LookupTable for HashTable {
    fn kind(&self) -> &'static str {
        match (self.mutability, self.value_shape.is_empty()) {
            (Mutability::Static, _) => "HashTable",
            (Mutability::Mutable, true) => "MutableHashTable",
            (Mutability::Mutable, false) => "MutableHashTableOfTensors",
        }
    }
    fn key_dtype(&self) -> DType {
        self.key_dtype
    }
    fn value_dtype(&self) -> DType {
        self.value_dtype
    }
    fn value_shape(&self) -> &[usize] {
        &self.value_shape
    }
    fn size(&self) -> usize {
        let st = self.state.read();
        if st.initialized { st.index.len() } else { 0 }
    }
    fn is_initialized(&self) -> bool {
        self.state.read().initialized
    }

    fn find(&self, keys: &Tensor, default: &Tensor, env: &ExecEnv) -> Result<Tensor> {
        let per_key = check_find(self, keys, default)?;
        let st = self.state.read();
        if !st.initialized {
            return Err(Self::fail_uninitialized());
        }
        let k = KeysRef::of(keys)?;
        let n = k.len();
        // First each key's slot (the hash probes, in parallel for large batches), then
        // the rows copied straight into the output.
        let mut slots = crate::buffer::try_vec::<u32>(n)?;
        slots.resize(n, MISSING);
        env.for_each_chunk(&mut slots, FIND_CHUNK, 1, |off, chunk| {
            for (j, s) in chunk.iter_mut().enumerate() {
                *s = st.index.get(&k, off + j).unwrap_or(MISSING);
            }
        });
        let shape: Vec<usize> = keys.shape().iter().chain(&self.value_shape).copied().collect();
        let defaults = RowsRef::of(default, self.width)?;
        gather(&st.rows.as_ref(), &defaults, per_key, &slots, self.value_dtype, &shape, env)
    }

    fn insert(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        if self.mutability == Mutability::Static {
            ff_bail!(Unimplemented, "Insert not supported by InitializableLookupTable implementations");
        }
        check_key_values(self, keys, values)?;
        let mut st = self.state.write();
        self.put(&mut st, &KeysRef::of(keys)?, &RowsRef::of(values, self.width)?)
    }

    fn remove(&self, keys: &Tensor) -> Result<()> {
        if self.mutability == Mutability::Static {
            ff_bail!(Unimplemented, "Remove not supported by InitializableLookupTable implementations");
        }
        check_types(self, keys, None)?;
        let k = KeysRef::of(keys)?;
        let mut st = self.state.write();
        for i in 0..k.len() {
            if let Some(slot) = st.index.remove(&k, i) {
                st.free.push(slot);
            }
        }
        Ok(())
    }

    fn export(&self) -> Result<(Tensor, Tensor)> {
        let st = self.state.read();
        let n = if st.initialized { st.index.len() } else { 0 };
        let rows = st.rows.as_ref();
        let vshape: Vec<usize> = std::iter::once(n).chain(self.value_shape.iter().copied()).collect();
        let mut values = RowsOut::new(self.value_dtype, self.width, &vshape)?;
        let keys = match &st.index {
            Index::Int(m) => {
                let mut ks = crate::buffer::try_vec::<i64>(n)?;
                for (k, &slot) in m.iter().take(n) {
                    ks.push(*k);
                    values.push(&rows, slot as usize)?;
                }
                if self.key_dtype == DType::Int32 {
                    let narrow: Vec<i32> = ks.iter().map(|&k| k as i32).collect();
                    Tensor::from_slice(&[n], &narrow)?
                } else {
                    Tensor::from_slice(&[n], &ks)?
                }
            }
            Index::Str(m) => {
                let mut ks = crate::buffer::try_vec::<Vec<u8>>(n)?;
                for (k, &slot) in m.iter().take(n) {
                    ks.push(k.to_vec());
                    values.push(&rows, slot as usize)?;
                }
                Tensor::from_strings(&[n], ks)?
            }
        };
        Ok((keys, values.finish()?))
    }

    fn import(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        check_key_values(self, keys, values)?;
        if self.mutability == Mutability::Static {
            // TF imports into an initializable table by initializing it.
            return self.initialize(&mut TensorSource::new(keys.clone(), values.clone()));
        }
        let mut st = self.state.write();
        st.index = Index::new(self.key_dtype);
        st.rows = Rows::zeroed(self.value_dtype, self.width, 0)?;
        st.free.clear();
        self.put(&mut st, &KeysRef::of(keys)?, &RowsRef::of(values, self.width)?)
    }

    fn initialize(&self, source: &mut dyn InitSource) -> Result<()> {
        if self.mutability == Mutability::Mutable {
            ff_bail!(InvalidArgument, "Table of type {} is not initializable", self.kind());
        }
        let mut st = self.state.write();
        if st.initialized {
            // TF's `AreEntriesSame`: the same number of entries counts as the same data.
            if usize::try_from(source.total_size()).ok() == Some(st.index.len()) {
                return Ok(());
            }
            ff_bail!(FailedPrecondition, "Table was already initialized with different data.");
        }
        while let Some((keys, values)) = source.next_batch()? {
            check_key_values(self, &keys, &values)?;
            self.put(&mut st, &KeysRef::of(&keys)?, &RowsRef::of(&values, self.width)?)?;
        }
        st.initialized = true;
        Ok(())
    }
}

/// Keys and values given as two tensors (`InitializeTableV2`, imports).
pub(crate) struct TensorSource(Option<(Tensor, Tensor)>, i64);

impl TensorSource {
    pub(crate) fn new(keys: Tensor, values: Tensor) -> Self {
        let n = keys.num_elements() as i64;
        TensorSource(Some((keys, values)), n)
    }
}

impl InitSource for TensorSource {
    fn total_size(&self) -> i64 {
        self.1
    }
    fn next_batch(&mut self) -> Result<Option<(Tensor, Tensor)>> {
        Ok(self.0.take())
    }
}
