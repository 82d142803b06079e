"""`tf.app`: the generic entry point of a TF-1.x script (`tf.app.run()`)."""

from __future__ import annotations

import sys as _sys

from absl.app import run as _run

from . import flags

__all__ = ["flags", "run"]


def _parse_flags_tolerate_undef(argv):
    """Parses the flags, returning the arguments left (unknown flags are kept, as TF)."""
    return flags.FLAGS(_sys.argv if argv is None else argv, known_only=True)


def run(main=None, argv=None):
    """Runs the program with an optional `main` function and `argv` list.

    As TF's: the flags are parsed from `argv` (default `sys.argv`), unknown flags are
    passed on to `main` in its argument list, and the process exits with `main`'s
    return value.

    Args:
        main: The function to run, called with the remaining arguments (default: the
            `main` of the `__main__` module).
        argv: The command line (default `sys.argv`).
    """
    main = main or _sys.modules["__main__"].main
    _run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
