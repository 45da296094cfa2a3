from typing import Any


def fused_add_mul(interpreter: Any, op: Any) -> None:
    """A server's custom-op handler: (a + b) * c of op.ins = (a, b, c), as op.outs[0]."""
    # TODO: read the three inputs through interpreter.handles, compute with interpreter.backend,
    # register the result under the output's id.
    raise NotImplementedError("fused_add_mul")
