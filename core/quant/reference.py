"""The quantize formula of each backend profile, written the way Burn writes it: the oracle.

    NdArray  (x / s).round().clamp(a, b)         burn-ndarray/src/ops/quantization.rs:128-132
    Flex     (x * (1.0 / s)).round().clamp(a, b) burn-flex/src/ops/qtensor.rs:108-113
    CubeCL   clamp(rint(x / s), a, b)            cubek-quant quantize.rs (round half to even)

All in f32: `round` is Rust's `f32::round` (half away from zero), `rint` rounds half to even. This
module is for reading and for testing: whole-array numpy, one line per step, no chunks, threads or
scratch buffers. The fast paths (`routerlab.core.quant.kernels`: chunked numpy, and the fused
numba kernel) are proven bit-identical to it by tests/quant/test_fused_kernel.py over every scheme
and profile; docs/performance.md says why there are fast paths at all.
"""

from __future__ import annotations

import numpy as np

from ..base.profiles import ProfileSpec

F32 = np.float32


def rust_round(v: np.ndarray) -> np.ndarray:
    """`f32::round`: to the nearest integer, ties away from zero. `v - trunc(v)` is exact in
    f32, so the tie test is exact too (adding 0.5 and truncating is not: 0.49999997 + 0.5 is
    rounded to 1)."""
    whole = np.trunc(v)
    return whole + np.where(np.abs(v - whole) >= F32(0.5), np.sign(v), F32(0)).astype(F32)


def reference_quantize(x: np.ndarray, factor: np.ndarray, lo: float, hi: float,
                       spec: ProfileSpec) -> tuple[np.ndarray, np.ndarray]:
    """`q` as int8 and the mask of NaN quotients (which Rust's `as i8` turns into 0).

    `factor` broadcasts against `x`: the effective scale `s` for a dividing profile, its f32
    reciprocal `1 / s` for Flex, one per element or per block (already expanded to `x`'s shape).
    """
    x, factor = np.asarray(x, F32), np.asarray(factor, F32)
    with np.errstate(all="ignore"):
        v = x / factor if spec.divide else x * factor
        rounded = np.rint(v) if spec.half_to_even else rust_round(v)
        clamped = np.clip(rounded, F32(lo), F32(hi))
    nan = np.isnan(clamped)
    return np.where(nan, F32(0), clamped).astype(np.int8), nan
