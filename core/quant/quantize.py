"""Quantize and dequantize with one of Burn's three backend profiles (reference §11.3-11.4).

    q = clamp(round(x / s_eff), a, b)        x̂ = s_eff * q        (all f32)

`s_eff` is the stored (rounded-up) scale, or `global * block_scale` for a two-level scheme. The
profiles differ exactly where Burn's backends do (`routerlab.core.profiles`):
- ndarray: divide, round half away from zero (Rust `f32::round`), a zero `s_eff` becomes 0.1
  (`SymmetricQuantization::init`, burn-ndarray ops/quantization.rs);
- flex: multiply by `1 / s_eff`, half away from zero; each level is validated first (rounded up,
  a zero/non-finite one replaced by `scale_to_dtype(f32::MIN_POSITIVE)`), burn-flex ops/qtensor.rs;
- cubecl: divide, round half to even (`rint`), no zero guard (`x / 0` is what the GPU computes;
  cubek-quant quantize.rs).
Rust's `as i8` turns a NaN quotient into 0; the model does the same.

Everything is array code on the input's array module (numpy or CuPy). On numpy, per-tensor
quantization runs in cache-sized chunks spread over a few threads (numpy releases the GIL in
its loops), writing into preallocated buffers.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from routerlab.core.dtypes import DType
from routerlab.core.errors import QuantizationError
from routerlab.core.profiles import DEFAULT_CPU_PROFILE, Profile
from routerlab.core.quant.arrays import get_array_module, is_numpy
from routerlab.core.quant.backend_rules import stored_scheme
from routerlab.core.quant.blocks import blockwise
from routerlab.core.quant.calibration import (
    Calibration,
    QParams,
    compute_q_params,
    compute_range,
    flex_q_params,
    flex_validated,
)
from routerlab.core.quant.layout import layout_of, params_shape
from routerlab.core.quant.notation import parse_scheme
from routerlab.core.quant.packing import pack_u32
from routerlab.core.quant.scale_dtype import round_up, to_f32, to_storage
from routerlab.core.quant.scheme import QuantScheme, ScaleDtype, check_quantizable
from routerlab.core.quant.tensor import QuantizedTensor

F32 = np.float32
CHUNK = 1 << 16
"""Elements per chunk: 256 KiB of f32, so a chunk's passes stay in the L2 cache."""
JUST_BELOW_HALF = F32(0.49999997)
"""`trunc(v ± 0.49999997)` is half-away-from-zero rounding for every f32 `|v| <= 128`: a tie
`k + 0.5` lands on `k + 1 - 2^-25`, which f32 rounds up to `k + 1`, while the largest f32 below
0.5 stays below 1 (adding exactly 0.5 would round it up)."""
NDARRAY_ZERO_SCALE = F32(0.1)
_THREADS = max(1, min(8, os.cpu_count() or 1))
_POOL: ThreadPoolExecutor | None = None


def _as_scheme(scheme: QuantScheme | str) -> QuantScheme:
    return parse_scheme(scheme) if isinstance(scheme, str) else scheme


def _float_input(x: Any) -> tuple[Any, Any]:
    xp = get_array_module(x)
    array = xp.asarray(x, dtype=F32)
    if not bool(xp.isfinite(array).all()):
        raise QuantizationError("cannot quantize NaN or infinite values")
    return xp, array


def _prepare(x: Any, scheme: QuantScheme | str, profile: Profile) -> tuple[Any, Any, QuantScheme]:
    xp, array = _float_input(x)
    requested = _as_scheme(scheme).resolve(profile)
    check_quantizable(requested)
    return xp, array, stored_scheme(requested, profile, tuple(array.shape))


