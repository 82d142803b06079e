"""`tf.variable_scope` and `tf.get_variable`: TF-1.x variable sharing by name.

A port of TF's `variable_scope.py` for graph mode and reference variables. Each
graph holds a variable store (name -> variable, in collection `("__variable_store",)`)
and a variable-scope store (the current `VariableScope` and how often each scope
name was opened, in `("__varscope",)`), as TF keeps them. `get_variable` prefixes
the name with the current variable scope, checks reuse against the store, and
creates a `Variable` whose initial value comes from an initializer called inside
the variable's `Initializer` name scope; ops are named as TF names them.

With a partitioner, `get_variable` makes one variable per part (`<name>/part_<i>`,
each with its `SaveSliceInfo`) and returns a `PartitionedVariable`, as TF's
`_get_partitioned_variable`. Not built: resource variables, eager variable stores. Regularization
losses are the tensors TF builds (TF wraps them in a lazily re-evaluated tensor
that builds the ops again when converted; ferroflow stores the tensor itself).
"""

from __future__ import annotations

import copy
import enum
import functools
import inspect
import threading

from .._compat import zip_strict
from ..framework import dtypes, ops, tensor_shape
from . import array_ops, init_ops, variables

_VARSTORE_KEY = ("__variable_store",)
_VARSCOPESTORE_KEY = ("__varscope",)


class _ReuseMode(enum.Enum):
    """Reuse modes besides True/None."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE
AUTO_REUSE.__doc__ = (
    "When passed in as the value for the `reuse` flag, `AUTO_REUSE` indicates that "
    "get_variable() should create the requested variable if it doesn't exist or, if "
    "it does exist, simply return it."
)


def _needs_no_arguments(python_callable) -> bool:
    """Whether `python_callable` can be called without arguments."""
    try:
        params = inspect.signature(python_callable).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(
        p.default is not inspect.Parameter.empty
        or p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        for p in params
    )


def _accepts(fn, arg: str) -> bool:
    """Whether `fn` takes keyword `arg` (by name or through `**kwargs`)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return arg in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _takes_named(fn, arg: str) -> bool:
    try:
        return arg in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


