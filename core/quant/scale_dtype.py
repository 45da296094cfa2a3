"""Storing a scale: Burn's round-UP to the scale dtype, and the dtypes scales are kept in.

`scale_to_dtype(s, dtype)` (`crates/burn-std/src/tensor/quantization.rs:364-368`) is
`dtype.round_up(s)` (`cubecl@4834896:crates/cubecl-common/src/quant/scheme.rs:235-280`): the
smallest representable value not below `s`. It is *not* a cast (casts round to nearest): a scale
rounded down would push the block maximum past the quantized range, where it clips. Every backend
quantizes against the rounded scale so that what it divides by is what it stores.

The rule is walked on the f32 bit pattern (`crates/burn-std/src/tensor/quantization.rs:364-368`):
- F32: identity. NaN stays NaN. At or above the dtype max: the max (saturation).
- below the dtype's min normal (F16, UE4M3): `ceil(s / spacing) * spacing`;
- otherwise add `bit_step - 1` to the f32 bits and clear the low bits, with
  `bit_step = 2^(24 - mantissa digits)` (F16: 11 digits, BF16: 8, UE4M3: 4).
- UE8M0 has no rule at this Burn commit: refused.

Scales are a handful of numbers, so they live on the host as numpy arrays in their storage dtype
(ml_dtypes supplies bfloat16 and float8_e4m3fn, which is UE4M3's bit layout with the sign clear).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.errors import QuantizationError
from .scheme import ScaleDtype

F32_MIN_POSITIVE = np.float32(np.finfo(np.float32).tiny)
"""`f32::MIN_POSITIVE` (2^-126), the floor Burn's zero-scale guards use."""

# (bit_step, min_normal, subnormal spacing) on the f32 grid; None where the dtype needs no
# separate subnormal ladder (bf16 subnormals are f32 subnormals too).
_GRID: dict[ScaleDtype, tuple[int, float | None, float | None]] = {
    ScaleDtype.F16: (1 << (24 - 11), 2.0**-14, 2.0**-24),
    ScaleDtype.BF16: (1 << (24 - 8), None, None),
    ScaleDtype.UE4M3: (1 << (24 - 4), 2.0**-6, 2.0**-9),
}


def _refuse_ue8m0(dtype: ScaleDtype) -> None:
    if dtype is ScaleDtype.UE8M0:
        raise QuantizationError(
            "UE8M0 scales are not yet supported (Burn 2c06be3: burn-std quantization.rs "
            "scale_to_dtype / encode_scales / decode_scales all refuse them)"
        )


def round_up(scales: Any, dtype: ScaleDtype) -> np.ndarray:
    """Round f32 scales up onto `dtype`'s grid, elementwise; returns a new float32 array."""
    _refuse_ue8m0(dtype)
    s = np.array(scales, dtype=np.float32, copy=True)
    if dtype is ScaleDtype.F32:
        return s
    bit_step, min_normal, spacing = _GRID[dtype]
    top = np.float32(dtype.max_representable)
    bits = s.view(np.uint32)
    stepped = ((bits + np.uint32(bit_step - 1)) & np.uint32(~(bit_step - 1) & 0xFFFFFFFF)).view(
        np.float32
    )
    with np.errstate(over="ignore", invalid="ignore"):
        out = stepped
        if min_normal is not None:
            step = np.float32(spacing)
            ladder = np.ceil(s / step) * step
            out = np.where(s < np.float32(min_normal), ladder, out)
        out = np.where(s >= top, top, out)
    return np.where(np.isnan(s), s, out).astype(np.float32)


def storage_dtype(dtype: ScaleDtype) -> np.dtype[Any]:
    """The numpy dtype a scale of `dtype` is stored in (same bytes as Burn's `encode_scales`)."""
    _refuse_ue8m0(dtype)
    if dtype is ScaleDtype.F32:
        return np.dtype(np.float32)
    if dtype is ScaleDtype.F16:
        return np.dtype(np.float16)
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16 if dtype is ScaleDtype.BF16 else ml_dtypes.float8_e4m3fn)


def to_storage(rounded: np.ndarray, dtype: ScaleDtype) -> np.ndarray:
    """Encode already rounded-up f32 scales in their storage dtype.

    The cast is exact because `round_up` put every value on the dtype's grid (Burn's
    `scale_to_dtype_survives_the_codec` test pins that the codec then moves nothing).
    """
    return np.asarray(rounded, dtype=np.float32).astype(storage_dtype(dtype))


def to_f32(stored: np.ndarray) -> np.ndarray:
    """Decode stored scales back to f32 (Burn's `decode_scales`)."""
    return np.asarray(stored).astype(np.float32)
