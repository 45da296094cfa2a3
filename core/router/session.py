"""A server session: one device's FIFO of tasks, run by its interpreter.

Burn's session worker processes tasks strictly in submission order, one FIFO per session
(`crates/burn-remote/src/server/worker.rs:9-18`). Two tasks can block: the target side of a
same-peer transfer waits in `local_comm.take` until the source exposes (`worker.rs:296-309`), and
the target of a cross-peer transfer waits for the source's bytes. `waiting_for()` tells the
scheduler (`server.py`) when the head task would block; `run_one()` runs it once it would not.

A panic ends the session for good, because the worker thread has no `catch_unwind`
(`worker.rs:119-134`); later tasks are refused with `SessionEnded`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..base.devices import Device
from ..base.errors import SessionEnded
from ..base.policies import Policy
from ..base.view import TableView, Viewable
from .backend import Kind
from .handles import HandleContainer
from .interpreter import TensorInterpreter
from .ir import (
    BinaryOp,
    DropOp,
    ExposeLocalOp,
    ExposeRemoteOp,
    OperationIr,
    ReadOp,
    RegisterDataOp,
    RegisterLocalOp,
    RegisterRemoteOp,
    TensorIr,
)
from .port import Reply

if TYPE_CHECKING:
    from .server import Server

__all__ = ["Reply", "Session"]


class Session(Viewable):
    """One device's worker: a FIFO and an interpreter. It is the client's `SessionPort`
    in-process (`port.py`), and the only module that reaches into the interpreter."""

    def __init__(self, interpreter: TensorInterpreter, server: Server) -> None:
        self.interpreter = interpreter
        self.handles: HandleContainer = interpreter.handles
        """The registry, which the server's journal watches."""
        self.device: Device = interpreter.device
        self.label = str(self.device)
        self.server = server
        self.queue: deque[tuple[OperationIr, Reply | None]] = deque()
        self.ended: str | None = None
        self.panicked = False
        self.parked_on: int | None = None
        self._log = interpreter.trace.events.append

    def submit(self, op: OperationIr, reply: Reply | None = None) -> None:
        """Enqueue a task (fire-and-forget, like `register_op`)."""
        self.check_alive()
        self.queue.append((op, reply))

    def check_alive(self) -> None:
        if self.ended is not None:
            raise SessionEnded(f"session {self.label} has ended: {self.ended}")

    def waiting_for(self) -> int | None:
        """The transfer id the head task would wait for, or None if it can run now."""
        op = self.queue[0][0]
        if isinstance(op, RegisterLocalOp) and not self.server.exposed_locally(
                self.device.peer, op.transfer_id):
            return op.transfer_id
        if isinstance(op, RegisterRemoteOp) and not self.server.published(op.transfer_id):
            return op.transfer_id
        return None

    def start_head(self) -> None:
        """Record that the worker began the head task. Burn's worker receives a task and starts
        it before any wait inside it (`RegisterTensorLocal` awaits `local_comm.take` within the
        task, `worker.rs:296-309`), so the trace lists the task, then its wait."""
        op = self.queue[0][0]
        # The op stands in for its description until the event is read (`Trace._event`), except
        # an upload, whose op holds the data the trace must not keep alive.
        self._log(("drop" if type(op) is DropOp else "op", self.label, op.traced_id(), None, 0,
                   op.describe() if type(op) is RegisterDataOp else op))

    def run_one(self, started: bool = False) -> None:
        """Pop the head task and run it to completion (`started`: its start is already in the
        trace, because it parked first)."""
        if not started:
            self.start_head()
        op, reply = self.queue.popleft()
        task = _TASKS.get(type(op))
        if task is None:
            self.interpreter.register_op(op)
        else:
            task(self, op, reply)

    def binary_now(self, op: BinaryOp) -> None:
        """Run a binary op at once on this idle session, as `submit` and the scheduler's
        `run_one` would run it through the interpreter's arm (its start in the trace; get lhs,
        get rhs, the backend's op in the workers' context, register), without the queue: the
        fast path's task (`fastpath.py`)."""
        self._log(("op", self.label, int(op.out.id), None, 0, op))
        handles = self.handles
        lhs = handles.get(op.lhs.id, op.lhs.status)
        rhs = handles.get(op.rhs.id, op.rhs.status)
        compute = getattr(self.interpreter.backend, op.name)  # `add`, `mul`, `matmul`
        handles.register(op.out.id, self.server.in_workers(compute, lhs, rhs))

    def move_now(self, target: Session, expose: ExposeLocalOp, register: RegisterLocalOp) -> None:
        """Run a same-peer move's two tasks at once, on this idle source session and the idle
        `target`, in the order the scheduler runs them source first (each task's start in the
        trace, then the task itself, rendezvous included), without the queues: the fast path's
        move (`fastpath.py`)."""
        self._log(("op", self.label, int(expose.tensor.id), None, 0, expose))
        self._expose_local(expose, None)
        target._log(("op", target.label, int(register.out.id), None, 0, register))
        target._register_local(register, None)

    def _register_data(self, op: RegisterDataOp, reply: Reply | None) -> None:
        self.interpreter.register_tensor_data(op.out.id, op.data, op.request)

    def _read(self, op: ReadOp, reply: Reply | None) -> None:
        data = self.interpreter.read_tensor(op.tensor, op.request)
        self.interpreter.trace.record("read", self.label, op.tensor.id, op.tensor.status,
                                      data.num_bytes)
        if reply is not None:
            reply.value = data

    def _expose_local(self, op: ExposeLocalOp, reply: Reply | None) -> None:
        kind = self.interpreter.get_tensor(op.tensor, op.request)
        self.server.expose_local(self, op.transfer_id, kind)
        self.interpreter.trace.record("expose", self.label, op.tensor.id, op.tensor.status, 0,
                                      f"transfer {op.transfer_id}: {kind.name()} handle")

    def _register_local(self, op: RegisterLocalOp, reply: Reply | None) -> None:
        kind = self.server.take_local(self.device.peer, op.transfer_id)
        self.interpreter.trace.record("take", self.label, op.out.id, None, 0,
                                      f"transfer {op.transfer_id}")
        self.interpreter.register_tensor_to_device(op.out.id, kind, op.request)

    def _expose_remote(self, op: ExposeRemoteOp, reply: Reply | None) -> None:
        data = self.interpreter.read_tensor(op.tensor, op.request)
        self.server.publish(self, op.transfer_id, data)
        self.interpreter.trace.record("publish", self.label, op.tensor.id, op.tensor.status,
                                      data.num_bytes, f"transfer {op.transfer_id}: host bytes")

    def _register_remote(self, op: RegisterRemoteOp, reply: Reply | None) -> None:
        data = self.server.download(op.transfer_id)
        self.interpreter.trace.record("download", self.label, op.out.id, None, data.num_bytes,
                                      f"transfer {op.transfer_id}")
        self.interpreter.register_tensor_data(op.out.id, data, op.request)

    def end(self, reason: str, panicked: bool = False) -> None:
        """The worker thread is gone: drop its queue, refuse later tasks. A panicked worker
        unwinds, freeing its handles (`free_unwound`); a hung one keeps them, blocked."""
        self.ended = reason
        self.panicked = panicked
        self.queue.clear()
        self.parked_on = None

    def free_unwound(self) -> None:
        """Free the handles of a worker that panicked. Called once the failed step is rolled
        back, since the rollback restores registries and this must stay."""
        if self.panicked and self.interpreter.handles.num_handles():
            self.interpreter.handles.clear()

    # --- what the faces look at (`SessionPort`) ------------------------------------------------

    def handle_ids(self) -> list[int]:
        return sorted(int(i) for i in self.handles.handle_ids())

    def handle(self, tensor_id: int) -> Any:
        return self.handles.get_handle_ref(tensor_id)

    def counters(self) -> tuple[int, int]:
        backend = self.interpreter.backend
        return backend.bytes_copied, backend.copies

    # --- the bridge: one interpreter's handle to another's, in-process ------------------------

    def take_handle(self, tensor: TensorIr) -> Any:
        """The source side of the bridge: the handle, by the IR's status (a ReadWrite take
        removes the entry)."""
        return self.interpreter.get_tensor_handle(tensor)

    def convert_from(self, source: Session, handle: Any, kind: Kind, policy: Policy) -> Any:
        """The bridge's conversion of `source`'s handle onto this backend: a byte round trip,
        or for a quantized handle the extension's `change_backend` (bridge/base.rs:31)."""
        if kind is Kind.QUANTIZED:
            return source.interpreter.extension("bridge of a quantized tensor").change_backend(
                source.interpreter, self.interpreter, handle, policy)
        return self.interpreter.backend.from_data(source.interpreter.backend.into_data(handle))

    def view(self) -> TableView:
        state = "alive" if self.ended is None else f"ENDED: {self.ended}"
        if self.panicked:
            state += "; its handles were freed when the worker unwound"
        legacy = ", legacy" if self.interpreter.legacy else ""
        return self.interpreter.handles.view(
            f"Registry {self.label}",
            caption=f"{self.interpreter.handles.num_handles()} handle(s); session {state}{legacy}")


_TASKS: dict[type, Callable[[Session, Any, Reply | None], None]] = {
    RegisterDataOp: Session._register_data, ReadOp: Session._read,
    ExposeLocalOp: Session._expose_local, RegisterLocalOp: Session._register_local,
    ExposeRemoteOp: Session._expose_remote, RegisterRemoteOp: Session._register_remote,
}
"""Tasks that are not `OperationIr`s for the interpreter's `register_op`."""