class _VariableStore:
    """The variables `get_variable` created in one graph, by full name."""

    def __init__(self):
        self._vars: dict = {}
        self._partitioned_vars: dict = {}

    def get_variable(
        self,
        name,
        shape=None,
        dtype=dtypes.float32,
        initializer=None,
        regularizer=None,
        reuse=None,
        trainable=None,
        collections=None,
        caching_device=None,
        partitioner=None,
        validate_shape=True,
        use_resource=None,
        custom_getter=None,
        constraint=None,
        synchronization=None,
        aggregation=None,
    ):
        """Gets or creates variable `name` (a full name), through `custom_getter` if any."""
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        dtype = getattr(dtype, "base_dtype", dtype)

        def _true_getter(
            name,
            shape=None,
            dtype=dtypes.float32,
            initializer=None,
            regularizer=None,
            reuse=None,
            trainable=None,
            collections=None,
            caching_device=None,
            partitioner=None,
            validate_shape=True,
            use_resource=None,
            constraint=None,
            synchronization=None,
            aggregation=None,
        ):
            is_scalar = shape is not None and isinstance(shape, (list, tuple)) and not shape
            if partitioner is not None and not is_scalar:
                if not callable(partitioner):
                    raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
                with ops.name_scope(None):
                    return self._get_partitioned_variable(
                        name=name,
                        shape=shape,
                        dtype=dtype,
                        initializer=initializer,
                        regularizer=regularizer,
                        reuse=reuse,
                        trainable=trainable,
                        collections=collections,
                        partitioner=partitioner,
                        validate_shape=validate_shape,
                        constraint=constraint,
                    )
            # A partitioned variable is reused without its partitioner.
            if reuse is True and partitioner is None and name in self._partitioned_vars:
                return self._get_partitioned_variable(
                    name=name,
                    shape=shape,
                    dtype=dtype,
                    initializer=initializer,
                    regularizer=regularizer,
                    reuse=reuse,
                    trainable=trainable,
                    collections=collections,
                    partitioner=None,
                    validate_shape=validate_shape,
                    constraint=constraint,
                )
            if f"{name}/part_0" in self._vars:
                raise ValueError(
                    "No partitioner was provided, but a partitioned version of the variable "
                    f"was found: {name}/part_0. Perhaps a variable of the same name was "
                    "already created with partitioning?"
                )
            return self._get_single_variable(
                name=name,
                shape=shape,
                dtype=dtype,
                initializer=initializer,
                regularizer=regularizer,
                reuse=reuse,
                trainable=trainable,
                collections=collections,
                validate_shape=validate_shape,
                constraint=constraint,
                use_resource=use_resource,
            )

        if trainable is None:
            trainable = True
        if custom_getter is not None:
            kwargs = {
                "getter": _true_getter,
                "name": name,
                "shape": shape,
                "dtype": dtype,
                "initializer": initializer,
                "regularizer": regularizer,
                "reuse": reuse,
                "trainable": trainable,
                "collections": collections,
                "caching_device": caching_device,
                "partitioner": partitioner,
                "validate_shape": validate_shape,
                "use_resource": use_resource,
                "synchronization": synchronization,
                "aggregation": aggregation,
            }
            if _accepts(custom_getter, "constraint"):
                kwargs["constraint"] = constraint
            return custom_getter(**kwargs)
        return _true_getter(
            name,
            shape=shape,
            dtype=dtype,
            initializer=initializer,
            regularizer=regularizer,
            reuse=reuse,
            trainable=trainable,
            collections=collections,
            caching_device=caching_device,
            partitioner=partitioner,
            validate_shape=validate_shape,
            use_resource=use_resource,
            constraint=constraint,
        )

    def _get_partitioned_variable(
        self,
        name,
        partitioner,
        shape=None,
        dtype=dtypes.float32,
        initializer=None,
        regularizer=None,
        reuse=None,
        trainable=None,
        collections=None,
        validate_shape=True,
        constraint=None,
    ):
        """Gets or creates the `PartitionedVariable` `name`: one variable per part (TF's)."""
        dtype = dtypes.as_dtype(dtype)
        initializing_from_value = initializer is not None and isinstance(initializer, ops.Tensor)
        if name in self._vars:
            raise ValueError(
                "A partitioner was provided, but an unpartitioned version of the variable "
                f"was found: {name}.  Perhaps a variable of the same name was already "
                "created without partitioning?"
            )
        shape = tensor_shape.as_shape(shape)
        if initializing_from_value:
            shape = shape.merge_with(initializer.get_shape())
        partitions = None
        if not reuse or partitioner:
            partitions = _call_partitioner(partitioner, shape, dtype)
        if name in self._partitioned_vars:
            if reuse is False:
                raise ValueError(
                    f"Partitioned variable with name {name} already exists. Did you mean to "
                    "set reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
                )
            existing_var = self._partitioned_vars[name]
            if not shape.is_compatible_with(existing_var.get_shape()):
                raise ValueError(
                    f"Trying to reuse partitioned variable {name}, but specified shape "
                    f"{shape} and found shape {existing_var.get_shape()}."
                )
            if not dtype.is_compatible_with(existing_var.dtype):
                raise ValueError(
                    f"Trying to reuse partitioned variable {name}, but specified dtype "
                    f"{dtype.name} and found dtype {existing_var.dtype.name}."
                )
            if partitions is not None and existing_var._get_partitions() != partitions:
                raise ValueError(
                    f"Trying to reuse partitioned variable {name}, but specified partitions "
                    f"{partitions} and found partitions {existing_var._get_partitions()}."
                )
            return existing_var
        if reuse is True:
            raise ValueError(
                f"PartitionedVariable {name} does not exist, or was not created with "
                "tf.get_variable(). Did you mean to set reuse=False or reuse=tf.AUTO_REUSE "
                "in VarScope?"
            )
        slice_dim, num_slices = _get_slice_dim_and_num_slices(partitions)
        if f"{name}/part_0" in self._vars:
            if f"{name}/part_{num_slices - 1}" not in self._vars:
                raise ValueError(
                    "Partitioner returned a different partitioning than what was already "
                    f"found.  Partitioner returned {num_slices} shards, and shard "
                    f"{name}/part_0 was found, but {name}/part_{num_slices - 1} was not."
                )
            if f"{name}/part_{num_slices}" in self._vars:
                raise ValueError(
                    "Partitioner returned a different partitioning than what was already "
                    f"found.  Partitioner returned {num_slices} shards, and shard "
                    f"{name}/part_0 was found, but so was the extra shard "
                    f"{name}/part_{num_slices}."
                )
        vs = []
        for i, (var_offset, var_shape) in enumerate(
            _iter_slices(shape.as_list(), num_slices, slice_dim)
        ):
            partition_info = _PartitionInfo(full_shape=shape.as_list(), var_offset=var_offset)
            var_full_name = f"{name}/part_{i}"
            with ops.name_scope(var_full_name + "/PartitionedInitializer"):
                if initializer is None:
                    init, initializing_from_value = _default_initializer(name, dtype)
                    init_shape = None if initializing_from_value else var_shape
                elif callable(initializer):
                    init = initializer
                    init_shape = var_shape
                elif isinstance(initializer, ops.Tensor):
                    init = array_ops.slice(initializer, var_offset, var_shape)
                    dtype = init.dtype.base_dtype
                    init_shape = None
                else:
                    init = ops.convert_to_tensor(initializer, dtype=dtype)
                    init = array_ops.slice(init, var_offset, var_shape)
                    init_shape = None
            with ops.name_scope(None):
                var = self._get_single_variable(
                    name=var_full_name,
                    shape=init_shape,
                    dtype=dtype,
                    initializer=init,
                    partition_info=partition_info,
                    regularizer=regularizer,
                    reuse=reuse,
                    trainable=trainable,
                    collections=collections,
                    validate_shape=validate_shape,
                    constraint=constraint,
                )
            var._set_save_slice_info(
                variables.Variable.SaveSliceInfo(name, shape.as_list(), var_offset, var_shape)
            )
            vs.append(var)
        partitioned_var = variables.PartitionedVariable(
            name=name, shape=shape, dtype=dtype, variable_list=vs, partitions=partitions
        )
        self._partitioned_vars[name] = partitioned_var
        return partitioned_var

    def _get_single_variable(
        self,
        name,
        shape=None,
        dtype=dtypes.float32,
        initializer=None,
        regularizer=None,
        partition_info=None,
        reuse=None,
        trainable=None,
        collections=None,
        validate_shape=True,
        constraint=None,
        use_resource=None,
    ):
        initializing_from_value = initializer is not None and not callable(initializer)
        if shape is not None and initializing_from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        if shape is not None:
            shape = tensor_shape.as_shape(shape)
        if name in self._vars:
            if reuse is False:
                raise ValueError(
                    f"Variable {name} already exists, disallowed. Did you mean to set "
                    "reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
                )
            found_var = self._vars[name]
            if shape is not None and not shape.is_compatible_with(found_var.get_shape()):
                raise ValueError(
                    f"Trying to share variable {name}, but specified shape {shape} and "
                    f"found shape {found_var.get_shape()}."
                )
            if not dtype.is_compatible_with(found_var.dtype):
                raise ValueError(
                    f"Trying to share variable {name}, but specified dtype {dtype.name} and "
                    f"found dtype {found_var.dtype.name}."
                )
            return found_var
        if reuse is True:
            raise ValueError(
                f"Variable {name} does not exist, or was not created with "
                "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
            )
        if initializer is None:
            if shape is None:
                raise ValueError(
                    f"Variable {name} did not get an initializer, so its `shape` "
                    "argument must be specified."
                )
            initializer, initializing_from_value = _default_initializer(name, dtype)
        if initializing_from_value:
            init_val = initializer
            variable_dtype = None
        else:
            if inspect.isclass(initializer):
                initializer = initializer()
            if shape is not None and shape.is_fully_defined():
                if _takes_named(initializer, "partition_info"):
                    init_val = functools.partial(
                        initializer, shape.as_list(), dtype=dtype, partition_info=partition_info
                    )
                else:
                    init_val = functools.partial(initializer, shape.as_list(), dtype=dtype)
                variable_dtype = dtype.base_dtype
            elif _needs_no_arguments(initializer):
                init_val = initializer
                variable_dtype = None
            else:
                raise ValueError(
                    "The initializer passed is not valid. It should be a callable with no "
                    "arguments and the shape should not be provided or an instance of "
                    "`tf.keras.initializers.*' and `shape` should be fully defined."
                )
        if use_resource is None:
            use_resource = get_variable_scope().use_resource
        # TF makes a `ResourceVariable` when `use_resource` (the argument's, else the
        # scope's) is true, a reference variable otherwise (TF-1.x's default).
        v = variables.Variable(
            initial_value=init_val,
            name=name,
            use_resource=bool(use_resource),
            trainable=trainable,
            collections=collections,
            dtype=variable_dtype,
            validate_shape=validate_shape,
            constraint=constraint,
            shape=shape,
        )
        self._vars[name] = v
        if regularizer:
            # As TF: the regularizer runs once to see whether it gives a loss (those
            # ops stay in the graph), then again colocated under `<name>/Regularizer/`.
            if regularizer(v) is not None:
                with ops.colocate_with(v.op), ops.name_scope(name + "/Regularizer/"):
                    loss = regularizer(v)
                ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)
        return v


