"""Type stub of the native module `ferroflow._ferroflow` (built from rust/ferroflow-py)."""

from typing import Any, final

import numpy as np

__all__ = [
    "FILE_DESCRIPTOR_SET",
    "CheckpointReader",
    "CoordinatorCore",
    "EventWriter",
    "GradientWalk",
    "Graph",
    "Plan",
    "RecordReader",
    "RecordWriter",
    "RunnerJob",
    "Server",
    "Session",
    "TensorHandle",
    "_TensorBuffer",
    "__version__",
    "gradient_status",
    "initialize_py_trampoline",
    "local_devices",
    "op_names",
    "queue_runner_jobs",
    "reset_sessions",
    "training_op_signatures",
    "write_file_atomically",
]
__version__: str
FILE_DESCRIPTOR_SET: bytes

_Shape = list[int | None] | None
_OutputSpec = tuple[int, _Shape, bool]

@final
class CheckpointReader:
    """An open V2 checkpoint (its index read and checked)."""

    def __new__(cls, prefix: str | bytes | Any) -> CheckpointReader: ...
    def entries(self) -> list[tuple[str, int, list[int]]]:
        """`(name, TF dtype code, shape)` of every tensor, sorted by name."""
    def get_tensor(self, name: str) -> Any:
        """The tensor's value as a numpy array (numpy scalar or bytes for rank 0)."""

def op_names() -> list[str]:
    """Names of every registered op type."""

def local_devices() -> list[tuple[str, str, int, str, tuple[int, int]]]:
    """Each local device: `(name, type, memory, description, (bus_id, numa_node))`."""

def gradient_status(name: str) -> str:
    """How op type `name` takes part in `tf.gradients`: "function", "none" or "missing"."""

@final
class GradientWalk:
    """A paused `tf.gradients` computation (the core's `GradientWalk`)."""

    def resume(self, supplied: list[Any] | None = None) -> tuple[Any, ...]:
        """Runs on: `("external", node, out_grads)` or `("done", grads)`."""

def initialize_py_trampoline(trampoline: Any) -> None:
    """Sets the callable the `PyFunc` kernels call: `trampoline(token, args)`."""

def write_file_atomically(path: str | bytes | Any, data: bytes) -> None:
    """Writes `data` to `path` durably (synced temporary file, rename, synced directory).

    OS errors raise TF's error classes.
    """

@final
class Graph:
    """The native half of `ferroflow.Graph`: nodes, shape inference and unique names."""

    def __new__(cls) -> Graph: ...
    def add_op(
        self,
        op_type: str,
        name: str,
        inputs: list[tuple[int, int]],
        control_inputs: list[int],
        attrs: dict[str, tuple[str, Any]],
        device: str,
    ) -> tuple[int, list[_OutputSpec]]:
        """Adds a node; returns its id and `(dtype_code, shape, is_ref)` per output."""
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """TensorFlow's `unique_name`."""
    def set_shape(self, node: int, index: int, shape: _Shape) -> None:
        """Merges `shape` into the static shape of an output."""
    def get_attr(self, node: int, name: str) -> tuple[str, Any] | None:
        """`(kind, value)` of an attribute, or None."""
    def attr_names(self, node: int) -> list[str]:
        """Sorted attribute names of a node."""
    def gradient_walk(
        self,
        ys: list[tuple[int, int]],
        xs: list[tuple[int, int]],
        grad_ys: list[Any],
        scope: str,
        device: str,
        aggregation: int,
        colocate_with_ops: bool,
        stop: list[tuple[int, int]],
        external: list[int],
    ) -> GradientWalk:
        """Starts `tf.gradients`: a walk that pauses at the `external` nodes.

        `grad_ys`: None, `("dense", t)` or `("sparse", values, indices, shape)` each.
        """
    def node_info(
        self, id: int
    ) -> tuple[str, str, list[tuple[int, int]], list[int], str, list[_OutputSpec]]:
        """(name, op type, inputs, control inputs, device, output specs) of a node."""
    def unfinalize(self) -> None:
        """Makes a finalized graph modifiable again."""
    def finalize(self) -> None:
        """Makes the graph read-only."""
    @property
    def finalized(self) -> bool:
        """Whether the graph is read-only."""
    def num_nodes(self) -> int:
        """Number of nodes."""
    def graph_def(self, upto: int | None = None) -> bytes:
        """The serialized GraphDef of the first `upto` nodes (all when None)."""

@final
class Server:
    """A gRPC server for one task of a cluster (TF's `GrpcServer`)."""

    def __new__(cls, server_def: bytes) -> Server: ...
    @property
    def target(self) -> str:
        """`grpc://localhost:<port>`."""
    def start(self) -> None:
        """Starts serving (idempotent)."""
    def join(self) -> None:
        """Blocks until the server stops; Ctrl-C raises `KeyboardInterrupt`."""
    def stop(self) -> None:
        """Stops serving and closes the sessions on this server."""

@final
class Session:
    """The native half of `ferroflow.Session`: a session backend for its target."""

    def __new__(cls, graph: Graph, config: bytes | None = None, target: str = "") -> Session: ...
    def placement(
        self,
        feeds: list[tuple[int, int]],
        fetches: list[tuple[int, int]],
        targets: list[int],
    ) -> list[tuple[str, str]]:
        """Each step's node name and device for a run signature."""
    def devices(self) -> list[str]:
        """The full names of the session's devices, highest priority first."""
    def device_attributes(self) -> list[tuple[str, str, int, int]]:
        """`(name, device_type, memory_limit_bytes, incarnation)` of each device."""
    def prepare(
        self,
        feeds: list[tuple[int, int]],
        fetches: list[tuple[int, int]],
        targets: list[int],
    ) -> Plan:
        """Compiles (or fetches from the cache) the plan for a run signature."""
    def close(self) -> None:
        """Closes the session and releases its variable values."""
    @property
    def closed(self) -> bool:
        """Whether `close` was called."""

