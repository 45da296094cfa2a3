"""The fast quantize paths are bit-identical to the readable reference, for every profile.

`routerlab.core.quant.reference` is Burn's formula as Burn writes it (`(x / s).round().clamp(a, b)`,
burn-ndarray/src/ops/quantization.rs:128-132; `(x * (1.0 / s)).round().clamp(a, b)`,
burn-flex/src/ops/qtensor.rs:108-113; `rint` on CubeCL). Here hypothesis draws tensors full of
ties, near-ties, zeros, infinities, huge and subnormal values, with scales that include zero and
values whose reciprocal overflows, and every tier of `routerlab.core.quant.kernels` (fused numba,
chunked numpy, threaded or not) must produce the same int8 bytes and the same NaN verdict.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routerlab.core.base.profiles import Profile
from routerlab.core.quant import kernels, packing, params_shape, parse_scheme, quantize
from routerlab.core.quant.blocks import blockwise
from routerlab.core.quant.reference import reference_quantize, rust_round
from routerlab.core.quant.scheme import BlockSize, QuantValue

F32 = np.float32
VALUES = [v for v in QuantValue if not v.is_float]
SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 0.49999997, -0.49999997, 126.5, -127.5, 1e38,
           -1e38, math.inf, -math.inf, 1e-45, 3.4028235e38]
TIERS = ["fused", "numpy"]
PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
"""The `tier` fixture only sets module constants, which every example reads afresh."""

needs_numba = pytest.mark.skipif(kernels.fused_module() is None,
                                 reason="numba is not installed (the optional `fast` extra)")


def _floats() -> st.SearchStrategy[float]:
    return st.one_of(st.sampled_from(SPECIAL),
                     st.floats(-300, 300, width=32, allow_nan=False),
                     st.integers(-260, 260).map(lambda k: k / 2),  # exact ties
                     st.floats(width=32, allow_nan=False))


def _scale() -> st.SearchStrategy[float]:
    return st.one_of(st.sampled_from([0.0, 1.0, 0.5, 1e-45, 1e-39, 3e38, 0.007874016]),
                     st.floats(0.0009765625, 10, width=32))


@pytest.fixture(params=TIERS)
def tier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Force one tier on small arrays: every size is 'large', so the thread splits (quantize's
    and the fused unpack's) run too."""
    if request.param == "fused" and kernels.fused_module() is None:
        pytest.skip("numba is not installed (the optional `fast` extra)")
    monkeypatch.setattr(kernels, "FUSED_MIN", 0 if request.param == "fused" else 1 << 62)
    monkeypatch.setattr(kernels, "PARALLEL_MIN", 8)
    monkeypatch.setattr(packing, "UNPACK_PARALLEL_MIN", 8)
    return str(request.param)


def _kernel(profile: Profile, value: QuantValue, fix_nan: bool) -> kernels.Kernel:
    lo, hi = value.range
    spec = profile.spec
    return kernels.Kernel(np, not spec.divide, F32(lo), F32(hi), spec.half_to_even, fix_nan)


