"""`tf.train.replica_device_setter`, the greedy ps strategy and device functions.

TensorFlow is the oracle: the same graph-building code runs in both libraries and
every op present in both graphs must get the same device string. TF 2.x no longer
ships `GreedyLoadBalancingStrategy`/`byte_size_load_fn` (TF 1.x's
`tf.contrib.training`); their TF 1.x source, copied below, runs on TF's ops.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow as ff
from ferroflow.train import device_setter

FAST = settings(max_examples=40, deadline=None, database=None)


# -- TF 1.x's contrib/training/python/training/device_setter.py, verbatim in substance --------


class TFGreedyLoadBalancingStrategy:
    """TF 1.x's `tf.contrib.training.GreedyLoadBalancingStrategy` (the oracle's)."""

    def __init__(self, num_tasks, load_fn):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op):
        task = np.argmin(self._ps_loads)
        self._ps_loads[task] += self._load_fn(op)
        return task


def tf_byte_size_load_fn(op):
    """TF 1.x's `tf.contrib.training.byte_size_load_fn` (the oracle's)."""
    from tensorflow.python.framework import tensor_shape

    if len(op.outputs) != 1:
        raise ValueError(f"Op {op} must have a single output")
    output = op.outputs[0]
    elem_size = output.dtype.size
    shape = output.get_shape()
    if not shape.is_fully_defined():
        shape = tensor_shape.TensorShape(op.get_attr("shape"))
    shape.assert_is_fully_defined()
    return shape.num_elements() * elem_size


def greedy(lib, num_tasks):
    if lib is ff:
        return ff.contrib.training.GreedyLoadBalancingStrategy(
            num_tasks, ff.contrib.training.byte_size_load_fn
        )
    return TFGreedyLoadBalancingStrategy(num_tasks, tf_byte_size_load_fn)


def cluster_arg(lib, kind, jobs):
    """A cluster of `lib` as a dict, a ClusterSpec or a ClusterDef."""
    if kind == "dict":
        return jobs
    spec = lib.train.ClusterSpec(jobs)
    return spec if kind == "spec" else spec.as_cluster_def()


def devices(graph):
    return {op.name: op.device for op in graph.get_operations()}


def colocation_classes(graph):
    """Each op's `_class` attr (its colocation groups), or None."""
    out = {}
    for op in graph.get_operations():
        try:
            out[op.name] = sorted(op.get_attr("_class"))
        except ValueError:
            out[op.name] = None
    return out


def build_model(lib, setter):
    """A small training graph: variables in and out of nested device scopes, Adam,
    Momentum, slots and a global step, with ops created outside the setter too."""
    global_step = lib.train.get_or_create_global_step()
    x = lib.placeholder(lib.float32, [None, 4], name="x")
    outside = lib.Variable(lib.zeros([2]), name="outside")
    with lib.device(setter(lib)):
        w = lib.Variable(np.ones((4, 3), np.float32), name="w")
        b = lib.get_variable("b", [3], initializer=lib.zeros_initializer())
        with lib.device("/cpu:0"):
            h = lib.nn.relu(lib.matmul(x, w) + b)
        with lib.variable_scope("layer2"):
            w2 = lib.get_variable("w2", [3, 2])
            with lib.device("/job:worker/task:1"):
                v3 = lib.Variable(1.0, name="v3")
                scaled = h * v3
        with lib.device("/job:ps"):
            v4 = lib.Variable(2.0, name="v4")
        with lib.device("/job:other/task:5/gpu:0"):
            v5 = lib.Variable(3.0, name="v5")
        with lib.device("/replica:2"):
            v6 = lib.get_variable("v6", [7, 5], dtype=lib.float64)
        with lib.device(None):
            v7 = lib.Variable(4.0, name="v7")
        y = lib.matmul(scaled, w2) * v4 * v5 * v7 + lib.cast(lib.reduce_sum(v6), lib.float32)
        loss = lib.reduce_mean(lib.square(y)) + lib.reduce_sum(outside)
        adam = lib.train.AdamOptimizer(0.1).minimize(loss, global_step=global_step)
        momentum = lib.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        init = lib.global_variables_initializer()
    after = lib.identity(loss, name="after")
    return adam, momentum, init, after


