"""Quantize / dequantize under the three profiles, and what each backend refuses.

Ported from burn-backend-tests/tests/tensor/float/quantization/ops/quantize.rs
(should_support_quantize_dynamic_int8, should_round_trip_two_level_through_bytes,
two_level_error_should_not_track_weight_magnitude, the arange 16x16 and transposed cases) and the
reference §11.3 near-tie example (0.02 / 0.00031496: NdArray 63, Flex 64).
"""

from __future__ import annotations

import re
import warnings

import ml_dtypes
import numpy as np
import pytest

from routerlab.core.base.dtypes import DType
from routerlab.core.base.errors import QuantizationError
from routerlab.core.base.profiles import Profile
from routerlab.core.quant import (
    Calibration,
    QuantStore,
    from_bytes,
    parse_scheme,
    quantize,
    quantize_dynamic,
)
from routerlab.core.quant.kernels import CHUNK

F32 = np.float32
ARANGE_16X16 = (np.arange(256, dtype=F32) / F32(256)).reshape(16, 16)


@pytest.mark.parametrize("profile", list(Profile))
def test_should_support_quantize_dynamic_int8(profile: Profile) -> None:
    """quantize.rs should_support_quantize_dynamic_int8: [5, 0, 4, -12.7] → [50, 0, 40, -127],
    scale 0.1 (fully representable, so every backend agrees)."""
    t = quantize_dynamic(np.array([5.0, 0.0, 4.0, -12.7], F32), "q8s", profile=profile)
    np.testing.assert_array_equal(np.asarray(t.q()), [50, 0, 40, -127])
    assert t.scales_f32()[0] == F32(12.7) / F32(127)


def test_near_tie_differs_between_divide_and_reciprocal() -> None:
    """Reference §11.3: 0.02 / 0.00031496 is 63.499996 in f32 (NdArray: 63) while
    0.02 * (1/0.00031496) is exactly 63.5 (Flex: 64)."""
    scale = F32(0.04) / F32(127)
    x = np.array([0.02, 0.04, 0.0, -0.02], F32)
    assert np.asarray(quantize(x, "q8s", [scale], profile=Profile.NDARRAY).q())[0] == 63
    assert np.asarray(quantize(x, "q8s", [scale], profile=Profile.FLEX).q())[0] == 64
    assert np.asarray(quantize(x, "q8s", [scale], profile=Profile.CUBECL).q())[0] == 63


def test_exact_ties_round_away_or_to_even() -> None:
    """Rust `f32::round` (NdArray, Flex) rounds ties away from zero; CubeCL's `rint` to even."""
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997], F32)
    away = [-3, -2, -1, 1, 2, 3, 0]
    for profile in (Profile.NDARRAY, Profile.FLEX):
        np.testing.assert_array_equal(
            np.asarray(quantize(x, "q8s", [1.0], profile=profile).q()), away
        )
    even = np.asarray(quantize(x, "q8s:store=native", [1.0], profile=Profile.CUBECL).q())
    np.testing.assert_array_equal(even, [-2, -2, 0, 0, 2, 2, 0])


@pytest.mark.parametrize("profile", list(Profile))
def test_should_round_trip_two_level_through_bytes(profile: Profile) -> None:
    """quantize.rs should_round_trip_two_level_through_bytes: bit equality after `into_data` →
    `from_data`, since both paths reconstruct from the same stored scales."""
    t = quantize_dynamic(ARANGE_16X16, "q8s:block=2x16:scale=ue4m3:global=f32", profile=profile)
    direct = np.asarray(t.dequantize(profile))
    back = from_bytes(t.to_bytes(), t.shape, t.scheme)
    assert back.bit_equal(t)
    np.testing.assert_array_equal(np.asarray(back.dequantize(profile)), direct)
    np.testing.assert_allclose(direct, ARANGE_16X16, atol=1e-1, rtol=1e-2)


