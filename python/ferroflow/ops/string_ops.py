"""String, parsing and file ops.

`tf.decode_raw`, `tf.decode_csv`, `tf.string_to_number`, `tf.string_join`,
`tf.substr`, `tf.reduce_join`, `tf.read_file`, `tf.write_file`.

Each is one native op with TensorFlow's name (`DecodeRaw`, `DecodeCSV`,
`StringToNumber`, `StringJoin`, `Substr`, `ReduceJoin`, `ReadFile`, `WriteFile`),
attrs and messages; the kernels are in `ferroflow-core`'s `kernels/strings.rs`.
"""

from __future__ import annotations

from ..framework import dtypes as _dtypes
from ..framework import ops
from ._op_util import make_op

__all__ = [
    "as_string",
    "decode_csv",
    "decode_raw",
    "read_file",
    "reduce_join",
    "string_join",
    "string_split",
    "string_split_v2",
    "string_to_hash_bucket",
    "string_to_hash_bucket_fast",
    "string_to_hash_bucket_strong",
    "string_to_number",
    "strings_split_v1",
    "substr",
    "write_file",
]


def _strings(x, name):
    return ops.convert_to_tensor(x, dtype=_dtypes.string, name=name)


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):
    """Reinterprets the bytes of each string as a vector of `out_type`.

    Args:
        input_bytes: String tensor; every element must have the same length, a
            multiple of `out_type`'s size.
        out_type: The element type of the result.
        little_endian: Whether the bytes are little-endian.
        name: A name for the operation.
        bytes: Deprecated alias of `input_bytes` (TF-1.x).

    Returns:
        A tensor of `out_type` with one more dimension than `input_bytes`.
    """
    if input_bytes is None:
        input_bytes = bytes
    elif bytes is not None:
        raise ValueError("Cannot specify both 'input_bytes' and 'bytes'")
    if out_type is None:
        raise TypeError("decode_raw() missing required argument 'out_type'")
    with ops.name_scope(name, "DecodeRaw", [input_bytes]) as scope:
        x = _strings(input_bytes, "bytes")
        attrs = {"out_type": _dtypes.as_dtype(out_type), "little_endian": bool(little_endian)}
        return make_op("DecodeRaw", [x], attrs, scope=scope).outputs[0]


def decode_csv(
    records,
    record_defaults,
    field_delim=",",
    use_quote_delim=True,
    name=None,
    na_value="",
    select_cols=None,
):
    """Parses CSV records into one tensor per column.

    Args:
        records: String tensor, one record per element.
        record_defaults: One tensor per column: its type and its default (a
            one-element list), or empty for a required column.
        field_delim: The one-character field delimiter.
        use_quote_delim: Whether double quotes delimit fields (RFC 4180).
        name: A name for the operation.
        na_value: A string that marks a missing value.
        select_cols: Sorted indices of the columns to keep.

    Returns:
        A list of tensors shaped like `records`, one per default.

    Raises:
        ValueError: `select_cols` and `record_defaults` differ in length.
    """
    if select_cols is not None and len(select_cols) != len(record_defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    if select_cols is not None and any(
        select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)
    ):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols is not None and select_cols and select_cols[0] < 0:
        raise ValueError("select_cols contains negative values.")
    with ops.name_scope(name, "DecodeCSV", [records]) as scope:
        recs = _strings(records, "records")
        defaults = [
            ops.convert_to_tensor(
                d, name="record_defaults", dtype=None if len(d) else _dtypes.float32
            )
            if isinstance(d, (list, tuple))
            else ops.convert_to_tensor(d, name="record_defaults")
            for d in record_defaults
        ]
        attrs = {
            "field_delim": field_delim,
            "use_quote_delim": bool(use_quote_delim),
            "na_value": na_value,
            "select_cols": [int(c) for c in select_cols or []],
        }
        op = make_op("DecodeCSV", [recs, *defaults], attrs, scope=scope)
        return list(op.outputs)


def string_to_number(string_tensor, out_type=_dtypes.float32, name=None):
    """Converts each string to a number of `out_type`.

    Args:
        string_tensor: String tensor.
        out_type: `float32`, `float64`, `int32` or `int64`.
        name: A name for the operation.

    Returns:
        A tensor of `out_type` shaped like `string_tensor`.
    """
    with ops.name_scope(name, "StringToNumber", [string_tensor]) as scope:
        x = _strings(string_tensor, "string_tensor")
        attrs = {"out_type": _dtypes.as_dtype(out_type)}
        return make_op("StringToNumber", [x], attrs, scope=scope).outputs[0]


def string_join(inputs, separator="", name=None):
    """Joins the strings of `inputs` elementwise (scalars broadcast).

    Args:
        inputs: A list of string tensors of one shape, or scalars.
        separator: The string between joined elements.
        name: A name for the operation.

    Returns:
        The joined string tensor.
    """
    with ops.name_scope(name, "StringJoin", inputs) as scope:
        xs = [_strings(x, "inputs") for x in inputs]
        return make_op("StringJoin", xs, {"separator": separator}, scope=scope).outputs[0]


