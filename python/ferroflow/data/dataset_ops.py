"""`tf.data.Dataset` (TF 1.x's `DatasetV1`, graph mode).

A `Dataset` is a `variant` tensor made by one of TF's dataset ops
(`TensorSliceDataset`, `MapDataset`, ...) plus the static structure of its elements.
Building one reads nothing: its op, run by an iterator's initializer, makes the
dataset's Rust description, and the iterator pulls elements through the native
pipeline without the GIL. Functions (`map`, `filter`, `flat_map`, `interleave`) are
traced once into sub-graphs of the same graph, as `while_loop` bodies are: one
placeholder per component of the argument, outside tensors captured as inputs of
the dataset op.
"""

from __future__ import annotations

import threading

import numpy as np

from .._compat import zip_strict
from ..framework import dtypes, ops, random_seed, tensor_shape, tensor_util
from ..framework.sparse_tensor import SparseTensor
from ..ops import array_ops, io_ops, logging_ops, math_ops, script_ops, string_ops
from ..ops.control_flow_ops import WhileContext
from ..platform import tf_logging
from . import _structure as structure

AUTOTUNE = -1
"""`tf.data.experimental.AUTOTUNE`: let the runtime choose a parallelism or buffer size."""


class _FunctionContext(WhileContext):
    """The context a `tf.data` function is traced in: a loop body's capture rules."""


def _unpack_args(args) -> bool:
    """TF's `_should_unpack_args`: a plain tuple is passed as positional arguments."""
    return type(args) is tuple


class _TracedFunction:
    """A function traced on the element structure `input_structure`.

    `outputs` are the flat result tensors (for a function returning a dataset, its
    variant tensor), `captures` the outside tensors it uses, `result` the result as
    the function returned it (normalized: lists become tuples of tensors).
    """

    def __init__(self, func, input_structure, name, returns_dataset=False):
        g = ops.get_default_graph()
        context = _FunctionContext(g)
        context.Enter()
        try:
            with ops.name_scope(name):
                flat = structure.component_specs(input_structure)
                self.placeholders = [
                    array_ops.placeholder(s.dtype, s.shape, name=f"args_{i}")
                    for i, s in enumerate(flat)
                ]
                args = structure.pack_components(
                    input_structure, self.placeholders, DatasetV1.from_tensor_slices
                )
                ret = func(*args) if _unpack_args(args) else func(args)
                if returns_dataset:
                    if not isinstance(ret, DatasetV1):
                        raise TypeError("`map_func` must return a `Dataset` object.")
                    self.result = ret
                    self.outputs = [context.AddValue(ret._variant_tensor)]
                else:
                    if isinstance(ret, list):
                        tf_logging.warning(
                            "The structure of the function's result was a list; it is "
                            "converted to a tuple, as TF does."
                        )
                        ret = tuple(ret)
                    ret = structure.normalize_element(ret)
                    self.result = ret
                    self.outputs = [context.AddValue(t) for t in structure.component_tensors(ret)]
        finally:
            context.Exit()
        self.captures = list(context._captures.values())
        self.external_controls = list(context._external_controls)

    def attrs(self, key: str, types_attr: str = "Targuments") -> dict:
        """The attrs naming the sub-graph for the op's function attr `key`.

        `types_attr` lists the captures' dtypes (TF's `Targuments`).
        """
        return {
            f"_{key}_feeds": [t.name for t in self.placeholders + self.captures],
            f"_{key}_outputs": [t.name for t in self.outputs],
            types_attr: [t.dtype.base_dtype for t in self.captures],
        }

    @property
    def output_structure(self):
        """The specs of the function's result."""
        return structure.spec_of(self.result)


def _int64(value, name):
    return ops.convert_to_tensor(value, dtype=dtypes.int64, name=name)


def _seeds(seed):
    """TF's `data/util/random_seed.get_seed`: `seed, seed2` as int64 tensors."""
    seed, seed2 = random_seed.get_seed(seed)
    if seed2 is not None and (seed or 0) == 0 and seed2 == 0:
        seed2 = 2**31 - 1
    return _int64(seed or 0, "seed"), _int64(seed2 or 0, "seed2")


