"""Placement: `tf.colocate_with`'s groups and devices, and how a session places nodes
(explicit devices, colocation, soft placement), with TF's errors."""

from __future__ import annotations

import re

import pytest

import ferroflow as ff

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def _colocations(lib):
    out = []
    with lib.Graph().as_default():
        with lib.device("/cpu:0"):
            a = lib.constant(1.0, name="a")
        with lib.device("/gpu:0"), lib.colocate_with(a):
            b = lib.identity(a, name="b")  # a's device, not the outer scope's
        out.append((b.device, b.op.get_attr("_class")))
        v = lib.Variable(1.0, name="v")
        with lib.device("/cpu:0"), lib.colocate_with(v):
            c = lib.identity(v, name="c")
        out.append((c.device, c.op.get_attr("_class")))
        x = lib.constant(2.0, name="x")
        with lib.colocate_with(x), lib.device("/job:ps"):
            d = lib.identity(x, name="d")  # a scope opened inside applies
        out.append((d.device, d.op.get_attr("_class")))
        with lib.colocate_with(b):
            e = lib.identity(b, name="e")  # b's group, not b itself
        out.append((e.device, e.op.get_attr("_class"), e.op.colocation_groups()))
        with lib.colocate_with(a), lib.colocate_with(x):
            f = lib.identity(b, name="f")
        out.append((f.device, f.op.get_attr("_class")))
        with lib.colocate_with(a), lib.colocate_with(None, ignore_existing=True):
            h = lib.identity(b, name="h")
        out.append((h.device, h.op.colocation_groups()))
        with pytest.raises(ValueError, match="ignore_existing is not True"):
            with lib.colocate_with(None):
                pass
    return out


def test_colocate_with_writes_tfs_groups_and_devices(tf1):
    assert _colocations(ff) == _colocations(tf1)


def _run_error(lib, build, config=None):
    g = lib.Graph()
    with g.as_default():
        fetch = build(lib)
        with lib.Session(graph=g, config=config) as sess:
            try:
                return sess.run(fetch)
            except lib.errors.InvalidArgumentError as e:
                return type(e).__name__, e.message.splitlines()[-1 if lib is ff else -2]


def _on(device):
    def build(lib):
        a = lib.constant(1.0, name="a")
        with lib.device(device):
            return lib.identity(a, name="b")

    return build


@pytest.mark.parametrize("device", ["/device:GPU:0", "/device:CPU:1", "/job:ps/device:CPU:0"])
def test_a_device_that_does_not_exist_is_tfs_error(tf1, device):
    ours = _run_error(ff, _on(device))
    theirs = _run_error(tf1, _on(device))
    assert ours[0] == theirs[0] == "InvalidArgumentError"
    # TF adds a hint about CUDA for GPUs.
    assert theirs[1].startswith(ours[1])
    assert ours[1] == (
        f"Cannot assign a device for operation b: {{{{node b}}}} was explicitly assigned to "
        f"{device} but available devices are [ {CPU} ]. Make sure the device specification "
        "refers to a valid device."
    )


@pytest.mark.parametrize("device", ["/device:GPU:0", "/device:CPU:1"])
def test_soft_placement_falls_back_to_the_cpu(tf1, device):
    for lib in (ff, tf1):
        config = lib.ConfigProto(allow_soft_placement=True)
        assert _run_error(lib, _on(device), config) == 1.0


def test_an_imported_colocation_takes_the_colocated_nodes_device(tf1):
    # `b` asks for CPU:1 and to be colocated with `a`, on CPU:0: TF's importer gives it
    # a's device (the placer's conflict error is tested in the core's second-device
    # test), and the group names the imported node.
    results = []
    for lib in (ff, tf1):
        with lib.Graph().as_default() as source:
            with lib.device("/cpu:0"):
                lib.constant(1.0, name="a")
        graph_def = source.as_graph_def()
        b = graph_def.node.add(name="b", op="Identity", input=["a"], device="/device:CPU:1")
        b.attr["T"].type = lib.float32.as_datatype_enum
        b.attr["_class"].list.s.append(b"loc:@a")
        with lib.Graph().as_default() as g:
            lib.import_graph_def(graph_def, name="imp")
            out = g.get_tensor_by_name("imp/b:0")
            with lib.Session() as sess:
                results.append((out.device, out.op.get_attr("_class"), sess.run(out)))
    assert results[0] == results[1] == ("/device:CPU:0", [b"loc:@imp/a"], 1.0)


