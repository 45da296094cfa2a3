from typing import Any

from routerlab.core.router.backend import HandleKind, Kind, kind_of  # noqa: F401 (for the TODO)


def is_quantized_handle(kind: Any) -> bool:
    """True for a quantized HandleKind, Kind.QUANTIZED, or a QFloat dtype.

    Read: crates/burn-router/src/interpreter.rs:88-100 (where a quantized tensor falls
    through) and crates/burn-router/src/ops/qtensor.rs:34-39 (`q_to_device`:
    `unimplemented!()`).
    """
    # TODO
    raise NotImplementedError("is_quantized_handle")


def can_move_to_device(kind: Any, policy: str = "native") -> bool:
    """Whether a tensor of this kind arrives on another device under `policy` (the statement's
    table).

    The visible checks: each form of `kind` for a quantized and a plain tensor, a quantized
    tensor and plain ones under every policy, and `reject` in front of a real runtime.
    """
    # TODO
    raise NotImplementedError("can_move_to_device")
