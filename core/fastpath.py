"""The fast path: one op step on an idle in-process session, beside the readable path.

The readable path (`Runtime.atomic` -> `client.build_op` -> `Session.submit` -> `Server.run` ->
the scheduler -> `Session.run_one` -> the interpreter's arm) is the one to read: each layer is
one of Burn's. A flow of small ops spends most of its time crossing those layers, so the hot
case, a binary op whose inputs live on one in-process device with nothing queued, takes this
path instead: the same journal, the same client-side consumption of the inputs, the same id,
the same op, the same trace events in the same order, and the same interpreter arm, without
the queue and the scheduler's pass.

`binary_step` answers None whenever the case is not the hot one (a served or ended session,
work queued, a step already open, an interpreter subclass or a backend other than the default,
an op the readable path would refuse, a client with Burn's `fusion`, whose stream
`RouterClient.register_op` counts), and the caller takes the readable path, which then does
or refuses exactly what it always did. tests/core/test_fastpath.py proves the two paths equal
on random programs: traces, registries, ids, values and rollbacks (docs/performance.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .ir import AddOp, MatmulOp, MulOp, TensorIr
from .server import Server
from .session import Session
from .tensor import RouterTensor

if TYPE_CHECKING:
    from .runtime import Runtime

FAST_OPS = frozenset((AddOp, MulOp, MatmulOp))
"""The ops the fast path takes: the default interpreter's binary arms."""


def binary_step(rt: Runtime, op_type: type, lhs: RouterTensor,
                rhs: RouterTensor) -> RouterTensor | None:
    """`rt.op(op_type, lhs, rhs)` as one step on the fast path, or None if it does not apply."""
    client = lhs.client
    session = client.session
    if (op_type not in FAST_OPS or rt.journal.active or lhs is rhs or rhs.client is not client
            or not lhs.alive or not rhs.alive or type(session) is not Session
            or session.ended is not None or session.queue or type(rt.server) is not Server
            or not rt.options.stock or op_type in rt._arms or client.fusion
            or not (session.handles.has_handle(lhs.id) and session.handles.has_handle(rhs.id))):
        return None
    try:
        shape, dtype = op_type.infer(lhs, rhs)
    except Exception:
        return None  # the readable path refuses it, with its own step and trace line
    what = op_type.name
    rt.trace.begin_step()
    mark = len(rt.trace)
    rt.journal.begin()
    try:
        lhs_ir, rhs_ir = lhs.into_ir(), rhs.into_ir()
        out = TensorIr.uninit(client.create_empty_handle(), shape, dtype)
        tensor = RouterTensor(out.id, out.shape, dtype, client)
        session.binary_now(op_type.create(lhs_ir, rhs_ir, out=out))
    except BaseException as error:
        rt.fail_step(what, mark, error)
        raise
    rt.journal.commit()
    return tensor
