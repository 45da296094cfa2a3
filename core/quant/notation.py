"""The compact scheme string: `q8s`, `q4f:block=32`, `q8s:block=2x16:scale=ue4m3:global=f32`.

This spelling is a contract shared by the CLI, scenario files and notebooks (docs/schemes.md has
the grammar). `parse_scheme` and `format_scheme` are inverse on canonical strings:
`format_scheme(parse_scheme(s)) == s` whenever `s` is already canonical (parts in the order
value, block, scale, global, store; blocks without leading 1s).

The string maps onto Burn's builders one part at a time:
- no `block=`: `scale=D` is `.per_tensor(D)`; no `scale=` leaves the levels empty (resolves to f32);
- `block=B`: `.per_block(B, D)` with `D` from `scale=` (default f32); `global=G` adds
  `.per_tensor(G)`, making the scheme two-level;
- `store=` omitted keeps the device default (`QuantScheme.resolve`).
"""

from __future__ import annotations

from enum import Enum

from ..base.errors import InputError, QuantizationError
from ..base.safe_io import parse_int, shorten
from .scheme import (
    BlockSize,
    QuantMode,
    QuantScheme,
    QuantStore,
    QuantValue,
    ScaleDtype,
    StoreKind,
)

_PARTS = ("block", "scale", "global", "store", "mode")


def _choices(enum: type[Enum]) -> str:
    return ", ".join(member.value for member in enum)


def _parse_block(text: str) -> BlockSize:
    try:  # parse_int, not int(): a 5000-digit extent must not reach Python's digit limit
        extents = tuple(parse_int(piece, "block extent") for piece in text.split("x"))
    except InputError:
        raise QuantizationError(
            f"block={shorten(text)!r} is not a block size; write extents like 32 or 2x16"
        ) from None
    return BlockSize(extents)


def _parse_dtype(part: str, text: str) -> ScaleDtype:
    try:
        return ScaleDtype(text)
    except ValueError:
        raise QuantizationError(
            f"{part}={text!r} is not a scale dtype; expected one of: {_choices(ScaleDtype)}"
        ) from None


def _parse_store(text: str) -> QuantStore:
    kind_text, _, dim_text = text.partition("@")
    try:
        kind = StoreKind(kind_text)
    except ValueError:
        raise QuantizationError(
            f"store={text!r} is not a store; expected native, packed-u32[@DIM] or "
            "packed-native[@DIM]"
        ) from None
    if not dim_text:
        return QuantStore(kind)
    if kind is StoreKind.NATIVE or not dim_text.isdigit():
        raise QuantizationError(
            f"store={text!r}: only packed stores take @DIM, a dimension counted from the innermost"
        )
    return QuantStore(kind, parse_int(dim_text, "store dimension", error=QuantizationError))


def parse_scheme(text: str) -> QuantScheme:
    """Parse a scheme string; any unknown or repeated part raises one readable error naming it."""
    pieces = [piece.strip() for piece in text.strip().lower().split(":")]
    head, parts = pieces[0], pieces[1:]
    try:
        value = QuantValue(head)
    except ValueError:
        raise QuantizationError(
            f"unknown quantized value {head!r} in scheme {text!r}; "
            f"expected one of: {_choices(QuantValue)}"
        ) from None
    seen: dict[str, str] = {}
    for part in parts:
        key, eq, arg = part.partition("=")
        if key not in _PARTS or not eq or not arg:
            raise QuantizationError(
                f"unknown scheme part {part!r} in {text!r}; expected "
                + ", ".join(f"{name}=..." for name in _PARTS)
            )
        if key in seen:
            raise QuantizationError(f"scheme part {key}= is given twice in {text!r}")
        seen[key] = arg
    if "mode" in seen and seen["mode"] != QuantMode.SYMMETRIC.value:
        raise QuantizationError(
            f"mode={seen['mode']!r} is not modelled: only symmetric quantization travels as a "
            "QFloat tensor (burn-cubecl ops/qtensor.rs refuses Lookup in q_from_data)"
        )
    scale = _parse_dtype("scale", seen["scale"]) if "scale" in seen else None
    scheme = QuantScheme(value, _parse_store(seen["store"]) if "store" in seen else None)
    if "block" in seen:
        scheme = scheme.per_block(_parse_block(seen["block"]), scale or ScaleDtype.F32)
        if "global" in seen:
            scheme = scheme.per_tensor(_parse_dtype("global", seen["global"]))
    elif "global" in seen:
        raise QuantizationError(
            f"global= needs block= in {text!r}: a global scale normalises block scales"
        )
    elif scale is not None:
        scheme = scheme.per_tensor(scale)
    return scheme


def format_scheme(scheme: QuantScheme) -> str:
    """The canonical string of a scheme (the inverse of `parse_scheme`): `str(scheme)`."""
    return str(scheme)
