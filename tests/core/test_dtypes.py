"""The dtype predicates, exactly as Burn defines them."""

from __future__ import annotations

import pytest

from routerlab.core import DType, QFloat
from routerlab.core.quant import parse_scheme

# crates/burn-std/src/tensor/dtype.rs:78-96 (Burn 2c06be3): is_float matches F64, F32, Flex32,
# F16 and BF16; is_int only the signed ints (I64, I32, I16, I8); is_uint U64, U32, U16, U8;
# is_bool Bool. QFloat(_) appears in none of the four matches.
#                     is_float is_int is_uint is_bool
BURN_PREDICATES = {
    DType.F64: (True, False, False, False),
    DType.F32: (True, False, False, False),
    DType.FLEX32: (True, False, False, False),
    DType.F16: (True, False, False, False),
    DType.BF16: (True, False, False, False),
    DType.I64: (False, True, False, False),
    DType.I32: (False, True, False, False),
    DType.I16: (False, True, False, False),
    DType.I8: (False, True, False, False),
    DType.U64: (False, False, True, False),
    DType.U32: (False, False, True, False),
    DType.U16: (False, False, True, False),
    DType.U8: (False, False, True, False),
    DType.BOOL: (False, False, False, True),
}


def test_the_table_covers_every_dtype() -> None:
    assert set(BURN_PREDICATES) == set(DType)


SCHEMES = ["q8s", "q8f", "q4s:store=packed-u32", "q2s:block=32"]


@pytest.mark.parametrize("dtype", [*DType, *(QFloat(parse_scheme(s)) for s in SCHEMES)], ids=str)
def test_predicates_match_burn_dtype_rs(dtype: DType | QFloat) -> None:
    """crates/burn-std/src/tensor/dtype.rs:78-96: every DType member, and QFloat with any scheme
    (which matches none: the router's if/else chains fall through for it)."""
    expected = BURN_PREDICATES[dtype] if isinstance(dtype, DType) else (False,) * 4
    assert (dtype.is_float(), dtype.is_int(), dtype.is_uint(), dtype.is_bool()) == expected
