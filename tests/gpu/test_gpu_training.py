"""Training on /gpu:0 (the wgpu backend; in CI Mesa's software Vulkan driver) matches
the same training on the CPU, op for op placed where asked, for every optimizer."""

import os

import numpy as np
import pytest

import ferroflow as tf
from ferroflow import protos as config_pb2

# Run with FERROFLOW_GPU=software for lavapipe; CI's GPU step also sets
# FERROFLOW_REQUIRE_GPU, so a missing driver fails there instead of skipping.
pytestmark = pytest.mark.skipif(
    not tf.test.is_gpu_available() and not os.environ.get("FERROFLOW_REQUIRE_GPU"),
    reason="no GPU adapter (install Mesa's mesa-vulkan-drivers)",
)

GPU = "/job:localhost/replica:0/task:0/device:GPU:0"


def _data(seed=0, n=64, d=12, classes=5):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, d).astype(np.float32)
    y = (np.abs(x[:, :classes]).argmax(1)).astype(np.int32)
    return x, y


def _mlp(device, optimizer, sparse_labels=True, seed=1):
    """A 2-hidden-layer MLP, its training op and loss, every op under `device`."""
    rng = np.random.RandomState(seed)
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        x = tf.placeholder(tf.float32, [None, 12])
        y = tf.placeholder(tf.int32, [None])
        w1 = tf.Variable(rng.randn(12, 32).astype(np.float32) * 0.3, name="w1")
        b1 = tf.Variable(np.zeros(32, np.float32), name="b1")
        w2 = tf.Variable(rng.randn(32, 16).astype(np.float32) * 0.3, name="w2")
        b2 = tf.Variable(np.zeros(16, np.float32), name="b2")
        w3 = tf.Variable(rng.randn(16, 5).astype(np.float32) * 0.3, name="w3")
        h1 = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
        h2 = tf.nn.tanh(tf.matmul(h1, w2) + b2)
        logits = tf.matmul(h2, w3)
        if sparse_labels:
            xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        else:
            xent = tf.nn.softmax_cross_entropy_with_logits_v2(
                labels=tf.one_hot(y, 5), logits=logits
            )
        loss = tf.reduce_mean(xent) + 1e-3 * tf.reduce_sum(tf.square(w1))
        train = optimizer().minimize(loss)
        init = tf.global_variables_initializer()
    return g, x, y, loss, train, init, [w1, b1, w2, b2, w3]


def _train(device, optimizer, steps=15, **kw):
    g, x, y, loss, train, init, weights = _mlp(device, optimizer, **kw)
    xs, ys = _data()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        losses = [sess.run([loss, train], {x: xs, y: ys})[0] for _ in range(steps)]
        return np.array(losses), sess.run(weights), sess


OPTIMIZERS = {
    "sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: tf.train.MomentumOptimizer(0.05, 0.9),
    "nesterov": lambda: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "adam": lambda: tf.train.AdamOptimizer(0.01),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
    "adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01),
    "rmsprop_centered": lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
    "ftrl": lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
    "ftrl_pow": lambda: tf.train.FtrlOptimizer(
        0.1, learning_rate_power=-0.7, l2_shrinkage_regularization_strength=0.01
    ),
    "proximal_gd": lambda: tf.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.001
    ),
    "proximal_adagrad": lambda: tf.train.ProximalAdagradOptimizer(
        0.1, l2_regularization_strength=0.001
    ),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_an_mlp_trained_on_the_gpu_matches_the_cpu(name):
    cpu_losses, cpu_weights, _ = _train("/cpu:0", OPTIMIZERS[name])
    gpu_losses, gpu_weights, _ = _train("/gpu:0", OPTIMIZERS[name])
    assert cpu_losses[-1] < cpu_losses[0]
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=2e-4, atol=2e-5)
    for c, g in zip(cpu_weights, gpu_weights, strict=True):
        np.testing.assert_allclose(g, c, rtol=2e-3, atol=2e-5)


