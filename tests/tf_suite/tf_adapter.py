"""Runs TensorFlow's own unit tests on ferroflow: TF's internal imports, resolved.

TensorFlow's tests import TF's internal modules (`from tensorflow.python.framework
import ops`, `from tensorflow.python.platform import test`, ...). `install("ferroflow")`
puts a module under each of those names in `sys.modules`, before the test module is
imported, built from ferroflow's public API:

* most are ferroflow's own modules under TF's name (`tensorflow.python.training.saver`
  *is* `ferroflow.train.saver`, so `mock.patch.object(saver_module, "time")` patches
  ferroflow);
* where TF keeps a name in another module than ferroflow does, a *shim* module serves
  the names of one or more ferroflow modules (`_shim`);
* `tensorflow.python.platform.test` and `...framework.test_util` are TF's test harness
  (`TestCase` with `cached_session`, `evaluate`, `assertRaisesOpError`, ...), written
  here after TF 1.15's, over ferroflow sessions;
* a few TF internals ferroflow does not and should not have (object-based checkpoints,
  Keras models) are placeholders whose use raises, so that the test module imports;
  the tests using them are in `SKIPS`.

`install("tensorflow")` is the same for real TensorFlow (the denominator): TF 2.21 with
v2 behaviour disabled, plus aliases for the modules TF moved since 1.15.

Only names the vendored tests use are mapped; a name ferroflow lacks stays missing, so
its test fails (an `AttributeError`), which is what the runner is for.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import importlib.util
import os
import random
import re
import shutil
import sys
import tempfile
import types
import unittest
from pathlib import Path
from unittest import mock

VENDORED = Path(__file__).resolve().parent / "vendored"

# Tests skipped on ferroflow, by `Class.method`, each with why. Only tests that need
# TF internals ferroflow does not and should not have: eager execution, object-based
# (`tracking`) checkpoints and the `CheckpointManager` built on them, Keras models, and
# resource-variable internals. They still run under TensorFlow (the runner reports them
# apart and leaves them out of the pass-rate denominator).
_EAGER = "eager execution (context.eager_mode); ferroflow is graph-only"
_TRACKABLE = "object-based (tracking) checkpoints / Trackable; not in ferroflow"
_MANAGER = "CheckpointManager over a tracking.util.Checkpoint (object-based)"
SKIPS: dict[str, dict[str, str]] = {
    "saver_test": {
        "SaverTest.testEagerBasic": _EAGER,
        "SaverTest.testEagerGraphCompatibility": _EAGER,
        "MaxToKeepTest.testMaxToKeepEager": _EAGER,
        "RecoverLastCheckpointsTest.test_recover_last_checkpoints": _EAGER,
        "TrackableCompatibilityTests.testSingleTensorEvaluation": _EAGER,
        "TrackableCompatibilityTests.testNotSaveableButIsTrackable": _TRACKABLE,
        "TrackableCompatibilityTests.testMoreComplexSaveableReturned": _TRACKABLE,
        "TrackableCompatibilityTests.testLoadFromObjectBasedGraph": _TRACKABLE
        + " (and a Keras Model)",
        "TrackableCompatibilityTests.testLoadFromObjectBasedEager": _TRACKABLE + " and " + _EAGER,
        # TF's ResourceVariableSaveable saves a CPU copy of a resource variable's value,
        # placed on the variable's job ("/job:ps/device:CPU:0"); ferroflow's variables
        # are ref variables, saved in place.
        "SaverTest.testResourceColocation": "resource_variable_ops internals (the CPU copy "
        "TF's ResourceVariableSaveable saves)",
    },
    "checkpoint_management_test": {
        f"CheckpointManagerTest.{name}": _MANAGER
        for name in (
            "testDeletion",
            "testKeepAll",
            "testSaveRestoreState",
            "testContinueFromUnmanaged",
            "testClockReset",
            "testCustomNumbering",
            "testCustomCheckpointPrefix",
        )
    },
}


# -- module plumbing --------------------------------------------------------------------
def _module(name: str, **attrs) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    return mod


def _shim(name: str, *bases, **extras) -> types.ModuleType:
    """A module with `extras`, then every name of `bases` (modules, in order)."""
    mod = _module(name, **extras)

    def __getattr__(attr):
        for base in bases:
            if hasattr(base, attr):
                return getattr(base, attr)
        raise AttributeError(f"module {name!r} (ferroflow shim) has no attribute {attr!r}")

    mod.__getattr__ = __getattr__  # type: ignore[method-assign]
    return mod


def _register(name: str, mod: types.ModuleType) -> None:
    """Puts `mod` in `sys.modules` as `name`, with every parent package created."""
    parts = name.split(".")
    for i in range(1, len(parts)):
        parent = ".".join(parts[:i])
        if parent not in sys.modules:
            pkg = _module(parent)
            pkg.__path__ = []  # a package, so that submodules import
            sys.modules[parent] = pkg
    sys.modules[name] = mod
    if len(parts) > 1:
        setattr(sys.modules[".".join(parts[:-1])], parts[-1], mod)


def _load_vendored(module_name: str, filename: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, VENDORED / filename)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = mod
    spec.loader.exec_module(mod)
    return mod


class _Placeholder:
    """A TF internal ferroflow does not have: subclassable, but creating one raises."""

    _what = "a TensorFlow internal"

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}: {self._what}, not in ferroflow")


def _placeholder_class(name: str, what: str) -> type:
    return type(name, (_Placeholder,), {"_what": what})


def _unavailable(name: str, what: str):
    def f(*args, **kwargs):
        raise NotImplementedError(f"{name}: {what}, not in ferroflow")

    f.__name__ = name
    return f


# -- TF's test harness over ferroflow (after TF 1.15's test_util.TensorFlowTestCase) ----
_TEMP_ROOT: list[str] = []


def _global_temp_dir() -> str:
    """`tf.test.get_temp_dir()`: one directory for the whole run."""
    if not _TEMP_ROOT:
        _TEMP_ROOT.append(tempfile.mkdtemp(prefix="tf_suite_"))
        atexit.register(shutil.rmtree, _TEMP_ROOT[0], ignore_errors=True)
    return _TEMP_ROOT[0]


def _make_test_module():
    import numpy as np
    from google.protobuf import text_format

    import ferroflow as ff
    from ferroflow import errors
    from ferroflow.framework import ops
    from ferroflow.framework import session as session_lib

    class TestCase(unittest.TestCase):
        """TF 1.15's `tf.test.TestCase`, graph mode, over ferroflow sessions."""

        def __init__(self, methodName="runTest"):
            super().__init__(methodName)
            self._cached_session = None
            self._cached_graph = None
            self._tempdir = None

        def setUp(self):
            self._clear_cached_session()
            random.seed(87654321)
            np.random.seed(87654321)
            ops.reset_default_graph()
            ff.set_random_seed(87654321)

        def tearDown(self):
            self._clear_cached_session()

        def _clear_cached_session(self):
            if self._cached_session is not None:
                self._cached_session.close()
                self._cached_session = None

        def get_temp_dir(self):
            if not self._tempdir:
                self._tempdir = tempfile.mkdtemp(dir=_global_temp_dir())
            return self._tempdir

        # Sessions: TF's `session`, `cached_session` and `test_session`.
        @staticmethod
        def _create_session(graph, config):
            if config is None:
                config = ff.ConfigProto()
            config.allow_soft_placement = True
            return session_lib.Session(graph=graph, config=config)

        @contextlib.contextmanager
        def _constrain_devices_and_set_default(self, sess, use_gpu):
            with sess.graph.as_default(), sess.as_default():
                if use_gpu:
                    yield sess
                else:
                    with sess.graph.device("/device:CPU:0"):
                        yield sess

        def _get_cached_session(self, graph, config, crash_if_inconsistent_args):
            if self._cached_session is None:
                self._cached_session = self._create_session(graph, config)
                self._cached_graph = graph
            elif crash_if_inconsistent_args and self._cached_graph is not graph:
                raise ValueError(
                    "The graph used to get the cached session is different than the one "
                    "that was used to create the session. Maybe create a new session "
                    "with self.session()"
                )
            return self._cached_session

        @contextlib.contextmanager
        def session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
            del force_gpu
            with self._create_session(graph, config) as sess:
                with self._constrain_devices_and_set_default(sess, use_gpu):
                    yield sess

        @contextlib.contextmanager
        def cached_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
            del force_gpu
            sess = self._get_cached_session(graph, config, True)
            with self._constrain_devices_and_set_default(sess, use_gpu) as cached:
                yield cached

        @contextlib.contextmanager
        def test_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
            if graph is None:
                sess = self._get_cached_session(graph, config, False)
                with self._constrain_devices_and_set_default(sess, use_gpu) as cached:
                    yield cached
            else:
                with self.session(graph, config, use_gpu, force_gpu) as sess:
                    yield sess

        def evaluate(self, tensors):
            sess = ops.get_default_session()
            if sess is None:
                with self.test_session() as sess:
                    return sess.run(tensors)
            return sess.run(tensors)

        # Assertions.
        @contextlib.contextmanager
        def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
            if callable(expected_err_re_or_predicate):
                predicate = expected_err_re_or_predicate
            else:

                def predicate(e):
                    err_str = e.message if isinstance(e, errors.OpError) else str(e)
                    return re.search(expected_err_re_or_predicate, err_str)

            try:
                yield
                self.fail(exception_type.__name__ + " not raised")
            except Exception as e:
                if not isinstance(e, exception_type) or not predicate(e):
                    raise AssertionError(f"Exception of type {type(e)}: {e}") from e

        def assertRaisesOpError(self, expected_err_re_or_predicate):
            return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)

        def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
            a, b = np.asarray(a), np.asarray(b)
            self.assertEqual(a.shape, b.shape, msg)
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=msg or "")

        def assertAllEqual(self, a, b, msg=None):
            a, b = np.asarray(a), np.asarray(b)
            self.assertEqual(a.shape, b.shape, msg)
            np.testing.assert_array_equal(a, b, err_msg=msg or "")

        def assertNear(self, f1, f2, err, msg=None):
            self.assertTrue(abs(f1 - f2) <= err, msg or f"{f1} != {f2} +/- {err}")

        def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):
            if isinstance(expected_message_maybe_ascii, str):
                expected = type(message)()
                text_format.Merge(expected_message_maybe_ascii, expected)
            else:
                expected = expected_message_maybe_ascii
            self.assertMultiLineEqual(
                text_format.MessageToString(expected), text_format.MessageToString(message), msg
            )

    def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
        return ff.test.is_gpu_available(cuda_only, min_cuda_compute_capability)

    return _module(
        "tensorflow.python.platform.test",
        TestCase=TestCase,
        main=unittest.main,
        mock=mock,
        get_temp_dir=_global_temp_dir,
        is_gpu_available=is_gpu_available,
        gpu_device_name=ff.test.gpu_device_name,
        is_built_with_cuda=ff.test.is_built_with_cuda,
    )


