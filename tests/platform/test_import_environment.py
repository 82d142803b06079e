"""What importing ferroflow does to the process environment and prints."""

import os
import subprocess
import sys

import pytest

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


def _render_node_present():
    """Whether a GPU device node exists (a DRM render node, NVIDIA's, WSL2's)."""
    try:
        render = any(n.startswith("renderD") for n in os.listdir("/dev/dri"))
    except OSError:
        render = False
    return render or any(os.path.exists(p) for p in ("/dev/nvidiactl", "/dev/dxg"))


def _mapped_after_import(first, env_changes):
    """The shared objects a child process maps after importing `first` and then
    ferroflow, running one step, and exiting; with its exit status."""
    script = (f"import {first}\n" if first else "") + (
        "import ferroflow as ff\n"
        "assert ff.Session().run(ff.constant(2.0) * 3.0) == 6.0\n"
        "print([l.split()[-1] for l in open('/proc/self/maps') if '.so' in l])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "FERROFLOW_GPU"}
    env.update(env_changes, TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or _render_node_present(),
    reason="needs a Linux machine without a GPU device node",
)
def test_no_gpu_device_node_means_no_vulkan_driver_is_loaded():
    out = _mapped_after_import(None, {})
    assert out.returncode == 0, out.stderr
    assert "libvulkan_" not in out.stdout and "libLLVM" not in out.stdout
    # Asked for, the software adapter is still found.
    software = _mapped_after_import(None, {"FERROFLOW_GPU": "software"})
    assert software.returncode == 0, software.stderr


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or _render_node_present(),
    reason="needs a Linux machine without a GPU device node",
)
def test_importing_tensorflow_first_exits_cleanly():
    # Mesa's drivers bring the system's libLLVM; loaded after TensorFlow's library it
    # binds to TensorFlow's LLVM symbols and glibc aborts at exit ("free(): invalid
    # pointer"). With no GPU to find, the drivers are no longer loaded.
    pytest.importorskip("tensorflow")
    out = _mapped_after_import("tensorflow", {})
    assert out.returncode == 0, out.stderr[-2000:]