def build_model_with_averages(lib, setter):
    """Dense layers from `get_variable`, moving averages (their `cond`s), a sparse
    Adagrad update of an embedding, a Saver, a counter, and per-device groups."""
    global_step = lib.train.get_or_create_global_step()
    x = lib.placeholder(lib.float32, [None, 4], name="x")
    with lib.device(setter(lib)):
        with lib.variable_scope("d1"):
            kernel = lib.get_variable("kernel", [4, 5])
            bias = lib.get_variable("bias", [5], initializer=lib.zeros_initializer())
            h = lib.nn.relu(lib.matmul(x, kernel) + bias)
        with lib.variable_scope("d2"):
            y = lib.matmul(h, lib.get_variable("kernel", [5, 1]))
        loss = lib.reduce_mean(lib.square(y))
        ema = lib.train.ExponentialMovingAverage(0.9, num_updates=global_step)
        step = lib.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
        with lib.control_dependencies([step]):
            train = ema.apply(lib.trainable_variables())
        emb = lib.get_variable("emb", [10, 3])
        looked_up = lib.nn.embedding_lookup(emb, lib.constant([1, 2]))
        sparse = lib.train.AdagradOptimizer(0.1).minimize(lib.reduce_sum(looked_up))
        lib.train.Saver()
        counter = lib.Variable(0, name="counter")
        increment = counter.assign_add(1)
        with lib.device("/job:worker/task:0"):
            local = lib.Variable(1.0, name="local")
            lib.get_variable("local_w", [2])
        lib.group(train, sparse, increment, local.initializer, name="everything")
        lib.tuple([y, loss], name="both")


def assert_same_devices(build):
    """Builds in TF and ferroflow; every op in both graphs has the same device and groups."""
    import tensorflow.compat.v1 as tf1

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        build(tf1)
    with g_ff.as_default():
        build(ff)
    theirs, ours = devices(g_tf), devices(g_ff)
    common = set(theirs) & set(ours)
    variables = {op.name for op in g_tf.get_operations() if op.type == "VariableV2"}
    assert variables == {op.name for op in g_ff.get_operations() if op.type == "VariableV2"}
    assert variables <= common
    # Gradient internals differ (TF folds constants, groups by device); the rest is equal.
    assert len(common) >= 0.7 * len(theirs)
    assert {n: ours[n] for n in sorted(common)} == {n: theirs[n] for n in sorted(common)}
    # And the same colocation groups, which the placer merges with those devices.
    ours_cls, theirs_cls = colocation_classes(g_ff), colocation_classes(g_tf)
    assert {n: ours_cls[n] for n in common} == {n: theirs_cls[n] for n in common}
    return ours


SETTERS = {
    "ps_tasks=1": lambda lib: lib.train.replica_device_setter(ps_tasks=1),
    "ps_tasks=2": lambda lib: lib.train.replica_device_setter(2),
    "ps_tasks=3": lambda lib: lib.train.replica_device_setter(ps_tasks=3),
    "cluster dict": lambda lib: lib.train.replica_device_setter(
        cluster=cluster_arg(lib, "dict", {"ps": ["p0:1", "p1:1"], "worker": ["w0:1"]})
    ),
    "cluster spec": lambda lib: lib.train.replica_device_setter(
        cluster=cluster_arg(lib, "spec", {"ps": ["p0", "p1", "p2"], "worker": ["w0", "w1"]})
    ),
    "cluster def": lambda lib: lib.train.replica_device_setter(
        cluster=cluster_arg(lib, "def", {"ps": ["p0", "p1"], "chief": ["c"]})
    ),
    "sparse ps job": lambda lib: lib.train.replica_device_setter(
        cluster={"ps": {1: "p1", 4: "p4"}, "worker": ["w"]}
    ),
    "merge_devices=False": lambda lib: lib.train.replica_device_setter(
        ps_tasks=3, merge_devices=False
    ),
    "merge_devices=False cluster": lambda lib: lib.train.replica_device_setter(
        cluster={"ps": ["a", "b"]}, merge_devices=False, worker_device="/job:worker/task:1"
    ),
    "device types": lambda lib: lib.train.replica_device_setter(
        ps_tasks=2, ps_device="/job:ps/cpu:0", worker_device="/job:worker/task:2/gpu:0"
    ),
    "no ps device": lambda lib: lib.train.replica_device_setter(ps_tasks=2, ps_device=""),
    "no worker device": lambda lib: lib.train.replica_device_setter(ps_tasks=2, worker_device=""),
    "ps device without job": lambda lib: lib.train.replica_device_setter(
        ps_tasks=2, ps_device="/task:1"
    ),
    "ps job named": lambda lib: lib.train.replica_device_setter(
        cluster={"param": ["a", "b", "c"], "worker": ["w"]}, ps_device="/job:param"
    ),
    "ps_ops": lambda lib: lib.train.replica_device_setter(
        ps_tasks=2, ps_ops=["VariableV2", "Relu", "Square"]
    ),
    "greedy": lambda lib: lib.train.replica_device_setter(ps_tasks=3, ps_strategy=greedy(lib, 3)),
    "greedy cluster": lambda lib: lib.train.replica_device_setter(
        cluster={"ps": ["a", "b"], "worker": ["w"]}, ps_strategy=greedy(lib, 2)
    ),
    "custom strategy": lambda lib: lib.train.replica_device_setter(
        ps_tasks=4, ps_strategy=lambda op: (len(op.name) + len(op.inputs)) % 4
    ),
}


