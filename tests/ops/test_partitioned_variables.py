"""Partitioned variables, `embedding_lookup` over parts and variable constraints, built on
ferroflow and TF-1.x side by side."""

import numpy as np
import pytest

import ferroflow as ff

_KEYS = ("variables", "trainable_variables", "local_variables", "regularization_losses")


def _names(items):
    return [getattr(i, "name", repr(i)) for i in items]


def _kind(x):
    """The class name, TF's graph-mode subclasses named as ferroflow's."""
    name = type(x).__name__
    return {"SymbolicTensor": "Tensor", "RefVariable": "Variable"}.get(name, name)


def _slice_info(v):
    i = v._get_save_slice_info()
    return (i.full_name, i.full_shape, i.var_offset, i.var_shape, i.spec)


def _both(tf1, build, run=None, op_filter=lambda name: True):
    """`build(lib)` in fresh graphs: same op names and collections; `run(lib, out)` agrees."""
    outs, results = [], []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            out = build(lib)
            ops_ = [op.name for op in g.get_operations() if op_filter(op.name)]
            colls = {k: _names(g.get_collection(k)) for k in _KEYS}
            keys = sorted(g.get_all_collection_keys())
            outs.append((out, ops_, colls, keys))
            if run is not None:
                with lib.Session(graph=g) as sess:
                    sess.run(lib.global_variables_initializer())
                    results.append(run(lib, sess, out))
    (out_tf, ops_tf, colls_tf, keys_tf), (out_ff, ops_ff, colls_ff, keys_ff) = outs
    assert ops_ff == ops_tf
    assert colls_ff == colls_tf
    assert keys_ff == keys_tf
    if run is not None:
        for a, b in zip(results[0], results[1], strict=True):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
            assert np.asarray(b).shape == np.asarray(a).shape
    return out_tf, out_ff


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [([10, 4], "float32"), ([3, 200], "float64"), ([1000, 3], "string"), ([7], "int32")],
)
def test_partitioners_agree(tf1, shape, dtype):
    cases = []
    for lib in (tf1, ff):
        s = lib.TensorShape(shape)
        d = getattr(lib, dtype)
        cases.append(
            [
                lib.fixed_size_partitioner(3)(s, dtype=d),
                lib.fixed_size_partitioner(50)(s, dtype=d),
                lib.min_max_variable_partitioner(4, min_slice_size=16)(s, d),
                lib.min_max_variable_partitioner(100, min_slice_size=1)(s, d),
                lib.min_max_variable_partitioner()(s, d),
                lib.variable_axis_size_partitioner(64)(s, d),
                lib.variable_axis_size_partitioner(64, max_shards=2)(s, d),
                lib.variable_axis_size_partitioner(1)(s, d),
            ]
        )
        if len(shape) > 1:
            cases[-1].append(lib.variable_axis_size_partitioner(100, axis=1)(s, d))
            cases[-1].append(lib.fixed_size_partitioner(2, axis=1)(s, dtype=d))
    assert cases[1] == cases[0]


def test_partitioner_errors(tf1):
    for lib in (tf1, ff):
        with pytest.raises(ValueError, match="must be positive"):
            lib.variable_axis_size_partitioner(0)
        with pytest.raises(ValueError, match="max_shards must be positive"):
            lib.variable_axis_size_partitioner(10, max_shards=-1)
        with pytest.raises(ValueError, match="not fully defined"):
            lib.variable_axis_size_partitioner(10)(lib.TensorShape([None, 2]), lib.float32)
        with pytest.raises(ValueError, match="Cannot partition variable along axis 2"):
            lib.min_max_variable_partitioner(2, axis=2)(lib.TensorShape([4, 2]), lib.float32)


