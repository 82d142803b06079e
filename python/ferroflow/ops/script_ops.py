"""`tf.py_func` and `tf.numpy_function`: Python functions as graph ops (TF's script_ops).

The function is kept in a process-wide registry (`FuncRegistry`, as TF's) under a
token (`pyfunc_0`, `pyfunc_1`, ...) that the `PyFunc`/`PyFuncStateless` node carries
as its `token` attr. When the node runs, its Rust kernel takes the GIL and calls the
registry (installed as the native module's trampoline) with the token and the inputs
as numpy arrays; the values that come back are checked against `Tout` in Rust, with
TF's errors. The registry holds the function weakly and the graph holds it strongly,
so a graph's functions go when the graph is garbage-collected, as in TF.
"""

from __future__ import annotations

import functools
import threading
import weakref

import numpy as np

from .. import _ferroflow
from ..framework import dtypes, ops
from ._op_util import make_op

__all__ = ["FuncRegistry", "numpy_function", "py_func"]


class FuncRegistry:
    """Keeps the functions of `py_func` ops by token, weakly (TF's `FuncRegistry`).

    The graph that uses a function holds the strong reference, so a function
    disappears from the registry when its graph is garbage-collected.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._unique_id = 0
        self._funcs: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    def insert(self, func) -> str:
        """Registers `func` and returns its new unique token."""
        token = self._next_unique_token()
        self._funcs[token] = func
        return token

    def remove(self, token) -> None:
        """Removes the function registered under `token` (if any)."""
        self._funcs.pop(token, None)

    def get(self, token, default=None):
        """The function registered under `token`, or `default`."""
        return self._funcs.get(token, default)

    def size(self) -> int:
        """How many functions are registered."""
        return len(self._funcs)

    @staticmethod
    def _convert(value, dtype=None):
        """`value` as a C-ordered numpy array, strings as an object array of bytes.

        numpy pads fixed-width string arrays, which is wrong for text and for binary
        data, so string results are converted with the object dtype, and text is
        encoded as UTF-8 (TF's conversion).
        """
        result = np.asarray(value, dtype=dtype, order="C")
        if result.dtype.char == "S" and result is not value:
            return np.asarray(value, order="C", dtype=object)
        if result.dtype.char == "U" and result is not value:
            value = np.vectorize(lambda x: x.encode("utf8"))(value)
            return np.asarray(value, order="C", dtype=object)
        if result.dtype.char == "U":
            return result.astype(np.bytes_)
        return result

    def __call__(self, token, args) -> list:
        """Calls the function registered under `token` with `args`.

        Called by the `PyFunc` kernel (with the GIL taken) with the node's inputs as
        numpy arrays (numpy scalars and `bytes` for scalars).

        Returns:
            The function's values as a list of numpy arrays: none for `None`, one for
            a single value, one per item of a returned list or tuple.

        Raises:
            ValueError: If no function is registered for `token`.
        """
        func = self.get(token, None)
        if func is None:
            raise ValueError(f"Could not find callback with key={token} in the registry.")
        ret = func(*args)
        if ret is None:
            return []
        if isinstance(ret, bytes):
            ret = [ret]
        if isinstance(ret, (tuple, list)):
            return [self._convert(x) for x in ret]
        return [self._convert(ret)]

    def _next_unique_token(self) -> str:
        with self._lock:
            uid = self._unique_id
            self._unique_id += 1
        return f"pyfunc_{uid}"


# The process's registry; the PyFunc kernels call it.
_py_funcs = FuncRegistry()
_ferroflow.initialize_py_trampoline(_py_funcs)


def _input_tensors(inp, op_type):
    """`inp` as tensors named `input_<i>` (TF's list-input conversion) or TF's error."""
    values = list(inp)
    try:
        return ops.convert_n_to_tensor(values, name="input")
    except (TypeError, ValueError):
        types = []
        for v in values:
            try:
                types.append(ops.convert_to_tensor(v).dtype.name)
            except (TypeError, ValueError):
                types.append("<NOT CONVERTIBLE TO TENSOR>")
        raise TypeError(
            f"Tensors in list passed to 'input' of '{op_type}' Op have types "
            f"[{', '.join(types)}] that are invalid. Tensors: {values}"
        ) from None


def _registrable(func):
    """`func`, or a plain-function wrapper when `func` cannot be referenced weakly."""
    try:
        weakref.ref(func)
        return func
    except TypeError:

        @functools.wraps(func)
        def wrapper(*args):
            return func(*args)

        return wrapper


def _internal_py_func(func, inp, Tout, stateful=True, name=None):
    if not callable(func):
        raise ValueError(
            f"Expected func to be callable. Received func={func} of type {type(func)}."
        )
    is_list_or_tuple = isinstance(Tout, (list, tuple))
    types = [dtypes.as_dtype(t) for t in (Tout if is_list_or_tuple else [Tout])]
    registered = _registrable(func)
    token = _py_funcs.insert(registered)
    op_type = "PyFunc" if stateful else "PyFuncStateless"
    inp = list(inp)
    with ops.name_scope(name, op_type, inp) as scope:
        tensors = _input_tensors(inp, op_type)
        # The graph keeps the function alive (the registry holds it weakly), in the
        # attribute TF uses; a cycle through a closure is still collectable.
        graph = ops._graph_of(tensors)
        vars(graph).setdefault("_py_funcs_used_in_graph", []).append(registered)
        op = make_op(op_type, tensors, {"token": token, "Tout": types}, scope=scope)
    if not types and stateful:
        return op  # TF's generated wrapper returns a stateful op with no outputs itself
    return op.outputs if is_list_or_tuple else op.outputs[0]


def py_func(func, inp, Tout, stateful=True, name=None):
    """Wraps a Python function that works on numpy arrays as a graph op.

    When the op runs, `func` is called with its inputs as numpy arrays (numpy scalars,
    and `bytes` for string scalars) and must return numpy-convertible values of the
    dtypes `Tout` names. It runs in the process that built the graph, holding the GIL,
    on the thread the executor picked (several at once when sessions run in parallel),
    and is not saved with the graph.

    ```python
    def augment(image):
        return np.fliplr(image).astype(np.float32)

    flipped = tf.py_func(augment, [image], tf.float32)
    ```

    Args:
        func: A Python callable taking as many numpy arrays as `inp` has tensors and
            returning one value (or a list of values) per `Tout` entry.
        inp: A list of tensors (or values convertible to tensors).
        Tout: A list or tuple of dtypes, or a single dtype, of what `func` returns.
        stateful: Whether `func` has side effects or may return different values for
            the same inputs (a `PyFunc` op); `False` makes a `PyFuncStateless` op.
        name: A name for the op.

    Returns:
        A list of tensors (one per entry of a list `Tout`), a single tensor for a
        single dtype, or (stateful, as TF's) the operation itself when `Tout` is
        empty. Their static shapes are unknown.

    Raises:
        ValueError: If `func` is not callable.
        TypeError: If `Tout` has something that is not a dtype, or an input cannot be
            converted to a tensor.

    At run time, a wrong number of values or a value of the wrong dtype is an
    `InvalidArgumentError`; an exception raised by `func` is an `InvalidArgumentError`
    (`ValueError`, `TypeError`), `OutOfRangeError` (`StopIteration`),
    `ResourceExhaustedError` (`MemoryError`), `UnimplementedError`
    (`NotImplementedError`) or `UnknownError` (anything else), with the exception's
    class, text and traceback as its message, as in TF.
    """
    return _internal_py_func(func, inp, Tout, stateful=stateful, name=name)


def _check_args_and_maybe_make_decorator(
    script_op, script_op_name, func=None, inp=None, Tout=None, **kwargs
):
    """Checks the arguments; a decorator when `func` is None (TF's)."""
    if Tout is None:
        raise TypeError(
            "Missing required argument: 'Tout'\n"
            f"  If using {script_op_name} as a decorator, set `Tout`\n"
            "  **by name** above the function:\n"
            f"  `@{script_op_name}(Tout=tout)`"
        )
    if func is None:
        if inp is not None:
            raise TypeError(
                f"Don't set the `inp` argument when using {script_op_name} as a "
                "decorator (`func=None`)."
            )

        def py_function_decorator(fun):
            @functools.wraps(fun)
            def py_function_wrapper(*args):
                return script_op(fun, inp=args, Tout=Tout, **kwargs)

            return py_function_wrapper

        return py_function_decorator
    if inp is None:
        raise TypeError(
            "Missing argument `inp`:\n"
            "  You must set the `inp` argument (the list of arguments to the\n"
            f"  function), unless you use `{script_op_name}` as a decorator"
            "(`func=None`)."
        )
    return None


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Wraps a Python function that works on numpy arrays as a graph op.

    `py_func` under its TF 2 name: the same op, the same semantics. With `func=None`
    it is a decorator whose calls build the op:

    ```python
    @tf.numpy_function(Tout=tf.float32)
    def my_numpy_func(x):
        return np.sinh(x)

    y = my_numpy_func(tf.constant(1.0))
    ```

    Args:
        func: A Python callable taking numpy arrays, or None for a decorator.
        inp: A list of tensors; must be None in the decorator form.
        Tout: A list or tuple of dtypes, or a single dtype, of what `func` returns.
        stateful: Whether `func` has side effects (`False`: `PyFuncStateless`).
        name: A name for the op.

    Returns:
        As `py_func`, or a decorator when `func` is None.

    Raises:
        TypeError: If `Tout` is missing, `inp` is missing (or given to the decorator
            form), or `Tout` or an input is invalid.
        ValueError: If `func` is not callable.
    """
    decorator = _check_args_and_maybe_make_decorator(
        numpy_function,
        "tf.numpy_function",
        func=func,
        inp=inp,
        Tout=Tout,
        stateful=stateful,
        name=name,
    )
    if decorator is not None:
        return decorator
    return py_func(func, inp, Tout, stateful=stateful, name=name)
