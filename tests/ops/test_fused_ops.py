"""Remapping: contraction -> BiasAdd [-> activation] chains run as one fused step.

The plan fuses `MatMul`/`Conv2D`/`DepthwiseConv2dNative` followed by `BiasAdd` and an
optional `Relu`/`Relu6`/`Elu`/`Tanh`/`Sigmoid` into `_FusedMatMul`/`_FusedConv2D`/
`_FusedDepthwiseConv2dNative` (TF grappler's remapper). The fused step must give the
unfused chain's values bit for bit, gradients included, and leave every chain alone
whose intermediate values something else can see.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import run_tf

import ferroflow as ff
from ferroflow.protos import RewriterConfig

ACTIVATIONS = {
    None: None,
    "Relu": lambda m, y: m.nn.relu(y),
    "Relu6": lambda m, y: m.nn.relu6(y),
    "Elu": lambda m, y: m.nn.elu(y),
    "Tanh": lambda m, y: m.tanh(y),
    "Sigmoid": lambda m, y: m.sigmoid(y),
}
NO_REMAPPING = ff.ConfigProto(
    graph_options=ff.GraphOptions(rewrite_options=RewriterConfig(remapping=RewriterConfig.OFF))
)


def _trace_labels(sess, fetches, feed_dict=None):
    """Each step's timeline label (`name = Op(inputs)`) for one traced run."""
    meta = ff.RunMetadata()
    options = ff.RunOptions(trace_level=ff.RunOptions.FULL_TRACE)
    sess.run(fetches, feed_dict, options=options, run_metadata=meta)
    return [n.timeline_label for d in meta.step_stats.dev_stats for n in d.node_stats]


def _contraction(kind, m, x, w, args):
    if kind == "matmul":
        return m.matmul(x, w, transpose_a=args["ta"], transpose_b=args["tb"])
    if kind == "conv2d":
        return m.nn.conv2d(x, w, args["strides"], args["padding"])
    return m.nn.depthwise_conv2d_native(x, w, args["strides"], args["padding"])


@st.composite
def chains(draw):
    """A contraction's kind, operand shapes and attrs, and the bias length."""
    kind = draw(st.sampled_from(["matmul", "conv2d", "depthwise"]))
    if kind == "matmul":
        m_, k, n = draw(st.integers(1, 40)), draw(st.integers(1, 40)), draw(st.integers(1, 40))
        ta, tb = draw(st.booleans()), draw(st.booleans())
        xs = (k, m_) if ta else (m_, k)
        ws = (n, k) if tb else (k, n)
        return kind, xs, ws, {"ta": ta, "tb": tb}, n
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    h, w = draw(st.integers(kh, 9)), draw(st.integers(kw, 9))
    c, o = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    stride = draw(st.integers(1, 2))
    args = {"strides": [1, stride, stride, 1], "padding": draw(st.sampled_from(["SAME", "VALID"]))}
    ws = (kh, kw, c, o)
    channels = o if kind == "conv2d" else c * o
    return kind, (draw(st.integers(1, 3)), h, w, c), ws, args, channels


def _build(m, kind, x0, w0, b0, args, act):
    x = m.constant(x0)
    w, b = m.Variable(w0), m.Variable(b0)
    y = m.nn.bias_add(_contraction(kind, m, x, w, args), b)
    if act is not None:
        y = ACTIVATIONS[act](m, y)
    # The gradients read the activation's output (ReluGrad, TanhGrad, ...) and go back
    # through BiasAdd and the contraction.
    loss = m.reduce_sum(y * y)
    return [y, *m.gradients(loss, [x, w, b])]