def test_two_level_error_should_not_track_weight_magnitude() -> None:
    """quantize.rs two_level_error_should_not_track_weight_magnitude."""
    big = (np.arange(-128, 128, dtype=F32) / F32(128)).reshape(16, 16)
    small = big * F32(0.02)

    def error(x: np.ndarray, scheme: str) -> float:
        dq = np.asarray(quantize_dynamic(x, scheme, profile=Profile.FLEX).dequantize(Profile.FLEX))
        return float(np.abs(x - dq).sum() / np.abs(x).sum())

    two_level, one_level = "q8s:block=2x16:scale=ue4m3:global=f32", "q8s:block=2x16:scale=ue4m3"
    big_error, small_error = error(big, two_level), error(small, two_level)
    assert abs(small_error - big_error) / big_error < 0.2
    assert error(small, one_level) > small_error * 2


@pytest.mark.parametrize("scheme", ["q8s", "q8s:block=2x16"])
def test_arange_16x16_and_transposed(scheme: str) -> None:
    """quantize.rs should_quantize_dequantize_symmetric(_per_block)_arange_16x16 and
    should_quantize_symmetric_int8_transposed_8x32 (quantize a transposed copy)."""
    for profile in Profile:
        for x in (ARANGE_16X16, np.ascontiguousarray(ARANGE_16X16.T)):
            dq = quantize_dynamic(x, scheme, profile=profile).dequantize(profile)
            np.testing.assert_allclose(np.asarray(dq), x, atol=1e-1, rtol=1e-2)


def test_the_store_a_backend_keeps() -> None:
    """Flex rewrites the store to Native (burn-flex ops/qtensor.rs); NdArray refuses packed
    stores; CubeCL packs into u32 words by default and refuses native sub-byte values."""
    x = np.arange(16, dtype=F32)
    flex = quantize_dynamic(x, "q4s:store=packed-u32", profile=Profile.FLEX)
    assert flex.scheme.store == QuantStore.native() and flex.values.dtype == np.int8
    with pytest.raises(QuantizationError, match="Quantization not supported for scheme "
                       r"QuantScheme \{ value: Q4S, store: PackedU32\(0\)"):
        quantize_dynamic(x, "q4s:store=packed-u32", profile=Profile.NDARRAY_TESTS)
    cube = quantize_dynamic(x, "q4s", profile=Profile.CUBECL)
    assert str(cube.scheme) == "q4s:store=packed-u32" and cube.values.shape == (2,)
    with pytest.raises(QuantizationError, match="Can't store native sub-byte values"):
        quantize_dynamic(x, "q4s:store=native", profile=Profile.CUBECL)
    with pytest.raises(QuantizationError, match="Can't store in u32"):
        quantize_dynamic(x[:12], "q4s", profile=Profile.CUBECL)
    with pytest.raises(QuantizationError, match="packs along the innermost axis"):
        quantize_dynamic(x.reshape(4, 4), "q8s:store=packed-u32@1", profile=Profile.CUBECL)


@pytest.mark.parametrize(
    ("scheme", "message"),
    [
        ("e4m3", "E4M3 values are part of Burn's scheme space"),
        ("e5m2", "E5M2 values are part of Burn's scheme space"),
        ("e2m1", "E2M1 values are part of Burn's scheme space"),
        ("e2m1:store=packed-native", "E2M1"),
        ("q8s:scale=ue8m0", "UE8M0 scales are not yet supported"),
        ("q8s:block=4:global=f32", "reach f32's range"),
        ("q8s:block=4:scale=ue4m3:global=f16", "stores its per-tensor scale as f32"),
    ],
)
def test_unsupported_schemes_are_refused(scheme: str, message: str) -> None:
    """Minifloat values reach NdArray's catch-all arm first: Burn's own `unimplemented!` text
    (burn-ndarray/src/ops/qtensor.rs:169)."""
    for profile in Profile:
        expected = message
        if profile.is_ndarray and scheme.startswith("e"):
            expected = re.escape("Quantization not supported for scheme QuantScheme { value: E")
        with pytest.raises(QuantizationError, match=expected):
            quantize_dynamic(np.ones(16, F32), scheme, profile=profile)
        with pytest.raises(QuantizationError, match=expected):
            quantize(np.ones(16, F32), scheme, [0.1], profile=profile)


