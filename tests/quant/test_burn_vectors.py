"""Every case of burn-quant-vectors.json, reproduced with the backend profile(s) that reproduce it.

The vectors come from Burn's own tests at 2c06be3 (each case's `source` names the file and test).
`q` and the scales are compared bit-exactly, the dequantized values within the case's tolerance.
Which profile each case runs with:
- generic backend tests (burn-backend-tests/tests/tensor/...): every profile;
- burn-ndarray / burn-flex unit tests: that backend's profile;
- burn-backend-tests/tests/cubecl/...: the cubecl profile (PackedU32), checked against the CPU
  reference profiles with a Native store as Burn's test does. Burn's reference device there is
  NdArray built with `export_tests` (`crates/burn-backend-tests/tests/cubecl.rs:13-23`,
  `crates/burn-backend-tests/Cargo.toml:82-84`), which quantizes Q4 per tensor: that is the
  `ndarray-tests` profile; the plain `ndarray` profile refuses Q4 with Burn's NdArray text;
- rounding-sensitive cases: each profile against `expected_q_by_rounding`
  (div_away = ndarray, mul_away = flex, div_even = cubecl).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from routerlab.core.base.errors import BurnUnimplemented, QuantizationError
from routerlab.core.base.profiles import Profile
from routerlab.core.quant import (
    Calibration,
    QuantizedTensor,
    QuantScheme,
    QuantStore,
    QuantValue,
    ScaleDtype,
    compute_q_params,
    compute_range,
    from_bytes,
    layout_of,
    pack_u32,
    quantize,
    quantize_dynamic,
    unpack_u32,
)
from routerlab.core.quant.scale_dtype import to_storage

VECTORS = Path(__file__).resolve().parents[1] / "data" / "burn-quant-vectors.json"
"""A copy of the team's reference file (../shared/reference/), kept in the repository so that a
clone tests on its own; `test_vendored_vectors_match_the_reference` catches drift."""
SHARED_VECTORS = (
    Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "burn-quant-vectors.json"
)
F32 = np.float32
ALL = tuple(Profile)
CPU = (Profile.NDARRAY, Profile.FLEX)
TEST_REFERENCE = (Profile.NDARRAY_TESTS, Profile.FLEX)
"""The CPU profiles a cubecl vector is compared with: Burn's test reference build, and Flex."""
BY_ROUNDING = {"div_away": Profile.NDARRAY, "mul_away": Profile.FLEX, "div_even": Profile.CUBECL}


def _load() -> list[dict[str, Any]]:
    assert VECTORS.exists(), f"Burn's quantization vectors are missing: expected {VECTORS}"
    return json.loads(VECTORS.read_text())


CASES = _load()


@pytest.mark.skipif(not SHARED_VECTORS.exists(), reason="no ../shared/reference beside the clone")
def test_vendored_vectors_match_the_reference() -> None:
    assert json.loads(SHARED_VECTORS.read_text()) == CASES


def _name(case: dict[str, Any]) -> str:
    return case["source"].split("#")[1].split(" ")[0]


def _scheme(case: dict[str, Any], store: QuantStore | None = None) -> QuantScheme:
    """The case's scheme; a "device-default" store stays unresolved (the profile fills it)."""
    spec = case["scheme"]
    value = QuantValue[spec["value"]] if spec["value"] in QuantValue.__members__ else QuantValue.Q8S
    scheme = QuantScheme(value, store)
    if spec.get("block"):
        scheme = scheme.per_block(tuple(spec["block"]["size"]), ScaleDtype[spec["block"]["dtype"]])
    return scheme


def _x(case: dict[str, Any]) -> np.ndarray:
    return np.asarray(case["input"], F32).reshape(case["shape"])


def _f32_list(values: list[float]) -> np.ndarray:
    return np.asarray(values, dtype=F32)


def _assert_q(tensor: QuantizedTensor, expected: list[int]) -> None:
    np.testing.assert_array_equal(np.asarray(tensor.q()).reshape(-1), np.asarray(expected, np.int8))


def _assert_scales(tensor: QuantizedTensor, expected: list[float]) -> None:
    """Bit-exact: the expected numbers, read as f32, are the stored scales."""
    np.testing.assert_array_equal(tensor.scales_f32().reshape(-1), _f32_list(expected))


