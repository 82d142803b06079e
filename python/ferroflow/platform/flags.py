"""`tf.flags` / `tf.app.flags`: absl's flags, as TF-1.x re-exports them.

TF's module is an import router for `absl.flags` (the library TF itself uses), with two
changes kept here: the define functions also take the old keyword names
(`flag_name`, `default_value`, `docstring`), and `FLAGS` parses `sys.argv` the first
time a flag is read before anything parsed it (absl raises instead).
"""

from __future__ import annotations

import functools
import logging as _logging
import sys as _sys
from typing import Any

from absl.flags import *  # noqa: F403 (TF re-exports absl.flags whole)
from absl.flags import (
    FLAGS as _ABSL_FLAGS,
)
from absl.flags import (
    DEFINE_boolean as _DEFINE_boolean,
)
from absl.flags import (
    DEFINE_float as _DEFINE_float,
)
from absl.flags import (
    DEFINE_integer as _DEFINE_integer,
)
from absl.flags import (
    DEFINE_string as _DEFINE_string,
)
from absl.flags import disclaim_key_flags

disclaim_key_flags()

_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _wrap_define_function(original_function):
    """Wraps a define function so that it accepts TF's old keyword names."""

    @functools.wraps(original_function)
    def wrapper(*args, **kwargs):
        has_old_names = False
        for old_name, new_name in _RENAMED_ARGUMENTS.items():
            if old_name in kwargs:
                has_old_names = True
                kwargs[new_name] = kwargs.pop(old_name)
        if has_old_names:
            _logging.warning(
                "Use of the keyword argument names (flag_name, default_value, "
                "docstring) is deprecated, please use (name, default, help) instead."
            )
        return original_function(*args, **kwargs)

    return wrapper


class _FlagValuesWrapper:
    """`absl.flags.FLAGS` that parses `sys.argv` when a flag is read before parsing."""

    def __init__(self, flags_object):
        self.__dict__["__wrapped"] = flags_object

    def __getattribute__(self, name: str) -> Any:
        if name == "__dict__":
            return super().__getattribute__(name)
        return self.__dict__["__wrapped"].__getattribute__(name)

    def __getattr__(self, name: str) -> Any:
        wrapped = self.__dict__["__wrapped"]
        # TF-1.x compatibility: reading a flag parses the command line first.
        if not wrapped.is_parsed():
            wrapped(_sys.argv)
        return wrapped.__getattr__(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__["__wrapped"].__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self.__dict__["__wrapped"].__delattr__(name)

    def __dir__(self):
        return self.__dict__["__wrapped"].__dir__()

    def __getitem__(self, name: str) -> Any:
        return self.__dict__["__wrapped"].__getitem__(name)

    def __setitem__(self, name: str, flag: Any) -> None:
        self.__dict__["__wrapped"].__setitem__(name, flag)

    def __len__(self) -> int:
        return self.__dict__["__wrapped"].__len__()

    def __iter__(self):
        return self.__dict__["__wrapped"].__iter__()

    def __str__(self) -> str:
        return self.__dict__["__wrapped"].__str__()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__dict__["__wrapped"].__call__(*args, **kwargs)


DEFINE_string = _wrap_define_function(_DEFINE_string)
DEFINE_boolean = _wrap_define_function(_DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _wrap_define_function(_DEFINE_float)
DEFINE_integer = _wrap_define_function(_DEFINE_integer)

# TF's FLAGS: absl's, parsing sys.argv when read before any parse.
FLAGS: Any = _FlagValuesWrapper(_ABSL_FLAGS)  # type: ignore[no-redef]