def _most_specific_compatible_shape(a, b):
    a, b = tensor_shape.as_shape(a), tensor_shape.as_shape(b)
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return tensor_shape.TensorShape(None)
    return tensor_shape.TensorShape(
        [x if x == y else None for x, y in zip_strict(a.as_list(), b.as_list())]
    )


class Options:
    """`tf.data.Options`: accepted and kept with the dataset.

    ferroflow's pipeline is deterministic and runs its stages natively; these
    options (threading, optimizations, `experimental_deterministic`) do not change
    what it computes.
    """

    def __init__(self):
        self.experimental_deterministic = None
        self.experimental_optimization = _OptionGroup()
        self.experimental_threading = _OptionGroup()
        self.experimental_stats = _OptionGroup()
        self.experimental_distribute = _OptionGroup()
        self.experimental_slack = None
        self.experimental_external_state_policy = None

    def merge(self, options):
        """The options set in `self` or `options` (`options` wins)."""
        merged = Options()
        for o in (self, options):
            for k, v in vars(o).items():
                if v is not None and not isinstance(v, _OptionGroup):
                    setattr(merged, k, v)
        return merged


class _OptionGroup:
    """A group of options (`experimental_optimization`, ...); any attribute is accepted."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None


class DatasetV1(structure.Structured):
    """A dataset: a sequence of elements, each a nested structure of tensors.

    ```python
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    ds = ds.shuffle(1000).batch(32).repeat()
    images_batch, labels_batch = ds.make_one_shot_iterator().get_next()
    ```
    """

    def __init__(self, variant_tensor, element_structure, options=None):
        self._variant_tensor = variant_tensor
        self._structure = element_structure
        self._options = options or Options()

    # ---- structure ----

    def _flat_attrs(self):
        return structure.flat_attrs(self._structure)

    def _derive(self, op_type, inputs, element_structure=None, attrs=None, name=None, controls=()):
        """A dataset made by `op_type` over `inputs` (this dataset's structure by default)."""
        element_structure = self._structure if element_structure is None else element_structure
        return _make(op_type, inputs, element_structure, attrs, name, self._options, controls)

    def __iter__(self):
        raise RuntimeError("dataset.__iter__() is only supported when eager execution is enabled.")

    def __repr__(self):
        return f"<{type(self).__name__} shapes: {self.output_shapes}, types: {self.output_types}>"

    # ---- iterators ----

    def _check_iterable(self):
        if structure.has_windows(self._structure):
            raise TypeError(
                "The elements of a `window` dataset are datasets: use them in `flat_map` "
                "or `interleave` (e.g. `ds.window(n).flat_map(lambda w: w.batch(n))`)."
            )

    def make_one_shot_iterator(self):
        """An iterator over this dataset that needs no initializer.

        It starts on its first `get_next`. The dataset may not capture tensors that
        must be fed (placeholders); use `make_initializable_iterator` for those.
        """
        from .iterator_ops import Iterator

        self._check_iterable()
        # TF draws an op seed here (for its dataset factory): later random ops of a
        # seeded graph get the seeds they get in TF.
        random_seed.get_seed(None)
        attrs = {"_dataset": self._variant_tensor.name, **self._flat_attrs()}
        attrs.update(container="", shared_name="")
        op = ops.get_default_graph()._create_op(
            "OneShotIterator", [], attrs, name="OneShotIterator"
        )
        return Iterator(op.outputs[0], None, self._structure)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator whose `initializer` (re)starts it from this dataset's beginning."""
        from .iterator_ops import Iterator

        self._check_iterable()
        g = ops.get_default_graph()
        attrs = {"container": "", "shared_name": shared_name or "", **self._flat_attrs()}
        resource = g._create_op("IteratorV2", [], attrs, name="IteratorV2").outputs[0]
        init = g._create_op(
            "MakeIterator", [self._variant_tensor, resource], {}, name="MakeIterator"
        )
        return Iterator(resource, init, self._structure)

    # ---- sources ----

    @staticmethod
    def from_tensors(tensors):
        """A dataset of one element, `tensors`."""
        with ops.name_scope(None, "TensorDataset", []):
            element = structure.normalize_element(tensors)
            flat = structure.component_tensors(element)
            return _make(
                "TensorDataset",
                flat,
                structure.spec_of(element),
                {"Toutput_types": [t.dtype for t in flat]},
            )

    @staticmethod
    def from_tensor_slices(tensors):
        """A dataset of the slices of `tensors` along their first dimension."""
        element = structure.normalize_element(tensors)
        if any(isinstance(t, SparseTensor) for t in structure.flatten(element)):
            return _sparse_slices(element)
        with ops.name_scope(None, "TensorSliceDataset", []):
            flat = structure.flatten(element)
            _leading_dim(
                [t.shape for t in flat],
                "Unbatching a tensor is only supported for rank >= 1",
                lambda a, b: f"Dimensions {a} and {b} are not compatible",
            )
            specs = structure.map_structure(
                lambda t: structure._Spec(t.dtype, t.shape[1:]), element
            )
            return _make(
                "TensorSliceDataset", flat, specs, {"Toutput_types": [t.dtype for t in flat]}
            )

    @staticmethod
    def range(*args):
        """`range(stop)`, `range(start, stop)` or `range(start, stop, step)` as int64 scalars."""
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            start, stop, step = args[0], args[1], 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError(f"Invalid arguments to RangeDataset: {args}")
        with ops.name_scope(None, "RangeDataset", []):
            inputs = [_int64(start, "start"), _int64(stop, "stop"), _int64(step, "step")]
            return _make("RangeDataset", inputs, structure._Spec(dtypes.int64, []))

    @staticmethod
    def zip(datasets):
        """A dataset of tuples (or the nesting of `datasets`) of their elements, in step."""
        flat = structure.flatten(datasets)
        for d in flat:
            if not isinstance(d, DatasetV1):
                raise TypeError(
                    "The argument to `Dataset.zip()` must be a (nested) structure of "
                    f"`Dataset` objects, got {d!r}."
                )
        specs = structure.map_structure(lambda d: d._structure, datasets)
        with ops.name_scope(None, "ZipDataset", []):
            return _make("ZipDataset", [d._variant_tensor for d in flat], specs, {"N": len(flat)})

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        """A dataset of the values `generator()` yields (called again for each iterator).

        The generator runs on the pipeline's thread, holding the GIL only while it is
        called; its values are converted to `output_types` and checked against
        `output_shapes`.
        """
        return _from_generator(generator, output_types, output_shapes, args)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        """A dataset of the file names matching `file_pattern` (a glob or a list of them).

        Shuffled (with `seed`) unless `shuffle=False`; an empty match is an
        `InvalidArgumentError` when the dataset is made.
        """
        with ops.name_scope("list_files"):
            if shuffle is None:
                shuffle = True
            pattern = ops.convert_to_tensor(file_pattern, dtype=dtypes.string, name="file_pattern")
            matching = io_ops.matching_files(pattern)
            condition = math_ops.greater(array_ops.shape(matching)[0], 0, name="match_not_empty")
            message = string_ops.string_join(
                ["No files matched pattern: ", _join(pattern)], name="message"
            )
            assert_not_empty = logging_ops.Assert(
                condition, [message], summarize=1, name="assert_not_empty"
            )
            with ops.control_dependencies([assert_not_empty]):
                matching = array_ops.identity(matching)
            dataset = DatasetV1.from_tensor_slices(matching)
            if shuffle:
                buffer_size = math_ops.maximum(
                    array_ops.cast(array_ops.shape(matching)[0], dtypes.int64), 1
                )
                dataset = dataset.shuffle(buffer_size, seed=seed)
            return dataset

    # ---- transformations ----

    def apply(self, transformation_func):
        """`transformation_func(self)`, which must return a dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV1):
            raise TypeError("`transformation_func` must return a Dataset.")
        return dataset

    def with_options(self, options):
        """The same dataset with `options` merged into its options."""
        return DatasetV1(self._variant_tensor, self._structure, self._options.merge(options))

    def options(self):
        """The options of this dataset and its inputs."""
        return self._options

    def concatenate(self, dataset):
        """The elements of this dataset, then `dataset`'s (same types and nesting)."""
        if self.output_types != dataset.output_types:
            raise TypeError(
                f"Two datasets to concatenate have different types {self.output_types} and "
                f"{dataset.output_types}"
            )
        structure.assert_same_structure(self._structure, dataset._structure)
        specs = structure.map_structure(
            lambda a, b: structure._Spec(
                a.dtype, _most_specific_compatible_shape(a.shape, b.shape)
            ),
            self._structure,
            dataset._structure,
        )
        with ops.name_scope(None, "ConcatenateDataset", []):
            return self._derive(
                "ConcatenateDataset", [self._variant_tensor, dataset._variant_tensor], specs
            )

    def repeat(self, count=None):
        """The elements repeated `count` times (forever for `None` or `-1`)."""
        with ops.name_scope(None, "RepeatDataset", []):
            count = _int64(-1 if count is None else count, "count")
            return self._derive("RepeatDataset", [self._variant_tensor, count])

    def take(self, count):
        """At most `count` elements (all of them for `-1`)."""
        with ops.name_scope(None, "TakeDataset", []):
            return self._derive("TakeDataset", [self._variant_tensor, _int64(count, "count")])

    def skip(self, count):
        """All but the first `count` elements (none for `-1`)."""
        with ops.name_scope(None, "SkipDataset", []):
            return self._derive("SkipDataset", [self._variant_tensor, _int64(count, "count")])

    def shard(self, num_shards, index):
        """Every `num_shards`-th element, starting at `index`."""
        with ops.name_scope(None, "ShardDataset", []):
            inputs = [
                self._variant_tensor,
                _int64(num_shards, "num_shards"),
                _int64(index, "index"),
            ]
            return self._derive("ShardDataset", inputs, attrs={"require_non_empty": False})

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        """The elements in an order drawn through a buffer of `buffer_size` (TF's order)."""
        if reshuffle_each_iteration is None:
            reshuffle_each_iteration = True
        with ops.name_scope(None, "ShuffleDataset", []):
            seed_t, seed2_t = _seeds(seed)
            inputs = [self._variant_tensor, _int64(buffer_size, "buffer_size"), seed_t, seed2_t]
            attrs = {"reshuffle_each_iteration": bool(reshuffle_each_iteration)}
            return self._derive("ShuffleDataset", inputs, attrs=attrs)

    def cache(self, filename=""):
        """The elements, kept after the first pass: in memory, or in `filename`."""
        with ops.name_scope(None, "CacheDataset", []):
            filename = ops.convert_to_tensor(filename, dtype=dtypes.string, name="filename")
            return self._derive("CacheDataset", [self._variant_tensor, filename])

    def prefetch(self, buffer_size):
        """The elements, produced up to `buffer_size` ahead on a thread of their own."""
        with ops.name_scope(None, "PrefetchDataset", []):
            inputs = [self._variant_tensor, _int64(buffer_size, "buffer_size")]
            return self._derive("PrefetchDataset", inputs)

    def batch(self, batch_size, drop_remainder=False):
        """Consecutive elements stacked in batches of `batch_size` (the last may be short)."""
        _no_windows(self._structure, "`batch()`")
        with ops.name_scope(None, "BatchDataset", []):
            size = _int64(batch_size, "batch_size")
            drop = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
            specs = _batched(self._structure, _static_batch_dim(size, drop))
            return self._derive(
                "BatchDatasetV2",
                [self._variant_tensor, size, drop],
                specs,
                attrs={
                    "parallel_copy": False,
                    "_sparse": structure.sparse_positions(self._structure),
                },
            )

    def padded_batch(
        self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False
    ):
        """Batches of elements padded to `padded_shapes` (`None`/`-1`: the batch's largest)."""
        if structure.sparse_positions(self._structure):
            raise TypeError("Batching of padded sparse tensors is not currently supported")
        _no_windows(self._structure, "`padded_batch()`")
        with ops.name_scope(None, "PaddedBatchDataset", []):
            if padded_shapes is None:
                padded_shapes = structure.map_structure(
                    lambda s: _unknown_dims_of(s.shape), self._structure
                )
            flat_specs = structure.flatten(self._structure)
            flat_padded = structure.flatten_up_to(self._structure, padded_shapes)
            shape_tensors, static_padded = [], []
            for spec, padded in zip_strict(flat_specs, flat_padded):
                t, static = _padded_shape_tensor(padded)
                if not _padded_shape_compatible(static, spec.shape):
                    raise ValueError(
                        f"The padded shape {_tuple_str(static)} is not compatible with the shape "
                        f"{_tuple_str(spec.shape)} of the corresponding input component."
                    )
                shape_tensors.append(t)
                static_padded.append(static)
            if padding_values is None:
                flat_values = [
                    b"" if s.dtype == dtypes.string else np.zeros([], s.dtype.as_numpy_dtype)
                    for s in flat_specs
                ]
            else:
                flat_values = _flatten_values_up_to(self._structure, padding_values)
            value_tensors = [
                ops.convert_to_tensor(v, dtype=s.dtype, name="padding_value")
                for v, s in zip_strict(flat_values, flat_specs)
            ]
            for v in value_tensors:
                if v.shape.ndims not in (None, 0):
                    raise ValueError(f"Padding value should be a scalar, but is not: {v}")
            size = _int64(batch_size, "batch_size")
            drop = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
            dim = _static_batch_dim(size, drop)
            specs = structure.pack_as(
                self._structure,
                [
                    structure._Spec(s.dtype, tensor_shape.TensorShape([dim]).concatenate(p))
                    for s, p in zip_strict(flat_specs, static_padded)
                ],
            )
            inputs = [self._variant_tensor, size, *shape_tensors, *value_tensors, drop]
            attrs = {
                "Toutput_types": [s.dtype for s in flat_specs],
                "N": len(flat_specs),
                "parallel_copy": False,
            }
            return self._derive("PaddedBatchDatasetV2", inputs, specs, attrs=attrs)

    def window(self, size, shift=None, stride=1, drop_remainder=False):
        """Windows of `size` elements, `stride` apart, each `shift` after the last's start.

        Each element is the window: a structure of datasets (one per component), as
        TF's. Use them in `flat_map` or `interleave`, for example
        `ds.window(3, shift=1).flat_map(lambda w: w.batch(3))`. ferroflow stacks a
        window's elements, so they must have one shape per component.
        """
        for s in structure.flatten(self._structure):
            if isinstance(s, (structure._SparseSpec, structure._WindowSpec)):
                raise TypeError("`window()` of sparse or window components is not supported.")
        with ops.name_scope(None, "WindowDataset", []):
            size_t = _int64(size, "size")
            inputs = [
                self._variant_tensor,
                size_t,
                _int64(size if shift is None else shift, "shift"),
                _int64(stride, "stride"),
                ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder"),
            ]
            specs = structure.map_structure(
                lambda s: structure._WindowSpec(s.dtype, s.shape), self._structure
            )
            return self._derive("WindowDataset", inputs, specs)

    def unbatch(self):
        """Each element split along its first dimension into elements."""
        _no_sparse(self._structure, "`unbatch()`")
        _no_windows(self._structure, "`unbatch()`")
        _leading_dim(
            [spec.shape for spec in structure.flatten(self._structure)],
            "Cannot unbatch an input with scalar components.",
            lambda a, b: (
                "`unbatch()` is only supported for datasets of elements whose components "
                f"have a matching leading dimension. Encountered both {a} and {b}."
            ),
        )
        specs = structure.map_structure(
            lambda s: structure._Spec(s.dtype, s.shape[1:]), self._structure
        )
        with ops.name_scope(None, "UnbatchDataset", []):
            return self._derive("UnbatchDataset", [self._variant_tensor], specs)

    def map(self, map_func, num_parallel_calls=None):
        """`map_func` applied to every element (`num_parallel_calls` at once, in order)."""
        with ops.name_scope(None, "MapDataset", []) as scope:
            fn = _TracedFunction(map_func, self._structure, "f")
            inputs = [self._variant_tensor, *fn.captures]
            attrs = {
                **fn.attrs("f"),
                "use_inter_op_parallelism": True,
                "preserve_cardinality": False,
            }
            op_type = "MapDataset"
            if num_parallel_calls is not None:
                op_type = "ParallelMapDataset"
                inputs.append(
                    ops.convert_to_tensor(
                        num_parallel_calls, dtype=dtypes.int32, name="num_parallel_calls"
                    )
                )
                attrs["sloppy"] = False
            return self._derive(
                op_type, inputs, fn.output_structure, attrs, scope, fn.external_controls
            )

    def filter(self, predicate):
        """The elements for which `predicate` returns true (a scalar `tf.bool`)."""
        with ops.name_scope(None, "FilterDataset", []) as scope:
            fn = _TracedFunction(predicate, self._structure, "predicate")
            out = fn.outputs
            if len(out) != 1 or out[0].dtype != dtypes.bool or out[0].shape.ndims not in (None, 0):
                spec = (
                    f"TensorSpec(shape={_tuple_str(out[0].shape)}, "
                    f"dtype=tf.{out[0].dtype.name}, name=None)"
                    if len(out) == 1
                    else str(fn.output_structure)
                )
                raise ValueError(
                    "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                    f"but its return type is {spec}."
                )
            attrs = {
                **fn.attrs("predicate"),
            }
            return self._derive(
                "FilterDataset",
                [self._variant_tensor, *fn.captures],
                None,
                attrs,
                scope,
                fn.external_controls,
            )

    def flat_map(self, map_func):
        """The elements of the datasets `map_func` returns for each element, in turn."""
        with ops.name_scope(None, "FlatMapDataset", []) as scope:
            fn = _TracedFunction(map_func, self._structure, "f", returns_dataset=True)
            attrs = fn.attrs("f")
            return self._derive(
                "FlatMapDataset",
                [self._variant_tensor, *fn.captures],
                fn.result._structure,
                attrs,
                scope,
                fn.external_controls,
            )

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1, num_parallel_calls=None):
        """The elements of `map_func`'s datasets, `cycle_length` open at once.

        `block_length` elements are taken from each in turn (TF's order, also with
        `num_parallel_calls`, which reads the open datasets ahead on threads).
        """
        with ops.name_scope(None, "InterleaveDataset", []) as scope:
            fn = _TracedFunction(map_func, self._structure, "f", returns_dataset=True)
            inputs = [
                self._variant_tensor,
                *fn.captures,
                _int64(cycle_length, "cycle_length"),
                _int64(block_length, "block_length"),
            ]
            attrs = fn.attrs("f")
            op_type = "InterleaveDataset"
            if num_parallel_calls is not None:
                op_type = "ParallelInterleaveDatasetV2"
                inputs.append(_int64(num_parallel_calls, "num_parallel_calls"))
                attrs["sloppy"] = False
            return self._derive(
                op_type, inputs, fn.result._structure, attrs, scope, fn.external_controls
            )

    def filter_with_legacy_function(self, predicate):
        """`filter` (TF keeps this name for functions traced the TF-1 way)."""
        return self.filter(predicate)

    def map_with_legacy_function(self, map_func, num_parallel_calls=None):
        """`map` (TF keeps this name for functions traced the TF-1 way)."""
        return self.map(map_func, num_parallel_calls)


