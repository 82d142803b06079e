"""Tags of the meta graphs in a SavedModel (TF's `tf.saved_model.tag_constants`)."""

__all__ = ["EVAL", "GPU", "SERVING", "TPU", "TRAINING"]

SERVING = "serve"
"""The tag of a meta graph for serving."""

TRAINING = "train"
"""The tag of a meta graph for training."""

EVAL = "eval"
"""The tag of a meta graph for evaluation."""

GPU = "gpu"
"""The tag of a meta graph to run on GPUs."""

TPU = "tpu"
"""The tag of a meta graph to run on TPUs."""