def test_get_variable_with_partitioners(tf1):
    table = np.arange(40, dtype=np.float32).reshape(10, 4)

    def build(tf):
        tf.set_random_seed(3)
        with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(3)) as vs:
            a = tf.get_variable("a", initializer=tf.constant(table))
            b = tf.get_variable("b", [5, 3], initializer=tf.glorot_uniform_initializer(seed=1))
            c = tf.get_variable("c", [7, 2], dtype=tf.int32)
            scalar = tf.get_variable("scalar", [], initializer=tf.ones_initializer())
            d = tf.get_variable(
                "d",
                initializer=tf.constant(table),
                partitioner=tf.fixed_size_partitioner(2, axis=1),
            )
            one = tf.get_variable("one", [1, 3], initializer=tf.ones_initializer())
        with tf.variable_scope("s", reuse=True):
            a2 = tf.get_variable("a")  # reused without the partitioner
        with tf.variable_scope(vs, reuse=True):
            b2 = tf.get_variable("b", [5, 3], partitioner=tf.fixed_size_partitioner(3))
        e = tf.get_variable(
            "e",
            [6, 2],
            partitioner=tf.min_max_variable_partitioner(4, min_slice_size=8),
            initializer=tf.truncated_normal_initializer(seed=2),
            trainable=False,
        )
        whole = tf.convert_to_tensor(a)
        whole_one = tf.convert_to_tensor(one)
        pvs = [a, b, c, d, one, e]
        return {
            "pvs": pvs,
            "same": [a2 is a, b2 is b, _kind(scalar)],
            "names": [
                (
                    p.name,
                    p.get_shape().as_list(),
                    p.dtype.name,
                    p._get_partitions(),
                    p._partition_axes(),
                    len(p),
                    _names(p),
                )
                for p in pvs
            ],
            "parts": [[(v.shape.as_list(), _slice_info(v)) for v in p] for p in pvs],
            "listed": [_names(p._get_variable_list()) for p in pvs],
            "tensors": [whole.name, whole_one.name],
            "fetch": [whole, whole_one] + [tf.convert_to_tensor(p) for p in (b, c, d, e)],
        }

    out_tf, out_ff = _both(tf1, build, lambda tf, sess, out: sess.run(out["fetch"]))
    for key in ("same", "names", "parts", "listed", "tensors"):
        assert out_ff[key] == out_tf[key], key
    assert out_ff["parts"][0][0][1] == ("s/a", [10, 4], [0, 0], [4, 4], "10 4 0,4:0,4")


def test_variable_scope_partitioner_with_glorot_sees_the_full_shape(tf1):
    # Initializers get the part's `partition_info`: Glorot scales by the full shape.
    def build(tf):
        with tf.variable_scope("x", partitioner=tf.fixed_size_partitioner(2)):
            w = tf.get_variable("w", [6, 300], initializer=tf.glorot_uniform_initializer(seed=5))
        return w

    _both(tf1, build, lambda tf, sess, w: [sess.run(w.as_tensor())])


def test_partitioned_reuse_errors(tf1):
    def errors(tf):
        out = []

        def attempt(fn):
            try:
                fn()
            except ValueError as e:
                out.append(str(e))
            else:
                out.append(None)

        p2 = tf.fixed_size_partitioner(2)
        tf.get_variable("p", [4, 2], partitioner=p2)
        tf.get_variable("plain", [4, 2])
        attempt(lambda: tf.get_variable("p", [4, 2], partitioner=p2))
        attempt(lambda: tf.get_variable("plain", [4, 2], partitioner=p2))
        attempt(lambda: tf.get_variable("p", [4, 2]))
        with tf.variable_scope("", reuse=True):
            attempt(lambda: tf.get_variable("p", [4, 3], partitioner=p2))
            attempt(lambda: tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(4)))
            attempt(lambda: tf.get_variable("p", [4, 2], dtype=tf.int32, partitioner=p2))
            attempt(lambda: tf.get_variable("q", [4, 2], partitioner=p2))
        attempt(lambda: tf.get_variable("u", [None, 2], partitioner=p2, validate_shape=False))
        attempt(lambda: tf.get_variable("r", [4, 2], partitioner=lambda shape, dtype: [2, 2]))
        attempt(lambda: tf.get_variable("r", [4, 2], partitioner=lambda shape, dtype: [0, 1]))
        attempt(lambda: tf.get_variable("r", [4, 2], partitioner=lambda shape, dtype: [2]))
        attempt(lambda: tf.get_variable("r", [4, 2], partitioner=lambda shape, dtype: 2))
        attempt(lambda: tf.get_variable("r", [4, 2], partitioner=3))
        return out

    out_tf, out_ff = _both(tf1, errors)
    assert out_ff == out_tf
    assert all(out_ff)


def test_create_partitioned_variables(tf1):
    def build(tf):
        parts = tf.create_partitioned_variables(
            [5, 2], [2, 1], tf.constant(np.arange(10, dtype=np.float32).reshape(5, 2))
        )
        more = tf.create_partitioned_variables([3, 4], [1, 2], tf.ones_initializer(), name="m")
        return parts + more

    _both(tf1, build, lambda tf, sess, vs: sess.run(vs))


