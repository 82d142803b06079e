"""TF 1.x's `Defun` (`tensorflow/python/framework/function.py`): graph functions.

`@Defun(tf.float32, tf.float32)` makes a Python function a graph function with
declared argument types; `@Defun()` on a function of arguments defers the types to
each call (TF's `_OverloadedFunction`). Calling one adds its body to the caller's
graph, with its own gradient where one is given: `grad_func` (a `Defun` taking the
arguments, then one gradient per result) or `python_grad_func(op, *grads)`.

Departure from TF (docs/ARCHITECTURE.md): the body is traced at each call, inlined in
the caller's graph under the call's name scope, not kept as a `FunctionDef` in the
graph's function library and run by a call op. TF inlines calls of such functions
before it runs them too (`noinline=False`, the default), so the values are the same;
the graph's structure differs (no library, no `definition`). The call's results come
out of one `IdentityN` op named as TF names the call op (the function's name), which
also waits for the body's ops whose outputs nothing uses (a stateful op in a TF
function runs with the call), and which carries the gradient given by `grad_func` or
`python_grad_func`. Without either, the gradient is the body's own, as TF's
`SymbolicGradient`.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools

from .._compat import zip_strict
from ..framework import dtypes, ops
from . import array_ops, control_flow_ops

_uids = itertools.count()


def _func_name(func) -> str:
    """TF's `_get_func_name`: the callable's `__name__` (a partial's function's)."""
    while hasattr(func, "func") and not hasattr(func, "__name__"):
        func = func.func
    return getattr(func, "__name__", type(func).__name__)


class Defun:
    """Decorator making a Python function a graph function (TF 1.x's `Defun`).

    ```python
    @Defun(tf.float32, tf.float32)
    def xsq_plus_b(x, b):
        return x * x + b
    y = xsq_plus_b(x, b)
    ```

    Args:
        *input_types: The arguments' dtypes. None given: a function without arguments,
            or one whose types come from each call's arguments.
        **kwargs: `func_name` (the function's name), `grad_func` (a `Defun` computing
            the gradients: the arguments, then one gradient per result, in; one
            gradient per argument out), `python_grad_func` (`f(op, *grads)`, as a
            registered gradient function), `out_names` (accepted, as TF: result names of
            the `FunctionDef`), `shape_func` (`f(op)`: the results' shapes). TF's
            compilation options (`noinline`, `compiled`, ...) are accepted and change
            nothing here.
    """

    def __init__(self, *input_types, **kwargs):
        """Records the declared types and options; see the class docstring."""
        self._input_types = input_types
        self._func_name = kwargs.pop("func_name", None)
        self._grad_func = kwargs.pop("grad_func", None)
        self._python_grad_func = kwargs.pop("python_grad_func", None)
        self._out_names = kwargs.pop("out_names", None)
        self._extra_kwargs = kwargs

    def __call__(self, func):
        """The graph function of `func`."""
        if not callable(func):
            raise ValueError(f"function {func} must be callable")
        spec = inspect.getfullargspec(func)
        if spec.varkw or spec.defaults or spec.kwonlyargs:
            raise ValueError(
                "Functions with argument defaults or keyword arguments are not supported."
            )
        argnames = list(spec.args)
        if inspect.ismethod(func):
            argnames = argnames[1:]  # the bound instance or class
        min_args = len(argnames)
        max_args = 1_000_000 if spec.varargs else min_args
        options = dict(
            func_name=self._func_name,
            grad_func=self._grad_func,
            python_grad_func=self._python_grad_func,
            out_names=self._out_names,
            **self._extra_kwargs,
        )
        if self._input_types:
            if not min_args <= len(self._input_types) <= max_args:
                raise ValueError(
                    "The function has fewer arguments than the number of specified input types."
                )
            return _DefinedFunction(func, argnames, self._input_types, **options)
        if max_args == 0:
            return _DefinedFunction(func, [], [], **options)
        return _OverloadedFunction(func, argnames, **options)


class _DefinedFunction:
    """A graph function of declared argument types (what `Defun` makes)."""

    def __init__(
        self,
        func,
        argnames,
        input_types,
        func_name=None,
        grad_func=None,
        python_grad_func=None,
        out_names=None,
        shape_func=None,
        **kwargs,
    ):
        self._func = func
        self._argnames = list(argnames)
        self._input_types = [dtypes.as_dtype(t) for t in input_types]
        self._grad_func = grad_func
        self._python_grad_func = python_grad_func
        self._out_names = out_names
        self._shape_func = shape_func
        self._extra_kwargs = kwargs
        if func_name:
            self._name = func_name
        else:
            # TF suffixes a hash of the definition; here, of what defines it.
            key = f"{getattr(func, '__qualname__', '')}:{[t.name for t in self._input_types]}"
            digest = hashlib.sha1(key.encode()).hexdigest()[:8]
            self._name = f"{_func_name(func)}_{digest}"

    @property
    def name(self) -> str:
        """The function's name (the call op's default name)."""
        return self._name

    @property
    def declared_input_types(self) -> tuple:
        """The declared argument dtypes."""
        return tuple(self._input_types)

    @property
    def captured_inputs(self) -> list:
        """The outer tensors the function captures: none (the body is inlined)."""
        return []

    @property
    def python_grad_func(self):
        """The Python gradient function given, if any."""
        return self._python_grad_func

    @property
    def grad_func_name(self):
        """The name of the gradient function given as `grad_func`, if any."""
        return self._grad_func.name if self._grad_func is not None else None

    def add_to_graph(self, g) -> None:
        """Registers the function (and its gradient function) with graph `g`."""
        if self.grad_func_name is not None and self._python_grad_func is not None:
            raise ValueError(f"Gradient defined twice for function {self._name}")
        g._functions[self._name] = self
        if self._grad_func is not None:
            self._grad_func.add_to_graph(g)

    def __call__(self, *args, **kwargs):
        """The function's results on `args`.

        A tensor, a tuple of them, or (no results) the call's op; `name` names the call.
        """
        g = ops.get_default_graph()
        self.add_to_graph(g)
        name = kwargs.pop("name", None)
        if kwargs:
            raise ValueError(f"Unknown keyword arguments: {sorted(kwargs)}")
        if len(args) != len(self._input_types):
            raise ValueError(
                f"Function {self._name} takes {len(self._input_types)} arguments, got {len(args)}"
            )
        tensors = []
        for i, (a, t) in enumerate(zip_strict(args, self._input_types)):
            x = ops.convert_to_tensor(a, dtype=t) if not isinstance(a, ops.Tensor) else a
            if x.dtype.base_dtype != t:
                raise ValueError(
                    f"Input {i} of function {self._name} is {x.dtype.base_dtype.name}, "
                    f"expected {t.name}"
                )
            tensors.append(x)
        return _inline_call(self, g, tensors, name)


class _OverloadedFunction:
    """A `Defun` without declared types: one `_DefinedFunction` per argument types."""

    def __init__(self, func, argnames, func_name=None, **options):
        self._func = func
        self._argnames = argnames
        self._func_name = func_name
        self._options = options
        self._overload: dict = {}

    def instantiate(self, input_types):
        """The function for argument dtypes `input_types`."""
        key = tuple(dtypes.as_dtype(t).name for t in input_types)
        defined = self._overload.get(key)
        if defined is None:
            name = self._func_name
            if name:
                name = "_".join([name, *key])
            defined = _DefinedFunction(
                self._func, self._argnames, input_types, func_name=name, **self._options
            )
            self._overload[key] = defined
        return defined

    def __call__(self, *args, **kwargs):
        """Converts `args` to tensors and calls the function of their dtypes."""
        tensors = [ops.convert_to_tensor(a) for a in args]
        return self.instantiate([t.dtype.base_dtype for t in tensors])(*tensors, **kwargs)


class _CallOp:
    """The call op as a `python_grad_func` sees it.

    The call's arguments are its `inputs`, its results its `outputs`; everything else
    comes from the op that returns them.
    """

    def __init__(self, op, inputs, outputs, type_name):
        self._op = op
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.type = type_name

    def __getattr__(self, attr):
        return getattr(self._op, attr)


def _flatten_results(result) -> list:
    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        return list(result)
    return [result]


def _inline_call(fn: _DefinedFunction, g, args: list, name):
    """Traces `fn`'s body on `args` in `g` and returns its results (see the module)."""
    # (A top-level scope cannot start with "_", which a function's name may.)
    with ops.name_scope(name, fn.name.lstrip("_") or "function", args) as scope:
        first_op = len(g.get_operations())
        outputs = _flatten_results(fn._func(*args))
        if any(r is None for r in outputs):
            raise ValueError(f"Function {fn.name} can not return None.")
        results = [ops.convert_to_tensor(r) for r in outputs]
        controls = []
        body = g.get_operations()[first_op:]
        used = {id(t.op) for t in results}
        used.update(id(c) for op in body for c in op.control_inputs)
        for op in body:
            if id(op) not in used and not any(t.consumers() for t in op.outputs):
                controls.append(op)
        custom = fn._grad_func is not None or fn._python_grad_func is not None
        passed = results + (args if custom else [])
        with ops.control_dependencies(controls):
            if not passed:
                return control_flow_ops.no_op(name=scope)
            if custom:
                grad_name = f"Defun-{fn.name}-{next(_uids)}"
                ops.RegisterGradient(grad_name)(_call_gradient(fn, results, args))
                with g.gradient_override_map({"IdentityN": grad_name}):
                    out = array_ops.identity_n(passed, name=scope)
            else:
                out = array_ops.identity_n(passed, name=scope)
    call_results = list(out[: len(results)])
    if fn._shape_func is not None:
        shapes = fn._shape_func(_CallOp(call_results[0].op, args, call_results, fn.name))
        for t, s in zip_strict(call_results, shapes):
            t.set_shape(s)
    if len(call_results) == 1:
        return call_results[0]
    return tuple(call_results)


def _call_gradient(fn: _DefinedFunction, results: list, args: list):
    """The gradient of a call whose `IdentityN` passes `results`, then `args`."""
    n = len(results)

    def grad(op, *grads):
        # TF gives a function call's unconnected results zero gradients.
        result_grads = [
            gr if gr is not None else array_ops.zeros_like(op.outputs[i])
            for i, gr in enumerate(grads[:n])
        ]
        if fn._python_grad_func is not None:
            call = _CallOp(op, args, op.outputs[:n], fn.name)
            arg_grads = fn._python_grad_func(call, *result_grads)
        else:
            arg_grads = fn._grad_func(*args, *result_grads)
        arg_grads = _flatten_results(arg_grads)
        if len(arg_grads) != len(args):
            raise ValueError(
                f"The gradient function of {fn.name} returned {len(arg_grads)} gradients "
                f"for {len(args)} arguments"
            )
        # The body's results get none: the given gradient stands for the body's.
        return [None] * n + arg_grads

    return grad
