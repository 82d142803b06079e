"""`SignatureDef`s: named inputs and outputs of a meta graph (TF's `signature_def_utils`).

A signature maps keys to `TensorInfo`s (see `utils.build_tensor_info`) and names a
method; `predict_signature_def`, `classification_signature_def` and
`regression_signature_def` build the three that TensorFlow Serving serves.
"""

from __future__ import annotations

import os

from .. import _ferroflow, errors
from ..framework import dtypes, ops
from ..protos import SignatureDef
from . import constants, signature_constants, utils

__all__ = [
    "MethodNameUpdater",
    "build_signature_def",
    "classification_signature_def",
    "is_valid_signature",
    "load_op_from_signature_def",
    "op_signature_def",
    "predict_signature_def",
    "regression_signature_def",
    "supervised_eval_signature_def",
    "supervised_train_signature_def",
]

_DT_STRING = dtypes.string.as_datatype_enum
_DT_FLOAT = dtypes.float32.as_datatype_enum


def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None) -> SignatureDef:
    """A `SignatureDef` from its parts.

    Args:
        inputs: A dict from input keys to `TensorInfo`s.
        outputs: A dict from output keys to `TensorInfo`s.
        method_name: The method name (a string).
        defaults: A dict from input keys to constant tensors, whose values become the
            signature's `defaults`.

    Returns:
        The `SignatureDef` protocol buffer.

    Raises:
        ValueError: A default is not the output of a `Const` op.
    """
    signature_def = SignatureDef()
    if inputs is not None:
        for item in inputs:
            signature_def.inputs[item].CopyFrom(inputs[item])
    if outputs is not None:
        for item in outputs:
            signature_def.outputs[item].CopyFrom(outputs[item])
    if method_name is not None:
        signature_def.method_name = method_name
    if defaults is not None:
        for arg_name, default in defaults.items():
            if default.op.type == "Const":
                signature_def.defaults[arg_name].CopyFrom(default.op.node_def.attr["value"].tensor)
            else:
                raise ValueError(
                    f"Unable to convert object {default!s} of type {type(default)} to TensorProto."
                )
    return signature_def


def regression_signature_def(examples, predictions) -> SignatureDef:
    """A regression signature (TensorFlow Serving's Regress API).

    Args:
        examples: A string `Tensor` of serialized `tf.Example`s.
        predictions: A float `Tensor`.

    Returns:
        The `SignatureDef`.

    Raises:
        ValueError: An argument is None, or of the wrong type or dtype.
    """
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if not isinstance(examples, ops.Tensor):
        raise ValueError(
            "Expected regression `examples` to be of type Tensor. "
            f"Found `examples` of type {type(examples)}."
        )
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    input_tensor_info = utils.build_tensor_info(examples)
    if input_tensor_info.dtype != _DT_STRING:
        raise ValueError(
            "Regression input tensors must be of type string. "
            f"Found tensors with type {input_tensor_info.dtype}."
        )
    signature_inputs = {signature_constants.REGRESS_INPUTS: input_tensor_info}
    output_tensor_info = utils.build_tensor_info(predictions)
    if output_tensor_info.dtype != _DT_FLOAT:
        raise ValueError(
            "Regression output tensors must be of type float. "
            f"Found tensors with type {output_tensor_info.dtype}."
        )
    signature_outputs = {signature_constants.REGRESS_OUTPUTS: output_tensor_info}
    return build_signature_def(
        signature_inputs, signature_outputs, signature_constants.REGRESS_METHOD_NAME
    )


def classification_signature_def(examples, classes, scores) -> SignatureDef:
    """A classification signature (TensorFlow Serving's Classify API).

    Args:
        examples: A string `Tensor` of serialized `tf.Example`s.
        classes: A string `Tensor` of class labels, or None.
        scores: A float `Tensor` of scores, or None (not both None).

    Returns:
        The `SignatureDef`.

    Raises:
        ValueError: `examples` is None or not a string tensor, both outputs are None,
            or an output has the wrong dtype.
    """
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if not isinstance(examples, ops.Tensor):
        raise ValueError(
            "Classification `examples` must be a string Tensor. "
            f"Found `examples` of type {type(examples)}."
        )
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    input_tensor_info = utils.build_tensor_info(examples)
    if input_tensor_info.dtype != _DT_STRING:
        raise ValueError(
            "Classification input tensors must be of type string. "
            f"Found tensors of type {input_tensor_info.dtype}"
        )
    signature_inputs = {signature_constants.CLASSIFY_INPUTS: input_tensor_info}
    signature_outputs = {}
    if classes is not None:
        classes_tensor_info = utils.build_tensor_info(classes)
        if classes_tensor_info.dtype != _DT_STRING:
            raise ValueError(
                "Classification classes must be of type string Tensor. "
                f"Found tensors of type {classes_tensor_info.dtype}.`"
            )
        signature_outputs[signature_constants.CLASSIFY_OUTPUT_CLASSES] = classes_tensor_info
    if scores is not None:
        scores_tensor_info = utils.build_tensor_info(scores)
        if scores_tensor_info.dtype != _DT_FLOAT:
            raise ValueError("Classification scores must be a float Tensor.")
        signature_outputs[signature_constants.CLASSIFY_OUTPUT_SCORES] = scores_tensor_info
    return build_signature_def(
        signature_inputs, signature_outputs, signature_constants.CLASSIFY_METHOD_NAME
    )