def _default_initializer(name, dtype):
    """TF's default: Glorot uniform for floats, zeros for ints, bools and strings."""
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer(), False
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes.string:
        return init_ops.zeros_initializer(), False
    raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype} is required")


class _PartitionInfo:
    """Where a part lies in its partitioned variable, for initializers (TF's)."""

    __slots__ = ["_full_shape", "_var_offset"]

    def __init__(self, full_shape, var_offset):
        """`full_shape`: the full variable's shape; `var_offset`: the part's offset.

        Raises:
            TypeError: If either is not a list or tuple.
            ValueError: If their lengths differ or an offset is outside the shape.
        """
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError(
                "`full_shape` must be a sequence (like tuple or list) instead of "
                + type(full_shape).__name__
            )
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError(
                "`var_offset` must be a sequence (like tuple or list) instead of "
                + type(var_offset).__name__
            )
        if len(var_offset) != len(full_shape):
            raise ValueError(
                f"Expected equal length, but `var_offset` is of length {len(var_offset)} "
                f"while full_shape is of length {len(full_shape)}."
            )
        for offset, shape in zip_strict(var_offset, full_shape):
            if offset < 0 or offset >= shape:
                raise ValueError(
                    f"Expected 0 <= offset < shape but found offset={offset}, shape={shape} "
                    f"for var_offset={var_offset}, full_shape={full_shape}"
                )
        self._full_shape = full_shape
        self._var_offset = var_offset

    @property
    def full_shape(self):
        """The full variable's shape."""
        return self._full_shape

    @property
    def var_offset(self):
        """The part's offset in each dimension."""
        return self._var_offset

    def single_offset(self, shape):
        """The offset along the one partitioned dimension (0 when none is)."""
        single_slice_dim = self.single_slice_dim(shape)
        if single_slice_dim is None:
            return 0
        return self.var_offset[single_slice_dim]

    def single_slice_dim(self, shape):
        """The one dimension a part of `shape` is cut along, or None.

        Raises:
            TypeError: If `shape` is not a list or tuple.
            ValueError: If `shape` does not fit or is cut along two dimensions.
        """
        if not isinstance(shape, (tuple, list)):
            raise TypeError(
                "`shape` must be a sequence (like tuple or list) instead of " + type(shape).__name__
            )
        if len(shape) != len(self.full_shape):
            raise ValueError(
                f"Expected equal length, but received shape={shape} of length {len(shape)} "
                f"while self.full_shape={self.full_shape} is of length "
                f"{len(self.full_shape)}."
            )
        for i in range(len(shape)):
            if self.var_offset[i] + shape[i] > self.full_shape[i]:
                raise ValueError(
                    f"With self.var_offset={self.var_offset}, a partition of shape={shape} "
                    f"would exceed self.full_shape={self.full_shape} in dimension {i}."
                )
        slice_dim = None
        for i in range(len(shape)):
            if shape[i] == self.full_shape[i]:
                continue
            if slice_dim is not None:
                raise ValueError(
                    f"Cannot use single_slice_dim() with shape={shape} and "
                    f"self.full_shape={self.full_shape} since slice dim could be either "
                    f"dimension {i} or {slice_dim}."
                )
            slice_dim = i
        return slice_dim


