"""Clipping against TensorFlow: values, gradients, op names, None and IndexedSlices."""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf
from tests.gradcheck import check_against_tf

import ferroflow as ff

X = np.array([[3.0, -4.0, 0.5], [0.0, 0.0, 0.0], [1.0, 2.0, -2.0]])

CASES = {
    "clip_by_value": lambda m, t: m.clip_by_value(t, -1.5, 2.0),
    "clip_by_norm": lambda m, t: m.clip_by_norm(t, 2.0),
    "clip_by_norm_rows": lambda m, t: m.clip_by_norm(t, 2.0, axes=[1]),
    "clip_by_norm_tensor": lambda m, t: m.clip_by_norm(t, m.constant(2.0, m.float64)),
    # TF computes the element count in float32: the input must be float32.
    "clip_by_average_norm": lambda m, t: m.clip_by_average_norm(t, 0.5),
    "global_norm": lambda m, t: m.global_norm([t, None, t * 2.0]),
    "clip_by_global_norm": lambda m, t: m.stack(m.clip_by_global_norm([t, t * 3.0], 4.0)[0]),
}


@pytest.mark.tf_oracle
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dynamic", [False, True])
def test_clipping_and_gradients_match_tensorflow(tf1, name, dynamic):
    x = X.astype(np.float32) if name == "clip_by_average_norm" else X
    check_against_tf(tf1, CASES[name], [x], dynamic=dynamic)


@pytest.mark.tf_oracle
def test_clip_by_global_norm_with_none_sparse_and_names(tf1):
    def build(m):
        emb = m.Variable(np.arange(12.0).reshape(4, 3), name="emb")
        w = m.Variable(np.ones((2, 2)), name="w")
        loss = m.reduce_sum(m.gather(emb, [1, 3, 1])) + 0.0 * m.reduce_sum(w)
        grads = [*m.gradients(loss, [emb, w]), None]
        clipped, norm = m.clip_by_global_norm(grads, 2.0)
        assert clipped[2] is None and isinstance(clipped[0], m.IndexedSlices)
        names = [c.values.name if hasattr(c, "values") else c.name for c in clipped[:2]]
        return [m.convert_to_tensor(clipped[0]), clipped[1], norm], names

    got = run_ff(lambda m: build(m)[0])
    want = run_tf(tf1, lambda m: build(m)[0])
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    with tf1.Graph().as_default():
        tf_names = build(tf1)[1]
    with ff.Graph().as_default():
        ff_names = build(ff)[1]
    assert ff_names == tf_names


def test_non_finite_norm_gives_nan_and_bad_lists_raise():
    values = run_ff(lambda m: m.clip_by_global_norm([m.constant([np.inf, 1.0])], 1.0)[0][0])
    assert np.isnan(values).all()
    with pytest.raises(TypeError, match="sequence"):
        ff.global_norm(ff.constant([1.0]))
    with pytest.raises(ValueError):
        ff.clip_by_value(ff.constant([1.0, 2.0]), [[0.0], [1.0]], 3.0)
