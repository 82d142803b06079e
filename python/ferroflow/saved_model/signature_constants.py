"""Keys and method names of `SignatureDef`s (TF's `tf.saved_model.signature_constants`)."""

__all__ = [
    "CLASSIFY_INPUTS",
    "CLASSIFY_METHOD_NAME",
    "CLASSIFY_OUTPUT_CLASSES",
    "CLASSIFY_OUTPUT_SCORES",
    "DEFAULT_EVAL_SIGNATURE_DEF_KEY",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "DEFAULT_TRAIN_SIGNATURE_DEF_KEY",
    "PREDICT_INPUTS",
    "PREDICT_METHOD_NAME",
    "PREDICT_OUTPUTS",
    "REGRESS_INPUTS",
    "REGRESS_METHOD_NAME",
    "REGRESS_OUTPUTS",
    "SUPERVISED_EVAL_METHOD_NAME",
    "SUPERVISED_TRAIN_METHOD_NAME",
]

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
"""The key of the signature TensorFlow Serving uses when none is named."""

CLASSIFY_INPUTS = "inputs"
"""The input key of a classification signature."""

CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
"""The method name of a classification signature."""

CLASSIFY_OUTPUT_CLASSES = "classes"
"""The output key of the classes of a classification signature."""

CLASSIFY_OUTPUT_SCORES = "scores"
"""The output key of the scores of a classification signature."""

PREDICT_INPUTS = "inputs"
"""The conventional input key of a predict signature."""

PREDICT_METHOD_NAME = "tensorflow/serving/predict"
"""The method name of a predict signature."""

PREDICT_OUTPUTS = "outputs"
"""The conventional output key of a predict signature."""

REGRESS_INPUTS = "inputs"
"""The input key of a regression signature."""

REGRESS_METHOD_NAME = "tensorflow/serving/regress"
"""The method name of a regression signature."""

REGRESS_OUTPUTS = "outputs"
"""The output key of a regression signature."""

DEFAULT_TRAIN_SIGNATURE_DEF_KEY = "train"
"""The key of a training signature."""

DEFAULT_EVAL_SIGNATURE_DEF_KEY = "eval"
"""The key of an evaluation signature."""

SUPERVISED_TRAIN_METHOD_NAME = "tensorflow/supervised/training"
"""The method name of a supervised training signature."""

SUPERVISED_EVAL_METHOD_NAME = "tensorflow/supervised/eval"
"""The method name of a supervised evaluation signature."""
