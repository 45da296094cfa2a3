"""Dequantize: `x̂ = s_eff * q`, the read side of a quantized tensor.

Kept apart from `ops.py` (which builds `QuantizedTensor`s) because it only reads one, so
`QuantizedTensor.dequantize` can call it without an import loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..base.dtypes import DType
from ..base.errors import QuantizationError
from ..base.profiles import DEFAULT_CPU_PROFILE, Profile
from .arrays import get_array_module, is_numpy
from .blocks import blockwise
from .kernels import split
from .scale_dtype import to_f32

if TYPE_CHECKING:
    from .quantized import QuantizedTensor

F32 = np.float32
NDARRAY_ZERO_SCALE = F32(0.1)


def effective_scales(scales: np.ndarray, glob: np.float32 | None, profile: Profile) -> np.ndarray:
    """`s_eff` per block in f32: `global * s`, with NdArray's zero guard."""
    eff = scales if glob is None else F32(glob) * scales
    if profile.spec.zero_scale == "0.1":
        eff = np.where(eff == 0, NDARRAY_ZERO_SCALE, eff)
    return eff.astype(F32)


def dequantize(
    tensor: QuantizedTensor, *, profile: Profile = DEFAULT_CPU_PROFILE, dtype: DType = DType.F32
) -> Any:
    """`x̂ = s_eff * q` in f32, then converted to `dtype` (F32, Flex32, F64, F16 or BF16), on the
    values' array module. Flex32 is stored as f32, as Flex's `dequantize` does
    (`crates/burn-flex/src/ops/qtensor.rs:231`). Only NdArray differs: it dequantizes a zero
    `s_eff` with 0.1."""
    if not dtype.is_float():
        raise QuantizationError(f"dequantize produces F32, Flex32, F64, F16 or BF16, not {dtype}")
    q = tensor.q()
    xp = get_array_module(q)
    eff = effective_scales(to_f32(tensor.scales), tensor.global_scale, profile)
    block = tensor.scheme.block_size()
    if block is not None:
        out = blockwise(q, xp.asarray(eff), block, lambda v, s: xp.multiply(v, s, dtype=F32))
    elif is_numpy(xp):
        scale = F32(eff.reshape(-1)[0])
        out = np.empty(q.shape, F32)
        flat_q, flat_out = q.reshape(-1), out.reshape(-1)
        split(q.size, lambda b, e: np.multiply(flat_q[b:e], scale, out=flat_out[b:e], dtype=F32))
    else:
        out = xp.multiply(q, F32(eff.reshape(-1)[0]), dtype=F32)
    return out if dtype.numpy == out.dtype else out.astype(dtype.numpy)