def test_dense_labels_and_adagrad_da_match_too():
    cpu, _, _ = _train("/cpu:0", OPTIMIZERS["adam"], sparse_labels=False)
    gpu, _, _ = _train("/gpu:0", OPTIMIZERS["adam"], sparse_labels=False)
    np.testing.assert_allclose(gpu, cpu, rtol=2e-4, atol=2e-5)

    def adagrad_da():
        step = tf.train.get_or_create_global_step()
        return tf.train.AdagradDAOptimizer(0.1, step, l1_regularization_strength=0.001)

    cpu, _, _ = _train("/cpu:0", adagrad_da)
    gpu, _, _ = _train("/gpu:0", adagrad_da)
    np.testing.assert_allclose(gpu, cpu, rtol=2e-4, atol=2e-5)


def test_the_training_step_runs_on_the_gpu_with_copies_only_at_the_boundary():
    g, x, y, _loss, train, init, _ = _mlp("/gpu:0", OPTIMIZERS["adam"])
    xs, ys = _data()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
        meta = config_pb2.RunMetadata()
        sess.run(train, {x: xs, y: ys}, options=options, run_metadata=meta)
    on = {d.device: {n.node_name for n in d.node_stats} for d in meta.step_stats.dev_stats}
    gpu = on[GPU]
    for name in [
        "MatMul",
        "Relu",
        "Tanh",
        "Adam/update_w1/ApplyAdam",
        "gradients/MatMul_grad/MatMul_1",
    ]:
        assert name in gpu, (name, sorted(gpu))
    # The fed batch goes up; the variables and their slots never come down.
    copies = sorted(n for names in on.values() for n in names if "/_copy_to_" in n)
    assert "Placeholder/_copy_to_GPU_0" in copies, copies
    assert not any(c.startswith(("w1", "w2", "w3", "b1", "b2")) for c in copies), copies
    # Nothing is read back to the host mid-step: hyper-parameters, shapes and integer
    # constants are read where they are (the step never waits for the GPU).
    assert not [c for c in copies if c.endswith("_copy_to_CPU_0")], copies


def test_a_learning_rate_held_on_the_gpu_is_read_there_each_step():
    with tf.Graph().as_default(), tf.device("/gpu:0"):
        v = tf.Variable([1.0, 2.0, 3.0])
        lr = tf.Variable(0.5)
        momentum = tf.Variable(0.0)
        loss = tf.reduce_sum(v * v)
        step = tf.train.MomentumOptimizer(lr, momentum).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
            meta = config_pb2.RunMetadata()
            sess.run(step, options=options, run_metadata=meta)
            names = [n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats]
            assert not [n for n in names if "_copy_to_" in n], names
            np.testing.assert_allclose(sess.run(v), [0.0, 0.0, 0.0])  # v - 0.5 * 2v
            sess.run([v.assign([1.0, 2.0, 3.0]), lr.assign(0.25)])
            sess.run(step)
            np.testing.assert_allclose(sess.run(v), [0.5, 1.0, 1.5])


def test_variables_stay_on_the_gpu_between_steps_and_fetches_come_back_to_the_host():
    with tf.Graph().as_default(), tf.device("/gpu:0"):
        v = tf.Variable([1.0, 2.0, 3.0])
        inc = v.assign(v * 2.0)
        with tf.Session() as sess:
            sess.run(v.initializer)
            options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
            for _ in range(3):
                meta = config_pb2.RunMetadata()
                sess.run(inc.op, options=options, run_metadata=meta)
                # An update step copies nothing: the value stays in GPU memory.
                names = [n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats]
                assert "mul" in names and not [n for n in names if "_copy_to_" in n], names
            value = sess.run(v)
            np.testing.assert_array_equal(value, [8.0, 16.0, 24.0])
            assert isinstance(value, np.ndarray) and value.dtype == np.float32