def _given_scales(scheme: QuantScheme, shape: tuple[int, ...], scales: Any,
                  global_scale: Any) -> QParams:
    grid = params_shape(shape, scheme)
    values = np.asarray(scales, dtype=F32).reshape(-1)
    if values.size != int(np.prod(grid)):
        raise QuantizationError(
            f"scheme {scheme} on shape {list(shape)} takes {int(np.prod(grid))} scale(s) "
            f"(grid {list(grid)}), got {values.size}"
        )
    if not (np.isfinite(values).all() and (values >= 0).all()):
        raise QuantizationError("scales must be finite and >= 0 (a quantization scale is never negative)")
    if scheme.is_two_level != (global_scale is not None):
        need = "requires" if scheme.is_two_level else "does not take"
        raise QuantizationError(f"scheme {scheme} {need} a per-tensor global scale")
    glob = None
    if global_scale is not None:
        glob = F32(global_scale)
        if not (np.isfinite(glob) and glob >= 0):
            raise QuantizationError("the global scale must be finite and >= 0")
    return QParams(values.reshape(grid), glob)


def _stored_levels(scheme: QuantScheme, params: QParams,
                   profile: Profile) -> tuple[np.ndarray, np.float32 | None]:
    """The scales each backend stores (and divides by): rounded up to their dtypes; Flex also
    replaces zero levels."""
    dtype = scheme.scale_dtype()
    if profile.spec.zero_scale == "min_positive":
        scales = flex_validated(params.scales, dtype)
        glob = None if params.global_scale is None else flex_validated(
            np.array([params.global_scale]), ScaleDtype.F32)[0]
    else:
        scales = round_up(params.scales, dtype)
        glob = None if params.global_scale is None else round_up(
            np.array([params.global_scale]), ScaleDtype.F32)[0]
    return scales, glob


def _effective(scales: np.ndarray, glob: np.float32 | None, profile: Profile) -> np.ndarray:
    """`s_eff` per block in f32: `global * s`, with NdArray's zero guard."""
    eff = scales if glob is None else F32(glob) * scales
    if profile.spec.zero_scale == "0.1":
        eff = np.where(eff == 0, NDARRAY_ZERO_SCALE, eff)
    return eff.astype(F32)


def _round_clamp(v: Any, xp: Any, lo: float, hi: float, half_even: bool, tmp: Any) -> Any:
    """Clamp then round `v` in place (clamping first is equivalent: `a`, `b` are integers);
    the caller truncates to int8, which completes half-away-from-zero rounding."""
    xp.clip(v, F32(lo), F32(hi), out=v)
    if half_even:
        xp.rint(v, out=v)
    else:
        xp.copysign(JUST_BELOW_HALF, v, out=tmp)
        xp.add(v, tmp, out=v)
    return v


