"""Quantize and dequantize with one of Burn's three backend profiles (docs/burn.md section 13).

    q = clamp(round(x / s_eff), a, b)        x̂ = s_eff * q        (all f32)

`s_eff` is the stored (rounded-up) scale, or `global * block_scale` for a two-level scheme. The
profiles differ exactly where Burn's backends do (`routerlab.core.profiles`):
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

Everything is array code on the input's array module (numpy or CuPy). On numpy, large tensors run
in cache-sized chunks over a few threads (numpy releases the GIL inside its loops) through
preallocated buffers, and the NaN check costs no extra pass: the float→int8 cast raises the
IEEE invalid flag on a NaN, which `np.errstate(invalid="raise")` turns into an exception.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, TypeAlias

import numpy as np

from routerlab.core.dtypes import DType
from routerlab.core.errors import QuantizationError
from routerlab.core.profiles import DEFAULT_CPU_PROFILE, Profile
from routerlab.core.quant.arrays import get_array_module, is_numpy, to_host
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
from routerlab.core.quant.layout import check_scale_count, layout_of, params_shape
from routerlab.core.quant.notation import parse_scheme
from routerlab.core.quant.packing import pack_u32
from routerlab.core.quant.scale_dtype import round_up, to_f32, to_storage
from routerlab.core.quant.scheme import (
    BlockSize,
    QuantScheme,
    ScaleDtype,
    check_global_scale,
    check_quantizable,
)
from routerlab.core.quant.tensor import QuantizedTensor

F32 = np.float32
CHUNK = 1 << 19
"""Elements per chunk (2 MiB of f32): each chunk's passes stay in the cache while the Python
overhead per chunk stays negligible; the best size measured by benchmarks/quantize.py (64 Ki was
half as fast, 2 Mi spilled the cache)."""
JUST_BELOW_HALF_BITS = np.uint32(0x3EFFFFFF)
"""The bits of 0.49999997, the largest f32 below 0.5. `trunc(v ± 0.49999997)` is half away from
zero for every f32 `|v| <= 128`: a tie `k + 0.5` lands on `k + 1 - 2^-25`, which f32 rounds up to
`k + 1`, while 0.49999997 itself stays below 1 (adding exactly 0.5 would round it up to 1)."""
SIGN_BIT = np.uint32(0x80000000)
NAN_INPUT = "cannot quantize NaN values"
NON_FINITE_CALIBRATION = "cannot calibrate NaN or infinite values"
NDARRAY_ZERO_SCALE = F32(0.1)
_THREADS = max(1, min(8, os.cpu_count() or 1))
_POOL: ThreadPoolExecutor | None = None


def _as_scheme(scheme: QuantScheme | str) -> QuantScheme:
    return parse_scheme(scheme) if isinstance(scheme, str) else scheme


def _refuse_nan(x: Any) -> None:
    xp = get_array_module(x)
    if bool(xp.isnan(x).any()):
        raise QuantizationError(NAN_INPUT)


def _prepare(x: Any, scheme: QuantScheme | str, profile: Profile) -> tuple[Any, QuantScheme]:
    xp = get_array_module(x)
    with np.errstate(over="ignore"):  # an f64 beyond f32's range is inf, as Burn's cast makes it
        array = xp.asarray(x, dtype=F32)
    requested = _as_scheme(scheme).resolve(profile)
    check_quantizable(requested)
    return array, stored_scheme(requested, profile, tuple(array.shape))


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


def _stored_levels(
    scheme: QuantScheme, params: QParams, profile: Profile
) -> tuple[np.ndarray, np.float32 | None]:
    """The scales each backend stores (and divides by): rounded up to their dtypes; Flex also
    replaces zero levels."""
    store = flex_validated if profile.spec.zero_scale == "min_positive" else round_up
    scales = store(params.scales, scheme.scale_dtype())
    if params.global_scale is None:
        return scales, None
    return scales, store(np.array([params.global_scale]), ScaleDtype.F32)[0]


def _effective(scales: np.ndarray, glob: np.float32 | None, profile: Profile) -> np.ndarray:
    """`s_eff` per block in f32: `global * s`, with NdArray's zero guard."""
    eff = scales if glob is None else F32(glob) * scales
    if profile.spec.zero_scale == "0.1":
        eff = np.where(eff == 0, NDARRAY_ZERO_SCALE, eff)
    return eff.astype(F32)


