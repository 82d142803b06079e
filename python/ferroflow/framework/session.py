"""`tf.Session`: runs graph fragments in Rust.

`Session.run` maps a fetch structure (nested lists, tuples, namedtuples and dicts of
tensors, ops, variables and names) and a feed set onto a native plan, which is
compiled once per signature and cached; each later call only converts the feed values
and calls the plan, which runs with the GIL released.
"""

from __future__ import annotations

import collections
import collections.abc
import contextlib
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _ferroflow
from .. import errors as _errors
from .._compat import zip_strict
from . import device, dtypes, ops
from .indexed_slices import IndexedSlices, IndexedSlicesValue

# The default-session stack lives in ops (as TF's), where `Tensor.eval` finds it.
from .ops import get_default_session as get_default_session
from .sparse_tensor import SparseTensor, SparseTensorValue


class _FetchPlan:
    """A compiled fetch structure: the flat tensors/targets and how to rebuild results."""

    __slots__ = ("build", "feed_dtypes", "feed_tensors", "native")

    def __init__(self, native, feed_tensors, build):
        self.native = native
        self.feed_tensors = feed_tensors
        self.feed_dtypes = [t.dtype.base_dtype for t in feed_tensors]
        self.build = build


_LEAF_TYPES = frozenset({ops.Tensor, ops.Operation, str})


def _structure_key(fetches):
    """A hashable key for a fetch structure (None when it has unhashable leaves)."""
    if isinstance(fetches, (ops.Tensor, ops.Operation, str)):
        return fetches
    if isinstance(fetches, (list, tuple)):
        return (type(fetches), *(_structure_key(f) for f in fetches))
    if isinstance(fetches, dict):
        return (type(fetches), *((k, _structure_key(v)) for k, v in fetches.items()))
    try:
        hash(fetches)
    except TypeError:
        return None
    return fetches


def _get_indexed_slices_value_from_fetches(fetched_vals):
    return IndexedSlicesValue(
        fetched_vals[0], fetched_vals[1], fetched_vals[2] if len(fetched_vals) == 3 else None
    )


def _get_feeds_for_indexed_slices(feed, feed_val):
    return list(
        zip(
            [feed.values, feed.indices]
            if feed.dense_shape is None
            else [feed.values, feed.indices, feed.dense_shape],
            feed_val,
        )
    )


def _default_fetch_fn(fetch):
    return [fetch], _first


# TF's conversion table for `Session.run` arguments: `(type, fetch_fn, feed_fn,
# feed_fn_for_partial_run)`, first match wins.
#   fetch_fn(fetch) -> (list of tensors/ops, contraction: fetched values -> result)
#   feed_fn(key, value) -> list of (tensor, value)
#   feed_fn_for_partial_run(key) -> list of tensors
# `register_session_run_conversion_functions` adds entries in front.
_REGISTERED_EXPANSIONS: list[tuple[type, Callable, Callable | None, Callable | None]] = [
    # SparseTensors are fetched as SparseTensorValues; they are fed SparseTensorValues
    # or (indices, values, dense_shape) tuples.
    (
        SparseTensor,
        lambda fetch: (
            [fetch.indices, fetch.values, fetch.dense_shape],
            lambda fetched_vals: SparseTensorValue(*fetched_vals),
        ),
        lambda feed, feed_val: list(zip([feed.indices, feed.values, feed.dense_shape], feed_val)),
        lambda feed: [feed.indices, feed.values, feed.dense_shape],
    ),
    # IndexedSlices are fetched as IndexedSlicesValues; they are fed
    # IndexedSlicesValues or (values, indices[, dense_shape]) tuples.
    (
        IndexedSlices,
        lambda fetch: (
            [fetch.values, fetch.indices]
            if fetch.dense_shape is None
            else [fetch.values, fetch.indices, fetch.dense_shape],
            _get_indexed_slices_value_from_fetches,
        ),
        _get_feeds_for_indexed_slices,
        lambda feed: (
            [feed.values, feed.indices]
            if feed.dense_shape is None
            else [feed.values, feed.indices, feed.dense_shape]
        ),
    ),
    # Every other type: no expansion.
    (
        object,
        _default_fetch_fn,
        lambda feed, feed_val: [(feed, feed_val)],
        lambda feed: [feed],
    ),
]

# Feed-key types whose conversion is the identity (the fast path of `run`), by type.
_plain_feed_types: dict[type, bool] = {}


