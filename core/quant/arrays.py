"""Which array module holds an array, and copies between modules, without importing CuPy early.

The quantization code is written against an array module `xp` (numpy or CuPy) so the same lines
run on the host and on a GPU. CuPy is optional: it is imported only when an array that already
is a CuPy array shows up, or when a caller asks for CuPy explicitly (`routerlab.core.base.gpu`).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np


def get_array_module(array: Any) -> ModuleType:
    """`numpy` for host arrays (and lists, scalars), `cupy` for CuPy arrays."""
    if type(array).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def is_numpy(xp: ModuleType) -> bool:
    return xp is np


def to_module(array: Any, xp: ModuleType) -> Any:
    """A copy of `array` held by `xp` (numpy ↔ cupy); the same object when already there."""
    source = get_array_module(array)
    if source is xp:
        return array
    if is_numpy(xp):
        return array.get()
    return xp.asarray(array)


def to_host(array: Any) -> np.ndarray:
    """`array` as a numpy array (a device-to-host copy for CuPy)."""
    return np.asarray(to_module(array, np))
