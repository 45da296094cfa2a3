"""Quantize and dequantize with one of Burn's three backend profiles (docs/burn.md section 13).

    q = clamp(round(x / s_eff), a, b)        x̂ = s_eff * q        (all f32)

`s_eff` is the stored (rounded-up) scale, or `global * block_scale` for a two-level scheme. The
profiles differ exactly where Burn's backends do (`routerlab.core.base.profiles`):
- ndarray: divide, round half away from zero (Rust `f32::round`), a zero `s_eff` becomes 0.1
  (`SymmetricQuantization::init`, burn-ndarray ops/quantization.rs);
- flex: multiply by `1 / s_eff`, half away from zero; each level is validated first (rounded up,
  a zero/non-finite one replaced by `scale_to_dtype(f32::MIN_POSITIVE)`), burn-flex ops/qtensor.rs;
- cubecl: divide, round half to even (`rint`), no zero guard (`x / 0` is what the GPU computes;
  cubek-quant quantize.rs).

Non-finite inputs: an infinite `x` clamps to the range, exactly as in Burn (`x / s` is ±inf, then
`clamp`); a NaN is refused with a `QuantizationError` (Flex's `as i8` would silently make it 0,
NdArray's `Q::from(..).unwrap()` in `quantize_one` would panic, burn-ndarray
ops/quantization.rs), and calibration refuses both. A NaN *quotient* from a zero scale (`0 / 0` on
cubecl) becomes 0, as Rust's `as i8` makes it.

The formula itself, as Burn writes it, is `routerlab.core.quant.reference` (the oracle); this
module prepares scales and factors and hands the elementwise work to `routerlab.core.quant.kernels`
(a fused numba loop when numba is installed, chunked numpy otherwise, whole-array CuPy on a GPU),
which tests prove bit-identical to the reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..base.errors import QuantizationError
from ..base.profiles import DEFAULT_CPU_PROFILE, Profile
from .arrays import get_array_module, is_numpy, to_host
from .backend_rules import stored_scheme
from .blocks import blockwise
from .calibration import (
    Calibration,
    QParams,
    compute_q_params,
    compute_range,
    flex_q_params,
    flex_range,
    flex_validated,
)
from .dequant import F32, effective_scales
from .kernels import Kernel
from .layout import QuantLayout, check_scale_count, layout_of, params_shape
from .notation import parse_scheme
from .packing import pack_u32
from .quantized import QuantizedTensor
from .scale_dtype import round_up, to_storage
from .scheme import (
    QuantScheme,
    ScaleDtype,
    check_global_scale,
    check_quantizable,
)

NAN_INPUT = "cannot quantize NaN values"
NON_FINITE_CALIBRATION = "cannot calibrate NaN or infinite values"


def _as_scheme(scheme: QuantScheme | str) -> QuantScheme:
    return parse_scheme(scheme) if isinstance(scheme, str) else scheme


def _refuse_nan(x: Any) -> None:
    xp = get_array_module(x)
    if bool(xp.isnan(x).any()):
        raise QuantizationError(NAN_INPUT)


def _prepare(x: Any, scheme: QuantScheme | str, profile: Profile) -> tuple[Any, QuantScheme]:
    xp = get_array_module(x)
    if getattr(x, "dtype", None) == F32:  # nothing to cast (and no errstate, a few µs a call)
        array = xp.asarray(x)
    else:
        with np.errstate(over="ignore"):  # an f64 beyond f32's range is inf, as Burn's cast does
            array = xp.asarray(x, dtype=F32)
    return array, _schemes(scheme, profile, tuple(array.shape))


@lru_cache(maxsize=256)
def _schemes(scheme: QuantScheme | str, profile: Profile, shape: tuple[int, ...]) -> QuantScheme:
    """The scheme `profile` stores for `shape` when asked for `scheme` (refused here if it
    cannot quantize). It depends on its arguments alone, and every quantize asks it. (The
    scales are not remembered: an exercise's check swaps `round_up`, which stores them, for a
    student's, and a remembered result would skip it.)"""
    requested = _as_scheme(scheme).resolve(profile)
    check_quantizable(requested)
    return stored_scheme(requested, profile, shape)


def given_scales(
    scheme: QuantScheme, shape: tuple[int, ...], scales: Any, global_scale: Any
) -> QParams:
    """Given scales as the quantizer takes them, or the refusal of ones it cannot: the count,
    finiteness and sign the client checks before submitting a static quantize."""
    with np.errstate(over="ignore"):  # beyond f32's range is inf, refused below without a warning
        values = to_host(scales).astype(F32).reshape(-1)
    check_scale_count(scheme, shape, values.size)
    if not (np.isfinite(values).all() and (values >= 0).all()):
        raise QuantizationError(
            "scales must be finite in f32 (at most 3.4e38) and >= 0 (a quantization scale is never "
            "negative)"
        )
    check_global_scale(scheme, global_scale is not None)
    glob = None
    if global_scale is not None:
        with np.errstate(over="ignore"):
            glob = F32(global_scale)
        if not (np.isfinite(glob) and glob >= 0):
            raise QuantizationError(
                "the global scale must be finite in f32 (at most 3.4e38) and >= 0"
            )
    return QParams(values.reshape(params_shape(shape, scheme)), glob)


@dataclass(frozen=True)
class Levels:
    """What a quantize computes from its scheme and scales alone, before it reads a value: the
    stored scheme and layout, the scales as the backend stores them, the global, and the factor
    each block's values are divided (or, on Flex, multiplied) by."""

    scheme: QuantScheme
    layout: QuantLayout
    scales: np.ndarray
    """In their storage dtype."""
    global_scale: np.float32 | None
    factor: np.ndarray
    """f32 per block: `s_eff` where the profile divides, `1 / s_eff` where it multiplies."""
    fix_nan: bool
    """Whether a factor (0, or a reciprocal that overflows) can make a NaN from finite input."""


def levels(scheme: QuantScheme, shape: tuple[int, ...], params: QParams,
           profile: Profile) -> Levels:
    """The `Levels` of `params` on `profile`: scales rounded up to their dtype (Flex also
    replaces zero levels), then `s_eff` (NdArray's zero guard) and the factor."""
    store = flex_validated if profile.spec.zero_scale == "min_positive" else round_up
    rounded = store(params.scales, scheme.scale_dtype())
    glob = None
    if params.global_scale is not None:
        glob = store(np.array([params.global_scale]), ScaleDtype.F32)[0]
    eff = effective_scales(rounded, glob, profile)
    if profile.spec.divide:
        factor = eff
    else:
        with np.errstate(divide="ignore", over="ignore"):  # a level that underflowed to 0
            factor = (F32(1) / eff).astype(F32)
    fix_nan = not bool(np.all(np.isfinite(factor) & (factor != 0)))
    stored = to_storage(rounded, scheme.scale_dtype())
    return Levels(scheme, layout_of(scheme, shape), stored, glob, factor, fix_nan)


def _quantize_values(x: Any, found: Levels, profile: Profile) -> Any:
    xp = get_array_module(x)
    lo, hi = found.scheme.value.range
    if found.fix_nan or not is_numpy(xp):
        _refuse_nan(x)
    spec = profile.spec
    kernel = Kernel(xp, not spec.divide, F32(lo), F32(hi), spec.half_to_even, found.fix_nan)
    block = found.scheme.block_size()
    factor = found.factor
    try:
        if block is None:
            return kernel.per_tensor(x, F32(factor.reshape(-1)[0]))
        return kernel.per_block(x, factor, block.dims_for(x.ndim),
                                lambda op: blockwise(x, xp.asarray(factor), block, op))
    except FloatingPointError:
        raise QuantizationError(NAN_INPUT) from None


def _build(x: Any, found: Levels, profile: Profile) -> QuantizedTensor:
    q = _quantize_values(x, found, profile)
    layout = found.layout
    values = q if layout.packed_axis is None else pack_u32(q, found.scheme.value.bits,
                                                           layout.packed_axis)
    return QuantizedTensor(values, found.scales, found.global_scale, found.scheme,
                           tuple(x.shape), layout)


def quantize(
    x: Any,
    scheme: QuantScheme | str,
    scales: Any,
    global_scale: Any = None,
    *,
    profile: Profile = DEFAULT_CPU_PROFILE,
) -> QuantizedTensor:
    """Static quantization (`QTensorOps::quantize`) with given scales.

    `scales` is one value per block in row-major order of the block grid (one value per tensor);
    a two-level scheme also takes `global_scale`, and its scales are relative to it. Blocks may be
    partial here (every axis need not divide). The scheme's omitted store resolves to the
    profile's default; the returned tensor carries the scheme the backend kept.
    """
    array, stored = _prepare(x, scheme, profile)
    shape = tuple(array.shape)
    params = given_scales(stored, shape, scales, global_scale)
    return _build(array, levels(stored, shape, params, profile), profile)


def quantize_dynamic(
    x: Any,
    scheme: QuantScheme | str,
    *,
    profile: Profile = DEFAULT_CPU_PROFILE,
    calibration: Calibration = Calibration.MINMAX,
) -> QuantizedTensor:
    """Calibrate, then quantize.

    MinMax is `QTensorOps::quantize_dynamic`: the generic `compute_range` → `compute_q_params`
    path on ndarray and cubecl, Flex's own host arithmetic on flex. AbsMean is what a user does
    with `compute_range(AbsMean)` → `compute_q_params` → `quantize` on any backend.
    """
    array, stored = _prepare(x, scheme, profile)
    if array.size == 0:
        raise QuantizationError("cannot calibrate an empty tensor")
    xp = get_array_module(array)
    if calibration is Calibration.ABSMEAN and not bool(xp.isfinite(array).all()):
        raise QuantizationError(NON_FINITE_CALIBRATION)
    flex = calibration is Calibration.MINMAX and profile is Profile.FLEX
    low, high = flex_range(array, stored) if flex else compute_range(array, stored, calibration)
    if not (np.isfinite(to_host(low)).all() and np.isfinite(to_host(high)).all()):
        raise QuantizationError(NON_FINITE_CALIBRATION)
    if flex:
        params = flex_q_params(stored, low, high)
    else:
        params = compute_q_params(stored, low, high)
    return _build(array, levels(stored, tuple(array.shape), params, profile), profile)
