"""Properties over random quantized tensors and random hop sequences (reference §14.3-§14.4).

- `native`: bit-exact after any number of hops (between backend profiles the store is repacked,
  so the logical values, the scale bytes and the global are compared, and the bits again once the
  tensor is back on its own profile; Q8 packed in u32 words comes back Native, whose bytes are
  the same on a little-endian machine, §12);
- `dequantize`: the q values and scales never change (a tie, the one exception the reference
  names, cannot arise when the carried scale divides `s·q`);
- `requantize`: S-values per tensor are stable (same q, scale within an ulp); Q2F's scale grows by
  exactly 4/3 per hop when the negative extreme dominates (the worked example of §14.4).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from routerlab.core import Runtime
from routerlab.core.base.errors import QuantizationError
from routerlab.core.quant.calibration import flex_validated
from routerlab.teaching.measure import held

FAMILIES = {
    "native": ("cpu:0", "cpu:1", "peer2/cpu:0", "peer3/cpu:0@cubecl"),
    "packed-u32": ("cpu:0@cubecl", "cpu:1@cubecl", "peer2/cpu:0@cubecl", "peer3/cpu:0"),
}
GRANULARITY = ["", ":scale=f16", ":scale=bf16", ":block=16", ":block=16:scale=f16",
               ":block=16:scale=f16:global=f32", ":block=16:scale=ue4m3:global=f32"]
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def cases(draw: st.DrawFn, values: tuple[str, ...] = ("q8f", "q8s", "q4f", "q4s", "q2f", "q2s"),
          granularity: tuple[str, ...] = tuple(GRANULARITY)) -> tuple:
    store = draw(st.sampled_from(sorted(FAMILIES)))
    scheme = draw(st.sampled_from(values)) + draw(st.sampled_from(granularity)) + \
        f":store={store}"
    shape = (draw(st.integers(1, 3)), draw(st.sampled_from([16, 32])))
    x = draw(hnp.arrays(np.float32, shape, elements=st.floats(-3, 3, width=32)))
    assume(float(np.abs(x).max()) > 1e-3)
    hops = draw(st.lists(st.integers(0, 3), min_size=1, max_size=5))
    return scheme, x, FAMILIES[store], hops


def _hop_through(rt: Runtime, tensor, devices, hops, policy):  # type: ignore[no-untyped-def]
    for index in hops:
        tensor = rt.to_device(tensor, devices[index], policy=policy)
    return tensor


def _start(scheme: str, x: np.ndarray, devices: tuple[str, ...]):  # type: ignore[no-untyped-def]
    rt = Runtime(devices)
    try:
        tensor = rt.quantize(rt.tensor(x, devices[0], "f32"), scheme)
    except QuantizationError:
        assume(False)
    return rt, tensor, held(rt, tensor).tensor


@SETTINGS
@given(cases())
def test_native_is_bit_exact_after_any_hops(case: tuple) -> None:
    scheme, x, devices, hops = case
    rt, tensor, original = _start(scheme, x, devices)
    moved = _hop_through(rt, tensor, devices, hops, "native")
    after = held(rt, moved).tensor
    assert np.array_equal(after.q(), original.q())
    assert after.scales.tobytes() == original.scales.tobytes()
    assert after.global_scale == original.global_scale
    home = held(rt, rt.to_device(moved, devices[0], policy="native")).tensor
    if home.scheme == original.scheme:
        assert home.bit_equal(original)
    else:  # Q8 that visited Flex comes back Native: CubeCL keeps Native 8-bit values as they are
        assert original.scheme.value.bits == 8 and home.values.tobytes() == \
            original.values.tobytes()


@SETTINGS
@given(cases())
def test_dequantize_keeps_q_and_scales_except_at_ties(case: tuple) -> None:
    """With the scales carried, the target's quotient is `s·q / s`, within an ulp of the integer
    q and so never near a tie: every q comes back, on every profile (both roundings). A scale
    is stored as the target's quantize stores it: the same, except a zero scale (an all-zero
    block on CubeCL, which has no zero guard) that reaches Flex, whose guard stores its floor
    (`scale_to_dtype(f32::MIN_POSITIVE)`, burn-flex ops/qtensor.rs:402-412); its q stay 0."""
    scheme, x, devices, hops = case
    rt, tensor, original = _start(scheme, x, devices)
    moved = _hop_through(rt, tensor, devices, hops, "dequantize")
    after = held(rt, moved).tensor
    assert np.array_equal(after.q(), original.q())
    zero = original.scales_f32() == 0
    assert np.array_equal(after.scales_f32()[~zero], original.scales_f32()[~zero])
    floor = flex_validated(np.zeros(1, np.float32), original.scheme.scale_dtype())[0]
    assert np.isin(after.scales_f32()[zero], [0, floor]).all()
    assert after.global_scale == original.global_scale


@SETTINGS
@given(cases(values=("q8s", "q4s", "q2s"), granularity=("",)))
def test_requantize_keeps_symmetric_values_stable(case: tuple) -> None:
    scheme, x, devices, hops = case
    rt, tensor, original = _start(scheme, x, devices)
    moved = _hop_through(rt, tensor, devices, hops, "requantize")
    after = held(rt, moved).tensor
    assert np.array_equal(after.q(), original.q())
    np.testing.assert_allclose(after.scales_f32(), original.scales_f32(), rtol=1e-6)


@pytest.mark.parametrize("hops", [1, 2, 3, 6])
def test_requantize_q2f_scale_grows_by_four_thirds_per_hop(hops: int) -> None:
    """§14.4's worked example: 0.6 -> 0.8 -> 1.0667 -> 1.4222, q stays [-2, 1, 0]."""
    rt = Runtime(["cpu:0", "cpu:1"])
    tensor = rt.quantize(rt.tensor([-0.9, 0.5, 0.2], "cpu:0", "f32"), "q2f")
    scales = [float(held(rt, tensor).tensor.scales_f32()[0])]
    for hop in range(hops):
        tensor = rt.to_device(tensor, ["cpu:1", "cpu:0"][hop % 2], policy="requantize")
        after = held(rt, tensor).tensor
        scales.append(float(after.scales_f32()[0]))
        assert after.q().tolist() == [-2, 1, 0]
    np.testing.assert_allclose(scales, [0.6 * (4 / 3) ** k for k in range(hops + 1)], rtol=1e-5)
    assert [round(s, 4) for s in scales[:4]] == [0.6, 0.8, 1.0667, 1.4222][:hops + 1]