def _make_test_util_module():
    import functools

    import ferroflow as ff
    from ferroflow import protos

    def run_deprecated_v1(func=None):
        # TF 1.x runs every test in graph mode already.
        return func

    def run_v1_only(reason, func=None):
        del reason
        return func if func is not None else (lambda f: f)

    def run_in_graph_and_eager_modes(
        func=None, config=None, use_gpu=True, reset_test=True, assert_no_eager_garbage=False
    ):
        """The graph-mode half of TF's decorator (ferroflow has no eager mode)."""
        del reset_test, assert_no_eager_garbage

        def decorator(f):
            @functools.wraps(f)
            def decorated(self, *args, **kwargs):
                with self.test_session(use_gpu=use_gpu, config=config):
                    f(self, *args, **kwargs)

            return decorated

        return decorator(func) if func is not None else decorator

    # What each bytes-list collection holds (TF's `ops.get_collection_proto_type`).
    proto_of = {
        ff.GraphKeys.GLOBAL_VARIABLES: protos.VariableDef,
        ff.GraphKeys.LOCAL_VARIABLES: protos.VariableDef,
        ff.GraphKeys.MODEL_VARIABLES: protos.VariableDef,
        ff.GraphKeys.TRAINABLE_VARIABLES: protos.VariableDef,
        ff.GraphKeys.MOVING_AVERAGE_VARIABLES: protos.VariableDef,
        ff.GraphKeys.QUEUE_RUNNERS: protos.QueueRunnerDef,
        ff.GraphKeys.SAVERS: protos.SaverDef,
        "cond_context": getattr(protos, "CondContextDef", None),
        "while_context": getattr(protos, "WhileContextDef", None),
    }

    def _nodes(graph_def):
        return {n.name: n for n in graph_def.node}

    def assert_equal_graph_def(expected, actual, checkpoint_v2=False):
        """TF's `assert_equal_graph_def`: same nodes (any order), attrs and inputs.

        Regular inputs compare in order, control inputs as a set (as TF's
        `EqualGraphDef`); versions are ignored. With `checkpoint_v2`, the randomized
        `_temp_<uuid>/part` names of V2 sharded savers compare equal.
        """

        def norm(graph_def):
            out = {}
            for name, node in _nodes(graph_def).items():
                node = type(node).FromString(node.SerializeToString())
                if checkpoint_v2 and node.op == "Const":
                    text = str(node.attr["value"])
                    if re.search(r"_temp_[0-9a-f]{32}/part", text):
                        node.attr["value"].Clear()
                regular = [i for i in node.input if not i.startswith("^")]
                control = sorted(i for i in node.input if i.startswith("^"))
                del node.input[:]
                node.input.extend(regular + control)
                out[name] = node
            return out

        a, b = norm(expected), norm(actual)
        if set(a) != set(b):
            raise AssertionError(
                f"Nodes differ: only expected {sorted(set(a) - set(b))}, "
                f"only actual {sorted(set(b) - set(a))}"
            )
        for name in a:
            if a[name] != b[name]:
                raise AssertionError(f"Node {name} differs:\n{a[name]}\nvs\n{b[name]}")
        # ferroflow's GraphDef has no function library.
        if getattr(expected, "library", None) != getattr(actual, "library", None):
            raise AssertionError("Function libraries differ")

    def assert_meta_graph_protos_equal(tester, a, b):
        """TF 1.15's: collections item by item, graphs by `assert_equal_graph_def`."""
        tester.assertEqual(set(a.collection_def), set(b.collection_def))
        for k in a.collection_def:
            a_value, b_value = a.collection_def[k], b.collection_def[k]
            proto_type = proto_of.get(k)
            if proto_type:
                tester.assertEqual(len(a_value.bytes_list.value), len(b_value.bytes_list.value))
                for a_item, b_item in zip(
                    a_value.bytes_list.value, b_value.bytes_list.value, strict=True
                ):
                    tester.assertProtoEquals(
                        proto_type.FromString(a_item), proto_type.FromString(b_item)
                    )
            else:
                tester.assertEqual(a_value, b_value)
        a.ClearField("collection_def")
        b.ClearField("collection_def")
        assert_equal_graph_def(a.graph_def, b.graph_def, checkpoint_v2=True)
        tester.assertProtoEquals(a.graph_def.versions, b.graph_def.versions)
        a.ClearField("graph_def")
        b.ClearField("graph_def")
        tester.assertProtoEquals(a, b)

    def get_node_def_from_graph(node_name, graph_def):
        for node_def in graph_def.node:
            if node_def.name == node_name:
                return node_def
        return None

    return _module(
        "tensorflow.python.framework.test_util",
        run_deprecated_v1=run_deprecated_v1,
        run_v1_only=run_v1_only,
        run_in_graph_and_eager_modes=run_in_graph_and_eager_modes,
        assert_equal_graph_def=assert_equal_graph_def,
        assert_meta_graph_protos_equal=assert_meta_graph_protos_equal,
        get_node_def_from_graph=get_node_def_from_graph,
    )