def _call_partitioner(partitioner, shape, dtype):
    """The partitioner's parts per axis, checked as TF checks them."""
    if not shape.is_fully_defined():
        raise ValueError(
            f"Shape of a new partitioned variable must be fully defined, but instead was {shape}."
        )
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, (list, tuple)):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError(
            "Partitioner returned a partition list that does not match the Variable's "
            f"rank: {slicing} vs. {shape}"
        )
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(
            "Can only slice a variable along one dimension: "
            f"shape: {shape}, partitioning: {slicing}"
        )
    return slicing


def _get_slice_dim_and_num_slices(slicing):
    """The partitioned axis and its part count ((0, 1) when unpartitioned)."""
    for slice_dim, num_slices in enumerate(slicing):
        if num_slices > 1:
            return slice_dim, num_slices
    return 0, 1


def _iter_slices(full_shape, num_slices, slice_dim):
    """(offset, shape) of each part; the first `len % num_slices` parts are one longer."""
    num_slices_with_excess = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    min_slice_len = full_shape[slice_dim] // num_slices
    for i in range(num_slices):
        shape = full_shape[:]
        shape[slice_dim] = min_slice_len + bool(i < num_slices_with_excess)
        yield offset[:], shape
        offset[slice_dim] += shape[slice_dim]


def no_regularizer(_):
    """Use this function to prevent regularization of variables."""
    return None