Dataset = DatasetV1


def _make(op_type, inputs, element_structure, attrs=None, name=None, options=None, controls=()):
    """The dataset `op_type` makes from `inputs`, with the element structure given."""
    g = ops.get_default_graph()
    all_attrs = {**structure.flat_attrs(element_structure), **(attrs or {})}
    with ops.control_dependencies(list(controls)):
        op = g._create_op(op_type, list(inputs), all_attrs, name=name or op_type)
    return DatasetV1(op.outputs[0], element_structure, options)


def _leading_dim(shapes, scalar_message, mismatch_message):
    """The first dimension the static `shapes` share.

    Raises:
        ValueError: `scalar_message` for a scalar shape, `mismatch_message(a, b)` for
            two known first dimensions that differ.
    """
    dim = tensor_shape.Dimension(None)
    for shape in shapes:
        if shape.ndims == 0:
            raise ValueError(scalar_message)
        if shape.ndims is not None:
            d = tensor_shape.Dimension(shape.dims[0])
            if not dim.is_compatible_with(d):
                raise ValueError(mismatch_message(dim.value, d.value))
            dim = dim.merge_with(d)
    return dim


def _batched(specs, dim):
    """`specs` with a leading batch dimension `dim` (an int or None)."""
    return structure.map_structure(
        lambda s: (
            s.batched(dim)
            if isinstance(s, structure._SparseSpec)
            else structure._Spec(s.dtype, tensor_shape.TensorShape([dim]).concatenate(s.shape))
        ),
        specs,
    )