@pytest.mark.parametrize("value", ["q8s", "q8f", "q4s", "q4f", "q2s", "q2f"])
def test_packed_native_store_per_profile(value: str) -> None:
    """What Burn 2c06be3 does with `QuantStore::PackedNative` for an integer value:
    Flex quantizes and rewrites the store to Native (burn-flex/src/ops/qtensor.rs:141, 200);
    NdArray's quantize match has no arm for it, `unimplemented!("Quantization not supported for
    scheme ...")` (burn-ndarray/src/ops/qtensor.rs:169); CubeCL panics "{value:?} doesn't support
    native packing", only E2M1 packs natively (burn-cubecl/src/ops/qtensor.rs:105-107)."""
    x = np.linspace(-1, 1, 16, dtype=F32)
    scheme = f"{value}:store=packed-native"
    for run in (
        lambda profile: quantize_dynamic(x, scheme, profile=profile),
        lambda profile: quantize(x, scheme, [0.25], profile=profile),
    ):
        flex = run(Profile.FLEX)
        assert flex.scheme.store == QuantStore.native() and str(flex.scheme) == (
            f"{value}:store=native"
        )
        assert flex.values.dtype == np.int8 and flex.values.shape == (16,)
        for ndarray in (Profile.NDARRAY, Profile.NDARRAY_TESTS):
            with pytest.raises(QuantizationError, match=re.escape(
                    "Quantization not supported for scheme "
                    f"QuantScheme {{ value: {value.upper()}, store: PackedNative(0)")):
                run(ndarray)
        with pytest.raises(QuantizationError, match=f"{value.upper()} doesn't support native"):
            run(Profile.CUBECL)


