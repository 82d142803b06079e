//! Lookup tables (`tf.lookup`): the table ops bind a session's table resource and hand
//! out its handle (TF's `LookupTableOp`); the access ops find, insert, remove, size,
//! export, import and initialize through it. TF's `V2` ops take a `resource` handle,
//! the TF-1.0 forms a reference to a string handle; both reach the same tables.
use std::sync::{Arc, OnceLock};

use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::shape::PartialShape;
use crate::tensor::Tensor;

mod dense;
mod rows;
mod table;
mod text_file;

use dense::{DenseSpec, DenseTable};
use table::{HashTable, LookupTable, Mutability, TensorSource};
use text_file::{TextFileSource, TextFileSpec};

/// A lookup table as kept in a session's resources. A dense table is made on its op's
/// first run (its reserved keys are inputs); the others when the op is built.
pub(crate) struct Table {
    kind: &'static str,
    key_dtype: DType,
    value_dtype: DType,
    inner: OnceLock<Box<dyn LookupTable>>,
}

impl crate::framework::resource::Resource for Table {}

impl Table {
    fn get(&self) -> Result<&dyn LookupTable> {
        self.inner
            .get()
            .map(|t| t.as_ref())
            .ok_or_else(|| Error::new(Code::FailedPrecondition, format!("{} has not been created yet", self.kind)))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TableOp {
    Hash,
    Mutable,
    MutableOfTensors,
    Dense,
}

struct TableKernel {
    table: Arc<Table>,
    op: TableOp,
    value_shape: Vec<usize>,
    initial_num_buckets: i64,
    max_load_factor: f32,
}

fn known_shape(s: &PartialShape, what: &str) -> Result<Vec<usize>> {
    s.to_shape()
        .map(|d| d.to_vec())
        .ok_or_else(|| Error::invalid_argument(format!("{what} must be fully defined, got {s}")))
}

/// `HashTable(V2)`, `MutableHashTable(V2)`, `MutableHashTableOfTensors(V2)` and
/// `MutableDenseHashTable(V2)`: the session's table named by `shared_name` (or, without
/// one, by the node), made on first use, with TF's check that a table shared under
/// that name has the same key and value types.
pub(crate) fn table_op_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let op = match b.node.op_type().trim_end_matches("V2") {
        "HashTable" => TableOp::Hash,
        "MutableHashTable" => TableOp::Mutable,
        "MutableHashTableOfTensors" => TableOp::MutableOfTensors,
        _ => TableOp::Dense,
    };
    let key_dtype: DType = b.node.attr_or("key_dtype", DType::String)?;
    let value_dtype: DType = b.node.attr_or("value_dtype", DType::Int64)?;
    let value_shape = match op {
        TableOp::MutableOfTensors | TableOp::Dense => {
            known_shape(&b.node.attr_or("value_shape", PartialShape::scalar())?, "value_shape")?
        }
        _ => Vec::new(),
    };
    let shared = b.node.attr_or::<String>("shared_name", String::new())?;
    let name = if shared.is_empty() { b.node.name.clone() } else { shared };
    let container = b.node.attr_or::<String>("container", String::new())?;
    let kind = match op {
        TableOp::Hash => "HashTable",
        TableOp::Mutable => "MutableHashTable",
        TableOp::MutableOfTensors => "MutableHashTableOfTensors",
        TableOp::Dense => "MutableDenseHashTable",
    };
    let table = b.resources.lookup_or_create(&container, &name, || {
        let inner = OnceLock::new();
        if op != TableOp::Dense {
            let m = if op == TableOp::Hash { Mutability::Static } else { Mutability::Mutable };
            let t: Box<dyn LookupTable> = Box::new(HashTable::new(m, key_dtype, value_dtype, value_shape.clone())?);
            let _ = inner.set(t);
        }
        Ok(Table { kind, key_dtype, value_dtype, inner })
    })?;
    if table.key_dtype != key_dtype || table.value_dtype != value_dtype {
        ff_bail!(
            InvalidArgument,
            "Conflicting key/value dtypes {}->{} with {}-{} for table {name}",
            key_dtype.cpp_name(),
            value_dtype.cpp_name(),
            table.key_dtype.cpp_name(),
            table.value_dtype.cpp_name()
        );
    }
    if table.kind != kind {
        ff_bail!(InvalidArgument, "Table {name} is a {}, but a {kind} was requested", table.kind);
    }
    Ok(Box::new(TableKernel {
        table,
        op,
        value_shape,
        initial_num_buckets: b.node.attr_or("initial_num_buckets", 131_072i64)?,
        max_load_factor: b.node.attr_or("max_load_factor", 0.8f32)?,
    }))
}

impl OpKernel for TableKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if self.op == TableOp::Dense && self.table.inner.get().is_none() {
            let spec = DenseSpec {
                empty_key: ctx.input(0)?,
                deleted_key: ctx.input(1)?,
                value_dtype: self.table.value_dtype,
                value_shape: self.value_shape.clone(),
                initial_num_buckets: self.initial_num_buckets,
                max_load_factor: self.max_load_factor,
            };
            if spec.empty_key.dtype() != self.table.key_dtype || spec.deleted_key.dtype() != self.table.key_dtype {
                ff_bail!(InvalidArgument, "empty_key and deleted_key must be of the table's key type");
            }
            let t: Box<dyn LookupTable> = match self.table.key_dtype {
                DType::Int64 => Box::new(DenseTable::<i64>::new(spec)?),
                DType::Int32 => Box::new(DenseTable::<i32>::new(spec)?),
                DType::String => Box::new(DenseTable::<Vec<u8>>::new(spec)?),
                d => ff_bail!(InvalidArgument, "Key type {} is not supported by MutableDenseHashTable", d.cpp_name()),
            };
            // A concurrent first run may have made it already; either is the same table.
            let _ = self.table.inner.set(t);
        }
        ctx.set_resource_output(0, Arc::clone(&self.table) as Arc<_>);
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Access {
    Find,
    Insert,
    Remove,
    Size,
    Export,
    Import,
    Initialize,
    InitializeFromTextFile,
}

struct AccessKernel {
    access: Access,
    text_file: Option<TextFileAttrs>,
}

#[derive(Clone)]
struct TextFileAttrs {
    key_index: i64,
    value_index: i64,
    vocab_size: i64,
    delimiter: u8,
    offset: i64,
}

/// The access ops: find, insert, remove, size, export, import and the initializers.
pub(crate) fn table_access_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let access = match b.node.op_type().trim_end_matches("V2") {
        "LookupTableFind" => Access::Find,
        "LookupTableInsert" => Access::Insert,
        "LookupTableRemove" => Access::Remove,
        "LookupTableSize" => Access::Size,
        "LookupTableExport" => Access::Export,
        "LookupTableImport" => Access::Import,
        "InitializeTable" => Access::Initialize,
        _ => Access::InitializeFromTextFile,
    };
    let text_file = if matches!(access, Access::InitializeFromTextFile) {
        let delimiter: String = b.node.attr_or("delimiter", "\t".to_string())?;
        if delimiter.len() != 1 {
            ff_bail!(InvalidArgument, "delimiter should be only 1 char");
        }
        let vocab_size: i64 = b.node.attr_or("vocab_size", -1)?;
        let key_index: i64 = b.node.attr_or("key_index", 0)?;
        let value_index: i64 = b.node.attr_or("value_index", 0)?;
        if vocab_size < -1 || key_index < -2 || value_index < -2 {
            ff_bail!(InvalidArgument, "vocab_size must be >= -1 and key_index, value_index >= -2");
        }
        Some(TextFileAttrs {
            key_index,
            value_index,
            vocab_size,
            delimiter: delimiter.as_bytes()[0],
            offset: b.node.attr_or("offset", 0)?,
        })
    } else {
        None
    };
    Ok(Box::new(AccessKernel { access, text_file }))
}