InvalidMode: TypeAlias = Literal["ignore", "raise"]
"""The `np.errstate` modes this module uses for IEEE invalid (see `_Kernel.invalid`)."""


@dataclass(frozen=True)
class _Kernel:
    """The elementwise arithmetic of one profile: `x / s` or `x * (1/s)`, clamp, round."""

    xp: ModuleType
    multiply: bool
    lo: np.float32
    hi: np.float32
    half_even: bool
    fix_nan: bool
    """Some `s_eff` is 0 or its reciprocal overflows, so a NaN quotient can appear; Rust's
    `as i8` (and the model) turns it into 0."""

    @property
    def invalid(self) -> InvalidMode:
        """The `np.errstate` mode for IEEE invalid: "raise" turns a NaN input into an exception
        at the int8 cast; with a zero scale `0 / 0` is expected, so NaN was checked beforehand."""
        return "ignore" if self.fix_nan else "raise"

    def buffers(self, n: int) -> tuple[Any, Any, Any, Any]:
        """Scratch for `to_int8`: two f32 arrays of `n` and their u32 views."""
        v, tmp = self.xp.empty(n, F32), self.xp.empty(n, F32)
        return v, tmp, v.view(self.xp.uint32), tmp.view(self.xp.uint32)

    def to_int8(self, x: Any, factor: Any, out: Any, scratch: tuple[Any, Any, Any, Any]) -> None:
        """`out = round(clamp(x op factor))` through preallocated scratch (call under
        `np.errstate(all="ignore", invalid=self.invalid)`).

        Half away from zero is `trunc(v ± 0.49999997)`, the truncation done by the int8 cast;
        the signed offset is built on the bit pattern (sign bit of `v` | bits of the constant),
        which numpy vectorises, unlike `copysign`.
        """
        xp = self.xp
        v, tmp, v_bits, tmp_bits = scratch
        (xp.multiply if self.multiply else xp.divide)(x, factor, out=v)
        xp.clip(v, self.lo, self.hi, out=v)
        if self.half_even:
            xp.rint(v, out=v)
        else:
            xp.bitwise_and(v_bits, SIGN_BIT, out=tmp_bits)
            xp.bitwise_or(tmp_bits, JUST_BELOW_HALF_BITS, out=tmp_bits)
            xp.add(v, tmp, out=v)
        if self.fix_nan:
            v[xp.isnan(v)] = 0
        xp.copyto(out, v, casting="unsafe")


