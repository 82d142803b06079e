"""`tf.train.SyncReplicasOptimizer`: synchronous data-parallel training (TF 1.x).

Each replica computes gradients and applies them to per-variable conditional
accumulators colocated with the variables; the chief's queue runner takes the
aggregate once `replicas_to_aggregate` fresh gradients arrived, applies it with the
wrapped optimizer and pushes one token per replica (the new global step) onto the
sync token queue. A replica's train op waits for a token and adopts it as its local
step, so gradients computed against an older step are dropped as stale. The graph
is TF's, op for op (sync_replicas_optimizer.py of TF 1.x).
"""

from __future__ import annotations

import logging

from .._compat import zip_strict
from ..framework import indexed_slices, ops
from ..ops import array_ops, control_flow_ops, data_flow_ops, state_ops, variables
from . import optimizer, queue_runner, session_manager, session_run_hook

__all__ = ["SyncReplicasOptimizer"]

_log = logging.getLogger(__name__)


class SyncReplicasOptimizer(optimizer.Optimizer):
    """Aggregates gradients of several replicas and applies them synchronously.

    Wraps `opt`: `apply_gradients` returns each replica's train op; the chief runs
    `get_chief_queue_runner()` and `get_init_tokens_op()` (or uses
    `make_session_run_hook(is_chief)` with a `MonitoredTrainingSession`).
    """

    def __init__(
        self,
        opt,
        replicas_to_aggregate,
        total_num_replicas=None,
        variable_averages=None,
        variables_to_average=None,
        use_locking=False,
        name="sync_replicas",
    ):
        """Constructs a SyncReplicasOptimizer.

        Args:
            opt: The actual optimizer that applies the aggregated gradients.
            replicas_to_aggregate: Replicas to aggregate for each variable update.
            total_num_replicas: Total number of tasks/workers/replicas (default:
                `replicas_to_aggregate`).
            variable_averages: Optional `ExponentialMovingAverage` applied after
                each update.
            variables_to_average: The variables it averages.
            use_locking: Use locking when updating variables.
            name: Name of the optimizer's ops.
        """
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        _log.info(
            "SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
            replicas_to_aggregate,
            total_num_replicas,
        )
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._gradients_applied = False
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list = []

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's `compute_gradients`."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Builds the accumulators, the sync token queue and the chief's update.

        Returns:
            The replica's train op: applies its gradients, then waits for a token
            and sets the local step to it.

        Raises:
            ValueError: No gradients, no `global_step`, or an unknown gradient type.
        """
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops = []
        aggregated_grad: list = []
        var_list = []

        local_anchor = control_flow_ops.no_op()
        with ops.device(None), ops.colocate_with(local_anchor):
            self._local_step = variables.Variable(
                initial_value=0,
                trainable=False,
                collections=[ops.GraphKeys.LOCAL_VARIABLES],
                dtype=global_step.dtype.base_dtype,
                name="sync_rep_local_step",
            )
        self.local_step_init_op = state_ops.assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = variables.report_uninitialized_variables(
            variables.global_variables()
        )

        with ops.name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with ops.device(var.device):
                    if grad is None:
                        aggregated_grad.append(None)
                        continue
                    grad_accum: data_flow_ops.ConditionalAccumulatorBase
                    if isinstance(grad, ops.Tensor):
                        grad_accum = data_flow_ops.ConditionalAccumulator(
                            grad.dtype, shape=var.get_shape(), shared_name=var.name + "/grad_accum"
                        )
                        train_ops.append(grad_accum.apply_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(grad_accum.take_grad(self._replicas_to_aggregate))
                    else:
                        if not isinstance(grad, indexed_slices.IndexedSlices):
                            raise ValueError("Unknown grad type!")
                        sparse_accum = data_flow_ops.SparseConditionalAccumulator(
                            grad.dtype, shape=(), shared_name=var.name + "/grad_accum"
                        )
                        train_ops.append(
                            sparse_accum.apply_indexed_slices_grad(
                                grad, local_step=self._local_step
                            )
                        )
                        aggregated_grad.append(
                            sparse_accum.take_indexed_slices_grad(self._replicas_to_aggregate)
                        )
                        grad_accum = sparse_accum
                    self._accumulator_list.append((grad_accum, var.device))

            aggregated_grads_and_vars = zip_strict(aggregated_grad, var_list)

            with ops.device(global_step.device), ops.name_scope(""):
                update_op = self._opt.apply_gradients(aggregated_grads_and_vars, global_step)

            with ops.device(global_step.device), ops.name_scope(""):
                sync_token_queue = data_flow_ops.FIFOQueue(
                    -1,
                    global_step.dtype.base_dtype,
                    shapes=(),
                    name="sync_token_q",
                    shared_name="sync_token_q",
                )
                self._sync_token_queue = sync_token_queue

            with ops.device(global_step.device), ops.name_scope(""):
                with ops.control_dependencies(train_ops):
                    token = sync_token_queue.dequeue()
                train_op = state_ops.assign(self._local_step, token)

                with ops.control_dependencies([update_op]):
                    tokens = array_ops.fill([self._tokens_per_step], global_step)
                    sync_op = sync_token_queue.enqueue_many((tokens,))

                if self._variable_averages is not None:
                    with ops.control_dependencies([sync_op]), ops.name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)

                self._chief_queue_runner = queue_runner.QueueRunner(sync_token_queue, [sync_op])
            for accum, dev in self._accumulator_list:
                with ops.device(dev):
                    chief_init_ops.append(accum.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = control_flow_ops.group(*(chief_init_ops))
            self._gradients_applied = True
            return train_op

    def get_chief_queue_runner(self):
        """The chief's queue runner (applies the aggregate, pushes tokens).

        Raises:
            ValueError: Called before `apply_gradients`.
        """
        if self._gradients_applied is False:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        """The wrapped optimizer's slot."""
        return self._opt.get_slot(*args, **kwargs)

    def variables(self):
        """The wrapped optimizer's variables."""
        return self._opt.variables()

    def get_slot_names(self, *args, **kwargs):
        """The wrapped optimizer's slot names."""
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens=-1):
        """The op that fills the token queue for the first step (run by the chief).

        Raises:
            ValueError: Called before `apply_gradients`, or too few tokens.
        """
        if self._gradients_applied is False:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(
                f"Too few tokens to finish the first step: {num_tokens:d} (given) vs "
                f"{tokens_needed:d} (needed)"
            )
        global_step, token_queue = self._global_step, self._sync_token_queue
        assert global_step is not None and token_queue is not None
        if num_tokens > 0:
            with ops.device(global_step.device), ops.name_scope(""):
                tokens = array_ops.fill([num_tokens], global_step)
                init_tokens = token_queue.enqueue_many((tokens,))
        else:
            init_tokens = control_flow_ops.no_op(name="no_init_tokens")
        return init_tokens

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """A hook that runs the local init, the chief's tokens and queue runner."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(session_run_hook.SessionRunHook):
    """Runs SyncReplicasOptimizer initialization ops (TF's hook)."""

    def __init__(self, sync_optimizer, is_chief, num_tokens):
        """Creates the hook for `sync_optimizer` on a chief or non-chief worker."""
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        """Picks the ops of a chief or a non-chief."""
        if self._sync_optimizer._gradients_applied is False:
            raise ValueError(
                "SyncReplicasOptimizer.apply_gradient should be called before using the hook."
            )
        if self._is_chief:
            self._local_init_op = self._sync_optimizer.chief_init_op
            self._ready_for_local_init_op = self._sync_optimizer.ready_for_local_init_op
            self._q_runner = self._sync_optimizer.get_chief_queue_runner()
            self._init_tokens_op = self._sync_optimizer.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = self._sync_optimizer.local_step_init_op
            self._ready_for_local_init_op = self._sync_optimizer.ready_for_local_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session, coord):
        """Runs the local init (and the chief's tokens), starts the chief's runner."""
        local_init_success, msg = session_manager._ready(
            self._ready_for_local_init_op,
            session,
            "Model is not ready for SyncReplicasOptimizer local init.",
        )
        if not local_init_success:
            raise RuntimeError(
                "Init operations did not make model ready for SyncReplicasOptimizer "
                f"local_init. Init op: {self._local_init_op.name}, error: {msg}"
            )
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
