"""`tf.data` (TF 1.x graph API) against TensorFlow: every source and transformation
built the same way in both, run to the end through an iterator, compared element by
element (values, dtypes, order) with the static `output_types`/`output_shapes`."""

import gzip
import os
import zlib

import numpy as np
import pytest

import ferroflow as ff

pytestmark = pytest.mark.timeout(120)


def _drain(lib, build, initializable=True):
    """The dataset's static types and shapes, and its elements as numpy values."""
    g = lib.Graph()
    with g.as_default():
        ds = build(lib)
        types = lib.data.get_output_types(ds)
        shapes = lib.data.get_output_shapes(ds)
        if initializable:
            it = lib.data.make_initializable_iterator(ds)
        else:
            it = lib.data.make_one_shot_iterator(ds)
        nxt = it.get_next()
        out = []
        with lib.Session(graph=g) as sess:
            if initializable:
                sess.run(it.initializer)
            while True:
                try:
                    out.append(sess.run(nxt))
                except lib.errors.OutOfRangeError:
                    break
            # Past the end, every call is OutOfRange again.
            with pytest.raises(lib.errors.OutOfRangeError):
                sess.run(nxt)
    return _plain(types), _plain(shapes), out


def _plain(structure):
    """Types and shapes as comparable plain values (names, lists), nesting kept."""
    if isinstance(structure, dict):
        return {k: _plain(v) for k, v in structure.items()}
    if isinstance(structure, tuple):
        return tuple(_plain(v) for v in structure)
    if hasattr(structure, "as_list") or type(structure).__name__ == "TensorShape":
        return None if structure.ndims is None else structure.as_list()
    return structure.name


def _assert_equal_elements(got, want):
    assert type(got) is type(want) or isinstance(want, np.generic | np.ndarray), (got, want)
    if isinstance(want, dict):
        assert sorted(got) == sorted(want)
        for k in want:
            _assert_equal_elements(got[k], want[k])
    elif isinstance(want, tuple | list):
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            _assert_equal_elements(a, b)
    else:
        a, b = np.asarray(got), np.asarray(want)
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_array_equal(a, b)


def check(tf, build, initializable=True, ordered=True):
    """The same static structure and the same elements (in order) from both."""
    want_types, want_shapes, want = _drain(tf, build, initializable)
    got_types, got_shapes, got = _drain(ff, build, initializable)
    assert got_types == want_types
    assert got_shapes == want_shapes
    if not ordered:
        key = lambda e: repr(e)  # noqa: E731
        got, want = sorted(got, key=key), sorted(want, key=key)
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want, strict=True):
        _assert_equal_elements(g, w)


@pytest.fixture(scope="module")
def tf(tf1):
    return tf1


# ---- sources ----


@pytest.mark.parametrize("args", [(5,), (2, 10, 3), (10, 0, -3), (5, 1), (3, 3), (0,)], ids=str)
def test_range(tf, args):
    check(tf, lambda lib: lib.data.Dataset.range(*args))


def test_from_tensors_nested(tf):
    def build(lib):
        return lib.data.Dataset.from_tensors(
            {"a": np.arange(6.0).reshape(2, 3), "b": (np.int32(4), [b"x", b"yz"])}
        )

    check(tf, build)
    check(tf, build, initializable=False)


def test_from_tensor_slices_structures(tf):
    x = np.arange(24, dtype=np.float32).reshape(6, 2, 2)
    y = np.arange(6, dtype=np.int64)
    names = np.array([b"a", b"bb", b"", b"ccc", b"d", b"e"], dtype=object)
    check(tf, lambda lib: lib.data.Dataset.from_tensor_slices((x, y)))
    check(tf, lambda lib: lib.data.Dataset.from_tensor_slices({"x": x, "name": names}))
    check(tf, lambda lib: lib.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]]))


def test_from_tensor_slices_static_errors(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="Dimensions 3 and 4 are not compatible"):
                lib.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))
            with pytest.raises(ValueError, match="only supported for rank >= 1"):
                lib.data.Dataset.from_tensor_slices(np.float32(1))


def test_zip_and_concatenate(tf):
    def build(lib):
        a = lib.data.Dataset.range(5)
        b = lib.data.Dataset.from_tensor_slices(np.arange(10.0, 17.0))
        return lib.data.Dataset.zip((a, (b, a.map(lambda x: x * 3))))

    check(tf, build)

    def cat(lib):
        a = lib.data.Dataset.from_tensor_slices(np.zeros([3, 2], np.int32))
        b = lib.data.Dataset.from_tensor_slices(np.ones([2, 5], np.int32))
        return a.concatenate(b).concatenate(
            lib.data.Dataset.range(0).map(lambda x: lib.zeros([1], lib.int32))
        )

    check(tf, cat)


