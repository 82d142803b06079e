"""`tf.io.gfile`: the lower-case names of `tf.gfile` (TF 1.13+)."""

from __future__ import annotations

import os as _os

from .gfile import Copy as copy
from .gfile import DeleteRecursively as rmtree
from .gfile import Exists as exists
from .gfile import GFile
from .gfile import Glob as glob
from .gfile import IsDirectory as isdir
from .gfile import ListDirectory as listdir
from .gfile import MakeDirs as makedirs
from .gfile import MkDir as mkdir
from .gfile import Remove as remove
from .gfile import Rename as rename
from .gfile import Stat as stat
from .gfile import Walk as walk

join = _os.path.join

__all__ = [
    "GFile",
    "copy",
    "exists",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]