def register_session_run_conversion_functions(
    tensor_type, fetch_function, feed_function=None, feed_function_for_partial_run=None
):
    """Registers how `Session.run` fetches and feeds values of a user-defined type.

    Example:
        ```python
        class SquaredTensor:
            def __init__(self, tensor):
                self.sq = tf.square(tensor)

        from ferroflow.framework import session

        session.register_session_run_conversion_functions(
            SquaredTensor,
            fetch_function=lambda st: ([st.sq], lambda val: val[0]),
            feed_function=lambda feed, feed_val: [(feed.sq, feed_val)],
            feed_function_for_partial_run=lambda feed: [feed.sq],
        )
        sess.run(squared_tensor1, feed_dict={squared_tensor2: some_numpy_array})
        ```

    Args:
        tensor_type: The type whose instances the functions convert.
        fetch_function: Takes a `tensor_type` object; returns a tuple: a list of
            tensors (or ops) to fetch, and a function from their fetched values to
            the value `run` returns for the object.
        feed_function: Takes a feed key of type `tensor_type` and its fed value;
            returns a list of `(tensor, value)` pairs to feed.
        feed_function_for_partial_run: Takes a feed key of type `tensor_type`;
            returns the tensors a partial run feeds for it.

    Raises:
        ValueError: If `tensor_type` (or a subclass of it) is already registered.
    """
    for conversion_function in _REGISTERED_EXPANSIONS:
        if issubclass(conversion_function[0], tensor_type):
            raise ValueError(f"{tensor_type} has already been registered so ignore it.")
    _REGISTERED_EXPANSIONS.insert(
        0, (tensor_type, fetch_function, feed_function, feed_function_for_partial_run)
    )
    _plain_feed_types.clear()


def _is_attrs_instance(obj) -> bool:
    return getattr(type(obj), "__attrs_attrs__", None) is not None


class _FetchCollector:
    """Flattens a fetch structure into unique tensors and target ops (TF's fetch mappers)."""

    def __init__(self, graph):
        self.graph = graph
        self.tensors: list[ops.Tensor] = []
        self.targets: list[ops.Operation] = []
        self._index: dict[int, int] = {}

    def _tensor_index(self, t: ops.Tensor) -> int:
        i = self._index.get(id(t))
        if i is None:
            i = self._index[id(t)] = len(self.tensors)
            self.tensors.append(t)
        return i

    def compile(self, fetch) -> Callable[[Sequence[Any]], Any]:
        """A function from the flat results to the structure of `fetch`."""
        if fetch is None:
            raise TypeError(f"Fetch argument None has invalid type {type(None)}")
        if isinstance(fetch, (list, tuple)):
            builders = [self.compile(f) for f in fetch]
            if isinstance(fetch, list):
                return lambda r: [b(r) for b in builders]
            cls = type(fetch)
            if cls is tuple:
                return lambda r: tuple(b(r) for b in builders)
            # A namedtuple (or another tuple subclass), built from its fields.
            return lambda r: cls(*[b(r) for b in builders])
        if isinstance(fetch, collections.abc.Mapping):
            keys = list(fetch.keys())
            builders = [self.compile(fetch[k]) for k in keys]
            if isinstance(fetch, collections.defaultdict):
                factory = fetch.default_factory
                return lambda r: collections.defaultdict(
                    factory, zip_strict(keys, [b(r) for b in builders])
                )
            mapping: Any = type(fetch)
            return lambda r: mapping(zip_strict(keys, [b(r) for b in builders]))
        if _is_attrs_instance(fetch):
            cls = type(fetch)
            builders = [self.compile(getattr(fetch, a.name)) for a in cls.__attrs_attrs__]
            return lambda r: cls(*[b(r) for b in builders])
        for tensor_type, fetch_fn, _, _ in _REGISTERED_EXPANSIONS:
            if isinstance(fetch, tensor_type):
                parts, contraction_fn = fetch_fn(fetch)
                break
        else:  # pragma: no cover - `object` matches everything
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}")
        part_builders = [self._compile_element(part) for part in parts]
        if contraction_fn is _first and len(part_builders) == 1:
            return part_builders[0]
        return lambda r: contraction_fn([b(r) for b in part_builders])

    def _compile_element(self, fetch) -> Callable[[Sequence[Any]], Any]:
        """The builder of one graph element (a tensor, op, variable or name)."""
        try:
            element = self.graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError(
                f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a string or "
                f"Tensor. ({e})"
            ) from None
        except ValueError as e:
            raise ValueError(
                f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({e})"
            ) from None
        except KeyError as e:
            raise ValueError(
                f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({e.args[0]})"
            ) from None
        if not self.graph.is_fetchable(element):
            op = element if isinstance(element, ops.Operation) else element.op
            raise ValueError(f"Operation {op.name!r} has been marked as not fetchable.")
        if isinstance(element, ops.Operation):
            self.targets.append(element)
            return lambda r: None
        i = self._tensor_index(element)
        return lambda r: r[i]


def _feed_tensor(graph, key) -> ops.Tensor:
    try:
        t = graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
    except Exception as e:
        raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e}") from None
    if not isinstance(t, ops.Tensor):
        raise TypeError(f"Cannot interpret feed_dict key as Tensor: {key!r}")
    if not graph.is_feedable(t):
        raise ValueError(f"Tensor {t} may not be fed.")
    return t