def _assert_dequant(
    tensor: QuantizedTensor,
    profile: Profile,
    target: np.ndarray,
    rel: float = 0.0,
    abs_: float = 0.0,
) -> None:
    got = np.asarray(tensor.dequantize(profile)).reshape(-1)
    np.testing.assert_allclose(got, target.reshape(-1), rtol=rel, atol=abs_)


# --- one function per Burn test ------------------------------------------------------------


def case_should_support_quantize_symmetric_int8(case: dict[str, Any]) -> None:
    """burn-backend-tests/tests/tensor/float/quantization/ops/quantize.rs: static scale, every
    backend."""
    for profile in ALL:
        t = quantize(_x(case), _scheme(case), case["expected_scales"], profile=profile)
        _assert_q(t, case["expected_q"])
        _assert_scales(t, case["expected_scales"])
        _assert_dequant(t, profile, _f32_list(case["expected_dequant"]))
        _assert_dequant(t, profile, _x(case), rel=0.1, abs_=0.01)


def case_should_quantize_dequantize_symmetric_single_with_transform(case: dict[str, Any]) -> None:
    """burn-backend-tests/tests/tensor/float/quantization/ops/quantize.rs: dynamic, then `* 10`."""
    for profile in ALL:
        t = quantize_dynamic(_x(case), _scheme(case), profile=profile)
        _assert_q(t, case["expected_q"])
        _assert_scales(t, case["expected_scales"])
        dq = np.asarray(t.dequantize(profile)).reshape(-1)
        np.testing.assert_array_equal(dq, _f32_list(case["expected_dequant"]))
        np.testing.assert_allclose(
            dq * F32(10), case["expected_post_op_output"], rtol=1e-2, atol=1e-2
        )


def case_should_support_per_block_symmetric_int8(case: dict[str, Any]) -> None:
    """burn-backend-tests/tests/tensor/float/quantization/data.rs: `TensorData::quantized` round
    trip (strict), plus the values the notes derive: x/scale backends give -63 for -0.02, Flex's
    x*(1/scale) gives -64 (63.5 exactly)."""
    scheme = _scheme(case, QuantStore.native())
    q = np.asarray(case["expected_q"], np.int8)
    scales = to_storage(_f32_list(case["expected_scales"]), ScaleDtype.F32)
    tensor = QuantizedTensor(q, scales, None, scheme, (16,), layout_of(scheme, (16,)))
    back = from_bytes(tensor.to_bytes(), (16,), scheme)
    assert back.bit_equal(tensor)
    x = np.array([-1.8, -1.0, 0.0, 0.5] * 2 + [-0.01, -0.02, -0.03, -0.04] * 2, F32)
    for profile in (Profile.NDARRAY, Profile.CUBECL):
        _assert_q(quantize_dynamic(x, _scheme(case), profile=profile), case["expected_q"])
    flex = np.asarray(quantize_dynamic(x, _scheme(case), profile=Profile.FLEX).q())
    assert flex[9] == flex[13] == -64
    _assert_dequant(tensor, Profile.NDARRAY, _f32_list(case["expected_dequant"]), rel=1e-6)


def case_per_block_symmetric_int8(case: dict[str, Any]) -> None:
    """burn-backend-tests/tests/tensor/float/quantization/scheme.rs: `compute_q_params` on a
    range."""
    rng = case["calibration_range"]
    params = compute_q_params(_scheme(case), _f32_list(rng["min"]), _f32_list(rng["max"]))
    np.testing.assert_array_equal(params.scales.reshape(-1), _f32_list(case["computed_scales_f32"]))
    np.testing.assert_allclose(params.scales.reshape(-1), case["expected_scales"], rtol=1e-4)
    assert params.global_scale is None


def case_should_quantize_blocks_that_do_not_span_the_trailing_dim(case: dict[str, Any]) -> None:
    """burn-backend-tests/tests/tensor/float/quantization/ops/quantize.rs: [2,4] rectangles."""
    for profile in ALL:
        t = quantize_dynamic(_x(case), _scheme(case), profile=profile)
        assert t.scales.shape == tuple(case["scales_shape"])
        np.testing.assert_allclose(t.scales_f32().reshape(-1), case["expected_scales"], rtol=1e-3)
        _assert_q(t, case["expected_q"])
        _assert_dequant(t, profile, _x(case), rel=0.01)


