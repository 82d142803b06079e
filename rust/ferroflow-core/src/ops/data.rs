//! `tf.data`'s ops, with TF's names and inputs: dataset ops output a `variant`
//! scalar (a dataset, see `kernels::data`), iterator ops a `resource` handle. The
//! element signature of each (`output_types`, `output_shapes`) is worked out by the
//! Python layer, as TF's; these shape functions check the inputs and pass it on.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::OutputSpec;
use crate::kernels::data::{iterator as it, parallel as p, readers as rd, sources as src, transforms as tr};
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    let ds = |name, inputs, kernel| OpDef::new(name, inputs, infer_dataset, kernel).stateful();
    r.add(ds("TensorDataset", &["components"], src::tensor_dataset).variadic());
    r.add(ds("TensorSliceDataset", &["components"], src::tensor_slice_dataset).variadic());
    r.add(ds("RangeDataset", &["start", "stop", "step"], src::range_dataset));
    r.add(ds("ZipDataset", &["input_datasets"], src::zip_dataset).variadic());
    r.add(ds("ConcatenateDataset", &["input_dataset", "another_dataset"], src::concatenate_dataset));
    let gen_inputs = &["init_func_other_args"];
    r.add(ds("GeneratorDataset", gen_inputs, src::generator_dataset).variadic_or_empty());
    r.add(ds("RepeatDataset", &["input_dataset", "count"], tr::repeat_dataset));
    r.add(ds("TakeDataset", &["input_dataset", "count"], tr::take_dataset));
    r.add(ds("SkipDataset", &["input_dataset", "count"], tr::skip_dataset));
    r.add(ds("ShardDataset", &["input_dataset", "num_shards", "index"], tr::shard_dataset));
    r.add(ds("BatchDataset", &["input_dataset", "batch_size"], tr::batch_dataset));
    r.add(ds("BatchDatasetV2", &["input_dataset", "batch_size", "drop_remainder"], tr::batch_dataset));
    let padded = &["input_dataset", "batch_size", "padded_shapes"];
    r.add(ds("PaddedBatchDatasetV2", padded, tr::padded_batch_dataset).variadic());
    r.add(ds("UnbatchDataset", &["input_dataset"], tr::unbatch_dataset));
    let window = &["input_dataset", "size", "shift", "stride", "drop_remainder"];
    r.add(ds("WindowDataset", window, tr::window_dataset));
    r.add(ds("ExperimentalUnbatchDataset", &["input_dataset"], tr::unbatch_dataset));
    let shuffle = &["input_dataset", "buffer_size", "seed", "seed2"];
    r.add(ds("ShuffleDataset", shuffle, tr::shuffle_dataset));
    let shuffle_repeat = &["input_dataset", "buffer_size", "seed", "seed2", "count"];
    r.add(ds("ShuffleAndRepeatDataset", shuffle_repeat, tr::shuffle_and_repeat_dataset));
    r.add(ds("CacheDataset", &["input_dataset", "filename"], tr::cache_dataset));
    r.add(ds("PrefetchDataset", &["input_dataset", "buffer_size"], p::prefetch_dataset));
    r.add(ds("IgnoreErrorsDataset", &["input_dataset"], tr::ignore_errors_dataset));
    r.add(ds("ExperimentalIgnoreErrorsDataset", &["input_dataset"], tr::ignore_errors_dataset));
    // Function ops: `other_arguments` (the captures, `Targuments` long) follow the
    // input dataset; scalar arguments come after them.
    let with_args = &["input_dataset", "other_arguments"];
    r.add(ds("MapDataset", with_args, tr::map_dataset).variadic_or_empty());
    r.add(ds("ParallelMapDataset", with_args, p::parallel_map_dataset).variadic_or_empty());
    r.add(ds("ParallelMapDatasetV2", with_args, p::parallel_map_dataset).variadic_or_empty());
    r.add(ds("MapAndBatchDataset", with_args, p::map_and_batch_dataset).variadic_or_empty());
    r.add(ds("ExperimentalMapAndBatchDataset", with_args, p::map_and_batch_dataset).variadic_or_empty());
    r.add(ds("FilterDataset", with_args, tr::filter_dataset).variadic_or_empty());
    r.add(ds("FlatMapDataset", with_args, tr::flat_map_dataset).variadic_or_empty());
    r.add(ds("InterleaveDataset", with_args, tr::interleave_dataset).variadic_or_empty());
    r.add(ds("ParallelInterleaveDatasetV2", with_args, tr::interleave_dataset).variadic_or_empty());
    r.add(ds("ParallelInterleaveDataset", with_args, tr::interleave_dataset).variadic_or_empty());
    r.add(ds("ExperimentalParallelInterleaveDataset", with_args, tr::interleave_dataset).variadic_or_empty());
    let files = &["filenames", "compression_type", "buffer_size"];
    r.add(ds("TFRecordDataset", files, rd::tf_record_dataset));
    r.add(ds("TextLineDataset", files, rd::text_line_dataset));
    let fixed = &["filenames", "header_bytes", "record_bytes", "footer_bytes", "buffer_size"];
    r.add(ds("FixedLengthRecordDataset", fixed, rd::fixed_length_record_dataset));
    let fixed2 = &["filenames", "header_bytes", "record_bytes", "footer_bytes", "buffer_size", "compression_type"];
    r.add(ds("FixedLengthRecordDatasetV2", fixed2, rd::fixed_length_record_dataset));

    let handle = |name, inputs, kernel| OpDef::new(name, inputs, infer_handle, kernel).stateful();
    r.add(handle("IteratorV2", &[], it::iterator_kernel));
    r.add(handle("Iterator", &[], it::iterator_kernel));
    r.add(handle("OneShotIterator", &[], it::one_shot_iterator_kernel));
    r.add(handle("IteratorFromStringHandleV2", &["string_handle"], it::from_string_handle_kernel));
    r.add(handle("IteratorFromStringHandle", &["string_handle"], it::from_string_handle_kernel));
    let make = OpDef::new("MakeIterator", &["dataset", "iterator"], infer_make_iterator, it::make_iterator_kernel);
    r.add(make.stateful());
    r.add(OpDef::new("IteratorGetNext", &["iterator"], infer_get_next, it::get_next_kernel).stateful());
    r.add(OpDef::new("IteratorGetNextSync", &["iterator"], infer_get_next, it::get_next_kernel).stateful());
    let to_handle =
        OpDef::new("IteratorToStringHandle", &["resource_handle"], infer_to_handle, it::to_string_handle_kernel);
    r.add(to_handle.stateful());
    let save = OpDef::new("SerializeIterator", &["resource_handle"], infer_to_handle, it::serialize_iterator_kernel);
    r.add(save.stateful());
    let restore = OpDef::new(
        "DeserializeIterator",
        &["resource_handle", "serialized"],
        infer_deserialize,
        it::deserialize_iterator_kernel,
    );
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
