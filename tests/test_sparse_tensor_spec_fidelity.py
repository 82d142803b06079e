"""`SparseTensorSpec`'s flat (boxed) tensor specs, against TF's."""

import pytest

import ferroflow as ff
from ferroflow.framework import sparse_tensor


@pytest.mark.parametrize("kwargs", [{"dtype": "string"}, {"shape": [5, None, None]}, {}])
def test_flat_tensor_specs_are_one_variant_of_unknown_shape(tf1, kwargs):
    from tensorflow.python.framework import sparse_tensor as tf_sparse_tensor

    ours = sparse_tensor.SparseTensorSpec(**kwargs)._flat_tensor_specs
    theirs = tf_sparse_tensor.SparseTensorSpec(**kwargs)._flat_tensor_specs
    assert [(s.shape.dims, s.dtype.name) for s in ours] == [
        (s.shape.dims, s.dtype.name) for s in theirs
    ]
    assert ours == [ff.TensorSpec(None, ff.variant)]
