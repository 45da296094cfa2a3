from typing import Any


def fused_add_mul(interpreter: Any, op: Any) -> None:
    """A server's custom-op handler: (a + b) * c of op.ins = (a, b, c), as op.outs[0].

    Read: crates/burn-remote/src/server/builder.rs:64-76 (a handler as a server registers it),
    crates/burn-ir/src/handle.rs:93-125 (get_handle and get_tensor_handle: what an input's status
    does to the registry) and crates/burn-ir/src/handle.rs:159-166 (register_float_tensor).
    The visible checks: the values of (a + a) * c and the registry after the op, once with every
    input used for the last time and once with a clone of c that the caller keeps.
    """
    # TODO
    raise NotImplementedError("fused_add_mul")
