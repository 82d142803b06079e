"""`ferroflow.compat`: `compat.v1` and TF's string conversions.

`compat.v1` is the same namespace as `ferroflow`, so TF-1.x code ports by import;
`as_bytes`, `as_str`, `as_text`, `as_str_any` and `path_to_str` are TF's.
"""

import numbers as _numbers
import os as _os
import sys

import numpy as _np

import ferroflow as v1

sys.modules[__name__ + ".v1"] = v1

__all__ = [
    "as_bytes",
    "as_str",
    "as_str_any",
    "as_text",
    "bytes_or_text_types",
    "complex_types",
    "integral_types",
    "path_to_str",
    "real_types",
    "v1",
]

bytes_or_text_types = (bytes, str)
integral_types = (_numbers.Integral, _np.integer)
real_types = (_numbers.Real, _np.integer, _np.floating)
complex_types = (_numbers.Complex, _np.number)


def as_bytes(bytes_or_text, encoding="utf-8") -> bytes:
    """`bytes_or_text` as bytes: str is encoded with `encoding`, bytes-like is copied.

    Raises:
        TypeError: Not a binary or unicode string.
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8") -> str:
    """`bytes_or_text` as str: bytes are decoded with `encoding`.

    Raises:
        TypeError: Not a binary or unicode string.
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value, encoding="utf-8") -> str:
    """`value` as str: bytes decoded, anything else through `str()`."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path):
    """A path-like object as str (anything else unchanged)."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(_os.fspath(path))
    return path
