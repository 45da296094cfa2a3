"""build-8: the server (crates/burn-remote/src/server/worker.rs:9-18, 136-180, 192-330: one FIFO
per device session, run in submission order; crates/burn-router/src/interpreter.rs:216-235,
356-360, 767-770, 1367-1369, 1390-1391, 2107-2120: the op arms; tensor.rs:62-64 and
burn-remote's client/runner.rs:32-52: a read joins the FIFO). The learner's `Session` runs
their interpreter's `register_op`, so the tour's add, quantize and drops, and every read, run
on the learner's code too; beside it, the model's interpreter behind a FIFO of the same shape."""

from __future__ import annotations

import random
from collections import deque
from typing import Any

import numpy as np

from ...core import DType, RouterTensor, TensorIr
from ...core.base.data import TensorData
from ...core.base.devices import Device
from ...core.base.dtypes import QFloat
from ...core.base.errors import BurnPanic, SessionEnded
from ...core.fix.qtensor import QuantizeParams
from ...core.quant import parse_scheme, quantize_dynamic
from ...core.router.custom_op import CustomOp
from ...core.router.ir import (
    AddOp,
    CastOp,
    DequantizeOp,
    MatmulOp,
    MulOp,
    OperationIr,
    QuantizeOp,
    ReadOp,
    RegisterDataOp,
    ReshapeOp,
    SwapDimsOp,
)
from .base import CheckFailure, Observation, Subject, Suite
from .build_client import model_client, model_from_data, tensor_data
from .build_common import did, traced
from .build_glue import DEVICES, Router, data_of, model_to_device, tour
from .build_handles import ModelHandles
from .build_interpreter import (
    CONTAINER,
    SAME_PEER_MOVES,
    ModelInterpreter,
    container_sequences,
    same_peer_moves,
)


class Step:
    """The model's journal as a runtime step holds it open (`active`): a dropped tensor's Drop
    stays queued like any other task, as on the learner's router, until the session runs. No
    step of this check is rolled back, so nothing is remembered."""

    active = True

    def on_rollback(self, *undo: Any) -> None:
        """Nothing to roll back."""

    def set(self, owner: dict[str, Any], name: str, value: object) -> None:
        owner[name] = value


class ModelSession:
    """The model's session (routerlab.core.router.session: `submit`, `run_one`, `end`,
    `free_unwound`) in the learner's signature, without a server: a FIFO that runs on the
    model's interpreter when asked. It is its model client's server too (`run`, `journal`)."""

    def __init__(self, device: Device, interpreter: ModelInterpreter) -> None:
        self.device = device
        self.interpreter = interpreter
        self.queue: deque[tuple[OperationIr, Any]] = deque()
        self.ended: str | None = None
        self.journal = Step()

    def check_alive(self) -> None:
        if self.ended is not None:
            raise SessionEnded(f"session {self.device} has ended: {self.ended}")

    def submit(self, op: OperationIr, reply: Any = None) -> None:
        self.check_alive()
        self.queue.append((op, reply))

    def run(self) -> None:
        interp = self.interpreter
        while self.queue:
            op, reply = self.queue.popleft()
            try:
                if isinstance(op, RegisterDataOp):
                    interp.register_tensor_data(op.out.id, op.data, op.request)
                elif isinstance(op, ReadOp):
                    reply.value = interp.read_tensor(op.tensor, op.request)
                else:
                    interp.register_op(op)
            except BurnPanic as panic:
                self.ended = panic.message
                self.queue.clear()
                interp.handles.clear()
                raise

    def close(self) -> None:
        self.run()
        self.ended = "closed"
        self.interpreter.handles.clear()


def model_into_data(tensor: RouterTensor) -> TensorData:
    """`RouterTensor::into_data` (tensor.rs:62-64) on the model's client, whose `read_tensor`
    submits a `ReadOp` and runs its session (here: its FIFO) until the answer is there."""
    return tensor.client.read_tensor(tensor.into_ir())


server = Suite("build-8")
server.model(TensorInterpreter=ModelInterpreter, RouterClient=model_client,
             float_from_data=model_from_data, to_device=model_to_device,
             HandleContainer=ModelHandles, Session=ModelSession)


def into_data(sub: Subject, tensor: Any) -> Any:
    """The subject's read of `tensor`: the learner's `RouterTensor.into_data`, the model's."""
    if sub.is_model:
        return model_into_data(tensor)
    read = getattr(tensor, "into_data", None)
    if not callable(read):
        raise CheckFailure("your RouterTensor has no method `into_data`; add it as the starter "
                           "says (tensor.rs:62-64)", hint=1)
    return read()