@pytest.mark.tf_oracle
@pytest.mark.parametrize("setter", list(SETTERS.values()), ids=list(SETTERS))
def test_model_devices_match_tf(tf1, setter):
    ours = assert_same_devices(lambda lib: build_model(lib, setter))
    assert ours["outside"] == "" and ours["after"] == ""


@pytest.mark.tf_oracle
@pytest.mark.parametrize(
    "setter", ["ps_tasks=1", "ps_tasks=3", "cluster spec", "greedy", "merge_devices=False"]
)
def test_model_with_averages_devices_match_tf(tf1, setter):
    ours = assert_same_devices(lambda lib: build_model_with_averages(lib, SETTERS[setter]))
    # The moving averages' initial reads run where their variable is.
    assert ours["cond/read/Switch"] == ours["d1/kernel"]
    assert ours["save/RestoreV2"].endswith("/device:CPU:0")


def build_partitioned_model(lib, setter):
    """Partitioned variables (an embedding looked up across its shards), variable
    scopes with reuse, a local variable, and Momentum slots."""
    with lib.device(setter(lib)):
        emb = lib.get_variable("emb", [20, 4], partitioner=lib.fixed_size_partitioner(3))
        lib.get_variable(
            "wide",
            [9, 2],
            partitioner=lib.min_max_variable_partitioner(max_partitions=4, min_slice_size=8),
        )
        with lib.variable_scope("scope"):
            r = lib.get_variable("r", [3])
        with lib.variable_scope("scope", reuse=True):
            assert lib.get_variable("r", [3]) is r
        lib.Variable(1.0, collections=[lib.GraphKeys.LOCAL_VARIABLES], name="local")
        loss = lib.reduce_sum(lib.nn.embedding_lookup(emb, [1, 5, 19])) + lib.reduce_sum(r)
        lib.train.MomentumOptimizer(0.1, 0.9).minimize(loss)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("setter", ["ps_tasks=2", "greedy", "cluster def"])
def test_partitioned_model_devices_match_tf(tf1, setter):
    ours = assert_same_devices(lambda lib: build_partitioned_model(lib, SETTERS[setter]))
    shards = [ours[f"emb/part_{i}"] for i in range(3)]
    assert all(d.startswith("/job:ps/task:") for d in shards)


def test_model_devices_without_oracle():
    g = ff.Graph()
    with g.as_default():
        build_model(
            ff,
            lambda lib: lib.train.replica_device_setter(
                cluster=ff.train.ClusterSpec({"ps": ["p0", "p1"], "worker": ["w0"]})
            ),
        )
    got = devices(g)
    # Round robin over the variables the setter sees, in creation order.
    assert got["w"] == "/job:ps/task:0"
    assert got["b"] == "/job:ps/task:1"
    assert got["layer2/w2"] == "/job:ps/task:0"
    assert got["layer2/v3"] == "/job:worker/task:1"  # another job: the strategy is not asked
    assert got["v4"] == "/job:ps/task:1"
    assert got["v5"] == "/job:other/task:5/device:GPU:0"
    assert got["v6"] == "/job:ps/replica:2/task:0"
    assert got["v7"] == ""
    assert got["MatMul"] == "/job:worker/device:CPU:0"
    # Slots and the variables' own ops go with their variable; the step with its own.
    assert got["w/Adam"] == got["w/Adam_1"] == got["w/Momentum"] == got["w/Assign"] == got["w"]
    assert got["b/Initializer/zeros"] == ""
    assert got["global_step"] == got["Adam"] == ""
    assert got["beta1_power"] == got["b"]


