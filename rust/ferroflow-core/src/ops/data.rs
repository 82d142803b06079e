//! `tf.data`'s ops, with TF's names and inputs: dataset ops output a `variant`
//! scalar (a dataset, see `kernels::data`), iterator ops a `resource` handle. The
//! element signature of each (`output_types`, `output_shapes`) is worked out by the
//! Python layer, as TF's; these shape functions check the inputs and pass it on.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    let ds = |name, inputs| OpDef::new(name, inputs, infer_dataset).stateful();
    r.add(ds("TensorDataset", &["components"]).variadic());
    r.add(ds("TensorSliceDataset", &["components"]).variadic());
    r.add(ds("RangeDataset", &["start", "stop", "step"]));
    r.add(ds("ZipDataset", &["input_datasets"]).variadic());
    r.add(ds("ConcatenateDataset", &["input_dataset", "another_dataset"]));
    let gen_inputs = &["init_func_other_args"];
    r.add(ds("GeneratorDataset", gen_inputs).variadic_or_empty());
    r.add(ds("RepeatDataset", &["input_dataset", "count"]));
    r.add(ds("TakeDataset", &["input_dataset", "count"]));
    r.add(ds("SkipDataset", &["input_dataset", "count"]));
    r.add(ds("ShardDataset", &["input_dataset", "num_shards", "index"]));
    r.add(ds("BatchDataset", &["input_dataset", "batch_size"]));
    r.add(ds("BatchDatasetV2", &["input_dataset", "batch_size", "drop_remainder"]));
    let padded = &["input_dataset", "batch_size", "padded_shapes"];
    r.add(ds("PaddedBatchDatasetV2", padded).variadic());
    r.add(ds("UnbatchDataset", &["input_dataset"]));
    let window = &["input_dataset", "size", "shift", "stride", "drop_remainder"];
    r.add(ds("WindowDataset", window));
    r.add(ds("ExperimentalUnbatchDataset", &["input_dataset"]));
    let shuffle = &["input_dataset", "buffer_size", "seed", "seed2"];
    r.add(ds("ShuffleDataset", shuffle));
    let shuffle_repeat = &["input_dataset", "buffer_size", "seed", "seed2", "count"];
    r.add(ds("ShuffleAndRepeatDataset", shuffle_repeat));
    r.add(ds("CacheDataset", &["input_dataset", "filename"]));
    r.add(ds("PrefetchDataset", &["input_dataset", "buffer_size"]));
    r.add(ds("IgnoreErrorsDataset", &["input_dataset"]));
    r.add(ds("ExperimentalIgnoreErrorsDataset", &["input_dataset"]));
    // Function ops: `other_arguments` (the captures, `Targuments` long) follow the
    // input dataset; scalar arguments come after them.
    let with_args = &["input_dataset", "other_arguments"];
    r.add(ds("MapDataset", with_args).variadic_or_empty());
    r.add(ds("ParallelMapDataset", with_args).variadic_or_empty());
    r.add(ds("ParallelMapDatasetV2", with_args).variadic_or_empty());
    r.add(ds("MapAndBatchDataset", with_args).variadic_or_empty());
    r.add(ds("ExperimentalMapAndBatchDataset", with_args).variadic_or_empty());
    r.add(ds("FilterDataset", with_args).variadic_or_empty());
    r.add(ds("FlatMapDataset", with_args).variadic_or_empty());
    r.add(ds("InterleaveDataset", with_args).variadic_or_empty());
    r.add(ds("ParallelInterleaveDatasetV2", with_args).variadic_or_empty());
    r.add(ds("ParallelInterleaveDataset", with_args).variadic_or_empty());
    r.add(ds("ExperimentalParallelInterleaveDataset", with_args).variadic_or_empty());
    let files = &["filenames", "compression_type", "buffer_size"];
    r.add(ds("TFRecordDataset", files));
    r.add(ds("TextLineDataset", files));
    let fixed = &["filenames", "header_bytes", "record_bytes", "footer_bytes", "buffer_size"];
    r.add(ds("FixedLengthRecordDataset", fixed));
    let fixed2 = &["filenames", "header_bytes", "record_bytes", "footer_bytes", "buffer_size", "compression_type"];
    r.add(ds("FixedLengthRecordDatasetV2", fixed2));

    let handle = |name, inputs| OpDef::new(name, inputs, infer_handle).stateful();
    r.add(handle("IteratorV2", &[]));
    r.add(handle("Iterator", &[]));
    r.add(handle("OneShotIterator", &[]));
    r.add(handle("IteratorFromStringHandleV2", &["string_handle"]));
    r.add(handle("IteratorFromStringHandle", &["string_handle"]));
    let make = OpDef::new("MakeIterator", &["dataset", "iterator"], infer_make_iterator);
    r.add(make.stateful());
    r.add(OpDef::new("IteratorGetNext", &["iterator"], infer_get_next).stateful());
    r.add(OpDef::new("IteratorGetNextSync", &["iterator"], infer_get_next).stateful());
    let to_handle = OpDef::new("IteratorToStringHandle", &["resource_handle"], infer_to_handle);
    r.add(to_handle.stateful());
    let save = OpDef::new("SerializeIterator", &["resource_handle"], infer_to_handle);
    r.add(save.stateful());
    let restore = OpDef::new("DeserializeIterator", &["resource_handle", "serialized"], infer_deserialize);
    r.add(restore.stateful());
}