def test_concatenate_type_error(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            a = lib.data.Dataset.range(3)
            b = lib.data.Dataset.from_tensors(1.0)
            with pytest.raises(TypeError, match=r"different types|Incompatible dataset elements"):
                a.concatenate(b)


# ---- batching ----


@pytest.mark.parametrize("drop", [False, True])
def test_batch(tf, drop):
    check(tf, lambda lib: lib.data.Dataset.range(10).batch(4, drop_remainder=drop))
    x = np.arange(30.0).reshape(10, 3)
    check(tf, lambda lib: lib.data.Dataset.from_tensor_slices((x, x[:, 0] > 5)).batch(3, drop))


def _word(lib, i):
    return lib.gather(lib.constant([b"zero", b"one", b"two", b"three", b"four"]), i)


def test_padded_batch(tf):
    def fill(lib):
        return lib.data.Dataset.range(1, 7).map(lambda x: lib.fill([x], x))

    check(tf, lambda lib: fill(lib).padded_batch(4, padded_shapes=[None]))
    check(tf, lambda lib: fill(lib).padded_batch(2, padded_shapes=[8], padding_values=np.int64(-1)))
    check(tf, lambda lib: fill(lib).padded_batch(4, padded_shapes=[-1], drop_remainder=True))

    def two(lib):
        ds = lib.data.Dataset.range(1, 5).map(
            lambda x: (lib.fill([x, 2], lib.cast(x, lib.float32)), _word(lib, x))
        )
        return ds.padded_batch(3, padded_shapes=([None, 3], []), padding_values=(0.5, b"pad"))

    check(tf, two)

    def strings(lib):
        ds = lib.data.Dataset.range(1, 5).map(lambda x: lib.fill([x], _word(lib, x)))
        return ds.padded_batch(2, padded_shapes=[None])

    check(tf, strings)


def test_unbatch(tf):
    x = np.arange(12).reshape(6, 2)
    check(tf, lambda lib: lib.data.Dataset.from_tensor_slices(x).batch(4).unbatch())
    check(
        tf,
        lambda lib: lib.data.Dataset.range(4).map(lambda v: lib.fill([v % 2 * 2], v)).unbatch(),
    )
    check(
        tf,
        lambda lib: lib.data.Dataset.from_tensors((x, x[:, 0])).apply(
            lib.data.experimental.unbatch()
        ),
    )


# ---- order ----


@pytest.mark.parametrize(
    "n,buf,seed,reshuffle,count",
    [
        (10, 5, 7, True, 1),
        (10, 5, 7, False, 1),
        (10, 4, 3, True, 2),
        (10, 4, 3, False, 2),
        (25, 30, 11, True, 3),
        (17, 1, 5, True, 2),
        (40, 8, 123456789, True, 1),
    ],
)
def test_shuffle_matches_tf_order(tf, n, buf, seed, reshuffle, count):
    check(
        tf,
        lambda lib: (
            lib.data.Dataset.range(n)
            .shuffle(buf, seed=seed, reshuffle_each_iteration=reshuffle)
            .repeat(count)
        ),
    )


def test_shuffle_with_graph_seed(tf):
    def build(lib):
        lib.set_random_seed(42)
        return lib.data.Dataset.range(20).shuffle(7)

    check(tf, build)


def test_shuffle_and_repeat(tf):
    def build(lib):
        return lib.data.Dataset.range(9).apply(
            lib.data.experimental.shuffle_and_repeat(4, count=3, seed=21)
        )

    check(tf, build)


@pytest.mark.parametrize("count", [0, 2, -2])
def test_repeat_take_skip(tf, count):
    check(tf, lambda lib: lib.data.Dataset.range(3).repeat(count).take(9))
    check(tf, lambda lib: lib.data.Dataset.range(5).take(count))
    check(tf, lambda lib: lib.data.Dataset.range(5).skip(count))
    check(tf, lambda lib: lib.data.Dataset.range(5).skip(10))
    check(tf, lambda lib: lib.data.Dataset.range(0).repeat())
    check(tf, lambda lib: lib.data.Dataset.range(3).filter(lambda x: x > 5).repeat())


def test_shard(tf):
    check(tf, lambda lib: lib.data.Dataset.range(10).shard(3, 1))
    check(tf, lambda lib: lib.data.Dataset.range(10).shard(1, 0))


# ---- functions ----


def test_map_structures_and_captures(tf):
    def build(lib):
        scale = lib.constant(3.0, lib.float64)
        ds = lib.data.Dataset.from_tensor_slices((np.arange(5.0), np.arange(5)))
        ds = ds.map(
            lambda x, y: {"s": x * scale, "y": y + 1, "both": (x, lib.cast(y, lib.float64))}
        )
        return ds.map(lambda d: (d["s"] + 1.0, d["both"][1]))

    check(tf, build)


def test_map_list_result_is_a_tuple(tf):
    check(tf, lambda lib: lib.data.Dataset.range(3).map(lambda x: [x, x * 2]))


@pytest.mark.parametrize("calls", [1, 2, 4, -1])
def test_parallel_map_keeps_order(tf, calls):
    def build(lib):
        return lib.data.Dataset.range(50).map(
            lambda x: (x, lib.square(x)), num_parallel_calls=calls
        )

    check(tf, build)


def test_map_with_placeholder_capture(tf):
    def run(lib):
        with lib.Graph().as_default() as g:
            k = lib.placeholder(lib.int64, [])
            it = lib.data.make_initializable_iterator(
                lib.data.Dataset.range(4).map(lambda x: x * k)
            )
            nxt = it.get_next()
            with lib.Session(graph=g) as sess:
                out = []
                for kv in (2, 5):
                    sess.run(it.initializer, {k: kv})
                    out.append([sess.run(nxt) for _ in range(4)])
                return out

    assert run(ff) == run(tf)


def test_filter(tf):
    check(tf, lambda lib: lib.data.Dataset.range(20).filter(lambda x: lib.equal(x % 3, 0)))
    check(
        tf,
        lambda lib: lib.data.Dataset.from_tensor_slices((np.arange(6), np.arange(6) * 2.0)).filter(
            lambda a, b: b > 3.0
        ),
    )


def test_filter_static_error(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match=r"must return a `tf\.bool` scalar tensor"):
                lib.data.Dataset.range(3).filter(lambda x: x)


def test_flat_map(tf):
    check(tf, lambda lib: lib.data.Dataset.range(5).flat_map(lambda x: lib.data.Dataset.range(x)))
    check(
        tf,
        lambda lib: lib.data.Dataset.from_tensor_slices(np.arange(12).reshape(3, 4)).flat_map(
            lambda row: lib.data.Dataset.from_tensor_slices(row)
        ),
    )


@pytest.mark.parametrize(
    "lens,cycle,block",
    [
        ([3, 3, 3, 3], 2, 1),
        ([3, 3, 3, 3], 2, 2),
        ([1, 4, 2, 0, 3, 5], 3, 2),
        ([5, 1, 1, 1, 4], 2, 1),
        ([0, 0, 2], 2, 1),
        ([2, 0, 6, 1, 3], 3, 1),
        ([4, 1, 3], 2, 3),
    ],
)
@pytest.mark.parametrize("parallel", [None, 2])
def test_interleave_order(tf, lens, cycle, block, parallel):
    def build(lib):
        ds = lib.data.Dataset.from_tensor_slices(np.array(lens, np.int64))
        ds = ds.map(lambda n: n)  # a captured-free map before
        return lib.data.Dataset.zip((lib.data.Dataset.range(len(lens)), ds)).interleave(
            lambda i, n: lib.data.Dataset.range(n).map(lambda j: i * 100 + j),
            cycle_length=cycle,
            block_length=block,
            num_parallel_calls=parallel if parallel is None else min(parallel, cycle),
        )

    check(tf, build)


def test_parallel_interleave_even_inputs(tf):
    def build(lib):
        return lib.data.Dataset.range(4).apply(
            lib.data.experimental.parallel_interleave(
                lambda i: lib.data.Dataset.range(3).map(lambda j: i * 10 + j), cycle_length=2
            )
        )

    check(tf, build)


def test_map_and_batch(tf):
    def build(lib):
        return lib.data.Dataset.range(11).apply(
            lib.data.experimental.map_and_batch(lambda x: (x, lib.cast(x, lib.float32) / 2), 4)
        )

    check(tf, build)

    def dropping(lib):
        return lib.data.Dataset.range(11).apply(
            lib.data.experimental.map_and_batch(
                lambda x: x * 2, 4, drop_remainder=True, num_parallel_calls=3
            )
        )

    check(tf, dropping)


def test_cache_in_memory_and_file(tf, tmp_path):
    check(tf, lambda lib: lib.data.Dataset.range(5).map(lambda x: x * 7).cache().repeat(3))
    for sub in ("tf", "ff"):
        os.makedirs(tmp_path / sub)
    check(
        tf,
        lambda lib: (
            lib.data.Dataset.range(6)
            .cache(str(tmp_path / ("ff" if lib is ff else "tf") / "cache"))
            .repeat(2)
        ),
    )


def test_file_cache_is_reused(tmp_path):
    """A later program reads the cache file, not its (here different) input."""
    path = str(tmp_path / "c")
    for offset in (1, 100):
        with ff.Graph().as_default():
            ds = ff.data.Dataset.range(4).map(lambda x, k=offset: x + k).cache(path)
            nxt = ds.make_one_shot_iterator().get_next()
            with ff.Session() as sess:
                assert [sess.run(nxt) for _ in range(4)] == [1, 2, 3, 4]
                with pytest.raises(ff.errors.OutOfRangeError):
                    sess.run(nxt)
    assert os.path.exists(path + ".ffcache")


def test_prefetch(tf):
    check(tf, lambda lib: lib.data.Dataset.range(100).map(lambda x: x * 2).prefetch(4))
    check(
        tf, lambda lib: lib.data.Dataset.range(10).prefetch(lib.data.experimental.AUTOTUNE).batch(3)
    )


def test_from_generator(tf):
    def gen():
        for i in range(4):
            yield i, [float(i)] * i

    def build(lib):
        return lib.data.Dataset.from_generator(gen, (lib.int64, lib.float32), ([], [None]))

    check(tf, build)
    check(tf, lambda lib: build(lib).repeat(2))

    def with_args(lib):
        return lib.data.Dataset.from_generator(
            lambda n: iter(range(int(n))), lib.int32, [], args=(lib.constant(3),)
        )

    check(tf, with_args)


def test_options_accepted(tf):
    def build(lib):
        options = lib.data.Options()
        options.experimental_deterministic = True
        return lib.data.Dataset.range(4).with_options(options)

    check(tf, build)


# ---- readers ----


def _records(n, tag):
    return [f"{tag}-record-{i}".encode() * (i % 3 + 1) for i in range(n)]


@pytest.mark.parametrize("compression", [None, "ZLIB", "GZIP"])
def test_tfrecord_dataset(tf, tmp_path, compression):
    files = []
    for k in range(3):
        path = str(tmp_path / f"f{k}.tfrecord")
        options = tf.python_io.TFRecordOptions(
            getattr(tf.python_io.TFRecordCompressionType, compression or "NONE")
        )
        with tf.python_io.TFRecordWriter(path, options) as w:
            for r in _records(4 + k, k):
                w.write(r)
        files.append(path)
    check(tf, lambda lib: lib.data.TFRecordDataset(files, compression_type=compression))
    check(tf, lambda lib: lib.data.TFRecordDataset(files, compression, num_parallel_reads=2))


def test_text_line_dataset(tf, tmp_path):
    contents = [
        b"a\nb\n\nc\n",
        b"a\r\nb\r\n\r\nc\r\n",
        b"a\nb",
        b"x\r\r\ny\r",
        b"x\ry\n\rz\n",
        b"",
        b"\n",
    ]
    files = []
    for i, c in enumerate(contents):
        path = tmp_path / f"t{i}.txt"
        path.write_bytes(c)
        files.append(str(path))
    check(tf, lambda lib: lib.data.TextLineDataset(files))
    gz = tmp_path / "t.gz"
    gz.write_bytes(gzip.compress(b"one\ntwo\nthree"))
    zl = tmp_path / "t.z"
    zl.write_bytes(zlib.compress(b"four\nfive\n"))
    check(tf, lambda lib: lib.data.TextLineDataset(str(gz), compression_type="GZIP"))
    check(tf, lambda lib: lib.data.TextLineDataset([str(zl)], compression_type="ZLIB"))


def test_fixed_length_record_dataset(tf, tmp_path):
    path = tmp_path / "r.bin"
    path.write_bytes(bytes(range(23)))
    check(
        tf,
        lambda lib: lib.data.FixedLengthRecordDataset(str(path), 4, header_bytes=1, footer_bytes=2),
    )
    check(tf, lambda lib: lib.data.FixedLengthRecordDataset([str(path)] * 2, 23))
    gz = tmp_path / "r.gz"
    gz.write_bytes(gzip.compress(bytes(range(40))))
    check(
        tf,
        lambda lib: lib.data.FixedLengthRecordDataset(
            str(gz), 5, header_bytes=3, footer_bytes=2, compression_type="GZIP"
        ),
    )


def test_list_files(tf, tmp_path):
    for i in range(5):
        (tmp_path / f"part-{i}.txt").write_bytes(b"x")
    pattern = str(tmp_path / "part-*.txt")
    check(tf, lambda lib: lib.data.Dataset.list_files(pattern, shuffle=False))
    check(tf, lambda lib: lib.data.Dataset.list_files(pattern, seed=4), ordered=False)


@pytest.mark.filterwarnings("ignore:Seed .* from outer graph:UserWarning")
@pytest.mark.parametrize("graph_seed,op_seed", [(None, 5), (3, 5), (3, None)])
def test_random_ops_in_functions_draw_tf_values(tf, graph_seed, op_seed):
    def build(lib):
        if graph_seed is not None:
            lib.set_random_seed(graph_seed)
        return lib.data.Dataset.range(5).map(
            lambda x: lib.cast(x, lib.float32) + lib.random_uniform([], seed=op_seed)
        )

    check(tf, build, initializable=False)


# ---- sparse tensors ----


def _sparse(lib):
    return lib.SparseTensor(
        indices=[[0, 0], [0, 3], [2, 1], [3, 2], [3, 3]],
        values=np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32),
        dense_shape=[4, 5],
    )


