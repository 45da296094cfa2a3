"""PackedU32: several sub-word values per u32, low bits first, along one axis.

The k-th value of a word sits in bits `[k*bits, (k+1)*bits)`, masked to its two's-complement
width (`pack_q` in cubek-quant quantize.rs; `pack_i8s_to_u32s` in burn-std quantization.rs, where
value k of a Q8 word is byte k on a little-endian machine). Unpacking shifts the field out and
sign-extends it (`unpack_q_to_i8s`: `((raw << (8 - bits)) as i8) >> (8 - bits)`).

Words are formed per row of the packed axis: a row whose length is not a multiple of the values
per word ends in a zero-padded word (`storage_elements` rounds up per row).

On numpy both directions work in chunks of `CHUNK` words, so no temporary is larger than a chunk
(the output aside): packing ORs the shifted fields into the word array, unpacking looks each byte
up in a 256-entry table of its 2 (Q4) or 4 (Q2) sign-extended values, or runs numba's fused loop
when it is installed (`routerlab.core.quant.fused.unpack_flat`). On CuPy each step is one kernel
over the whole array.
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

import numpy as np

from ..base.errors import QuantizationError
from .arrays import get_array_module, is_numpy

CHUNK = 1 << 16
"""Words per chunk on numpy: 256 KiB of u32 output and at most as much of any temporary."""
UNPACK_PARALLEL_MIN = 1 << 23
"""From this many values the fused unpack is split across the quantize thread pool (see
`_unpack_flat`)."""
_LITTLE = sys.byteorder == "little"


def _check_bits(bits: int) -> int:
    if bits not in (2, 4, 8):
        raise QuantizationError(f"only 2-, 4- and 8-bit values pack into u32 words, got {bits}")
    return 32 // bits


def _rows(moved: Any, per_word: int) -> Any:
    """The last axis zero-padded to whole words, as `[..., n_words, per_word]` int8."""
    xp = get_array_module(moved)
    pad = -moved.shape[-1] % per_word
    if pad:
        moved = xp.pad(moved, [(0, 0)] * (moved.ndim - 1) + [(0, pad)])
    return moved.reshape(moved.shape[:-1] + (-1, per_word))


def pack_u32(q: Any, bits: int, axis: int = -1) -> Any:
    """Pack int8 values of `bits` width into u32 words along `axis` (default: the last)."""
    xp = get_array_module(q)
    per_word = _check_bits(bits)
    moved = xp.moveaxis(xp.asarray(q, dtype=xp.int8), axis, -1)
    groups = _rows(moved, per_word)
    mask = (1 << bits) - 1
    if not is_numpy(xp):
        fields = groups.view(xp.uint8).astype(xp.uint32) & xp.uint32(mask)
        fields <<= xp.arange(0, 32, bits, dtype=xp.uint32)
        words = xp.sum(fields, axis=-1, dtype=xp.uint32)  # disjoint bit fields: sum is the OR
        return xp.moveaxis(words, -1, axis)
    flat = np.ascontiguousarray(groups).reshape(-1, per_word).view(np.uint8)
    words = np.empty(flat.shape[0], np.uint32)
    if bits == 8 and _LITTLE:
        words[:] = flat.view(np.uint32).reshape(-1)  # byte k of a word is value k
    else:
        for begin in range(0, len(words), CHUNK):
            chunk, out = flat[begin:begin + CHUNK], words[begin:begin + CHUNK]
            np.bitwise_and(chunk[:, 0], mask, out=out, casting="unsafe")
            for k in range(1, per_word):
                out |= (chunk[:, k] & np.uint8(mask)).astype(np.uint32) << np.uint32(k * bits)
    return np.moveaxis(words.reshape(groups.shape[:-1]), -1, axis)


@cache
def _table(bits: int) -> np.ndarray:
    """Row `b`: the `8 / bits` sign-extended values that byte `b` holds, low bits first."""
    shift = 8 - bits
    byte = np.arange(256, dtype=np.uint8)[:, None]
    fields = (byte >> np.arange(0, 8, bits, dtype=np.uint8)) & np.uint8((1 << bits) - 1)
    return ((fields << np.uint8(shift)).view(np.int8) >> np.int8(shift)).astype(np.int8)


def unpack_u32(words: Any, bits: int, length: int, axis: int = -1) -> Any:
    """Unpack u32 words into sign-extended int8 values; `length` is the logical extent of the
    packed axis, which drops the padding of each row's last word."""
    xp = get_array_module(words)
    per_word = _check_bits(bits)
    moved = xp.moveaxis(xp.asarray(words, dtype=xp.uint32), axis, -1)
    if not is_numpy(xp) or not _LITTLE:
        shifts = xp.arange(0, 32, bits, dtype=xp.uint32)
        raw = ((moved[..., None] >> shifts) & xp.uint32((1 << bits) - 1)).astype(xp.uint8)
        sign_shift = 8 - bits
        values = (raw << xp.uint8(sign_shift)).view(xp.int8) >> xp.int8(sign_shift)
        values = values.reshape(moved.shape[:-1] + (moved.shape[-1] * per_word,))[..., :length]
        return xp.moveaxis(values, -1, axis)
    contiguous = np.ascontiguousarray(moved)
    dims: tuple[int, ...] = tuple(contiguous.shape)
    full = np.empty(dims[:-1] + (dims[-1] * per_word,), np.int8)
    _unpack_flat(contiguous.reshape(-1), bits, full.reshape(-1))
    values = full[..., :length]
    if length != full.shape[-1]:
        values = np.ascontiguousarray(values)
    return np.moveaxis(values, -1, axis)


def _unpack_flat(words: np.ndarray, bits: int, out: np.ndarray) -> None:
    """All fields of contiguous `words` into `out` (`per_word` values per word), padding
    included: the fused loop, or the table per chunk.

    The fused loop moves memory and computes little, so below `UNPACK_PARALLEL_MIN` values a
    second thread only adds its hand-off; above, one core's memory bandwidth is the limit and two
    share the work (medians on two idle cores, Q4: 1 Mi values 28 µs on one thread and 210 µs
    split; 4 Mi 0.24 and 0.28 ms; 16 Mi 0.94 and 0.58 ms; 64 Mi 9.2 and 7.8 ms)."""
    from .kernels import FUSED_MIN, fused_module, split

    per_word = 32 // bits
    if bits == 8:
        out[:] = words.view(np.int8)
        return
    as_bytes, nbytes, per_byte = words.view(np.uint8), words.size * 4, per_word // 4
    fused = fused_module() if out.size >= FUSED_MIN else None
    if fused is not None and out.size < UNPACK_PARALLEL_MIN:
        fused.unpack_flat(as_bytes, bits, out)
        return
    if fused is not None:
        split(nbytes, lambda b, e: fused.unpack_flat(as_bytes[b:e], bits,
                                                     out[b * per_byte:e * per_byte]))
        return
    table, grouped = _table(bits), out.reshape(nbytes, per_byte)
    for begin in range(0, nbytes, CHUNK * 4):
        end = min(begin + CHUNK * 4, nbytes)
        np.take(table, as_bytes[begin:end], axis=0, out=grouped[begin:end])