def predict_signature_def(inputs, outputs) -> SignatureDef:
    """A predict signature (TensorFlow Serving's Predict API): any inputs and outputs.

    Args:
        inputs: A dict from keys to `Tensor`s.
        outputs: A dict from keys to `Tensor`s.

    Returns:
        The `SignatureDef`.

    Raises:
        ValueError: `inputs` or `outputs` is None or empty.
    """
    if inputs is None or not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if outputs is None or not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    signature_inputs = {key: utils.build_tensor_info(t) for key, t in inputs.items()}
    signature_outputs = {key: utils.build_tensor_info(t) for key, t in outputs.items()}
    return build_signature_def(
        signature_inputs, signature_outputs, signature_constants.PREDICT_METHOD_NAME
    )


def supervised_train_signature_def(inputs, loss, predictions=None, metrics=None) -> SignatureDef:
    """A supervised training signature: inputs, and loss, predictions and metrics outputs."""
    return _supervised_signature_def(
        signature_constants.SUPERVISED_TRAIN_METHOD_NAME,
        inputs,
        loss=loss,
        predictions=predictions,
        metrics=metrics,
    )


def supervised_eval_signature_def(inputs, loss, predictions=None, metrics=None) -> SignatureDef:
    """A supervised evaluation signature: inputs, and loss, predictions and metrics outputs."""
    return _supervised_signature_def(
        signature_constants.SUPERVISED_EVAL_METHOD_NAME,
        inputs,
        loss=loss,
        predictions=predictions,
        metrics=metrics,
    )


def _supervised_signature_def(method_name, inputs, loss=None, predictions=None, metrics=None):
    if inputs is None or not inputs:
        raise ValueError(f"{method_name} `inputs` cannot be None or empty.")
    signature_inputs = {key: utils.build_tensor_info(t) for key, t in inputs.items()}
    signature_outputs = {}
    for output_set in (loss, predictions, metrics):
        if output_set is not None:
            signature_outputs.update(
                {key: utils.build_tensor_info(t) for key, t in output_set.items()}
            )
    return build_signature_def(signature_inputs, signature_outputs, method_name)


def is_valid_signature(signature_def) -> bool:
    """Whether TensorFlow Serving can serve `signature_def` (classify, regress or predict)."""
    if signature_def is None:
        return False
    return (
        _is_valid_classification_signature(signature_def)
        or _is_valid_regression_signature(signature_def)
        or _is_valid_predict_signature(signature_def)
    )


def _is_valid_predict_signature(signature_def) -> bool:
    if signature_def.method_name != signature_constants.PREDICT_METHOD_NAME:
        return False
    return bool(signature_def.inputs.keys()) and bool(signature_def.outputs.keys())


def _is_valid_regression_signature(signature_def) -> bool:
    if signature_def.method_name != signature_constants.REGRESS_METHOD_NAME:
        return False
    if set(signature_def.inputs.keys()) != {signature_constants.REGRESS_INPUTS}:
        return False
    if signature_def.inputs[signature_constants.REGRESS_INPUTS].dtype != _DT_STRING:
        return False
    if set(signature_def.outputs.keys()) != {signature_constants.REGRESS_OUTPUTS}:
        return False
    return signature_def.outputs[signature_constants.REGRESS_OUTPUTS].dtype == _DT_FLOAT