def _factor(profile: Profile, scale: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", over="ignore"):
        return scale if profile.spec.divide else (F32(1) / scale).astype(F32)


def _fast(kernel: kernels.Kernel, run: object) -> tuple[np.ndarray | None, bool]:
    """(values, saw NaN): a NaN quotient raises unless the kernel fixes it, as in ops.py."""
    try:
        return run(), False  # type: ignore[operator]
    except FloatingPointError:
        return None, True


@PROPERTY
@given(data=st.lists(_floats(), min_size=1, max_size=70), scale=_scale(),
       value=st.sampled_from(VALUES), profile=st.sampled_from(list(Profile)))
def test_per_tensor_matches_the_reference(tier: str, data: list[float], scale: float,
                                          value: QuantValue, profile: Profile) -> None:
    x = np.array(data, F32)
    factor = _factor(profile, np.array([scale], F32))
    expected, nan = reference_quantize(x, factor, *value.range, profile.spec)
    fix_nan = not bool(np.isfinite(factor).all() and (factor != 0).all())
    kernel = _kernel(profile, value, fix_nan)
    got, raised = _fast(kernel, lambda: kernel.per_tensor(x, F32(factor[0])))
    assert raised == (bool(nan.any()) and not fix_nan)
    if got is not None:
        assert got.tobytes() == expected.tobytes()


@PROPERTY
@given(rows=st.integers(1, 9), cols=st.integers(1, 40), extents=st.tuples(
    st.integers(1, 4), st.integers(1, 9)), value=st.sampled_from(VALUES),
    profile=st.sampled_from(list(Profile)), seed=st.integers(0, 2**16))
def test_per_block_matches_the_reference(tier: str, rows: int, cols: int,
                                         extents: tuple[int, int], value: QuantValue,
                                         profile: Profile, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = (rng.integers(-600, 600, (rows, cols)) / 4).astype(F32)  # many exact ties
    x.reshape(-1)[rng.integers(0, x.size)] = rng.choice(np.array(SPECIAL, F32))
    block = BlockSize(extents)
    grid = block.num_blocks(x.shape)
    scales = rng.choice(np.array([0.0, 0.5, 1.0, 0.25, 1e-45, 3e38], F32), grid)
    factor = _factor(profile, scales)
    expected = blockwise(x, factor, block, lambda v, g: reference_quantize(
        v, g, *value.range, profile.spec)[0])
    nan = blockwise(x, factor, block, lambda v, g: reference_quantize(
        v, g, *value.range, profile.spec)[1])
    fix_nan = not bool(np.isfinite(factor).all() and (factor != 0).all())
    kernel = _kernel(profile, value, fix_nan)
    got, raised = _fast(kernel, lambda: kernel.per_block(
        x, factor, block.dims_for(2), lambda op: blockwise(x, factor, block, op)))
    assert raised == (bool(nan.any()) and not fix_nan)
    if got is not None:
        assert got.tobytes() == expected.tobytes()


def test_rust_round_is_half_away_from_zero_at_every_tie() -> None:
    v = np.array([0.5, -0.5, 1.5, -1.5, 2.5, 0.49999997, -0.49999997, 126.5, -0.0], F32)
    assert rust_round(v).tolist() == [1, -1, 2, -2, 3, 0, 0, 127, 0]


@needs_numba
@pytest.mark.parametrize("profile", [p for p in Profile if p is not Profile.NDARRAY])
@pytest.mark.parametrize("scheme", ["q8s", "q4f:block=32", "q2s:block=4x16",
                                    "q8s:block=2x16:scale=ue4m3:global=f32"])
def test_quantize_is_the_same_with_and_without_numba(profile: Profile, scheme: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end, above FUSED_MIN, through the public `quantize` and its scale handling.
    (Plain NdArray refuses Q4F and block Q2S, as Burn's does; `ndarray-tests` has its
    arithmetic and accepts them.)"""
    if profile is Profile.CUBECL or profile.spec.default_store != "native":
        scheme += ":store=packed-u32" if not scheme.startswith("q8") else ":store=native"
    x = np.random.default_rng(1).standard_normal((64, 1024), dtype=F32) * 3
    x[0, :8] = [0.5, -0.5, 1.5, 2.5, 0, -0.0, np.inf, -np.inf]
    grid = params_shape(x.shape, parse_scheme(scheme))
    scales = np.random.default_rng(2).choice(np.array([0.05, 0.5, 0.0], F32), grid)
    glob = 1.0 if "global" in scheme else None
    fused = quantize(x, scheme, scales, glob, profile=profile)
    monkeypatch.setattr(kernels, "_fused", None)
    plain = quantize(x, scheme, scales, glob, profile=profile)
    assert fused.bit_equal(plain)


@pytest.mark.parametrize("bits", [2, 4])
def test_unpack_is_the_same_in_every_tier(tier: str, bits: int) -> None:
    """Every byte value, with a padded row end: the fused unpack (one u16 or u32 store per
    byte) and the 256-entry table both equal the fields' sign extension."""
    words = np.tile(np.arange(256, dtype=np.uint8), 9).view(np.uint32).reshape(3, 192)
    values = packing.unpack_u32(words, bits, 192 * 32 // bits - 3)
    fields = [(words.view(np.uint8)[..., None] >> k) & ((1 << bits) - 1)
              for k in range(0, 8, bits)]
    expected = np.stack(fields, -1).astype(np.int8)
    expected = np.where(expected >= 1 << (bits - 1), expected - (1 << bits), expected)
    np.testing.assert_array_equal(values, expected.reshape(3, -1)[:, :values.shape[1]])
