"""Blocks are rectangles, not runs of flat memory.

`[2, 2]` blocks on a `[2, 4]` tensor group `[a, b, e, f]` (`crates/burn-backend/src/quantization/
scheme.rs:6-13`). Burn reduces blocks by reshaping the tensor to `[n0, b0, n1, b1, ...]` and
folding every `b` axis; element → block membership is `BlockLayout::block_of` (burn-std
quantization.rs:152-196). Here both are array reshapes/broadcasts, so no Python loop touches an
element, and the same code runs on numpy and CuPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..base.errors import QuantizationError
from .arrays import get_array_module
from .scheme import BlockSize


def require_divisible(shape: tuple[int, ...], block: BlockSize) -> None:
    """Calibration folds whole blocks, so every axis must be a multiple of its block extent
    (`reduce_blocks` asserts it in burn-backend quantization/scheme.rs)."""
    if not block.divides(shape):
        raise QuantizationError(
            f"tensor shape {list(shape)} is not a whole number of "
            f"{list(block.dims_for(len(shape)))} "
            "blocks; calibration needs every dim divisible by its block extent"
        )


def _split_shape(shape: tuple[int, ...], block: BlockSize) -> tuple[int, ...]:
    split: list[int] = []
    for dim, extent in zip(shape, block.dims_for(len(shape)), strict=True):
        split += [dim // extent, extent]
    return tuple(split)


def reduce_blocks(x: Any, block: BlockSize, reduce: Callable[..., Any]) -> Any:
    """One value per block, shaped as the block grid (`params_shape`); `reduce(array, axis=...)`
    folds the intra-block axes. The tensor must divide into whole blocks."""
    shape = tuple(x.shape)
    require_divisible(shape, block)
    split = x.reshape(_split_shape(shape, block))
    folded = reduce(split, axis=tuple(range(1, split.ndim, 2)))
    return folded.reshape(block.num_blocks(shape))


def blockwise(x: Any, scales: Any, block: BlockSize, op: Callable[[Any, Any], Any]) -> Any:
    """`op(x, s)` where `s` is each element's block scale; the result has `x`'s shape.

    Whole blocks broadcast a `[n0, 1, n1, 1, ...]` view of the scale grid over the split tensor
    (no per-element scale array); partial blocks (allowed when the scales are given, not
    calibrated) expand the grid with `repeat` and crop it.
    """
    shape = tuple(x.shape)
    dims = block.dims_for(len(shape))
    if block.divides(shape):
        grid = scales.reshape(tuple(v for n in block.num_blocks(shape) for v in (n, 1)))
        return op(x.reshape(_split_shape(shape, block)), grid).reshape(shape)
    xp = get_array_module(x)
    full = scales
    for axis, (dim, extent) in enumerate(zip(shape, dims, strict=True)):
        full = xp.take(xp.repeat(full, extent, axis=axis), xp.arange(dim), axis=axis)
    return op(x, full)
