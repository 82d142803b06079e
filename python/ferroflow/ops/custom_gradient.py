"""`tf.custom_gradient`: a function whose gradient is given by the user.

As TF's graph mode: the function's results, arguments and the variables it reads are
passed through one `IdentityN` op whose gradient (by `gradient_override_map`) calls
the user's `grad_fn`.
"""

from __future__ import annotations

import functools
import inspect
import itertools

from ..framework import ops
from . import resource_variable_ops, variable_scope, variables
from .array_ops import identity_n

_uids = itertools.count()


def _flatten(structure) -> list:
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _pack_as(structure, flat: list):
    """`flat`'s leaves in `structure`'s nesting (TF's `nest.pack_sequence_as`)."""
    leaves = iter(flat)

    def pack(s):
        if isinstance(s, (list, tuple)):
            packed = [pack(item) for item in s]
            return type(s)(packed) if isinstance(s, list) else tuple(packed)
        return next(leaves)

    return pack(structure)


def _variables_between(inputs, results) -> list:
    """The global variables whose ops lie between `inputs` and `results`.

    TF's `get_dependent_variables`: found walking back from `results`, stopping at
    `inputs`.
    """
    stop = {t._op._id for t in inputs}
    seen, queue, var_ops = set(), [t._op for t in results], set()
    while queue:
        op = queue.pop()
        if op._id in seen or op._id in stop:
            continue
        seen.add(op._id)
        if op.type in ("VariableV2", "Variable", "VarHandleOp"):
            var_ops.add(op.name)
        queue.extend(t._op for t in op.inputs)
    return [v for v in variables.global_variables() if v.op.name in var_ops]


def _takes_variables(grad_fn) -> bool:
    try:
        params = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def custom_gradient(f=None):
    """Decorator defining a function with a custom gradient.

    `f(*x)` returns `(y, grad_fn)`: `y` a tensor or a (nested) sequence of tensors,
    and `grad_fn(*dy)` the gradients with respect to each `x`. If `f` reads
    variables, `grad_fn` must take a `variables` keyword argument and return
    `(input_grads, variable_grads)`.

    ```python
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.log(1 + e), grad
    ```

    Args:
        f: The function (or None to use this as `@custom_gradient()`).

    Returns:
        The decorated function.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError(
                "The custom_gradient decorator currently supports keywords arguments "
                "only when eager execution is enabled."
            )
        return _graph_mode_call(f, args)

    return decorated


def _graph_mode_call(f, args):
    name = f"CustomGradient-{next(_uids)}"
    args = [ops.convert_to_tensor(x) for x in args]
    # As TF: the variables `f` creates in the current variable scope must be resource
    # variables (made with `use_resource=True`).
    scope = variable_scope.get_variable_scope()
    before = {id(v) for v in scope.global_variables() + scope.local_variables()}
    result, grad_fn = f(*args)
    for v in scope.global_variables() + scope.local_variables():
        if id(v) not in before and not resource_variable_ops.is_resource_variable(v):
            raise TypeError(
                "All variables used by a function wrapped with @custom_gradient must be "
                "`ResourceVariable`s. Ensure that no `variable_scope` is created with "
                "`use_resource=False`."
            )
    flat_result = [ops.convert_to_tensor(t) for t in _flatten(result)]
    used_variables = _variables_between(args, flat_result)
    takes_variables = _takes_variables(grad_fn)
    if used_variables and not takes_variables:
        raise TypeError(
            "If using @custom_gradient with a function that uses variables, then grad_fn "
            "must accept a keyword argument 'variables'."
        )
    n_result = len(flat_result)

    def internal_grad_fn(unused_op, *result_grads):
        result_grads = result_grads[:n_result]
        if used_variables:
            input_grads, variable_grads = grad_fn(*result_grads, variables=used_variables)
            if len(variable_grads) != len(used_variables):
                raise ValueError(
                    "Must return gradient for each variable from @custom_gradient grad_fn."
                )
        else:
            input_grads = grad_fn(*result_grads)
            variable_grads = []
        return [None] * n_result + _flatten(input_grads) + list(variable_grads)

    ops.RegisterGradient(name)(internal_grad_fn)
    all_tensors = flat_result + args + [ops.convert_to_tensor(v) for v in used_variables]
    with ops.get_default_graph().gradient_override_map({"IdentityN": name}):
        passed = identity_n(all_tensors)
    return _pack_as(result, list(passed[:n_result]))
