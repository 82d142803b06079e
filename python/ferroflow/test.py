"""`tf.test`'s device queries: whether a GPU is available and its name."""

from __future__ import annotations

from .client import device_lib
from .ops.gradient_checker import compute_gradient, compute_gradient_error


def gpu_device_name() -> str:
    """The name of the first GPU device (`/device:GPU:0`), or `""` when there is none."""
    for d in device_lib.list_local_devices():
        if d.device_type == "GPU":
            return d.name
    return ""


def is_gpu_available(cuda_only: bool = False, min_cuda_compute_capability=None) -> bool:
    """Whether a GPU device is available (a wgpu adapter: Vulkan or Metal).

    Args:
        cuda_only: only CUDA GPUs count; ferroflow's GPUs are not CUDA devices, so
            this is then always `False`.
        min_cuda_compute_capability: ignored unless `cuda_only` (kept for TF's
            signature).
    """
    del min_cuda_compute_capability
    if cuda_only:
        return False
    return bool(gpu_device_name())


def is_built_with_cuda() -> bool:
    """Whether ferroflow was built with CUDA: never (its GPU backend is wgpu)."""
    return False


def is_built_with_gpu_support() -> bool:
    """Whether ferroflow was built with a GPU backend (wgpu: always)."""
    return True


__all__ = [
    "compute_gradient",
    "compute_gradient_error",
    "gpu_device_name",
    "is_built_with_cuda",
    "is_built_with_gpu_support",
    "is_gpu_available",
]