def _is_plain_feed_key(key) -> bool:
    """Whether `key` is fed as itself (no registered expansion, not a tuple key)."""
    cls = type(key)
    plain = _plain_feed_types.get(cls)
    if plain is None:
        plain = not issubclass(cls, (list, tuple)) and next(
            entry[0] is object for entry in _REGISTERED_EXPANSIONS if issubclass(cls, entry[0])
        )
        _plain_feed_types[cls] = plain
    return plain


def _is_nested(x) -> bool:
    """Whether `nest` would flatten `x` (a non-string sequence, mapping or attrs)."""
    if isinstance(x, collections.abc.Mapping) or _is_attrs_instance(x):
        return True
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, (str, bytes))


def _flatten(x) -> list:
    """`nest.flatten(x)`: the leaves of `x`, a mapping's in the order of its sorted keys."""
    if not _is_nested(x):
        return [x]
    if isinstance(x, collections.abc.Mapping):
        try:
            keys = sorted(x)
        except TypeError:
            raise TypeError("nest only supports dicts with sortable keys.") from None
        children = [x[k] for k in keys]
    elif _is_attrs_instance(x):
        children = [getattr(x, a.name) for a in type(x).__attrs_attrs__]
    else:
        children = list(x)
    return [leaf for child in children for leaf in _flatten(child)]


def _flatten_dict_items(dictionary) -> dict:
    """TF's `nest.flatten_dict_items`: nested (tuple) keys flattened with their values.

    Raises:
        ValueError: If a key and its value nest differently, or keys repeat.
    """
    flat: dict = {}
    for key, value in dictionary.items():
        if not _is_nested(key):
            if key in flat:
                raise ValueError(f"Could not flatten dictionary: key {key} is not unique.")
            flat[key] = value
            continue
        flat_keys, flat_values = _flatten(key), _flatten(value)
        if len(flat_keys) != len(flat_values):
            raise ValueError(
                f"Could not flatten dictionary. Key had {len(flat_keys)} elements, but value "
                f"had {len(flat_values)} elements. Key: {flat_keys}, value: {flat_values}."
            )
        for k, v in zip_strict(flat_keys, flat_values):
            if k in flat:
                raise ValueError(f"Could not flatten dictionary: key {k} is not unique.")
            flat[k] = v
    return flat


def _expand_feeds(feed_dict):
    """`feed_dict` with its keys expanded into the tensors they feed (TF's rules).

    Tuple keys are flattened with their values (TF's `nest.flatten_dict_items`); each key
    then goes through the first matching registered conversion: a `SparseTensor`
    key feeds its three tensors from a `SparseTensorValue` or any `(indices, values,
    dense_shape)` sequence, an `IndexedSlices` key its values, indices (and dense
    shape).
    """
    if not feed_dict or all(_is_plain_feed_key(k) for k in feed_dict):
        return feed_dict
    out = {}
    for feed, feed_val in _flatten_dict_items(feed_dict).items():
        for tensor_type, _, feed_fn, _ in _REGISTERED_EXPANSIONS:
            if isinstance(feed, tensor_type):
                if feed_fn is None:
                    raise TypeError(
                        f"{feed} in argument `feed_dict` has a type ({type(feed).__name__}) "
                        "that was registered without a feed function"
                    )
                out.update(feed_fn(feed, feed_val))
                break
    return out


def _convert_to_numpy_obj(numpy_dtype, obj):
    """`obj` converted to `numpy_dtype` (to `str` for strings): TF's precision check."""
    return numpy_dtype(np.array(obj).astype(numpy_dtype)) if numpy_dtype is not object else str(obj)


def _feed_value(value, tensor: ops.Tensor, dtype: dtypes.DType):
    """`value` as a numpy array of the tensor's dtype (TF's feed conversion rules)."""
    np_dtype = dtype.as_numpy_dtype
    if type(value) is np.ndarray and value.dtype == np_dtype:
        return value
    if isinstance(value, _ferroflow.TensorHandle):
        if value.dtype != dtype.name:
            raise TypeError(
                f"Cannot feed a {value.dtype} TensorHandle to {tensor}, which has dtype "
                f"{dtype.name}"
            )
        return value
    if isinstance(value, (ops.Tensor, ops.Operation)):
        raise TypeError(
            "The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
            "Python scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, "
            f"the tensor object was {value} which was passed to the feed with key {tensor}."
        )
    if isinstance(value, int):
        # As TF: a Python int (or bool) the tensor's type cannot hold exactly (an
        # int64 into an int32, any int into a string) is a TypeError.
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                compatible = _convert_to_numpy_obj(np_dtype, value) == value
            except (OverflowError, ValueError, TypeError):
                compatible = False
        if not compatible:
            raise TypeError(
                f"Type of feed value {value} with type {type(value)} is not compatible with "
                f"Tensor type {np_dtype}. Try explicitly setting the type of the feed tensor to "
                "a larger type (e.g. int64)."
            )
    if dtype == dtypes.string:
        return np.asarray(value, dtype=object)
    return np.asarray(value, dtype=np_dtype)


