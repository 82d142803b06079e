//! Lookup-table ops (`tf.lookup`), with TF's names, inputs and attrs: the table ops
//! (`HashTableV2`, `MutableHashTableV2`, `MutableHashTableOfTensorsV2`,
//! `MutableDenseHashTableV2`, and their TF-1.0 forms with reference handles), the
//! access ops and the initializers; and the string hash-bucket ops vocabulary tables
//! use for out-of-vocabulary keys. None has a gradient: TF marks most not
//! differentiable and registers nothing for export, import and remove.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

/// The table access ops: (TF-1.0 form with a reference handle, V2 form with a
/// resource handle, inputs).
pub(crate) const TABLE_ACCESS_OPS: [(&str, &str, &[&str]); 8] = [
    ("LookupTableFind", "LookupTableFindV2", &["table_handle", "keys", "default_value"]),
    ("LookupTableInsert", "LookupTableInsertV2", &["table_handle", "keys", "values"]),
    ("", "LookupTableRemoveV2", &["table_handle", "keys"]),
    ("LookupTableSize", "LookupTableSizeV2", &["table_handle"]),
    ("LookupTableExport", "LookupTableExportV2", &["table_handle"]),
    ("LookupTableImport", "LookupTableImportV2", &["table_handle", "keys", "values"]),
    ("InitializeTable", "InitializeTableV2", &["table_handle", "keys", "values"]),
    ("InitializeTableFromTextFile", "InitializeTableFromTextFileV2", &["table_handle", "filename"]),
];

pub(crate) fn register(r: &mut Registry) {
    for name in ["HashTable", "MutableHashTable", "MutableHashTableOfTensors"] {
        r.add(OpDef::new(name, &[], infer_table).stateful());
    }
    for name in ["HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2"] {
        r.add(OpDef::new(name, &[], infer_table).stateful());
    }
    let dense = &["empty_key", "deleted_key"];
    r.add(OpDef::new("MutableDenseHashTable", dense, infer_table).stateful());
    r.add(OpDef::new("MutableDenseHashTableV2", dense, infer_table).stateful());
    // (TF-1.0 form with a reference handle, V2 form with a resource handle, inputs).
    for (v1, v2, inputs) in TABLE_ACCESS_OPS {
        let def = |name| OpDef::new(name, inputs, infer_access).stateful();
        if !v1.is_empty() {
            r.add(def(v1).refs(&[0]));
        }
        r.add(def(v2));
    }
    r.add(OpDef::new("StringToHashBucket", &["string_tensor"], infer_hash_bucket));
    for name in ["StringToHashBucketFast", "StringToHashBucketStrong"] {
        r.add(OpDef::new(name, &["input"], infer_hash_bucket));
    }
}

fn infer_table(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let key = ctx.attr_type("key_dtype")?;
    ctx.attr_type("value_dtype")?;
    for k in ["container", "shared_name"] {
        ctx.attrs.entry(k.into()).or_insert_with(|| AttrValue::S(Vec::new()));
    }
    ctx.attr_bool("use_node_name_sharing", false)?;
    let name = ctx.def.name.trim_end_matches("V2");
    if name == "MutableHashTableOfTensors" || name == "MutableDenseHashTable" {
        ctx.attr_or("value_shape", PartialShape::scalar())?;
    }
    if name == "MutableDenseHashTable" {
        for i in 0..2 {
            if ctx.input(i).dtype != key {
                return Err(Error::type_error(format!(
                    "Input '{}' of '{}' Op has type {} that does not match type {} of argument 'key_dtype'.",
                    ctx.def.input_name(i),
                    ctx.def.name,
                    ctx.input(i).dtype,
                    key
                )));
            }
        }
        ctx.attr_int("initial_num_buckets", 131_072)?;
        ctx.attr_or("max_load_factor", 0.8f32)?;
    }
    if ctx.def.name.ends_with("V2") {
        return Ok(vec![OutputSpec::new(DType::Resource, PartialShape::scalar())]);
    }
    Ok(vec![OutputSpec { dtype: DType::String, shape: PartialShape::known(&[2]), is_ref: true }])
}

fn check_handle(ctx: &InferCtx<'_>) -> Result<()> {
    let (want, ok) = if ctx.def.name.ends_with("V2") {
        ("resource", ctx.input(0).dtype == DType::Resource)
    } else {
        ("string", ctx.input(0).dtype == DType::String)
    };
    if !ok {
        return Err(Error::type_error(format!(
            "Input 'table_handle' of '{}' Op has type {} that does not match expected type of {want}.",
            ctx.def.name,
            ctx.input(0).dtype
        )));
    }
    Ok(())
}

fn set_type(ctx: &mut InferCtx<'_>, attr: &str, dtype: DType) {
    ctx.attrs.insert(attr.into(), AttrValue::Type(dtype));
}

fn infer_access(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx)?;
    let op = ctx.def.name.trim_end_matches("V2");
    match op {
        "LookupTableFind" => {
            let (keys, default) = (ctx.input(1).clone(), ctx.input(2).clone());
            set_type(&mut ctx, "Tin", keys.dtype);
            set_type(&mut ctx, "Tout", default.dtype);
            // The shape is keys' batch shape then the value shape, which the handle does
            // not carry here: the Python table sets it, as TF's handle data does.
            let shape = PartialShape::unknown();
            Ok(vec![OutputSpec::new(default.dtype, shape)])
        }
        "LookupTableInsert" | "LookupTableImport" => {
            let (k, v) = (ctx.input(1).dtype, ctx.input(2).dtype);
            set_type(&mut ctx, "Tin", k);
            set_type(&mut ctx, "Tout", v);
            Ok(vec![])
        }
        "LookupTableRemove" => {
            let k = ctx.input(1).dtype;
            set_type(&mut ctx, "Tin", k);
            Ok(vec![])
        }
        "LookupTableSize" => Ok(vec![OutputSpec::new(DType::Int64, PartialShape::scalar())]),
        "LookupTableExport" => {
            let k = ctx.attr_type("Tkeys")?;
            let v = ctx.attr_type("Tvalues")?;
            Ok(vec![OutputSpec::new(k, PartialShape::unknown()), OutputSpec::new(v, PartialShape::unknown())])
        }
        "InitializeTable" => {
            ctx.check_rank(1, 1)?;
            ctx.check_rank(2, 1)?;
            let (k, v) = (ctx.input(1).dtype, ctx.input(2).dtype);
            set_type(&mut ctx, "Tkey", k);
            set_type(&mut ctx, "Tval", v);
            Ok(vec![])
        }
        _ => {
            ctx.check_type(1, &[DType::String])?;
            ctx.check_rank(1, 0)?;
            ctx.attr_int("key_index", 0)?;
            ctx.attr_int("value_index", 0)?;
            ctx.attr_int("vocab_size", -1)?;
            ctx.attr_or("delimiter", "\t".to_string())?;
            if ctx.def.name.ends_with("V2") {
                ctx.attr_int("offset", 0)?;
            }
            Ok(vec![])
        }
    }
}

fn infer_hash_bucket(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::String])?;
    let n = ctx.attr_int("num_buckets", 0)?;
    if n < 1 {
        return Err(Error::value(format!(
            "Attr 'num_buckets' of '{}' Op passed {n} less than minimum 1.",
            ctx.def.name
        )));
    }
    if ctx.def.name == "StringToHashBucketStrong" {
        ctx.required_attr::<Vec<i64>>("key")?;
    }
    Ok(vec![OutputSpec::new(DType::Int64, ctx.input(0).shape.clone())])
}
