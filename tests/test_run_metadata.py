"""Traced runs: `RunMetadata.step_stats` under `RunOptions.trace_level`, the Chrome
timelines made from it (`ferroflow.client.timeline`) and `ProfilerHook`, against TF's."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

import ferroflow as ff
from ferroflow import protos
from ferroflow.client import timeline

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def _model(lib):
    x = lib.placeholder(lib.float32, [None, 3], name="x")
    w = lib.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    y = lib.nn.relu(lib.matmul(x, w, name="y"), name="act")
    loss = lib.reduce_sum(y, name="loss")
    return x, loss


def _traced_run(lib, build=_model, level=None):
    g = lib.Graph()
    with g.as_default():
        x, loss = build(lib)
        with lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            metadata = lib.RunMetadata()
            options = lib.RunOptions(
                trace_level=lib.RunOptions.FULL_TRACE if level is None else level
            )
            before = time.time()
            value = sess.run(
                loss,
                {x: np.ones((4, 3), np.float32)},
                options=options,
                run_metadata=metadata,
            )
            after = time.time()
    return value, metadata, (before, after)


def _op_nodes(step_stats):
    """{node: (label, [(dtype, shape, bytes)])} of the graph's own nodes (TF adds
    `_SOURCE`, `_arg_*` and `_retval_*` nodes of its own)."""
    out = {}
    for dev in step_stats.dev_stats:
        for ns in dev.node_stats:
            if ns.node_name.startswith("_"):
                continue
            outputs = [
                (
                    o.tensor_description.dtype,
                    [d.size for d in o.tensor_description.shape.dim],
                    o.tensor_description.allocation_description.requested_bytes,
                )
                for o in ns.output
            ]
            out[ns.node_name] = (ns.timeline_label, outputs)
    return out


def test_full_trace_records_every_node_as_tf_labels_it(tf1):
    value, ours, (before, after) = _traced_run(ff)
    tf_value, theirs, _ = _traced_run(tf1)
    assert value == tf_value == 60.0
    assert [d.device for d in ours.step_stats.dev_stats] == [CPU]
    ff_nodes = _op_nodes(ours.step_stats)
    tf_nodes = _op_nodes(theirs.step_stats)
    assert set(ff_nodes) == {"w", "w/read", "y", "act", "Const", "loss"}
    # Same labels (`name = Op(inputs)`) and outputs as TF's for every node TF reports
    # (TF folds constants and may leave some out).
    for name, (label, outputs) in tf_nodes.items():
        if name in ff_nodes:
            # (TF's oneDNN build rewrites MatMul to _MklMatMul.)
            assert ff_nodes[name][0] == label.replace("_arg_x_0_0", "x").replace("_Mkl", "")
            assert ff_nodes[name][1] == outputs or not outputs
    assert ff_nodes["y"] == ("y = MatMul(x, w/read)", [(ff.float32.as_datatype_enum, [4, 2], 32)])
    for ns in ours.step_stats.dev_stats[0].node_stats:
        assert before * 1e6 - 1 <= ns.all_start_micros <= after * 1e6 + 1
        assert 0 <= ns.op_start_rel_nanos <= ns.op_end_rel_nanos <= ns.all_end_rel_nanos
        assert ns.all_start_nanos // 1000 == ns.all_start_micros
        assert ns.thread_id > 0


def test_untraced_runs_leave_the_metadata_empty():
    _, metadata, _ = _traced_run(ff, level=ff.RunOptions.NO_TRACE)
    assert metadata == ff.RunMetadata()
    with ff.Graph().as_default():
        x, loss = _model(ff)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            metadata = ff.RunMetadata()
            metadata.step_stats.dev_stats.add(device="stale")
            sess.run(loss, {x: np.ones((1, 3), np.float32)}, run_metadata=metadata)
            assert metadata == ff.RunMetadata()  # cleared by the run


def test_make_callable_with_options_traces():
    with ff.Graph().as_default():
        x, loss = _model(ff)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            run = sess.make_callable(loss, [x], accept_options=True)
            metadata = ff.RunMetadata()
            options = ff.RunOptions(trace_level=ff.RunOptions.SOFTWARE_TRACE, timeout_in_ms=5000)
            assert run(np.ones((2, 3), np.float32), options=options, run_metadata=metadata) == 30
            assert "loss" in _op_nodes(metadata.step_stats)


def test_a_parallel_run_is_traced_on_its_threads():
    config = ff.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
    with ff.Graph().as_default():
        branches = [ff.reduce_sum(ff.random_uniform([1 << 19], seed=i) * 2.0) for i in range(4)]
        total = ff.add_n(branches, name="total")
        with ff.Session(config=config) as sess:
            metadata = ff.RunMetadata()
            options = ff.RunOptions(trace_level=ff.RunOptions.FULL_TRACE)
            sess.run(total, options=options, run_metadata=metadata)
    nodes = _op_nodes(metadata.step_stats)
    assert nodes["total"][0] == "total = AddN(Sum, Sum_1, Sum_2, Sum_3)"
    assert {"mul", "mul_3", "random_uniform_3/RandomUniform"} <= set(nodes)
    starts = {ns.node_name: ns for ns in metadata.step_stats.dev_stats[0].node_stats}
    # AddN starts after every branch ended.
    for name, ns in starts.items():
        if name != "total":
            end = ns.all_start_nanos + ns.all_end_rel_nanos
            assert end <= starts["total"].all_start_nanos


def _tf_step_stats(tf1, step_stats):
    from tensorflow.core.framework import step_stats_pb2

    return step_stats_pb2.StepStats.FromString(step_stats.SerializeToString())


@pytest.mark.parametrize("show_memory", [False, True])
@pytest.mark.parametrize("show_dataflow", [False, True])
def test_timeline_is_tfs_on_our_step_stats_and_on_tfs(tf1, show_memory, show_dataflow):
    from tensorflow.python.client import timeline as tf_timeline

    config = ff.ConfigProto(inter_op_parallelism_threads=2)
    with ff.Graph().as_default():
        branches = [ff.reduce_sum(ff.random_uniform([1 << 19], seed=i)) for i in range(3)]
        total = ff.add_n(branches, name="total")
        with ff.Session(config=config) as sess:
            ours = ff.RunMetadata()
            sess.run(total, options=ff.RunOptions(trace_level=3), run_metadata=ours)
    _, theirs, _ = _traced_run(tf1)
    for stats in (ours.step_stats, _tf_step_stats(tf1, theirs.step_stats)):
        mine = timeline.Timeline(protos.StepStats.FromString(stats.SerializeToString()))
        reference = tf_timeline.Timeline(_tf_step_stats(tf1, stats))
        args = {"show_dataflow": show_dataflow, "show_memory": show_memory}
        text = mine.generate_chrome_trace_format(**args)
        assert text == reference.generate_chrome_trace_format(**args)
        ops = {e["args"]["op"] for e in json.loads(text)["traceEvents"] if e["ph"] == "X"}
        # Ours run AddN; TF's run MatMul, or _MklMatMul when its oneDNN rewrites are on.
        assert ops & {"AddN", "MatMul", "_MklMatMul"}, ops


def test_allocator_maximums():
    _, metadata, _ = _traced_run(ff)
    analysis = timeline.Timeline(metadata.step_stats).analyze_step_stats(show_memory=True)
    peak = analysis.allocator_maximums["cpu"]
    # w (24 bytes) lives from the first op to its read, y (32) from MatMul to Relu...
    assert peak.num_bytes >= 32 and peak.tensors


def _profiled_run(lib, directory):
    g = lib.Graph()
    with g.as_default():
        step = lib.train.get_or_create_global_step()
        v = lib.Variable(1.0, name="v")
        train = lib.group(v.assign_add(1.0), step.assign_add(1))
        hook = lib.train.ProfilerHook(save_steps=3, output_dir=directory, show_memory=True)
        with lib.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(8):
                sess.run(train)
    lib.summary.FileWriterCache.clear()
    files = sorted(n for n in os.listdir(directory) if n.startswith("timeline-"))
    tags = []
    for name in sorted(n for n in os.listdir(directory) if "tfevents" in n):
        for e in ff.train.summary_iterator(os.path.join(directory, name)):
            if e.WhichOneof("what") == "tagged_run_metadata":
                tags.append((e.step, e.tagged_run_metadata.tag))
                ff.RunMetadata.FromString(e.tagged_run_metadata.run_metadata)
    traces = [json.loads(Path(directory, f).read_text()) for f in files]
    return files, tags, traces


def test_profiler_hook_writes_tfs_timelines_and_run_metadata(tf1, tmp_path):
    ours = _profiled_run(ff, str(tmp_path / "ff"))
    theirs = _profiled_run(tf1, str(tmp_path / "tf"))
    # Every third step, from a global step read before the update; TF's hook reads a
    # "stale" step that races with the update in its executor, so its traces can fall
    # a step earlier. Each writes a timeline and a RunMetadata event per traced step.
    assert ours[0] == ["timeline-3.json", "timeline-6.json"]
    assert ours[1] == [(0, "step_3"), (0, "step_6")]  # TF gives the event no step
    for files, tags, _ in (ours, theirs):
        assert files == [f"timeline-{tag[5:]}.json" for _, tag in tags]
        assert 2 <= len(files) <= 3
    for trace in ours[2]:
        ops = {e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "X"}
        assert {"v", "AssignAdd", "global_step"} <= ops
        processes = {e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M"}
        assert processes == {"Allocators", CPU + " Compute", CPU + " Tensors"}


def test_profiler_hook_needs_a_global_step(tmp_path):
    with ff.Graph().as_default():
        hook = ff.train.ProfilerHook(save_steps=1, output_dir=str(tmp_path))
        with pytest.raises(RuntimeError, match="Global step should be created"):
            hook.begin()
    with pytest.raises(ValueError):
        ff.train.ProfilerHook(output_dir=str(tmp_path))