def case_min_max_calibration_range_per_tensor(case: dict[str, Any]) -> None:
    """burn-backend-tests/tests/tensor/float/quantization/calibration.rs: exact range; the scale
    derived from it with `compute_q_params`."""
    low, high = compute_range(_x(case), _scheme(case), Calibration.MINMAX)
    np.testing.assert_array_equal(low, _f32_list(case["expected_range"]["min"]))
    np.testing.assert_array_equal(high, _f32_list(case["expected_range"]["max"]))
    params = compute_q_params(_scheme(case), low, high)
    np.testing.assert_array_equal(params.scales.reshape(-1), _f32_list(case["expected_scales"]))


def case_abs_mean_calibration_range_per_tensor(case: dict[str, Any]) -> None:
    """burn-backend-tests/tests/tensor/float/quantization/calibration.rs: gamma = mean|x|; the
    derived Q2S scale (= gamma) and values on the CPU backends. CubeCL cannot hold these four
    2-bit values: its PackedU32 needs the last dim to be a multiple of 16 values per word."""
    scheme = _scheme(case)
    low, high = compute_range(_x(case), scheme, Calibration.ABSMEAN)
    np.testing.assert_allclose(high, case["expected_range"]["max"], rtol=1e-6)
    np.testing.assert_allclose(low, case["expected_range"]["min"], rtol=1e-6)
    with pytest.raises(QuantizationError, match="Can't store in u32"):
        quantize_dynamic(_x(case), scheme, profile=Profile.CUBECL, calibration=Calibration.ABSMEAN)
    for profile in CPU:
        t = quantize_dynamic(_x(case), scheme, profile=profile, calibration=Calibration.ABSMEAN)
        _assert_q(t, case["expected_q"])
        _assert_scales(t, case["expected_scales"])
        _assert_dequant(t, profile, _f32_list(case["expected_dequant"]))


def case_test_int8_symmetric_quantization(case: dict[str, Any]) -> None:
    """burn-ndarray/src/ops/quantization.rs: `SymmetricQuantization::new(-1.8, 0.5)`; dequant is
    compared with exact f32 equality."""
    t = quantize_dynamic(_x(case), _scheme(case), profile=Profile.NDARRAY)
    _assert_q(t, case["expected_q"])
    _assert_scales(t, case["expected_scales"])
    _assert_dequant(t, Profile.NDARRAY, _f32_list(case["expected_dequant"]))


def case_test_quantize_dequantize_roundtrip(case: dict[str, Any]) -> None:
    """burn-flex/src/ops/qtensor.rs: `Flex::quantize` with scale 2*5/254."""
    scheme = _scheme(case, QuantStore.native())
    scale = F32(2.0) * F32(5.0) / F32(254.0)
    t = quantize(_x(case), scheme, [scale], profile=Profile.FLEX)
    _assert_q(t, case["expected_q"])
    _assert_scales(t, case["expected_scales"])
    _assert_dequant(t, Profile.FLEX, _x(case), abs_=0.05)


def case_test_quantize_dynamic_roundtrip(case: dict[str, Any]) -> None:
    """burn-flex/src/ops/qtensor.rs: Flex's own `quantize_dynamic`."""
    t = quantize_dynamic(_x(case), _scheme(case, QuantStore.native()), profile=Profile.FLEX)
    _assert_q(t, case["expected_q"])
    _assert_scales(t, case["expected_scales"])
    _assert_dequant(t, Profile.FLEX, _f32_list(case["expected_dequant"]))
    _assert_dequant(t, Profile.FLEX, _x(case), abs_=0.1)


def case_test_quantize_dynamic_q8f(case: dict[str, Any]) -> None:
    """burn-flex/src/ops/qtensor.rs: Q8F lands on ±42.5 and 127.5 — ties, so each profile's
    rounding gives its own `expected_q_by_rounding` and `expected_dequant_by_rounding`."""
    for key, profile in BY_ROUNDING.items():
        t = quantize_dynamic(_x(case), _scheme(case, QuantStore.native()), profile=profile)
        _assert_q(t, case["expected_q_by_rounding"][key])
        _assert_scales(t, case["expected_scales"])
        _assert_dequant(t, profile, _f32_list(case["expected_dequant_by_rounding"][key]))
        _assert_dequant(t, profile, _x(case), abs_=0.1)
    flex = quantize_dynamic(_x(case), _scheme(case), profile=Profile.FLEX)
    _assert_q(flex, case["expected_q"])


