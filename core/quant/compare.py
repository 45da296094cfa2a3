"""Comparing two quantized tensors of one shape, a slab of rows at a time.

A transfer measurement compares the tensor that left with the one that arrived: how many `q`
values changed, and the largest difference of their dequantized values. Done on whole tensors
that needs two f32 reconstructions and their f64 difference, several times the payload (9 GB for a
1 GB tensor); here both are walked in slabs of whole blocks along the first axis, so the extra
memory is a few MiB whatever the tensor's size.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..base.profiles import Profile
from .arrays import to_host
from .layout import layout_of
from .packing import unpack_u32
from .quantized import QuantizedTensor
from .scheme import QuantStore

SLAB = 1 << 20
"""Values per slab (rounded to whole blocks along the first axis)."""


def slabs(tensor: QuantizedTensor, rows: int) -> Iterator[QuantizedTensor]:
    """The tensor as native-store tensors of `rows` leading rows each (the last may be short);
    `rows` must be a multiple of the block extent along the first axis."""
    native = tensor.scheme.with_store(QuantStore.native())
    block = tensor.scheme.block_size()
    first = 1 if block is None else block.dims_for(len(tensor.shape))[0]
    axis = tensor.layout.packed_axis
    values = to_host(tensor.values)
    for start in range(0, tensor.shape[0], rows):
        stop = min(start + rows, tensor.shape[0])
        shape = (stop - start, *tensor.shape[1:])
        if axis is None:
            q = values[start:stop]
        elif axis != 0:
            q = unpack_u32(values[start:stop], tensor.scheme.value.bits, tensor.shape[axis], axis)
        else:  # packed along the first axis: unpack it all (only a permuted tensor does this)
            q = tensor.q()[start:stop]
        scales = tensor.scales if block is None else tensor.scales[start // first:-(-stop // first)]
        yield QuantizedTensor(q, scales, tensor.global_scale, native, shape,
                              layout_of(native, shape))


def _rows(tensor: QuantizedTensor) -> int:
    block = tensor.scheme.block_size()
    first = 1 if block is None else block.dims_for(len(tensor.shape))[0]
    per_row = max(1, int(np.prod(tensor.shape[1:])))
    return max(first, SLAB // per_row // first * first)


def count_changed(before: QuantizedTensor, after: QuantizedTensor) -> int:
    """How many logical `q` values differ."""
    rows = _rows(before)
    return sum(int(np.count_nonzero(a.values != b.values))
               for a, b in zip(slabs(before, rows), slabs(after, rows), strict=True))


def max_abs_difference(before: QuantizedTensor, before_profile: Profile,
                       after: QuantizedTensor, after_profile: Profile) -> float:
    """max |dequantize(before) - dequantize(after)|, each with its own profile, in f64."""
    rows, worst = _rows(before), 0.0
    for a, b in zip(slabs(before, rows), slabs(after, rows), strict=True):
        diff: Any = (to_host(a.dequantize(before_profile)).astype(np.float64)
                     - to_host(b.dequantize(after_profile)).astype(np.float64))
        if diff.size:
            worst = max(worst, float(np.abs(diff).max()))
    return worst