def test_gpu_placement_errors_and_soft_placement_are_tfs():
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            s = tf.cumsum(tf.constant([1.0, 2.0]))
        with tf.Session() as sess:
            with pytest.raises(
                tf.errors.InvalidArgumentError, match="no supported kernel for GPU devices"
            ):
                sess.run(s)
        with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
            np.testing.assert_array_equal(sess.run(s), [1.0, 3.0])
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            c = tf.constant(1.0) + 1.0
        with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
            with pytest.raises(
                tf.errors.InvalidArgumentError, match="was explicitly assigned to /device:GPU:0"
            ):
                sess.run(c)
            assert [d.device_type for d in sess.list_devices()] == ["CPU"]


def test_gpu_kernel_errors_are_tfs():
    with tf.Graph().as_default(), tf.device("/gpu:0"):
        a = tf.placeholder(tf.float32)
        b = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
                sess.run(a + b, {a: np.zeros([2, 3]), b: np.zeros([4])})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
                sess.run(tf.matmul(a, b), {a: np.zeros([2, 3]), b: np.zeros([4, 2])})
            logits = tf.placeholder(tf.float32, [None, 3])
            labels = tf.placeholder(tf.int32, [None])
            xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Received a label value of 3"):
                sess.run(xent, {logits: np.zeros([2, 3]), labels: [0, 3]})


def test_gpu_devices_are_reported():
    assert tf.test.gpu_device_name() == "/device:GPU:0"
    with tf.Session() as sess:
        types = [d.device_type for d in sess.list_devices()]
    assert types == ["CPU", "GPU"] or types == ["GPU", "CPU"]
    from ferroflow.client import device_lib

    local = device_lib.list_local_devices()
    gpus = [d for d in local if d.device_type == "GPU"]
    assert gpus and gpus[0].name == "/device:GPU:0" and "backend" in gpus[0].physical_device_desc
    # TF's GPU locality: the NUMA node sysfs gives the adapter's PCI address (0 for a
    # software adapter), on bus node + 1.
    assert gpus[0].locality.bus_id == gpus[0].locality.numa_node + 1 >= 1


def _seeded_fills(device):
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        tf.set_random_seed(3)
        fills = [
            tf.random_uniform([5, 7], -1.0, 2.0),
            tf.random_normal([33], 1.0, 2.0),
            tf.truncated_normal([4, 9], stddev=0.5),
            tf.glorot_uniform_initializer()([6, 3]),
        ]
        with tf.Session(graph=g) as sess:
            options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
            meta = config_pb2.RunMetadata()
            # Two runs: the second continues each op's stream.
            first = sess.run(fills, options=options, run_metadata=meta)
            return first, sess.run(fills), meta


def test_seeded_random_fills_on_the_gpu_continue_the_cpus_streams():
    cpu_first, cpu_second, _ = _seeded_fills("/cpu:0")
    gpu_first, gpu_second, meta = _seeded_fills("/gpu:0")
    on = {d.device: {n.node_name for n in d.node_stats} for d in meta.step_stats.dev_stats}
    assert {"random_uniform/RandomUniform", "truncated_normal/TruncatedNormal"} <= on[GPU]
    for c, g in zip(cpu_first + cpu_second, gpu_first + gpu_second, strict=True):
        assert g.dtype == np.float32 and g.shape == c.shape
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6)
    assert not np.allclose(gpu_first[0], gpu_second[0])
    assert np.abs(gpu_first[2]).max() < 1.0  # truncated at two standard deviations


def test_a_model_initialized_and_trained_on_the_gpu_alone():
    """Default initializers (random fills) run on the GPU: no soft placement needed."""
    with tf.Graph().as_default(), tf.device("/gpu:0"):
        x = tf.placeholder(tf.float32, [None, 12])
        y = tf.placeholder(tf.int32, [None])
        h = tf.layers.dense(x, 16, activation=tf.nn.relu)
        logits = tf.layers.dense(h, 5)
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
        xs, ys = _data()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train], {x: xs, y: ys})[0] for _ in range(30)]
    assert losses[-1] < 0.7 * losses[0], losses


