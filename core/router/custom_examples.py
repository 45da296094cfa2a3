"""The example custom-op handlers a scenario (or a served peer) may name, as data.

A scenario file is hostile input, so it never brings code: it names handlers from this fixed
table (`custom_ops = ["fused_add_mul"]`), and the runtime is built with a `CustomOpRegistry` of
just those, as a server's builder registers its handlers before `start`
(`crates/burn-remote/src/server/builder.rs:110-126`). An id the file does not name has no
handler, and a step that uses it meets Burn's panic (`crates/burn-router/src/interpreter.rs:
2107-2114`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..base.errors import RouterLabError
from .custom_op import CustomHandler, CustomOp, CustomOpRegistry


def _fused_add_mul(interpreter: Any, op: CustomOp) -> None:
    """`(a + b) * c` in one op, the kind of fused kernel an extension ships: read the three
    inputs, compute with the backend, register the one output (Burn's handler shape,
    `crates/burn-remote/src/server/builder.rs:63-73`)."""
    if len(op.ins) != 3 or len(op.outs) != 1:
        raise RouterLabError(f"custom op {op.id!r} takes 3 inputs and 1 output, got "
                             f"{len(op.ins)} and {len(op.outs)}")
    a, b, c = (interpreter.handles.get_tensor_handle(t) for t in op.ins)
    backend = interpreter.backend
    interpreter.handles.register(op.outs[0].id, backend.mul(backend.add(a, b), c))


EXAMPLES: dict[str, CustomHandler] = {"fused_add_mul": _fused_add_mul}
"""The example handlers by op id."""


def unknown_examples(names: Iterable[str]) -> list[str]:
    """The names that are not example handlers (for a loader's one-line refusal)."""
    return [name for name in names if name not in EXAMPLES]


def example_registry(names: Iterable[str]) -> CustomOpRegistry | None:
    """A registry of the named example handlers (None when no name is given, as a runtime
    without custom ops is built)."""
    chosen = list(names)
    missing = unknown_examples(chosen)
    if missing:
        raise RouterLabError(f"unknown example custom op(s) {', '.join(map(repr, missing))}; "
                             f"the examples are: {', '.join(EXAMPLES)}")
    if not chosen:
        return None
    return CustomOpRegistry({name: EXAMPLES[name] for name in chosen})