# -- the module map -------------------------------------------------------------------
def _gen_lookup_ops():
    """TF's generated lookup-op wrappers, over the same ops ferroflow's tables build."""
    from ferroflow.framework import dtypes, ops
    from ferroflow.ops._op_util import make_op

    def mutable_hash_table_v2(
        key_dtype,
        value_dtype,
        container="",
        shared_name="",
        use_node_name_sharing=False,
        name=None,
    ):
        attrs = {
            "container": container,
            "shared_name": shared_name,
            "use_node_name_sharing": use_node_name_sharing,
            "key_dtype": dtypes.as_dtype(key_dtype),
            "value_dtype": dtypes.as_dtype(value_dtype),
        }
        return make_op("MutableHashTableV2", [], attrs, name=name or "MutableHashTableV2").outputs[
            0
        ]

    def _op(op_type, inputs, attrs=None, name=None):
        with ops.name_scope(name, op_type, inputs) as scope:
            inputs = [ops.convert_to_tensor(t) for t in inputs]
            return make_op(op_type, inputs, attrs, scope=scope)

    def lookup_table_insert_v2(table_handle, keys, values, name=None):
        return _op("LookupTableInsertV2", [table_handle, keys, values], name=name)

    def lookup_table_import_v2(table_handle, keys, values, name=None):
        return _op("LookupTableImportV2", [table_handle, keys, values], name=name)

    def lookup_table_find_v2(table_handle, keys, default_value, name=None):
        return _op("LookupTableFindV2", [table_handle, keys, default_value], name=name).outputs[0]

    def lookup_table_export_v2(table_handle, Tkeys, Tvalues, name=None):
        attrs = {"Tkeys": dtypes.as_dtype(Tkeys), "Tvalues": dtypes.as_dtype(Tvalues)}
        return tuple(_op("LookupTableExportV2", [table_handle], attrs, name=name).outputs)

    return _module(
        "tensorflow.python.ops.gen_lookup_ops",
        mutable_hash_table_v2=mutable_hash_table_v2,
        lookup_table_insert_v2=lookup_table_insert_v2,
        lookup_table_import_v2=lookup_table_import_v2,
        lookup_table_find_v2=lookup_table_find_v2,
        lookup_table_export_v2=lookup_table_export_v2,
    )