def _embedding_model(device):
    rng = np.random.RandomState(4)
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        ids = tf.placeholder(tf.int32, [None])
        y = tf.placeholder(tf.int64, [None])
        emb = tf.Variable(rng.randn(20, 8).astype(np.float32), name="emb")
        w = tf.Variable(rng.randn(8, 3).astype(np.float32), name="w")
        logits = tf.matmul(tf.nn.embedding_lookup(emb, ids), w)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        )
        correct = tf.equal(tf.argmax(logits, 1), y)
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
        train = tf.train.AdagradOptimizer(0.5).minimize(loss)
        init = tf.global_variables_initializer()
    feed_ids = rng.randint(0, 20, size=32).astype(np.int32)
    feed_y = (feed_ids % 3).astype(np.int64)
    with tf.Session(graph=g) as sess:
        sess.run(init)
        feed = {ids: feed_ids, y: feed_y}
        curve = [sess.run([loss, accuracy, train], feed)[:2] for _ in range(20)]
        return np.array(curve), sess.run(emb)


def test_embeddings_sparse_updates_and_accuracy_on_the_gpu_match_the_cpu():
    cpu_curve, cpu_emb = _embedding_model("/cpu:0")
    gpu_curve, gpu_emb = _embedding_model("/gpu:0")
    assert cpu_curve[-1, 1] > cpu_curve[0, 1]  # it learns: accuracy rises
    np.testing.assert_allclose(gpu_curve, cpu_curve, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gpu_emb, cpu_emb, rtol=1e-4, atol=1e-5)


def test_log_device_placement_names_the_gpu(capfd):
    with tf.Graph().as_default(), tf.device("/gpu:0"):
        a = tf.constant([[1.0, 2.0]], name="a")
        m = tf.matmul(a, a, transpose_b=True, name="m")
        config = tf.ConfigProto(log_device_placement=True)
        with tf.Session(config=config) as sess:
            sess.run(m)
    out, err = capfd.readouterr()
    assert f"m: (MatMul): {GPU}\n" in out, out
    assert f"a: (Const): {GPU}\n" in out, out
    assert f"Device mapping:\n{GPU} -> " in err, err


def _cnn(device, dtype=np.float32, optimizer=None, trace=False, steps=10):
    """A conv net (both poolings, bias, softmax cross-entropy) trained for `steps`
    steps: its losses and first filter, and with `trace` the nodes each device ran in
    the last step."""
    rng = np.random.RandomState(5)
    images = rng.randn(8, 9, 9, 2).astype(dtype)
    labels = rng.randint(0, 3, size=8).astype(np.int32)
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        x = tf.constant(images)
        f1 = tf.Variable((rng.randn(3, 3, 2, 4) * 0.3).astype(dtype))
        f2 = tf.Variable((rng.randn(3, 3, 4, 4) * 0.3).astype(dtype))
        w = tf.Variable((rng.randn(5 * 5 * 4, 3) * 0.1).astype(dtype))
        b = tf.Variable(np.zeros(3, dtype))
        h = tf.nn.relu(tf.nn.conv2d(x, f1, [1, 1, 1, 1], "SAME"))
        h = tf.nn.max_pool(h, [1, 3, 3, 1], [1, 1, 1, 1], "SAME")
        h = tf.nn.relu(tf.nn.conv2d(h, f2, [1, 2, 2, 1], "SAME"))
        h = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
        logits = tf.nn.bias_add(tf.matmul(tf.reshape(h, [8, -1]), w), b)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
        train = (optimizer or (lambda: tf.train.MomentumOptimizer(0.05, 0.9)))().minimize(loss)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train])[0] for _ in range(steps - 1)]
            options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
            meta = config_pb2.RunMetadata()
            losses.append(sess.run([loss, train], options=options, run_metadata=meta)[0])
            ran = {d.device: {n.node_name for n in d.node_stats} for d in meta.step_stats.dev_stats}
            result = np.array(losses), sess.run(f1)
            return (*result, ran) if trace else result


def test_a_convolutional_net_trained_on_the_gpu_matches_the_cpu():
    cpu_losses, cpu_f1 = _cnn("/cpu:0")
    gpu_losses, gpu_f1 = _cnn("/gpu:0")
    assert cpu_losses[-1] < cpu_losses[0]
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gpu_f1, cpu_f1, rtol=1e-3, atol=1e-5)


