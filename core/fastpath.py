"""The fast path: one op step, or one same-peer move, on idle in-process sessions, beside the
readable path.

The readable path (`Runtime.atomic` -> `client.build_op` -> `Session.submit` -> `Server.run` ->
the scheduler -> `Session.run_one` -> the interpreter's arm) is the one to read: each layer is
one of Burn's. A flow of small ops spends most of its time crossing those layers, so the hot
case, a binary op whose inputs live on one in-process device with nothing queued, takes this
path instead: the same journal, the same client-side consumption of the inputs, the same id,
the same op, the same trace events in the same order, and the same interpreter arm, without
the queue and the scheduler's pass. A same-peer move (`move_step`) is the other hot case: the
readable path is `Runtime.transfer` -> `moves.move` -> `moves.remote_change_backend` -> two
`register_op`s -> the scheduler -> `Session._expose_local` / `_register_local`; the fast path
makes the same client-side decisions (the runtime's policy, the guard's plan, the consumed
input, the transfer id, the new id) and runs the same two tasks, source first, at once
(`Session.move_now`).

`binary_step` and `move_step` answer None whenever the case is not the hot one (a served or
ended session, work queued, a step already open, an interpreter subclass or a backend other
than the default, an op the readable path would refuse, a client with Burn's `fusion`, whose
stream `RouterClient.register_op` counts, or with the wire's batch (`wire`); for a move also: a
target device not created yet, another peer, a forced path other than `local`, the target-first
arrival, several hops, `legacy`, a plan the guard refuses), and the caller takes the readable
path, which then does or refuses exactly what it always did. tests/core/test_fastpath.py proves
the two paths equal on random programs: traces, registries, ids, values and rollbacks
(docs/performance.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base.devices import Path
from .base.dtypes import QFloat
from .base.policies import Policy
from .base.request import Arrival, TransferRequest
from .base.trace import Detail
from .moves import plan
from .router.ir import NOT_INIT, AddOp, ExposeLocalOp, MatmulOp, MulOp, RegisterLocalOp, TensorIr
from .router.server import Server
from .router.session import Session
from .router.tensor import RouterTensor

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
            or not rt.options.stock or rt.has_extra_arm(op_type) or client.fusion
            or client.wire is not None
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


def move_step(rt: Runtime, tensor: RouterTensor, request: TransferRequest) -> RouterTensor | None:
    """`rt.transfer(tensor, request)` as one step on the fast path, or None if it does not
    apply (the module docstring says when)."""
    source = tensor.client
    target = rt.existing_client(request.device)
    if (target is None or target is source or request.hops != 1 or rt.journal.active
            or not tensor.alive or source.fusion or source.wire is not None
            or not rt.options.stock
            or type(rt.server) is not Server
            or (request.arrival or rt.arrival) is not Arrival.SOURCE_FIRST):
        return None
    source_session, target_session = source.session, target.session
    if (type(source_session) is not Session or type(target_session) is not Session
            or source_session.ended is not None or target_session.ended is not None
            or source_session.queue or target_session.queue
            or source.device.peer != target.device.peer
            or request.path not in (None, Path.LOCAL)
            or not source_session.handles.has_handle(tensor.id)):
        return None
    request = rt.decide(request)
    if request.policy is Policy.LEGACY:
        return None
    held = None
    if isinstance(tensor.dtype, QFloat):
        planned = plan(tensor, target.device, request)
        if not planned.ok or planned.path is not Path.LOCAL:
            return None
        held = planned.arrival_dtype
    rt.trace.begin_step()
    mark = len(rt.trace)
    rt.journal.begin()
    try:
        desc = tensor.into_ir()
        transfer_id = rt.server.new_transfer(source.device, target.device)
        out = desc._replace(id=target.create_empty_handle(), status=NOT_INIT)
        rt.server.in_workers(source_session.move_now, target_session,
                             ExposeLocalOp(desc, transfer_id, request),
                             RegisterLocalOp(transfer_id, out, request))
    except BaseException as error:
        rt.fail_step(Detail("{} {}", "to_device", target.device), mark, error)
        raise
    rt.journal.commit()
    moved = RouterTensor(out.id, desc.shape, desc.dtype, target)
    if held is not None:
        moved.held = held
    return moved