def _sparse_values(lib, ds):
    """The elements as (indices, values, dense_shape) lists (SparseTensorValues differ)."""
    return ds.map(
        lambda st, *rest: (
            (st.indices, st.values, st.dense_shape, *rest)
            if isinstance(st, lib.SparseTensor)
            else st
        )
    )


def test_sparse_from_tensor_slices_and_batch(tf):
    def slices(lib):
        ds = lib.data.Dataset.from_tensor_slices((_sparse(lib), np.arange(4)))
        assert lib.data.get_output_classes(ds)[0] is lib.SparseTensor
        return _sparse_values(lib, ds)

    check(tf, slices)

    def batched(lib):
        ds = lib.data.Dataset.from_tensor_slices(_sparse(lib)).batch(3)
        return ds.map(lambda st: (st.indices, st.values, st.dense_shape))

    check(tf, batched)

    def mapped(lib):
        ds = lib.data.Dataset.from_tensors(_sparse(lib)).map(
            lambda st: lib.SparseTensor(st.indices, st.values * 2.0, st.dense_shape)
        )
        return ds.repeat(2).batch(2).map(lambda st: (st.indices, st.values, st.dense_shape))

    check(tf, mapped)


def test_sparse_get_next_returns_sparse_tensor_value():
    with ff.Graph().as_default():
        ds = ff.data.Dataset.from_tensor_slices(_sparse(ff))
        st = ds.make_one_shot_iterator().get_next()
        assert isinstance(st, ff.SparseTensor)
        with ff.Session() as sess:
            value = sess.run(st)
        assert value.indices.tolist() == [[0], [3]]
        assert value.values.tolist() == [1.0, 2.0]
        assert value.dense_shape.tolist() == [5]


# ---- window ----


@pytest.mark.parametrize(
    "size,shift,stride,drop",
    [(3, None, 1, False), (3, 1, 1, False), (3, 2, 2, True), (2, 4, 1, False), (4, 1, 3, False)],
)
def test_window_then_flat_map(tf, size, shift, stride, drop):
    def build(lib):
        ds = lib.data.Dataset.range(11).window(
            size, shift=shift, stride=stride, drop_remainder=drop
        )
        return ds.flat_map(lambda w: w.batch(size))

    check(tf, build)


def test_window_of_tuples(tf):
    def build(lib):
        ds = lib.data.Dataset.range(7)
        ds = lib.data.Dataset.zip((ds, ds.map(lambda x: lib.cast(x, lib.float32) * 2.0)))
        return ds.window(3, shift=2).flat_map(
            lambda a, b: lib.data.Dataset.zip((a.batch(3), b.batch(3)))
        )

    check(tf, build)
