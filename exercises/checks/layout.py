"""Checks of the layout exercises: reading u32 words back into values, and the grid of block
scales (crates/burn-tensor/src/tensor/quantization/, burn-std's `params_shape`;
docs/schemes.md).

quant-7's `unpack_u32` becomes the one the model's quantized tensors read their packed values
with (`QuantizedTensor.q()`, so every dequantize of a packed store goes through it); quant-8's
`block_grid` becomes the model's `params_shape`, so the quantizer computes one scale per block
of the student's grid. Both are put in place with `quant._rebound`, as quant-2's `round_up` is,
and every probe also runs on the model.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ...core import Profile
from ...core.quant import BlockSize, quantize_dynamic, unpack_u32
from ...core.quant import params_shape as model_params_shape
from .base import CheckFailure, Observation, Subject, Suite
from .quant import _rebound

F32 = np.float32

# --- quant-7: unpack u32 words ----------------------------------------------------------------

unpacking = Suite("quant-7")


def model_unpack(words: list[int], bits: int, length: int) -> list[int]:
    """The model's `unpack_u32` of one row, in the student's signature."""
    return [int(v) for v in unpack_u32(np.array(words, dtype=np.uint32), bits, length)]


unpacking.model(unpack_u32=model_unpack)


def _values(sub: Subject, words: list[int], bits: int, length: int) -> list[int]:
    call = f"unpack_u32({words}, bits={bits}, length={length})"
    got = sub.function("unpack_u32")(list(words), bits, length)
    if not isinstance(got, list | tuple) or not all(isinstance(v, int | np.integer) for v in got):
        raise CheckFailure(f"{call} must return a list of ints", got=repr(got)[:200], hint=1)
    return [int(v) for v in got]


@contextmanager
def _reading_through(sub: Subject) -> Iterator[None]:
    """The model's quantized tensors unpack their words with the student's `unpack_u32`."""
    if sub.is_model:
        yield
        return

    def unpack(words: Any, bits: int, length: int, axis: int = -1) -> np.ndarray:
        rows = np.moveaxis(np.asarray(words, dtype=np.uint32), axis, -1)
        out = [_values(sub, [int(w) for w in row], bits, length)
               for row in rows.reshape(-1, rows.shape[-1])]
        if any(len(row) != length for row in out):
            raise CheckFailure(f"unpack_u32(..., length={length}) must return {length} values "
                               "per row", got=repr([len(r) for r in out][:8]), hint=2)
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        if (wrong := next((v for row in out for v in row if not low <= v <= high), None)):
            raise CheckFailure(f"unpack_u32(..., bits={bits}) returned {wrong}, which no signed "
                               f"{bits}-bit value is (they run from {low} to {high})",
                               got=repr(wrong), hint=2)
        shaped = np.array(out, dtype=np.int8).reshape(*rows.shape[:-1], length)
        return np.moveaxis(shaped, -1, axis)

    with _rebound("unpack_u32", unpack_u32, unpack):
        yield


def _nibbles(values: list[int]) -> int:
    """One u32 word of signed 4-bit fields, the first in the lowest bits (how the visible
    checks build each student's own words from their variant)."""
    return sum((v & 0xF) << (4 * k) for k, v in enumerate(values))


@unpacking.visible("8 bits: one value per byte, the first in the lowest byte, signed", hint=1)
def _(sub: Subject) -> Observation:
    value = int(sub.param("value"))
    word = sum((v & 0xFF) << (8 * k) for k, v in enumerate([-128, value + 1, -value - 2, 127]))
    return [(f"unpack_u32([{word:#010x}], bits=8, length=4)", _values(sub, [word], 8, 4))]


@unpacking.visible("4 and 2 bits: the top bit of each field is its sign", hint=2)
def _(sub: Subject) -> Observation:
    value = int(sub.param("value"))
    pair = _nibbles([-value, value])
    return [(f"unpack_u32([{pair:#010x}], bits=4, length=2): {-value & 0xF:#x} is -{value}, "
             f"{value:#x} is {value}", _values(sub, [pair], 4, 2)),
            ("unpack_u32([0x87654321], bits=4, length=8)", _values(sub, [0x87654321], 4, 8)),
            ("unpack_u32([0b11100100], bits=2, length=4): 0, 1, -2, -1",
             _values(sub, [0b11100100], 2, 4))]


@unpacking.visible("length drops the padding of the last word", hint=2)
def _(sub: Subject) -> Observation:
    value = int(sub.param("value"))
    words = [_nibbles([value + 3] * 8), _nibbles([value + 3])]
    return [(f"unpack_u32([{words[0]:#010x}, {words[1]:#010x}], bits=4, length=9)",
             _values(sub, words, 4, 9)),
            (f"unpack_u32([0xFFFFFFFF], bits=2, length={value + 2})",
             _values(sub, [0xFFFFFFFF], 2, value + 2))]


@unpacking.visible("in the model: a packed Q4 tensor reads its q values, and dequantizes, through "
                   "your unpack", hint=2)
def _(sub: Subject) -> Observation:
    x = np.linspace(-float(sub.param("low")), float(sub.param("high")), 32,
                    dtype=F32).reshape(2, 16)
    tensor = quantize_dynamic(x, "q4s:store=packed-u32", profile=Profile.CUBECL)
    with _reading_through(sub):
        return [("q values of a packed Q4S tensor", tensor.q().tolist()),
                ("its dequantized values", tensor.dequantize(Profile.CUBECL).tolist())]


@unpacking.hidden("300 seeded random rows of 2-, 4- and 8-bit words")
def _(sub: Subject) -> Observation:
    rng = random.Random(32)
    seen: Observation = []
    for _ in range(300):
        bits = rng.choice((2, 4, 8))
        words = [rng.getrandbits(32) for _ in range(rng.randint(1, 5))]
        length = rng.randint(max(1, (len(words) - 1) * 32 // bits + 1), len(words) * 32 // bits)
        seen.append((f"bits={bits}, words={words}, length={length}",
                     _values(sub, words, bits, length)))
    return seen


@unpacking.hidden("packed tensors of every width read back through your unpack", hint=2)
def _(sub: Subject) -> Observation:
    seen: Observation = []
    for scheme in ("q8s", "q4s", "q2s", "q4s:block=16", "q2s:block=32"):
        x = np.random.default_rng(len(scheme)).normal(size=(3, 32)).astype(F32)
        tensor = quantize_dynamic(x, scheme + ":store=packed-u32", profile=Profile.CUBECL)
        with _reading_through(sub):
            seen.append((f"{scheme} packed: q values", tensor.q().tolist()))
    return seen


# --- quant-8: the grid of block scales ----------------------------------------------------------

grid = Suite("quant-8")


def model_block_grid(shape: list[int], block: list[int] | None) -> list[int]:
    """The model's block grid (`params_shape`) in the student's signature."""
    if block is None:
        return [1]
    return list(BlockSize(tuple(block)).num_blocks(tuple(shape)))


grid.model(block_grid=model_block_grid)


def _grid(sub: Subject, shape: list[int], block: list[int] | None) -> list[int]:
    call = f"block_grid({shape}, {block})"
    got = sub.function("block_grid")(list(shape), None if block is None else list(block))
    if not isinstance(got, list | tuple) or not all(isinstance(v, int | np.integer) for v in got):
        raise CheckFailure(f"{call} must return a list of ints", got=repr(got)[:200], hint=1)
    return [int(v) for v in got]


@contextmanager
def _gridding_through(sub: Subject) -> Iterator[None]:
    """The model's quantizer sizes its scales with the student's `block_grid`."""
    if sub.is_model:
        yield
        return

    def params_shape(shape: tuple[int, ...], scheme: Any) -> tuple[int, ...]:
        block = scheme.block_size()
        return tuple(_grid(sub, list(shape), None if block is None else list(block.dims)))

    with _rebound("params_shape", model_params_shape, params_shape):
        yield


def _cases(sub: Subject, cases: list[tuple[list[int], list[int] | None]]) -> Observation:
    return [(f"block_grid({shape}, {block})", _grid(sub, shape, block)) for shape, block in cases]


def _sizes(sub: Subject) -> tuple[int, int]:
    """The student's own rows and block width (their variant) for the visible cases."""
    return int(sub.param("rows")), int(sub.param("block"))


@grid.visible("per tensor: one scale; a block that divides the shape: shape / block", hint=1)
def _(sub: Subject) -> Observation:
    rows, block = _sizes(sub)
    return _cases(sub, [([rows, 2 * block], None), ([2 * block], [block]),
                        ([rows, 2 * block], [block]), ([2 * rows, 2 * block], [rows, block])])


@grid.visible("a partial block still gets a scale: round up", hint=2)
def _(sub: Subject) -> Observation:
    _rows, block = _sizes(sub)
    return _cases(sub, [([3 * block + int(sub.param("tail"))], [block]), ([3, 10], [2, 4]),
                        ([1], [16])])


@grid.visible("a block with fewer extents than the shape covers the last axes; leading 1s of a "
              "block mean nothing", hint=2)
def _(sub: Subject) -> Observation:
    rows, block = _sizes(sub)
    return _cases(sub, [([2, 3, 2 * block], [block]), ([rows + 2, 2 * block], [1, block]),
                        ([rows + 2, 2 * block], [1, 1, 2, block])])


@grid.visible("a block with more extents than the shape keeps its FIRST ones (Burn's "
              "to_dim_vec copies storage[..len])", hint=2)
def _(sub: Subject) -> Observation:
    rows, block = _sizes(sub)
    return _cases(sub, [([2 * block], [rows, block]), ([2 * rows, 2 * block], [2, rows, block])])


@grid.visible("in the model's quantizer: one scale per block of your grid", hint=2)
def _(sub: Subject) -> Observation:
    _rows, block = _sizes(sub)
    x = np.linspace(-2.0, 3.0, 3 * block, dtype=F32).reshape(3, block)
    scheme = f"q8s:block=2x{block // 2}"
    with _gridding_through(sub):
        tensor = quantize_dynamic(x, scheme, profile=Profile.FLEX)
        return [(f"the stored scales of {scheme} on a 3 x {block} tensor",
                 tensor.scales_f32().tolist())]


@grid.hidden("300 seeded random shapes and blocks")
def _(sub: Subject) -> Observation:
    rng = random.Random(8)
    cases: list[tuple[list[int], list[int] | None]] = []
    for _ in range(300):
        shape = [rng.randint(1, 300) for _ in range(rng.randint(1, 4))]
        block = None if rng.random() < 0.1 else [rng.choice((1, 1, 2, 3, 4, 8, 16, 32, 255))
                                                  for _ in range(rng.randint(1, 5))]
        cases.append((shape, block))
    return _cases(sub, cases)


@grid.hidden("the quantizer through your grid on seeded tensors", hint=2)
def _(sub: Subject) -> Observation:
    seen: Observation = []
    for case, scheme in enumerate(("q8s:block=16", "q4s:block=3x8", "q8f:block=1x1x4")):
        x = np.random.default_rng(case).normal(size=(5, 40)).astype(F32)
        with _gridding_through(sub):
            tensor = quantize_dynamic(x, scheme, profile=Profile.FLEX)
            seen.append((f"{scheme}: stored scales", tensor.scales_f32().tolist()))
    return seen