@settings(max_examples=40, deadline=None)
@given(
    case=chains(),
    act=st.sampled_from(sorted(ACTIVATIONS, key=str)),
    dtype=st.sampled_from([np.float32, np.float64]),
    seed=st.integers(0, 2**31),
)
def test_fused_chains_equal_the_unfused_ones_bit_for_bit(case, act, dtype, seed):
    kind, xs, ws, args, channels = case
    rng = np.random.default_rng(seed)
    x0, w0 = rng.normal(size=xs).astype(dtype), rng.normal(size=ws).astype(dtype)
    b0 = rng.normal(size=channels).astype(dtype)
    results = []
    for config in (None, NO_REMAPPING):
        g = ff.Graph()
        with g.as_default():
            fetches = _build(ff, kind, x0, w0, b0, args, act)
            with ff.Session(config=config) as sess:
                sess.run(ff.global_variables_initializer())
                labels = _trace_labels(sess, fetches)
                results.append(sess.run(fetches))
        fused = [label for label in labels if "_Fused" in label]
        if config is None:
            # One fused step, named after the chain's last node.
            assert len(fused) == 1, labels
            # Relu6's gradient reads its input, so the BiasAdd's sum is read twice and
            # Relu6 stays apart; the other activations' gradients read their output.
            y = fetches[0].op
            last = y.inputs[0].op if act == "Relu6" else y
            assert fused[0].startswith(last.name + " = _Fused"), fused
        else:
            assert not fused, labels
    for ours, unfused in zip(*results, strict=True):
        np.testing.assert_array_equal(ours, unfused)


@settings(max_examples=15, deadline=None)
@given(case=chains(), act=st.sampled_from(sorted(ACTIVATIONS, key=str)), seed=st.integers(0, 2**31))
def test_fused_chains_match_tensorflow(tf1, case, act, seed):
    kind, xs, ws, args, channels = case
    rng = np.random.default_rng(seed)
    x0, w0 = rng.normal(size=xs), rng.normal(size=ws)
    b0 = rng.normal(size=channels)
    ours = None
    g = ff.Graph()
    with g.as_default(), ff.Session() as sess:
        fetches = _build(ff, kind, x0, w0, b0, args, act)
        sess.run(ff.global_variables_initializer())
        ours = sess.run(fetches)
    theirs = run_tf(tf1, lambda m: _build(m, kind, x0, w0, b0, args, act))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def _mlp_layer():
    x = ff.placeholder(ff.float32, [None, 4], name="x")
    w = ff.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) - 5, name="w")
    b = ff.Variable(np.array([1, -2, 0.5], np.float32), name="b")
    product = ff.matmul(x, w, name="product")
    summed = ff.nn.bias_add(product, b, name="summed")
    return x, product, summed, ff.nn.relu(summed, name="act")


X = np.array([[1, 2, 3, 4], [-4, -3, -2, -1]], np.float32)


def _expected():
    w = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    product = X @ w
    summed = product + np.array([1, -2, 0.5], np.float32)
    return product, summed, np.maximum(summed, 0)


def test_a_fetched_intermediate_is_not_fused_away():
    x, product, summed, act = _mlp_layer()
    with ff.Session() as sess:
        sess.run(ff.global_variables_initializer())
        got = sess.run([product, act], {x: X})
        labels = _trace_labels(sess, [product, act], {x: X})
    want = _expected()
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[2])
    # The product is fetched, so only BiasAdd + Relu could fuse, and they are not a
    # contraction's chain: every node runs as itself.
    assert not [label for label in labels if "_Fused" in label], labels
    # Fetching the sum leaves MatMul + BiasAdd fused and Relu apart.
    with ff.Session() as sess:
        sess.run(ff.global_variables_initializer())
        got = sess.run([summed, act], {x: X})
        labels = _trace_labels(sess, [summed, act], {x: X})
    np.testing.assert_array_equal(got[0], want[1])
    np.testing.assert_array_equal(got[1], want[2])
    ops = {label.split(" = ")[0]: label.split(" = ")[1].split("(")[0] for label in labels}
    assert ops["summed"] == "_FusedMatMul" and ops["act"] == "Relu", labels


def test_a_second_reader_or_a_control_edge_keeps_the_chain_apart():
    x, product, summed, act = _mlp_layer()
    doubled = product * 2.0
    with ff.control_dependencies([summed]):
        after = ff.identity(act)
    with ff.Session() as sess:
        sess.run(ff.global_variables_initializer())
        got = sess.run([doubled, after], {x: X})
        labels = _trace_labels(sess, [doubled, after], {x: X})
    want = _expected()
    np.testing.assert_array_equal(got[0], want[0] * 2)
    np.testing.assert_array_equal(got[1], want[2])
    assert not [label for label in labels if "_Fused" in label], labels