@final
class Plan:
    """A compiled run signature."""

    def run(self, *feeds: np.ndarray) -> list[Any]:
        """Runs with one value per feed; returns the fetched values."""
    def run_with_timeout(self, timeout_ms: int, feeds: tuple[Any, ...]) -> list[Any]:
        """Runs like `run`, failing with `DeadlineExceededError` past `timeout_ms`."""
    def run_with_options(self, options: bytes, feeds: tuple[Any, ...]) -> tuple[list[Any], bytes]:
        """Runs under a serialized `RunOptions`; returns values and a `RunMetadata`.

        The metadata is serialized; a traced run fills its `step_stats`.
        """
    def run_to_handles(self, *feeds: Any) -> list[TensorHandle]:
        """Runs like `run`, keeping the results in Rust as `TensorHandle`s."""
    @property
    def num_steps(self) -> int:
        """Number of nodes the plan runs."""
    @property
    def is_parallel(self) -> bool:
        """Whether independent branches run on the thread pool."""

@final
class _TensorBuffer:
    """Keeps a tensor buffer alive while numpy arrays view it."""

@final
class TensorHandle:
    """A tensor kept in Rust: fed back without a copy; holding one is a snapshot."""

    @property
    def dtype(self) -> str:
        """The element type's Python name (`float32`)."""
    @property
    def shape(self) -> list[int]:
        """The shape."""
    def numpy(self) -> Any:
        """The value as a numpy array."""

@final
class EventWriter:
    """Writes one event file on a Rust thread behind a bounded queue."""

    def __new__(
        cls,
        logdir: str,
        max_queue: int = 10,
        flush_secs: float = 120.0,
        filename_suffix: str = "",
        hostname: str = "localhost",
    ) -> EventWriter: ...
    @property
    def path(self) -> str:
        """The path of the event file."""
    @property
    def closed(self) -> bool:
        """Whether `close` was called."""
    def add_event(self, event: bytes) -> bool:
        """Queues a serialized `Event`; false (dropped) after `close`."""
    def add_summary(
        self, summary: Any, step: int | None = None, wall_time: float | None = None
    ) -> bool:
        """Queues `Event{wall_time, step, summary}` for a `Summary` or its bytes."""
    def flush(self) -> None:
        """Writes every queued event to the file."""
    def close(self) -> None:
        """Writes every queued event, syncs the file and stops the thread."""

@final
class RecordReader:
    """Iterates over the payloads of a TFRecord file, verifying both CRCs."""

    def __new__(cls, path: str, compression: int = 0) -> RecordReader: ...
    def __iter__(self) -> RecordReader: ...
    def __next__(self) -> bytes:
        """The next payload."""

@final
class RecordWriter:
    """Writes a TFRecord file, compressed as asked (0 none, 1 zlib, 2 gzip)."""

    def __new__(cls, path: str, compression: int = 0, level: int | None = None) -> RecordWriter: ...
    def write(self, record: bytes) -> None:
        """Appends one record."""
    def flush(self) -> None:
        """Hands what is buffered to the OS."""
    def close(self) -> None:
        """Finishes, syncs and closes the file."""

@final
class CoordinatorCore:
    """Stop flag, first error and registered threads of one `tf.train.Coordinator`."""

    def __new__(cls, clean_stop_codes: list[int] = ...) -> CoordinatorCore: ...
    def should_stop(self) -> bool:
        """Whether a stop was requested."""
    def request_stop(self, exc_info: Any | None = None) -> bool:
        """Requests a stop; True when already joined (the caller must raise)."""
    def clear_stop(self) -> None:
        """Clears the stop flag, the recorded error and the joined mark."""
    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Waits without the GIL until a stop is requested or `timeout` passes."""
    def error(self) -> Any | None:
        """The recorded error: an `exc_info` tuple, an exception, or None."""
    def mark_joined(self) -> Any | None:
        """Marks the coordinator joined and returns the recorded error."""
    @property
    def joined(self) -> bool:
        """Whether `join` ran since the last `clear_stop`."""
    def register_thread(self, thread: Any) -> None:
        """Adds a thread for a later `join` to wait on."""
    def take_registered_threads(self) -> list[Any]:
        """The registered threads, forgotten by this call."""
    def registered_threads(self) -> list[Any]:
        """The registered threads (a copy)."""

@final
class RunnerJob:
    """The loop of one queue-runner thread, run in Rust without the GIL."""

    def run(self) -> None:
        """Runs the loop to its end; raises the error that ended it without a coordinator."""

def queue_runner_jobs(
    enqueue_plans: list[Plan],
    close_plan: Plan,
    cancel_plan: Plan,
    coord: CoordinatorCore | None,
    closed_codes: list[int],
) -> list[RunnerJob]:
    """The loops of one `QueueRunner.create_threads` call (enqueues, then close-on-stop)."""

def training_op_signatures() -> list[
    tuple[str, list[tuple[str, str]], tuple[str, bool] | None, str]
]:
    """Every optimizer op's `(op, [(input, kind)], flag, doc)`; kind is ref, T, indices, step."""

def reset_sessions(target: str, containers: list[str] = ...) -> None:
    """Resets `containers` on `target` and closes the sessions connected to it."""