def _file_io():
    from ferroflow.platform import gfile

    def write_string_to_file(filename, file_content):
        with gfile.GFile(filename, "w") as f:
            f.write(file_content)

    def read_file_to_string(filename, binary_mode=False):
        with gfile.GFile(filename, "rb" if binary_mode else "r") as f:
            return f.read()

    return _module(
        "tensorflow.python.lib.io.file_io",
        write_string_to_file=write_string_to_file,
        read_file_to_string=read_file_to_string,
    )


def _ferroflow_modules() -> dict[str, types.ModuleType]:
    import ferroflow as ff
    import ferroflow.compat
    import ferroflow.data.dataset_ops
    import ferroflow.data.iterator_ops
    import ferroflow.errors
    import ferroflow.framework.constant_op
    import ferroflow.framework.dtypes
    import ferroflow.framework.meta_graph
    import ferroflow.framework.ops
    import ferroflow.framework.session
    import ferroflow.ops.array_ops
    import ferroflow.ops.control_flow_ops
    import ferroflow.ops.data_flow_ops
    import ferroflow.ops.gradients
    import ferroflow.ops.math_ops
    import ferroflow.ops.partitioned_variables
    import ferroflow.ops.random_ops
    import ferroflow.ops.sparse_ops
    import ferroflow.ops.variable_scope
    import ferroflow.ops.variables
    import ferroflow.platform.gfile
    import ferroflow.platform.tf_logging
    import ferroflow.protos
    import ferroflow.summary
    import ferroflow.train.adam
    import ferroflow.train.checkpoint_management
    import ferroflow.train.gradient_descent
    import ferroflow.train.queue_runner
    import ferroflow.train.saver
    import ferroflow.train.training_util

    Variable = ferroflow.ops.variables.Variable

    class ResourceVariable(Variable):
        """Stand-in for TF's graph-mode `ResourceVariable`: a ferroflow (ref) variable.

        The tests exercise the Saver through it; what differs in TF (a resource handle
        and read ops) is not what they check, except the tests in `SKIPS`.
        """

        @property
        def _shared_name(self):
            return self.op.name

    protos = ferroflow.protos
    placeholder = _placeholder_class
    trackable_what = "object-based checkpoints (tracking)"
    modules = {
        # Protocol buffers: every message class is in ferroflow.protos.
        "tensorflow.core.protobuf.config_pb2": protos,
        "tensorflow.core.protobuf.meta_graph_pb2": protos,
        "tensorflow.core.protobuf.queue_runner_pb2": protos,
        "tensorflow.core.protobuf.rewriter_config_pb2": protos,
        "tensorflow.core.protobuf.saver_pb2": protos,
        "tensorflow.python.training.checkpoint_state_pb2": protos,
        "tensorflow.python.pywrap_tensorflow": _module(
            "tensorflow.python.pywrap_tensorflow", NewCheckpointReader=ff.train.NewCheckpointReader
        ),
        "tensorflow.python.client.session": ferroflow.framework.session,
        "tensorflow.python.data.ops.dataset_ops": _shim(
            "tensorflow.python.data.ops.dataset_ops",
            ferroflow.data.dataset_ops,
            ferroflow.data.iterator_ops,
        ),
        "tensorflow.python.eager.context": _module(
            "tensorflow.python.eager.context",
            executing_eagerly=lambda: False,
            graph_mode=contextlib.nullcontext,
            eager_mode=_unavailable("eager_mode", "eager execution"),
        ),
        "tensorflow.python.framework.constant_op": ferroflow.framework.constant_op,
        "tensorflow.python.framework.dtypes": ferroflow.framework.dtypes,
        "tensorflow.python.framework.errors": ferroflow.errors,
        "tensorflow.python.framework.errors_impl": ferroflow.errors,
        # `function.Defun`: ferroflow has no function library.
        "tensorflow.python.framework.function": _shim("tensorflow.python.framework.function"),
        "tensorflow.python.framework.graph_io": _module(
            "tensorflow.python.framework.graph_io", write_graph=ferroflow.train.saver.write_graph
        ),
        "tensorflow.python.framework.meta_graph": ferroflow.framework.meta_graph,
        "tensorflow.python.framework.ops": _shim(
            "tensorflow.python.framework.ops",
            ferroflow.framework.ops,
            ferroflow.framework.session,
        ),
        "tensorflow.python.framework.test_util": _make_test_util_module(),
        "tensorflow.python.keras.engine.training": _module(
            "tensorflow.python.keras.engine.training",
            Model=placeholder("Model", "Keras models"),
        ),
        "tensorflow.python.keras.layers.core": _module(
            "tensorflow.python.keras.layers.core", Dense=placeholder("Dense", "Keras layers")
        ),
        "tensorflow.python.lib.io.file_io": _file_io(),
        "tensorflow.python.ops.array_ops": ferroflow.ops.array_ops,
        "tensorflow.python.ops.control_flow_ops": ferroflow.ops.control_flow_ops,
        "tensorflow.python.ops.data_flow_ops": ferroflow.ops.data_flow_ops,
        "tensorflow.python.ops.gen_lookup_ops": _gen_lookup_ops(),
        "tensorflow.python.ops.gradients_impl": ferroflow.ops.gradients,
        "tensorflow.python.ops.math_ops": _shim(
            "tensorflow.python.ops.math_ops", ferroflow.ops.math_ops, ff
        ),
        "tensorflow.python.ops.nn_grad": _module("tensorflow.python.ops.nn_grad"),
        "tensorflow.python.ops.nn_ops": ff.nn,
        "tensorflow.python.ops.partitioned_variables": ferroflow.ops.partitioned_variables,
        "tensorflow.python.ops.random_ops": ferroflow.ops.random_ops,
        "tensorflow.python.ops.resource_variable_ops": _module(
            "tensorflow.python.ops.resource_variable_ops", ResourceVariable=ResourceVariable
        ),
        "tensorflow.python.ops.sparse_ops": ferroflow.ops.sparse_ops,
        # TF's graph-mode `variable_scope.variable` creates a `VariableV1`.
        "tensorflow.python.ops.variable_scope": _shim(
            "tensorflow.python.ops.variable_scope",
            ferroflow.ops.variable_scope,
            variable=Variable,
        ),
        # TF's `VariableV1` is `tf.compat.v1.Variable`: ferroflow's `Variable`.
        "tensorflow.python.ops.variables": _shim(
            "tensorflow.python.ops.variables", ferroflow.ops.variables, VariableV1=Variable
        ),
        "tensorflow.python.platform.gfile": ferroflow.platform.gfile,
        "tensorflow.python.platform.test": _make_test_module(),
        "tensorflow.python.platform.tf_logging": ferroflow.platform.tf_logging,
        "tensorflow.python.summary.summary": ferroflow.summary,
        "tensorflow.python.training.adam": ferroflow.train.adam,
        "tensorflow.python.training.checkpoint_management": (ferroflow.train.checkpoint_management),
        "tensorflow.python.training.gradient_descent": ferroflow.train.gradient_descent,
        "tensorflow.python.training.queue_runner_impl": ferroflow.train.queue_runner,
        "tensorflow.python.training.saver": ferroflow.train.saver,
        "tensorflow.python.training.training_util": ferroflow.train.training_util,
        "tensorflow.python.training.tracking.base": _module(
            "tensorflow.python.training.tracking.base",
            Trackable=placeholder("Trackable", trackable_what),
            VARIABLE_VALUE_KEY="VARIABLE_VALUE",
        ),
        "tensorflow.python.training.tracking.tracking": _module(
            "tensorflow.python.training.tracking.tracking",
            AutoTrackable=placeholder("AutoTrackable", trackable_what),
        ),
        "tensorflow.python.training.tracking.util": _module(
            "tensorflow.python.training.tracking.util",
            Checkpoint=placeholder("Checkpoint", trackable_what),
            add_variable=_unavailable("add_variable", trackable_what),
            gather_initializers=_unavailable("gather_initializers", trackable_what),
        ),
        "tensorflow.python.util.compat": ferroflow.compat,
    }
    return modules


