"""User-typed tensors: a flat JSON list of numbers plus a shape, or a seeded random tensor.

Shared by `routerlab quantize` and anything else that takes values as text; every problem is one
readable `RouterLabError` line, never a traceback.
"""

from __future__ import annotations

import json
import math

import numpy as np

from routerlab.core.errors import QuantizationError, ShapeError


def parse_floats(option: str, text: str) -> list[float]:
    """A flat JSON list of numbers (`[-1.8, 0, 0.5]`)."""
    try:
        values = json.loads(text)
    except json.JSONDecodeError as error:
        raise QuantizationError(
            f"{option} is not JSON: {error.msg} (at character {error.pos})"
        ) from None
    if not isinstance(values, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    ):
        raise QuantizationError(
            f"{option} must be a flat JSON list of numbers, e.g. [-1.8, 0, 0.5]"
        )
    return [float(v) for v in values]


def parse_shape(text: str) -> tuple[int, ...]:
    """`"2,16"` → `(2, 16)`; every dim a positive integer."""
    try:
        dims = tuple(int(piece) for piece in text.split(","))
    except ValueError:
        raise ShapeError(f"shape {text!r} is not comma-separated integers, e.g. 2,16") from None
    if not dims or any(d <= 0 for d in dims):
        raise ShapeError(f"shape {text!r} needs at least one dim, each > 0")
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
    if not all(math.isfinite(v) for v in flat):
        raise QuantizationError(
            "--values holds NaN or infinite values; quantization takes finite numbers"
        )
    return np.asarray(flat, dtype=np.float32).reshape(dims)


def random_tensor(
    shape: str, seed: int, values: str | None, explicit_shape: str | None
) -> np.ndarray:
    """A standard-normal f32 tensor of `shape` from `numpy.random.default_rng(seed)`."""
    if values is not None:
        raise QuantizationError("give either --values or --random, not both")
    dims = parse_shape(shape)
    if explicit_shape is not None and parse_shape(explicit_shape) != dims:
        raise ShapeError(f"--shape {explicit_shape} disagrees with --random {shape}")
    return np.random.default_rng(seed).standard_normal(dims, dtype=np.float32)