@pytest.mark.tf_oracle
@pytest.mark.parametrize("ps_tasks", [0, None])
def test_noop_setter_matches_tf(tf1, ps_tasks):
    for lib in (ff, tf1):
        if ps_tasks == 0:
            assert lib.train.replica_device_setter() is None
            assert lib.train.replica_device_setter(ps_tasks=0, merge_devices=False) is None
        else:
            assert lib.train.replica_device_setter(cluster={"worker": ["w"]}) is None
            assert lib.train.replica_device_setter(cluster={"ps": []}) is None
            assert (
                lib.train.replica_device_setter(cluster={"ps": ["a"]}, ps_device="/job:x") is None
            )
    ours = assert_same_devices(lambda lib: build_model(lib, lambda lib: None))
    assert ours["w"] == ours["b"] == "" and ours["MatMul"] == "/device:CPU:0"


def outcome(fn, *args, **kwargs):
    try:
        value = fn(*args, **kwargs)
    except Exception as e:
        return ("raise", type(e).__name__, str(e))
    return ("value", value is None)


@pytest.mark.tf_oracle
@pytest.mark.parametrize(
    "kwargs",
    [
        {"ps_tasks": 2, "ps_strategy": 3},
        {"ps_tasks": 2, "ps_strategy": "round"},
        {"cluster": ["a"]},
        {"cluster": "ps"},
        {"cluster": {"ps": "a"}},
        {"cluster": {"ps": ["a"]}, "ps_device": "/foo:1"},
    ],
    ids=repr,
)
def test_setter_errors_match_tf(tf1, kwargs):
    ours = outcome(ff.train.replica_device_setter, **kwargs)
    theirs = outcome(tf1.train.replica_device_setter, **kwargs)
    assert ours == theirs
    assert ours[0] == "raise"


def test_standard_ps_ops_are_tfs():
    assert "VariableV2" in device_setter.STANDARD_PS_OPS
    assert "VarHandleOp" in device_setter.STANDARD_PS_OPS
    assert len(device_setter.STANDARD_PS_OPS) == 14


# -- greedy placement, random variables ------------------------------------------------------

DTYPES = ["float32", "float64", "int32", "int64", "float16", "uint8", "bool"]


@st.composite
def variable_lists(draw):
    n = draw(st.integers(1, 12))
    shapes = st.lists(st.integers(1, 9), max_size=3)
    return [(draw(shapes), draw(st.sampled_from(DTYPES)), draw(st.booleans())) for _ in range(n)]


@pytest.mark.tf_oracle
@FAST
@given(variable_lists(), st.integers(1, 4))
def test_greedy_placement_matches_tf(tf1, variables, num_ps):
    loads = {}

    def build(lib):
        strategy = greedy(lib, num_ps)
        with lib.device(lib.train.replica_device_setter(ps_tasks=num_ps, ps_strategy=strategy)):
            for i, (shape, dtype, use_get_variable) in enumerate(variables):
                if use_get_variable:
                    lib.get_variable(
                        f"v{i}",
                        shape,
                        dtype=getattr(lib, dtype),
                        initializer=lib.zeros_initializer(),
                    )
                else:
                    lib.Variable(np.zeros(shape, dtype), name=f"v{i}")
        loads[lib is ff] = list(strategy._ps_loads)

    ours = assert_same_devices(build)
    assert loads[True] == loads[False]
    sizes = [np.dtype(d).itemsize * int(np.prod(s)) for s, d, _ in variables]
    assert sum(loads[True]) == sum(sizes)
    for i in range(len(variables)):
        assert ours[f"v{i}"].startswith("/job:ps/task:")


