"""`tf.saved_model` (TF 1.x): SavedModels written by a builder and loaded into a Session.

A SavedModel is a directory TensorFlow Serving and TensorFlow itself load: one or
more tagged meta graphs (`saved_model.pb`), the variables' checkpoint
(`variables/`) and asset files (`assets/`)::

    import ferroflow as tf

    tf.saved_model.simple_save(sess, export_dir, inputs={"x": x}, outputs={"y": y})

    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.SERVING], export_dir)
        signature = meta.signature_def["serving_default"]
        y = sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: x_value})

The names are TF 1.15's: the submodules `builder`, `loader`, `utils`,
`signature_def_utils`, `main_op`, `constants`, `tag_constants` and
`signature_constants`, and the same functions and constants at this level.
"""

from . import (
    builder,
    constants,
    loader,
    main_op,
    signature_constants,
    signature_def_utils,
    tag_constants,
    utils,
)
from .constants import (
    ASSETS_DIRECTORY,
    ASSETS_KEY,
    DEBUG_DIRECTORY,
    DEBUG_INFO_FILENAME_PB,
    LEGACY_INIT_OP_KEY,
    MAIN_OP_KEY,
    SAVED_MODEL_FILENAME_PB,
    SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION,
    VARIABLES_DIRECTORY,
    VARIABLES_FILENAME,
)
from .loader import load, maybe_saved_model_directory
from .main_op import main_op_with_restore
from .signature_constants import (
    CLASSIFY_INPUTS,
    CLASSIFY_METHOD_NAME,
    CLASSIFY_OUTPUT_CLASSES,
    CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    PREDICT_INPUTS,
    PREDICT_METHOD_NAME,
    PREDICT_OUTPUTS,
    REGRESS_INPUTS,
    REGRESS_METHOD_NAME,
    REGRESS_OUTPUTS,
)
from .signature_def_utils import (
    build_signature_def,
    classification_signature_def,
    is_valid_signature,
    predict_signature_def,
    regression_signature_def,
)
from .simple_save import simple_save
from .tag_constants import GPU, SERVING, TPU, TRAINING
from .utils import build_tensor_info, get_tensor_from_tensor_info

Builder = builder.SavedModelBuilder
"""`tf.saved_model.Builder`: TF's other name of `SavedModelBuilder`."""


def contains_saved_model(export_dir) -> bool:
    """Whether `export_dir` holds a SavedModel file (`loader.maybe_saved_model_directory`).

    Args:
        export_dir: The directory (a string or a path-like object).
    """
    return maybe_saved_model_directory(export_dir)


__all__ = [
    "ASSETS_DIRECTORY",
    "ASSETS_KEY",
    "Builder",
    "CLASSIFY_INPUTS",
    "CLASSIFY_METHOD_NAME",
    "CLASSIFY_OUTPUT_CLASSES",
    "CLASSIFY_OUTPUT_SCORES",
    "DEBUG_DIRECTORY",
    "DEBUG_INFO_FILENAME_PB",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "GPU",
    "LEGACY_INIT_OP_KEY",
    "MAIN_OP_KEY",
    "PREDICT_INPUTS",
    "PREDICT_METHOD_NAME",
    "PREDICT_OUTPUTS",
    "REGRESS_INPUTS",
    "REGRESS_METHOD_NAME",
    "REGRESS_OUTPUTS",
    "SAVED_MODEL_FILENAME_PB",
    "SAVED_MODEL_FILENAME_PBTXT",
    "SAVED_MODEL_SCHEMA_VERSION",
    "SERVING",
    "TPU",
    "TRAINING",
    "VARIABLES_DIRECTORY",
    "VARIABLES_FILENAME",
    "build_signature_def",
    "build_tensor_info",
    "builder",
    "classification_signature_def",
    "constants",
    "contains_saved_model",
    "get_tensor_from_tensor_info",
    "is_valid_signature",
    "load",
    "loader",
    "main_op",
    "main_op_with_restore",
    "maybe_saved_model_directory",
    "predict_signature_def",
    "regression_signature_def",
    "signature_constants",
    "signature_def_utils",
    "simple_save",
    "tag_constants",
    "utils",
]
