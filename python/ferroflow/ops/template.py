"""`tf.make_template`: a function whose variables are created once and then shared.

A port of TF's `python/ops/template.py` for graph mode: the first call enters a
fresh variable scope (unique `name_`, or `unique_name_` as given) without reuse and
creates the variables; later calls re-enter that scope with `reuse=True`, so
`get_variable` returns the same variables and a trainable variable made any other
way raises TF's `ValueError`.
"""

from __future__ import annotations

import functools
import logging
import traceback

from ..framework import ops
from . import variable_scope


def make_template(
    name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None, **kwargs
):
    """Wraps `func_` so that its variables are created on the first call and reused after.

    `func_` must make its shared variables with `tf.get_variable`: later calls
    re-enter the template's variable scope with reuse, and making a trainable
    variable on a later call (for instance with `tf.Variable`) raises a
    `ValueError`.

    Example:
        ```python
        def scale(x, scalar_name):
            v = tf.get_variable(scalar_name, [], initializer=tf.ones_initializer())
            return x * v

        scale_by_y = tf.make_template("scale_by_y", scale, scalar_name="y")
        z = scale_by_y(a)   # creates scale_by_y/y
        w = scale_by_y(b)   # reuses it
        ```

    Args:
        name_: Name of the template's variable scope, made unique (`name_1`, ...).
        func_: The function to wrap.
        create_scope_now_: Capture the variable scope now rather than on the first
            call (then every call's ops get a trailing `_N` name scope).
        unique_name_: A scope name used as is (not made unique) instead of `name_`.
        custom_getter_: A custom getter for the template's variable scope.
        **kwargs: Keyword arguments bound to `func_`.

    Returns:
        A `Template`, called as `func_` would be.

    Raises:
        ValueError: If `name_` is None.
    """
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(
        name_,
        func_,
        create_scope_now=create_scope_now_,
        unique_name=unique_name_,
        custom_getter=custom_getter_,
    )


def _skip_common_stack_elements(stacktrace, base_case):
    """The frames of `stacktrace` after those it shares with `base_case`."""
    for i, (trace, base) in enumerate(zip(stacktrace, base_case)):
        if trace != base:
            return stacktrace[i:]
    return stacktrace[-1:]


class Template:
    """A function that creates its variables on the first call and reuses them after.

    Made by `make_template`; see it for the contract `func` must follow.
    """

    def __init__(self, name, func, create_scope_now=False, unique_name=None, custom_getter=None):
        """Creates a template for `func` (see `make_template`).

        Raises:
            ValueError: If `name` is None.
        """
        self._func = func
        self._stacktrace = traceback.format_stack()[:-2]
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        if name is None:
            raise ValueError("name cannot be None.")
        if create_scope_now:
            with variable_scope._pure_variable_scope(
                self._unique_name or variable_scope._get_unique_variable_scope(self._name),
                custom_getter=self._custom_getter,
            ) as vs:
                self._variable_scope = vs
        else:
            self._variable_scope = None
        self._variables_created = False
        self._first_call = True

    def _call_func(self, args, kwargs):
        try:
            if self._variables_created:
                vars_at_start = len(ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES))
                trainable_at_start = len(ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES))
                result = self._func(*args, **kwargs)
                trainable = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
                if trainable_at_start != len(trainable):
                    raise ValueError(
                        "Trainable variable created when calling a template after the first "
                        "time, perhaps you used tf.Variable when you meant tf.get_variable: "
                        f"{trainable[trainable_at_start:]}"
                    )
                global_vars = ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)
                if vars_at_start != len(global_vars):
                    logging.getLogger("ferroflow").info(
                        "New variables created when calling a template after the first "
                        "time, perhaps you used tf.Variable when you meant tf.get_variable: %s",
                        global_vars[vars_at_start:],
                    )
            elif self._first_call:
                self._first_call = False
                try:
                    result = self._func(*args, **kwargs)
                except BaseException:
                    self._first_call = True
                    raise
                self._variables_created = True
            else:  # called from another thread while the first call runs
                result = self._func(*args, **kwargs)
            return result
        except Exception as exc:
            arg0 = exc.args[0] if exc.args else ""
            trace = "".join(_skip_common_stack_elements(self._stacktrace, traceback.format_stack()))
            exc.args = (f"{arg0}\n\noriginally defined at:\n{trace}", *exc.args[1:])
            raise

    def __call__(self, *args, **kwargs):
        """Calls the function inside the template's variable scope."""
        if self._variable_scope:
            with variable_scope.variable_scope(self._variable_scope, reuse=not self._first_call):
                return self._call_func(args, kwargs)
        with variable_scope.variable_scope(
            self._unique_name, self._name, custom_getter=self._custom_getter
        ) as vs:
            self._variable_scope = vs
            return self._call_func(args, kwargs)

    @property
    def name(self):
        """The name given to the template."""
        return self._name

    @property
    def func(self):
        """The wrapped function (with `make_template`'s keyword arguments bound)."""
        return self._func

    @property
    def variable_scope(self):
        """The template's `VariableScope` (None before a first call without `create_scope_now_`)."""
        return self._variable_scope

    @property
    def var_scope(self):
        """Deprecated alias of `variable_scope`."""
        return self._variable_scope

    @property
    def variable_scope_name(self):
        """The variable scope's name with a trailing slash, or None before it exists."""
        if self._variable_scope:
            name = self._variable_scope.name
            if not name or name[-1] == "/":
                return name
            return name + "/"
        return None

    def _collection(self, key):
        if self._variables_created:
            return ops.get_collection(key, self.variable_scope_name)
        return []

    @property
    def variables(self):
        """The global and local variables the template created."""
        return self.global_variables + self.local_variables

    @property
    def trainable_variables(self):
        """The trainable variables the template created."""
        return self._collection(ops.GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self):
        """The global variables the template created that are not trainable."""
        trainable = set(map(id, self.trainable_variables))
        return [v for v in self.global_variables if id(v) not in trainable]

    @property
    def global_variables(self):
        """The global variables the template created."""
        return self._collection(ops.GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self):
        """The local variables the template created."""
        return self._collection(ops.GraphKeys.LOCAL_VARIABLES)

    @property
    def weights(self):
        """Alias of `variables`."""
        return self.variables

    @property
    def trainable_weights(self):
        """Alias of `trainable_variables`."""
        return self.trainable_variables

    @property
    def non_trainable_weights(self):
        """Alias of `non_trainable_variables`."""
        return self.non_trainable_variables