def substr(input, pos, len, name=None, unit="BYTE"):
    """The substrings of `len` bytes from `pos` of each string.

    Args:
        input: String tensor.
        pos: Start positions (int32 or int64), a scalar or shaped like `input`;
            negative positions count from the end.
        len: Lengths, of `pos`'s type and shape; cut at the string's end.
        name: A name for the operation.
        unit: `"BYTE"`.

    Returns:
        The substrings, shaped like `input`.
    """
    with ops.name_scope(name, "Substr", [input, pos, len]) as scope:
        x = _strings(input, "input")
        p = ops.convert_to_tensor(pos, name="pos")
        n = ops.convert_to_tensor(len, dtype=p.dtype, name="len")
        return make_op("Substr", [x, p, n], {"unit": unit}, scope=scope).outputs[0]


def reduce_join(
    inputs,
    axis=None,
    keep_dims=None,
    separator="",
    name=None,
    reduction_indices=None,
    keepdims=None,
):
    """Joins strings along dimensions, in the order `axis` lists them.

    Args:
        inputs: String tensor.
        axis: Dimensions to join; None joins all (the last first, as TF).
        keep_dims: Whether reduced dimensions stay, with length 1.
        separator: The string between joined elements.
        name: A name for the operation.
        reduction_indices: Deprecated alias of `axis`.
        keepdims: Alias of `keep_dims`.

    Returns:
        The joined string tensor.
    """
    if axis is None:
        axis = reduction_indices
    keep = bool(keepdims if keepdims is not None else keep_dims)
    # As TF: an outer "ReduceJoin" scope, the op inside it named `name` or "ReduceJoin".
    with ops.name_scope(None, "ReduceJoin", [inputs]):
        x = _strings(inputs, "inputs")
        if axis is None:
            rank = x.shape.ndims
            if rank is None:
                raise ValueError("reduce_join with axis=None needs an input of known rank")
            axis = list(range(rank - 1, -1, -1))
        axes = ops.convert_to_tensor(axis, dtype=_dtypes.int32, name="reduction_indices")
        attrs = {"keep_dims": keep, "separator": separator}
        return make_op("ReduceJoin", [x, axes], attrs, name=name or "ReduceJoin").outputs[0]


def read_file(filename, name=None):
    """The contents of the file `filename` (scalar string).

    Args:
        filename: Scalar string.
        name: A name for the operation.

    Returns:
        The scalar string tensor.
    """
    f = _strings(filename, "filename")
    return make_op("ReadFile", [f], name=name or "ReadFile").outputs[0]


def write_file(filename, contents, name=None):
    """Writes `contents` to the file `filename`, creating missing directories.

    Args:
        filename: Scalar string.
        contents: Scalar string.
        name: A name for the operation.

    Returns:
        The `WriteFile` operation.
    """
    f = _strings(filename, "filename")
    c = _strings(contents, "contents")
    return make_op("WriteFile", [f, c], name=name or "WriteFile")


def string_split(
    source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor", name=None
):
    """TF-1.x's `tf.string_split`: the tokens of each string, as a `SparseTensor`.

    Row `i` of the result holds the tokens of `source[i]` (indices `[i, j]`), and the
    dense shape is `[len(source), most tokens in a row]`.

    Args:
        source: 1-D string tensor.
        sep: Scalar string; each of its bytes is a delimiter (empty: every byte is a
            token). Default `" "`.
        skip_empty: Whether empty tokens are dropped.
        delimiter: Deprecated alias of `sep`.
        result_type: `"SparseTensor"` (ferroflow has no `RaggedTensor`).
        name: A name for the operation.

    Raises:
        ValueError: `sep` and `delimiter` both given, an unknown `result_type`, or a
            `source` that is not 1-D.
    """
    from ..framework.sparse_tensor import SparseTensor  # framework's sparse builds on ops

    if delimiter is not None:
        if sep is not None:
            raise ValueError("Cannot specify both 'delimiter' and 'sep'.")
        sep = delimiter
    if result_type == "RaggedTensor":
        raise NotImplementedError("string_split(result_type='RaggedTensor'): no RaggedTensor")
    if result_type != "SparseTensor":
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    with ops.name_scope(name, "StringSplit", [source]):
        d = ops.convert_to_tensor(" " if sep is None else sep, dtype=_dtypes.string)
        src = ops.convert_to_tensor(source, dtype=_dtypes.string)
        op = make_op("StringSplit", [src, d], {"skip_empty": bool(skip_empty)}, name="StringSplit")
        indices, values, shape = op.outputs
        indices.set_shape([None, 2])
        values.set_shape([None])
        shape.set_shape([2])
        return SparseTensor(indices, values, shape)


