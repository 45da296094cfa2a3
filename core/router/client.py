"""`RouterClient`: the client side of one device, and the op builders that use it.

The client mints tensor ids from one counter shared by every client of a runtime (the remote
client's process-wide counter, `crates/burn-remote/src/client/service/registry.rs:18-20`), builds
output tensors *before* it submits an op (`crates/burn-router/src/client/base.rs:30-40`), and sends
tasks fire-and-forget to its device's session.

`build_op` is the pattern of every router op (`crates/burn-router/src/ops/tensor.rs:118-131`):
consume each input with `into_ir()` (which fixes its status), mint the output id, register. Unlike
Burn, it infers the output shape and dtype from the inputs *before* consuming them, so a bad shape
fails on the client with nothing consumed and nothing submitted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..base.data import TensorData
from ..base.devices import Device
from ..base.errors import BurnPanic, DeviceError, UseAfterDropError
from ..wire.queue import WireQueue
from .handles import Journal
from .ir import (
    ExposeLocalOp,
    ExposeOp,
    ExposeRemoteOp,
    InitOp,
    OperationIr,
    ReadOp,
    ReceiveOp,
    RegisterDataOp,
    RegisterLocalOp,
    TensorId,
    TensorIr,
)
from .port import Reply, SessionPort
from .server import Server
from .tensor import RouterTensor

if TYPE_CHECKING:
    from ..base.request import TransferRequest


class RouterClient:
    """Talks to one device's session, through its port (`SessionPort`: in-process or
    served), and to the server that runs the sessions."""

    def __init__(self, session: SessionPort, server: Server,
                 new_id: Callable[[], TensorId], fusion: bool = False,
                 wire: WireQueue | None = None) -> None:
        """`fusion`: the client is built with Burn's `fusion` feature, so it counts the ops its
        stream holds since the last sync point (`unsynced`, core/fix/fusion.py). `wire`: the
        client also replays burn-remote's outgoing batch (core/wire/queue.py), so the trace says
        when each task left the client and why."""
        self.session = session
        self.server = server
        self.device: Device = session.device
        self.journal: Journal = server.journal
        """The server's journal (one per runtime, never replaced), which every use of a tensor
        consults: kept here rather than looked up through the server each time."""
        self._new_id = new_id
        self.fusion = fusion
        self.unsynced = 0
        """Fusion only: the ops registered since this device's last sync point (a read, or a
        move out of it), which the router's fuser would send as one graph."""
        self.wire = wire
        self.held: tuple[OperationIr, BurnPanic] | None = None
        """Fusion, replaying Burn: a lone `Quantize` waiting in the stream for the next sync
        point, with the client wall it meets if no other op joins it (core/fix/fusion.py)."""
        self._hold: BurnPanic | None = None

    def create_empty_handle(self) -> TensorId:
        """Mint an id for a tensor that does not exist yet."""
        return self._new_id()

    def hold_next(self, wall: BurnPanic) -> None:
        """The next op registered is a lone legacy `Quantize` under fusion: keep it in the
        stream instead of submitting it (`drain` decides its fate at the next sync point)."""
        self._hold = wall

    def register_op(self, op: OperationIr) -> None:
        """Fire-and-forget submission to the session FIFO."""
        if self._hold is not None:
            wall, self._hold = self._hold, None
            self._set("held", (op, wall))
            return
        if self.fusion and isinstance(op, ExposeOp):
            self.drain()  # a move out of this device is a sync point
        self.session.submit(op)
        if self.fusion:
            self._stream(op)
        if self.wire is not None:
            self._send(*wire_task(op))

    def _send(self, kind: str, label: str, nbytes: int = 0) -> None:
        """Pass one task through the outgoing batch (a failed step takes it back)."""
        assert self.wire is not None
        if self.journal.active:
            self.journal.on_rollback(self.wire.restore, self.wire.snapshot())
        self.wire.send(kind, label, nbytes=nbytes)

    def _stream(self, op: OperationIr) -> None:
        """Count `op` into the fusion stream; a move out of this device drains it (Fusion's
        `change_client_*`). Uploads and transfers are tasks, not stream ops."""
        if isinstance(op, ExposeOp):
            self._synced()
        elif not isinstance(op, (RegisterDataOp, ReceiveOp)):
            self._set_unsynced(self.unsynced + 1)

    def _synced(self) -> None:
        if self.fusion and self.unsynced:
            self._set_unsynced(0)

    def _set_unsynced(self, count: int) -> None:
        self._set("unsynced", count)

    def _set(self, name: str, value: object) -> None:
        if self.journal.active:  # a failed step puts it back with everything else
            self.journal.set(self.__dict__, name, value)
        else:
            setattr(self, name, value)

    def drain(self) -> None:
        """A sync point drains the fusion stream. A held lone `Quantize` that other ops joined
        since is part of a graph: it reaches the server now, whose `todo!()` arm panics when the
        sessions run. One still alone runs op by op on the client: its wall fires here
        (`crates/burn-router/src/fusion.rs:254-259`,
        `crates/burn-fusion/src/ops/qtensor.rs:55-69`)."""
        if self.held is None:
            return
        op, wall = self.held
        if not self.unsynced:
            raise wall  # the step fails and is rolled back: the Quantize stays held
        self._set("held", None)
        self.session.submit(op)

    def register(self, op: OperationIr) -> list[RouterTensor]:
        """Create one tensor (count 1) per output, *then* submit the op."""
        outputs = [RouterTensor(o.id, o.shape, o.dtype, self) for o in op.outputs()]
        self.register_op(op)
        return outputs

    def register_tensor_data(self, data: TensorData,
                             request: TransferRequest | None = None) -> RouterTensor:
        """Upload data under a fresh id, then announce it with `Init`, as `float_from_data`
        does (ops/tensor.rs:20-31)."""
        (out,) = self.register(RegisterDataOp.create(data, self.create_empty_handle, request))
        self.register_op(InitOp(TensorIr.uninit(out.id, out.shape, out.dtype)))
        return out

    def read_tensor(self, tensor: TensorIr,
                    request: TransferRequest | None = None) -> TensorData:
        """Submit a read and run the sessions until it is answered."""
        self.drain()
        reply = Reply()
        self.session.submit(ReadOp(tensor, request), reply)
        if self.wire is not None:
            self._send("ReadTensor", f"#{int(tensor.id)}")
        self.server.run()
        self._synced()
        return reply.value

    def sync(self) -> None:
        """Run the sessions (the model's own pass, not Burn's `SyncBackend`: nothing is sent)."""
        self.server.run()
        self._synced()