def _target_str(target) -> str:
    """A session target as text (TF accepts bytes or str; None means in-process)."""
    if target is None:
        return ""
    return target.decode() if isinstance(target, bytes) else str(target)


class _DeviceAttributes:
    """A device of a session, as `Session.list_devices` describes it (TF's class).

    Attributes:
        name: The full name, `/job:localhost/replica:0/task:0/device:CPU:0`.
        device_type: `"CPU"`, `"GPU"`.
        memory_limit_bytes: The device's memory.
        incarnation: A number that changes when the device's process restarts.
    """

    def __init__(self, name, device_type, memory_limit_bytes, incarnation):
        # TF canonicalizes the name (`/cpu:1` is `/device:CPU:1`).
        self._name = device.canonical_name(name)
        self._device_type = device_type
        self._memory_limit_bytes = memory_limit_bytes
        self._incarnation = incarnation

    @property
    def name(self):
        """The device's full name."""
        return self._name

    @property
    def device_type(self):
        """The device's type (`"CPU"`)."""
        return self._device_type

    @property
    def memory_limit_bytes(self):
        """The device's memory limit in bytes."""
        return self._memory_limit_bytes

    @property
    def incarnation(self):
        """The device's incarnation (0 when unknown)."""
        return self._incarnation

    def __repr__(self):
        return (
            f"_DeviceAttributes({self._name}, {self._device_type}, "
            f"{self._memory_limit_bytes}, {self._incarnation})"
        )


def _log_device_mapping(config):
    """TF's session-creation log with `log_device_placement`: the accelerators.

    Each accelerator (not hidden by `device_count`) and what it is goes to standard
    error; the per-node placement lines go to standard output as runs place nodes.
    """
    counts = {k.upper(): v for k, v in config.device_count.items()}
    seen: dict = {}
    lines = []
    for name, device_type, _memory, desc, _locality in _ferroflow.local_devices():
        index = seen.get(device_type, 0)
        seen[device_type] = index + 1
        if desc and index < counts.get(device_type, index + 1):
            lines.append(f"/job:localhost/replica:0/task:0{name} -> {desc}")
    body = "".join("\n" + line for line in lines) if lines else " no known devices."
    sys.stderr.write(f"Device mapping:{body}\n")


