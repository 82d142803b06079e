"""`tensorflow.python.client`'s public helpers.

`timeline` (Chrome traces of a step) and `device_lib` (the devices of this process).
"""

from . import device_lib, timeline

__all__ = ["device_lib", "timeline"]