def _lookups(tf):
    table = np.arange(44, dtype=np.float32).reshape(11, 4) / 10.0
    with tf.variable_scope("emb", partitioner=tf.fixed_size_partitioner(3)):
        pv = tf.get_variable("table", initializer=tf.constant(table))
    ids = tf.constant([[1, 10], [4, 4], [0, 7]])
    consts = [tf.constant(table[:4]), tf.constant(table[4:8]), tf.constant(table[8:])]
    return pv, ids, consts


@pytest.mark.parametrize("strategy", ["mod", "div"])
@pytest.mark.parametrize("max_norm", [None, 1.5])
def test_embedding_lookup_over_parts_values_and_gradients(tf1, strategy, max_norm):
    def build(tf):
        pv, ids, consts = _lookups(tf)
        e1 = tf.nn.embedding_lookup(pv, ids, partition_strategy=strategy, max_norm=max_norm)
        e2 = tf.nn.embedding_lookup(list(pv), ids[0], partition_strategy=strategy)
        e3 = tf.nn.embedding_lookup(consts, [10, 3, 3], partition_strategy=strategy)
        loss = tf.reduce_sum(e1 * e1) + tf.reduce_sum(e2 * tf.constant([1.0, 2.0, 3.0, 4.0]))
        grads = tf.gradients(loss, list(pv))
        return {
            "fetch": [e1, e2, e3],
            "grads": grads,
            "kinds": [type(g).__name__ for g in grads],
            "shapes": [e.shape.as_list() for e in (e1, e2, e3)],
        }

    def run(tf, sess, out):
        values = sess.run(out["fetch"])
        # IndexedSlices rows per part: compare them densified (row order may differ).
        dense = []
        for g, gv in zip(out["grads"], sess.run(out["grads"]), strict=True):
            full = np.zeros(
                g.dense_shape_value if hasattr(g, "dense_shape_value") else sess.run(g.dense_shape),
                np.float32,
            )
            np.add.at(full, gv.indices, gv.values)
            dense.append(full)
        return values + dense

    out_tf, out_ff = _both(
        tf1, build, run, op_filter=lambda n: not n.startswith(("embedding_lookup", "gradients"))
    )
    assert out_ff["kinds"] == out_tf["kinds"] == ["IndexedSlices"] * 3
    assert out_ff["shapes"] == out_tf["shapes"]


def test_embedding_lookup_errors(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="Need at least one param"):
                lib.nn.embedding_lookup([], [0])
            with pytest.raises(ValueError, match="Unrecognized partition strategy"):
                lib.nn.embedding_lookup([lib.ones([2, 2]), lib.ones([2, 2])], [0], "foo")


@pytest.mark.parametrize(
    "optimizer", ["GradientDescentOptimizer", "AdamOptimizer", "AdagradOptimizer"]
)
def test_optimizers_update_every_part(tf1, optimizer):
    def build(tf):
        pv, ids, _ = _lookups(tf)
        w = tf.get_variable(
            "w",
            initializer=tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)),
            partitioner=tf.fixed_size_partitioner(2, axis=1),
        )
        x = tf.nn.embedding_lookup(pv, ids)
        loss = tf.reduce_sum(
            tf.tanh(tf.matmul(tf.reshape(x, [-1, 4]), w.as_tensor()))
        ) + tf.reduce_sum(w.as_tensor() ** 2)
        opt = getattr(tf.train, optimizer)(0.1)
        gv = opt.compute_gradients(loss)
        train = opt.apply_gradients(gv)
        return {
            "listed": [(_kind(g), v.name) for g, v in gv],
            "train": train,
            "vars": [pv.as_tensor(), w.as_tensor()],
            "slots": [(n, _names(opt.get_slot(v, n) for v in pv)) for n in opt.get_slot_names()],
            "slot_info": [
                _slice_info(opt.get_slot(v, n)) for n in opt.get_slot_names() for v in pv
            ],
        }

    def run(tf, sess, out):
        for _ in range(3):
            sess.run(out["train"])
        return sess.run(out["vars"])

    # The sparse updates' internal ops are named differently (compared elsewhere).
    skip = ("embedding_lookup", "gradients", optimizer.replace("Optimizer", "") + "/")
    out_tf, out_ff = _both(tf1, build, run, op_filter=lambda n: not n.startswith(skip))
    for key in ("listed", "slots", "slot_info"):
        assert out_ff[key] == out_tf[key], key


