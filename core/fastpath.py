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

Both run inside the one step protocol every step uses (`Runtime.step`): the fast path only
tells it that its tasks already ran (`FastStep`), so the step does not run the scheduler.
When the path applies is written as named predicates below. A runtime decides once what can
never change for it (`opens_fast_path`: the stock interpreter and backend, the model's own
in-process server, no Burn `fusion` stream, which `RouterClient.register_op` counts, no wire
replay); each step then asks only what a step changes (no step open, idle sessions that hold the
inputs, the op or the move's own conditions). `binary_step` and `move_step` answer None
whenever the case is not the hot one, and the caller takes the readable path, which then does or
refuses exactly what it always did. tests/core/test_fastpath.py proves the two paths equal on
random programs: traces, registries, ids, values and rollbacks (docs/performance.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

from .base.devices import Path
from .base.dtypes import QFloat
from .base.policies import Policy
from .base.request import Arrival, TransferRequest
from .base.trace import Detail
from .moves import plan
from .router.ir import (
    NOT_INIT,
    AddOp,
    BinaryOp,
    ExposeLocalOp,
    MatmulOp,
    MulOp,
    RegisterLocalOp,
    TensorIr,
)
from .router.server import Server
from .router.session import Session
from .router.tensor import RouterTensor
from .step import FastStep

if TYPE_CHECKING:
    from .router.client import RouterClient
    from .runtime import Runtime
    from .runtime_options import RuntimeOptions

FAST_OPS: frozenset[type[BinaryOp]] = frozenset((AddOp, MulOp, MatmulOp))
"""The ops the fast path takes: the default interpreter's binary arms."""

# --- when the fast path applies ----------------------------------------------------------------


def opens_fast_path(options: RuntimeOptions, server: Server) -> bool:
    """Whether a runtime may take the fast path at all, decided once since none of it changes:
    asked for (`fast`), the stock interpreter and backend (a subclass or a test's backend maker
    must see every task), the model's own in-process server (a served deployment sends tasks
    away), no `fusion` stream (its client counts each op) and no wire replay (each task passes
    the outgoing batch)."""
    return (options.fast and options.stock and type(server) is Server and not options.fusion
            and not options.wire)


def fast_ops(options: RuntimeOptions, server: Server) -> frozenset[type[BinaryOp]]:
    """The binary ops this runtime's fast path takes: none if it is closed (`opens_fast_path`),
    else `FAST_OPS` less those the runtime gave an arm of its own (`Runtime(arms=...)`)."""
    if not opens_fast_path(options, server):
        return frozenset()
    return FAST_OPS - set(options.arms or ())


def idle(session: object) -> TypeGuard[Session]:
    """An in-process session (not a served one) that has not ended and has nothing queued: a
    task given to it now would run at once, as the scheduler's next pass would run it."""
    return type(session) is Session and session.ended is None and not session.queue


def holds(session: Session, tensor: RouterTensor) -> bool:
    """`tensor` is alive on its client and `session`'s registry has its handle (else the
    readable path raises its own error)."""
    return tensor.alive and session.handles.has_handle(tensor.id)


def binary_applies(rt: Runtime, op_type: type[BinaryOp], lhs: RouterTensor,
                   rhs: RouterTensor) -> bool:
    """A binary op this runtime's fast path takes, outside any step, on two distinct tensors of
    one client whose idle session holds both."""
    client = lhs.client
    session = client.session
    return (op_type in rt.fast_ops and not rt.journal.active and lhs is not rhs
            and rhs.client is client and idle(session) and holds(session, lhs)
            and holds(session, rhs))


def move_applies(rt: Runtime, tensor: RouterTensor, request: TransferRequest,
                 target: RouterClient | None) -> bool:
    """A one-hop, source-first move outside any step, between two existing devices of one peer
    whose sessions are idle, on the local path (asked for or automatic), of a tensor its
    session holds."""
    source = tensor.client
    return (rt.fast_moves and target is not None and target is not source
            and request.hops == 1 and not rt.journal.active
            and (request.arrival or rt.arrival) is Arrival.SOURCE_FIRST
            and request.path in (None, Path.LOCAL) and source.device.peer == target.device.peer
            and idle(source.session) and idle(target.session)
            and holds(source.session, tensor))


# --- the two hot cases ---------------------------------------------------------------------------


def binary_step(rt: Runtime, op_type: type[BinaryOp], lhs: RouterTensor,
                rhs: RouterTensor) -> RouterTensor | None:
    """`rt.op(op_type, lhs, rhs)` as one step on the fast path, or None if it does not apply."""
    if not binary_applies(rt, op_type, lhs, rhs):
        return None
    try:
        shape, dtype = op_type.infer(lhs, rhs)
    except Exception:
        return None  # the readable path refuses it, with its own step and trace line
    client = lhs.client
    with FastStep(rt, op_type.name):
        lhs_ir, rhs_ir = lhs.into_ir(), rhs.into_ir()
        out = TensorIr.uninit(client.create_empty_handle(), shape, dtype)
        tensor = RouterTensor(out.id, out.shape, dtype, client)
        client.session.binary_now(op_type.create(lhs_ir, rhs_ir, out=out))  # type: ignore[attr-defined]
    return tensor


def move_step(rt: Runtime, tensor: RouterTensor, request: TransferRequest) -> RouterTensor | None:
    """`rt.transfer(tensor, request)` as one step on the fast path, or None if it does not
    apply (`move_applies`, then the runtime's policy is not `legacy` and, for a quantized
    tensor, the guard plans the local path)."""
    target = rt.existing_client(request.device)
    if not move_applies(rt, tensor, request, target):
        return None
    assert target is not None  # move_applies says so
    request = rt.decide(request)
    if request.policy is Policy.LEGACY:
        return None
    held = None
    if isinstance(tensor.dtype, QFloat):
        planned = plan(tensor, target.device, request)
        if not planned.ok or planned.path is not Path.LOCAL:
            return None
        held = planned.arrival_dtype
    source = tensor.client
    with FastStep(rt, Detail("{} {}", "to_device", target.device)):
        desc = tensor.into_ir()
        transfer_id = rt.server.new_transfer(source.device, target.device)
        out = TensorIr(target.create_empty_handle(), desc.shape, NOT_INIT, desc.dtype)
        rt.server.in_workers(source.session.move_now, target.session,  # type: ignore[attr-defined]
                             ExposeLocalOp(desc, transfer_id, request),
                             RegisterLocalOp(transfer_id, out, request))
    moved = RouterTensor(out.id, desc.shape, desc.dtype, target)
    if held is not None:
        moved.held = held
    return moved