/// `DeserializeIterator`: an iterator and its saved state (a string: ferroflow's
/// form of TF's variant); no outputs.
fn infer_deserialize(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    if ctx.input(0).dtype != DType::Resource || ctx.input(1).dtype != DType::String {
        return Err(Error::type_error(format!(
            "DeserializeIterator '{}' takes an iterator and its serialized state (a string)",
            ctx.name
        )));
    }
    Ok(Vec::new())
}

/// Every dataset op: a `variant` scalar.
fn infer_dataset(_: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    Ok(vec![OutputSpec::new(DType::Variant, PartialShape::scalar())])
}

/// Iterator handles: a `resource` scalar.
fn infer_handle(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    if ctx.def.inputs.len() == 1 && ctx.input(0).dtype != DType::String {
        return Err(Error::type_error(format!(
            "Input 'string_handle' of '{}' Op has type {} that does not match expected type of string.",
            ctx.def.name,
            ctx.input(0).dtype
        )));
    }
    Ok(vec![OutputSpec::new(DType::Resource, PartialShape::scalar())])
}

fn infer_make_iterator(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    if ctx.input(0).dtype != DType::Variant || ctx.input(1).dtype != DType::Resource {
        return Err(Error::type_error(format!("MakeIterator '{}' takes a dataset and an iterator", ctx.name)));
    }
    Ok(Vec::new())
}

/// `IteratorToStringHandle`, `SerializeIterator`: an iterator in, a string scalar out.
fn infer_to_handle(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    if ctx.input(0).dtype != DType::Resource {
        return Err(Error::type_error(format!("{} '{}' takes an iterator", ctx.def.name, ctx.name)));
    }
    Ok(vec![OutputSpec::new(DType::String, PartialShape::scalar())])
}

/// One output per component, typed and shaped by the signature attrs.
fn infer_get_next(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    if ctx.input(0).dtype != DType::Resource {
        return Err(Error::type_error(format!("{} '{}' takes an iterator", ctx.def.name, ctx.name)));
    }
    let types: Vec<DType> = ctx.required_attr("output_types")?;
    let shapes: Vec<PartialShape> = ctx.attr("output_shapes")?.unwrap_or_default();
    if !shapes.is_empty() && shapes.len() != types.len() {
        return Err(Error::value(format!(
            "{} '{}' has {} output_types but {} output_shapes",
            ctx.def.name,
            ctx.name,
            types.len(),
            shapes.len()
        )));
    }
    Ok(types
        .iter()
        .enumerate()
        .map(|(i, &t)| OutputSpec::new(t, shapes.get(i).cloned().unwrap_or_else(PartialShape::unknown)))
        .collect())
}
