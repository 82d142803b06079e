"""Servers and cluster descriptions for distributed training: TF-1.x's `server_lib`.

`Server` is an in-process gRPC server for one task of a cluster, speaking
TensorFlow's own distributed protocol (so TensorFlow clients and servers can join
the same cluster); its `target` is what a `tf.Session` connects to.

`ClusterSpec` maps job names to their tasks' network addresses (a job may be
sparse: a dict `{task_index: address}`) and converts to and from the
`ClusterDef` protocol buffer; `_make_server_def` builds the `ServerDef` a
server is started from, with TF's rules for inferring the job name, task index
and protocol. Both are TF's, down to the error classes and messages.
"""

from __future__ import annotations

from .. import _ferroflow
from ..protos import ClusterDef, ServerDef

__all__ = ["ClusterSpec", "Server"]


def _as_bytes(bytes_or_text) -> bytes:
    # TF's `compat.as_bytes` (`ferroflow.compat` sits above the train package).
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode("utf-8")
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def _make_server_def(server_or_cluster_def, job_name, task_index, protocol, config):
    """Creates a `tf.train.ServerDef` protocol buffer.

    Args:
        server_or_cluster_def: A `tf.train.ServerDef` or `tf.train.ClusterDef`
            protocol buffer, or a `tf.train.ClusterSpec` object (or a dict a
            `ClusterSpec` accepts), describing the server to be defined and/or
            the cluster of which it is a member.
        job_name: (Optional.) The name of the job of which the server is a
            member. Defaults to the value in `server_or_cluster_def`, if
            specified; otherwise to the cluster's only job.
        task_index: (Optional.) The task index of the server in its job.
            Defaults to the value in `server_or_cluster_def`, if specified;
            otherwise to the job's only task.
        protocol: (Optional.) The protocol to be used by the server, e.g.
            `"grpc"`. Defaults to the value in `server_or_cluster_def`, if
            specified; otherwise `"grpc"`.
        config: (Optional.) A `tf.ConfigProto` with the default configuration
            options of every session that runs on this server.

    Returns:
        A `tf.train.ServerDef`.

    Raises:
        TypeError: If the arguments do not have the appropriate type.
        ValueError: If an argument is not specified and cannot be inferred.
    """
    server_def = ServerDef()
    if isinstance(server_or_cluster_def, ServerDef):
        server_def.MergeFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
        if config is not None:
            server_def.default_session_config.MergeFrom(config)
    else:
        try:
            cluster_spec = ClusterSpec(server_or_cluster_def)
        except TypeError:
            raise TypeError(
                "Could not convert `server_or_cluster_def` to a "
                "`tf.train.ServerDef` or `tf.train.ClusterSpec`."
            ) from None
        if job_name is None:
            if len(cluster_spec.jobs) == 1:
                job_name = cluster_spec.jobs[0]
            else:
                raise ValueError("Must specify an explicit `job_name`.")
        if task_index is None:
            task_indices = cluster_spec.task_indices(job_name)
            if len(task_indices) == 1:
                task_index = task_indices[0]
            else:
                raise ValueError("Must specify an explicit `task_index`.")
        if protocol is None:
            protocol = "grpc"

        server_def = ServerDef(
            cluster=cluster_spec.as_cluster_def(),
            job_name=job_name,
            task_index=task_index,
            protocol=protocol,
        )
        if config is not None:
            server_def.default_session_config.MergeFrom(config)
    return server_def


