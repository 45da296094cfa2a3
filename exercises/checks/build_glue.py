"""build-7: `to_device`, the glue (crates/burn-router/src/ops/tensor.rs:89-94 and
ops/qtensor.rs:34-39, the router's entries; crates/burn-remote/src/client/channel.rs:45-62, the
channel's two paths; crates/burn-router/src/interpreter.rs:88-127 and 162-178, 2139-2176, the
halves each session runs). The tour's flow runs on the learner's whole router, every class of
build-1..6 and their `to_device`, beside the model's classes with the model's move, and every
stored word, scale, registry and clone count is compared."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core import (
    DType,
    RouterTensor,
    TensorIr,
    make_backend,
)
from ...core.base.data import TensorData
from ...core.base.devices import parse_device
from ...core.base.dtypes import QFloat
from ...core.base.errors import BurnTodo, TransferRejected
from ...core.base.policies import Policy
from ...core.fix.guard import can_move_to_device as model_can_move
from ...core.fix.qtensor import QPrimitive
from ...core.quant import parse_scheme, quantize_dynamic
from ...core.quant.debug import scheme_debug
from ...core.router.backend import Kind, kind_of
from ...core.router.ir import AddOp, DropOp, InitOp, QuantizeOp, RegisterDataOp
from .base import CheckFailure, Observation, Subject, Suite
from .build_client import counter, model_client, model_from_data, tensor_data
from .build_common import did, traced
from .build_handles import ModelHandles
from .build_interpreter import (
    CONTAINER,
    SAME_PEER_MOVES,
    Bench,
    ModelInterpreter,
    arrived,
    container_sequences,
    copied,
    registry,
    same_peer_moves,
)
from .build_policies import model_move

# crates/burn-router/src/ops/tensor.rs:89-94, crates/burn-remote/src/client/channel.rs:45-62,
# crates/burn-router/src/interpreter.rs:88-127; the model's move is core/moves.py.

DEVICES = ("cpu:0", "cpu:1", "peer2/cpu:0")
"""Two devices on this peer and one on a second peer."""


class Session:
    """A device session that runs each op as it is submitted, on the subject's interpreter:
    the ops outside the track (an upload's data, the add, the quantize, a Drop) are run here,
    through the interpreter's own registry, so what the registry holds is the subject's."""

    def __init__(self, device: str, interpreter: Any) -> None:
        self.device = parse_device(device)
        self.interpreter = interpreter
        self.journal = self
        self.active = False

    def submit(self, op: Any, reply: Any = None) -> None:
        interp = self.interpreter
        handles = interp.handles
        if isinstance(op, RegisterDataOp):
            interp.register_tensor_data(op.out.id, op.data)
        elif isinstance(op, AddOp):
            lhs, rhs = handles.get_tensor_handle(op.lhs), handles.get_tensor_handle(op.rhs)
            handles.register_handle(op.out.id, interp.backend.add(lhs, rhs))
        elif isinstance(op, QuantizeOp):
            x = handles.get_tensor_handle(op.tensor)
            q = quantize_dynamic(np.asarray(x.array), op.scheme, profile=interp.backend.profile)
            handles.register_handle(op.out.id, QPrimitive(q, self.device))
        elif isinstance(op, DropOp):
            handles.free(op.tensor)
        elif not isinstance(op, InitOp):
            raise CheckFailure(f"your router sent a {type(op).__name__} to a session; this "
                               "checkpoint's to_device calls the two interpreters itself", hint=2)

    def check_alive(self) -> None:
        """A test session never ends."""

    def run(self) -> None:
        """Ops run as they are submitted."""


def interpreter_of(client: Any) -> Any:
    """The interpreter behind a client: its session is this module's `Session`."""
    return client.session.interpreter


def model_to_device(tensor: RouterTensor, target: Any, policy: str) -> RouterTensor:
    """The model's move (core/moves.py `move`) in the learner's signature, on the model's
    classes: the guard first (reject refuses, legacy meets Burn's `todo!()` in the source's
    `get_tensor`, interpreter.rs:98), the same device returns the tensor, the same peer pairs
    the source's `get_tensor` with the target's arm (or, for dequantize and requantize, the
    policy's carrier), another peer crosses as bytes (`read_tensor`, `register_tensor_data`)."""
    chosen = Policy.parse(policy)
    if not model_can_move(tensor.dtype, chosen):
        if chosen is Policy.LEGACY and isinstance(tensor.dtype, QFloat):
            raise BurnTodo("crates/burn-router/src/interpreter.rs:98",
                           f"Local transfer of QFloat({scheme_debug(tensor.dtype.scheme)}) "
                           "tensors is not supported yet")
        raise TransferRejected(f"policy {policy!r} refuses to move {tensor.dtype}")
    if tensor.client.device == target.device:
        return tensor
    source, destination = interpreter_of(tensor.client), interpreter_of(target)
    ir = tensor.into_ir()
    new_id = target.create_empty_handle()
    if tensor.client.device.peer != target.device.peer:
        destination.register_tensor_data(new_id, source.read_tensor(ir))
    elif kind_of(ir.dtype) is Kind.QUANTIZED and chosen is not Policy.NATIVE:
        moved = model_move(policy, source.backend, destination.backend,
                           source.handles.get_tensor_handle(ir))
        destination.handles.register_handle(new_id, moved)
    else:
        destination.register_tensor_to_device(new_id, source.get_tensor(ir))
    return RouterTensor(new_id, ir.shape, ir.dtype, target)


glue = Suite("build-7")
glue.model(TensorInterpreter=ModelInterpreter, RouterClient=model_client,
           float_from_data=model_from_data, to_device=model_to_device,
           HandleContainer=ModelHandles)


class Router:
    """The subject's router on the three devices: an interpreter, a session and a client each,
    one id counter, the subject's `to_device`. `session` makes a device's session from its name
    and interpreter: this module's `Session` (build-7), or the learner's own FIFO (build-8,
    routerlab.exercises.checks.build_server), which runs only when asked."""

    def __init__(self, sub: Subject, start: int,
                 session: Callable[[Any, Any], Any] | None = None) -> None:
        new_id = counter(start)
        interp, client = sub.function("TensorInterpreter"), sub.function("RouterClient")
        self.bench = Bench({d: interp(make_backend(parse_device(d))) for d in DEVICES})
        self.sessions: dict[str, Any] = {
            d: session(parse_device(d), self.bench.interps[d]) if session
            else Session(d, self.bench.interps[d]) for d in DEVICES}
        self.clients = {d: client(self.sessions[d], new_id) for d in DEVICES}
        self.upload: Callable[..., Any] = sub.function("float_from_data")
        self._move: Callable[..., Any] = sub.function("to_device")

    def settle(self) -> None:
        """Run every session's queue: what a program reads, and the halves of a move, come
        after every task submitted before them (worker.rs:9-18)."""
        for session in self.sessions.values():
            session.run()

    def move(self, tensor: Any, target: Any, policy: str) -> Any:
        """The subject's `to_device`, once the sessions ran what was submitted before it."""
        self.settle()
        return self._move(tensor, target, policy)

    def state(self) -> list[Any]:
        """Every registry, and the (copies, bytes) each backend counted."""
        self.settle()
        return self.raw_state()

    def raw_state(self) -> list[Any]:
        """The registries and copy counts as they are, whatever is still queued."""
        return [[registry(self.bench, d) for d in DEVICES],
                [copied(self.bench, d) for d in DEVICES]]

    def holds(self, tensor: Any) -> Any:
        """What the tensor's device holds under its id: stored words, scales, global, scheme."""
        self.settle()
        return arrived(self.bench, str(tensor.client.device), int(tensor.id))


def tour(sub: Subject, x: Any, scheme: str, start: int, whole: bool = True,
         session: Callable[[Any, Any], Any] | None = None,
         read: Callable[[Any], Any] | None = None) -> Observation:
    """The tour's flow on the subject's router: upload on cpu:0, a clone, an add, a quantize;
    a shared and then a unique native move of the quantized tensor to cpu:1, a bytes move to
    the second peer, a requantize hop back to cpu:0 and a dequantize hop of a clone to cpu:1, a
    move onto the device a tensor is already on, reject and legacy, an f32 tensor moved under
    requantize, and the last drops. Not `whole`: up to the bytes move (the first visible
    check). `session`: each device's session (see `Router`); `read`: the last references are
    read back with it (build-8's `into_data`) instead of dropped."""
    r = Router(sub, start, session)
    cpu0, cpu1, peer2 = (r.clients[d] for d in DEVICES)
    seen: Observation = []

    def after(label: str, tensor: Any, *kept: Any) -> None:
        seen.append((f"{label}: the tensor (id, shape, dtype, count), what its device holds, "
                     "the counts of the others kept, every registry and copy count",
                     [tensor_data(tensor), r.holds(tensor), [tensor_data(k) for k in kept],
                      r.state()]))

    data = TensorData.from_array(np.asarray(x, dtype=np.float32))
    a = r.upload(cpu0, data)
    b = a.clone()
    after("upload on cpu:0 and a clone", a, b)
    out = TensorIr.uninit(cpu0.create_empty_handle(), tuple(a.shape), DType.F32)
    (s,) = cpu0.register(AddOp(b.into_ir(), a.into_ir(), out))
    after("add(clone, x)", s)
    parsed = parse_scheme(scheme).resolve(r.bench.interps[DEVICES[0]].backend.profile)
    out = TensorIr.uninit(cpu0.create_empty_handle(), tuple(s.shape), QFloat(parsed))
    (q,) = cpu0.register(QuantizeOp(s.into_ir(), parsed, out))
    after(f"quantize({scheme})", q)
    keep = q.clone()
    shared = r.move(q, cpu1, "native")
    after("native move of a shared quantized tensor to cpu:1", shared, keep)
    unique = r.move(keep, cpu1, "native")
    after("native move of the last reference to cpu:1", unique, shared)
    far = r.move(unique, peer2, "native")
    after("bytes move across peers to peer2/cpu:0", far, shared)
    if not whole:
        return seen
    hop = r.move(shared, cpu0, "requantize")
    after("requantize hop from cpu:1 to cpu:0", hop, far)
    back = r.move(hop.clone(), cpu1, "dequantize")
    after("dequantize hop of a shared clone from cpu:0 to cpu:1", back, hop, far)
    same = r.move(hop, cpu0, "native")
    seen.append(("a move onto cpu:0 of a tensor on cpu:0 returns that very tensor",
                 same is hop))
    hop = same
    after("after the move onto its own device", hop)
    for policy in ("reject", "legacy"):
        seen.append((f"{policy}: the move of the tensor on cpu:0 to cpu:1",
                     did(lambda p=policy: r.move(hop, cpu1, p))))  # type: ignore[misc]
        after(f"after {policy}", hop)
    plain = r.move(r.upload(cpu0, data), cpu1, "requantize")
    after("an f32 upload moved to cpu:1 under requantize (a plain tensor ignores the quantized "
          "policies)", plain)
    if read is None:
        for tensor in (hop, far, back, plain):
            tensor.drop()
        seen.append(("the last references dropped: every registry and copy count", r.state()))
        return seen
    seen.append(("the last references read back: the bytes, then every registry and copy count",
                 [[data_of(read(tensor)) for tensor in (hop, far, back, plain)], r.state()]))
    return seen


def data_of(data: Any) -> Any:
    """A read's answer as data: its bytes (hex), shape and dtype."""
    if not isinstance(data, TensorData):
        return {"object": repr(data)[:80]}
    return [bytes(data.bytes).hex(), [int(d) for d in data.shape], str(data.dtype)]


def _labelled(label: str, seen: Observation) -> Observation:
    return [(f"{label}{name}", value) for name, value in seen]


@glue.visible("the tour's flow on your router: upload, clone, add, quantize, and the moves "
              "up to the bytes move across peers", hint=2)
@traced
def _(sub: Subject) -> Observation:
    return tour(sub, sub.param("x"), sub.param("scheme"), sub.param("start"), whole=False)


@glue.visible("the rest of the flow: the requantize and dequantize hops, a move onto the "
              "tensor's own device, reject, legacy's panic text, a plain move, the last drops",
              hint=2)
@traced
def _(sub: Subject) -> Observation:
    return tour(sub, sub.param("x"), sub.param("scheme"), sub.param("start"))[6:]


@glue.hidden("the flow on seeded random tensors, schemes and counters")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(8994)
    seen: Observation = []
    for case in range(8):
        shape = rng.choice(((16,), (2, 8), (4, 4)))
        x = np.random.default_rng(case).normal(size=shape).astype(np.float32)
        scheme = rng.choice(("q8s", "q8f", "q4s", "q4f", "q2s")) + rng.choice((
            "", ":block=4", ":block=8:scale=f16", ":block=4:scale=ue4m3:global=f32"))
        seen += _labelled(f"case {case} ({scheme}): ", tour(sub, x, scheme, rng.randint(0, 50)))
    return seen


# The container the learner carries over from build-1, graded again (hidden), as build-3 and
# build-4 do: every registry the glue compares is kept in it.
glue.hidden(CONTAINER)(container_sequences)
# The same-peer halves carried over from build-3 (its quantized arm's same-device return among
# them, which the glue's own same-device move never reaches), graded again (hidden), as build-4
# does.
glue.hidden(SAME_PEER_MOVES)(same_peer_moves)
