"""`TensorData`: host bytes + shape + dtype, the only thing that crosses peers.

Burn's `TensorData` is what `*_into_data` returns and `*_from_data` takes; the cross-peer transfer
path ships it between servers (burn-remote worker.rs:311-364) and the byte bridge copies it. Keeping
the payload as immutable `bytes` (not an array) makes every crossing a real, countable copy, and
lets the quantized extension store its own layout (values, scales, global; docs/burn.md section 14)
under a `QFloat` dtype without the core knowing that layout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .dtypes import AnyDType, DType, QFloat
from .errors import DTypeError, ShapeError


@dataclass(frozen=True, slots=True)
class TensorData:
    """Native-endian, C-order bytes of a tensor, with its shape and dtype."""

    bytes: bytes
    shape: tuple[int, ...]
    dtype: AnyDType

    @classmethod
    def from_array(cls, array: Any, dtype: DType | None = None) -> TensorData:
        """Copy a host array (or anything numpy accepts) into bytes, converting to `dtype`; a
        read-only array that owns its memory and needs no conversion is kept, not copied.

        A value the target int, uint or bool dtype cannot hold exactly is refused with a
        `DTypeError` naming the value, the dtype and its range, where numpy's cast would wrap it
        (`300` as u8 would store 44, `-1` as u8 255) or truncate it (`2.7` as i32 would store 2,
        `nan` anything at all). An integral float counts as that integer: `3.0` as i32 is 3, and
        `0.0` / `1.0` as bool are False / True. Bool accepts 0, 1, True and False only. Float
        dtypes keep numpy's rounding to the nearest representable value, but a finite value too
        large for the dtype (`1e300` as f32, `70000` as f16) is refused rather than stored as
        infinity; `inf` and `nan` given as such stay what they are.
        """
        try:
            host = np.asarray(array)
        except (ValueError, TypeError) as error:
            raise ShapeError(f"values do not form a rectangular array: {error}") from None
        if host.dtype.kind not in "biuf":
            raise DTypeError(f"values must be numbers or booleans, not {host.dtype}")
        target = dtype if dtype is not None else DType.from_numpy(host.dtype)
        if host.dtype.kind != "b" and not target.is_float():
            _check_exact(host, target)
        with np.errstate(over="ignore"):
            cast = np.ascontiguousarray(host, dtype=target.numpy)
        if target.is_float() and host.dtype.kind == "f" and host.dtype != cast.dtype:
            _check_in_range(host, cast, target)  # the same dtype cannot overflow: no pass at all
        shape = tuple(int(d) for d in cast.shape)
        if cast is host and _handed_over(host):
            return cls(memoryview(host).cast("B").toreadonly(), shape, target)  # type: ignore[arg-type]
        return cls(cast.tobytes(), shape, target)

    def to_numpy(self) -> np.ndarray:
        """A fresh, writable host array of the plain dtype (quantized data has no plain view)."""
        if isinstance(self.dtype, QFloat):
            raise DTypeError("quantized TensorData has no plain array view; use read_quantized "
                             "or dequantize")
        flat = np.frombuffer(self.bytes, dtype=self.dtype.numpy).copy()
        return flat.reshape(self.shape)

    @property
    def num_bytes(self) -> int:
        return len(self.bytes)


def _handed_over(array: np.ndarray) -> bool:
    """A C-contiguous array that no one can write any more (it, and every array it views down
    to the one owning the memory, read-only) can be kept instead of copied, as Burn's
    `TensorData::new(vec, shape)` takes the `Vec` by value. Anything else is copied."""
    if not array.flags.c_contiguous or array.size == 0:
        return False
    while not array.flags.writeable:
        base = array.base
        if base is None:
            return bool(array.flags.owndata)
        if not isinstance(base, np.ndarray):
            return False
        array = base
    return False


def _check_in_range(host: np.ndarray, cast: np.ndarray, target: DType) -> None:
    """Refuse the first finite value that the float `target` rounds to infinity."""
    overflowed = np.isfinite(host) & ~np.isfinite(cast.astype(np.float64))
    if overflowed.any():
        import ml_dtypes  # its finfo knows bf16 as well as numpy's floats

        value = host[overflowed].ravel()[0].item()
        largest = float(ml_dtypes.finfo(target.numpy).max)
        raise DTypeError(f"value {value!r} is out of range for {target}, whose largest finite "
                         f"value is {largest:.6g}")


def _check_exact(host: np.ndarray, target: DType) -> None:
    """Refuse the first value of `host` (ints or floats) that `target` (an int, uint or bool
    dtype) cannot hold exactly; numpy's cast would change it without a word."""
    if host.size == 0:
        return
    if target is DType.BOOL:
        low, high = 0, 1
    else:
        info = np.iinfo(target.numpy)
        low, high = int(info.min), int(info.max)
    if host.dtype.kind == "f":
        values = host.astype(np.float64)  # exact for f16 / f32; the checks below are exact too
        # `high + 1` is a power of two, so it is exact as a float (`high` itself may not be).
        bad = (~np.isfinite(values) | (values != np.trunc(values)) | (values < float(low))
               | (values >= float(high + 1)))
        if not bad.any():
            return
    elif low <= int(host.min()) and int(host.max()) <= high:
        return
    value = next(v for v in host.ravel().tolist() if not low <= v <= high  # nan: not either
                 or isinstance(v, float) and not v.is_integer())
    if target is DType.BOOL:
        raise DTypeError(f"value {value!r} is not a bool: bool accepts 0, 1, True and False only")
    if not math.isfinite(value):
        raise DTypeError(f"value {value!r} is not a finite number, and {target} holds integers "
                         f"only ({low}..{high})")
    if not low <= value <= high:
        raise DTypeError(f"value {value!r} is out of range for {target}, which holds "
                         f"{low}..{high}")
    raise DTypeError(f"value {value!r} is not an integer, and {target} holds integers only; "
                     "round the values first, or use a float dtype")
