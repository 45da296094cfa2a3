"""Calibration: from a float tensor to its range, and from a range to scales (docs/burn.md, 13).

Burn's generic path (`QTensorOps::quantize_dynamic`, burn-backend backend/ops/qtensor.rs:144-149)
is `compute_range(MinMax)` → `compute_q_params` → `quantize`; NdArray and the CubeCL backends use
it. Flex overrides `quantize_dynamic` with the same scale formula computed on the host but its own
two-level arithmetic (`flex_q_params`), and with no `compute_range`: it takes each block's largest
magnitude (`flex_range`), so a partial last block is a block like any other. Everything here is
f32, as Burn computes it for an f32 tensor:

    scale = 2 * max(|min|, |max|) / (b - a)

and for a two-level scheme (`normalize_scales`, burn-backend quantization/scheme.rs:109-134)

    global = max(block scales) / block_dtype.max   (clamped to >= f32::MIN_POSITIVE)
    block scales = block scales / global

so the largest block scale lands exactly on the dtype maximum (448 for UE4M3). Rounding the scales
onto their dtype is *not* done here; it happens when quantizing (`ops.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.choices import Choice
from ..base.errors import QuantizationError
from .arrays import get_array_module, to_host
from .blocks import reduce_blocks, require_divisible
from .scale_dtype import F32_MIN_POSITIVE, round_up
from .scheme import QuantScheme, ScaleDtype, check_quantizable

F32 = np.float32


class Calibration(Choice, noun="calibration", error=QuantizationError):
    """`Calibration` (burn-std quantization.rs): the range a tensor is mapped from."""

    MINMAX = "minmax"
    """`(min(x), max(x))` per tensor or per block."""
    ABSMEAN = "absmean"
    """BitNet b1.58: `gamma = mean(|x|)`, range `[-gamma, gamma]`; no two-level form."""


@dataclass(frozen=True)
class QParams:
    """Unrounded f32 scales shaped as the block grid (`[1]` per tensor) and the optional global,
    on the host (`QuantizationParametersPrimitive`)."""

    scales: np.ndarray
    global_scale: np.float32 | None = None


def check_calibration(scheme: QuantScheme, shape: tuple[int, ...],
                      calibration: Calibration, *, flex: bool = False) -> None:
    """What calibrating `shape` under `scheme` refuses whatever the values are: partial blocks
    (except on Flex, whose MinMax `quantize_dynamic` takes them), and AbsMean with a two-level
    scheme. The client asks before it submits a quantize."""
    block = scheme.block_size()
    if calibration is Calibration.ABSMEAN and scheme.is_two_level:
        raise QuantizationError(
            "AbsMean calibration has no two-level form: BitNet's gamma is a mean over the "
            "whole tensor or block, which a per-tensor scale cannot decompose"
        )
    if block is not None and not (flex and calibration is Calibration.MINMAX):
        require_divisible(tuple(shape), block)


def flex_range(x: Any, scheme: QuantScheme) -> tuple[Any, Any]:
    """Flex's `quantize_dynamic` range: `(-alpha, alpha)` with `alpha` each block's largest
    magnitude (`block_max_abs`, `crates/burn-flex/src/ops/qtensor.rs:32-40, 74-135`). Blocks
    follow `BlockLayout::block_of`, so a partial last block along an axis is a block of its own
    (`crates/burn-std/src/tensor/quantization.rs:152-193`); only a debug build's `debug_assert`
    refuses it (qtensor.rs:23-30), and a release build is what a server runs."""
    xp = get_array_module(x)
    magnitude = xp.abs(xp.asarray(x, dtype=F32))
    block = scheme.block_size()
    if block is None:
        alpha = xp.max(magnitude).reshape(1)
    else:
        dims = block.dims_for(magnitude.ndim)
        pad = [(0, -dim % extent) for dim, extent in zip(magnitude.shape, dims, strict=True)]
        whole = xp.pad(magnitude, pad) if any(p[1] for p in pad) else magnitude  # |0| adds nothing
        alpha = reduce_blocks(whole, block, xp.max).reshape(block.num_blocks(magnitude.shape))
    return -alpha, alpha


def compute_range(x: Any, scheme: QuantScheme, calibration: Calibration) -> tuple[Any, Any]:
    """`compute_range`: `(min, max)` f32 arrays of the block-grid shape (`[1]` per tensor)."""
    check_calibration(scheme, tuple(x.shape), calibration)
    xp = get_array_module(x)
    x = xp.asarray(x, dtype=F32)
    block = scheme.block_size()
    if calibration is Calibration.ABSMEAN:
        magnitude = xp.abs(x)
        if block is None:
            gamma = (xp.sum(magnitude, dtype=F32) / F32(max(magnitude.size, 1))).reshape(1)
        else:
            gamma = reduce_blocks(
                magnitude, block, lambda a, axis: xp.mean(a, axis=axis, dtype=F32)
            )
        return -gamma, gamma
    if block is None:
        return xp.min(x).reshape(1), xp.max(x).reshape(1)
    return reduce_blocks(x, block, xp.min), reduce_blocks(x, block, xp.max)


def _raw_scales(scheme: QuantScheme, low: Any, high: Any) -> np.ndarray:
    a, b = scheme.value.range
    alpha = np.maximum(np.abs(to_host(low).astype(F32)), np.abs(to_host(high).astype(F32)))
    return (alpha * F32(2)) / F32(b - a)


def compute_q_params(scheme: QuantScheme, low: Any, high: Any) -> QParams:
    """Burn's generic `compute_q_params` (+ `normalize_scales` for a two-level scheme)."""
    scales = _raw_scales(scheme, low, high)
    if not scheme.is_two_level:
        return QParams(scales)
    check_quantizable(scheme)
    global_scale = max(
        F32(np.max(scales)) / F32(scheme.scale_dtype().max_representable), F32_MIN_POSITIVE
    )
    return QParams(scales / global_scale, F32(global_scale))


def flex_q_params(scheme: QuantScheme, low: Any, high: Any) -> QParams:
    """Flex's `quantize_dynamic` scale arithmetic (burn-flex ops/qtensor.rs:67-142).

    Same per-block `2 * alpha / range`; for a two-level scheme the global is *validated* (rounded
    to f32 and a zero replaced by `f32::MIN_POSITIVE`, a subnormal kept) instead of clamped, and
    the block scales are divided by that validated global.
    """
    scales = _raw_scales(scheme, low, high)
    if not scheme.is_two_level:
        return QParams(scales)
    peak = F32(max(F32(0), F32(np.max(scales))))
    global_scale = flex_validated(
        np.array([peak / F32(scheme.scale_dtype().max_representable)]), ScaleDtype.F32
    )[0]
    return QParams(scales / global_scale, F32(global_scale))


def flex_validated(scales: np.ndarray, dtype: ScaleDtype) -> np.ndarray:
    """Flex's `validated_scale`: round up to the dtype, then replace a zero, non-finite or
    negative result with `scale_to_dtype(f32::MIN_POSITIVE)` (burn-flex ops/qtensor.rs:402-412)."""
    rounded = round_up(scales, dtype)
    floor = round_up(np.array([F32_MIN_POSITIVE]), dtype)[0]
    good = np.isfinite(rounded) & (rounded > 0)
    return np.where(good, rounded, floor).astype(F32)
