"""Constants of the SavedModel format: file and directory names, collection keys.

TensorFlow's `tf.saved_model.constants` (the values of its `constants.h`).
"""

__all__ = [
    "ASSETS_DIRECTORY",
    "ASSETS_KEY",
    "DEBUG_DIRECTORY",
    "DEBUG_INFO_FILENAME_PB",
    "EXTRA_ASSETS_DIRECTORY",
    "INIT_OP_SIGNATURE_KEY",
    "LEGACY_INIT_OP_KEY",
    "MAIN_OP_KEY",
    "SAVED_MODEL_FILENAME_PB",
    "SAVED_MODEL_FILENAME_PBTXT",
    "SAVED_MODEL_SCHEMA_VERSION",
    "TRAIN_OP_KEY",
    "TRAIN_OP_SIGNATURE_KEY",
    "VARIABLES_DIRECTORY",
    "VARIABLES_FILENAME",
]

ASSETS_DIRECTORY = "assets"
"""The subdirectory of the export directory holding the asset files."""

EXTRA_ASSETS_DIRECTORY = "assets.extra"
"""The subdirectory for files the loader ignores (written by users themselves)."""

ASSETS_KEY = "saved_model_assets"
"""The collection TF-1.x's builder lists its `AssetFileDef`s in (as `Any` protos)."""

DEBUG_DIRECTORY = "debug"
"""The subdirectory of the graph debug info."""

DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
"""The file name of the graph debug info."""

LEGACY_INIT_OP_KEY = "legacy_init_op"
"""The collection of the (deprecated) legacy init op, run after restoring."""

MAIN_OP_KEY = "saved_model_main_op"
"""The collection of the main op, run after restoring."""

TRAIN_OP_KEY = "saved_model_train_op"
"""The collection of the train op (never run by the loader)."""

SAVED_MODEL_SCHEMA_VERSION = 1
"""The `saved_model_schema_version` written into `SavedModel` protos."""

SAVED_MODEL_FILENAME_PB = "saved_model.pb"
"""The file name of a binary `SavedModel` proto."""

SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
"""The file name of a text-format `SavedModel` proto."""

VARIABLES_DIRECTORY = "variables"
"""The subdirectory of the export directory holding the variables' checkpoint."""

VARIABLES_FILENAME = "variables"
"""The checkpoint prefix of the variables inside `VARIABLES_DIRECTORY`."""

INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
"""The `SignatureDef` key TF 2's builder stores the init op under."""

TRAIN_OP_SIGNATURE_KEY = "__saved_model_train_op"
"""The `SignatureDef` key TF 2's builder stores the train op under."""
