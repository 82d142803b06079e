"""What importing ferroflow does to the process environment and prints."""

import os
import subprocess
import sys

CHECK = "import os, ferroflow; print(os.environ.get('NODEVICE_SELECT'))"


def _import_with(env_changes, drop=()):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_changes)
    return subprocess.run(
        [sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, check=True
    )


def test_a_headless_import_lists_the_gpus_silently():
    # With Mesa's Vulkan driver and no display session, its device-select layer used
    # to make libwayland print "error: XDG_RUNTIME_DIR is invalid ..." twice.
    out = _import_with(
        {"FERROFLOW_GPU": "software"},
        drop=("DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "NODEVICE_SELECT"),
    )
    assert "XDG_RUNTIME_DIR" not in out.stderr, out.stderr
    assert out.stdout.strip() == "1"


def test_a_display_or_the_users_own_setting_is_left_alone():
    shown = _import_with({"DISPLAY": ":0"}, drop=("NODEVICE_SELECT", "FERROFLOW_GPU"))
    assert shown.stdout.strip() == "None"
    chosen = _import_with({"MESA_VK_DEVICE_SELECT": "ffff:ffff"}, drop=("NODEVICE_SELECT",))
    assert chosen.stdout.strip() == "None"
    own = _import_with({"NODEVICE_SELECT": "0"}, drop=("DISPLAY", "WAYLAND_DISPLAY"))
    assert own.stdout.strip() == "0"