def _no_sparse(specs, what):
    if structure.sparse_positions(specs):
        raise TypeError(f"{what} of `SparseTensor` components is not supported yet.")


def _no_windows(specs, what):
    if structure.has_windows(specs):
        raise TypeError(f"{what} of a `window` dataset's elements is not supported.")


def _sparse_slices(element):
    """`from_tensor_slices` of an element with sparse tensors: row `i` of each.

    A sparse tensor's row is the entries whose first index is `i`, without it.
    """
    flat = structure.flatten(element)
    first = flat[0]
    rows = (
        first.dense_shape[0]
        if isinstance(first, SparseTensor)
        else array_ops.shape(first, out_type=dtypes.int64)[0]
    )
    specs = structure.map_structure(
        lambda t: (
            structure._SparseSpec(t.dtype, t.get_shape()[1:])
            if isinstance(t, SparseTensor)
            else structure._Spec(t.dtype, t.shape[1:])
        ),
        element,
    )

    def row(i):
        out = []
        for t in flat:
            if isinstance(t, SparseTensor):
                mask = math_ops.equal(t.indices[:, 0], i)
                out.append(
                    SparseTensor(
                        array_ops.boolean_mask(t.indices[:, 1:], mask),
                        array_ops.boolean_mask(t.values, mask),
                        t.dense_shape[1:],
                    )
                )
            else:
                out.append(array_ops.gather(t, i))
        return structure.pack_as(element, out)

    dataset = DatasetV1.range(rows).map(row)
    return DatasetV1(dataset._variant_tensor, specs, dataset._options)