class VariableScope:
    """The defaults `get_variable` uses inside a `variable_scope` (TF-1.x).

    Attributes:
        name: The scope's name (prefix of its variables' names).
        original_name_scope: The name scope opened when the scope was first entered.
        reuse: True, `AUTO_REUSE` or False/None.
        initializer, regularizer, dtype, custom_getter, constraint: The defaults
            for `get_variable`.
    """

    def __init__(
        self,
        reuse,
        name="",
        initializer=None,
        regularizer=None,
        caching_device=None,
        partitioner=None,
        custom_getter=None,
        name_scope="",
        dtype=dtypes.float32,
        use_resource=None,
        constraint=None,
    ):
        """Creates a scope; users get them from `variable_scope` instead."""
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    @property
    def name(self):
        """The scope's name."""
        return self._name

    @property
    def original_name_scope(self):
        """The name scope (with a trailing slash) of the scope's first entry."""
        return self._name_scope

    @property
    def reuse(self):
        """The reuse mode."""
        return self._reuse

    @property
    def initializer(self):
        """The default initializer."""
        return self._initializer

    @property
    def dtype(self):
        """The default dtype."""
        return self._dtype

    @property
    def use_resource(self):
        """Accepted for compatibility (ferroflow variables are reference variables)."""
        return self._use_resource

    @property
    def regularizer(self):
        """The default regularizer."""
        return self._regularizer

    @property
    def caching_device(self):
        """Accepted for compatibility; unused."""
        return self._caching_device

    @property
    def partitioner(self):
        """The default partitioner."""
        return self._partitioner

    @property
    def custom_getter(self):
        """The custom getter `get_variable` goes through."""
        return self._custom_getter

    @property
    def constraint(self):
        """The default constraint."""
        return self._constraint

    def reuse_variables(self):
        """Makes `get_variable` reuse variables in this scope from now on."""
        self._reuse = True

    def set_initializer(self, initializer):
        """Sets the default initializer."""
        self._initializer = initializer

    def set_dtype(self, dtype):
        """Sets the default dtype."""
        self._dtype = dtype

    def set_use_resource(self, use_resource):
        """Accepted for compatibility."""
        self._use_resource = use_resource

    def set_regularizer(self, regularizer):
        """Sets the default regularizer."""
        self._regularizer = regularizer

    def set_caching_device(self, caching_device):
        """Accepted for compatibility."""
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        """Sets the default partitioner."""
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        """Sets the custom getter."""
        self._custom_getter = custom_getter

    def get_collection(self, name):
        """Collection `name`, restricted to this scope's names."""
        scope = self._name + "/" if self._name else ""
        return ops.get_collection(name, scope)

    def trainable_variables(self):
        """The trainable variables of this scope."""
        return self.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        """The global variables of this scope."""
        return self.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self):
        """The local variables of this scope."""
        return self.get_collection(ops.GraphKeys.LOCAL_VARIABLES)

    def _get_partitioned_variable(
        self,
        var_store,
        name,
        shape=None,
        dtype=None,
        initializer=None,
        regularizer=None,
        trainable=None,
        collections=None,
        caching_device=None,
        partitioner=None,
        validate_shape=True,
        use_resource=None,
        constraint=None,
        synchronization=None,
        aggregation=None,
    ):
        """A `PartitionedVariable` on `var_store` with this scope's defaults (no custom getter)."""
        del caching_device, use_resource, synchronization, aggregation
        if initializer is None:
            initializer = self._initializer
        if regularizer is None:
            regularizer = self._regularizer
        if constraint is None:
            constraint = self._constraint
        if partitioner is None:
            partitioner = self._partitioner
        if dtype is None:
            dtype = self._dtype
        if self._custom_getter is not None:
            raise ValueError(
                "Private access to _get_partitioned_variable is not allowed when a custom "
                f"getter is set.  Current custom getter: {self._custom_getter}.  It is likely "
                "that you're using create_partitioned_variables.  If so, consider instead "
                "using get_variable with a non-empty partitioner parameter instead."
            )
        if partitioner is None:
            raise ValueError("No partitioner was specified")
        full_name = "/".join(n for n in (self.name, name) if n)
        with ops.name_scope(None):
            return var_store._get_partitioned_variable(
                full_name,
                partitioner,
                shape=shape,
                dtype=dtype,
                initializer=initializer,
                regularizer=regularizer,
                reuse=self.reuse,
                trainable=True if trainable is None else trainable,
                collections=collections,
                validate_shape=validate_shape,
                constraint=constraint,
            )

    def get_variable(
        self,
        var_store,
        name,
        shape=None,
        dtype=None,
        initializer=None,
        regularizer=None,
        reuse=None,
        trainable=None,
        collections=None,
        caching_device=None,
        partitioner=None,
        validate_shape=True,
        use_resource=None,
        custom_getter=None,
        constraint=None,
        synchronization=None,
        aggregation=None,
    ):
        """`get_variable` in this scope, on `var_store`, with the scope's defaults."""
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        if custom_getter is None:
            custom_getter = self._custom_getter
        if reuse is None:
            reuse = self._reuse
        if use_resource is None:
            use_resource = self._use_resource
        full_name = self.name + "/" + name if self.name else name
        with ops.name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = ops.convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtype:
                    raise ValueError(
                        f"Initializer type '<dtype: '{init_dtype.name}'>' and explicit dtype "
                        f"'<dtype: '{dtypes.as_dtype(dtype).name}'>' don't match."
                    )
            if initializer is None:
                initializer = self._initializer
            if constraint is None:
                constraint = self._constraint
            if dtype is None:
                dtype = self._dtype
            return var_store.get_variable(
                full_name,
                shape=shape,
                dtype=dtype,
                initializer=initializer,
                regularizer=regularizer,
                reuse=reuse,
                trainable=trainable,
                collections=collections,
                caching_device=caching_device,
                partitioner=partitioner,
                validate_shape=validate_shape,
                use_resource=use_resource,
                custom_getter=custom_getter,
                constraint=constraint,
                synchronization=synchronization,
                aggregation=aggregation,
            )


