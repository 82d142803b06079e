"""`simple_save`: a SavedModel for serving in one call (TF's `saved_model.simple_save`)."""

from __future__ import annotations

from ..framework import ops
from . import builder, signature_constants, signature_def_utils, tag_constants

__all__ = ["simple_save"]


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Writes a SavedModel of the session's graph for serving.

    The meta graph is tagged `serve`, with one predict signature,
    `serving_default`, of `inputs` and `outputs`; the assets are the tensors of the
    `tf.GraphKeys.ASSET_FILEPATHS` collection; device placements are cleared.

    Args:
        session: The session holding the variables' values.
        export_dir: The directory to write (created; must be empty).
        inputs: A dict from input keys to tensors.
        outputs: A dict from output keys to tensors.
        legacy_init_op: An op run after restoring when the model is loaded.
    """
    signature_def_map = {
        signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: (
            signature_def_utils.predict_signature_def(inputs, outputs)
        )
    }
    b = builder.SavedModelBuilder(export_dir)
    with session.graph.as_default():
        assets = ops.get_collection(ops.GraphKeys.ASSET_FILEPATHS)
    b.add_meta_graph_and_variables(
        session,
        tags=[tag_constants.SERVING],
        signature_def_map=signature_def_map,
        assets_collection=assets,
        main_op=legacy_init_op,
        clear_devices=True,
    )
    b.save()