def _static_batch_dim(size, drop):
    keep = tensor_util.constant_value(drop)
    n = tensor_util.constant_value(size)
    return int(n) if keep is not None and bool(keep) and n is not None else None


def _unknown_dims_of(shape):
    shape = tensor_shape.as_shape(shape)
    if shape.ndims is None:
        raise ValueError(
            "You must provide `padded_shapes` argument because component has unknown rank."
        )
    return tensor_shape.TensorShape([None] * shape.ndims)


def _padded_shape_compatible(padded, shape) -> bool:
    """TF's `_is_padded_shape_compatible_with`: no known padded dim below a known one."""
    if padded.ndims is None or shape.ndims is None:
        return True
    if padded.ndims != shape.ndims:
        return False
    return all(
        p is None or d is None or p >= d for p, d in zip_strict(padded.as_list(), shape.as_list())
    )


def _tuple_str(shape):
    shape = tensor_shape.as_shape(shape)
    if shape.ndims is None:
        return "<unknown>"
    return str(tuple(shape.as_list()))


def _flatten_values_up_to(specs, values):
    """One padding value per component: `values` nested as `specs`, or one for all."""
    if structure.is_nested(specs) and not structure.is_nested(values):
        return [values] * len(structure.flatten(specs))
    return structure.flatten_up_to(specs, values)


