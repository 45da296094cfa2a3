"""`TensorData`: host bytes + shape + dtype, the only thing that crosses peers.

Burn's `TensorData` is what `*_into_data` returns and `*_from_data` takes; the cross-peer transfer
path ships it between servers (reference §9.3) and the byte bridge round-trips through it. Keeping
the payload as immutable `bytes` (not an array) makes every crossing a real, countable copy, and
lets the quantized extension store its own layout (values, scales, global scale; reference §12)
under a `QFloat` dtype without the core knowing that layout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from routerlab.core.dtypes import AnyDType, DType, QFloat
from routerlab.core.errors import DTypeError, ShapeError


@dataclass(frozen=True, slots=True)
class TensorData:
    """Native-endian, C-order bytes of a tensor, with its shape and dtype."""

    bytes: bytes
    shape: tuple[int, ...]
    dtype: AnyDType

    @classmethod
    def from_array(cls, array: Any, dtype: DType | None = None) -> TensorData:
        """Copy a host array (or anything numpy accepts) into bytes, converting to `dtype`."""
        try:
            host = np.asarray(array)
        except (ValueError, TypeError) as error:
            raise ShapeError(f"values do not form a rectangular array: {error}") from None
        if host.dtype.kind not in "biuf":
            raise DTypeError(f"values must be numbers or booleans, not {host.dtype}")
        target = dtype if dtype is not None else DType.from_numpy(host.dtype)
        host = np.ascontiguousarray(host, dtype=target.numpy)
        return cls(host.tobytes(), tuple(int(d) for d in host.shape), target)

    def to_numpy(self) -> np.ndarray:
        """A fresh, writable host array of the plain dtype (quantized data has no plain view)."""
        if isinstance(self.dtype, QFloat):
            raise DTypeError("quantized TensorData has no plain array view; dequantize it")
        flat = np.frombuffer(self.bytes, dtype=self.dtype.numpy).copy()
        return flat.reshape(self.shape)

    @property
    def num_bytes(self) -> int:
        return len(self.bytes)

    @property
    def num_elements(self) -> int:
        return math.prod(self.shape)