def test_a_fed_intermediate_is_used_as_fed():
    _, product, summed, act = _mlp_layer()
    fed = np.full((2, 3), -1.5, np.float32)
    with ff.Session() as sess:
        sess.run(ff.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(act, {summed: fed}), np.zeros((2, 3)))
        got = sess.run(act, {product: fed})
    np.testing.assert_array_equal(got, np.maximum(fed + np.array([1, -2, 0.5]), 0))


def test_placement_and_its_log_list_the_absorbed_nodes(capfd):
    x, _, _, act = _mlp_layer()
    config = ff.ConfigProto(log_device_placement=True)
    with ff.Session(config=config) as sess:
        sess.run(ff.global_variables_initializer())
        sess.run(act, {x: X})
    out = capfd.readouterr().out
    for name, op in [("product", "MatMul"), ("summed", "BiasAdd"), ("act", "Relu")]:
        assert f"{name}: ({op}): /job:localhost/replica:0/task:0/device:CPU:0" in out, out


def test_a_bias_of_the_wrong_length_is_the_bias_add_error():
    x = ff.placeholder(ff.float32, [None, None])
    y = ff.nn.relu(ff.nn.bias_add(ff.matmul(x, ff.ones([3, 3])), ff.placeholder(ff.float32)))
    bias = y.op.inputs[0].op.inputs[1]
    with ff.Session() as sess:
        with pytest.raises(ff.errors.InvalidArgumentError, match="as many biases"):
            sess.run(y, {x: np.ones((2, 3), np.float32), bias: np.ones(4, np.float32)})


def test_a_graph_def_with_fused_nodes_runs():
    # What grappler's remapper writes into a GraphDef: `_FusedMatMul` with its attrs.
    x0 = np.array([[1, -2], [3, 4]], np.float32)
    w0 = np.array([[1, 0, -1], [2, 1, 0]], np.float32)
    b0 = np.array([0.5, -10, 0], np.float32)
    with ff.Graph().as_default() as source:
        for name, value in [("x", x0), ("w", w0), ("b", b0)]:
            ff.constant(value, name=name)
    gd = source.as_graph_def()
    fused = gd.node.add(name="fused", op="_FusedMatMul", input=["x", "w", "b"])
    fused.attr["T"].type = ff.float32.as_datatype_enum
    fused.attr["num_args"].i = 1
    fused.attr["fused_ops"].list.s.extend([b"BiasAdd", b"Relu"])
    fused.attr["transpose_a"].b = False
    fused.attr["transpose_b"].b = False
    (out,) = ff.import_graph_def(gd, return_elements=["fused:0"], name="")
    with ff.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), np.maximum(x0 @ w0 + b0, 0))
    # A fusion ferroflow has no kernel for is refused by name.
    unknown = gd.node.add(name="bn", op="_FusedMatMul", input=["x", "w", "b"])
    unknown.attr.MergeFrom(fused.attr)
    unknown.attr["fused_ops"].list.ClearField("s")
    unknown.attr["fused_ops"].list.s.extend([b"BiasAdd", b"LeakyRelu"])
    g = ff.Graph()
    with g.as_default():
        (bad,) = ff.import_graph_def(gd, return_elements=["bn:0"], name="")
        with ff.Session() as sess, pytest.raises(ff.errors.UnimplementedError, match="LeakyRelu"):
            sess.run(bad)


