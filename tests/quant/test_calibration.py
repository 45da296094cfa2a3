"""Calibration and two-level normalisation (reference §11.1).

Ported from burn-backend-tests/tests/tensor/float/quantization/scheme.rs (per_tensor_symmetric_int8,
block_tensor_symmetric_int8, block_tensor_symmetric_int8_all_zero) and calibration.rs
(min_max_calibration_range_per_block, abs_mean per block).
"""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core.base.errors import QuantizationError
from routerlab.core.base.profiles import Profile
from routerlab.core.quant import (
    Calibration,
    QuantScheme,
    QuantValue,
    ScaleDtype,
    compute_q_params,
    compute_range,
    parse_scheme,
    quantize,
    quantize_dynamic,
)

F32 = np.float32
Q8S = QuantScheme(QuantValue.Q8S)
RANGE_MIN = np.array([-1.8, -0.5, 0.01, -0.04], F32)
RANGE_MAX = np.array([0.5, 1.8, 0.04, -0.01], F32)


def test_per_tensor_symmetric_int8() -> None:
    """scheme.rs per_tensor_symmetric_int8: range (0.5, 1.8) → 0.01417323."""
    params = compute_q_params(Q8S, np.array([0.5], F32), np.array([1.8], F32))
    np.testing.assert_allclose(params.scales, [0.014_173_23], rtol=1e-6)
    assert params.scales[0] == F32(1.8) / F32(127)


def test_block_tensor_symmetric_int8() -> None:
    """scheme.rs block_tensor_symmetric_int8: the largest block scale lands on 448, and
    `scales * global` reproduces the one-level scales."""
    one_level = compute_q_params(Q8S.per_block([4], ScaleDtype.F32), RANGE_MIN, RANGE_MAX)
    two = compute_q_params(
        Q8S.per_block([4], ScaleDtype.UE4M3).per_tensor(ScaleDtype.F32), RANGE_MIN, RANGE_MAX
    )
    assert two.scales.max() == F32(448)
    assert two.global_scale == F32(1.8) / F32(127) / F32(448)
    np.testing.assert_allclose(two.scales * two.global_scale, one_level.scales, rtol=1e-6)


def test_block_tensor_symmetric_int8_all_zero() -> None:
    """scheme.rs block_tensor_symmetric_int8_all_zero: the global is clamped to f32::MIN_POSITIVE,
    so block scales stay finite (0 / 448 would otherwise make 0/0)."""
    zeros = np.zeros(4, F32)
    scheme = Q8S.per_block([4], ScaleDtype.UE4M3).per_tensor(ScaleDtype.F32)
    params = compute_q_params(scheme, zeros, zeros)
    assert params.global_scale == np.finfo(F32).tiny
    assert np.isfinite(params.scales).all()
    for profile in Profile:
        t = quantize_dynamic(zeros, scheme.with_store(None), profile=profile)
        assert t.global_scale > 0 and (np.asarray(t.q()) == 0).all()


def test_min_max_calibration_range_per_block() -> None:
    """calibration.rs min_max_calibration_range_per_block: ranges shaped as the block grid."""
    x = np.array(
        [
            [-1.8, -1.0, 0.0, 0.5],
            [1.8, 1.0, 0.0, -0.5],
            [0.01, 0.02, 0.03, 0.04],
            [-0.01, -0.02, -0.03, -0.04],
        ],
        F32,
    )
    low, high = compute_range(x, Q8S.per_block([4], ScaleDtype.F32), Calibration.MINMAX)
    np.testing.assert_array_equal(low, RANGE_MIN.reshape(4, 1))
    np.testing.assert_array_equal(high, RANGE_MAX.reshape(4, 1))


def test_blocks_are_rectangles() -> None:
    """burn-backend quantization/scheme.rs: `[2, 2]` on `[2, 4]` groups `[a, b, e, f]`."""
    x = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], F32)
    low, high = compute_range(x, Q8S.per_block([2, 2], ScaleDtype.F32), Calibration.MINMAX)
    np.testing.assert_array_equal(low, [[1, 3]])
    np.testing.assert_array_equal(high, [[6, 8]])


def test_abs_mean_per_block_and_no_two_level_form() -> None:
    """calibration.rs abs_mean_calibration_range_per_block; AbsMean refuses a two-level scheme."""
    x = np.array([[-0.9, -0.3, 0.0, 0.6], [0.2, -0.2, 0.4, -0.4]], F32)
    low, high = compute_range(
        x, QuantScheme(QuantValue.Q2S).per_block([4], ScaleDtype.F32), Calibration.ABSMEAN
    )
    np.testing.assert_allclose(high.reshape(-1), [0.45, 0.3], rtol=1e-6)
    np.testing.assert_array_equal(low, -high)
    with pytest.raises(QuantizationError, match="AbsMean calibration has no two-level form"):
        compute_range(x, parse_scheme("q2s:block=4:scale=f16:global=f32"), Calibration.ABSMEAN)


def test_calibration_needs_whole_blocks_but_given_scales_do_not() -> None:
    """Burn's generic `compute_range` asserts whole blocks (NdArray, CubeCL); Flex's own
    `quantize_dynamic` takes a partial last block (burn-flex ops/qtensor.rs:67-142)."""
    x = np.arange(10, dtype=F32).reshape(2, 5)
    for generic in (Profile.NDARRAY, Profile.CUBECL):
        with pytest.raises(QuantizationError, match="not a whole number of"):
            quantize_dynamic(x, "q8s:block=4:store=native", profile=generic)
    flex = quantize_dynamic(x, "q8s:block=4", profile=Profile.FLEX)
    assert flex.scales_f32().tolist() == (F32([[3, 4], [8, 9]]) * F32(2) / F32(254)).tolist()
    t = quantize(x, "q8s:block=4", [0.1, 0.2, 0.3, 0.4], profile=Profile.NDARRAY)
    assert t.scales.shape == (2, 2)
    np.testing.assert_array_equal(np.asarray(t.q()), [[0, 10, 20, 30, 20], [17, 20, 23, 27, 23]])


def test_flex_and_generic_two_level_agree_on_ordinary_tensors() -> None:
    """Flex computes the global on the host and validates it instead of clamping; for any tensor
    whose global is a normal f32 both give the same primitive."""
    x = np.random.default_rng(3).standard_normal((4, 64)).astype(F32)
    scheme = "q8s:block=2x16:scale=ue4m3:global=f32"
    flex = quantize_dynamic(x, scheme, profile=Profile.FLEX)
    ndarray = quantize_dynamic(x, scheme, profile=Profile.NDARRAY)
    np.testing.assert_array_equal(flex.scales_f32(), ndarray.scales_f32())
    assert flex.global_scale == ndarray.global_scale