def test_step_stats_name_the_device_each_node_ran_on():
    with ff.Graph().as_default():
        with ff.device("/cpu:0"):
            a = ff.constant([1.0, 2.0], name="a")
        b = ff.reduce_sum(a * 2.0, name="b")
        with ff.Session() as sess:
            metadata = ff.RunMetadata()
            options = ff.RunOptions(trace_level=ff.RunOptions.FULL_TRACE)
            assert sess.run(b, options=options, run_metadata=metadata) == 6.0
            assert sess._native.devices() == [CPU]
    [dev] = metadata.step_stats.dev_stats
    assert dev.device == CPU
    assert {"a", "mul", "b"} <= {n.node_name for n in dev.node_stats}


def _colocation_of_a_training_graph(lib, colocate_gradients):
    """`(name, _class, device)` of every op of a small Adam training graph."""
    with lib.Graph().as_default() as g:
        with lib.device("/cpu:0"):
            w = lib.Variable([1.0, 2.0], name="w")
        b = lib.Variable(0.5, name="b")
        x = lib.placeholder(lib.float32, [2], name="x")
        y = w * x + b
        loss = lib.reduce_sum(y * y + w)
        opt = lib.train.AdamOptimizer(0.1)
        grads = opt.compute_gradients(loss, colocate_gradients_with_ops=colocate_gradients)
        opt.apply_gradients(grads)
        out = {}
        for op in g.get_operations():
            try:
                groups = [c.decode() for c in op.get_attr("_class")]
            except ValueError:
                groups = []
            if op.type != "NoOp":  # TF's `group` adds a NoOp per device; ours one
                out[op.name] = (groups, op.device)
        return out


@pytest.mark.parametrize("colocate_gradients", [False, True])
def test_variables_slots_updates_and_gradients_are_colocated_as_tensorflow(tf1, colocate_gradients):
    ours = _colocation_of_a_training_graph(ff, colocate_gradients)
    theirs = _colocation_of_a_training_graph(tf1, colocate_gradients)
    # Gradient nodes are named differently here (our gradient functions build other
    # helper nodes); every other op must exist in both, placed and grouped alike.
    forward = {n for n in theirs if not n.startswith("gradients/")}
    assert forward <= set(ours)
    for name in sorted(forward):
        assert ours[name] == theirs[name], name
    shared = {n for n in theirs if n.startswith("gradients/") and n in ours}
    assert len(shared) >= 4

    def by_gradient(placed):
        # A group naming a gradient's helper node names that gradient (the helpers
        # differ: TF tiles where we broadcast).
        groups, device = placed
        return [re.sub(r"_grad/.*", "_grad/", c) for c in groups], device

    for name in sorted(shared):
        assert by_gradient(ours[name]) == by_gradient(theirs[name]), name
    assert ours["w/Adam"] == (["loc:@w"], "/device:CPU:0")
    assert ours["Adam/update_b/ApplyAdam"][0] == ["loc:@b"]


def test_log_device_placement_prints_tfs_placer_lines(tf1, capfd):
    """`name: (Op): device` on standard output for each node placed, as TF's placer."""

    def run(lib):
        g = lib.Graph()
        with g.as_default():
            a = lib.constant([1.0, 2.0], name="a")
            b = lib.square(a, name="b")
            config = lib.ConfigProto(log_device_placement=True)
            with lib.Session(graph=g, config=config) as sess:
                sess.run(b)
                sess.run(b)  # placed once: nothing printed again
        return capfd.readouterr()

    tf_out = run(tf1)
    ours = run(ff)
    for line in [
        "a: (Const): /job:localhost/replica:0/task:0/device:CPU:0",
        "b: (Square): /job:localhost/replica:0/task:0/device:CPU:0",
    ]:
        assert tf_out.out.count(line) == 1, tf_out.out
        assert ours.out.count(line) == 1, ours.out
    assert "Device mapping" in ours.err