def _chunked(n: int, body: Callable[[int, int], None], invalid: InvalidMode) -> None:
    """Run `body(begin, end)` over `[0, n)` in CHUNK-sized pieces, split across the thread pool,
    each thread under `np.errstate(all="ignore", invalid=invalid)` (error state is per thread)."""
    per_thread = -(-n // _THREADS)
    per_thread = -(-per_thread // CHUNK) * CHUNK

    def work(start: int) -> None:
        with np.errstate(all="ignore", invalid=invalid):
            for begin in range(start, min(start + per_thread, n), CHUNK):
                body(begin, min(begin + CHUNK, n))

    list(_pool().map(work, range(0, n, per_thread)))


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(_THREADS, thread_name_prefix="routerlab-quant")
    return _POOL


def _per_tensor(x: Any, factor: np.float32, kernel: _Kernel) -> Any:
    """Per-tensor quantization: cache-sized chunks over the thread pool on numpy, whole-array
    kernels on CuPy."""
    xp = kernel.xp
    out = xp.empty(x.shape, xp.int8)
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    n = flat_in.size
    if not is_numpy(xp) or n <= CHUNK:
        with np.errstate(all="ignore", invalid=kernel.invalid):
            kernel.to_int8(flat_in, factor, flat_out, kernel.buffers(n))
        return out
    scratch: dict[int, tuple[Any, Any, Any, Any]] = {}

    def body(begin: int, end: int) -> None:
        thread = threading.get_ident()
        if thread not in scratch:
            scratch[thread] = kernel.buffers(CHUNK)
        full = scratch[thread]
        size = end - begin
        kernel.to_int8(
            flat_in[begin:end],
            factor,
            flat_out[begin:end],
            full if size == CHUNK else tuple(b[:size] for b in full),
        )

    _chunked(n, body, kernel.invalid)
    return out


def _blockwise_int8(x: Any, factor: np.ndarray, block: BlockSize, kernel: _Kernel) -> Any:
    """Per-block quantization: each element divided by (or multiplied with) its block's factor."""
    xp = kernel.xp
    out = xp.empty(x.shape, xp.int8)
    v, tmp, v_bits, tmp_bits = kernel.buffers(x.size)

    def apply(values: Any, grid: Any) -> Any:
        shape = values.shape
        kernel.to_int8(
            values,
            grid,
            out.reshape(shape),
            (v.reshape(shape), tmp.reshape(shape), v_bits.reshape(shape), tmp_bits.reshape(shape)),
        )
        return out

    with np.errstate(all="ignore", invalid=kernel.invalid):
        blockwise(x, xp.asarray(factor), block, apply)
    return out


def _quantize_values(x: Any, scheme: QuantScheme, eff: np.ndarray, profile: Profile) -> Any:
    xp = get_array_module(x)
    spec = profile.spec
    lo, hi = scheme.value.range
    with np.errstate(divide="ignore", over="ignore"):
        factor = eff if spec.divide else (F32(1) / eff).astype(F32)
    fix_nan = not bool(np.all(np.isfinite(factor) & (factor != 0)))
    if fix_nan or not is_numpy(xp):
        _refuse_nan(x)
    kernel = _Kernel(xp, not spec.divide, F32(lo), F32(hi), spec.half_to_even, fix_nan)
    block = scheme.block_size()
    try:
        if block is None:
            return _per_tensor(x, F32(factor.reshape(-1)[0]), kernel)
        return _blockwise_int8(x, factor, block, kernel)
    except FloatingPointError:
        raise QuantizationError(NAN_INPUT) from None


def _build(x: Any, scheme: QuantScheme, params: QParams, profile: Profile) -> QuantizedTensor:
    shape = tuple(x.shape)
    scales, glob = _stored_levels(scheme, params, profile)
    q = _quantize_values(x, scheme, _effective(scales, glob, profile), profile)
    layout = layout_of(scheme, shape)
    values = q if layout.packed_axis is None else pack_u32(q, scheme.value.bits, layout.packed_axis)
    return QuantizedTensor(
        values, to_storage(scales, scheme.scale_dtype()), glob, scheme, shape, layout
    )


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
    params = given_scales(stored, tuple(array.shape), scales, global_scale)
    return _build(array, stored, params, profile)


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
    low, high = compute_range(array, stored, calibration)
    if not (np.isfinite(to_host(low)).all() and np.isfinite(to_host(high)).all()):
        raise QuantizationError(NON_FINITE_CALIBRATION)
    if calibration is Calibration.MINMAX and profile is Profile.FLEX:
        params = flex_q_params(stored, low, high)
    else:
        params = compute_q_params(stored, low, high)
    return _build(array, stored, params, profile)


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
    eff = _effective(to_f32(tensor.scales), tensor.global_scale, profile)
    block = tensor.scheme.block_size()
    if block is not None:
        out = blockwise(q, xp.asarray(eff), block, lambda v, s: xp.multiply(v, s, dtype=F32))
    elif is_numpy(xp) and q.size > CHUNK:
        scale = F32(eff.reshape(-1)[0])
        out = np.empty(q.shape, F32)
        flat_q, flat_out = q.reshape(-1), out.reshape(-1)
        _chunked(
            q.size,
            lambda b, e: np.multiply(flat_q[b:e], scale, out=flat_out[b:e], dtype=F32),
            "ignore",
        )
    else:
        out = xp.multiply(q, F32(eff.reshape(-1)[0]), dtype=F32)
    return out if dtype.numpy == out.dtype else out.astype(dtype.numpy)