def test_constraints_after_updates_and_shared_name(tf1):
    def build(tf):
        v = tf.Variable(
            [3.0, -4.0, 0.5], name="v", constraint=lambda x: tf.clip_by_value(x, -1.0, 1.0)
        )
        w = tf.get_variable(
            "w",
            [2],
            initializer=tf.ones_initializer(),
            constraint=lambda x: x / tf.sqrt(tf.reduce_sum(x * x)),
        )
        with tf.name_scope("ns"):
            u = tf.Variable(1.0, name="u")
        loss = tf.reduce_sum(v * v) + tf.reduce_sum(w * tf.constant([1.0, 2.0]))
        trains = [
            o.minimize(loss)
            for o in (tf.train.GradientDescentOptimizer(0.1), tf.train.AdamOptimizer(0.1))
        ]
        e = tf.get_variable("e", [4, 2], constraint=lambda x: x)
        with pytest.raises(RuntimeError, match="Cannot use a constraint function on a sparse"):
            tf.train.GradientDescentOptimizer(0.1).minimize(
                tf.reduce_sum(tf.gather(e, [1])), var_list=[e]
            )
        return {"trains": trains, "vars": [v, w], "shared": [x._shared_name for x in (v, w, u)]}

    def run(tf, sess, out):
        for _ in range(3):
            for train in out["trains"]:  # one at a time: both update v and w
                sess.run(train)
        return sess.run(out["vars"])

    out_tf, out_ff = _both(tf1, build, run, op_filter=lambda n: not n.startswith("gradients"))
    assert out_ff["shared"] == out_tf["shared"] == ["v", "w", "ns/u"]


def test_partitioned_variable_assign_and_meta_graph_round_trip():
    with ff.Graph().as_default():
        pv = ff.get_variable("p", [5, 2], partitioner=ff.fixed_size_partitioner(2))
        ops_ = pv.assign(np.arange(10, dtype=np.float32).reshape(5, 2))
        adds = pv.assign_add([np.ones([3, 2], np.float32), np.ones([2, 2], np.float32)])
        meta = ff.train.export_meta_graph()
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            sess.run(ops_)
            sess.run(adds)
            np.testing.assert_array_equal(sess.run(pv.as_tensor()), np.arange(10).reshape(5, 2) + 1)
    with ff.Graph().as_default():
        ff.train.import_meta_graph(meta)
        parts = ff.global_variables()
        assert [_slice_info(v) for v in parts] == [
            ("p", [5, 2], [0, 0], [3, 2], "5 2 0,3:0,2"),
            ("p", [5, 2], [3, 0], [2, 2], "5 2 3,2:0,2"),
        ]


@pytest.mark.parametrize("with_adam", [False, True])
def test_checkpoints_of_partitioned_variables_cross_between_tf_and_ferroflow(
    tf1, tmp_path, with_adam
):
    table = np.arange(30, dtype=np.float32).reshape(10, 3)

    def build(tf, init):
        with tf.variable_scope("m", partitioner=tf.fixed_size_partitioner(3)):
            pv = tf.get_variable("t", initializer=tf.constant(init))
        if with_adam:
            loss = tf.reduce_sum(tf.nn.embedding_lookup(pv, [1, 7]))
            tf.train.AdamOptimizer(0.5).minimize(loss)
        return pv

    for writer, reader in ((ff, tf1), (tf1, ff)):
        path = str(tmp_path / f"{writer.__name__}_{with_adam}" / "model")
        with writer.Graph().as_default():
            pv = build(writer, table)
            with writer.Session() as sess:
                sess.run(writer.global_variables_initializer())
                for op in writer.get_collection(writer.GraphKeys.TRAIN_OP):
                    sess.run(op)
                want = sess.run(pv.as_tensor())
                slots = {
                    v.op.name: sess.run(v) for v in writer.global_variables() if "Adam" in v.op.name
                }
                writer.train.Saver().save(sess, path, write_meta_graph=False)
        assert np.asarray(tf1.train.load_variable(path, "m/t")).tolist() == want.tolist()
        names = dict(ff.train.list_variables(path))
        assert names == dict(tf1.train.list_variables(path))
        assert names["m/t"] == [10, 3]
        with reader.Graph().as_default():
            pv = build(reader, np.zeros_like(table))
            with reader.Session() as sess:
                reader.train.Saver().restore(sess, path)
                np.testing.assert_array_equal(sess.run(pv.as_tensor()), want)
                for v in reader.global_variables():
                    if v.op.name in slots:
                        np.testing.assert_array_equal(sess.run(v), slots[v.op.name])
