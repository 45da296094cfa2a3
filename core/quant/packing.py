"""PackedU32: several sub-word values per u32, low bits first, along one axis.

The k-th value of a word sits in bits `[k*bits, (k+1)*bits)`, masked to its two's-complement
width (`pack_q` in cubek-quant quantize.rs; `pack_i8s_to_u32s` in burn-std quantization.rs, where
value k of a Q8 word is byte k on a little-endian machine). Unpacking shifts the field out and
sign-extends it (`unpack_q_to_i8s`: `((raw << (8 - bits)) as i8) >> (8 - bits)`).

Words are formed per row of the packed axis: a row whose length is not a multiple of the values
per word ends in a zero-padded word (`storage_elements` rounds up per row).
"""

from __future__ import annotations

from typing import Any

from routerlab.core.errors import QuantizationError
from routerlab.core.quant.arrays import get_array_module


def _check_bits(bits: int) -> int:
    if bits not in (2, 4, 8):
        raise QuantizationError(f"only 2-, 4- and 8-bit values pack into u32 words, got {bits}")
    return 32 // bits


def pack_u32(q: Any, bits: int, axis: int = -1) -> Any:
    """Pack int8 values of `bits` width into u32 words along `axis` (default: the last)."""
    xp = get_array_module(q)
    per_word = _check_bits(bits)
    moved = xp.moveaxis(xp.asarray(q, dtype=xp.int8), axis, -1)
    length = moved.shape[-1]
    pad = -length % per_word
    if pad:
        widths = [(0, 0)] * (moved.ndim - 1) + [(0, pad)]
        moved = xp.pad(moved, widths)
    fields = moved.reshape(moved.shape[:-1] + (-1, per_word)).view(xp.uint8).astype(xp.uint32)
    fields &= xp.uint32((1 << bits) - 1)
    fields <<= xp.arange(0, 32, bits, dtype=xp.uint32)
    words = xp.sum(fields, axis=-1, dtype=xp.uint32)  # disjoint bit fields: the sum is the OR
    return xp.moveaxis(words, -1, axis)


def unpack_u32(words: Any, bits: int, length: int, axis: int = -1) -> Any:
    """Unpack u32 words into sign-extended int8 values; `length` is the logical extent of the
    packed axis, which drops the padding of each row's last word."""
    xp = get_array_module(words)
    per_word = _check_bits(bits)
    moved = xp.moveaxis(xp.asarray(words, dtype=xp.uint32), axis, -1)
    shifts = xp.arange(0, 32, bits, dtype=xp.uint32)
    raw = ((moved[..., None] >> shifts) & xp.uint32((1 << bits) - 1)).astype(xp.uint8)
    sign_shift = 8 - bits
    values = (raw << xp.uint8(sign_shift)).view(xp.int8) >> xp.int8(sign_shift)
    values = values.reshape(moved.shape[:-1] + (moved.shape[-1] * per_word,))[..., :length]
    return xp.moveaxis(values, -1, axis)
