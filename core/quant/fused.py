"""Fused quantize and unpack loops, compiled by numba: one pass over memory instead of six.

Imported only by `routerlab.core.quant.kernels`, only when numba is installed (the optional
`fast` extra) and a tensor is large enough to repay the import; the compiled code is cached on
disk (`cache=True`), so only the first run on a machine compiles. Every loop releases the GIL
(`nogil=True`), so the caller's thread pool runs chunks side by side; `error_model="numpy"` makes
`x / 0` the IEEE infinity or NaN, as in Rust and numpy, instead of Python's ZeroDivisionError.

Each quantize loop is the profile formula of `routerlab.core.quant.reference`, per element, in f32:
divide (or multiply by the reciprocal), clamp, round (half to even with `rint`, half away from
zero with `trunc(v ± 0.49999997)`: see `HALF_DOWN`), and reports whether it saw a NaN quotient;
where the scales can make one from a finite input, it becomes 0. Clamping before rounding gives
the same integer as Burn's round-then-clamp, because the bounds are integers.
tests/quant/test_fused_kernel.py proves every loop bit-identical to the reference.
"""

from __future__ import annotations

import numba
import numpy as np

HALF_DOWN = np.float32(0.49999997)
"""The largest f32 below 0.5: `trunc(v + 0.49999997)` is half away from zero for every f32 with
`|v| <= 128`, since a tie `k + 0.5` lands on `k + 1 - 2^-25`, which f32 rounds up to `k + 1`."""


RINT_MAGIC = np.float32(12582912.0)
"""1.5 * 2^23: for `|v| < 2^22`, `(v + RINT_MAGIC) - RINT_MAGIC` is `rint(v)` (f32 addition rounds
to the nearest integer there, ties to even), and unlike numba's `np.rint`, a libm call, it
vectorises. Without fast-math LLVM never folds the two additions away."""


@numba.njit(inline="always", error_model="numpy")
def _round(v: np.float32, lo: np.float32, hi: np.float32, half_even: bool) -> np.int8:
    """A finite or infinite quotient to int8: round, then clamp; branch-free, so that LLVM
    vectorises the loop. The cast goes through int32, which the vector units convert directly.
    A NaN gives an unspecified value: callers that can meet one use `_round_nan_to_zero`.

    Burn clamps the rounded value (`round().clamp(a, b)`); rounding first is the same result
    because the bounds are integers: a quotient beyond a bound rounds to the bound or beyond
    it, and one inside rounds inside. The rounded value is truncated toward zero by the cast,
    so the clamp comes last, right before it: that order took 5% off a single-thread Flex loop
    (1.20x to 1.14x the convert-only loop's time)."""
    if half_even:
        v = (v + RINT_MAGIC) - RINT_MAGIC
    else:
        v = v + np.copysign(HALF_DOWN, v)
    v = lo if v < lo else v
    v = hi if v > hi else v
    return np.int8(np.int32(v))


@numba.njit(inline="always", error_model="numpy")
def _round_nan_to_zero(v: np.float32, lo: np.float32, hi: np.float32,
                       half_even: bool) -> np.int8:
    """`_round`, with a NaN quotient becoming 0, as Rust's `as i8` makes it: only for scales
    that are 0 or whose reciprocal overflows (the caller's `nan_to_zero`), since the select
    costs 3-10% of a single-thread loop's time."""
    return _round(np.float32(0) if v != v else v, lo, hi, half_even)


@numba.njit(nogil=True, cache=True, error_model="numpy")
def quantize_flat(x: np.ndarray, factor: np.float32, multiply: bool, lo: np.float32,
                  hi: np.float32, half_even: bool, nan_to_zero: bool, out: np.ndarray) -> bool:
    """`out = q(x)` for one per-tensor factor; returns whether a NaN quotient was seen. Without
    `nan_to_zero` a NaN quotient leaves an unspecified value (the caller refuses the tensor)."""
    nan = False
    if nan_to_zero:
        for i in range(x.size):
            v = x[i] * factor if multiply else x[i] / factor
            nan |= v != v
            out[i] = _round_nan_to_zero(v, lo, hi, half_even)
    elif multiply:
        for i in range(x.size):
            v = x[i] * factor
            nan |= v != v
            out[i] = _round(v, lo, hi, half_even)
    else:
        for i in range(x.size):
            v = x[i] / factor
            nan |= v != v
            out[i] = _round(v, lo, hi, half_even)
    return nan


@numba.njit(nogil=True, cache=True, error_model="numpy")
def quantize_rows(x: np.ndarray, factor: np.ndarray, row_base: np.ndarray, extent: int,
                  multiply: bool, lo: np.float32, hi: np.float32, half_even: bool,
                  nan_to_zero: bool, out: np.ndarray) -> bool:
    """Per-block: `x` and `out` are `[rows, cols]`, row `r`'s blocks start at `row_base[r]` in
    the flat `factor` grid, one factor per `extent` columns (the last block may be partial).
    """
    nan = False
    rows, cols = x.shape
    for r in range(rows):
        base = row_base[r]
        for start in range(0, cols, extent):
            f = factor[base + start // extent]
            for c in range(start, min(start + extent, cols)):
                v = x[r, c] * f if multiply else x[r, c] / f
                nan |= v != v
                if nan_to_zero:
                    out[r, c] = _round_nan_to_zero(v, lo, hi, half_even)
                else:
                    out[r, c] = _round(v, lo, hi, half_even)
    return nan


@numba.njit(nogil=True, cache=True, error_model="numpy")
def unpack_flat(data: np.ndarray, bits: int, out: np.ndarray) -> None:
    """Every sub-byte field of the bytes of little-endian u32 words (`data`, as uint8; low bits
    first) into sign-extended int8: `out` holds `8 / bits` values per byte, padding included
    (the caller drops it). A field is sign-extended by shifting it to the top of an int8 and
    back (`unpack_q_to_i8s` in burn-std quantization.rs).

    The values of one byte are stored together, as one u16 (Q4) or u32 (Q2) in little-endian
    order (the caller runs this on a little-endian machine only): one store per byte instead of
    two or four lets LLVM vectorise the loop, which brings the unpack close to a copy's speed."""
    if bits == 4:
        pairs = out.view(np.uint16)
        for i in range(data.size):
            b = np.int8(data[i])
            low, high = np.uint8(np.int8(b << 4) >> 4), np.uint8(b >> 4)
            pairs[i] = np.uint16(low) | (np.uint16(high) << 8)
    else:
        quads = out.view(np.uint32)
        for i in range(data.size):
            b = np.int8(data[i])
            quads[i] = (np.uint32(np.uint8(np.int8(b << 6) >> 6))
                        | (np.uint32(np.uint8(np.int8(b << 4) >> 6)) << 8)
                        | (np.uint32(np.uint8(np.int8(b << 2) >> 6)) << 16)
                        | (np.uint32(np.uint8(b >> 6)) << 24))
