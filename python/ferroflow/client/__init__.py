"""`tensorflow.python.client`'s public helpers: `timeline` (Chrome traces of a step)."""

from . import timeline

__all__ = ["timeline"]