def string_split_v2(source, sep=None, maxsplit=-1):
    """TF's `string_split_v2`: Python's `str.split` of each string of a vector.

    An empty or absent `sep` splits at runs of whitespace and drops empty tokens; any
    other `sep` splits at each occurrence of the whole string (keeping empty tokens).
    At most `maxsplit` splits per string when it is positive.

    Returns:
        A rank-2 `SparseTensor` of the tokens, row `i` those of `source[i]`.
    """
    from ..framework.sparse_tensor import SparseTensor  # framework's sparse builds on ops

    sep = ops.convert_to_tensor("" if sep is None else sep, dtype=_dtypes.string)
    source = ops.convert_to_tensor(source, dtype=_dtypes.string)
    op = make_op("StringSplitV2", [source, sep], {"maxsplit": int(maxsplit)}, name="StringSplitV2")
    indices, values, shape = op.outputs
    indices.set_shape([None, 2])
    values.set_shape([None])
    shape.set_shape([2])
    return SparseTensor(indices, values, shape)


def strings_split_v1(
    input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None, name=None
):
    """TF-1.x's `tf.strings.split`: `str.split` of each string, as a `SparseTensor`.

    Args:
        input: String tensor of rank N (a scalar is taken as one string; unknown rank
            is taken as 1, as TF).
        sep: Scalar string separator; empty or None splits at runs of whitespace.
        maxsplit: At most this many splits per string when positive.
        result_type: `"SparseTensor"` (ferroflow has no `RaggedTensor`).
        source: Deprecated alias of `input`.
        name: A name for the operation.

    Returns:
        A `SparseTensor` of rank N+1: the tokens of `input[i...]` at `[i..., j]`.
    """
    from . import array_ops, math_ops  # both build on this module's neighbours

    if source is not None:
        if input is not None:
            raise ValueError("Cannot specify both 'source' and 'input'.")
        input = source
    if result_type == "RaggedTensor":
        raise NotImplementedError("strings.split(result_type='RaggedTensor'): no RaggedTensor")
    if result_type != "SparseTensor":
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    with ops.name_scope(name, "StringSplit", [input]):
        input = ops.convert_to_tensor(input, dtype=_dtypes.string, name="input")
        rank = input.shape.ndims
        if rank == 0:
            input = array_ops.expand_dims(input, 0)
        if rank is None or rank <= 1:
            return string_split_v2(input, sep=sep, maxsplit=maxsplit)
        # Rank N: split the flattened strings, then unravel each row to N indices
        # (the ordering of TF's ragged `to_sparse`).
        from ..framework.sparse_tensor import SparseTensor

        flat = string_split_v2(array_ops.reshape(input, [-1]), sep=sep, maxsplit=maxsplit)
        shape = array_ops.cast(array_ops.shape(input), _dtypes.int64)
        rows = flat.indices[:, 0]
        columns = []
        for i in range(rank):
            stride = math_ops.reduce_prod(shape[i + 1 :])
            columns.append(math_ops.floormod(math_ops.floordiv(rows, stride), shape[i]))
        indices = array_ops.concat([array_ops.stack(columns, axis=1), flat.indices[:, 1:]], 1)
        dense_shape = array_ops.concat([shape, flat.dense_shape[1:]], 0)
        return SparseTensor(indices, flat.values, dense_shape)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):
    """Each number or bool of `input` as text (`AsString`, with `printf`'s padding)."""
    with ops.name_scope(name, "AsString", [input]) as scope:
        x = ops.convert_to_tensor(input, name="input")
        attrs = {
            "precision": precision,
            "scientific": scientific,
            "shortest": shortest,
            "width": width,
            "fill": fill,
        }
        return make_op("AsString", [x], attrs, scope=scope).outputs[0]


def _hash_bucket(op_type, arg_name, input, num_buckets, name, key=None):
    with ops.name_scope(name, op_type, [input]) as scope:
        x = _strings(input, arg_name)
        attrs = {"num_buckets": num_buckets}
        if key is not None:
            attrs["key"] = list(key)
        return make_op(op_type, [x], attrs, scope=scope).outputs[0]


def string_to_hash_bucket_fast(input, num_buckets, name=None):
    """Each string's FarmHash fingerprint modulo `num_buckets` (`int64`), as TF's."""
    return _hash_bucket("StringToHashBucketFast", "input", input, num_buckets, name)


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):
    """Each string's SipHash-2-4 under `key` (two integers) modulo `num_buckets`."""
    return _hash_bucket("StringToHashBucketStrong", "input", input, num_buckets, name, key)


def string_to_hash_bucket(string_tensor, num_buckets, name=None, input=None):
    """Each string's legacy TF `Hash64` modulo `num_buckets` (deprecated by TF)."""
    if input is not None:
        string_tensor = input
    return _hash_bucket("StringToHashBucket", "string_tensor", string_tensor, num_buckets, name)