def _padded_shape_tensor(padded):
    """`padded` (a shape or an int64 vector tensor) as a tensor and a static shape."""
    if isinstance(padded, ops.Tensor):
        t = array_ops.cast(padded, dtypes.int64) if padded.dtype != dtypes.int64 else padded
        static = tensor_util.constant_value_as_shape(t)
        return t, static
    if isinstance(padded, (list, tuple, np.ndarray)):
        padded = [None if d is None or int(d) == -1 else int(d) for d in padded]
    static = tensor_shape.as_shape(padded)
    if static.ndims is None:
        raise ValueError("Padded shape must have a known rank.")
    dims = [-1 if d is None else d for d in static.as_list()]
    t = ops.convert_to_tensor(np.array(dims, dtype=np.int64), name="padded_shape")
    return t, tensor_shape.TensorShape([None if d == -1 else d for d in dims])


def _join(pattern):
    flat = array_ops.reshape(pattern, [-1])
    return string_ops.reduce_join(flat, separator=", ")


# ---- from_generator ----


class _GeneratorState:
    """The running generators of one `from_generator` dataset, by iterator id."""

    def __init__(self, generator):
        self._generator = generator
        self._lock = threading.Lock()
        self._next_id = 0
        self._iterators: dict = {}

    def start(self, *args):
        with self._lock:
            iterator_id = self._next_id
            self._next_id += 1
        self._iterators[iterator_id] = iter(self._generator(*args))
        return np.array(iterator_id, dtype=np.int64)

    def next(self, iterator_id):
        return next(self._iterators[int(iterator_id)])

    def finish(self, iterator_id):
        self._iterators.pop(int(iterator_id), None)
        return np.array(0, dtype=np.int64)