def test_a_chain_in_a_loop_body_gives_the_unfused_values():
    # Loop bodies run as sub-plans, remapped as the session's own plans are.
    w0 = np.random.default_rng(0).normal(size=(8, 8)).astype(np.float32) * 0.3
    results = []
    for config in (None, NO_REMAPPING):
        with ff.Graph().as_default():
            w, b = ff.Variable(w0), ff.Variable(np.full(8, 0.1, np.float32))

            def body(i, x, w=w, b=b):
                return i + 1, ff.nn.relu(ff.nn.bias_add(ff.matmul(x, w), b))

            start = [ff.constant(0), ff.constant(np.ones((4, 8), np.float32))]
            _, y = ff.while_loop(lambda i, x: i < 5, body, start)
            grad = ff.gradients(ff.reduce_sum(y), w)[0]
            with ff.Session(config=config) as sess:
                sess.run(ff.global_variables_initializer())
                results.append(sess.run([y, grad]))
    for fused, unfused in zip(*results, strict=True):
        np.testing.assert_array_equal(fused, unfused)


def _matmul_plus(m, acc, x, w, ta, tb, first):
    product = m.matmul(x, w, transpose_a=ta, transpose_b=tb)
    return [m.add(acc, product) if first else m.add(product, acc)]


@settings(max_examples=30, deadline=None)
@given(
    dims=st.tuples(st.integers(1, 30), st.integers(1, 140), st.integers(1, 30)),
    ta=st.booleans(),
    tb=st.booleans(),
    first=st.booleans(),
    broadcast=st.booleans(),
    dtype=st.sampled_from([np.float32, np.float64]),
    seed=st.integers(0, 2**31),
)
def test_a_product_read_only_by_an_add_accumulates_into_the_addend(
    dims, ta, tb, first, broadcast, dtype, seed
):
    # `acc + x @ w` (a loop gradient's accumulator) is one `_FusedMatMul` step whose
    # gemm adds into the addend; an addend that broadcasts is added after the product.
    m_, k, n = dims
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=(k, m_) if ta else (m_, k)).astype(dtype)
    w0 = rng.normal(size=(n, k) if tb else (k, n)).astype(dtype)
    acc0 = rng.normal(size=(n,) if broadcast else (m_, n)).astype(dtype)
    kept = acc0.copy()
    want = (x0.T if ta else x0) @ (w0.T if tb else w0) + acc0
    results = []
    for config in (None, NO_REMAPPING):
        with ff.Graph().as_default():
            acc = ff.placeholder(dtype, acc0.shape)
            fetches = _matmul_plus(ff, acc, ff.constant(x0), ff.constant(w0), ta, tb, first)
            with ff.Session(config=config) as sess:
                results.append(sess.run(fetches, {acc: acc0})[0])
                labels = _trace_labels(sess, fetches, {acc: acc0})
        fused = [label for label in labels if "_FusedMatMul" in label]
        assert len(fused) == (1 if config is None else 0), labels
    tol = 1e-4 if dtype == np.float32 else 1e-11
    for got in results:
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    # The fed array is the caller's: the sum is never written into it.
    np.testing.assert_array_equal(acc0, kept)


def test_an_accumulating_product_leaves_a_variable_addend_alone():
    v0 = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = ff.Variable(v0)
    x = ff.constant(np.ones((2, 4), np.float32))
    y = v + ff.matmul(x, ff.ones([4, 3]))
    with ff.Session() as sess:
        sess.run(ff.global_variables_initializer())
        for _ in range(2):
            np.testing.assert_array_equal(sess.run(y), v0 + 4)
        np.testing.assert_array_equal(sess.run(v), v0)


@settings(max_examples=10, deadline=None)
@given(ta=st.booleans(), tb=st.booleans(), first=st.booleans(), seed=st.integers(0, 2**31))
def test_an_accumulating_product_matches_tensorflow(tf1, ta, tb, first, seed):
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=(150, 7) if ta else (7, 150))
    w0 = rng.normal(size=(9, 150) if tb else (150, 9))
    acc0 = rng.normal(size=(7, 9))
    with ff.Graph().as_default(), ff.Session() as sess:
        acc, x, w = ff.constant(acc0), ff.constant(x0), ff.constant(w0)
        ours = sess.run(_matmul_plus(ff, acc, x, w, ta, tb, first))
    theirs = run_tf(
        tf1,
        lambda m: _matmul_plus(m, m.constant(acc0), m.constant(x0), m.constant(w0), ta, tb, first),
    )
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10, atol=1e-10)
