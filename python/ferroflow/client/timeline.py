"""Chrome-trace timelines of a traced step (TF's `tensorflow.python.client.timeline`).

A run with `RunOptions(trace_level=FULL_TRACE)` fills `RunMetadata.step_stats`;
`Timeline(run_metadata.step_stats).generate_chrome_trace_format()` turns it into the
JSON that `chrome://tracing` and Perfetto open: one process per device for the ops
(a region per node, on lanes so overlapping ops do not cover each other), one per
device for its tensors, arrows for the tensors that flow between lanes
(`show_dataflow`), and tensor lifetimes with an allocator memory counter
(`show_memory`). The events are TF's, field for field, so traces of ferroflow and of
TensorFlow read the same.

Example:
    ```python
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    sess.run(train_op, options=options, run_metadata=metadata)
    with open("timeline.json", "w") as f:
        f.write(timeline.Timeline(metadata.step_stats).generate_chrome_trace_format())
    ```
"""

from __future__ import annotations

import collections
import copy
import json
import re

__all__ = ["AllocationMaximum", "StepStatsAnalysis", "Timeline"]

AllocationMaximum = collections.namedtuple(
    "AllocationMaximum", ("timestamp", "num_bytes", "tensors")
)
AllocationMaximum.__doc__ = (
    """An allocator's peak: when, how many bytes, which tensors held them."""
)

StepStatsAnalysis = collections.namedtuple(
    "StepStatsAnalysis", ("chrome_trace", "allocator_maximums")
)
StepStatsAnalysis.__doc__ = """A step's trace events and each allocator's `AllocationMaximum`."""

# `name = Op(input, input:1, ^control)`, the label a traced node carries.
_OP_LABEL = re.compile(r"(.*) = (.*)\((.*)\)")


