"""framework/ is the bottom floor: it imports nothing from the layers above it.

The layers above hook into it instead, as TensorFlow's do: constant_op (and variables,
math_ops) register tensor conversions, indexing_ops and math_ops install the tensor
operators, and the default-session stack lives in ops.py beside the default graph.
"""

import ast
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ferroflow as ff
from ferroflow.framework import ops

PACKAGE = pathlib.Path(ff.__file__).parent
FRAMEWORK = PACKAGE / "framework"
# What the framework may import from ferroflow: itself and the leaves below it.
FLOOR = (
    "ferroflow.framework",
    "ferroflow._ferroflow",
    "ferroflow.protos",
    "ferroflow.errors",
    "ferroflow._compat",
)


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: pathlib.Path):
    """(line, absolute module) of every import in `path`, at any depth of the file."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return _imports_in(path.read_text(), package)


def _imports_in(source: str, package: str):
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if node.module:
                yield node.lineno, module
            else:  # `from .. import x`: x is a module (or an attribute of the package)
                for alias in node.names:
                    yield node.lineno, f"{module}.{alias.name}"


def _within(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _modules(directory: pathlib.Path):
    return sorted(directory.rglob("*.py"))


def test_the_walker_sees_imports_inside_functions_and_classes():
    # The checks below are only as good as this.
    source = (
        "from . import dtypes\n"
        "def f():\n    from ..ops import array_ops\n"
        "class C:\n    import ferroflow.train\n"
        "    def g(self):\n        from .. import summary\n"
    )
    assert sorted(m for _, m in _imports_in(source, "ferroflow.framework")) == [
        "ferroflow.framework.dtypes",
        "ferroflow.ops",
        "ferroflow.summary",
        "ferroflow.train",
    ]


@pytest.mark.parametrize("path", _modules(FRAMEWORK), ids=lambda p: p.name)
def test_framework_imports_nothing_above_it(path):
    above = [
        f"{path.name}:{line}: {module}"
        for line, module in _imports(path)
        if module.split(".")[0] == "ferroflow" and not _within(module, FLOOR)
    ]
    assert not above, "framework/ must not import the layers above it:\n" + "\n".join(above)


@pytest.mark.parametrize("path", _modules(FRAMEWORK), ids=lambda p: p.name)
def test_framework_has_no_dynamic_imports(path):
    # An `importlib.import_module("ferroflow.ops...")` would hide a circle from the walk.
    calls = [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "__import__")
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
        )
    ]
    assert not calls, f"{path.name}: dynamic imports at lines {calls}"


def test_ops_imports_neither_session_nor_constant_op():
    # Tensor.eval, Operation.run and convert_to_tensor reach them through hooks.
    modules = {m for _, m in _imports(FRAMEWORK / "ops.py")}
    banned = {"ferroflow.framework.session", "ferroflow.framework.constant_op"}
    assert not modules & banned


@pytest.mark.parametrize("leaf", ["protos", "errors"])
def test_the_leaves_under_framework_import_only_the_native_module(leaf):
    paths = _modules(PACKAGE / leaf)
    assert paths
    for path in paths:
        for line, module in _imports(path):
            if module.split(".")[0] == "ferroflow":
                assert module == "ferroflow._ferroflow", f"{path.name}:{line}: {module}"


def _child(body: str) -> dict:
    """Runs `body` in a fresh interpreter; it prints one JSON line, returned here."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PACKAGE.parent), *sys.path]))
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(body)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_the_framework_runs_alone_without_the_layers_above():
    # `ferroflow/__init__.py` is not run: a bare package object stands in for it, so
    # only what framework/ imports gets loaded.
    out = _child(
        f"""
        import json, sys, types
        pkg = types.ModuleType("ferroflow")
        pkg.__path__ = [{str(PACKAGE)!r}]
        sys.modules["ferroflow"] = pkg
        from ferroflow.framework import constant_op, ops, session

        loaded = sorted(
            m for m in sys.modules
            if m.startswith("ferroflow.") and not m.startswith(
                ("ferroflow.framework", "ferroflow._ferroflow", "ferroflow.protos",
                 "ferroflow.errors", "ferroflow._compat")
            )
        )
        c = constant_op.constant([[1.0, 2.0], [3.0, 4.0]])
        listed = ops.convert_to_tensor([[1, 2]], name="listed")
        noop = ops.create_op("NoOp", [], name="noop")
        with session.Session() as sess:
            assert ops.get_default_session() is sess
            value = c.eval()
            noop.run()
        try:
            c[0]
            subscriptable = True
        except TypeError:
            subscriptable = False
        print(json.dumps({{
            "loaded": loaded,
            "value": value.tolist(),
            "listed": [listed.dtype.name, listed.op.name],
            "subscriptable": subscriptable,
        }}))
        """
    )
    assert out["loaded"] == []
    assert out["value"] == [[1.0, 2.0], [3.0, 4.0]]
    assert out["listed"] == ["int32", "listed"]
    # `__getitem__` is the indexing ops' to install; without them a tensor has none.
    assert out["subscriptable"] is False