def _from_generator(generator, output_types, output_shapes, args):
    if not callable(generator):
        raise TypeError("`generator` must be callable.")
    specs = structure.from_types_and_shapes(
        structure.map_structure(dtypes.as_dtype, output_types), output_shapes
    )
    flat_specs = structure.flatten(specs)
    state = _GeneratorState(generator)
    arg_tensors = [] if args is None else [ops.convert_to_tensor(a) for a in args]

    def convert(values):
        try:
            structure.assert_same_structure(specs, values)
        except ValueError as e:
            raise TypeError(
                "`generator` yielded an element that did not match the expected structure. "
                f"The expected structure was {output_types}, but the yielded element was "
                f"{values}."
            ) from e
        out = []
        for spec, value in zip_strict(flat_specs, structure.flatten(values)):
            try:
                array = np.asarray(value, dtype=spec.dtype.as_numpy_dtype)
            except (ValueError, TypeError) as e:
                raise TypeError(
                    f"`generator` yielded an element that could not be converted to the "
                    f"expected type. The expected type was {spec.dtype.name}, but the yielded "
                    f"element was {value}."
                ) from e
            if not spec.shape.is_compatible_with(array.shape):
                raise ValueError(
                    "`generator` yielded an element of shape "
                    f"{_tuple_str(tensor_shape.TensorShape(array.shape))} where an element of "
                    f"shape {_tuple_str(spec.shape)} was expected."
                )
            out.append(array)
        return out

    def next_values(iterator_id):
        return convert(state.next(iterator_id))

    with ops.name_scope(None, "GeneratorDataset", []) as scope:
        init = _TracedFunction(
            lambda: script_ops.py_func(state.start, arg_tensors, dtypes.int64, stateful=True),
            (),
            "init_func",
        )
        spec_id = structure._Spec(dtypes.int64, [])

        def next_fn(iterator_id):
            values = script_ops.py_func(
                next_values, [iterator_id], [s.dtype for s in flat_specs], stateful=True
            )
            for v, s in zip_strict(values, flat_specs):
                v.set_shape(s.shape)
            return tuple(values)

        nxt = _TracedFunction(next_fn, spec_id, "next_func")
        fin = _TracedFunction(
            lambda i: script_ops.py_func(state.finish, [i], dtypes.int64, stateful=True),
            spec_id,
            "finalize_func",
        )
        attrs = {
            **init.attrs("init_func", "Tinit_func_args"),
            **nxt.attrs("next_func", "Tnext_func_args"),
            **fin.attrs("finalize_func", "Tfinalize_func_args"),
        }
        inputs = [*init.captures, *nxt.captures, *fin.captures]
        controls = init.external_controls + nxt.external_controls + fin.external_controls
        dataset = _make("GeneratorDataset", inputs, specs, attrs, scope, None, controls)
    # The state lives as long as the graph's ops that call it.
    dataset._generator_state = state
    return dataset