class _ChromeTrace:
    """The events of one trace, in Chrome's trace-event format."""

    def __init__(self):
        self._metadata = []
        self._events = []

    def process(self, name, pid):
        self._metadata.append(
            {"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}}
        )

    def _event(self, ph, category, name, pid, tid, timestamp, **fields):
        event = {"ph": ph, "cat": category, "name": name, "pid": pid, "tid": tid, "ts": timestamp}
        event.update(fields)
        self._events.append(event)

    def region(self, timestamp, duration, pid, tid, category, name, args):
        self._event("X", category, name, pid, tid, timestamp, dur=duration, args=args)

    def object_created(self, category, name, timestamp, pid, tid, object_id):
        self._event("N", category, name, pid, tid, timestamp, id=object_id)

    def object_deleted(self, category, name, timestamp, pid, tid, object_id):
        self._event("D", category, name, pid, tid, timestamp, id=object_id)

    def object_snapshot(self, category, name, timestamp, pid, tid, object_id, snapshot):
        self._event(
            "O", category, name, pid, tid, timestamp, id=object_id, args={"snapshot": snapshot}
        )

    def flow(self, name, start, end, flow_id):
        """An arrow from `start` to `end`, each `(timestamp, pid, tid)`."""
        for ph, (timestamp, pid, tid) in (("s", start), ("t", end)):
            self._event(ph, "DataFlow", name, pid, tid, timestamp, id=flow_id)

    def counter(self, category, name, pid, timestamp, counter, value):
        self._event("C", category, name, pid, 0, timestamp, args={counter: value})

    def format_to_string(self, pretty=False):
        """The trace as JSON (indented when `pretty`)."""
        trace = {"traceEvents": self._metadata + self._events}
        if pretty:
            return json.dumps(trace, indent=4, separators=(",", ": "))
        return json.dumps(trace, separators=(",", ":"))


class _Tensor:
    """One produced tensor: where it lives, its size, and when it was last used."""

    def __init__(self, name, object_id, created, pid, allocator, num_bytes):
        self.name = name
        self.object_id = object_id
        self.created = created
        self.pid = pid
        self.allocator = allocator
        self.num_bytes = num_bytes
        self.released = []

    @property
    def last_unref(self):
        return max(self.released)


def _op_label(label):
    """`(node, op, inputs)` of a node's timeline label; `unknown` if it has none."""
    match = _OP_LABEL.match(label)
    if match is None:
        return "unknown", "unknown", []
    node, op, inputs = match.groups()
    return node, op, inputs.split(", ") if inputs else []


def _kernel_label(label, node_name):
    """`(node, op)` of a GPU-trace kernel label (`... @@node:op#...`)."""
    start, end = label.find("@@"), label.find("#")
    if start >= 0 and end >= 0 and start + 2 < end:
        node_name = label[start + 2 : end]
    name, op = [*node_name.split(":"), "unknown"][:2]
    return name, op


def _is_gpu_trace(device):
    return "/stream:" in device or "/memcpy" in device


class Timeline:
    """The execution timeline of one step, from its `StepStats`.

    Args:
        step_stats: The `StepStats` of a traced run (`RunMetadata.step_stats`).
        graph: The graph that ran (accepted for TF's signature; unused).
    """

    def __init__(self, step_stats, graph=None):
        self._origin_step_stats = step_stats
        self._step_stats = step_stats  # or a copy with op times stretched (_select_op_times)
        self._graph = graph
        self._trace = _ChromeTrace()
        self._next_pid = 0
        self._device_pids = {}
        self._tensor_pids = {}
        self._tensors = {}
        self._flow_starts = {}
        self._next_flow_id = 0
        self._allocators_pid = None
        self._allocator_maximums = {}

    def _new_pid(self):
        self._next_pid += 1
        return self._next_pid - 1

    def _select_op_times(self, op_time):
        """Copies the stats, stretching ops over their GPU kernels for `gpu`/`all`."""
        if op_time == "schedule":
            self._step_stats = self._origin_step_stats
            return
        self._step_stats = copy.deepcopy(self._origin_step_stats)
        kernels = [d for d in self._step_stats.dev_stats if "/stream:all" in d.device]
        jobs = [
            d
            for d in self._step_stats.dev_stats
            if "/stream:all" not in d.device and "/job" in d.device
        ]
        spans: dict[str, tuple[int, int]] = {}
        for dev in kernels:
            for k in dev.node_stats:
                name, _ = _kernel_label(k.timeline_label, k.node_name)
                start, end = k.all_start_micros, k.all_start_micros + k.all_end_rel_micros
                old = spans.get(name, (start, end))
                spans[name] = (min(old[0], start), max(old[1], end))
        for dev in jobs:
            for op in dev.node_stats:
                if op.node_name in spans:
                    gpu_start, gpu_end = spans[op.node_name]
                    end = max(gpu_end, op.all_start_micros + op.all_end_rel_micros)
                    if op_time == "gpu":
                        op.all_start_micros = gpu_start
                    op.all_end_rel_micros = end - op.all_start_micros

    def _allocate_pids(self):
        self._allocators_pid = self._new_pid()
        self._trace.process("Allocators", self._allocators_pid)
        for dev in self._step_stats.dev_stats:
            self._device_pids[dev.device] = self._new_pid()
            self._tensor_pids[dev.device] = self._new_pid()
            self._trace.process(dev.device + " Compute", self._device_pids[dev.device])
            self._trace.process(dev.device + " Tensors", self._tensor_pids[dev.device])

    def _assign_lanes(self):
        """Puts each op on the first lane free when it starts (its `thread_id`)."""
        for dev in self._step_stats.dev_stats:
            lanes = [0]
            for ns in dev.node_stats:
                end = ns.all_start_micros + ns.all_end_rel_micros
                lane = next((i for i, t in enumerate(lanes) if ns.all_start_micros > t), None)
                if lane is None:
                    lane = len(lanes)
                    lanes.append(end)
                else:
                    lanes[lane] = end
                ns.thread_id = lane

    def _analyze_tensors(self, show_memory):
        for dev in self._step_stats.dev_stats:
            device_pid, tensors_pid = self._device_pids[dev.device], self._tensor_pids[dev.device]
            for ns in dev.node_stats:
                start, end = ns.all_start_micros, ns.all_start_micros + ns.all_end_rel_micros
                for index, output in enumerate(ns.output):
                    name = f"{ns.node_name}:{index}" if index else ns.node_name
                    allocation = output.tensor_description.allocation_description
                    tensor = _Tensor(
                        name,
                        len(self._tensors),
                        start,
                        tensors_pid,
                        allocation.allocator_name,
                        allocation.requested_bytes,
                    )
                    self._tensors[name] = tensor
                    tensor.released.append(end)
                    self._flow_starts[name] = (end, device_pid, ns.thread_id)
                    if show_memory:
                        self._trace.object_created(
                            "Tensor", name, start, tensors_pid, ns.thread_id, tensor.object_id
                        )
                        description = str(output.tensor_description).replace('"', "")
                        self._trace.object_snapshot(
                            "Tensor",
                            name,
                            end - 1,
                            tensors_pid,
                            ns.thread_id,
                            tensor.object_id,
                            {"tensor_description": description},
                        )

    def _show_compute(self, show_dataflow):
        for dev in self._step_stats.dev_stats:
            pid = self._device_pids[dev.device]
            gpu_trace = _is_gpu_trace(dev.device)
            for ns in dev.node_stats:
                tid, start = ns.thread_id, ns.all_start_micros
                end = start + ns.all_end_rel_micros
                inputs = []
                if gpu_trace:
                    node, op = _kernel_label(ns.timeline_label, ns.node_name)
                elif ns.node_name == "RecvTensor":
                    node, op = ns.node_name, "RecvTensor"
                else:
                    node = ns.node_name
                    _, op, inputs = _op_label(ns.timeline_label)
                args = {"name": node, "op": op}
                args.update((f"input{i}", name) for i, name in enumerate(inputs))
                self._trace.region(start, ns.all_end_rel_micros, pid, tid, "Op", op, args)
                for name in inputs:
                    if name not in self._tensors:
                        # A tensor that crossed a partition (`/_<n>` Send/Recv suffix)
                        # is drawn as coming from its original node.
                        cut = name.rfind("/_")
                        if cut > 0:
                            name = name[:cut]
                    tensor = self._tensors.get(name)
                    if tensor is None:
                        continue
                    tensor.released.append(end - 1)
                    produced = self._flow_starts[name]
                    # Arrows within one lane would only clutter the view.
                    if show_dataflow and produced[1:] != (pid, tid):
                        self._trace.flow(name, produced, (start, pid, tid), self._next_flow_id)
                        self._next_flow_id += 1

    def _show_memory_counters(self):
        by_allocator = collections.defaultdict(list)
        for name, tensor in self._tensors.items():
            self._trace.object_deleted(
                "Tensor", name, tensor.last_unref, tensor.pid, 0, tensor.object_id
            )
            by_allocator[tensor.allocator].append((tensor.created, tensor.num_bytes, name))
            by_allocator[tensor.allocator].append((tensor.last_unref, -tensor.num_bytes, name))
        maxima = {}
        for allocator, changes in by_allocator.items():
            total, live = 0, set()
            maxima[allocator] = AllocationMaximum(timestamp=0, num_bytes=0, tensors=set())
            for when, num_bytes, name in sorted(changes):
                total += num_bytes
                if num_bytes < 0:
                    live.discard(name)
                else:
                    live.add(name)
                if total > maxima[allocator].num_bytes:
                    maxima[allocator] = AllocationMaximum(when, total, set(live))
                self._trace.counter(
                    "Memory", allocator, self._allocators_pid, when, allocator, total
                )
        self._allocator_maximums = maxima

    def analyze_step_stats(self, show_dataflow=True, show_memory=True, op_time="schedule"):
        """Builds the trace events and finds each allocator's peak.

        Args:
            show_dataflow: Add arrows from each tensor's producer to its consumers.
            show_memory: Add tensor lifetimes and allocator memory counters.
            op_time: `schedule` (the ops' own times), `gpu` (their GPU kernels' span)
                or `all` (from their start to their last kernel's end).

        Returns:
            A `StepStatsAnalysis`.
        """
        self._select_op_times(op_time)
        self._allocate_pids()
        self._assign_lanes()
        self._analyze_tensors(show_memory)
        self._show_compute(show_dataflow)
        if show_memory:
            self._show_memory_counters()
        return StepStatsAnalysis(
            chrome_trace=self._trace, allocator_maximums=self._allocator_maximums
        )

    def generate_chrome_trace_format(
        self, show_dataflow=True, show_memory=False, op_time="schedule"
    ):
        """The step as a JSON string in Chrome's trace-event format.

        Args:
            show_dataflow: Add arrows from each tensor's producer to its consumers.
            show_memory: Add tensor lifetimes and allocator memory counters.
            op_time: `schedule`, `gpu` or `all` (see `analyze_step_stats`).

        Returns:
            The JSON text (indented).
        """
        analysis = self.analyze_step_stats(show_dataflow, show_memory, op_time)
        return analysis.chrome_trace.format_to_string(pretty=True)
