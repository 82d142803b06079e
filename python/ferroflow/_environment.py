"""Process environment the native module needs before it loads (imported first)."""

import os


def _quiet_vulkan_device_select() -> None:
    """Keeps Mesa's Vulkan device-select layer from probing for a Wayland compositor.

    The native module lists the Vulkan adapters at import. Mesa's implicit
    device-select layer then asks libwayland for the compositor's GPU, and on a machine
    with no display session libwayland prints "error: XDG_RUNTIME_DIR is invalid or not
    set in the environment." twice. With no display there is no display GPU to prefer,
    so the layer is switched off (`NODEVICE_SELECT=1`, Mesa's own switch) unless a
    display or the layer's own settings are present; ferroflow orders the adapters
    itself (hardware first).
    """
    names = ("WAYLAND_DISPLAY", "DISPLAY", "MESA_VK_DEVICE_SELECT", "NODEVICE_SELECT")
    if not any(os.environ.get(name) for name in names):
        os.environ["NODEVICE_SELECT"] = "1"


_quiet_vulkan_device_select()
