"""Loading a SavedModel into a Session (TF-1.x's `tf.saved_model.loader`).

`load` parses `saved_model.pb` (or `.pbtxt`), picks the meta graph whose tags equal
the given ones, imports it into the session's graph, restores the variables from
`variables/variables` and runs the main op (or legacy init op) with each asset
tensor fed the absolute path of its file under `assets/`. It reads SavedModels
written by TensorFlow's `SavedModelBuilder` and `simple_save` as well as ferroflow's.
"""

from __future__ import annotations

import logging
import os

from google.protobuf import descriptor_pb2, descriptor_pool, message, message_factory, text_format

from .. import _ferroflow
from ..framework import ops
from ..protos import AssetFileDef, SavedModel
from ..train import saver as tf_saver
from . import constants, signature_def_utils

__all__ = [
    "SavedModelLoader",
    "get_asset_tensors",
    "get_init_op",
    "get_train_op",
    "load",
    "maybe_saved_model_directory",
    "parse_saved_model",
]

_log = logging.getLogger(__name__)


def _path_str(path) -> str:
    """A path (str, bytes or path-like) as str."""
    return os.fsdecode(os.fspath(path))


def parse_saved_model(export_dir) -> SavedModel:
    """The `SavedModel` proto of `export_dir` (`saved_model.pb`, else `saved_model.pbtxt`).

    Raises:
        IOError: Neither file exists, or the one read cannot be parsed.
    """
    export_dir = _path_str(export_dir)
    # TF builds these paths as bytes, and its messages show them so.
    path_to_pbtxt = os.fsencode(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT))
    path_to_pb = os.fsencode(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB))
    saved_model = SavedModel()
    if os.path.isfile(path_to_pb):
        with open(path_to_pb, "rb") as f:
            file_content = f.read()
        try:
            saved_model.ParseFromString(file_content)
        except message.DecodeError as e:
            raise OSError(f"Cannot parse file {path_to_pb!r}: {e!s}.") from e
    elif os.path.isfile(path_to_pbtxt):
        with open(path_to_pbtxt, "rb") as f:
            file_content = f.read()
        try:
            saved_model = _parse_text(file_content.decode("utf-8"))
        except text_format.ParseError as e:
            raise OSError(f"Cannot parse file {path_to_pbtxt!r}: {e!s}.") from e
    else:
        raise OSError(
            f"SavedModel file does not exist at: {export_dir}{os.path.sep}"
            f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|"
            f"{constants.SAVED_MODEL_FILENAME_PB}}}"
        )
    return saved_model


# TF-1.x's builder lists its assets in the collection `saved_model_assets` as `Any`
# protos (`CollectionDef.any_list`, field 5), which ferroflow's `CollectionDef` does
# not declare. A binary file keeps the field as an unknown field; a text file names
# it. Both are read through a private copy of ferroflow's descriptors whose
# `CollectionDef` declares `any_list` (an `Any` being its type URL and bytes).
_READER_POOL = None


def _reader_class(name):
    """The class of message `name` in the private pool that declares `any_list`."""
    global _READER_POOL
    if _READER_POOL is None:
        field = descriptor_pb2.FieldDescriptorProto
        fds = descriptor_pb2.FileDescriptorSet.FromString(_ferroflow.FILE_DESCRIPTOR_SET)
        pool = descriptor_pool.DescriptorPool()
        for file in fds.file:
            for collection_def in file.message_type:
                if file.package == "ferroflow.proto" and collection_def.name == "CollectionDef":
                    any_type = collection_def.nested_type.add(name="Any")
                    any_type.field.add(
                        name="type_url",
                        number=1,
                        type=field.TYPE_STRING,
                        label=field.LABEL_OPTIONAL,
                    )
                    any_type.field.add(
                        name="value", number=2, type=field.TYPE_BYTES, label=field.LABEL_OPTIONAL
                    )
                    any_list = collection_def.nested_type.add(name="AnyList")
                    any_list.field.add(
                        name="value",
                        number=1,
                        type=field.TYPE_MESSAGE,
                        label=field.LABEL_REPEATED,
                        type_name=".ferroflow.proto.CollectionDef.Any",
                    )
                    collection_def.field.add(
                        name="any_list",
                        number=5,
                        type=field.TYPE_MESSAGE,
                        label=field.LABEL_OPTIONAL,
                        type_name=".ferroflow.proto.CollectionDef.AnyList",
                        oneof_index=0,
                    )
            pool.Add(file)
        _READER_POOL = pool
    return message_factory.GetMessageClass(
        _READER_POOL.FindMessageTypeByName("ferroflow.proto." + name)
    )


def _asset_protos_from_collection(collection_def) -> list:
    """The `AssetFileDef`s packed in a TF-1.x `saved_model_assets` collection."""
    reader = _reader_class("CollectionDef").FromString(collection_def.SerializeToString())
    return [
        AssetFileDef.FromString(any_proto.value)
        for any_proto in reader.any_list.value
        if any_proto.type_url.rpartition("/")[2].endswith("AssetFileDef")
    ]