class _VariableScopeStore(threading.local):
    """The current variable scope and the open counts of scope names (per thread)."""

    def __init__(self):
        super().__init__()
        self.current_scope = VariableScope(False)
        self.variable_scopes_count: dict = {}

    def open_variable_scope(self, scope_name):
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name):
        if scope_name is None:
            for k in self.variable_scopes_count:
                self.variable_scopes_count[k] = 0
        else:
            prefix = scope_name + "/"
            for k in self.variable_scopes_count:
                if k.startswith(prefix):
                    self.variable_scopes_count[k] = 0

    def variable_scope_count(self, scope_name):
        return self.variable_scopes_count.get(scope_name, 0)


def _get_variable_scope_store() -> _VariableScopeStore:
    store = ops.get_collection(_VARSCOPESTORE_KEY)
    if store:
        return store[0]
    new = _VariableScopeStore()
    ops.add_to_collection(_VARSCOPESTORE_KEY, new)
    return new


def _current_use_resource():
    """The current variable scope's `use_resource` (None when no scope was entered)."""
    store = ops.get_collection(_VARSCOPESTORE_KEY)
    return store[0].current_scope.use_resource if store else None


def get_variable_scope() -> VariableScope:
    """The current `VariableScope` of the default graph."""
    return _get_variable_scope_store().current_scope


def _get_default_variable_store() -> _VariableStore:
    store = ops.get_collection(_VARSTORE_KEY)
    if store:
        return store[0]
    new = _VariableStore()
    ops.add_to_collection(_VARSTORE_KEY, new)
    return new


def get_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=None,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    custom_getter=None,
    constraint=None,
    synchronization=None,
    aggregation=None,
):
    """Gets an existing variable with these parameters or creates a new one.

    The name is prefixed with the current variable scope; whether an existing
    variable is returned or a new one made follows the scope's `reuse` (False:
    create, and fail if it exists; True: reuse, and fail if absent; `AUTO_REUSE`:
    either).

    Args:
        name: The variable's name within the current variable scope.
        shape: Its shape (required unless `initializer` is a value).
        dtype: Its dtype (default: the scope's, float32).
        initializer: An initializer (class or instance), a callable, or a Tensor or
            Python value that also gives the shape. Default: the scope's, else
            `glorot_uniform_initializer` for floats and zeros for ints and bools.
        regularizer: A function of the variable; a non-None result goes to
            `GraphKeys.REGULARIZATION_LOSSES`. Default: the scope's.
        trainable: Add to `TRAINABLE_VARIABLES` (default True).
        collections: Collections to add to (default `[GLOBAL_VARIABLES]`).
        caching_device: Accepted for compatibility; unused.
        partitioner: A function of the (fully defined) shape and the dtype giving the
            number of parts per axis (see `fixed_size_partitioner`); with it a
            `PartitionedVariable` of variables `<name>/part_<i>` is returned.
        validate_shape: If False, the initial value's shape may be unknown.
        use_resource: If true, the variable is a `ResourceVariable` (TF's
            resource-variable interface); default: the variable scope's.
        custom_getter: `custom_getter(getter, name, *args, **kwargs)` called instead
            of the true getter.
        constraint: Projection applied after optimizer updates.
        synchronization: Accepted for compatibility.
        aggregation: Accepted for compatibility.

    Returns:
        The created or existing `Variable`.

    Raises:
        ValueError: On reuse violations, shape or dtype mismatches with the existing
            variable, or a missing shape (TF's messages).
    """
    return get_variable_scope().get_variable(
        _get_default_variable_store(),
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        custom_getter=custom_getter,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=aggregation,
    )


def get_local_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=False,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    custom_getter=None,
    constraint=None,
    synchronization=None,
    aggregation=None,
):
    """`get_variable` for a non-trainable variable in `GraphKeys.LOCAL_VARIABLES`.

    Same arguments as `get_variable` (`trainable` is ignored: always False).
    """
    if collections:
        collections += [ops.GraphKeys.LOCAL_VARIABLES]
    else:
        collections = [ops.GraphKeys.LOCAL_VARIABLES]
    return get_variable(
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=False,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        synchronization=synchronization,
        aggregation=aggregation,
        custom_getter=custom_getter,
        constraint=constraint,
    )


def _get_partitioned_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=True,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    constraint=None,
    synchronization=None,
    aggregation=None,
):
    """TF's private `_get_partitioned_variable`: a `PartitionedVariable` in the current scope.

    Raises:
        ValueError: Without a partitioner, or when the scope has a custom getter.
    """
    return get_variable_scope()._get_partitioned_variable(
        _get_default_variable_store(),
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=aggregation,
    )