def _is_valid_classification_signature(signature_def) -> bool:
    if signature_def.method_name != signature_constants.CLASSIFY_METHOD_NAME:
        return False
    if set(signature_def.inputs.keys()) != {signature_constants.CLASSIFY_INPUTS}:
        return False
    if signature_def.inputs[signature_constants.CLASSIFY_INPUTS].dtype != _DT_STRING:
        return False
    allowed_outputs = {
        signature_constants.CLASSIFY_OUTPUT_CLASSES,
        signature_constants.CLASSIFY_OUTPUT_SCORES,
    }
    outputs = signature_def.outputs
    if not outputs.keys() or set(outputs.keys()) - allowed_outputs:
        return False
    classes = signature_constants.CLASSIFY_OUTPUT_CLASSES
    if classes in outputs and outputs[classes].dtype != _DT_STRING:
        return False
    scores = signature_constants.CLASSIFY_OUTPUT_SCORES
    return not (scores in outputs and outputs[scores].dtype != _DT_FLOAT)


def op_signature_def(op, key) -> SignatureDef:
    """A signature whose one output, `key`, names `op` (how TF 2's builder stores init ops)."""
    return build_signature_def(outputs={key: utils.build_tensor_info_from_op(op)})


def load_op_from_signature_def(signature_def, key, import_scope=None):
    """The op (or tensor) that the output `key` of a signature names.

    Raises:
        tf.errors.NotFoundError: It is not in the default graph.
    """
    tensor_info = signature_def.outputs[key]
    try:
        return utils.get_element_from_tensor_info(tensor_info, import_scope=import_scope)
    except KeyError:
        raise errors.NotFoundError(
            None,
            None,
            f'The key "{key}" could not be found in the graph. Please make sure the'
            " SavedModel was created by the internal _SavedModelBuilder. If you "
            "are using the public API, please make sure the SignatureDef in the "
            f'SavedModel does not contain the key "{key}".',
        ) from None


class MethodNameUpdater:
    """Replaces the method names of signatures in a SavedModel on disk.

    Example:
        ```python
        updater = tf.saved_model.signature_def_utils.MethodNameUpdater(export_dir)
        updater.replace_method_name(signature_key="foo", method_name="regress")
        updater.save(new_export_dir)
        ```

    Args:
        export_dir: The SavedModel directory.

    Raises:
        IOError: The SavedModel file is missing or cannot be parsed.
    """

    def __init__(self, export_dir):
        from . import loader

        self._export_dir = export_dir
        self._saved_model = loader.parse_saved_model(export_dir)

    def replace_method_name(self, signature_key, method_name, tags=None):
        """Sets the method name of the signature `signature_key`.

        Args:
            signature_key: The key of the signature to update.
            method_name: The new method name.
            tags: A tag or list of tags naming the one meta graph to update; None
                updates the signature in every meta graph.

        Raises:
            ValueError: A key or method name is empty, no meta graph has `tags`, or a
                matching meta graph has no signature `signature_key`.
        """
        if not signature_key:
            raise ValueError("`signature_key` must be defined.")
        if not method_name:
            raise ValueError("`method_name` must be defined.")
        if tags is not None and not isinstance(tags, list):
            tags = [tags]
        found_match = False
        for meta_graph_def in self._saved_model.meta_graphs:
            if tags is None or set(tags) == set(meta_graph_def.meta_info_def.tags):
                if signature_key not in meta_graph_def.signature_def:
                    raise ValueError(
                        f"MetaGraphDef associated with tags {tags} "
                        f"does not have a signature_def with key: '{signature_key}'. "
                        "This means either you specified the wrong signature key or "
                        "forgot to put the signature_def with the corresponding key in "
                        "your SavedModel."
                    )
                meta_graph_def.signature_def[signature_key].method_name = method_name
                found_match = True
        if not found_match:
            raise ValueError(
                f"MetaGraphDef associated with tags {tags} could not be found in "
                "SavedModel. This means either you specified invalid tags or your "
                "SavedModel does not have a MetaGraphDef with the specified tags."
            )

    def save(self, new_export_dir=None) -> str:
        """Writes the updated SavedModel (in the format it was read in).

        Args:
            new_export_dir: Where to write it; None overwrites the original.

        Returns:
            The path of the file written.
        """
        from . import loader

        export_dir = os.fsdecode(self._export_dir)
        is_text = os.path.exists(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT))
        target = os.fsdecode(new_export_dir) if new_export_dir else export_dir
        if is_text:
            path = os.path.join(target, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = loader._saved_model_text(self._saved_model).encode("utf-8")
        else:
            path = os.path.join(target, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        _ferroflow.write_file_atomically(path, data)
        return path