def _parse_text(text: str) -> SavedModel:
    """A `SavedModel` from its text format.

    Parsed with `any_list` declared (then converted, so that it stays an unknown
    field). Fields of TensorFlow's protos that ferroflow's do not model (as
    `OpDef.ArgDef.experimental_full_type` in TF's stripped op lists) are skipped, as
    the binary format skips them, with a warning.

    Raises:
        google.protobuf.text_format.ParseError: The text is malformed.
    """
    reader = _reader_class("SavedModel")()
    try:
        text_format.Parse(text, reader)
    except text_format.ParseError as e:
        if "has no field named" not in str(e):
            raise
        _log.warning("Skipping the fields ferroflow's protos do not model (first: %s)", e)
        reader = _reader_class("SavedModel")()
        text_format.Parse(text, reader, allow_unknown_field=True)
    return SavedModel.FromString(reader.SerializeToString())


def _saved_model_text(saved_model) -> str:
    """The text format of a `SavedModel`, TF-1.x asset collections included."""
    return str(_reader_class("SavedModel").FromString(saved_model.SerializeToString()))


def get_asset_tensors(export_dir, meta_graph_def_to_load, import_scope=None) -> dict:
    """The asset tensors of a meta graph, by name, with the paths of their files.

    The meta graph's `asset_file_def` (or else TF-1.x's `saved_model_assets`
    collection) names each asset tensor and its file under `export_dir/assets`.

    Args:
        export_dir: The SavedModel directory.
        meta_graph_def_to_load: The `MetaGraphDef`.
        import_scope: A name scope to prepend to the tensor names.

    Returns:
        A dict from tensor names to absolute file paths (bytes, as TF's).
    """
    collection_def = meta_graph_def_to_load.collection_def
    asset_protos: list = []
    if meta_graph_def_to_load.asset_file_def:
        asset_protos = list(meta_graph_def_to_load.asset_file_def)
    elif constants.ASSETS_KEY in collection_def:
        asset_protos = _asset_protos_from_collection(collection_def[constants.ASSETS_KEY])
    assets_directory = os.path.join(os.fsencode(export_dir), constants.ASSETS_DIRECTORY.encode())
    asset_tensor_dict = {}
    for asset_proto in asset_protos:
        tensor_name = asset_proto.tensor_info.name
        if import_scope:
            tensor_name = f"{import_scope}/{tensor_name}"
        asset_tensor_dict[tensor_name] = os.path.join(
            assets_directory, asset_proto.filename.encode()
        )
    return asset_tensor_dict


def _get_op_from_collection(meta_graph_def, op_key, import_scope=None):
    """The op in the collection `op_key` of the imported meta graph, or None.

    Raises:
        RuntimeError: The collection holds other than exactly one op.
    """
    collection_def = meta_graph_def.collection_def
    if op_key not in collection_def:
        return None
    op_list = collection_def[op_key].node_list.value
    if len(op_list) != 1:
        raise RuntimeError(
            f"Expected exactly one SavedModel init op. Found {len(op_list)}: {op_list}."
        )
    # By name rather than TF's `get_collection(key)[0]`: the same collection of a graph
    # holding an earlier import would give that import's op.
    return ops.get_default_graph().as_graph_element(
        ops.prepend_name_scope(op_list[0], import_scope)
    )


def _get_op_from_signature_def(meta_graph_def, op_signature_key, import_scope):
    if op_signature_key in meta_graph_def.signature_def:
        return signature_def_utils.load_op_from_signature_def(
            meta_graph_def.signature_def[op_signature_key], op_signature_key, import_scope
        )
    return None


def get_init_op(meta_graph_def, import_scope=None):
    """The init op of an imported meta graph, or None.

    TF 2's signature `__saved_model_init_op` first, then the main op collection, then
    the legacy init op collection.
    """
    return (
        _get_op_from_signature_def(meta_graph_def, constants.INIT_OP_SIGNATURE_KEY, import_scope)
        or _get_op_from_collection(meta_graph_def, constants.MAIN_OP_KEY, import_scope)
        or _get_op_from_collection(meta_graph_def, constants.LEGACY_INIT_OP_KEY, import_scope)
    )


def get_train_op(meta_graph_def, import_scope=None):
    """The train op of an imported meta graph (signature, then collection), or None."""
    train_op = _get_op_from_signature_def(
        meta_graph_def, constants.TRAIN_OP_SIGNATURE_KEY, import_scope
    )
    if train_op is None:
        train_op = _get_op_from_collection(meta_graph_def, constants.TRAIN_OP_KEY, import_scope)
    return train_op


