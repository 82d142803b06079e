"""`tf.train.Optimizer`: gradients of a loss, and fused in-place updates.

`compute_gradients` differentiates with `tf.gradients`; `apply_gradients` creates
the optimizer's slots (per-variable state such as momentum accumulators) and
non-slot variables (shared state such as Adam's `beta1_power`) once, then adds one
fused update op per variable (`_apply_dense`), groups them, and increments
`global_step` after all of them.
"""

from __future__ import annotations

from .._compat import zip_strict
from ..framework import dtypes, ops
from ..framework.indexed_slices import IndexedSlices
from ..ops import array_ops, control_flow_ops, gradients, math_ops, state_ops, variables
from . import slot_creator

_VALID_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _var_key(var):
    return var.op.name


class Optimizer:
    """Base class of the optimizers (TF-1.x `tf.train.Optimizer`).

    Subclasses implement `_create_slots`, `_prepare`, `_apply_dense` and, for
    `IndexedSlices` gradients, `_apply_sparse`.
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        """Creates the optimizer.

        Args:
        use_locking: Whether updates take the variables' locks (updates always
            hold each variable's lock here; kept for the API).
        name: Name of the optimizer, used for its ops and slot names.

        Raises:
            ValueError: `name` is empty.
        """
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}
        self._non_slot_dict = {}

    def get_name(self):
        """The optimizer's name."""
        return self._name

    def minimize(
        self,
        loss,
        global_step=None,
        var_list=None,
        gate_gradients=GATE_OP,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        name=None,
        grad_loss=None,
    ):
        """`compute_gradients` then `apply_gradients`; returns the training op.

        Raises:
            ValueError: No variable has a gradient.
        """
        grads_and_vars = self.compute_gradients(
            loss,
            var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss,
        )
        if not [v for g, v in grads_and_vars if g is not None]:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do "
                f"not support gradients, between variables {[str(v) for _, v in grads_and_vars]}"
                f" and loss {loss}."
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(
        self,
        loss,
        var_list=None,
        gate_gradients=GATE_OP,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        grad_loss=None,
    ):
        """`[(gradient, variable)]` for `var_list` (default: the trainable variables).

        The gradient is None for a variable the loss does not depend on.

        `loss` may be a callable returning the loss (TF's eager form): it is called
        once, and without a `var_list` the variables it does not depend on are left out.

        Raises:
            ValueError: Bad `gate_gradients`, no variables, or a non-float loss.
            TypeError: `var_list` holds something that is not a variable.
        """
        if callable(loss):
            # TF records `loss()` on a tape; in a graph that is building it here. As the
            # tape watches only the trainable variables it saw read, unconnected ones
            # are left out when `var_list` is not given.
            loss_value = loss()
            pairs = self.compute_gradients(
                loss_value,
                var_list,
                gate_gradients,
                aggregation_method,
                colocate_gradients_with_ops,
                grad_loss,
            )
            return pairs if var_list is not None else [(g, v) for g, v in pairs if g is not None]
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(
                "gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                f"Optimizer.GATE_GRAPH.  Not {gate_gradients}"
            )
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = variables.trainable_variables()
        else:
            var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        for v in var_list:
            # TF's `_get_processor`: a plain tensor may be differentiated against (its
            # gradient is returned), but `apply_gradients` cannot update it.
            if not isinstance(v, (variables.Variable, ops.Tensor)):
                raise NotImplementedError(f"Trying to optimize unsupported type {v}")
        grads = gradients.gradients(
            loss,
            var_list,
            grad_ys=grad_loss,
            gate_gradients=(gate_gradients == Optimizer.GATE_OP),
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
        )
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = control_flow_ops.tuple(grads)
        grads_and_vars = list(zip_strict(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Adds the update ops; returns one op that runs them all.

        When `global_step` is given, the op increments it after every update.

        Raises:
            TypeError: A gradient is not a Tensor, IndexedSlices or None.
            ValueError: No variables, or none with a gradient.
        """
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        for _, v in grads_and_vars:
            if isinstance(v, ops.Tensor) and not isinstance(v, variables.Variable):
                raise NotImplementedError(f"Trying to update a Tensor {v}")
        converted = []
        for g, v in grads_and_vars:
            if g is not None and not isinstance(g, IndexedSlices):
                try:
                    g = ops.convert_to_tensor(g)
                except (TypeError, ValueError) as e:
                    raise TypeError(
                        f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {g}"
                    ) from e
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError(
                f"No gradients provided for any variable: {[str(v) for _, v in converted]}."
            )
        graph = var_list[0].graph
        # TF's `init_scope`: outside control dependencies, in the current name and
        # variable scopes (slots and non-slot variables are named after them).
        with graph.as_default(), ops.init_scope():
            self._create_slots(var_list)
        update_ops = []
        with ops.name_scope(name, self._name) as scope:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with ops.name_scope("update_" + var.op.name), ops.colocate_with(var):
                    update_ops.append(self._update_op(grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with ops.control_dependencies([self._finish(update_ops, "update")]):
                    with ops.colocate_with(global_step):
                        apply_updates = state_ops.assign_add(global_step, 1, name=scope)
            if isinstance(apply_updates, ops.Tensor):
                apply_updates = apply_updates.op
            train_ops = ops.get_collection_ref(ops.GraphKeys.TRAIN_OP)
            if apply_updates not in train_ops:
                train_ops.append(apply_updates)
            return apply_updates

    def _update_op(self, grad, var):
        """The update of `var`, then its constraint if it has one (TF's processor)."""
        if isinstance(grad, IndexedSlices):
            if var.constraint is not None:
                raise RuntimeError("Cannot use a constraint function on a sparse variable.")
            return self._apply_sparse_duplicate_indices(grad, var)
        update_op = self._apply_dense(grad, var)
        if var.constraint is not None:
            with ops.control_dependencies([update_op]):
                return var.assign(var.constraint(var))
        return update_op

    def get_slot(self, var, name):
        """The slot `name` of `var`, or None."""
        return self._slots.get(name, {}).get(_var_key(var))

    def get_slot_names(self):
        """The names of this optimizer's slots, sorted."""
        return sorted(self._slots)

    def variables(self):
        """The optimizer's slot and non-slot variables, in creation order."""
        out = [v for slots in self._slots.values() for v in slots.values()]
        return sorted(out + list(self._non_slot_dict.values()), key=lambda v: v.op._id)

    # ---- for subclasses ---------------------------------------------------------

    def _create_slots(self, var_list):
        """Creates the slots every variable needs (none by default)."""

    def _prepare(self):
        """Converts hyper-parameters to tensors, once per `apply_gradients`."""

    def _apply_dense(self, grad, var):
        raise NotImplementedError(f"{type(self).__name__} has no dense update")

    def _apply_sparse(self, grad, var):
        raise NotImplementedError(f"{type(self).__name__} has no sparse update")

    def _apply_sparse_duplicate_indices(self, grad, var):
        """Sums the rows of repeated indices, then `_apply_sparse`.

        As TF's `_deduplicate_indexed_slices`: `Unique` and `UnsortedSegmentSum`.
        """
        unique_indices, positions = array_ops.unique(grad.indices)
        count = array_ops.shape(unique_indices)[0]
        summed = math_ops.unsorted_segment_sum(grad.values, positions, count)
        return self._apply_sparse(IndexedSlices(summed, unique_indices, grad.dense_shape), var)

    def _finish(self, update_ops, name_scope):
        return control_flow_ops.group(*update_ops, name=name_scope)

    def _assert_valid_dtypes(self, tensors):
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in _VALID_DTYPES:
                raise ValueError(
                    f"Invalid type {dtype!r} for {t.name}, expected: {[v for v in _VALID_DTYPES]}."
                )

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _zeros_slot(self, var, slot_name, op_name):
        """The zero-initialised slot `slot_name` of `var`, made once (TF's)."""
        return self._make_slot_once(
            var, slot_name, lambda: slot_creator.create_zeros_slot(var, op_name)
        )

    def _constant_slot(self, var, value, slot_name, op_name):
        """The slot `slot_name` of `var` filled with the scalar `value`, made once."""
        return self._make_slot_once(
            var, slot_name, lambda: slot_creator.create_constant_slot(var, value, op_name)
        )

    def _get_or_make_slot(self, var, val, slot_name, op_name):
        """The slot `slot_name` of `var` initialised to the tensor `val` (TF's)."""
        return self._make_slot_once(
            var, slot_name, lambda: slot_creator.create_slot(var, val, op_name)
        )

    def _get_or_make_slot_with_initializer(
        self, var, initializer, shape, dtype, slot_name, op_name
    ):
        """The slot `slot_name` of `var` made by `initializer` (TF's)."""
        return self._make_slot_once(
            var,
            slot_name,
            lambda: slot_creator.create_slot_with_initializer(
                var, initializer, shape, dtype, op_name
            ),
        )

    def _make_slot_once(self, var, slot_name, make):
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            named[key] = make()
        return named[key]

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        """A variable shared by all the variables this optimizer updates in a graph."""
        graph = colocate_with.graph
        key = (name, graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            # In the name scope in force (TF's `variable_scope.variable`), so
            # `minimize` under `name_scope("s")` makes `s/beta1_power`.
            with graph.as_default(), ops.init_scope(), ops.colocate_with(colocate_with):
                v = variables.Variable(initial_value, name=name, trainable=False)
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, graph or ops.get_default_graph()))

    def _call_if_callable(self, param):
        return param() if callable(param) else param
