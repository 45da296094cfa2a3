"""fix-1 reference solution: the transfer guard's two predicates (routerlab.core.fix.guard)."""

from typing import Any

from routerlab.core.backend import HandleKind, Kind, kind_of

MOVING_POLICIES = {"native", "dequantize", "requantize"}


def _kind(kind: Any) -> Kind:
    if isinstance(kind, HandleKind):
        return kind.kind
    if isinstance(kind, Kind):
        return kind
    return kind_of(kind)  # a dtype: QFloat satisfies none of Burn's predicates -> QUANTIZED


def is_quantized_handle(kind: Any) -> bool:
    """True for a quantized HandleKind, Kind.QUANTIZED, or a QFloat dtype."""
    return _kind(kind) is Kind.QUANTIZED


def can_move_to_device(kind: Any, policy: str = "native") -> bool:
    """Whether a tensor of this kind arrives on another device under `policy`."""
    if is_quantized_handle(kind):
        return policy in MOVING_POLICIES  # reject refuses on the client; legacy panics
    return not (policy == "legacy" and _kind(kind) is Kind.UINT)  # Burn's uint walls
