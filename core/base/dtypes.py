"""Element types, classified exactly as Burn classifies them.

Burn's router dispatches on four predicates (`crates/burn-std/src/tensor/dtype.rs:78-96`):
`is_float` (F64, F32, Flex32, F16, BF16), `is_int` (signed only), `is_uint` and `is_bool`.
`QFloat(scheme)` satisfies none of them, and unsigned ints satisfy only `is_uint`; that is why
both fall through the router's `if/else if` chains (burn-std dtype.rs:78-96). The model keeps those
predicates so that the same fall-throughs can be replayed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from .choices import Choice
from .errors import DTypeError

if TYPE_CHECKING:
    from ..quant.scheme import QuantScheme


class DType(Choice, noun="dtype", error=DTypeError):
    """A plain (non-quantized) element type. The value is the short name used in files."""

    F64 = "f64"
    F32 = "f32"
    FLEX32 = "flex32"
    F16 = "f16"
    BF16 = "bf16"
    I64 = "i64"
    I32 = "i32"
    I16 = "i16"
    I8 = "i8"
    U64 = "u64"
    U32 = "u32"
    U16 = "u16"
    U8 = "u8"
    BOOL = "bool"

    def is_float(self) -> bool:
        return self in _FLOATS

    def is_int(self) -> bool:
        return self in _INTS

    def is_uint(self) -> bool:
        return self in _UINTS

    def is_bool(self) -> bool:
        return self is DType.BOOL

    @property
    def numpy(self) -> np.dtype[Any]:
        """The numpy dtype that stores this type (Flex32 is stored as f32, BF16 via ml_dtypes)."""
        if self is DType.BF16:
            import ml_dtypes

            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype(_NUMPY_NAMES[self])

    @property
    def size(self) -> int:
        """Bytes per element, as `DType::size()` reports it (a table: every op's output asks)."""
        return _SIZES[self]

    @classmethod
    def from_numpy(cls, dtype: np.dtype[Any]) -> DType:
        """The DType that stores a numpy dtype (for tensors created from arrays)."""
        dtype = np.dtype(dtype)
        if dtype.name == "bfloat16":
            return DType.BF16
        for candidate, name in _NUMPY_NAMES.items():
            if candidate is not DType.FLEX32 and np.dtype(name) == dtype:
                return candidate
        raise DTypeError(f"numpy dtype {dtype} has no RouterLab dtype")


_FLOATS = frozenset({DType.F64, DType.F32, DType.FLEX32, DType.F16, DType.BF16})
_INTS = frozenset({DType.I64, DType.I32, DType.I16, DType.I8})
_UINTS = frozenset({DType.U64, DType.U32, DType.U16, DType.U8})
_NUMPY_NAMES = {
    DType.F64: "float64", DType.F32: "float32", DType.FLEX32: "float32", DType.F16: "float16",
    DType.I64: "int64", DType.I32: "int32", DType.I16: "int16", DType.I8: "int8",
    DType.U64: "uint64", DType.U32: "uint32", DType.U16: "uint16", DType.U8: "uint8",
    DType.BOOL: "bool",
}
_SIZES = {**{d: np.dtype(name).itemsize for d, name in _NUMPY_NAMES.items()}, DType.BF16: 2}


@dataclass(frozen=True)
class QFloat:
    """`DType::QFloat(scheme)`: a quantized float tensor. Matches none of the four predicates."""

    scheme: QuantScheme

    def is_float(self) -> bool:
        return False

    def is_int(self) -> bool:
        return False

    def is_uint(self) -> bool:
        return False

    def is_bool(self) -> bool:
        return False

    def __str__(self) -> str:
        return f"qfloat({self.scheme})"


AnyDType: TypeAlias = DType | QFloat
"""What `TensorIr.dtype` holds."""


def is_quantized(dtype: AnyDType) -> bool:
    """True for `QFloat(_)`, the one dtype the router's transfer paths never handled."""
    return isinstance(dtype, QFloat)