def _quantize_chunk(x: Any, out: Any, factor: np.float32, multiply: bool, lo: float, hi: float,
                    half_even: bool, fix_nan: bool, v: Any, tmp: Any) -> None:
    """One chunk into `out`, through the caller's preallocated f32 buffers `v` and `tmp`."""
    xp = get_array_module(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        (xp.multiply if multiply else xp.divide)(x, factor, out=v)
    _round_clamp(v, xp, lo, hi, half_even, tmp)
    if fix_nan:
        v[xp.isnan(v)] = 0
    out[...] = v


def _per_tensor(x: Any, factor: np.float32, multiply: bool, lo: float, hi: float,
                half_even: bool, fix_nan: bool) -> Any:
    """Per-tensor quantization: chunked and threaded on numpy, one pass of kernels on CuPy."""
    xp = get_array_module(x)
    out = xp.empty(x.shape, xp.int8)
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    n = flat_in.size
    args = (factor, multiply, lo, hi, half_even, fix_nan)
    if not is_numpy(xp) or n <= CHUNK:
        _quantize_chunk(flat_in, flat_out, *args, xp.empty(n, F32), xp.empty(n, F32))
        return out
    per_thread = -(-n // _THREADS)
    per_thread = -(-per_thread // CHUNK) * CHUNK

    def work(start: int) -> None:
        v, tmp = np.empty(CHUNK, F32), np.empty(CHUNK, F32)
        for begin in range(start, min(start + per_thread, n), CHUNK):
            end = min(begin + CHUNK, n)
            size = end - begin
            _quantize_chunk(flat_in[begin:end], flat_out[begin:end], *args, v[:size], tmp[:size])

    list(_pool().map(work, range(0, n, per_thread)))
    return out


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(_THREADS, thread_name_prefix="routerlab-quant")
    return _POOL


def _quantize_values(x: Any, scheme: QuantScheme, eff: np.ndarray, profile: Profile) -> Any:
    xp = get_array_module(x)
    spec = profile.spec
    lo, hi = scheme.value.range
    with np.errstate(divide="ignore", over="ignore"):
        factor = eff if spec.divide else (F32(1) / eff).astype(F32)
    fix_nan = not bool(np.all(np.isfinite(factor) & (factor != 0)))
    block = scheme.block_size()
    if block is None:
        return _per_tensor(x, F32(factor.reshape(-1)[0]), not spec.divide, lo, hi,
                           spec.half_to_even, fix_nan)
    grid = xp.asarray(factor)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = blockwise(x, grid, block, xp.divide if spec.divide else xp.multiply).astype(F32)
    _round_clamp(v, xp, lo, hi, spec.half_to_even, xp.empty_like(v))
    if fix_nan:
        v[xp.isnan(v)] = 0
    return v.astype(xp.int8)


def _build(x: Any, scheme: QuantScheme, params: QParams, profile: Profile) -> QuantizedTensor:
    shape = tuple(x.shape)
    scales, glob = _stored_levels(scheme, params, profile)
    q = _quantize_values(x, scheme, _effective(scales, glob, profile), profile)
    layout = layout_of(scheme, shape)
    values = q if layout.packed_axis is None else pack_u32(q, scheme.value.bits, layout.packed_axis)
    return QuantizedTensor(values, to_storage(scales, scheme.scale_dtype()), glob, scheme, shape, layout)


def quantize(x: Any, scheme: QuantScheme | str, scales: Any, global_scale: Any = None, *,
             profile: Profile = DEFAULT_CPU_PROFILE) -> QuantizedTensor:
    """Static quantization (`QTensorOps::quantize`) with given scales.

    `scales` is one value per block in row-major order of the block grid (one value per tensor);
    a two-level scheme also takes `global_scale`, and its scales are relative to it. Blocks may be
    partial here (every axis need not divide). The scheme's omitted store resolves to the
    profile's default; the returned tensor carries the scheme the backend kept.
    """
    xp, array, stored = _prepare(x, scheme, profile)
    params = _given_scales(stored, tuple(array.shape), scales, global_scale)
    return _build(array, stored, params, profile)


def quantize_dynamic(x: Any, scheme: QuantScheme | str, *, profile: Profile = DEFAULT_CPU_PROFILE,
                     calibration: Calibration = Calibration.MINMAX) -> QuantizedTensor:
    """Calibrate, then quantize.

    MinMax is `QTensorOps::quantize_dynamic`: the generic `compute_range` → `compute_q_params`
    path on ndarray and cubecl, Flex's own host arithmetic on flex. AbsMean is what a user does
    with `compute_range(AbsMean)` → `compute_q_params` → `quantize` on any backend.
    """
    xp, array, stored = _prepare(x, scheme, profile)
    if array.size == 0:
        raise QuantizationError("cannot calibrate an empty tensor")
    low, high = compute_range(array, stored, calibration)
    if calibration is Calibration.MINMAX and profile is Profile.FLEX:
        params = flex_q_params(stored, low, high)
    else:
        params = compute_q_params(stored, low, high)
    return _build(array, stored, params, profile)


def dequantize(tensor: QuantizedTensor, *, profile: Profile = DEFAULT_CPU_PROFILE,
               dtype: DType = DType.F32) -> Any:
    """`x̂ = s_eff * q` in f32, then converted to `dtype` (F32, F64, F16 or BF16), on the values'
    array module. Only NdArray differs: it dequantizes a zero `s_eff` with 0.1."""
    if not dtype.is_float() or dtype is DType.FLEX32:
        raise QuantizationError(f"dequantize produces F32, F64, F16 or BF16, not {dtype}")
    q = tensor.q()
    xp = get_array_module(q)
    eff = _effective(to_f32(tensor.scales), tensor.global_scale, profile)
    block = tensor.scheme.block_size()
    if block is None:
        out = xp.multiply(q, F32(eff.reshape(-1)[0]), dtype=F32)
    else:
        out = blockwise(q, xp.asarray(eff), block, lambda v, s: xp.multiply(v, s, dtype=F32))
    return out if dtype is DType.F32 else out.astype(dtype.numpy)
