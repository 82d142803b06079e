"""Writing a SavedModel (TF-1.x's `tf.saved_model.builder.SavedModelBuilder`).

The directory written is TensorFlow's layout, loadable by TensorFlow (1.x loaders,
and `tf.saved_model.load` in 2.x):

- `saved_model.pb` (or `saved_model.pbtxt`): a `SavedModel` proto with one
  `MetaGraphDef` per tag set;
- `variables/variables.index` and `variables/variables.data-00000-of-00001`: the
  variables' checkpoint (a V2 tensor bundle);
- `assets/`: copies of the asset files, named by the meta graphs' `asset_file_def`;
- `assets.extra/`: for files the loader ignores, written by users themselves.
"""

from __future__ import annotations

import filecmp
import logging
import os
import shutil

from .. import _ferroflow, errors
from ..framework import dtypes, ops
from ..protos import AssetFileDef, SavedModel, SaverDef
from ..train import saver as tf_saver
from . import constants

__all__ = ["SavedModelBuilder"]

_log = logging.getLogger(__name__)

_DT_INVALID = 0  # `DataType.DT_INVALID`


class SavedModelBuilder:
    """Builds a `SavedModel`: meta graphs sharing one set of variables and assets.

    The first meta graph is added with `add_meta_graph_and_variables`, which also
    saves the variables; later ones with `add_meta_graph`, which saves only the graph.
    Each is annotated with a distinct set of tags, by which `loader.load` picks one.
    `save` writes the `SavedModel` proto.

    Example:
        ```python
        builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
        with tf.Session(graph=tf.Graph()) as sess:
            ...
            builder.add_meta_graph_and_variables(
                sess, [tf.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": signature})
        builder.save()
        ```

    Args:
        export_dir: The directory to write (created if missing; must be empty).

    Raises:
        AssertionError: `export_dir` exists and is not empty.
    """

    def __init__(self, export_dir):
        self._saved_model = SavedModel()
        self._saved_model.saved_model_schema_version = constants.SAVED_MODEL_SCHEMA_VERSION
        self._export_dir = export_dir
        path = os.fsdecode(os.fspath(export_dir))
        if os.path.exists(path):
            if not os.path.isdir(path):
                raise errors.NotFoundError(None, None, f"Could not find directory {path}")
            if os.listdir(path):
                raise AssertionError(
                    f"Export directory {export_dir} already exists, and isn't empty. "
                    "Please choose a different export directory, or delete all the "
                    "contents of the specified directory."
                )
        else:
            os.makedirs(path)
        self._export_path = path
        # The first meta graph must come with the variables (and only the first).
        self._has_saved_variables = False
        self._saved_asset_files: set[str] = set()
        self._tag_sets: list[frozenset] = []

    # -- validation -----------------------------------------------------------------
    def _validate_tensor_info(self, tensor_info):
        if tensor_info is None:
            raise AssertionError(
                "All TensorInfo protos used in the SignatureDefs must have the name "
                "and dtype fields set."
            )
        if tensor_info.WhichOneof("encoding") is None:
            raise AssertionError(
                f"Invalid `tensor_info`: {tensor_info}. All TensorInfo protos used "
                "in the SignatureDefs must have one of the 'encoding' fields (e.g., "
                "name or coo_sparse) set."
            )
        if tensor_info.dtype == _DT_INVALID:
            raise AssertionError(
                f"Invalid `tensor_info`: {tensor_info}. All TensorInfo protos used in"
                " the SignatureDefs must have the dtype field set."
            )

    def _validate_signature_def_map(self, signature_def_map):
        for signature_def in signature_def_map.values():
            for tensor_info in signature_def.inputs.values():
                self._validate_tensor_info(tensor_info)
            for tensor_info in signature_def.outputs.values():
                self._validate_tensor_info(tensor_info)
        if constants.INIT_OP_SIGNATURE_KEY in signature_def_map:
            raise KeyError(
                f'SignatureDef map key "{constants.INIT_OP_SIGNATURE_KEY}" is '
                "reserved for initialization. Please use a different key."
            )
        if constants.TRAIN_OP_SIGNATURE_KEY in signature_def_map:
            raise KeyError(
                f'SignatureDef map key "{constants.TRAIN_OP_SIGNATURE_KEY}" is '
                "reserved for the train op. Please use a different key."
            )

    def _check_new_tag_set(self, tags):
        tag_set = frozenset(tags)
        if tag_set in self._tag_sets:
            raise AssertionError(
                f"A MetaGraphDef with tags {sorted(tag_set)} has already been added to "
                "the SavedModel. The tag sets of its meta graphs must be distinct."
            )

    # -- collections: main op, train op, assets ------------------------------------
    def _maybe_add_main_op(self, main_op):
        if main_op is None:
            return
        if not isinstance(main_op, ops.Operation):
            raise TypeError(
                f"Expected {main_op} to be an Operation but got type {type(main_op)} instead."
            )
        for init_op_key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
            if ops.get_collection(init_op_key):
                raise ValueError(
                    "Graph already contains one or more main ops under the "
                    f"collection {init_op_key}."
                )
        ops.add_to_collection(constants.MAIN_OP_KEY, main_op)

    def _add_train_op(self, train_op):
        if train_op is not None:
            if not isinstance(train_op, (ops.Tensor, ops.Operation)):
                raise TypeError(f"`train_op` {train_op} needs to be a Tensor or Op.")
            ops.add_to_collection(constants.TRAIN_OP_KEY, train_op)

    def _save_and_write_assets(self, assets_collection):
        """Adds the assets to the graph's asset collection and copies their files."""
        asset_filename_map = _maybe_save_assets(assets_collection)
        if not asset_filename_map:
            _log.info("No assets to write.")
            return
        _copy_assets_to_destination_dir(
            asset_filename_map, self._export_path, self._saved_asset_files
        )

    def _maybe_create_saver(self, saver=None):
        if not saver:
            saver = tf_saver.Saver(
                tf_saver._all_saveable_objects(),
                sharded=True,
                write_version=SaverDef.V2,
                allow_empty=True,
            )
        return saver

    def _tag_and_add_meta_graph(self, meta_graph_def, tags, signature_def_map):
        for tag in tags:
            meta_graph_def.meta_info_def.tags.append(tag)
        if signature_def_map is not None:
            for key in signature_def_map:
                meta_graph_def.signature_def[key].CopyFrom(signature_def_map[key])
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)
        self._tag_sets.append(frozenset(tags))

    # -- adding meta graphs ---------------------------------------------------------
    def add_meta_graph(
        self,
        tags,
        signature_def_map=None,
        assets_collection=None,
        legacy_init_op=None,
        clear_devices=False,
        main_op=None,
        strip_default_attrs=False,
        saver=None,
    ):
        """Adds the default graph as another meta graph (its variables are not saved).

        Args:
            tags: The meta graph's tags (a list of strings, distinct from the tags of
                the meta graphs added before).
            signature_def_map: A dict from keys to `SignatureDef`s.
            assets_collection: String constant tensors holding the paths of asset
                files (the files should be among those of the first meta graph).
            legacy_init_op: Deprecated: an op run after restoring (as `main_op`).
            clear_devices: Clear the device fields of the graph's nodes.
            main_op: An op run after restoring the variables when the graph is loaded.
            strip_default_attrs: Leave out the node attributes that hold their op's
                default values (the meta graph's `stripped_default_attrs` is set).
            saver: The `tf.train.Saver` whose `SaverDef` is exported (default: a
                sharded Saver of every saveable object).

        Raises:
            AssertionError: `add_meta_graph_and_variables` was not called first, a
                `TensorInfo` of a signature lacks its encoding or dtype, or the tag
                set was used before.
            KeyError: A reserved signature key is used.
            TypeError: `main_op` is not an Operation, or an asset is not a string
                constant.
            ValueError: The graph already has a main op.
        """
        if not self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has not been saved yet. "
                "Please invoke `add_meta_graph_and_variables()` first."
            )
        signature_def_map = signature_def_map or {}
        self._validate_signature_def_map(signature_def_map)
        self._check_new_tag_set(tags)
        main_op = main_op if main_op is not None else legacy_init_op
        self._save_and_write_assets(assets_collection)
        self._maybe_add_main_op(main_op)
        saver = self._maybe_create_saver(saver)
        meta_graph_def = saver.export_meta_graph(
            clear_devices=clear_devices, strip_default_attrs=strip_default_attrs
        )
        _add_assets_to_meta_graph(meta_graph_def)
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)

    def add_meta_graph_and_variables(
        self,
        sess,
        tags,
        signature_def_map=None,
        assets_collection=None,
        legacy_init_op=None,
        clear_devices=False,
        main_op=None,
        strip_default_attrs=False,
        saver=None,
    ):
        """Adds the session's graph as the first meta graph and saves its variables.

        The variables (which must be initialized) are saved to
        `variables/variables` by `saver` (by default a sharded Saver of every
        saveable object), without a `checkpoint` state file.

        Args:
            sess: The session holding the variables' values.
            tags: The meta graph's tags (a list of strings).
            signature_def_map: A dict from keys to `SignatureDef`s.
            assets_collection: String constant tensors holding the paths of asset
                files: each file is copied to `assets/` and named in the meta graph's
                `asset_file_def`, so that the loader feeds the tensor its new path.
            legacy_init_op: Deprecated: an op run after restoring (as `main_op`).
            clear_devices: Clear the device fields of the graph's nodes.
            main_op: An op run after restoring the variables when the graph is loaded
                (stored in the collection `saved_model_main_op`).
            strip_default_attrs: Leave out the node attributes that hold their op's
                default values (the meta graph's `stripped_default_attrs` is set).
            saver: The `tf.train.Saver` that saves the variables.

        Raises:
            AssertionError: Called twice, or a `TensorInfo` of a signature lacks its
                encoding or dtype.
            KeyError: A reserved signature key is used.
            TypeError: `main_op` is not an Operation, or an asset is not a string
                constant.
            ValueError: The graph already has a main op.
        """
        if self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has "
                "already been saved. Please invoke "
                "`add_meta_graph()` instead."
            )
        signature_def_map = signature_def_map or {}
        self._validate_signature_def_map(signature_def_map)
        main_op = main_op or legacy_init_op
        with sess.graph.as_default():
            self._save_and_write_assets(assets_collection)
            self._maybe_add_main_op(main_op)
            variables_dir = os.path.join(self._export_path, constants.VARIABLES_DIRECTORY)
            os.makedirs(variables_dir, exist_ok=True)
            variables_path = os.path.join(variables_dir, constants.VARIABLES_FILENAME)
            saver = self._maybe_create_saver(saver)
            # No `checkpoint` state file: a SavedModel may be moved, and the loader
            # reads the prefix directly.
            saver.save(sess, variables_path, write_meta_graph=False, write_state=False)
            meta_graph_def = saver.export_meta_graph(
                clear_devices=clear_devices, strip_default_attrs=strip_default_attrs
            )
            _add_assets_to_meta_graph(meta_graph_def)
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)
        self._has_saved_variables = True

    def save(self, as_text=False) -> bytes:
        """Writes `saved_model.pb` (or `saved_model.pbtxt` with `as_text`) atomically.

        The file is written to a synced temporary file and renamed into place, so a
        crash leaves no partial SavedModel file.

        Args:
            as_text: Write the text format (for debugging; not forward compatible).

        Returns:
            The path written (bytes, as TensorFlow returns it).
        """
        os.makedirs(self._export_path, exist_ok=True)
        if as_text:
            path = os.path.join(self._export_path, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = str(self._saved_model).encode("utf-8")
        else:
            path = os.path.join(self._export_path, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        _ferroflow.write_file_atomically(path, data)
        _log.info("SavedModel written to: %s", path)
        return os.fsencode(path)


def _asset_path_from_tensor(path_tensor) -> str:
    """The file path held by the string constant `path_tensor`.

    Raises:
        TypeError: It is not a scalar string constant.
    """
    if not isinstance(path_tensor, ops.Tensor):
        raise TypeError(f"Asset path tensor {path_tensor} must be a Tensor.")
    if path_tensor.op.type != "Const":
        raise TypeError(
            f"Asset path tensor {path_tensor} must be of type constant."
            f"Has type {path_tensor.op.type} instead."
        )
    if path_tensor.dtype != dtypes.string:
        raise TypeError(
            f"Asset path tensor {path_tensor}` must be of dtype string."
            f"Has type {path_tensor.dtype} instead."
        )
    str_values = path_tensor.op.node_def.attr["value"].tensor.string_val
    if len(str_values) != 1:
        raise TypeError(f"Asset path tensor {path_tensor} must be a scalar.")
    return os.fsdecode(str_values[0])


def _get_unique_asset_filename(asset_filename, asset_filename_map) -> str:
    i = 1
    unique_filename = asset_filename
    while unique_filename in asset_filename_map:
        unique_filename = f"{asset_filename}_{i}"
        i += 1
    return unique_filename


def _get_asset_filename_to_add(asset_filepath, asset_filename_map) -> str:
    """The name under `assets/` of a file: its basename, made unique if another differs."""
    asset_filename = os.path.basename(asset_filepath)
    if asset_filename not in asset_filename_map:
        return asset_filename
    other_asset_filepath = asset_filename_map[asset_filename]
    if other_asset_filepath == asset_filepath:
        return asset_filename
    if not filecmp.cmp(asset_filepath, other_asset_filepath, shallow=False):
        return _get_unique_asset_filename(asset_filename, asset_filename_map)
    return asset_filename


def _maybe_save_assets(assets_to_add) -> dict:
    """Adds an `AssetFileDef` per asset tensor to the graph's `saved_model_assets`.

    As TF-1.x's builder, the assets are kept in a collection of the graph, so every
    meta graph exported from the graph afterwards lists them; the collection holds
    `AssetFileDef` protos (TF packs them in `Any` protos), which the meta graph
    export skips, and `_add_assets_to_meta_graph` writes them into the meta graph's
    `asset_file_def` instead, where TensorFlow's loaders look first.

    Returns:
        A dict from the names under `assets/` to the source paths.

    Raises:
        TypeError: An asset tensor is not a scalar string constant.
        ValueError: An asset path is empty.
    """
    asset_filename_map: dict[str, str] = {}
    if assets_to_add is None:
        _log.info("No assets to save.")
        return asset_filename_map
    for asset_tensor in assets_to_add:
        asset_source_filepath = _asset_path_from_tensor(asset_tensor)
        if not asset_source_filepath:
            raise ValueError(f"Asset filepath tensor {asset_tensor} in is invalid.")
        asset_filename = _get_asset_filename_to_add(asset_source_filepath, asset_filename_map)
        # Even for a duplicate file: the tensor is fed on loading all the same.
        asset_proto = AssetFileDef(filename=asset_filename)
        asset_proto.tensor_info.name = asset_tensor.name
        ops.add_to_collection(constants.ASSETS_KEY, asset_proto)
        asset_filename_map[asset_filename] = asset_source_filepath
    _log.info("Assets added to graph.")
    return asset_filename_map


def _add_assets_to_meta_graph(meta_graph_def):
    """Lists the default graph's assets in the meta graph's `asset_file_def`."""
    for asset_proto in ops.get_collection(constants.ASSETS_KEY):
        if isinstance(asset_proto, AssetFileDef):
            meta_graph_def.asset_file_def.add().CopyFrom(asset_proto)


def _copy_assets_to_destination_dir(asset_filename_map, destination_dir, saved_files):
    """Copies each asset file to `destination_dir/assets` (once per destination)."""
    assets_destination_dir = os.path.join(destination_dir, constants.ASSETS_DIRECTORY)
    os.makedirs(assets_destination_dir, exist_ok=True)
    for asset_basename, asset_source_filepath in asset_filename_map.items():
        asset_destination_filepath = os.path.join(assets_destination_dir, asset_basename)
        if (
            os.path.exists(asset_source_filepath)
            and asset_source_filepath != asset_destination_filepath
            and asset_destination_filepath not in saved_files
        ):
            shutil.copyfile(asset_source_filepath, asset_destination_filepath)
            saved_files.add(asset_destination_filepath)
    _log.info("Assets written to: %s", assets_destination_dir)
