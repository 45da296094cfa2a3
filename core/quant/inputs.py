"""User-typed tensors: a flat JSON list of numbers plus a shape, or a seeded random tensor.

Shared by `routerlab quantize` and anything else that takes values as text; every problem is one
readable `RouterLabError` line, never a traceback (nor a numpy warning printed before it).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..base.errors import InputError, QuantizationError, ShapeError
from ..base.limits import MAX_ELEMENTS, check_elements
from ..base.safe_io import parse_int, parse_json

_SHAPE_TEXT = re.compile(r"\s*[+-]?[0-9]+\s*(,\s*[+-]?[0-9]+\s*)*")

def parse_floats(option: str, text: str) -> list[float]:
    """A flat JSON list of numbers (`[-1.8, 0, 0.5]`)."""
    values = parse_json(text, option, QuantizationError)
    if not isinstance(values, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    ):
        raise QuantizationError(
            f"{option} must be a flat JSON list of numbers, e.g. [-1.8, 0, 0.5]"
        )
    return [float(v) for v in values]


def parse_shape(text: str) -> tuple[int, ...]:
    """`"2,16"` → `(2, 16)`; every dim a positive integer, at most `MAX_DIMS` dims and
    `MAX_ELEMENTS` elements in all (routerlab.core.base.limits, docs/limits.md)."""
    shown = text if len(text) <= 40 else text[:40] + "…"
    if not _SHAPE_TEXT.fullmatch(text):
        raise ShapeError(f"shape {shown!r} is not comma-separated integers, e.g. 2,16")
    try:
        dims = tuple(parse_int(piece, "dim") for piece in text.split(","))
    except InputError:
        raise ShapeError(f"shape {shown!r} has a dim beyond {MAX_ELEMENTS:,}; RouterLab takes "
                         f"at most {MAX_ELEMENTS:,} elements (2**31, 8 GiB of f32)") from None
    if any(d <= 0 for d in dims):
        raise ShapeError(f"shape {shown!r} needs at least one dim, each > 0")
    check_elements(dims, f"shape {shown!r}", ShapeError)
    return dims


def tensor_from(values: str | None, shape: str | None) -> np.ndarray:
    """The f32 tensor `values` (row-major) reshaped to `shape` (default: flat)."""
    if values is None:
        raise QuantizationError("give the tensor with --values '[...]' or --random SHAPE")
    flat = parse_floats("--values", values)
    dims = (len(flat),) if shape is None else parse_shape(shape)
    if not flat:
        raise ShapeError("--values is empty: nothing to quantize")
    if math.prod(dims) != len(flat):
        raise ShapeError(
            f"{len(flat)} values do not fill shape {list(dims)} ({math.prod(dims)} elements)"
        )
    with np.errstate(over="ignore"):  # beyond f32's range becomes inf, refused just below
        tensor = np.asarray(flat, dtype=np.float32)
    if not np.isfinite(tensor).all():
        raise QuantizationError(
            "--values holds NaN or infinite values (or values beyond f32's range, +-3.4e38); "
            "quantization takes finite numbers"
        )
    return tensor.reshape(dims)


def random_tensor(
    shape: str, seed: int, values: str | None, explicit_shape: str | None
) -> np.ndarray:
    """A standard-normal f32 tensor of `shape` from `numpy.random.default_rng(seed)`.

    The seed must be >= 0 (numpy's seed sequence takes no negative integer); the shape at most
    `MAX_ELEMENTS` elements, and an allocation numpy cannot make is a `QuantizationError`. The
    tensor is read-only, so a device it is uploaded to keeps it instead of copying it
    (`TensorData.from_array`): `routerlab transfer --random 16000,16000` holds 1 GB once.
    """
    if values is not None:
        raise QuantizationError("give either --values or --random, not both")
    if seed < 0:
        raise QuantizationError(f"--seed must be >= 0 (numpy takes no negative seed), got {seed}")
    dims = parse_shape(shape)
    if explicit_shape is not None and parse_shape(explicit_shape) != dims:
        raise ShapeError(f"--shape {explicit_shape} disagrees with --random {shape}")
    try:
        tensor = np.random.default_rng(seed).standard_normal(dims, dtype=np.float32)
    except MemoryError:
        raise QuantizationError(
            f"not enough memory for a random tensor of shape {list(dims)} "
            f"({math.prod(dims) * 4 / 2**30:.1f} GiB of f32); try a smaller --random"
        ) from None
    tensor.flags.writeable = False  # handed over: a device may keep it without a copy
    return tensor