@SETTINGS
@given(st.floats(0.0625, 100, width=32), st.lists(st.floats(-0.75, 0.75, width=32), min_size=1,
                                                   max_size=20), st.integers(1, 4))
def test_requantize_q2f_never_settles_when_the_negative_extreme_dominates(
        magnitude: float, rest: list[float], hops: int) -> None:
    """The extreme sits at -1.5 scales, an exact tie in real arithmetic. Where f32 lands on -1.5
    it rounds to -2 and the scale grows by 4/3 (the reference's example); where it lands just
    above (x * (1/s) on Flex) it rounds to -1 and the scale shrinks by 2/3. Either way every hop
    recalibrates to a different scale: it never settles."""
    x = np.asarray([-1.0, *rest], dtype=np.float32) * np.float32(magnitude)
    rt = Runtime(["cpu:0", "cpu:1"])
    tensor = rt.quantize(rt.tensor(x, "cpu:0", "f32"), "q2f")
    scale = float(held(rt, tensor).tensor.scales_f32()[0])
    for hop in range(hops):
        tensor = rt.to_device(tensor, ["cpu:1", "cpu:0"][hop % 2], policy="requantize")
        after = float(held(rt, tensor).tensor.scales_f32()[0])
        ratio = after / scale
        assert min(abs(ratio - 4 / 3), abs(ratio - 2 / 3)) < 1e-5, ratio
        scale = after