fn vector(t: &Tensor, what: &str) -> Result<()> {
    if t.shape().len() != 1 {
        ff_bail!(InvalidArgument, "{what} must be a vector, but received shape{}", table::tf_shape(t.shape()));
    }
    Ok(())
}

impl OpKernel for AccessKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let handle = ctx.resource_input::<Table>(0)?;
        let table = handle.get()?;
        match self.access {
            Access::Find => {
                let out = table.find(ctx.input(1)?, ctx.input(2)?, ctx.env)?;
                ctx.set_output(0, out);
            }
            Access::Insert => table.insert(ctx.input(1)?, ctx.input(2)?)?,
            Access::Remove => table.remove(ctx.input(1)?)?,
            Access::Size => ctx.set_output(0, Tensor::scalar(table.size() as i64)),
            Access::Export => {
                let (k, v) = table.export()?;
                ctx.set_output(0, k);
                ctx.set_output(1, v);
            }
            Access::Import => table.import(ctx.input(1)?, ctx.input(2)?)?,
            Access::Initialize => {
                let (keys, values) = (ctx.input(1)?, ctx.input(2)?);
                vector(keys, "Keys")?;
                vector(values, "Values")?;
                if keys.num_elements() != values.num_elements() {
                    ff_bail!(
                        InvalidArgument,
                        "Keys and values must have the same size {} vs {}",
                        keys.num_elements(),
                        values.num_elements()
                    );
                }
                table.initialize(&mut TensorSource::new(keys.clone(), values.clone()))?;
            }
            Access::InitializeFromTextFile => {
                let a = self.text_file.clone().ok_or_else(|| Error::new(Code::Internal, "no text file attrs"))?;
                let f = ctx.input(1)?;
                if !f.shape().is_empty() {
                    ff_bail!(
                        InvalidArgument,
                        "filename should be a single string, but got {}",
                        table::tf_shape(f.shape())
                    );
                }
                let filename = String::from_utf8_lossy(&f.as_strings()?[0]).into_owned();
                if filename.is_empty() {
                    ff_bail!(InvalidArgument, "filename cannot be empty.");
                }
                let mut source = TextFileSource::open(TextFileSpec {
                    filename,
                    vocab_size: a.vocab_size,
                    delimiter: a.delimiter,
                    key_index: a.key_index,
                    value_index: a.value_index,
                    offset: a.offset,
                    key_dtype: table.key_dtype(),
                    value_dtype: table.value_dtype(),
                })?;
                // As TF: a table already initialized from the file is left as it is.
                match table.initialize(&mut source) {
                    Err(e) if e.code == Code::FailedPrecondition && table.is_initialized() => {}
                    r => r?,
                }
            }
        }
        Ok(())
    }
}