def test_values_and_scales_beyond_f32_cast_without_a_warning() -> None:
    """An f64 beyond f32's range becomes inf as Burn's cast makes it: an infinite `x` clamps
    (static) or is refused (calibration), an infinite scale is refused; numpy's overflow
    RuntimeWarning is never printed."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clamped = quantize(np.array([1e39, -1e39, 1.0]), "q8s", [0.1])
        assert clamped.values.tolist() == [127, -127, 10]
        with pytest.raises(QuantizationError, match="cannot calibrate NaN or infinite"):
            quantize_dynamic(np.array([1e39, 1.0]), "q8s")
        with pytest.raises(QuantizationError, match="scales must be finite in f32"):
            quantize(np.ones(4, F32), "q8s", np.array([1e39]))
        with pytest.raises(QuantizationError, match="global scale must be finite in f32"):
            quantize(np.ones(4, F32), "q8s:block=4:scale=ue4m3:global=f32", [1.0], 1e39)


def test_bad_inputs_are_refused() -> None:
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(QuantizationError, match="cannot calibrate NaN or infinite"):
            quantize_dynamic(np.array([1.0, bad], F32), "q8s")
        with pytest.raises(QuantizationError, match="cannot calibrate NaN or infinite"):
            quantize_dynamic(np.array([1.0, bad], F32), "q2s", calibration=Calibration.ABSMEAN)
    with pytest.raises(QuantizationError, match="takes 1 scale"):
        quantize(np.ones(4, F32), "q8s", [0.1, 0.2])
    with pytest.raises(QuantizationError, match="never negative"):
        quantize(np.ones(4, F32), "q8s", [-0.1])
    with pytest.raises(QuantizationError, match="requires a per-tensor global"):
        quantize(np.ones(4, F32), "q8s:block=4:scale=ue4m3:global=f32", [1.0])
    with pytest.raises(QuantizationError, match="empty tensor"):
        quantize_dynamic(np.ones((0, 4), F32), "q8s")


@pytest.mark.parametrize("size", [8, 2 * CHUNK + 5])
@pytest.mark.parametrize("profile", list(Profile))
def test_static_nan_is_refused_and_infinity_clamps(size: int, profile: Profile) -> None:
    """Burn clamps `x / s = ±inf` to the range; a NaN (which Burn's `as i8` silently makes 0) is
    refused, on the chunked large-tensor path and the small one, per tensor and per block."""
    x = np.linspace(-1, 1, size, dtype=F32)
    x[3], x[-2] = np.inf, -np.inf
    q = np.asarray(quantize(x, "q8s:store=native", [0.01], profile=profile).q())
    assert q[3] == 127 and q[-2] == -127
    x[size // 2] = np.nan
    for scheme, scales in (
        ("q8s:store=native", [0.01]),
        ("q8s:block=1:store=native", np.full(size, 0.01)),
    ):
        with pytest.raises(QuantizationError, match="cannot quantize NaN values"):
            quantize(x, scheme, scales, profile=profile)
    with pytest.raises(QuantizationError, match="cannot quantize NaN values"):
        quantize(x, "q8s:store=native", [0.0], profile=profile)


def test_static_two_level_takes_scales_relative_to_the_global() -> None:
    x = np.array([0.5, 1.0, 2.0, 4.0], F32)
    t = quantize(
        x,
        "q8s:block=2:scale=ue4m3:global=f32",
        [112.0, 448.0],
        F32(4 / 127 / 448),
        profile=Profile.NDARRAY,
    )
    np.testing.assert_array_equal(t.scales_f32().reshape(-1), [112, 448])
    np.testing.assert_allclose(np.asarray(t.dequantize(Profile.NDARRAY)), x, rtol=2e-2)


def test_dequantize_dtypes() -> None:
    """Burn dequantizes in f32 and converts to the requested float dtype."""
    t = quantize_dynamic(np.array([-1.8, -1.0, 0.0, 0.5], F32), "q8s")
    f32 = np.asarray(t.dequantize())
    assert f32.dtype == F32
    assert t.dequantize(dtype=DType.F64).dtype == np.float64
    np.testing.assert_array_equal(t.dequantize(dtype=DType.F16), f32.astype(np.float16))
    np.testing.assert_array_equal(t.dequantize(dtype=DType.BF16), f32.astype(ml_dtypes.bfloat16))
    with pytest.raises(QuantizationError, match="F32, Flex32, F64, F16 or BF16"):
        t.dequantize(dtype=DType.I32)


def test_dequantize_to_flex32_gives_f32_values() -> None:
    """Flex's `dequantize` takes `FloatDType::Flex32` and produces f32
    (`crates/burn-flex/src/ops/qtensor.rs:231`); reference §11.4 lists only F32, F64, F16, BF16."""
    t = quantize_dynamic(np.array([-1.8, -1.0, 0.0, 0.5], F32), "q8s")
    flex32 = np.asarray(t.dequantize(dtype=DType.FLEX32))
    assert flex32.dtype == F32
    np.testing.assert_array_equal(flex32, np.asarray(t.dequantize()))


def test_ndarray_dequantizes_a_zero_scale_with_point_one() -> None:
    """SymmetricQuantization::init replaces a zero scale with 0.1 when quantizing *and* when
    dequantizing (burn-ndarray tensor.rs `strategy`); the stored scale stays 0."""
    t = quantize(np.array([0.25, -0.3], F32), "q8s", [0.0], profile=Profile.NDARRAY)
    assert t.scales_f32()[0] == 0
    np.testing.assert_array_equal(np.asarray(t.q()), [3, -3])
    np.testing.assert_allclose(np.asarray(t.dequantize(Profile.NDARRAY)), [0.3, -0.3])
    np.testing.assert_array_equal(np.asarray(t.dequantize(Profile.FLEX)), [0.0, -0.0])
    cube = quantize(
        np.array([0.25, -0.3, 0.0], F32), "q8s:store=native", [0.0], profile=Profile.CUBECL
    )
    np.testing.assert_array_equal(np.asarray(cube.q()), [127, -127, 0])


def test_scheme_strings_and_objects_are_interchangeable() -> None:
    x = np.linspace(-1, 1, 64, dtype=F32).reshape(2, 32)
    a = quantize_dynamic(x, "q4f:block=32", profile=Profile.CUBECL)
    b = quantize_dynamic(x, parse_scheme("q4f:block=32"), profile=Profile.CUBECL)
    assert a.bit_equal(b)


def test_cubecl_divides_by_a_negative_zero_scale_as_given() -> None:
    """CubeCL has no zero guard: x / -0.0 is -inf where x / 0.0 is +inf (cubek-quant
    quantize.rs), and a scale of -0.0 passes the client's `>= 0` check."""
    x = np.array([1.0, -1.0], np.float32)
    plus = quantize(x, "q8s:store=native", [0.0], profile=Profile.CUBECL)
    minus = quantize(x, "q8s:store=native", [-0.0], profile=Profile.CUBECL)
    assert plus.q().tolist() == [127, -127] and minus.q().tolist() == [-127, 127]
