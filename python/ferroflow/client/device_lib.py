"""`tensorflow.python.client.device_lib`: the devices of this process."""

from __future__ import annotations

import random

from .. import _ferroflow
from ..protos import DeviceAttributes, DeviceLocality


def list_local_devices(session_config=None) -> list:
    """Lists the devices available to this process, as TF's `device_lib` does.

    Args:
        session_config: a `ConfigProto`; its `device_count` hides devices (for
            example `{"GPU": 0}`), as in a session made with it.

    Returns:
        A list of `DeviceAttributes` protos (`name` such as `/device:GPU:0`,
        `device_type`, `memory_limit`, `locality`, `physical_device_desc`), the
        CPU first. A CPU's locality is empty; a GPU's names its NUMA node and
        bus (node + 1), as TF's.
    """
    counts = dict(session_config.device_count) if session_config is not None else {}
    devices = []
    seen: dict[str, int] = {}
    # TF creates the devices anew for each listing: each has a fresh random
    # incarnation, and none is an XLA device.
    for name, device_type, memory, desc, (bus_id, numa_node) in _ferroflow.local_devices():
        index = seen.get(device_type, 0)
        seen[device_type] = index + 1
        if device_type in counts and index >= counts[device_type]:
            continue
        devices.append(
            DeviceAttributes(
                name=name,
                device_type=device_type,
                memory_limit=memory,
                locality=DeviceLocality(bus_id=bus_id, numa_node=numa_node),
                incarnation=random.getrandbits(64),
                physical_device_desc=desc,
                xla_global_id=-1,
            )
        )
    return devices


__all__ = ["list_local_devices"]
