"""`complex64`/`complex128`: the dtypes, the complex-number ops, arithmetic, `MatMul`,
reductions, casts and gradients, against TensorFlow."""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff

_Z = np.array([1 + 2j, -0.5 + 1j, 2 - 1j, 0.25 - 3j])


def _assert_same(got, want, rtol=1e-6):
    for a, w in zip(got, want, strict=True):
        assert a.dtype == w.dtype
        np.testing.assert_allclose(a, w, rtol=rtol, atol=1e-7)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_ops_and_arithmetic_match_tensorflow(tf1, dtype):
    real_dtype = "float32" if dtype == "complex64" else "float64"

    def build(tf):
        re = tf.constant([1.0, -2.0, 0.5, 0.0], real_dtype)
        im = tf.constant([0.5, 3.0, -1.0, 0.0], real_dtype)
        z = tf.complex(re, im)
        w = tf.constant(_Z.astype(dtype))
        s = z * w + z / w - z
        return [
            z,
            s,
            tf.real(s),
            tf.imag(s),
            tf.abs(s),
            tf.angle(s),
            tf.conj(s),
            -s,
            tf.square(s),
            tf.add_n([s, w, z]),
            tf.reduce_sum(tf.reshape(s, [2, 2]), 1),
            tf.reduce_mean(s),
            tf.div_no_nan(w, z),
            tf.complex(re, 2.0 * tf.ones_like(im)),  # parts broadcast
            tf.zeros_like(s),
            tf.ones_like(s),
        ]

    _assert_same(run_ff(build), run_tf(tf1, build))


def test_complex_matmul_and_casts_match_tensorflow(tf1):
    def build(tf):
        a = tf.constant(np.arange(6).reshape(2, 3) * (1 - 0.5j), tf.complex64)
        b = tf.constant(np.arange(12).reshape(3, 4) * (0.25 + 1j), tf.complex64)
        x = tf.constant([1.5, -2.0, 7.0])
        return [
            tf.matmul(a, b),
            tf.matmul(b, a, transpose_a=True, transpose_b=True),
            tf.cast(a, tf.complex128),
            tf.cast(a, tf.float32),  # the real part
            tf.cast(a, tf.int32),
            tf.cast(x, tf.complex64),
            tf.cast(tf.constant([True, False]), tf.complex128),
        ]

    _assert_same(run_ff(build), run_tf(tf1, build))


def test_complex_gradients_match_tensorflow(tf1):
    # TF's gradients of products use the conjugates (`Mul`, `Div`, `MatMul`, `Square`).
    def build(tf):
        re = tf.constant([1.0, -2.0, 0.5])
        im = tf.constant([0.5, 3.0, -1.0])
        z = tf.complex(re, im)
        w = tf.constant(_Z[:3].astype(np.complex64))
        s = z * w + z / w - tf.square(z)
        m = tf.matmul(tf.reshape(z, [3, 1]), tf.reshape(w, [1, 3]))
        loss = (
            tf.reduce_sum(tf.imag(s))
            + tf.reduce_sum(tf.real(tf.square(m)))
            + tf.reduce_sum(tf.angle(z))
            + tf.reduce_sum(tf.abs(s))
            + tf.reduce_sum(tf.real(tf.conj(z) * tf.cast(re, tf.complex64)))
        )
        return tf.gradients(loss, [re, im])

    _assert_same(run_ff(build), run_tf(tf1, build), rtol=1e-5)


def test_complex_feeds_fetches_queues_and_protos():
    z = (_Z * 1.5).astype(np.complex128)
    with ff.Graph().as_default():
        p = ff.placeholder(ff.complex128, [4])
        q = ff.FIFOQueue(2, [ff.complex64, ff.complex128])
        enqueue = q.enqueue([ff.cast(p, ff.complex64), p])
        out = q.dequeue()
        c = ff.constant(2 - 1j)
        with ff.Session() as sess:
            np.testing.assert_array_equal(sess.run(ff.identity(p), {p: z}), z)
            sess.run(enqueue, {p: z})
            got64, got128 = sess.run(out)
            assert got64.dtype == np.complex64 and got128.dtype == np.complex128
            np.testing.assert_array_equal(got128, z)
            assert sess.run(c) == 2 - 1j and c.dtype == ff.complex128
    proto = ff.make_tensor_proto(z)
    assert proto.dtype == ff.complex128.as_datatype_enum
    np.testing.assert_array_equal(ff.make_ndarray(proto), z)
    assert ff.complex64.real_dtype == ff.float32 and ff.complex128.is_complex
    assert ff.as_dtype(np.complex64) == ff.complex64
    with pytest.raises(TypeError, match="real and imag have incorrect types"):
        ff.complex(ff.constant(1.0), ff.constant(1.0, ff.float64))


def test_complex_variable_saves_and_restores(tmp_path):
    z = (_Z * 0.5).astype(np.complex64)
    with ff.Graph().as_default():
        v = ff.Variable(z, name="v")
        saver = ff.train.Saver()
        with ff.Session() as sess:
            sess.run(v.initializer)
            path = saver.save(sess, str(tmp_path / "model"))
            sess.run(v.assign(ff.zeros_like(v)))
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(v), z)
    reader = ff.train.NewCheckpointReader(path)
    np.testing.assert_array_equal(reader.get_tensor("v"), z)