def test_importing_the_framework_first_gives_the_whole_api():
    out = _child(
        """
        import json
        import ferroflow.framework.ops as ops
        from ferroflow.framework import constant_op
        import ferroflow as tf

        c = constant_op.constant([[1.0, 2.0], [3.0, 4.0]])
        row = c[1]
        listed = ops.convert_to_tensor([1.5, 2.5])
        v = tf.Variable([1.0, 2.0])
        with tf.Session() as sess:
            tf.global_variables_initializer().run()
            print(json.dumps({
                "row": row.eval().tolist(),
                "sum": (c + listed).eval().tolist(),
                "var": v[1].eval().item(),
                "listed": listed.dtype.name,
            }))
        """
    )
    assert out == {
        "row": [3.0, 4.0],
        "sum": [[2.5, 4.5], [4.5, 6.5]],
        "var": 2.0,
        "listed": "float32",
    }


# -- the conversion registry (TF's tensor_conversion_registry semantics) ----------------


def test_conversion_functions_run_by_priority_and_not_implemented_passes_on():
    class Base:
        pass

    class Derived(Base):
        def __init__(self, value):
            self.value = value

    calls = []

    def declines(v, dtype=None, name=None, as_ref=False):
        calls.append("declines")
        return NotImplemented

    def converts(v, dtype=None, name=None, as_ref=False):
        calls.append("converts")
        return ff.constant(v.value, dtype=dtype, name=name)

    def never(v, dtype=None, name=None, as_ref=False):
        calls.append("never")
        raise AssertionError("a later function ran after one converted")

    ops.register_tensor_conversion_function(Base, never, priority=50)
    ops.register_tensor_conversion_function(Derived, converts, priority=10)
    ops.register_tensor_conversion_function(Base, declines, priority=5)
    t = ff.convert_to_tensor(Derived(3.0), name="d")
    assert calls == ["declines", "converts"]
    assert (t.dtype, t.op.name) == (ff.float32, "d")


def test_conversion_with_a_preferred_dtype_falls_back_to_the_values_own():
    t = ff.convert_to_tensor(2, preferred_dtype=ff.float32)
    assert t.dtype == ff.float32
    t = ff.convert_to_tensor(2.5, preferred_dtype=ff.int32)  # not an int: float32
    assert t.dtype == ff.float32
    v = ff.Variable([1.0])
    assert ff.convert_to_tensor(v, preferred_dtype=ff.int32).dtype == ff.float32
    with pytest.raises(ValueError, match="Incompatible type conversion requested"):
        ff.convert_to_tensor(v, dtype=ff.int32)


def test_conversion_errors():
    with pytest.raises(TypeError, match="base_type must be a type"):
        ops.register_tensor_conversion_function("list", lambda v, **kw: v)
    with pytest.raises(TypeError, match="conversion_func must be callable"):
        ops.register_tensor_conversion_function(list, None)

    class Odd:
        pass

    ops.register_tensor_conversion_function(Odd, lambda v, dtype=None, name=None, as_ref=False: 1)
    with pytest.raises(RuntimeError, match="returned non-Tensor"):
        ff.convert_to_tensor(Odd())
    with pytest.raises(TypeError, match="Can't convert Operation"):
        ff.convert_to_tensor(ff.no_op())


@pytest.mark.tf_oracle
def test_shapes_and_dimensions_convert_as_in_tensorflow(tf1):
    def build(tf):
        return [
            tf.convert_to_tensor(tf.TensorShape([2, 3])),
            tf.convert_to_tensor(tf.Dimension(4), dtype=tf.int64),
            tf.convert_to_tensor(tf.TensorShape([2**31, 1])),
        ]

    g = ff.Graph()
    with g.as_default():
        ours = build(ff)
        with ff.Session() as sess:
            values = sess.run(ours)
    theirs_g = tf1.Graph()
    with theirs_g.as_default():
        theirs = build(tf1)
        with tf1.Session() as sess:
            expected = sess.run(theirs)
    for a, b in zip(ours, theirs, strict=True):
        assert (a.name, a.dtype.name) == (b.name, b.dtype.name)
    for a, b in zip(values, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    for lib in (ff, tf1):
        with pytest.raises(ValueError, match="partially known TensorShape"):
            lib.convert_to_tensor(lib.TensorShape([None, 3]))
        with pytest.raises(TypeError, match=r"Allowed dtypes are tf\.int32 and tf\.int64"):
            lib.convert_to_tensor(lib.TensorShape([1]), dtype=lib.float32)


def test_operators_are_installed_once_and_only_overloadable_ones():
    with pytest.raises(ValueError, match="cannot be overwritten again"):
        ops.Tensor._override_operator("__getitem__", lambda t, s: t)
    with pytest.raises(ValueError, match="cannot be overwritten again"):
        ops.Tensor._override_operator("__add__", lambda a, b: a)
    with pytest.raises(ValueError, match="Overriding __call__ is disallowed"):
        ops.Tensor._override_operator("__call__", lambda t: t)
    # What the layers above installed.
    for name in ("__getitem__", "__add__", "__radd__", "__lt__", "__neg__", "__matmul__"):
        assert name in vars(ops.Tensor), name
