"""Lazy, never-raising detection of a usable CuPy GPU.

CuPy is optional (the `gpu` extra). It is imported only when something asks for a `cuda:N`
device or for this report, never when `routerlab.core` is imported. "Usable" means all three of:
CuPy imports, `cupy.is_available()` says a driver and device exist, and one tiny kernel runs
(which proves the run-time compiler, NVRTC, is present). `ROUTERLAB_FORCE_NUMPY=1` forces the
numpy-only answer, for users and tests that want CPU behaviour on a GPU machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

from .errors import GpuUnavailableError

FORCE_NUMPY_ENV = "ROUTERLAB_FORCE_NUMPY"


@dataclass(frozen=True)
class GpuStatus:
    """What was found, and in plain words why a GPU cannot be used when it cannot."""

    usable: bool
    reason: str
    cupy_version: str | None = None
    device_count: int = 0
    device_name: str | None = None


@lru_cache(maxsize=1)
def gpu_status() -> GpuStatus:
    """Probe once per process; every later call is free."""
    if os.environ.get(FORCE_NUMPY_ENV, "") not in ("", "0"):
        return GpuStatus(False, f"{FORCE_NUMPY_ENV} is set: the numpy backend is forced")
    try:
        import cupy
    except Exception as error:  # ImportError, or a broken CUDA install raising at import
        return GpuStatus(False, f"CuPy is not installed ({type(error).__name__}); "
                                "install the `gpu` extra: pip install 'routerlab[gpu]'")
    version = getattr(cupy, "__version__", None)
    try:
        if not cupy.is_available():
            return GpuStatus(False, "CuPy is installed but finds no CUDA driver or GPU", version)
        count = int(cupy.cuda.runtime.getDeviceCount())
        (cupy.arange(3, dtype=cupy.float32) * 2).sum().item()
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
    except Exception as error:
        return GpuStatus(False, f"CuPy found a GPU but a test kernel failed: "
                                f"{type(error).__name__}: {error}".splitlines()[0], version)
    return GpuStatus(True, "CuPy and a CUDA GPU are usable", version, count, name)


def require_cupy(device_index: int = 0) -> ModuleType:
    """Return the `cupy` module for `cuda:device_index`, or raise one clear error saying why not."""
    status = gpu_status()
    if not status.usable:
        raise GpuUnavailableError(f"cuda:{device_index} is not available: {status.reason}")
    if device_index >= status.device_count:
        raise GpuUnavailableError(
            f"cuda:{device_index} does not exist: {status.device_count} GPU(s) found"
        )
    import cupy

    return cupy
