"""The scheme space and its compact string (reference §10).

Ported from cubecl-common's scheme.rs tests (block canonicalisation, level resolution) and
burn-std's `quantizable_declines_what_no_backend_can_store`
(crates/burn-std/src/tensor/quantization.rs).
"""

from __future__ import annotations

import pytest

from routerlab.core.base.dtypes import QFloat, is_quantized
from routerlab.core.base.errors import QuantizationError
from routerlab.core.base.profiles import Profile
from routerlab.core.quant import (
    BlockSize,
    QuantScheme,
    QuantStore,
    QuantValue,
    ScaleDtype,
    format_scheme,
    parse_scheme,
    quantizable,
)

CANONICAL = [
    "q8s",
    "q8f",
    "q4s",
    "q4f",
    "q2s",
    "q2f",
    "q4f:block=32",
    "q8s:block=2x16:scale=ue4m3:global=f32",
    "q4s:store=packed-u32",
    "q8s:scale=f16",
    "q8s:scale=f32",
    "q8s:scale=bf16:store=native",
    "q2s:block=4x2x8:scale=f16:store=packed-u32@1",
    "q8s:block=1",
    "e2m1:store=packed-native",
    "q4s:store=packed-u32@2",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_strings_round_trip(text: str) -> None:
    assert format_scheme(parse_scheme(text)) == text
    assert str(parse_scheme(text)) == text


def test_strings_map_onto_burns_builders() -> None:
    assert parse_scheme("q8s") == QuantScheme(QuantValue.Q8S)
    assert parse_scheme("q4f:block=32") == QuantScheme(QuantValue.Q4F).per_block(
        [32], ScaleDtype.F32
    )
    assert parse_scheme("q8s:block=2x16:scale=ue4m3:global=f32") == (
        QuantScheme(QuantValue.Q8S).per_block([2, 16], ScaleDtype.UE4M3).per_tensor(ScaleDtype.F32)
    )
    assert parse_scheme("q4s:store=packed-u32").store == QuantStore.packed_u32(0)
    assert parse_scheme("q8s:scale=f16") == QuantScheme(QuantValue.Q8S).per_tensor(ScaleDtype.F16)


def test_equivalent_spellings_canonicalise() -> None:
    assert str(parse_scheme("q8s:scale=ue4m3:block=1x32")) == "q8s:block=32:scale=ue4m3"
    assert str(parse_scheme("Q4F:block=32:scale=f32")) == "q4f:block=32"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("q8s:blok=32", "'blok=32'"),
        ("q9s", "'q9s'"),
        ("q8s:scale=f64", "scale='f64'"),
        ("q8s:block=32x", "block='32x'"),
        ("q8s:block=256", "256"),
        ("q8s:block=2x2x2x2x2x2", "6 dims"),
        ("q8s:store=packed", "store='packed'"),
        ("q8s:store=native@1", "store='native@1'"),
        ("q8s:global=f32", "global= needs block="),
        ("q8s:block=4:block=8", "block= is given twice"),
        ("q8s:mode=lookup", "mode='lookup'"),
        ("q8s:", "''"),
    ],
)
def test_unknown_parts_name_the_part(text: str, named: str) -> None:
    with pytest.raises(QuantizationError, match=None) as error:
        parse_scheme(text)
    assert named in str(error.value)


def test_store_resolves_to_the_profile_default() -> None:
    """Flex/NdArray devices use `QuantScheme::default().with_store(Native)`
    (burn-flex/src/backend.rs, burn-ndarray/src/backend.rs); other backends keep PackedU32(0)."""
    scheme = parse_scheme("q8s")
    assert scheme.store is None
    assert scheme.resolve(Profile.NDARRAY).store == QuantStore.native()
    assert scheme.resolve(Profile.FLEX).store == QuantStore.native()
    assert scheme.resolve(Profile.CUBECL).store == QuantStore.packed_u32(0)
    explicit = parse_scheme("q8s:store=packed-u32")
    assert explicit.resolve(Profile.FLEX) is explicit
    with pytest.raises(QuantizationError, match="resolve it against a backend profile"):
        scheme.num_quants()


def test_storage_quantities() -> None:
    """`num_quants`: Q8/Q4/Q2 in PackedU32 hold 4/8/16 values per word; Native holds one."""
    for value, per_word in ((QuantValue.Q8S, 4), (QuantValue.Q4F, 8), (QuantValue.Q2S, 16)):
        assert QuantScheme(value, QuantStore.packed_u32()).num_quants() == per_word
        assert QuantScheme(value, QuantStore.native()).num_quants() == 1
    assert QuantScheme(QuantValue.E2M1, QuantStore.packed_native()).size_bits_stored() == 8