def _maybe_wrap_custom_getter(custom_getter, old_getter):
    if old_getter is None:
        return custom_getter

    def wrapped_custom_getter(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)

    return wrapped_custom_getter


class _pure_variable_scope:  # TF's name
    """Enters a variable scope without opening a name scope."""

    def __init__(
        self,
        name_or_scope,
        reuse=None,
        initializer=None,
        regularizer=None,
        caching_device=None,
        partitioner=None,
        custom_getter=None,
        old_name_scope=None,
        dtype=dtypes.float32,
        use_resource=None,
        constraint=None,
    ):
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._old_name_scope = old_name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        self._var_scope_store = _get_variable_scope_store()
        self._last_variable_scope_object = None
        if isinstance(name_or_scope, VariableScope):
            self._new_name = name_or_scope.name
            scope = VariableScope(
                name_or_scope.reuse if not reuse else reuse,
                name=self._new_name,
                initializer=name_or_scope.initializer,
                regularizer=name_or_scope.regularizer,
                caching_device=name_or_scope.caching_device,
                partitioner=name_or_scope.partitioner,
                dtype=name_or_scope.dtype,
                custom_getter=name_or_scope.custom_getter,
                name_scope=name_or_scope.original_name_scope,
                use_resource=name_or_scope.use_resource,
                constraint=constraint,
            )
            self._apply_overrides(scope, name_or_scope.custom_getter)
            self._cached_variable_scope_object = scope

    def _apply_overrides(self, scope, old_getter):
        if self._initializer is not None:
            scope.set_initializer(self._initializer)
        if self._regularizer is not None:
            scope.set_regularizer(self._regularizer)
        if self._caching_device is not None:
            scope.set_caching_device(self._caching_device)
        if self._partitioner is not None:
            scope.set_partitioner(self._partitioner)
        if self._custom_getter is not None:
            scope.set_custom_getter(_maybe_wrap_custom_getter(self._custom_getter, old_getter))
        if self._dtype is not None:
            scope.set_dtype(self._dtype)
        if self._use_resource is not None:
            scope.set_use_resource(self._use_resource)

    def __enter__(self):
        self._old = self._var_scope_store.current_scope
        if isinstance(self._name_or_scope, VariableScope):
            self._var_scope_store.open_variable_scope(self._new_name)
            self._old_subscopes = copy.copy(self._var_scope_store.variable_scopes_count)
            scope = self._cached_variable_scope_object
        else:
            old = self._old
            self._new_name = (
                old.name + "/" + self._name_or_scope if old.name else self._name_or_scope
            )
            self._reuse = self._reuse or old.reuse
            name_scope = (
                self._name_or_scope if self._old_name_scope is None else self._old_name_scope
            )
            scope = VariableScope(
                self._reuse,
                name=self._new_name,
                initializer=old.initializer,
                regularizer=old.regularizer,
                caching_device=old.caching_device,
                partitioner=old.partitioner,
                dtype=old.dtype,
                use_resource=old.use_resource,
                custom_getter=old.custom_getter,
                name_scope=name_scope,
                constraint=self._constraint,
            )
            self._apply_overrides(scope, old.custom_getter)
            self._var_scope_store.open_variable_scope(self._new_name)
        self._var_scope_store.current_scope = scope
        self._last_variable_scope_object = scope
        return scope

    def __exit__(self, type_arg, value_arg, traceback_arg):
        if self._var_scope_store.current_scope is not self._last_variable_scope_object:
            raise RuntimeError("Improper nesting of variable_scope.")
        if isinstance(self._name_or_scope, VariableScope):
            self._var_scope_store.variable_scopes_count = self._old_subscopes
        else:
            self._var_scope_store.close_variable_subscopes(self._new_name)
        self._var_scope_store.current_scope = self._old


def _get_unique_variable_scope(prefix):
    """`prefix`, or `prefix_<n>` if a scope of that name was already opened here."""
    store = _get_variable_scope_store()
    current = get_variable_scope()
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(f"{name}_{idx}") > 0:
        idx += 1
    return f"{prefix}_{idx}"


