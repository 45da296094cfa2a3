from typing import Any

from routerlab.core.router.backend import HandleKind, Kind, kind_of  # noqa: F401 (for the TODO)


def is_quantized_handle(kind: Any) -> bool:
    """True for a quantized HandleKind, Kind.QUANTIZED, or a QFloat dtype."""
    # TODO: bring a HandleKind, a Kind or a dtype to one Kind first.
    raise NotImplementedError("is_quantized_handle")


def can_move_to_device(kind: Any, policy: str = "native") -> bool:
    """Whether a tensor of this kind arrives on another device under `policy`."""
    # TODO: see the table in the statement.
    raise NotImplementedError("can_move_to_device")
