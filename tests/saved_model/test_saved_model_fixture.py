"""A SavedModel TensorFlow wrote (`tests/fixtures/saved_model/tf_vocab`, made by its
script): a vocabulary asset feeding a lookup table, variables and a signature. It
loads and serves the outputs TensorFlow recorded, without TensorFlow installed."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np

import ferroflow as ff

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "saved_model", "tf_vocab")


def test_tf_saved_model_with_a_vocabulary_asset_serves_tfs_outputs(tmp_path):
    # A copy elsewhere: the table must read the asset where the model now is.
    export = tmp_path / "model"
    shutil.copytree(os.path.join(FIXTURE, "1"), export)
    with open(os.path.join(FIXTURE, "expected.json")) as f:
        expected = json.load(f)
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        meta = ff.saved_model.loader.load(sess, [ff.saved_model.tag_constants.SERVING], str(export))
        sig = meta.signature_def["serving_default"]
        words = ff.saved_model.utils.get_tensor_from_tensor_info(sig.inputs["words"])
        out = {
            k: ff.saved_model.utils.get_tensor_from_tensor_info(sig.outputs[k])
            for k in ("ids", "score")
        }
        got = sess.run(out, {words: expected["words"]})
    np.testing.assert_array_equal(got["ids"], expected["ids"])
    np.testing.assert_allclose(got["score"], expected["score"], rtol=0, atol=0)
    # The graph names the vocabulary where TF's script wrote it (a temporary directory
    # long gone): the right ids show the loader fed the export's copy to the table.
