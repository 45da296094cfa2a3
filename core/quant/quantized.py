"""`QuantizedTensor`: the quantized primitive a RouterLab device holds.

It is what a Burn backend's `QuantizedTensor<B>` holds, in one shape for all three profiles:
the values *as stored* (i8 per value for Native, u32 words for PackedU32), the scales *as stored*
(in their scale dtype, shaped as the block grid, `[1]` per tensor; for a two-level scheme relative
to the global), the optional f32 global, the scheme (with the store the backend actually kept),
the logical shape and the layout. The arrays are read-only; values may live on numpy or CuPy,
scales and the global always on the host (see `scale_dtype.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import Any

import numpy as np

from ..base.dtypes import DType, QFloat
from ..base.errors import QuantizationError
from ..base.profiles import DEFAULT_CPU_PROFILE, Profile
from .arrays import get_array_module, to_host, to_module
from .dequant import dequantize
from .layout import QuantLayout, layout_of, params_shape
from .packing import unpack_u32
from .scale_dtype import storage_dtype, to_f32
from .scheme import QuantScheme, check_global_scale


@dataclass(frozen=True, eq=False)
class QuantizedTensor:
    """Values, scales, global, scheme, shape and layout of one quantized tensor."""

    values: Any
    scales: np.ndarray
    global_scale: np.float32 | None
    scheme: QuantScheme
    shape: tuple[int, ...]
    layout: QuantLayout

    def __post_init__(self) -> None:
        shape = tuple(int(d) for d in self.shape)
        object.__setattr__(self, "shape", shape)
        expected = layout_of(self.scheme, shape)
        if self.layout != expected:
            raise QuantizationError(
                f"layout {self.layout} does not match scheme {self.scheme} on shape {list(shape)}"
            )
        if (
            tuple(self.values.shape) != expected.storage_shape
            or self.values.dtype != expected.storage_dtype
        ):
            raise QuantizationError(
                f"values {self.values.dtype}{list(self.values.shape)} do not fit layout "
                f"{expected.storage_dtype}{list(expected.storage_shape)}"
            )
        grid = params_shape(shape, self.scheme)
        dtype = storage_dtype(self.scheme.scale_dtype())
        if tuple(self.scales.shape) != grid or self.scales.dtype != dtype:
            raise QuantizationError(
                f"scales {self.scales.dtype}{list(self.scales.shape)} do not fit "
                f"{dtype}{list(grid)} for scheme {self.scheme}"
            )
        check_global_scale(self.scheme, self.global_scale is not None)
        _freeze(self.values, self.scales)

    def with_arrays(self, values: Any, scales: np.ndarray | None = None) -> QuantizedTensor:
        """The same tensor over other arrays of the same storage shape and dtype (a device copy):
        only those two facts are checked, not the whole layout again, which `dataclasses.replace`
        would redo on every move."""
        scales = self.scales if scales is None else scales
        if (values.shape != self.values.shape or values.dtype != self.values.dtype
                or scales.shape != self.scales.shape or scales.dtype != self.scales.dtype):
            raise QuantizationError("with_arrays keeps the storage shape and dtype of values and "
                                    "scales")
        copy = object.__new__(QuantizedTensor)
        object.__setattr__(copy, "__dict__", {**self.__dict__, "values": values,
                                              "scales": scales})
        _freeze(values, scales)
        return copy

    # --- what it is ---
    @cached_property
    def dtype(self) -> QFloat:
        """`DType::QFloat(scheme)`, built once (a move asks for it several times)."""
        return QFloat(self.scheme)

    @property
    def xp(self) -> ModuleType:
        """The array module holding the values."""
        return get_array_module(self.values)

    @property
    def nbytes(self) -> int:
        """Bytes of the canonical layout: values, scales, and the f32 global if any."""
        return int(self.values.nbytes) + self.params_nbytes

    @property
    def params_nbytes(self) -> int:
        """Bytes of the quantization parameters: the scales and the f32 global if any."""
        return int(self.scales.nbytes) + (0 if self.global_scale is None else 4)

    def q(self) -> Any:
        """The logical int8 values in the logical shape (unpacked when packed)."""
        axis = self.layout.packed_axis
        if axis is None:
            return self.values
        return unpack_u32(self.values, self.scheme.value.bits, self.shape[axis], axis)

    def scales_f32(self) -> np.ndarray:
        """The stored scales decoded to f32, shaped as the block grid."""
        return to_f32(self.scales)

    # --- conversions ---
    def dequantize(self, profile: Profile = DEFAULT_CPU_PROFILE, dtype: DType = DType.F32) -> Any:
        """`dequantize(self)`; see `routerlab.core.quant.dequant.dequantize`."""
        return dequantize(self, profile=profile, dtype=dtype)

    def to_bytes(self) -> bytes:
        """The canonical bytes (values copied to the host when on a GPU): values, scales, then
        the global scale if any, joined in one copy."""
        parts: list[Any] = [_raw(to_host(self.values)), _raw(np.asarray(self.scales))]
        if self.global_scale is not None:
            parts.append(np.float32(self.global_scale).tobytes())
        return b"".join(parts)

    def to_module(self, xp: ModuleType) -> QuantizedTensor:
        """A copy whose values live in array module `xp` (numpy ↔ cupy); scales stay on the host."""
        if get_array_module(self.values) is xp:
            return self
        return self.with_arrays(to_module(self.values, xp))

    # --- equality ---
    def bit_equal(self, other: QuantizedTensor) -> bool:
        """Bit-identical: same scheme (store included), shape and layout, and the same bytes of
        values, scales and global."""
        return (
            self.scheme == other.scheme
            and self.shape == other.shape
            and self.layout == other.layout
            and to_host(self.values).tobytes() == to_host(other.values).tobytes()
            and self.scales.tobytes() == other.scales.tobytes()
            and _global_bytes(self) == _global_bytes(other)
        )

    def values_equal(self, other: QuantizedTensor) -> bool:
        """Burn's `assert_eq` on QFloat data (burn-std data/compare.rs:243-259): only the values,
        unpacked to i8, with equal value type, block size and presence of a global; the store and
        the scales are ignored."""
        return (
            self.scheme.value == other.scheme.value
            and self.scheme.block_size() == other.scheme.block_size()
            and self.scheme.is_two_level == other.scheme.is_two_level
            and self.shape == other.shape
            and bool(np.array_equal(to_host(self.q()), to_host(other.q())))
        )


def _global_bytes(tensor: QuantizedTensor) -> bytes:
    return b"" if tensor.global_scale is None else np.float32(tensor.global_scale).tobytes()


def _freeze(*arrays: Any) -> None:
    """Make numpy arrays read-only (`setflags`: cheaper than assigning `flags.writeable`); CuPy
    arrays have no such flag."""
    for array in arrays:
        if isinstance(array, np.ndarray):
            array.setflags(write=False)


def _raw(array: np.ndarray) -> Any:
    """The bytes of `array` as a buffer, without copying a C-contiguous one (viewed as uint8
    first: a buffer cannot carry ml_dtypes' bfloat16 or float8 formats). `.data` is the
    array's memoryview (numpy's stubs declare `__buffer__` only for Python >= 3.12)."""
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8).data