def _tensorflow_modules() -> dict[str, types.ModuleType]:
    """Aliases for the TF 1.15 modules TF 2.21 moved (the rest import as they are)."""
    import tensorflow.python.pywrap_tensorflow as pywrap
    from tensorflow.python.checkpoint import checkpoint
    from tensorflow.python.ops import (
        array_ops,
        array_ops_stack,
        control_flow_ops,
        variable_scope,
        variable_v1,
        variables,
    )
    from tensorflow.python.ops import cond as cond_lib
    from tensorflow.python.ops import while_loop as while_loop_lib
    from tensorflow.python.trackable import autotrackable, base
    from tensorflow.python.training import py_checkpoint_reader

    return {
        "tensorflow.python.ops.array_ops": _shim(
            "tensorflow.python.ops.array_ops", array_ops, stack=array_ops_stack.stack
        ),
        # TF 1.15's `control_flow_ops.cond` and `while_loop` have modules of their own.
        "tensorflow.python.ops.control_flow_ops": _shim(
            "tensorflow.python.ops.control_flow_ops",
            control_flow_ops,
            cond=cond_lib.cond,
            while_loop=while_loop_lib.while_loop,
        ),
        # TF 1.15's graph-mode `variable_scope.variable` and `variables.VariableV1`
        # live in `variable_v1` now.
        "tensorflow.python.ops.variable_scope": _shim(
            "tensorflow.python.ops.variable_scope",
            variable_scope,
            variable=variable_v1.VariableV1,
        ),
        "tensorflow.python.ops.variables": _shim(
            "tensorflow.python.ops.variables", variables, VariableV1=variable_v1.VariableV1
        ),
        "tensorflow.python.pywrap_tensorflow": _shim(
            "tensorflow.python.pywrap_tensorflow",
            pywrap,
            NewCheckpointReader=py_checkpoint_reader.NewCheckpointReader,
        ),
        "tensorflow.python.training.tracking.base": base,
        "tensorflow.python.training.tracking.tracking": autotrackable,
        "tensorflow.python.training.tracking.util": checkpoint,
    }


