"""Hypothesis properties of the quantization model.

- Inside the range, quantize → dequantize is off by at most half the effective scale (with a
  margin of a few f32 ulps for the division and the product).
- Packing and the canonical bytes are lossless for every value type and store.
- The three profiles agree except at ties: NdArray and CubeCL only where `x / s` is exactly
  `k + 0.5` in f32, NdArray and Flex only where the exact quotient is within f32 rounding of one.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from routerlab.core.base.profiles import Profile
from routerlab.core.quant import (
    QuantValue,
    from_bytes,
    pack_u32,
    quantize,
    quantize_dynamic,
    unpack_u32,
)

F32 = np.float32
INT_VALUES = [v for v in QuantValue if not v.is_float]
ARITHMETIC = [p for p in Profile if p is not Profile.NDARRAY]
"""One profile per arithmetic: NdArray runs as its `export_tests` build, which quantizes every
integer value (`crates/burn-ndarray/src/ops/qtensor.rs:115-122`); the plain build's narrower
acceptance is tested in tests/quant/test_backend_rules.py."""
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tensors(draw: st.DrawFn) -> np.ndarray:
    """Rank 1-3 f32 tensors whose last dim is a multiple of 16 (any word size fits), moderate
    magnitudes (scales stay inside every scale dtype's range)."""
    shape = tuple(draw(st.lists(st.sampled_from([1, 2, 4]), min_size=0, max_size=2))) + (
        16 * draw(st.integers(1, 3)),
    )
    magnitude = draw(st.sampled_from([1e-3, 1.0, 300.0]))
    elements = st.floats(-1, 1, width=32).map(lambda v: F32(v * magnitude))
    return draw(hnp.arrays(F32, shape, elements=elements))


@st.composite
def schemes(draw: st.DrawFn, rank: int) -> str:
    value = draw(st.sampled_from(INT_VALUES)).value
    level = draw(
        st.sampled_from(
            [
                "",
                ":block=16",
                ":block=1x16",
                ":block=16:scale=f16",
                ":block=16:scale=bf16",
                ":block=16:scale=ue4m3:global=f32",
                ":block=16:scale=f16:global=f32",
                ":scale=f16",
                ":scale=bf16",
            ]
        )
    )
    if level.startswith(":block=1x16") and rank < 2:
        level = ":block=16"
    return value + level


def _effective_scales(tensor) -> np.ndarray:
    """Each element's `s_eff` (global * block scale), broadcast to the logical shape."""
    scales = tensor.scales_f32()
    if tensor.global_scale is not None:
        scales = F32(tensor.global_scale) * scales
    block = tensor.scheme.block_size()
    if block is None:
        return np.full(tensor.shape, scales.reshape(-1)[0], F32)
    for axis, extent in enumerate(block.dims_for(len(tensor.shape))):
        scales = np.repeat(scales, extent, axis=axis)
    return scales


@SETTINGS
@given(data=st.data(), profile=st.sampled_from(ARITHMETIC))
def test_round_trip_error_is_at_most_half_a_step(data: st.DataObject, profile: Profile) -> None:
    x = data.draw(tensors())
    scheme = data.draw(schemes(x.ndim))
    tensor = quantize_dynamic(x, scheme, profile=profile)
    dq = np.asarray(tensor.dequantize(profile))
    step = _effective_scales(tensor)
    bound = step * F32(0.5 + 2.0**-18) + np.abs(x) * F32(2.0**-20) + F32(1e-30)
    assert (np.abs(dq - x) <= bound).all()


@SETTINGS
@given(data=st.data())
def test_pack_unpack_is_the_identity(data: st.DataObject) -> None:
    value = data.draw(st.sampled_from(INT_VALUES))
    low, high = (int(v) for v in value.range)
    shape = tuple(data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)))
    q = data.draw(hnp.arrays(np.int8, shape, elements=st.integers(low, high)))
    axis = data.draw(st.integers(0, len(shape) - 1))
    words = pack_u32(q, value.bits, axis)
    assert words.dtype == np.uint32 and words.shape[axis] == -(-shape[axis] * value.bits // 32)
    np.testing.assert_array_equal(unpack_u32(words, value.bits, shape[axis], axis), q)


@SETTINGS
@given(data=st.data(), profile=st.sampled_from(ARITHMETIC))
def test_bytes_round_trip_is_the_identity(data: st.DataObject, profile: Profile) -> None:
    x = data.draw(tensors())
    scheme = data.draw(schemes(x.ndim))
    if profile is not Profile.FLEX:
        scheme += ":store=" + data.draw(
            st.sampled_from(
                ["native"]
                if profile.is_ndarray
                else ["packed-u32"] + (["native"] if scheme.startswith("q8") else [])
            )
        )
    tensor = quantize_dynamic(x, scheme, profile=profile)
    back = from_bytes(tensor.to_bytes(), tensor.shape, tensor.scheme)
    assert back.bit_equal(tensor) and len(tensor.to_bytes()) == tensor.nbytes
    np.testing.assert_array_equal(
        np.asarray(back.dequantize(profile)), np.asarray(tensor.dequantize(profile))
    )


@SETTINGS
@given(
    x=hnp.arrays(F32, 64, elements=st.floats(-100, 100, width=32)),
    scale=st.floats(2.0**-10, 2.0, width=32),
    value=st.sampled_from(INT_VALUES),
)
def test_profiles_agree_except_at_ties(x: np.ndarray, scale: float, value: QuantValue) -> None:
    scheme = f"{value.value}:store=native"
    q = {
        p: np.asarray(
            quantize(
                x,
                scheme
                if p is not Profile.CUBECL or value.bits == 8
                else f"{value.value}:store=packed-u32",
                [scale],
                profile=p,
            ).q()
        ).astype(int)
        for p in ARITHMETIC
    }
    quotient = x.astype(np.float64) / np.float64(F32(scale))
    frac = np.abs(quotient - np.trunc(quotient))
    even = q[Profile.NDARRAY_TESTS] != q[Profile.CUBECL]
    assert (np.abs(q[Profile.NDARRAY_TESTS] - q[Profile.CUBECL]) <= 1).all()
    assert ((x / F32(scale))[even] % 1 == 0.5).all() or not even.any()
    recip = q[Profile.NDARRAY_TESTS] != q[Profile.FLEX]
    assert (np.abs(q[Profile.NDARRAY_TESTS] - q[Profile.FLEX]) <= 1).all()
    assert (np.abs(frac[recip] - 0.5) < 1e-5).all()
