"""User-typed tensors: a flat JSON list of numbers plus a shape, or a seeded random tensor.

Shared by `routerlab quantize` and anything else that takes values as text; every problem is one
readable `RouterLabError` line, never a traceback (nor a numpy warning printed before it).
"""

from __future__ import annotations

import json
import math

import numpy as np

from routerlab.core.errors import QuantizationError, ShapeError

MAX_ELEMENTS = 1 << 31
"""The most elements a typed or random tensor may have: 2**31, 8 GiB of f32.

A fixed count rather than one computed from free memory, so the same command behaves the same on
every machine. Quantizing needs the input, the int8 values and the dequantized copy at once
(about 2.25 x the f32 bytes), so this is already past what a teaching tool can show or most
machines can hold; a larger shape is refused before anything is allocated, and an allocation
that fails below it (a smaller machine) becomes a `QuantizationError` too."""

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
    """`"2,16"` → `(2, 16)`; every dim a positive integer, at most `MAX_ELEMENTS` in all."""
    try:
        dims = tuple(int(piece) for piece in text.split(","))
    except ValueError:
        raise ShapeError(f"shape {text!r} is not comma-separated integers, e.g. 2,16") from None
    if not dims or any(d <= 0 for d in dims):
        raise ShapeError(f"shape {text!r} needs at least one dim, each > 0")
    if math.prod(dims) > MAX_ELEMENTS:
        raise ShapeError(
            f"shape {text!r} has {math.prod(dims):,} elements; RouterLab takes at most "
            f"{MAX_ELEMENTS:,} (2**31, 8 GiB of f32)"
        )
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