class variable_scope:  # TF's name
    """A context manager that opens a variable scope (and a name scope) (TF-1.x).

    Variables from `get_variable` inside are named `<scope>/<name>`; the scope's
    `reuse`, `initializer`, `regularizer`, `dtype` and `custom_getter` become the
    defaults of `get_variable`, inherited by nested scopes (reuse cannot be turned
    off inside a reusing scope). Entering with a `VariableScope` object re-enters
    that scope (with a fresh name scope such as `scope_1/`); `default_name` is
    made unique (`name`, `name_1`, ...) per enclosing scope.

    Example:
        ```python
        with tf.variable_scope("layer"):
            w = tf.get_variable("w", [3, 4])        # layer/w
        with tf.variable_scope("layer", reuse=True):
            assert tf.get_variable("w") is w
        ```
    """

    def __init__(
        self,
        name_or_scope,
        default_name=None,
        values=None,
        initializer=None,
        regularizer=None,
        caching_device=None,
        partitioner=None,
        custom_getter=None,
        reuse=None,
        dtype=None,
        use_resource=None,
        constraint=None,
        auxiliary_name_scope=True,
    ):
        """Prepares the scope; it is opened on `__enter__`.

        Args: TF's (`name_or_scope`: a string or `VariableScope`; `default_name`
        when it is None; `values`: tensors that pick the graph; the defaults for
        `get_variable`; `reuse`: True, None/False or `tf.AUTO_REUSE`;
        `auxiliary_name_scope`: open a name scope too).

        Raises:
            TypeError: Without `name_or_scope` and `default_name`, or a non-bool
                `auxiliary_name_scope`.
            ValueError: For another `reuse` value.
        """
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = values
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._reuse = reuse
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        if self._default_name is None and self._name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if self._reuse is False:
            self._reuse = None
        if not (self._reuse is True or self._reuse is None or self._reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if self._values is None:
            self._values = []
        self._graph = ops._graph_of(list(self._values))
        self._cached_pure_variable_scope = None
        self._current_name_scope = None
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError(
                "The auxiliary_name_scope must be `True` or `False`, while get "
                f"{auxiliary_name_scope}"
            )
        self._auxiliary_name_scope = auxiliary_name_scope

    def __enter__(self):
        self._graph_context_manager = self._graph.as_default()
        self._graph_context_manager.__enter__()
        try:
            return self._enter_scope_uncached()
        except BaseException:
            self._graph_context_manager.__exit__(None, None, None)
            raise

    def _pure(self, name_or_scope, old_name_scope=None, reuse=None):
        return _pure_variable_scope(
            name_or_scope,
            reuse=reuse,
            initializer=self._initializer,
            regularizer=self._regularizer,
            caching_device=self._caching_device,
            partitioner=self._partitioner,
            custom_getter=self._custom_getter,
            old_name_scope=old_name_scope,
            dtype=self._dtype,
            use_resource=self._use_resource,
            constraint=self._constraint,
        )

    def _enter_pure(self, pure):
        try:
            entered = pure.__enter__()
        except BaseException:
            self._exit_name_scope()
            raise
        self._cached_pure_variable_scope = pure
        return entered

    def _enter_name_scope(self, current_name_scope):
        self._current_name_scope = current_name_scope
        try:
            return current_name_scope.__enter__()
        except BaseException:
            self._current_name_scope = None
            raise

    def _exit_name_scope(self, *exc):
        if self._current_name_scope is not None:
            cm, self._current_name_scope = self._current_name_scope, None
            cm.__exit__(*(exc or (None, None, None)))

    def _enter_scope_uncached(self):
        if self._auxiliary_name_scope:
            current_name_scope = None
        else:
            name_scope = ops.get_default_graph().get_name_scope()
            current_name_scope = ops.name_scope(name_scope + "/" if name_scope else name_scope)
        if self._name_or_scope is not None:
            if not isinstance(self._name_or_scope, (VariableScope, str)):
                raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
            if isinstance(self._name_or_scope, str):
                name_scope = self._name_or_scope
            else:
                name_scope = self._name_or_scope.name.split("/")[-1]
            if name_scope or current_name_scope:
                current_name_scope = current_name_scope or ops.name_scope(name_scope)
                current_name_scope_name = self._enter_name_scope(current_name_scope)
                if isinstance(self._name_or_scope, str):
                    old_name_scope = current_name_scope_name
                else:
                    old_name_scope = self._name_or_scope.original_name_scope
                pure = self._pure(self._name_or_scope, old_name_scope, self._reuse)
                return self._enter_pure(pure)
            return self._enter_pure(self._pure(self._name_or_scope, None, self._reuse))
        if self._reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        current_name_scope = current_name_scope or ops.name_scope(self._default_name)
        current_name_scope_name = self._enter_name_scope(current_name_scope)
        unique_default_name = _get_unique_variable_scope(self._default_name)
        return self._enter_pure(self._pure(unique_default_name, current_name_scope_name))

    def __exit__(self, type_arg, value_arg, traceback_arg):
        try:
            if self._cached_pure_variable_scope is not None:
                self._cached_pure_variable_scope.__exit__(type_arg, value_arg, traceback_arg)
        finally:
            try:
                self._exit_name_scope(type_arg, value_arg, traceback_arg)
            finally:
                self._cached_pure_variable_scope = None
                self._graph_context_manager.__exit__(type_arg, value_arg, traceback_arg)


def variable_op_scope(values, name_or_scope, default_name=None, **kwargs):
    """Deprecated: `variable_scope(name_or_scope, default_name, values, **kwargs)`."""
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)
