"""Wrappers of the fused optimizer ops (TF's `gen_training_ops`), derived from Rust.

Each updates a reference variable and its slots in place, in one pass in Rust, and
returns the variable reference. The functions here are not written out: they are made
at import from the core's table of optimizer ops (`training_op_signatures`), which
gives each op's inputs in TF's order, how each is given, its bool attr and its
docstring, so the Python signatures cannot drift from the kernels. They are TF's:
`apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
use_locking=False, use_nesterov=False, name=None)`, and so on.
"""

from __future__ import annotations

import inspect
import re

from .. import _ferroflow
from ..framework import dtypes, ops
from ._op_util import make_op
from .state_ops import _ref

__all__: list[str] = []


def _snake_case(op_type: str) -> str:
    """TF's Python name of an op (`ApplyRMSProp` -> `apply_rms_prop`)."""
    return re.sub(r"(?<!^)(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])", "_", op_type).lower()


def _convert(value, kind: str, dtype, name: str):
    """An input after the reference variables, as the op takes it."""
    want = {"T": dtype, "indices": None, "step": dtypes.int64}[kind]
    return ops.convert_to_tensor(value, dtype=want, name=name)


def _wrapper(op_type: str, inputs, flag, doc: str):
    """The Python function of one optimizer op."""
    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n, _ in inputs]
    attrs = [("use_locking", False)] + ([flag] if flag else [])
    params += [
        inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d) for a, d in attrs
    ]
    params.append(inspect.Parameter("name", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None))
    signature = inspect.Signature(params)

    def apply(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        given = bound.arguments
        refs = [_ref(given[n]) for n, kind in inputs if kind == "ref"]
        others = [(n, kind, given[n]) for n, kind in inputs if kind != "ref"]
        dtype = refs[0].dtype.base_dtype
        with ops.name_scope(given["name"], op_type, [*refs, *(v for _, _, v in others)]) as scope:
            converted = [_convert(v, kind, dtype, n) for n, kind, v in others]
            op_attrs = {a: bool(given[a]) for a, _ in attrs}
            return make_op(op_type, [*refs, *converted], op_attrs, scope=scope).outputs[0]

    name = _snake_case(op_type)
    apply.__name__ = apply.__qualname__ = name
    apply.__module__ = __name__
    apply.__signature__ = signature  # type: ignore[attr-defined]
    flag_doc = f"\n    {flag[0]}: TF's `{flag[0]}` attr (default {flag[1]})." if flag else ""
    apply.__doc__ = (
        f"{doc}\n\nAdds TF's `{op_type}` op: it updates the variable and its slots in place "
        "and returns the variable.\n\nArgs:\n"
        + "".join(f"    {n}: {_ARG_DOCS[kind]}\n" for n, kind in inputs)
        + "    use_locking: Accepted for TF's signature (updates always lock)."
        + flag_doc
        + "\n    name: A name for the operation.\n\nReturns:\n    The variable reference."
    )
    return name, apply


_ARG_DOCS = {
    "ref": "A reference variable (the variable, or one of its slots).",
    "T": "A tensor of the variable's dtype.",
    "indices": "An int32 or int64 vector: the rows of the variable to update.",
    "step": "An int64 scalar: the training step.",
}

for _op, _inputs, _flag, _doc in _ferroflow.training_op_signatures():
    _name, _fn = _wrapper(_op, _inputs, _flag, _doc)
    globals()[_name] = _fn
    __all__.append(_name)
del _op, _inputs, _flag, _doc, _name, _fn


def _stub_text() -> str:
    """The module's `.pyi`: each generated wrapper's signature, from the same table.

    `training_ops.pyi` is this text (a test checks it); regenerate it with
    `python -c "from ferroflow.ops import training_ops as t; print(t._stub_text(), end='')"
    > python/ferroflow/ops/training_ops.pyi`.
    """
    lines = [
        '"""Typing stub of the optimizer-op wrappers (generated from the core\'s table by',
        '`training_ops._stub_text`; do not edit)."""',
        "",
        "from typing import Any",
        "",
        "from ..framework.ops import Tensor",
        "",
        "__all__: list[str]",
        "",
        "def _stub_text() -> str: ...",
    ]
    for op_type, inputs, flag, _ in _ferroflow.training_op_signatures():
        params = [f"{n}: Any" for n, _ in inputs] + ["use_locking: bool = False"]
        if flag:
            params.append(f"{flag[0]}: bool = {flag[1]}")
        params.append("name: str | None = None")
        lines.append(f"def {_snake_case(op_type)}({', '.join(params)}) -> Tensor: ...")
    return "\n".join(lines) + "\n"
