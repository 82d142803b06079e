"""`tensorflow.python.client.device_lib`: the devices of this process."""

from __future__ import annotations

from .. import _ferroflow
from ..protos import DeviceAttributes


def list_local_devices(session_config=None) -> list:
    """Lists the devices available to this process, as TF's `device_lib` does.

    Args:
        session_config: a `ConfigProto`; its `device_count` hides devices (for
            example `{"GPU": 0}`), as in a session made with it.

    Returns:
        A list of `DeviceAttributes` protos (`name` such as `/device:GPU:0`,
        `device_type`, `memory_limit`, `physical_device_desc`), the CPU first.
    """
    counts = dict(session_config.device_count) if session_config is not None else {}
    devices = []
    seen: dict[str, int] = {}
    for name, device_type, memory, desc in _ferroflow.local_devices():
        index = seen.get(device_type, 0)
        seen[device_type] = index + 1
        if device_type in counts and index >= counts[device_type]:
            continue
        devices.append(
            DeviceAttributes(
                name=name, device_type=device_type, memory_limit=memory, physical_device_desc=desc
            )
        )
    return devices


__all__ = ["list_local_devices"]