_TRANSFER_TASKS = ((ExposeLocalOp, "ExposeTensorLocal"), (RegisterLocalOp, "RegisterTensorLocal"),
                   (ExposeRemoteOp, "ExposeTensorRemote"), (ReceiveOp, "RegisterTensorRemote"))


def wire_task(op: OperationIr) -> tuple[str, str, int]:
    """The burn-remote task that carries `op` (`crates/burn-remote/src/shared/task.rs:143-218`):
    its name, a label, and the data bytes it carries."""
    if isinstance(op, RegisterDataOp):
        return "RegisterTensor", f"#{int(op.out.id)}", len(op.data.bytes)
    for op_type, kind in _TRANSFER_TASKS:
        if isinstance(op, op_type):
            return kind, f"transfer {op.transfer_id}", 0
    return "RegisterOperation", type(op).__name__.removesuffix("Op").lower(), 0


def build_op(op_type: Any, inputs: list[RouterTensor], *params: Any) -> RouterTensor:
    """Validate, consume the inputs, mint the output, register; return the output tensor.

    `op_type` is an op class with `infer(*inputs, *params)` (inputs are the live tensors: only
    their shape and dtype are read, which their IRs carry unchanged, so inferring once is
    enough) and `create(*input_irs, *params, out=...)` (see `ir.py`).
    """
    client = common_client(inputs)
    shape, dtype = op_type.infer(*inputs, *params)
    client.session.check_alive()
    irs = [t.into_ir() for t in inputs]
    out = TensorIr.uninit(client.create_empty_handle(), shape, dtype)
    tensor = RouterTensor(out.id, out.shape, dtype, client)  # `register`: the tensor, then submit
    client.register_op(op_type.create(*irs, *params, out=out))
    return tensor


def common_client(inputs: list[RouterTensor]) -> RouterClient:
    """The inputs' one client; every input alive, none passed twice, all on one device."""
    client = inputs[0].client
    for i, tensor in enumerate(inputs):
        tensor.check()
        if i and tensor in inputs[:i]:  # identity: a RouterTensor has no __eq__
            raise UseAfterDropError(
                f"tensor #{int(tensor.id)} is passed twice, so the first use would consume it "
                "before the second; pass a clone() as one of them")
        if tensor.client is not client:
            raise DeviceError(f"an op's inputs must be on one device, got {client.device} and "
                              f"{tensor.device}; move them first")
    return client