def maybe_saved_model_directory(export_dir) -> bool:
    """Whether `export_dir` holds a `saved_model.pb` or `saved_model.pbtxt`.

    True does not promise that the SavedModel loads; False means there is none.
    """
    export_dir = _path_str(export_dir)
    txt_path = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    pb_path = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    return os.path.exists(txt_path) or os.path.exists(pb_path)


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the meta graph of `export_dir` tagged `tags` into `sess` and restores it.

    Args:
        sess: The session to load into (its graph receives the meta graph).
        tags: The tags of the meta graph (compared as a set).
        export_dir: The SavedModel directory.
        import_scope: A name scope to import the graph under (the returned
            `MetaGraphDef` keeps the names as saved).
        **saver_kwargs: Passed to `tf.train.import_meta_graph`.

    Returns:
        The `MetaGraphDef` loaded.

    Raises:
        IOError: The SavedModel file is missing or cannot be parsed.
        RuntimeError: No meta graph has these tags.
        ValueError: The graph has variables but `variables/` holds no checkpoint.
    """
    return SavedModelLoader(export_dir).load(sess, tags, import_scope, **saver_kwargs)


class SavedModelLoader:
    """Loads graphs and restores variable values from a SavedModel.

    Args:
        export_dir: The SavedModel directory.

    Raises:
        IOError: The SavedModel file is missing or cannot be parsed.
    """

    def __init__(self, export_dir):
        self._export_dir = export_dir
        self._variables_path = os.path.join(
            _path_str(export_dir), constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME
        )
        self._saved_model = parse_saved_model(export_dir)

    @property
    def export_dir(self):
        """The SavedModel directory."""
        return self._export_dir

    @property
    def variables_path(self) -> str:
        """The checkpoint prefix of the variables (`<export_dir>/variables/variables`)."""
        return self._variables_path

    @property
    def saved_model(self) -> SavedModel:
        """The `SavedModel` proto read from the export directory."""
        return self._saved_model

    def get_meta_graph_def_from_tags(self, tags):
        """The `MetaGraphDef` whose tags equal `tags` (as sets).

        Raises:
            RuntimeError: No meta graph has these tags.
        """
        available_tags = []
        for meta_graph_def in self._saved_model.meta_graphs:
            available_tags.append(set(meta_graph_def.meta_info_def.tags))
            if set(meta_graph_def.meta_info_def.tags) == set(tags):
                return meta_graph_def
        raise RuntimeError(
            f"MetaGraphDef associated with tags {str(tags).strip('[]')} "
            "could not be found in SavedModel, with available tags "
            f"'{available_tags}'. To inspect available tag-sets in"
            " the SavedModel, please use the SavedModel CLI: `saved_model_cli`."
        )

    def load_graph(self, graph, tags, import_scope=None, **saver_kwargs):
        """Imports the meta graph tagged `tags` into `graph`.

        Returns:
            `(saver, None)`: the `Saver` of the meta graph (None when it has no
            variables) and, in TF's place for `import_graph_def`'s returned elements,
            None.
        """
        meta_graph_def = self.get_meta_graph_def_from_tags(tags)
        with graph.as_default():
            saver = tf_saver.import_meta_graph(
                meta_graph_def, import_scope=import_scope, **saver_kwargs
            )
        return saver, None

    def restore_variables(self, sess, saver, import_scope=None):
        """Restores the variables from `variables/variables` with `saver`.

        Raises:
            ValueError: `saver` is None while the graph has variables, or there is no
                checkpoint to restore.
        """
        with sess.graph.as_default():
            if saver is None and not (
                ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope=import_scope)
                + ops.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS, scope=import_scope)
            ):
                _log.info(
                    "The specified SavedModel has no variables; no checkpoints were restored."
                )
            elif isinstance(saver, tf_saver.Saver):
                saver.restore(sess, self._variables_path)
            else:
                raise ValueError(
                    "No tf.train.Saver object was passed to the function "
                    "`SavedModelLoader.restore_variables`. Since there are variables in"
                    " the graph, a saver is required."
                )

    def run_init_ops(self, sess, tags, import_scope=None):
        """Runs the init op of the meta graph (if any), feeding the asset paths."""
        meta_graph_def = self.get_meta_graph_def_from_tags(tags)
        with sess.graph.as_default():
            asset_tensors_dictionary = get_asset_tensors(
                self._export_dir, meta_graph_def, import_scope=import_scope
            )
            init_op = get_init_op(meta_graph_def, import_scope)
            if init_op is not None:
                sess.run(fetches=[init_op], feed_dict=asset_tensors_dictionary)

    def load(self, sess, tags, import_scope=None, **saver_kwargs):
        """Imports the meta graph tagged `tags`, restores its variables, runs its init op.

        Returns:
            The `MetaGraphDef` loaded.
        """
        with sess.graph.as_default():
            saver, _ = self.load_graph(sess.graph, tags, import_scope, **saver_kwargs)
            self.restore_variables(sess, saver, import_scope)
            self.run_init_ops(sess, tags, import_scope)
        return self.get_meta_graph_def_from_tags(tags)