def router(sub: Subject, start: int) -> Router:
    """The subject's router, every device's session the subject's `Session`."""
    made = Router(sub, start, sub.function("Session"))
    for session in made.sessions.values():
        for method in ("submit", "run", "check_alive", "close"):
            if not callable(getattr(session, method, None)):
                raise CheckFailure(f"your Session has no method `{method}`; keep the names the "
                                   "starter gives", hint=1)
    return made


def op(client: Any, kind: type, *inputs: Any, shape: tuple[int, ...] | None = None,
       dtype: Any = DType.F32, **fields: Any) -> Any:
    """One op on the subject's client, as Burn's router builds it: the inputs' irs (their
    statuses from the counts), a fresh output id, `register`."""
    irs = [tensor.into_ir() for tensor in inputs]
    out = TensorIr.uninit(client.create_empty_handle(),
                          shape if shape is not None else tuple(irs[0].shape), dtype)
    built: OperationIr
    if kind is QuantizeOp:
        built = QuantizeOp(irs[0], dtype.scheme, out, fields.get("params"))
    elif kind in (AddOp, MulOp, MatmulOp):
        built = kind(irs[0], irs[1], out)
    elif kind is SwapDimsOp:
        built = SwapDimsOp(irs[0], fields["dim1"], fields["dim2"], out)
    elif kind is CustomOp:
        built = CustomOp(fields["name"], tuple(irs), (out,), ())
    else:
        built = kind(irs[0], out)
    (tensor,) = client.register(built)
    return tensor


def refused(call: Any) -> list[Any]:
    """What a call to a session did, a refusal of an ended session included."""
    try:
        return did(call)
    except SessionEnded:
        return ["refused", "SessionEnded"]


def quantized_dtype(r: Router, scheme: str) -> QFloat:
    return QFloat(parse_scheme(scheme).resolve(r.bench.interps[DEVICES[0]].backend.profile))


