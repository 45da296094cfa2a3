"""PackedU32 packing, storage sizes and the canonical byte layout (reference §12).

Ported from crates/burn-std/src/tensor/quantization.rs: should_unpack_u32s_to_i8s_arange,
should_pack_unpack_two_level_scales (the 14-byte test), two_level_scheme_without_a_global_scale_
is_rejected, a_narrower_per_tensor_scale_is_rejected, and the `storage_elements` doc example
(Q4 PackedU32 [3, 3] takes 3 words, not 2).
"""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core.base.errors import QuantizationError
from routerlab.core.base.profiles import Profile
from routerlab.core.quant import (
    QuantizedTensor,
    QuantScheme,
    QuantStore,
    QuantValue,
    ScaleDtype,
    from_bytes,
    layout_of,
    pack_u32,
    parse_scheme,
    quantize,
    quantize_dynamic,
    quantized_data_len,
    unpack_u32,
)
from routerlab.core.quant.scale_dtype import to_storage

F32 = np.float32
ARANGE_Q4S_WORDS = [
    0,
    286331136,
    286331153,
    572657937,
    572662306,
    857874978,
    858993459,
    858993459,
    1145324612,
    1145324612,
    1431655748,
    1431655765,
    1717982549,
    1717986918,
    2003199590,
    2004318071,
]


def test_should_unpack_u32s_to_i8s_arange() -> None:
    """burn-std quantization.rs should_unpack_u32s_to_i8s_arange (Q4S, 128 values)."""
    expected = np.round(np.arange(128) * 7 / 127 + 1e-9).astype(np.int8)
    words = np.asarray(ARANGE_Q4S_WORDS, np.uint32)
    np.testing.assert_array_equal(unpack_u32(words, 4, 128), expected)
    np.testing.assert_array_equal(pack_u32(expected, 4), words)


def test_low_bits_first_and_sign_extension() -> None:
    """cubek pack_q: value k of a word sits in bits [k*bits, (k+1)*bits), two's complement."""
    q = np.array([-1, 1, -2, 0] + [0] * 12, np.int8)
    (word,) = pack_u32(q, 2)
    assert word == 0b00_10_01_11
    np.testing.assert_array_equal(unpack_u32(np.array([word], np.uint32), 2, 16), q)
    assert pack_u32(np.array([-8, 7], np.int8), 4)[0] == 0x78


def test_rows_round_up_on_their_own() -> None:
    """burn-std `storage_elements`: Q4 PackedU32 [3, 3] takes 3 words, not 2."""
    scheme = parse_scheme("q4s:store=packed-u32")
    layout = layout_of(scheme, (3, 3))
    assert layout.storage_shape == (3, 1) and layout.storage_elements == 3
    assert quantized_data_len(scheme, (3, 3)) == 3 * 4 + 4
    q = np.array([[1, -2, 3], [-4, 5, -6], [7, -7, 0]], np.int8)
    words = pack_u32(q, 4)
    assert words.shape == (3, 1)
    np.testing.assert_array_equal(unpack_u32(words, 4, 3), q)


def test_packing_along_an_outer_dim() -> None:
    """PackedU32(dim) counts from the innermost: dim 1 of a rank-2 tensor packs its columns."""
    scheme = parse_scheme("q8s:store=packed-u32@1")
    layout = layout_of(scheme, (6, 2))
    assert layout.packed_axis == 0 and layout.storage_shape == (2, 2)
    q = np.arange(-6, 6, dtype=np.int8).reshape(6, 2)
    words = pack_u32(q, 8, axis=0)
    np.testing.assert_array_equal(words[0], pack_u32(np.ascontiguousarray(q[:4].T), 8).reshape(-1))
    np.testing.assert_array_equal(unpack_u32(words, 8, 6, axis=0), q)


def _two_level(values: np.ndarray, global_scale: float | None) -> QuantizedTensor:
    scheme = (
        QuantScheme(QuantValue.Q8S, QuantStore.native())
        .per_block([4], ScaleDtype.UE4M3)
        .per_tensor(ScaleDtype.F32)
    )
    scales = to_storage(np.array([0.5, 0.125], F32), ScaleDtype.UE4M3)
    return QuantizedTensor(
        values,
        scales,
        None if global_scale is None else F32(global_scale),
        scheme,
        (8,),
        layout_of(scheme, (8,)),
    )