def test_float16_values_live_on_the_gpu_and_match_the_cpu():
    rng = np.random.RandomState(6)
    a, b = rng.randn(5, 33).astype(np.float32), rng.randn(33).astype(np.float32)

    def run(device):
        with tf.Graph().as_default(), tf.device(device):
            x = tf.cast(tf.constant(a), tf.float16)
            y = tf.nn.relu(x * tf.cast(tf.constant(b), tf.float16) + x)
            z = tf.matmul(y, y, transpose_b=True)
            with tf.Session() as sess:
                return sess.run([y, tf.cast(tf.tanh(y), tf.float32), z])

    (cpu_y, cpu_t, cpu_z), (gpu_y, gpu_t, gpu_z) = run("/cpu:0"), run("/gpu:0")
    assert gpu_z.dtype == np.float16
    np.testing.assert_allclose(gpu_z.astype(np.float32), cpu_z.astype(np.float32), rtol=4e-3)
    assert gpu_y.dtype == np.float16 and gpu_y.shape == (5, 33)
    np.testing.assert_allclose(gpu_y.astype(np.float32), cpu_y.astype(np.float32), rtol=2e-3)
    np.testing.assert_allclose(gpu_t, cpu_t, rtol=2e-3, atol=1e-3)


# Gentle steps: half-precision runs that round differently stay close only while
# training is smooth (a large momentum step amplifies an ulp into a different path).
HALF_OPTIMIZERS = {
    "sgd": lambda: tf.train.GradientDescentOptimizer(0.05),
    "momentum": lambda: tf.train.MomentumOptimizer(0.01, 0.9),
    # TF's default epsilons (1e-8, 1e-10) are zero in half: 0/0 where a gradient is.
    "adam": lambda: tf.train.AdamOptimizer(0.003, epsilon=1e-4),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.003, epsilon=1e-4),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.05),
}


@pytest.mark.parametrize("name", sorted(HALF_OPTIMIZERS))
def test_a_float16_conv_net_trains_on_the_gpu_as_on_the_cpu(name):
    # Every op of the step in float16 on the GPU: convolutions, poolings, bias, the
    # cross-entropy, reductions and the update, each computed in float32 and rounded
    # once where the CPU rounds each step, so the runs agree to half precision.
    optimizer = HALF_OPTIMIZERS[name]
    cpu_losses, cpu_f1 = _cnn("/cpu:0", np.float16, optimizer, steps=3)
    gpu_losses, gpu_f1, ran = _cnn("/gpu:0", np.float16, optimizer, trace=True, steps=3)
    assert gpu_losses.dtype == np.float16 and gpu_f1.dtype == np.float16
    np.testing.assert_allclose(gpu_losses.astype(np.float32), cpu_losses, rtol=1e-2, atol=1e-3)
    np.testing.assert_allclose(gpu_f1.astype(np.float32), cpu_f1, rtol=2e-2, atol=2e-3)
    on_gpu = ran[GPU]
    for op in ["Conv2D", "MaxPool", "AvgPool", "BiasAdd", "Mean"]:
        assert op in on_gpu, (op, sorted(on_gpu))
    assert any(n.split("/")[-1].startswith("Apply") for n in on_gpu), sorted(on_gpu)
    # Only the fetched loss leaves the GPU; variables and slots stay there.
    copies = [n for names in ran.values() for n in names if "_copy_to_" in n]
    assert copies == ["Mean/_copy_to_CPU_0"], copies
    # Later steps part ways at an ulp (a pooling's maximum or a ReLU flips), but the
    # float16 run trains as the float32 one does.
    half, _ = _cnn("/gpu:0", np.float16, optimizer, steps=12)
    single, _ = _cnn("/gpu:0", np.float32, optimizer, steps=12)
    assert half[-1] < 0.8 * half[0]
    np.testing.assert_allclose(half[:6].astype(np.float32), single[:6], rtol=5e-2)