def test_value_ranges() -> None:
    assert QuantValue.Q8F.range == (-128, 127) and QuantValue.Q8S.range == (-127, 127)
    assert QuantValue.Q4F.range == (-8, 7) and QuantValue.Q4S.range == (-7, 7)
    assert QuantValue.Q2F.range == (-2, 1) and QuantValue.Q2S.range == (-1, 1)
    assert QuantValue.E4M3.range == (-448, 448) and QuantValue.E2M1.native_packing == 2


def test_blocks_remain_rank_relative() -> None:
    """cubecl-common scheme.rs: blocks_remain_rank_relative, leading_unit_dimensions_*."""
    assert BlockSize((32,)) != BlockSize((32, 32))
    assert BlockSize((32,)).dims_for(2) == (1, 32)
    assert BlockSize((1, 32)) == BlockSize((32,))
    assert BlockSize((1, 1, 8, 4, 2, 3)) == BlockSize((8, 4, 2, 3))
    assert hash(BlockSize((1, 32))) == hash(BlockSize((32,)))


def test_to_dim_vec_keeps_the_first_extents() -> None:
    """`to_dim_vec(len)` copies `storage[..min(len, self.len)]` into the trailing slots
    (cubecl-common quant/scheme.rs:568-574 at Burn's cubecl pin 4834896)."""
    assert BlockSize((4, 32)).dims_for(1) == (4,)
    assert BlockSize((2, 3, 5)).dims_for(2) == (2, 3)
    assert BlockSize((4, 32)).dims_for(3) == (1, 4, 32)


def test_there_is_one_block_per_scale() -> None:
    """cubecl-common scheme.rs: there_is_one_block_per_scale,
    a_partial_block_still_takes_a_scale."""
    assert BlockSize((32,)).num_blocks((8, 64)) == (8, 2)
    assert BlockSize((4, 32)).num_blocks((8, 64)) == (2, 2)
    assert BlockSize((32,)).num_blocks((4, 8, 64)) == (4, 8, 2)
    assert BlockSize((32,)).num_blocks((8, 70)) == (8, 3)


def test_level_resolution() -> None:
    """cubecl-common scheme.rs: the_default_scheme_resolves_to_per_tensor_f32,
    a_block_level_stands_alone, both_levels_nest_the_block_inside_the_tensor,
    levels_set_in_any_order_are_the_same_scheme."""
    default = QuantScheme()
    assert default.tensor_scale() is ScaleDtype.F32 and default.block is None
    assert default.scale_dtype() is ScaleDtype.F32 and default.num_levels() == 1
    assert default != default.per_tensor(ScaleDtype.F32)
    block = QuantScheme().per_block([32], ScaleDtype.F16)
    assert block.tensor_scale() is None and block.scale_dtype() is ScaleDtype.F16
    assert block.num_levels() == 1 and not block.is_two_level
    both = QuantScheme().per_block([16], ScaleDtype.UE4M3).per_tensor(ScaleDtype.F32)
    assert both.scale_dtype() is ScaleDtype.UE4M3 and both.num_levels() == 2 and both.is_two_level
    assert both == QuantScheme().per_tensor(ScaleDtype.F32).per_block([16], ScaleDtype.UE4M3)


def test_quantizable_declines_what_no_backend_can_store() -> None:
    """burn-std/src/tensor/quantization.rs: quantizable_declines_what_no_backend_can_store."""
    assert quantizable(QuantScheme())
    assert quantizable(QuantScheme().per_block([4], ScaleDtype.F16))
    assert quantizable(QuantScheme().per_block([4], ScaleDtype.UE4M3).per_tensor(ScaleDtype.F32))
    assert not quantizable(QuantScheme().per_block([4], ScaleDtype.UE8M0))
    assert not quantizable(QuantScheme().per_tensor(ScaleDtype.UE8M0))
    assert not quantizable(QuantScheme().per_block([4], ScaleDtype.F32).per_tensor(ScaleDtype.F32))
    assert not quantizable(
        QuantScheme().per_block([4], ScaleDtype.UE4M3).per_tensor(ScaleDtype.BF16)
    )


def test_qfloat_is_a_hashable_dtype() -> None:
    scheme = parse_scheme("q8s:block=2x16:scale=ue4m3:global=f32")
    dtype = QFloat(scheme)
    assert is_quantized(dtype) and not dtype.is_float()
    assert {dtype: 1}[QFloat(parse_scheme(str(scheme)))] == 1
    assert str(dtype) == "qfloat(q8s:block=2x16:scale=ue4m3:global=f32)"