class SessionInterface:
    """The base of every session class (TF's `SessionInterface`).

    `Saver.save` accepts any instance: a `Session`, an `InteractiveSession`, or a
    user's session class deriving from it.
    """

    @property
    def graph(self):
        """The graph this session runs."""
        raise NotImplementedError("graph")

    @property
    def sess_str(self):
        """The target this session connects to."""
        raise NotImplementedError("sess_str")

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs `fetches` (see `Session.run`)."""
        raise NotImplementedError("run")

    def partial_run_setup(self, fetches, feeds=None):
        """Sets up a partial run (see `Session.partial_run_setup`)."""
        raise NotImplementedError("partial_run_setup")

    def partial_run(self, handle, fetches, feed_dict=None):
        """Continues a partial run (see `Session.partial_run`)."""
        raise NotImplementedError("partial_run")


class BaseSession(SessionInterface):
    """The shared implementation of `Session` and `InteractiveSession`."""

    def __init__(self, target="", graph=None, config=None):
        if graph is None:
            graph = ops.get_default_graph()
        if not isinstance(graph, ops.Graph):
            raise TypeError(f"graph must be a tf.Graph, but got {type(graph)}")
        self._graph = graph
        self._target = _target_str(target)
        self._config = config
        # The ConfigProto crosses whole and is parsed once in Rust (threads, timeout,
        # soft placement, device counts); the target picks the session backend there
        # (NotFoundError for a target no registered factory serves, as TF).
        self._native = _ferroflow.Session(
            graph._native,
            config.SerializeToString() if config is not None else None,
            self._target,
        )
        self._closed = False
        # As TF's direct session, the whole graph is placed as it grows (so an op no
        # device can run fails every run, run or not), unless the config asks to
        # place the pruned graph of each run only (as `InteractiveSession` does).
        # With soft placement no op fails to be placed for its device.
        self._placed_version = (
            sys.maxsize
            if self._target
            or (
                config is not None
                and (config.graph_options.place_pruned_graph or config.allow_soft_placement)
            )
            else 0
        )
        self._place_lock = threading.Lock()
        self._device_matches: dict[str, bool] = {}
        self._cache: dict = {}
        self._cache_lock = threading.Lock()
        self._default_session_context = None
        self._default_graph_context = None
        if config is not None and config.log_device_placement and not self._target:
            _log_device_mapping(config)

    @property
    def graph(self) -> ops.Graph:
        """The graph this session runs."""
        return self._graph

    @property
    def graph_def(self):
        """The session graph as a `GraphDef`.

        With `graph_options.infer_shapes` in the session's config, each node has an
        `_output_shapes` attr (as TF's).
        """
        add_shapes = self._config is not None and self._config.graph_options.infer_shapes
        return self._graph.as_graph_def(add_shapes=add_shapes)

    def list_devices(self):
        """Lists the devices this session can place nodes on.

        For a `grpc://` session these are the devices of the master's cluster (the
        master is asked, creating the remote session first if needed).

        Returns:
            A list of `_DeviceAttributes` (`name`, `device_type`,
            `memory_limit_bytes`, `incarnation`).
        """
        devices = []
        for name, device_type, memory, incarnation in self._native.device_attributes():
            devices.append(_DeviceAttributes(name, device_type, memory, incarnation))
        return devices

    @property
    def sess_str(self) -> str:
        """The target this session connects to (`""` for an in-process session)."""
        return self._target

    def as_default(self):
        """A context manager that makes this the default session (for `Tensor.eval`)."""
        return ops.default_session(self)

    def close(self) -> None:
        """Closes the session, releasing its variable values. Safe to call twice."""
        if not self._closed:
            self._closed = True
            self._native.close()

    def __enter__(self):
        # As TF: `with sess:` makes the session's graph the default graph too (only
        # `as_default()` does not).
        if self._default_session_context is not None:
            raise RuntimeError(
                "Session context managers are not re-entrant. Use `Session.as_default()` if "
                "you want to enter a session multiple times."
            )
        self._default_graph_context = self.graph.as_default()
        self._default_session_context = self.as_default()
        self._default_graph_context.__enter__()
        self._default_session_context.__enter__()
        return self

    def __exit__(self, exc_type, exc_value, tb):
        ctx, self._default_session_context = self._default_session_context, None
        graph_ctx, self._default_graph_context = self._default_graph_context, None
        if ctx is not None:
            ctx.__exit__(exc_type, exc_value, tb)
        if graph_ctx is not None:
            graph_ctx.__exit__(exc_type, exc_value, tb)
        self.close()

    def __del__(self):
        with contextlib.suppress(Exception):
            self.close()

    # -- running ----------------------------------------------------------------------
    def _place_graph(self) -> None:
        """Places the ops added since the last run (TF places the whole graph).

        Raises:
            tf.errors.InvalidArgumentError: If an op cannot be placed (a device that
                does not exist, without soft placement).
        """
        version = self._graph.version
        with self._place_lock:
            placed = self._placed_version
            if placed >= version:
                return
            # Only an op that asks for a device no device of the session matches can
            # fail to be placed: the placer (in Rust) places those, with TF's error.
            doubtful = [
                op._id
                for op in self._graph._ops[placed:version]
                if op.device and not self._device_exists(op.device)
            ]
            if doubtful:
                self._native.placement([], [], doubtful)
            self._placed_version = version

    def _device_exists(self, name: str) -> bool:
        """Whether a device of the session matches the device spec `name`."""
        known = self._device_matches.get(name)
        if known is None:
            try:
                spec = device.DeviceSpec.from_string(name)
            except ValueError:
                known = False
            else:
                known = any(
                    _spec_matches(spec, device.DeviceSpec.from_string(d))
                    for d in self._native.devices()
                )
            self._device_matches[name] = known
        return known

    def _compile(self, fetches, feed_tensors) -> _FetchPlan:
        self._place_graph()
        collector = _FetchCollector(self._graph)
        build = collector.compile(fetches)
        if type(fetches) in _LEAF_TYPES and len(collector.tensors) == 1 and not collector.targets:
            build = _first
        native = self._native.prepare(
            [(t._op._id, t._value_index) for t in feed_tensors],
            [(t._op._id, t._value_index) for t in collector.tensors],
            [op._id for op in collector.targets],
        )
        return _FetchPlan(native, feed_tensors, build)

    def _plan_for(self, fetches, feed_dict):
        """The cached `_FetchPlan` for this fetch structure and feed set."""
        fetch_key = fetches if type(fetches) in _LEAF_TYPES else _structure_key(fetches)
        key = (fetch_key, tuple(feed_dict)) if feed_dict else fetch_key
        plan = self._cache.get(key) if fetch_key is not None else None
        if plan is None:
            feed_tensors = [_feed_tensor(self._graph, k) for k in feed_dict or ()]
            plan = self._compile(fetches, feed_tensors)
            if fetch_key is not None:
                with self._cache_lock:
                    self._cache[key] = plan
        return plan

    def _call(self, plan: _FetchPlan, values, options=None, run_metadata=None):
        """Runs `plan` on fed `values`; returns the fetched values in its structure.

        `options` (a `RunOptions`) sets the timeout and trace level; a traced run fills
        `run_metadata`'s step statistics.
        """
        if run_metadata is not None:
            run_metadata.Clear()
        try:
            if options is not None and options.trace_level > 0:
                # A traced run: the options go to Rust whole, the step statistics come
                # back as a serialized `RunMetadata`.
                results, metadata = plan.native.run_with_options(
                    options.SerializeToString(), tuple(values)
                )
                if run_metadata is not None:
                    run_metadata.MergeFromString(metadata)
                return plan.build(results)
            if options is not None and options.timeout_in_ms > 0:
                return plan.build(
                    plan.native.run_with_timeout(options.timeout_in_ms, tuple(values))
                )
            return plan.build(plan.native.run(*values))
        except _errors.OpError as e:
            self._attach_op(e)
            raise

    def _attach_op(self, e: _errors.OpError) -> None:
        """Points `e.op` at the failing op named by the native error."""
        node = getattr(e, "_node_name", None)
        if node is not None:
            with contextlib.suppress(KeyError, ValueError):
                e._op = self._graph.get_operation_by_name(node)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops and evaluates the tensors in `fetches`.

        Args:
            fetches: A tensor, op, variable or tensor/op name, or a nested list, tuple,
                namedtuple or dict of them.
            feed_dict: Maps tensors (or their names) to values that replace them. A
                key may also be a `SparseTensor` (fed a `SparseTensorValue` or an
                `(indices, values, dense_shape)` tuple), an `IndexedSlices` (fed an
                `IndexedSlicesValue` or a `(values, indices[, dense_shape])` tuple),
                a (nested) tuple of keys fed a value of the same structure, or an
                object of a type registered with
                `register_session_run_conversion_functions`. A Python `int` the fed
                tensor's type cannot hold exactly is a `TypeError`, as in TF.
            options: A `RunOptions` message: `timeout_in_ms` bounds how long the run may
                block (on a queue); a `trace_level` above `NO_TRACE` records step
                statistics.
            run_metadata: A `RunMetadata` message, cleared by the run; a traced run fills
                its `step_stats` (per node: start and end times, thread, outputs).

        Returns:
            The values, in the structure of `fetches`: numpy arrays (numpy scalars for
            rank 0, bytes for a string scalar) and `None` for ops.

        Raises:
            RuntimeError: If the session is closed.
            TypeError: If a fetch or feed has a type that cannot be used.
            ValueError: If a fed value has the wrong shape or a fetch does not exist.
            tf.errors.OpError: If an op fails while running.
        """
        plan, values = self._prepare_run(fetches, feed_dict)
        return self._call(plan, values, options, run_metadata)

    def _prepare_run(self, fetches, feed_dict):
        """The plan for `fetches` and the fed values checked and converted for it."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._graph.version == 0:
            raise RuntimeError(
                "The Session graph is empty.  Add operations to the graph before calling run()."
            )
        if self._placed_version < self._graph.version:
            self._place_graph()
        feed_dict = _expand_feeds(feed_dict)
        plan = self._plan_for(fetches, feed_dict)
        if not feed_dict:
            return plan, ()
        values = [
            _feed_value(v, t, d)
            for v, t, d in zip_strict(feed_dict.values(), plan.feed_tensors, plan.feed_dtypes)
        ]
        return plan, values

    def _run_to_handles(self, fetches, feed_dict=None):
        """Runs like `run`, keeping the fetched values in Rust as `TensorHandle`s.

        Nothing is copied: a handle shares its tensor's buffer, so a handle to a
        variable's value is a snapshot (a later in-place update copies first), and
        feeding a handle back shares it again.
        """
        plan, values = self._prepare_run(fetches, feed_dict)
        try:
            return plan.build(plan.native.run_to_handles(*values))
        except _errors.OpError as e:
            self._attach_op(e)
            raise

    def _native_plan(self, fetch):
        """The native plan that runs `fetch` (a tensor, op or name) with no feeds.

        The protocol by which `QueueRunner` runs its loops in Rust: an object without
        this method (another session class, a wrapper) gets Python threads instead.
        """
        return self._compile(fetch, []).native

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function that runs `fetches` with feeds given positionally for `feed_list`.

        Args:
            fetches: As for `run`.
            feed_list: Tensors (or names) fed, in the order the callable takes them.
            accept_options: If True the callable also takes `options` and
                `run_metadata` keyword arguments.

        Returns:
            A function `callable(*feed_values)` returning what `run` would.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        feed_tensors = [_feed_tensor(self._graph, k) for k in (feed_list or [])]
        plan = self._compile(fetches, feed_tensors)
        native_run, build = plan.native.run, plan.build
        if not feed_tensors and not accept_options:

            def run_no_feeds():
                if self._closed:
                    raise RuntimeError("Attempted to use a closed Session.")
                try:
                    return build(native_run())
                except _errors.OpError as e:
                    self._attach_op(e)
                    raise

            return run_no_feeds
        conversions = list(zip_strict(plan.feed_tensors, plan.feed_dtypes))

        def run_with_feeds(*args, options=None, run_metadata=None):
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            if len(args) != len(conversions):
                raise TypeError(f"Expected {len(conversions)} feed values, got {len(args)}")
            values = [_feed_value(v, t, d) for v, (t, d) in zip_strict(args, conversions)]
            return self._call(plan, values, options, run_metadata)

        return run_with_feeds

    def _make_callable_from_options(self, callable_options):
        """A callable for a `CallableOptions` message (TF's `Session::MakeCallable`).

        The callable takes one value per `callable_options.feed` (tensor names), each
        already of its tensor's dtype (no conversion), and returns the list of the
        `fetch` tensors' values; the `target` ops run too. `run_options` apply to
        every call: with a `trace_level`, a `run_metadata=` keyword argument gets the
        step statistics.

        Raises:
            tf.errors.CancelledError: If the session is closed.
            tf.errors.InvalidArgumentError: If a name is not in the graph or a tensor
                is fed twice.
            tf.errors.UnimplementedError: For `tensor_connection`s.
        """
        if self._closed:
            raise _errors.CancelledError(None, None, "Session has been closed.")
        if callable_options.tensor_connection:
            raise _errors.UnimplementedError(
                None, None, "CallableOptions.tensor_connection is not supported by ferroflow"
            )
        feed_tensors = []
        seen = set()
        for name in callable_options.feed:
            t = self._callable_tensor(name)
            if t.name in seen:
                raise _errors.InvalidArgumentError(
                    None, None, f'Endpoint "{t.name}" fed more than once.'
                )
            seen.add(t.name)
            feed_tensors.append(t)
        fetch_tensors = [self._callable_tensor(name) for name in callable_options.fetch]
        targets = []
        for name in callable_options.target:
            try:
                targets.append(self._graph.get_operation_by_name(name))
            except KeyError:
                raise _errors.NotFoundError(
                    None, None, f"Node '{name}' is not found in the graph."
                ) from None
        plan = self._compile([*fetch_tensors, *targets], feed_tensors)
        plan.build = _take_fetches(plan.build, len(fetch_tensors))
        run_options = callable_options.run_options
        options = run_options if run_options.ByteSize() else None
        return _Callable(self, plan, options)

    def _callable_tensor(self, name) -> ops.Tensor:
        """The tensor a `CallableOptions` name denotes (`"op"` is `"op:0"`)."""
        name = name if ":" in name else f"{name}:0"
        try:
            return self._graph.get_tensor_by_name(name)
        except (KeyError, ValueError):
            raise _errors.InvalidArgumentError(
                None,
                None,
                f"Tensor {name}, specified in either feed_devices or fetch_devices was not "
                "found in the Graph",
            ) from None

    def partial_run_setup(self, fetches, feeds=None):
        """Not supported by ferroflow."""
        raise NotImplementedError("partial_run is not supported by ferroflow")


def _spec_matches(spec, full) -> bool:
    """Whether the full device name `full` satisfies the (partial) device spec `spec`."""
    return (
        spec.job in (None, full.job)
        and spec.replica in (None, full.replica)
        and spec.task in (None, full.task)
        and (spec.device_type is None or spec.device_type.upper() == full.device_type.upper())
        and spec.device_index in (None, full.device_index)
    )


def _first(results):
    return results[0]


def _take_fetches(build, n):
    """`build` (of a `[*fetches, *targets]` list) keeping the fetched values only."""
    return lambda r: build(r)[:n]


class _Callable:
    """What `_make_callable_from_options` returns: runs one compiled signature."""

    def __init__(self, session: BaseSession, plan: _FetchPlan, options):
        self._session = session
        self._plan = plan
        self._options = options

    def __call__(self, *args, **kwargs):
        """Runs with one value per feed; returns the list of fetched values.

        Args:
            *args: The fed values, each of its tensor's dtype (TF converts none).
            **kwargs: `run_metadata`: a `RunMetadata` message the run fills (step
                statistics when the callable's run options trace).

        Raises:
            tf.errors.CancelledError: If the session is closed.
            tf.errors.InvalidArgumentError: If the number of values or a value's
                dtype is wrong.
        """
        session, plan = self._session, self._plan
        if session._closed:
            raise _errors.CancelledError(None, None, "Session has been closed.")
        if len(args) != len(plan.feed_tensors):
            raise _errors.InvalidArgumentError(
                None, None, f"Expected {len(plan.feed_tensors)} feed tensors, but got {len(args)}"
            )
        values = []
        for arg, t, dtype in zip_strict(args, plan.feed_tensors, plan.feed_dtypes):
            if not isinstance(arg, _ferroflow.TensorHandle):
                array = np.asarray(arg)
                actual = _callable_dtype(array)
                if actual != dtype:
                    raise _errors.InvalidArgumentError(
                        None,
                        None,
                        f"Type mismatch: actual {_type_string(actual)} vs. expect "
                        f"{_type_string(dtype)}",
                    )
                arg = array
            values.append(_feed_value(arg, t, dtype))
        return session._call(plan, values, self._options, kwargs.get("run_metadata"))


def _callable_dtype(array: np.ndarray):
    """The tensor dtype TF gives a numpy array passed to a callable."""
    if array.dtype.kind in "OSU":
        return dtypes.string
    try:
        return dtypes.as_dtype(array.dtype)
    except TypeError:
        return None


# TF's `DataTypeString` names where they differ from the Python names.
_TYPE_STRINGS = {"float16": "half", "float32": "float", "float64": "double"}


def _type_string(dtype) -> str:
    if dtype is None:
        return "invalid"
    return _TYPE_STRINGS.get(dtype.name, dtype.name)


class Session(BaseSession):
    """A TF-1.x session: runs graph fragments with its own variable values.

    Example:
        ```python
        a = tf.constant(5.0)
        b = tf.constant(6.0)
        with tf.Session() as sess:
            print(sess.run(a * b))  # 30.0
        ```
    """

    def __init__(self, target="", graph=None, config=None):
        """Creates a session on `graph` (default: the default graph).

        Args:
            target: `""` for an in-process session.
            graph: The graph to run.
            config: A `ConfigProto`; its thread-pool sizes are honoured.
        """
        super().__init__(target, graph, config)

    @staticmethod
    def reset(target, containers=None, config=None):
        """Resets resource containers on `target`, and closes all connected sessions.

        A resource container is distributed across all workers in the same cluster
        as `target`. When a resource container on `target` is reset, resources
        associated with that container will be cleared. In particular, all Variables
        in the container will become undefined: they lose their values and shapes.
        For the in-process target `""` this closes every direct session of the
        process, as TF does.

        Args:
            target: The execution engine to connect to (`""`: in-process).
            containers: A list of resource container name strings, or `None` to reset
                the default container.
            config: (Optional.) Protocol buffer with configuration options (unused).

        Raises:
            tf.errors.OpError: Or one of its subclasses if an error occurs while
                resetting containers (`NotFoundError` for an unknown target).
        """
        del config  # TF accepts it too; no reset option depends on it.
        _ferroflow.reset_sessions(_target_str(target), [str(c) for c in containers or ()])


class InteractiveSession(BaseSession):
    """A session that installs itself as the default session when created (for shells)."""

    # As TF's: creating one while another is open (not closed) warns.
    _count_lock = threading.Lock()
    _active_session_count = 0

    def __init__(self, target="", graph=None, config=None):
        """Creates the session and makes it the default session.

        As TF's, the session's graph becomes the default graph only when `graph` is
        given (an interactive session on the default graph leaves the graph stack as
        it is, so a session dropped without `close()` does not block
        `reset_default_graph`). As TF's, it places only what each run needs
        (`config.graph_options.place_pruned_graph` is set, in `config` itself).
        """
        if config is None:
            from .. import protos

            config = protos.ConfigProto(gpu_options=protos.GPUOptions(allow_growth=True))
        config.graph_options.place_pruned_graph = True
        super().__init__(target, graph, config)
        with InteractiveSession._count_lock:
            if InteractiveSession._active_session_count > 0:
                warnings.warn(
                    "An interactive session is already active. This can cause out-of-memory "
                    "errors in some cases. You must explicitly call "
                    "`InteractiveSession.close()` to release resources held by the other "
                    "session(s).",
                    stacklevel=2,
                )
            InteractiveSession._active_session_count += 1
        self._default_context = self.as_default()
        self._default_context.__enter__()
        self._graph_context = None
        if graph is not None:
            self._graph_context = graph.as_default()
            self._graph_context.__enter__()
        self._explicitly_closed = False

    def close(self) -> None:
        """Closes the session and removes it from the default-session stack."""
        super().close()
        with InteractiveSession._count_lock:
            if getattr(self, "_explicitly_closed", True):
                return
            InteractiveSession._active_session_count -= 1
            self._explicitly_closed = True
        for attr in ("_graph_context", "_default_context"):
            ctx = getattr(self, attr, None)
            setattr(self, attr, None)
            if ctx is not None:
                with contextlib.suppress(Exception):
                    ctx.__exit__(None, None, None)
