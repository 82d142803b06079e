"""Device functions for replicated training: TF-1.x's `replica_device_setter`.

`replica_device_setter` returns a function for `with tf.device(fn):` that puts
the ops that hold state (the `ps_ops`, variables by default) on the parameter
server tasks, chosen one op at a time by a `ps_strategy` (round robin unless
given, e.g. `tf.contrib.training.GreedyLoadBalancingStrategy`), and every other
op on the worker device, merged with the device the scopes inside it chose.
"""

from __future__ import annotations

import logging

from ..framework import device as pydev
from ..protos import NodeDef
from . import server_lib

__all__ = ["STANDARD_PS_OPS", "replica_device_setter"]

_log = logging.getLogger(__name__)

# TF's list. Of these, ferroflow has the `VariableV2` op (what `tf.Variable` and
# `tf.get_variable` make); the other types are kept so that a graph imported from
# TF, or ops added later, are placed as TF places them.
STANDARD_PS_OPS = (
    "Variable",
    "VariableV2",
    "AutoReloadVariable",
    "MutableHashTable",
    "MutableHashTableV2",
    "MutableHashTableOfTensors",
    "MutableHashTableOfTensorsV2",
    "MutableDenseHashTable",
    "MutableDenseHashTableV2",
    "VarHandleOp",
    "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp",
    "ResourceConditionalAccumulator",
    "DecisionTreeResource",
)


class _RoundRobinStrategy:
    """Returns the next ps task index for placement in round-robin order.

    Not to be used directly: see `replica_device_setter()`.
    """

    def __init__(self, num_tasks):
        """Create a new `_RoundRobinStrategy`.

        Args:
            num_tasks: Number of ps tasks to cycle among.
        """
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        """Choose a ps task index for the given `Operation`.

        Args:
            unused_op: An `Operation` to be placed on ps.

        Returns:
            The next ps task index to use, in `[0, num_tasks)`.
        """
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class _ReplicaDeviceChooser:
    """Chooses devices for ops in a replicated training setup.

    Not to be used directly: see `replica_device_setter()`.
    """

    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        """Create a new `_ReplicaDeviceChooser`.

        Args:
            ps_tasks: Number of tasks in the `ps` job.
            ps_device: String. Name of the `ps` job.
            worker_device: String. Name of the `worker` job.
            merge_devices: Boolean. Set to True to allow merging of device specs.
            ps_ops: List of strings representing `Operation` types that need to
                be placed on `ps` devices.
            ps_strategy: A callable invoked for every ps `Operation` (i.e.
                matched by `ps_ops`), that takes the `Operation` and returns the
                ps task index to use.
        """
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        """Choose a device for `op`.

        Args:
            op: An `Operation` (or a `NodeDef`).

        Returns:
            The device to use for the `Operation`.
        """
        # If we don't return early here, either merge_devices is True, or op.device
        # is empty (in which case merging is a no-op). So we can always merge below.
        if not self._merge_devices and op.device:
            return op.device

        current_device = pydev.DeviceSpec.from_string(op.device or "")

        # The ps_device is used for the ps_ops whenever it is present and ps_tasks
        # is non-zero. Its task number is set (by ps_strategy) only if ps_device has
        # a job field that the job field (if any) of current_device does not change.
        # (TF reads `op.node_def.op`; an op's `type` is the same, without building
        # the whole NodeDef.)
        op_type = op.op if isinstance(op, NodeDef) else op.type
        if self._ps_tasks and self._ps_device and op_type in self._ps_ops:
            ps_device = pydev.DeviceSpec.from_string(self._ps_device)

            current_job, ps_job = current_device.job, ps_device.job
            if ps_job and (not current_job or current_job == ps_job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))

            ps_device = ps_device.make_merged_spec(current_device)
            return ps_device.to_string()

        worker_device = pydev.DeviceSpec.from_string(self._worker_device or "")
        worker_device = worker_device.make_merged_spec(current_device)
        return worker_device.to_string()


def replica_device_setter(
    ps_tasks=0,
    ps_device="/job:ps",
    worker_device="/job:worker",
    merge_devices=True,
    cluster=None,
    ps_ops=None,
    ps_strategy=None,
):
    """Return a device function to use when building a graph for replicas.

    Device functions are used in a `with tf.device(device_function):` statement
    to assign devices to ops as they are constructed. Device constraints are
    added from the innermost context first, working outwards; merging adds
    constraints to fields that a more inner context left unset. The fields are
    job, task and device type/index.

    If `cluster` is None and `ps_tasks` is 0, the result is None (a no-op in
    `tf.device`). Otherwise `ps_tasks` is derived from `cluster` when given.

    By default only variable ops are placed on ps tasks, and the placement
    strategy is round-robin over all ps tasks. A custom `ps_strategy` may be used
    to do more intelligent placement, such as
    `tf.contrib.training.GreedyLoadBalancingStrategy`.

    ```python
    # Two ps tasks on hosts ps0 and ps1, three workers.
    cluster_spec = {
        "ps": ["ps0:2222", "ps1:2222"],
        "worker": ["worker0:2222", "worker1:2222", "worker2:2222"]}
    with tf.device(tf.train.replica_device_setter(cluster=cluster_spec)):
        v1 = tf.Variable(...)  # assigned to /job:ps/task:0
        v2 = tf.Variable(...)  # assigned to /job:ps/task:1
        v3 = tf.Variable(...)  # assigned to /job:ps/task:0
    ```

    Args:
        ps_tasks: Number of tasks in the `ps` job. Ignored if `cluster` is
            provided.
        ps_device: String. Device of the `ps` job. If empty no `ps` job is used.
            Defaults to `ps`.
        worker_device: String. Device of the `worker` job. If empty no `worker`
            job is used.
        merge_devices: Boolean. If True, merges or only sets a device if the
            device constraint is completely unset; merges device specifications
            rather than overriding them.
        cluster: `ClusterDef` proto or `ClusterSpec` (or a dict a `ClusterSpec`
            accepts).
        ps_ops: List of strings representing `Operation` types that need to be
            placed on `ps` devices. If None, defaults to `STANDARD_PS_OPS`.
        ps_strategy: A callable invoked for every ps `Operation` (i.e. matched by
            `ps_ops`), that takes the `Operation` and returns the ps task index
            to use. If None, defaults to a round-robin strategy across all `ps`
            devices.

    Returns:
        A function to pass to `tf.device()`, or None.

    Raises:
        TypeError: If `cluster` is not a dictionary or `ClusterDef` protocol
            buffer, or if `ps_strategy` is provided but not a callable.
    """
    if cluster is not None:
        if isinstance(cluster, server_lib.ClusterSpec):
            cluster_spec = cluster.as_dict()
        else:
            cluster_spec = server_lib.ClusterSpec(cluster).as_dict()
        # Get ps_job_name from ps_device by stripping "/job:".
        ps_job_name = pydev.DeviceSpec.from_string(ps_device).job
        if ps_job_name not in cluster_spec or cluster_spec[ps_job_name] is None:
            return None
        ps_tasks = len(cluster_spec[ps_job_name])

    if ps_tasks == 0:
        return None

    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)

    if not merge_devices:
        _log.warning(
            "DEPRECATION: It is recommended to set merge_devices=true in replica_device_setter"
        )
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(
        ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy
    )
    return chooser.device_function
