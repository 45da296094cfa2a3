"""Where a quantized tensor's values sit: its store, packed axis and storage shape, and sizes.

A transfer must carry the *current* layout (burn-cubecl ops/base.rs:103-133): CubeCL packs into u32
words along one axis, the CPU backends keep one i8 per value. `QuantLayout` is that description,
carried by every `QuantizedTensor` so that a device move can check on arrival that the layout it
receives is the one the target expects.

Sizes follow `storage_elements` / `quantized_data_len` (burn-std quantization.rs:370-408):
a packed store divides *only* the packed axis, rounding up per row, so Q4 in PackedU32 with shape
`[3, 3]` takes 3 words, not 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..base.errors import QuantizationError
from .scheme import QuantScheme, QuantStore, StoreKind

_U32, _I8 = np.dtype(np.uint32), np.dtype(np.int8)
"""Built once: every move asks for its layout's storage dtype."""


def params_shape(shape: tuple[int, ...], scheme: QuantScheme) -> tuple[int, ...]:
    """Shape of the (block) scale grid: `[1]` per tensor, else the number of blocks per axis
    (`params_shape` in burn-std). A two-level scheme's global is not part of it."""
    block = scheme.block_size()
    return (1,) if block is None else block.num_blocks(shape)


def check_scale_count(scheme: QuantScheme, shape: tuple[int, ...], count: int) -> None:
    """Given scales come one per block of the grid (one per tensor)."""
    grid = params_shape(shape, scheme)
    if count != math.prod(grid):
        raise QuantizationError(
            f"scheme {scheme} on shape {list(shape)} takes {math.prod(grid)} scale(s) "
            f"(grid {list(grid)}), got {count}"
        )


@dataclass(frozen=True)
class QuantLayout:
    """The physical layout of a quantized tensor's values."""

    store: QuantStore
    shape: tuple[int, ...]
    """The logical shape."""
    num_quants: int
    """Values per storage element (1 for Native)."""

    @property
    def packed_axis(self) -> int | None:
        """The axis (counted from the outermost) that words pack along, or None (Native)."""
        if self.store.kind is not StoreKind.PACKED_U32 or not self.shape:
            return None
        return len(self.shape) - 1 - self.store.dim

    @property
    def storage_shape(self) -> tuple[int, ...]:
        """Shape of the stored array: the packed axis divided by `num_quants`, rounded up."""
        axis = self.packed_axis
        if axis is None:
            return self.shape
        dims = list(self.shape)
        dims[axis] = -(-dims[axis] // self.num_quants)
        return tuple(dims)

    @property
    def storage_dtype(self) -> np.dtype:
        """i8 for Native (one byte per value, even for Q4/Q2, as the CPU backends keep them),
        u32 for PackedU32."""
        return _U32 if self.store.kind is StoreKind.PACKED_U32 else _I8

    @property
    def storage_elements(self) -> int:
        return math.prod(self.storage_shape)

    @property
    def value_bytes(self) -> int:
        return self.storage_elements * self.storage_dtype.itemsize


@lru_cache(maxsize=256)
def layout_of(scheme: QuantScheme, shape: tuple[int, ...]) -> QuantLayout:
    """The layout a resolved scheme gives a tensor of `shape` (a frozen value, computed once per
    scheme and shape: a quantize asks for it, and its tensor checks it again)."""
    store = scheme.resolved_store()
    if store.kind is StoreKind.PACKED_NATIVE:
        raise QuantizationError(
            f"{scheme}: PackedNative (e2m1x2) values are not modelled; Burn's CPU readers leave "
            "them unimplemented!"
        )
    if store.kind is StoreKind.PACKED_U32 and shape and store.dim >= len(shape):
        raise QuantizationError(
            f"{scheme}: packing dim {store.dim} does not exist in a rank-{len(shape)} tensor"
        )
    return QuantLayout(store, tuple(shape), scheme.num_quants())


def quantized_data_len(scheme: QuantScheme, shape: tuple[int, ...]) -> int:
    """Bytes of the canonical layout: values, then block scales, then the optional f32 global."""
    num_params = math.prod(params_shape(tuple(shape), scheme))
    global_dtype = scheme.global_scale_dtype()
    return (
        layout_of(scheme, tuple(shape)).value_bytes
        + num_params * scheme.scale_dtype().size
        + (0 if global_dtype is None else global_dtype.size)
    )