class Server:
    """An in-process TensorFlow server, for use in distributed training.

    A `tf.train.Server` instance encapsulates a set of devices and a `tf.Session`
    target that can participate in distributed training. A server belongs to a
    cluster (specified by a `tf.train.ClusterSpec`), and corresponds to a
    particular task in a named job. The server can communicate with any other
    server in the same cluster, TensorFlow's included: it serves TensorFlow's
    `MasterService` and `WorkerService` over gRPC. Every session connected to a
    server shares its resource containers, so a variable a worker's session creates
    on it outlives that session.
    """

    def __init__(
        self,
        server_or_cluster_def,
        job_name=None,
        task_index=None,
        protocol=None,
        config=None,
        start=True,
    ):
        """Creates a new server with the given definition.

        The `job_name`, `task_index`, and `protocol` arguments are optional, and
        override any information provided in `server_or_cluster_def`.

        Args:
            server_or_cluster_def: A `tf.train.ServerDef` or `tf.train.ClusterDef`
                protocol buffer, or a `tf.train.ClusterSpec` object, describing the
                server to be created and/or the cluster of which it is a member.
            job_name: (Optional.) Specifies the name of the job of which the server
                is a member. Defaults to the value in `server_or_cluster_def`, if
                specified.
            task_index: (Optional.) Specifies the task index of the server in its
                job. Defaults to the value in `server_or_cluster_def`, if specified.
                Otherwise defaults to 0 if the server's job has only one task.
            protocol: (Optional.) Specifies the protocol to be used by the server.
                Acceptable values include `"grpc"`. Defaults to the value in
                `server_or_cluster_def`, if specified. Otherwise defaults to
                `"grpc"`.
            config: (Options.) A `tf.ConfigProto` that specifies default
                configuration options for all sessions that run on this server.
            start: (Optional.) Boolean, indicating whether to start the server
                after creating it. Defaults to `True`.

        Raises:
            tf.errors.OpError: Or one of its subclasses if an error occurs while
                creating the TensorFlow server (a port in use is
                `UnavailableError`).
        """
        self._server_def = _make_server_def(
            server_or_cluster_def, job_name, task_index, protocol, config
        )
        self._server = _ferroflow.Server(self._server_def.SerializeToString())
        if start:
            self.start()

    def start(self):
        """Starts this server. Calling it again has no effect.

        Raises:
            tf.errors.OpError: Or one of its subclasses if an error occurs while
                starting the TensorFlow server.
        """
        self._server.start()

    def join(self):
        """Blocks until the server has shut down (in practice, until interrupted).

        Raises:
            tf.errors.OpError: Or one of its subclasses if an error occurs while
                joining the TensorFlow server.
        """
        self._server.join()

    @property
    def server_def(self):
        """Returns the `tf.train.ServerDef` for this server.

        Returns:
            A `tf.train.ServerDef` protocol buffer that describes the configuration
            of this server.
        """
        return self._server_def

    @property
    def target(self):
        """Returns the target for a `tf.Session` to connect to this server.

        To create a `tf.Session` that connects to this server, use the following
        snippet:

        ```python
        server = tf.train.Server(...)
        with tf.Session(server.target):
          # ...
        ```

        Returns:
            A string containing a session target for this server
            (`grpc://localhost:<port>`).
        """
        return self._server.target

    @staticmethod
    def create_local_server(config=None, start=True):
        """Creates a new single-process cluster running on the local host.

        This method is a convenience wrapper for creating a `tf.train.Server` with
        a `tf.train.ServerDef` that specifies a single-process cluster containing a
        single task in a job called `"localhost"` (TensorFlow's current name; the
        TF-0.x documentation called it `"local"`), on a port the system picks.

        Args:
            config: (Options.) A `tf.ConfigProto` that specifies default
                configuration options for all sessions that run on this server.
            start: (Optional.) Boolean, indicating whether to start the server after
                creating it. Defaults to `True`.

        Returns:
            A local `tf.train.Server`.
        """
        # Specifying port 0 means that the OS will choose a free port for the server.
        return Server({"localhost": ["localhost:0"]}, protocol="grpc", config=config, start=start)

    def _stop(self):
        # Not in TF's API (TF cannot stop a server cleanly): tests and interpreter
        # exit stop ferroflow's so that its port is released.
        self._server.stop()