def install(backend: str) -> None:
    """Makes `tensorflow.*` imports resolve for `backend` (`ferroflow` or `tensorflow`).

    Call once per process, before importing a vendored test module.
    """
    if backend == "ferroflow":
        if "tensorflow" in sys.modules:
            raise RuntimeError("real TensorFlow is already imported in this process")
        modules = _ferroflow_modules()
    elif backend == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        tf.compat.v1.disable_v2_behavior()
        modules = _tensorflow_modules()
    else:
        raise ValueError(f"unknown backend {backend!r}")
    for name, mod in modules.items():
        _register(name, mod)
    # The vendored helper module, under its TF name (both backends).
    _register(
        "tensorflow.python.training.saver_test_utils",
        _load_vendored("tensorflow.python.training.saver_test_utils", "saver_test_utils.py"),
    )


def load_test_module(test_file: str) -> types.ModuleType:
    """Imports a vendored test file (`saver_test.py`, or a path) as a module."""
    path = Path(test_file)
    if not path.exists():
        path = VENDORED / path.name
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def apply_skips(module: types.ModuleType) -> dict[str, str]:
    """Marks the module's tests listed in `SKIPS` as skipped; returns them."""
    skips = SKIPS.get(module.__name__, {})
    for key, reason in skips.items():
        cls_name, method = key.split(".")
        cls = getattr(module, cls_name)
        setattr(cls, method, unittest.skip(reason)(getattr(cls, method)))
    return skips


__all__ = ["SKIPS", "VENDORED", "apply_skips", "install", "load_test_module"]