def case_test_per_block_quantize_dequantize(case: dict[str, Any]) -> None:
    """burn-flex/src/ops/qtensor.rs: `Flex::quantize` with static block scales [6/254, 14/254]."""
    scales = [F32(2.0) * F32(3.0) / F32(254.0), F32(2.0) * F32(7.0) / F32(254.0)]
    t = quantize(_x(case), _scheme(case, QuantStore.native()), scales, profile=Profile.FLEX)
    _assert_q(t, case["expected_q"])
    _assert_scales(t, case["expected_scales"])
    _assert_dequant(t, Profile.FLEX, _x(case), abs_=0.1)


def case_test_quantize_zero_tensor(case: dict[str, Any]) -> None:
    """burn-flex/src/ops/qtensor.rs: a zero scale is replaced before dividing (Flex:
    MIN_POSITIVE, NdArray: 0.1); CubeCL divides 0 by 0, which casts to 0. q = 0 everywhere."""
    for profile in ALL:
        t = quantize(_x(case), _scheme(case), [case["given_scale"]], profile=profile)
        _assert_q(t, case["expected_q"])
        np.testing.assert_array_equal(np.asarray(t.dequantize(profile)), np.zeros(4, F32))
    flex = quantize(_x(case), _scheme(case), [0.0], profile=Profile.FLEX)
    assert flex.scales_f32()[0] == np.finfo(F32).tiny


def case_should_pack_unpack_quantization_parameters_per_tensor_symmetric(
    case: dict[str, Any],
) -> None:
    """burn-std/src/tensor/quantization.rs: `QuantizedBytes::new` → `into_vec_i8`, 10 bytes."""
    scheme = _scheme(case, QuantStore.native())
    q = np.asarray(case["expected_q"], np.int8).reshape(case["shape"])
    scales = to_storage(_f32_list(case["expected_scales"]), ScaleDtype.F32)
    tensor = QuantizedTensor(q, scales, None, scheme, (2, 3), layout_of(scheme, (2, 3)))
    raw = tensor.to_bytes()
    assert len(raw) == case["byte_layout"]["total_bytes"]
    assert raw[6:] == np.float32(case["expected_scales"][0]).tobytes()
    back = from_bytes(raw, (2, 3), scheme)
    _assert_q(back, case["expected_q"])
    _assert_scales(back, case["expected_scales"])
    t = quantize(_x(case), scheme, case["expected_scales"], profile=Profile.NDARRAY)
    _assert_q(t, case["expected_q"])


def case_should_pack_unpack_ue4m3_block_scales(case: dict[str, Any]) -> None:
    """burn-std/src/tensor/quantization.rs: 8 i8 values then 2 UE4M3 block scales, 10 bytes."""
    scheme = _scheme(case, QuantStore.native())
    q = np.asarray(case["expected_q"], np.int8)
    scales = to_storage(_f32_list(case["expected_scales"]), ScaleDtype.UE4M3)
    tensor = QuantizedTensor(q, scales, None, scheme, (8,), layout_of(scheme, (8,)))
    raw = tensor.to_bytes()
    assert len(raw) == case["byte_layout"]["total_bytes"]
    assert raw[:8] == q.tobytes() and raw[8:] == bytes([0x30, 0x20])  # e4m3: 0.5, 0.125
    back = from_bytes(raw, (8,), scheme)
    assert back.bit_equal(tensor)
    _assert_scales(back, case["expected_scales"])


def case_should_pack_i8s_to_u32(case: dict[str, Any]) -> None:
    """burn-std/src/tensor/quantization.rs: pack_i8s_to_u32s / unpack_q_to_i8s, padded too."""
    packed = pack_u32(np.asarray(case["expected_q"], np.int8), 8)
    np.testing.assert_array_equal(packed, np.asarray(case["expected_packed_u32"], np.uint32))
    padded = case["padded_case"]
    np.testing.assert_array_equal(
        pack_u32(np.asarray(padded["q"], np.int8), 8), np.asarray(padded["packed_u32"], np.uint32)
    )
    np.testing.assert_array_equal(
        unpack_u32(np.asarray(case["expected_packed_u32"], np.uint32), 8, 4), case["expected_q"]
    )
    np.testing.assert_array_equal(unpack_u32(np.asarray([55], np.uint32), 8, 1), [55])