class ClusterSpec:
    """Represents a cluster as a set of "tasks", organized into "jobs".

    A `tf.train.ClusterSpec` represents the set of processes that participate
    in a distributed computation. Every `tf.train.Server` is constructed in a
    particular cluster.

    To create a cluster with two jobs and five tasks, map job names to lists of
    network addresses (typically hostname-port pairs):

    ```python
    cluster = tf.train.ClusterSpec({"worker": ["worker0.example.com:2222",
                                               "worker1.example.com:2222",
                                               "worker2.example.com:2222"],
                                    "ps": ["ps0.example.com:2222",
                                           "ps1.example.com:2222"]})
    ```

    A job may also be a sparse mapping from task indices to network addresses,
    so that a server can be configured without knowing every other task:

    ```python
    cluster = tf.train.ClusterSpec({"worker": {1: "worker1.example.com:2222"},
                                    "ps": ["ps0.example.com:2222",
                                           "ps1.example.com:2222"]})
    ```
    """

    def __init__(self, cluster):
        """Creates a `ClusterSpec`.

        Args:
            cluster: A dictionary mapping one or more job names to (i) a list of
                network addresses, or (ii) a dictionary mapping integer task
                indices to network addresses; or a `tf.train.ClusterDef`
                protocol buffer; or another `ClusterSpec` (copied).

        Raises:
            TypeError: If `cluster` is not a dictionary mapping strings to lists
                of strings, and not a `tf.train.ClusterDef` protobuf.
        """
        self._cluster_spec: dict
        self._cluster_def: ClusterDef
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = dict(enumerate(tasks))
                elif isinstance(tasks, dict):
                    job_tasks = {int(i): task for i, task in tasks.items()}
                else:
                    raise TypeError(
                        f"The tasks for job {job_name!r} must be a list or a dictionary "
                        "from integers to strings."
                    )
                self._cluster_spec[job_name] = job_tasks
            self._make_cluster_def()
        elif isinstance(cluster, ClusterDef):
            # As TF: the given message is kept (not copied).
            self._cluster_def = cluster
            self._cluster_spec = {}
            for job_def in self._cluster_def.job:
                self._cluster_spec[job_def.name] = dict(job_def.tasks.items())
        elif isinstance(cluster, ClusterSpec):
            self._cluster_def = ClusterDef()
            self._cluster_def.MergeFrom(cluster.as_cluster_def())
            self._cluster_spec = {}
            for job_def in self._cluster_def.job:
                self._cluster_spec[job_def.name] = dict(job_def.tasks.items())
        else:
            raise TypeError(
                "`cluster` must be a dictionary mapping one or more "
                "job names to lists of network addresses, or a "
                "`ClusterDef` protocol buffer"
            )

    def __bool__(self) -> bool:
        """Whether the cluster has at least one job."""
        return bool(self._cluster_spec)

    # Python 2's name, kept as TF keeps it.
    __nonzero__ = __bool__

    def __eq__(self, other):
        """Compares the `{job: {task_index: address}}` mapping with `other`.

        As TF: equal to another `ClusterSpec` with the same jobs and tasks, and
        to a dict of that form.
        """
        return self._cluster_spec == other

    def __ne__(self, other):
        """The negation of `__eq__`."""
        return self._cluster_spec != other

    def __repr__(self) -> str:
        key_values = self.as_dict()
        string_items = [repr(k) + ": " + repr(key_values[k]) for k in sorted(key_values)]
        return "ClusterSpec({" + ", ".join(string_items) + "})"

    def as_dict(self) -> dict:
        """Returns a dictionary from job names to their tasks.

        For each job, if the task index space is dense, the value is a list of
        network addresses; otherwise it is a dictionary mapping the (sparse)
        task indices to the addresses.

        Returns:
            A dictionary mapping job names to lists or dictionaries describing
            the tasks in those jobs.
        """
        ret: dict = {}
        for job in self.jobs:
            task_indices = self.task_indices(job)
            if len(task_indices) == 0:
                ret[job] = {}
                continue
            if max(task_indices) + 1 == len(task_indices):
                # Dense task indices: a list, as before sparse jobs existed.
                ret[job] = self.job_tasks(job)
            else:
                ret[job] = {i: self.task_address(job, i) for i in task_indices}
        return ret

    def as_cluster_def(self) -> ClusterDef:
        """Returns a `tf.train.ClusterDef` protocol buffer based on this cluster."""
        return self._cluster_def

    @property
    def jobs(self) -> list:
        """The job names in this cluster (a list of strings)."""
        return list(self._cluster_spec.keys())

    def num_tasks(self, job_name) -> int:
        """Returns the number of tasks defined in the given job.

        Args:
            job_name: The string name of a job in this cluster.

        Returns:
            The number of tasks defined in the given job.

        Raises:
            ValueError: If `job_name` does not name a job in this cluster.
        """
        return len(self._job(job_name))

    def task_indices(self, job_name) -> list:
        """Returns a sorted list of the valid task indices in the given job.

        Args:
            job_name: The string name of a job in this cluster.

        Returns:
            A list of valid task indices in the given job.

        Raises:
            ValueError: If `job_name` does not name a job in this cluster.
        """
        return sorted(self._job(job_name).keys())

    def task_address(self, job_name, task_index):
        """Returns the address of the given task in the given job.

        Args:
            job_name: The string name of a job in this cluster.
            task_index: A non-negative integer.

        Returns:
            The address of the given task in the given job.

        Raises:
            ValueError: If `job_name` does not name a job in this cluster, or no
                task with index `task_index` is defined in that job.
        """
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name) -> list:
        """Returns a list of the addresses of the given job's tasks, by task index.

        For backwards compatibility this is a list: if the job was defined with
        a sparse set of task indices, the list holds `None` for the missing ones
        and its length is not the number of tasks (see `num_tasks`).

        Args:
            job_name: The string name of a job in this cluster.

        Returns:
            A list of task addresses, where the index in the list is the task
            index; `None` where the job defines no such task.

        Raises:
            ValueError: If `job_name` does not name a job in this cluster.
        """
        job = self._job(job_name)
        ret = [None for _ in range(max(job.keys()) + 1)]
        for i, task in job.items():
            ret[i] = task
        return ret

    def _job(self, job_name) -> dict:
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def _make_cluster_def(self) -> None:
        """Builds the `ClusterDef` (jobs sorted by name, tasks by index), as TF.

        Raises:
            TypeError: If a job name or a task address is not a string.
        """
        self._cluster_def = ClusterDef()
        # Sorted by job name, for deterministic protobufs.
        for job_name, tasks in sorted(self._cluster_spec.items()):
            try:
                name = _as_bytes(job_name)
            except TypeError:
                raise TypeError(f"Job name {job_name!r} must be bytes or unicode") from None
            job_def = self._cluster_def.job.add()
            job_def.name = name
            for i, task_address in sorted(tasks.items()):
                try:
                    address = _as_bytes(task_address)
                except TypeError:
                    raise TypeError(
                        f"Task address {task_address!r} must be bytes or unicode"
                    ) from None
                job_def.tasks[i] = address