def fifo(sub: Subject, x: Any, scheme: str, start: int) -> Observation:
    """One device's FIFO: uploads, a clone, add, mul, reshape, swap_dims, matmul, cast; the
    registries before and after a sync; quantize and dequantize; reads of a shared and of a
    last reference."""
    r = router(sub, start)
    cpu0 = r.clients["cpu:0"]
    seen: Observation = []
    values = np.asarray(x, dtype=np.float32)
    a = r.upload(cpu0, TensorData.from_array(values))
    b = r.upload(cpu0, TensorData.from_array(values[::-1] * 2))
    s = op(cpu0, AddOp, a.clone(), b)
    m = op(cpu0, MulOp, s.clone(), a.clone())
    grid = op(cpu0, ReshapeOp, m, shape=(2, len(x) // 2))
    turned = op(cpu0, SwapDimsOp, grid.clone(), dim1=0, dim2=1, shape=(len(x) // 2, 2))
    product = op(cpu0, MatmulOp, grid, turned, shape=(2, 2))
    half = op(cpu0, CastOp, product, dtype=DType.F16)
    seen.append(("uploads, add, mul, reshape, swap_dims, matmul, cast submitted: the tensors, "
                 "and every registry and copy count before the session ran",
                 [[tensor_data(t) for t in (a, s, half)], r.raw_state()]))
    cpu0.sync()
    seen.append(("after a sync: every registry and copy count, what the cast holds",
                 [r.raw_state(), r.holds(half)]))
    qtype = quantized_dtype(r, scheme)
    given = quantize_dynamic(values * 3, qtype.scheme)  # scales for a static quantize
    fixed = op(cpu0, QuantizeOp, s.clone(), dtype=qtype, params=QuantizeParams(
        tuple(float(v) for v in np.asarray(given.scales, dtype=np.float32).ravel()),
        None if given.global_scale is None else float(given.global_scale)))
    q = op(cpu0, QuantizeOp, s, dtype=qtype)
    back = op(cpu0, DequantizeOp, q.clone())
    seen.append(("quantize with given scales, quantize calibrated, dequantize submitted: the "
                 "registries as they were", r.raw_state()))
    seen.append(("reads of the dequantized tensor, the quantized one (its last reference), the "
                 "one quantized with given scales, a clone of the cast and the cast: the bytes, "
                 "every registry and copy count",
                 [[data_of(into_data(sub, t)) for t in (back, q, fixed, half.clone(), half)],
                  r.raw_state()]))
    a.drop()
    seen.append(("the last upload dropped, the drop still queued, then a sync",
                 [r.raw_state(), [cpu0.sync(), r.raw_state()]]))
    return seen


def panics(sub: Subject, x: Any, start: int) -> Observation:
    """A task that panics (a custom op no handler was registered for) ends its session: Burn's
    text, the task behind it never runs, the handles are freed, a later submit is refused; the
    other device's session goes on; a close runs what was queued, then frees every handle."""
    r = router(sub, start)
    cpu0, cpu1 = r.clients["cpu:0"], r.clients["cpu:1"]
    data = TensorData.from_array(np.asarray(x, dtype=np.float32))
    a, b = r.upload(cpu0, data), r.upload(cpu1, data)
    r.settle()
    fused = op(cpu0, CustomOp, a.clone(), name="fused_gelu")
    behind = r.upload(cpu0, data)
    seen: Observation = [("the custom op and an upload behind it queued on cpu:0", r.raw_state())]
    seen.append(("cpu:0's session runs: what it did", did(cpu0.sync)))
    seen.append(("then: every registry and copy count", r.raw_state()))
    seen.append(("cpu:0's session run again", refused(cpu0.sync)))
    seen.append(("then: every registry and copy count", r.raw_state()))
    seen.append(("an upload on cpu:0 after the panic", refused(lambda: r.upload(cpu0, data))))
    seen.append(("the tensors the program held on cpu:0",
                 [tensor_data(t) for t in (fused, behind)]))
    doubled = op(cpu1, AddOp, b.clone(), b)
    seen.append(("cpu:1 goes on: an add, a sync, the registries",
                 [tensor_data(doubled), [cpu1.sync(), r.raw_state()]]))
    r.upload(cpu1, data)
    seen.append(("an upload queued on cpu:1, then cpu:1's session closed: the registries and "
                 "copy counts", [r.sessions["cpu:1"].close(), r.raw_state()]))
    seen.append(("an upload on cpu:1 after the close", refused(lambda: r.upload(cpu1, data))))
    return seen


@server.visible("one device's FIFO: nothing runs before the session does; the arms of add, "
                "mul, reshape, swap_dims, matmul, cast, quantize, dequantize and drop; reads",
                hint=2)
@traced
def _(sub: Subject) -> Observation:
    return fifo(sub, sub.param("x"), sub.param("scheme"), sub.param("start"))


@server.visible("the tour's flow on your server, its last references read back", hint=2)
@traced
def _(sub: Subject) -> Observation:
    return tour(sub, sub.param("x"), sub.param("scheme"), sub.param("start"),
                session=sub.function("Session"), read=lambda t: into_data(sub, t))


@server.visible("a panic ends the session (Burn's text, what it held, what came after); "
                "the other session goes on; a close", hint=2)
@traced
def _(sub: Subject) -> Observation:
    return panics(sub, sub.param("x"), sub.param("start"))


@server.hidden("the FIFO, the flow and a panic on seeded random tensors, schemes and counters")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(3571)
    seen: Observation = []
    for case in range(5):
        x = np.random.default_rng(case).normal(size=8).astype(np.float32).tolist()
        scheme = rng.choice(("q8s", "q8f", "q4s", "q4f", "q2s")) + rng.choice((
            "", ":block=4", ":block=2:scale=f16", ":block=4:scale=ue4m3:global=f32"))
        start = rng.randint(0, 50)
        seen += [(f"case {case} ({scheme}): {k}", v) for k, v in fifo(sub, x, scheme, start)]
        seen += [(f"case {case} ({scheme}): {k}", v) for k, v in tour(
            sub, x, scheme, start, session=sub.function("Session"),
            read=lambda t: into_data(sub, t))]
        seen += [(f"case {case}: {k}", v) for k, v in panics(sub, x, start)]
    return seen


# The container the learner carries over from build-1, graded again (hidden), as build-3,
# build-4 and build-7 do: every registry this checkpoint compares is kept in it.
server.hidden(CONTAINER)(container_sequences)
# The same-peer halves carried over from build-3 (its quantized arm's same-device return among
# them, which no move of this checkpoint reaches), graded again (hidden), as build-7 does.
server.hidden(SAME_PEER_MOVES)(same_peer_moves)