def test_should_pack_unpack_two_level_scales() -> None:
    """The layout is dense: 8 i8 values, 2 UE4M3 block scales, one f32 global = 14 bytes."""
    values = np.array([0, 25, 51, 76, 102, 127, -128, -1], np.int8)
    tensor = _two_level(values, 3.0)
    raw = tensor.to_bytes()
    assert len(raw) == 8 + 2 + 4 == tensor.nbytes == quantized_data_len(tensor.scheme, (8,))
    assert raw[:8] == values.tobytes() and raw[10:] == np.float32(3.0).tobytes()
    back = from_bytes(raw, (8,), tensor.scheme)
    np.testing.assert_array_equal(back.q(), values)
    np.testing.assert_array_equal(back.scales_f32(), [0.5, 0.125])
    assert back.global_scale == 3.0 and back.bit_equal(tensor)


def test_two_level_global_is_required_and_f32() -> None:
    """burn-std: two_level_scheme_without_a_global_scale_is_rejected,
    a_narrower_per_tensor_scale_is_rejected."""
    with pytest.raises(QuantizationError, match="requires a per-tensor global scale"):
        _two_level(np.zeros(8, np.int8), None)
    narrow = parse_scheme("q8s:block=4:scale=ue4m3:global=f16:store=native")
    with pytest.raises(QuantizationError, match="per-tensor scale as f32"):
        from_bytes(bytes(12), (8,), narrow)


def test_q8_packed_is_byte_identical_to_native() -> None:
    """Reference §12: on a little-endian machine, Q8 in PackedU32 is byte-identical to i8 Native."""
    x = np.linspace(-1, 1, 32, dtype=F32).reshape(4, 8)
    packed = quantize_dynamic(x, "q8s:store=packed-u32", profile=Profile.CUBECL)
    native = quantize_dynamic(x, "q8s:store=native", profile=Profile.CUBECL)
    assert packed.to_bytes() == native.to_bytes()
    assert packed.values_equal(native) and not packed.bit_equal(native)


def test_from_bytes_refusals() -> None:
    scheme = parse_scheme("q8s:store=native")
    with pytest.raises(QuantizationError, match="canonical layout takes 8"):
        from_bytes(bytes(9), (4,), scheme)
    with pytest.raises(QuantizationError, match="Packing must be on innermost dimension"):
        from_bytes(bytes(20), (4, 4), parse_scheme("q8s:store=packed-u32@1"))
    with pytest.raises(QuantizationError, match="PackedNative"):
        from_bytes(bytes(8), (4,), parse_scheme("q4s:store=packed-native"))
    with pytest.raises(QuantizationError, match="resolve it against a backend profile"):
        from_bytes(bytes(8), (4,), parse_scheme("q8s"))


def test_primitive_checks_its_arrays() -> None:
    t = quantize(np.ones(4, F32), "q8s", [0.1], profile=Profile.CUBECL)
    with pytest.raises(QuantizationError, match="do not fit layout"):
        QuantizedTensor(t.q(), t.scales, None, t.scheme, t.shape, t.layout)
    with pytest.raises(QuantizationError, match="does not match scheme"):
        QuantizedTensor(t.values, t.scales, None, t.scheme, t.shape, layout_of(t.scheme, (1, 4)))
    with pytest.raises(QuantizationError, match="do not fit"):
        QuantizedTensor(t.values, t.scales.astype(np.float16), None, t.scheme, t.shape, t.layout)
    with pytest.raises(ValueError):
        t.values[0] = 1


def test_native_minifloat_values_are_read_as_i8_and_packed_ones_refused() -> None:
    """`split_values_off` reads a Native store as i8 whatever the value (burn-std
    quantization.rs:330); only packed E-values are `unimplemented!("Not yet supported")`
    (:344-348)."""
    raw = bytes([1, 2, 0xFF, 0x80]) + np.float32(0.5).tobytes()
    tensor = from_bytes(raw, (4,), "e4m3:store=native")
    assert tensor.values.tolist() == [1, 2, -1, -128] and tensor.scales_f32().tolist() == [0.5]
    assert tensor.to_bytes() == raw
    with pytest.raises(QuantizationError, match="packed E4M3 values unimplemented"):
        from_bytes(bytes(8), (4,), "e4m3:store=packed-u32")