def case_cubecl_packed(case: dict[str, Any]) -> None:
    """burn-backend-tests/tests/cubecl/quantization/quantize_dequantize.rs: the GPU's PackedU32
    output must equal the CPU reference with a Native store (values only, as `assert_eq`
    strict=false)."""
    t = quantize_dynamic(_x(case), _scheme(case, QuantStore.packed_u32(0)), profile=Profile.CUBECL)
    assert t.values.dtype == np.uint32
    _assert_q(t, case["expected_q"])
    _assert_scales(t, case["expected_scales"])
    _assert_dequant(t, Profile.CUBECL, _f32_list(case["expected_dequant"]), rel=1e-6)
    native = _scheme(case, QuantStore.native())
    for profile in TEST_REFERENCE:
        reference = quantize_dynamic(_x(case), native, profile=profile)
        assert t.values_equal(reference)
        assert not t.bit_equal(reference)
    if native.value is QuantValue.Q4S:  # only the export_tests build has a per-tensor Q4 arm
        with pytest.raises(BurnUnimplemented, match="Quantization not supported for scheme "
                           "QuantScheme { value: Q4S, store: Native"):
            quantize_dynamic(_x(case), native, profile=Profile.NDARRAY)
    else:
        assert t.values_equal(quantize_dynamic(_x(case), native, profile=Profile.NDARRAY))


def case_should_panic_when_block_size_cannot_store_num_quants(case: dict[str, Any]) -> None:
    """burn-backend-tests/tests/cubecl/quantization/quantize_dequantize.rs: a block of 8 cannot
    hold a u32 word of 16 two-bit values."""
    with pytest.raises(
        QuantizationError, match="Block size must be divisible by 16, got block_size=8"
    ):
        quantize_dynamic(_x(case), _scheme(case, QuantStore.packed_u32(0)), profile=Profile.CUBECL)


def case_q2s_ternary_matmul_matches_dequantized(case: dict[str, Any]) -> None:
    """burn-backend-tests/tests/tensor/float/quantization/ops/extended/ternary_matmul.rs: MinMax
    Q2S gives scale 0.9 and ternary values, on every backend."""
    for profile in ALL:
        scheme = (
            _scheme(case) if profile is not Profile.CUBECL else _scheme(case, QuantStore.native())
        )
        if profile is Profile.CUBECL:
            # 3 columns cannot fill a 16-value word and CubeCL cannot store native sub-byte values.
            with pytest.raises(QuantizationError):
                quantize_dynamic(_x(case), _scheme(case), profile=profile)
            with pytest.raises(QuantizationError, match="native sub-byte"):
                quantize_dynamic(_x(case), scheme, profile=profile)
            continue
        t = quantize_dynamic(_x(case), scheme, profile=profile)
        _assert_q(t, case["expected_q"])
        _assert_scales(t, case["expected_scales"])
        _assert_dequant(t, profile, _f32_list(case["expected_dequant"]))


HANDLERS: dict[str, Callable[[dict[str, Any]], None]] = {
    fn.__name__.removeprefix("case_"): fn
    for fn in (
        case_should_support_quantize_symmetric_int8,
        case_should_quantize_dequantize_symmetric_single_with_transform,
        case_should_support_per_block_symmetric_int8,
        case_per_block_symmetric_int8,
        case_should_quantize_blocks_that_do_not_span_the_trailing_dim,
        case_min_max_calibration_range_per_tensor,
        case_abs_mean_calibration_range_per_tensor,
        case_test_int8_symmetric_quantization,
        case_test_quantize_dequantize_roundtrip,
        case_test_quantize_dynamic_roundtrip,
        case_test_quantize_dynamic_q8f,
        case_test_per_block_quantize_dequantize,
        case_test_quantize_zero_tensor,
        case_should_pack_unpack_quantization_parameters_per_tensor_symmetric,
        case_should_pack_unpack_ue4m3_block_scales,
        case_should_pack_i8s_to_u32,
        case_should_panic_when_block_size_cannot_store_num_quants,
        case_q2s_ternary_matmul_matches_dequantized,
    )
}
for _packed in ("q8s", "q4s", "q2s"):
    HANDLERS[f"should_quantize_dequantize_symmetric_arange_{_packed}_packed"] = case_cubecl_packed
HANDLERS["should_quantize_dequantize_symmetric_per_block_q8s_packed"] = case_cubecl_packed


def test_every_vector_has_a_handler() -> None:
    assert len(CASES) == 22
    assert sorted(_name(c) for c in CASES) == sorted(HANDLERS)


@pytest.mark.parametrize(
    "case",
    CASES,
    ids=[
        f"{i:02d}-{c['source'].split('#')[0].split('/')[-1]}-{_name(c)}"
        for i, c in enumerate(CASES)
    ],
)
def test_burn_vector(case: dict[str, Any]) -> None:
    HANDLERS[_name(case)](case)