def test_greedy_balances_by_bytes():
    g = ff.Graph()
    with g.as_default():
        strategy = ff.contrib.training.GreedyLoadBalancingStrategy(
            2, ff.contrib.training.byte_size_load_fn
        )
        with ff.device(ff.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
            big = ff.Variable(np.zeros((100, 10), np.float32), name="big")  # 4000 bytes
            small = [ff.Variable(np.zeros(10, np.float64), name=f"s{i}") for i in range(4)]
    assert big.op.device == "/job:ps/task:0"
    assert [v.op.device for v in small] == ["/job:ps/task:1"] * 4
    assert list(strategy._ps_loads) == [4000.0, 320.0]


# -- what a device function sees ------------------------------------------------------------


def record_ops(lib):
    """Builds ops under a recording device function; returns what it saw of each op."""
    seen = []

    def attr(op, name):
        try:
            value = op.get_attr(name)
        except ValueError as e:
            return ("raise", str(e))
        if hasattr(value, "as_list") or hasattr(value, "dim"):
            shape = lib.TensorShape(value) if lib is not ff else value
            return ("shape", None if shape.ndims is None else shape.as_list())
        return ("value", getattr(value, "name", value))

    def load(op):
        fn = ff.contrib.training.byte_size_load_fn if lib is ff else tf_byte_size_load_fn
        try:
            return fn(op)
        except ValueError as e:
            return ("raise", str(e).split("\n")[0])

    def fn(op):
        node_def = op.node_def
        seen.append(
            (
                op.type,
                op.name,
                op.device,
                [t.name for t in op.inputs],
                [c.name for c in op.control_inputs],
                [
                    (t.dtype.name, None if t.shape.ndims is None else t.shape.as_list())
                    for t in op.outputs
                ],
                (node_def.name, node_def.op, node_def.device, list(node_def.input)),
                [attr(op, a) for a in ("T", "dtype", "shape", "nope")],
                load(op),
            )
        )
        return "/job:seen"

    with lib.device(fn):
        with lib.device("/job:inner/task:1"):
            a = lib.constant([[1.0, 2.0], [3.0, 4.0]], name="a")
            p = lib.placeholder(lib.float32, None, name="p")
            q = lib.placeholder(lib.int64, [None, 3], name="q")
        v = lib.Variable(np.ones((2, 2), np.float32), name="v")
        with lib.control_dependencies([p.op]):
            s = lib.add(a, p, name="s")
        lib.matmul(a, v, name="mm")
        lib.reshape(a, [4], name="r")
        lib.assign(v, a, name="assign")
        lib.split(a, 2, name="split")
        lib.cast(q, lib.float32, name="cast")
        lib.identity(s, name="ident")
    return seen


@pytest.mark.tf_oracle
def test_device_function_sees_the_op_as_tf(tf1):
    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        theirs = record_ops(tf1)
    with g_ff.as_default():
        ours = record_ops(ff)
    # Same ops seen in the same order, each the same: names, inputs, outputs, attrs,
    # loads (errors included). Ops taking a variable by reference (`assign`) go
    # with the variable: no device function sees them.
    assert ours == theirs
    assert [r[1] for r in ours if r[0] in ("VariableV2", "Split", "Cast")] == ["v", "split", "cast"]
    assert all(r[0] != "Assign" for r in ours)
    assert g_ff.get_operation_by_name("assign").device == "/job:seen"  # v's
    assert g_ff.get_operation_by_name("assign").get_attr("_class") == [b"loc:@v"]


# -- device scopes: functions and strings nested ---------------------------------------------

FUNCTIONS = {
    "fixed": lambda op: "/job:f/task:1",
    "identity": lambda op: op.device,
    "spec": None,  # a DeviceSpec of the library under test (see `scoped_devices`)
    "bytes": lambda op: b"/cpu:0",
    "by type": lambda op: "/gpu:1" if op.type == "Const" else "",
    "fill": lambda op: op.device or "/job:empty/replica:1",
    "raw": lambda op: "/device:GPU:*",
}
STRINGS = ["/job:ps", "/task:3", "/cpu:0", "/job:w/replica:0/task:2/device:GPU:1", "", "gpu"]


@st.composite
def scope_stacks(draw):
    items = st.one_of(
        st.none(),
        st.sampled_from(STRINGS).map(lambda s: ("str", s)),
        st.sampled_from(sorted(FUNCTIONS)).map(lambda f: ("fn", f)),
    )
    return draw(st.lists(items, max_size=4))


def scoped_devices(lib, stack):
    import contextlib

    def spec_fn(op):
        return lib.DeviceSpec(job="g", device_type="cpu")

    with contextlib.ExitStack() as scopes:
        for item in stack:
            if item is None:
                scopes.enter_context(lib.device(None))
            elif item[0] == "str":
                scopes.enter_context(lib.device(item[1]))
            else:
                scopes.enter_context(
                    lib.device(spec_fn if item[1] == "spec" else FUNCTIONS[item[1]])
                )
        c = lib.constant(1.0)
        d = c + c
    return c.op.device, d.op.device


@pytest.mark.tf_oracle
@settings(max_examples=150, deadline=None, database=None)
@given(scope_stacks())
def test_nested_device_functions_match_tf(tf1, stack):
    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        theirs = scoped_devices(tf1, stack)
    with g_ff.as_default():
        ours = scoped_devices(ff, stack)
    assert ours == theirs


def test_device_function_order_without_oracle():
    # The innermost scope applies first; a function's result is kept as it is.
    with ff.device(lambda op: "/job:ps/gpu:1"):
        with ff.device("/task:3"):
            a = ff.constant(1.0)
    with ff.device("/task:3"):
        with ff.device(lambda op: "/job:ps/gpu:1"):
            b = ff.constant(1.0)
    assert a.op.device == "/job:ps/gpu:1"
    assert b.op.device == "/job:ps/task:3/device:GPU:1"
    with pytest.raises(TypeError, match="Expected binary or unicode string, got None"):
        with ff.device(lambda op: None):
            ff.constant(1.0)


def device_spec_results(lib):
    spec = lib.DeviceSpec(job="ps", replica=0, task=1, device_type="gpu", device_index=0)
    out = [spec.to_string()]
    spec.merge_from(lib.DeviceSpec.from_string("/job:worker/cpu:*"))
    out.append(spec.to_string())
    spec.parse_from_string("/task:7")
    out.append((spec.job, spec.task, spec.device_type, spec.to_string()))
    with lib.Graph().as_default():
        with lib.device(spec):
            c = lib.constant(0)
        with lib.device(lib.DeviceSpec(job="w")), lib.device("/cpu:0"):
            d = lib.constant(0)
    out.append((c.op.device, d.op.device))
    return out


@pytest.mark.tf_oracle
def test_device_spec_api_matches_tf(tf1):
    ours = device_spec_results(ff)
    assert ours == device_spec_results(tf1)
    assert ours[0] == "/job:ps/replica:0/task:1/device:GPU:0"
    assert ours[-1] == ("/task:7", "/job:w/device:CPU:0")


# -- random graphs under random setters and scopes -------------------------------------------

SCOPES = [None, "/job:ps", "/job:ps/task:2", "/task:1", "/cpu:0", "/job:worker/gpu:1", "/job:x"]


@st.composite
def setter_configs(draw):
    return {
        "ps_tasks": draw(st.integers(1, 3)),
        "merge_devices": draw(st.booleans()),
        "ps_device": draw(st.sampled_from(["/job:ps", "/job:ps/cpu:0", "", "/task:1"])),
        "worker_device": draw(st.sampled_from(["/job:worker", "/job:worker/task:1/gpu:0", ""])),
        "greedy": draw(st.booleans()),
    }


@st.composite
def graph_actions(draw):
    n = draw(st.integers(1, 8))
    return [
        (
            draw(st.sampled_from(["variable", "get_variable", "op", "assign"])),
            draw(st.lists(st.integers(1, 4), max_size=2)),
            draw(st.sampled_from([*SCOPES, "none-scope"])),
        )
        for _ in range(n)
    ]


def build_random(lib, config, actions):
    kwargs = {k: v for k, v in config.items() if k != "greedy"}
    if config["greedy"]:
        kwargs["ps_strategy"] = greedy(lib, config["ps_tasks"])
    variables = []
    with lib.device(lib.train.replica_device_setter(**kwargs)):
        for i, (kind, shape, scope) in enumerate(actions):
            if scope is None:
                ctx = lib.name_scope(None)  # no device scope
            else:
                ctx = lib.device(None if scope == "none-scope" else scope)
            with ctx:
                if kind == "variable" or (kind == "assign" and not variables):
                    variables.append(lib.Variable(np.ones(shape, np.float32), name=f"v{i}"))
                elif kind == "get_variable":
                    variables.append(lib.get_variable(f"g{i}", shape))
                elif kind == "op":
                    lib.add(lib.constant(1.0), lib.constant(2.0), name=f"op{i}")
                else:
                    target = variables[i % len(variables)]
                    lib.assign(target, lib.zeros_like(target), name=f"assign{i}")


@pytest.mark.tf_oracle
@settings(max_examples=60, deadline=None, database=None)
@given(setter_configs(), graph_actions())
def test_random_graphs_under_setters_match_tf(tf1, config, actions):
    import logging

    logging.getLogger("ferroflow.train.device_setter").setLevel(logging.ERROR)
    assert_same_devices(lambda lib: build_random(lib, config, actions))
