"""`saved_model_cli show`: what a SavedModel holds, printed as TensorFlow's CLI prints it.

Usage::

    python -m ferroflow.tools.saved_model_cli show --dir DIR
    python -m ferroflow.tools.saved_model_cli show --dir DIR --tag_set serve
    python -m ferroflow.tools.saved_model_cli show --dir DIR --tag_set serve --signature_def KEY
    python -m ferroflow.tools.saved_model_cli show --dir DIR --tag_set serve --list_ops
    python -m ferroflow.tools.saved_model_cli show --dir DIR --all

The output is TF's `saved_model_cli show` output, line for line (the set of ops of
`--list_ops` and `--all` is printed as a Python set, as TF prints it). TF's other
commands (`run`, `scan`, `convert`, ...) are not provided.
"""

from __future__ import annotations

import argparse
import os
import sys

from google.protobuf import message, text_format

from ..protos import DataType, SavedModel
from ..saved_model import constants, loader

__all__ = [
    "get_meta_graph_def",
    "get_saved_model_tag_sets",
    "get_signature_def_map",
    "main",
    "read_saved_model",
    "show",
]


def read_saved_model(saved_model_dir) -> SavedModel:
    """The `SavedModel` proto of a directory (as TF's `saved_model_utils`).

    Raises:
        IOError: The file is missing or cannot be parsed.
    """
    saved_model_dir = os.fsdecode(os.fspath(saved_model_dir))
    path_to_pbtxt = os.path.join(saved_model_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    path_to_pb = os.path.join(saved_model_dir, constants.SAVED_MODEL_FILENAME_PB)
    if not os.path.exists(path_to_pbtxt) and not os.path.exists(path_to_pb):
        raise OSError(f"SavedModel file does not exist at: {saved_model_dir}")
    saved_model = SavedModel()
    if os.path.exists(path_to_pb):
        with open(path_to_pb, "rb") as f:
            file_content = f.read()
        try:
            saved_model.ParseFromString(file_content)
        except message.DecodeError as e:
            raise OSError(f"Cannot parse proto file {path_to_pb}: {e!s}.") from e
        return saved_model
    with open(path_to_pbtxt, "rb") as f:
        file_content = f.read()
    try:
        return loader._parse_text(file_content.decode("utf-8"))
    except text_format.ParseError as e:
        raise OSError(f"Cannot parse pbtxt file {path_to_pbtxt}: {e!s}.") from e


def get_saved_model_tag_sets(saved_model_dir) -> list[list[str]]:
    """The tag sets of the meta graphs of a SavedModel, each as a list of strings."""
    saved_model = read_saved_model(saved_model_dir)
    return [list(meta_graph_def.meta_info_def.tags) for meta_graph_def in saved_model.meta_graphs]


def get_meta_graph_def(saved_model_dir, tag_set):
    """The `MetaGraphDef` whose tags are `tag_set` (comma-separated tags).

    Raises:
        RuntimeError: No meta graph has these tags.
    """
    saved_model = read_saved_model(saved_model_dir)
    set_of_tags = {tag for tag in tag_set.split(",") if tag}
    valid_tags = []
    for meta_graph_def in saved_model.meta_graphs:
        meta_graph_tags = set(meta_graph_def.meta_info_def.tags)
        if meta_graph_tags == set_of_tags:
            return meta_graph_def
        valid_tags.append(",".join(meta_graph_tags))
    raise RuntimeError(
        f"MetaGraphDef associated with tag-set {tag_set} could not be found in "
        f"the SavedModel. Please use one of the following tag-sets: {valid_tags}"
    )


def get_signature_def_map(saved_model_dir, tag_set):
    """The signatures of the meta graph tagged `tag_set`, by key."""
    return get_meta_graph_def(saved_model_dir, tag_set).signature_def


def _sanitize_nonempty_str_list(xs, name: str) -> list[str]:
    out = [str(x).strip() for x in xs if x is not None and str(x).strip()]
    if not out:
        raise ValueError(f"{name} must contain at least one non-empty item.")
    return out


def _ops_used_by_graph_def(graph_def) -> list[str]:
    # Built as TF's `meta_graph.ops_used_by_graph_def` builds it (a set, then a list),
    # so the printed set has TF's order for the same hash seed.
    used_ops = set()
    for node in graph_def.node:
        used_ops.add(node.op)
    return list(used_ops)


def _show_tag_sets(saved_model_dir):
    tag_sets = get_saved_model_tag_sets(saved_model_dir)
    print("The given SavedModel contains the following tag-sets:")
    for tag_set in sorted(tag_sets):
        print("%r" % ", ".join(sorted(tag_set)))  # noqa: UP031 (TF's format)


def _show_ops_in_metagraph_mgd(meta_graph_def):
    all_ops_set = set(_ops_used_by_graph_def(meta_graph_def.graph_def))
    print(
        f"The MetaGraph with tag set {meta_graph_def.meta_info_def.tags} contains the "
        "following ops:",
        all_ops_set,
    )


def _show_ops_in_metagraph(saved_model_dir, tag_set):
    tags = _sanitize_nonempty_str_list(tag_set.split(","), "tag_set")
    _show_ops_in_metagraph_mgd(get_meta_graph_def(saved_model_dir, ",".join(tags)))


def _show_signature_def_map_keys(saved_model_dir, tag_set):
    signature_def_map = get_signature_def_map(saved_model_dir, tag_set)
    print("The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:")
    for signature_def_key in sorted(signature_def_map.keys()):
        print(f'SignatureDef key: "{signature_def_key}"')


def _print_tensor_info(tensor_info, indent=0):
    indent_str = "  " * indent

    def in_print(s):
        print(indent_str + s)

    in_print("    dtype: " + DataType.values_by_number[tensor_info.dtype].name)
    if tensor_info.tensor_shape.unknown_rank:
        shape = "unknown_rank"
    else:
        shape = "(" + ", ".join(str(dim.size) for dim in tensor_info.tensor_shape.dim) + ")"
    in_print("    shape: " + shape)
    in_print("    name: " + tensor_info.name)


def _show_inputs_outputs_mgd(meta_graph_def, signature_def_key, indent):
    if signature_def_key not in meta_graph_def.signature_def:
        raise ValueError(
            f'Could not find signature "{signature_def_key}". Please choose from: '
            f"{', '.join(meta_graph_def.signature_def.keys())}"
        )
    signature_def = meta_graph_def.signature_def[signature_def_key]
    indent_str = "  " * indent

    def in_print(s):
        print(indent_str + s)

    in_print("The given SavedModel SignatureDef contains the following input(s):")
    for input_key, input_tensor in sorted(signature_def.inputs.items()):
        in_print(f"  inputs['{input_key}'] tensor_info:")
        _print_tensor_info(input_tensor, indent + 1)
    in_print("The given SavedModel SignatureDef contains the following output(s):")
    for output_key, output_tensor in sorted(signature_def.outputs.items()):
        in_print(f"  outputs['{output_key}'] tensor_info:")
        _print_tensor_info(output_tensor, indent + 1)
    in_print("Method name is: " + signature_def.method_name)


def _show_inputs_outputs(saved_model_dir, tag_set, signature_def_key, indent=0):
    tags = _sanitize_nonempty_str_list(tag_set.split(","), "tag_set")
    meta_graph_def = get_meta_graph_def(saved_model_dir, ",".join(tags))
    _show_inputs_outputs_mgd(meta_graph_def, signature_def_key, indent)


def _show_all(saved_model_dir):
    saved_model = read_saved_model(saved_model_dir)
    for meta_graph_def in sorted(
        saved_model.meta_graphs, key=lambda mgd: list(mgd.meta_info_def.tags)
    ):
        tag_set = meta_graph_def.meta_info_def.tags
        print(
            f"\nMetaGraphDef with tag-set: '{', '.join(tag_set)}' "
            "contains the following SignatureDefs:"
        )
        signature_def_map = meta_graph_def.signature_def
        for signature_def_key in sorted(signature_def_map.keys()):
            print("\nsignature_def['" + signature_def_key + "']:")
            _show_inputs_outputs_mgd(meta_graph_def, signature_def_key, indent=1)
        _show_ops_in_metagraph_mgd(meta_graph_def)


def show(args):
    """The `show` command: tag sets, signature keys, one signature, ops, or everything.

    Args:
        args: The parsed command line (`dir`, `all`, `tag_set`, `signature_def`,
            `list_ops`).
    """
    if args.all:
        _show_all(args.dir)
    elif args.tag_set is None:
        if args.list_ops:
            print("--list_ops must be paired with a tag-set or with --all.")
        _show_tag_sets(args.dir)
    else:
        if args.list_ops:
            _show_ops_in_metagraph(args.dir, args.tag_set)
        if args.signature_def is None:
            _show_signature_def_map_keys(args.dir, args.tag_set)
        else:
            _show_inputs_outputs(args.dir, args.tag_set, args.signature_def)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="saved_model_cli",
        description="saved_model_cli: Command-line interface for SavedModel",
    )
    parser.add_argument("-v", "--version", action="version", version="0.1.0")
    subparsers = parser.add_subparsers(
        title="commands", description="valid commands", help="additional help"
    )
    parser_show = subparsers.add_parser(
        "show",
        description="Show the tag-sets, signatures and ops of a SavedModel.",
    )
    parser_show.add_argument("--dir", required=True, help="Directory containing the SavedModel.")
    parser_show.add_argument(
        "--all",
        action="store_true",
        help="If set, outputs all available information in the given SavedModel.",
    )
    parser_show.add_argument(
        "--tag_set",
        default=None,
        help="Comma-separated set of tags that identify variant graphs in the SavedModel.",
    )
    parser_show.add_argument(
        "--signature_def",
        default=None,
        help="key of SignatureDef to display input(s) and output(s) for.",
    )
    parser_show.add_argument(
        "--list_ops",
        action="store_true",
        help="If set, will output ops used by a MetaGraphDef specified by tag_set.",
    )
    parser_show.set_defaults(func=show)
    return parser


def main(argv=None) -> int:
    """Runs the command line `argv` (default `sys.argv[1:]`); returns the exit status.

    Errors (a missing or unparsable SavedModel, unknown tags or signature key) print
    `<error class>: <message>` on stderr and return 1.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.error("Too few arguments.")
    try:
        args.func(args)
    except (OSError, RuntimeError, ValueError) as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
