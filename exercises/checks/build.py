"""Checks of the build track: Burn's router types, written by the learner one class at a time
(docs/exercises.md, "The build track").

Each checkpoint asks for a whole class with Burn's method names, not a function plugged into
the model: build-1 is burn-ir's `HandleContainer` (crates/burn-ir/src/handle.rs:7-226), build-2
burn-router's `RouterTensor` (crates/burn-router/src/tensor.rs:11-158). A probe drives the
learner's class through a script of calls and records what each call returned, what it panicked
with (Burn's text, compared word for word) and what the object holds afterwards. The model side
runs the same script on RouterLab's own class behind an adapter in the learner's signature
(`ModelHandles`, `model_tensor`), so the verdict is "behaves as the model does", never "looks
like the reference solution".
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from ...core import (
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    AddOp,
    Backend,
    BurnPanic,
    DType,
    HandleContainer,
    HandleKind,
    Kind,
    Primitive,
    RouterTensor,
    TensorId,
    TensorInterpreter,
    TensorIr,
    UseAfterDropError,
    make_backend,
)
from ...core.base.data import TensorData
from ...core.base.devices import parse_device
from ...core.base.errors import BurnTodo, TransferRejected
from ...core.base.policies import Policy
from ...core.fix.arms import QuantizedTransfers, carrier_for
from ...core.fix.guard import can_move_to_device as model_can_move
from ...core.fix.qtensor import QPrimitive
from ...core.quant import quantize_dynamic
from ...core.quant.debug import scheme_debug
from ...core.router.client import RouterClient
from .base import CheckFailure, Observation, Probe, Subject, Suite, to_data
from .build_trace import watching

Call = Callable[[], Any]


def did(call: Call) -> list[Any]:
    """What one call did: ["returned", value], or ["panics", Burn's text] for a Burn panic
    (the class the learner raised is not compared: Burn has one `panic!`, the text is what a
    user reads), or ["refused", why] for the model's stand-in of Rust's borrow checker (a use
    after drop) and for a transfer its policy refuses. Anything else is the learner's code
    failing, and propagates."""
    try:
        return ["returned", to_data(call())]
    except NotImplementedError:
        raise
    except BurnPanic as error:
        return ["panics", error.message]
    except UseAfterDropError:
        return ["refused", "use after drop"]
    except TransferRejected:
        return ["refused", "TransferRejected"]


TRACE = ("the first function of RouterLab's router logic your classes ran (None: all yours)")


def traced(probe: Probe) -> Probe:
    """The probe, run with the call trace on (build_trace.py), its last observation the first
    router-logic function the learner's code ran (the model's run is the model: none). A
    learner's code that fails after it let the model's router run is told which function."""

    @functools.wraps(probe)
    def run(sub: Subject) -> Observation:
        if sub.is_model:
            return [*probe(sub), (TRACE, None)]
        module = getattr(sub, "module", None)
        with watching(*([module] if isinstance(module, ModuleType) else [])) as watch:
            try:
                seen = probe(sub)
            except (CheckFailure, NotImplementedError):
                raise
            except Exception as error:
                if watch.first is None:
                    raise
                raise CheckFailure(
                    f"your code ran RouterLab's own {watch.first} and then failed "
                    f"({type(error).__name__}: {error}); this checkpoint asks you to write that "
                    "part yourself", got=watch.first, hint=1) from None
        return [*seen, (TRACE, watch.first)]

    return run


# --- build-1: HandleContainer (crates/burn-ir/src/handle.rs) -------------------------------------


class ModelHandles:
    """The model's `HandleContainer` (routerlab.core.router.handles) in the learner's signature,
    which is Burn's: `register_handle`, `get_handle`, ... and the vestigial `counter`
    (handle.rs:9, never increased at 2c06be3; `fork` copies it, handle.rs:31-34)."""

    def __init__(self) -> None:
        self.inner = HandleContainer()
        self.counter = 0

    def register_handle(self, id: TensorId, handle: Any) -> None:
        self.inner.register(id, handle)

    def has_handle(self, id: TensorId) -> bool:
        return self.inner.has_handle(id)

    def get_handle_ref(self, id: TensorId) -> Any:
        return self.inner.get_handle_ref(id)

    def get_handle(self, id: TensorId, status: Any) -> Any:
        return self.inner.get(id, status)

    def get_tensor_handle(self, tensor: TensorIr) -> Any:
        return self.inner.get_tensor_handle(tensor)

    def remove_handle(self, id: TensorId) -> Any:
        return self.inner.remove_handle(id)

    def free(self, tensor: TensorIr) -> None:
        self.inner.free(tensor)

    def num_handles(self) -> int:
        return self.inner.num_handles()

    def handle_ids(self) -> list[TensorId]:
        return list(self.inner.handle_ids())

    def fork(self) -> ModelHandles:
        fork = ModelHandles()
        fork.inner, fork.counter = self.inner.fork(), self.counter
        return fork


handles = Suite("build-1")
handles.model(HandleContainer=ModelHandles)


def _container(sub: Subject) -> Any:
    """A new, empty container of the subject's class."""
    made = sub.function("HandleContainer")()
    for method in ("register_handle", "has_handle", "get_handle_ref", "get_handle",
                   "get_tensor_handle", "remove_handle", "free", "num_handles", "handle_ids",
                   "fork"):
        if not callable(getattr(made, method, None)):
            raise CheckFailure(f"your HandleContainer has no method `{method}`; keep the names "
                               "the starter gives (Burn's, handle.rs)", hint=1)
    return made


def held(container: Any) -> list[Any]:
    """What a container holds, as the checks compare it: its ids in order with each handle, the
    number of handles, and the counter."""
    ids = sorted(int(i) for i in container.handle_ids())
    return [[[i, to_data(container.get_handle_ref(TensorId(i)))] for i in ids],
            to_data(container.num_handles()), to_data(getattr(container, "counter", None))]


def _ids(sub: Subject) -> tuple[TensorId, TensorId]:
    return TensorId(sub.param("tid")), TensorId(sub.param("other"))


@handles.visible("register, look and count: has_handle, get_handle_ref, num_handles, "
                 "handle_ids and the counter", hint=1)
@traced
def _(sub: Subject) -> Observation:
    c = _container(sub)
    tid, other = _ids(sub)
    seen: Observation = [("a new container holds (ids with handles, num_handles, counter)",
                          held(c))]
    c.register_handle(tid, f"a{int(tid)}")
    c.register_handle(other, f"b{int(other)}")
    seen.append((f"after registering {int(tid)} and {int(other)}", held(c)))
    c.register_handle(tid, f"c{int(tid)}")
    seen.append((f"after registering {int(tid)} again (Burn inserts: the new handle wins)",
                 held(c)))
    seen.append((f"has_handle({int(tid)}), has_handle({int(tid) + 20})",
                 [to_data(c.has_handle(tid)), to_data(c.has_handle(TensorId(int(tid) + 20)))]))
    seen.append((f"get_handle_ref({int(tid) + 20}) on an id never registered",
                 did(lambda: c.get_handle_ref(TensorId(int(tid) + 20)))))
    return seen


@handles.visible("get_handle: ReadOnly leaves the entry, ReadWrite takes it, a second "
                 "ReadWrite panics with Burn's text", hint=2)
@traced
def _(sub: Subject) -> Observation:
    c = _container(sub)
    tid, other = _ids(sub)
    c.register_handle(tid, f"a{int(tid)}")
    c.register_handle(other, f"b{int(other)}")
    seen: Observation = []
    for status in (READ_ONLY, READ_WRITE, READ_WRITE):
        seen.append((f"get_handle({int(tid)}, {status}), then the container",
                     [did(lambda s=status: c.get_handle(tid, s)), held(c)]))  # type: ignore[misc]
    return seen


@handles.visible("a NotInit status and a missing id panic with Burn's texts", hint=2)
@traced
def _(sub: Subject) -> Observation:
    tid, other = _ids(sub)
    c = _container(sub)
    c.register_handle(tid, "h")
    # Burn's remove_entry runs before both panics (handle.rs:94-110), and the panic ends the
    # session: the container after a panic is never observed.
    notinit = did(lambda: c.get_handle(tid, NOT_INIT))
    c = _container(sub)
    c.register_handle(tid, "h")
    return [(f"get_handle({int(tid)}, NotInit) on a registered id", notinit),
            (f"get_handle({int(other)}, ReadOnly) on an id never registered",
             did(lambda: c.get_handle(other, READ_ONLY)))]


@handles.visible("free and remove_handle: which status frees, what remove returns, and a fork "
                 "that never reaches its original", hint=2)
@traced
def _(sub: Subject) -> Observation:
    c = _container(sub)
    tid, other = _ids(sub)
    for i in (tid, other):
        c.register_handle(i, f"h{int(i)}")
    seen: Observation = []
    for status in (READ_ONLY, NOT_INIT, READ_WRITE):
        c.free(TensorIr(tid, (2,), status, DType.F32))
        seen.append((f"after free(the ir of {int(tid)}, {status})", held(c)))
    seen.append((f"remove_handle({int(other)}), remove_handle({int(other)}) again",
                 [did(lambda: c.remove_handle(other)), did(lambda: c.remove_handle(other))]))
    c.register_handle(tid, "kept")
    fork = c.fork()
    fork.register_handle(other, "fork only")
    fork.get_handle(tid, READ_WRITE)
    seen.append(("the fork after it registered one id and took another, then its original",
                 [held(fork), held(c)]))
    return seen


@handles.hidden("get_tensor_handle reads the ir's own status")
@traced
def _(sub: Subject) -> Observation:
    c = _container(sub)
    seen: Observation = []
    for id, status in ((4, READ_ONLY), (4, READ_WRITE), (7, READ_WRITE)):
        c.register_handle(TensorId(7), "seven")
        if id == 4 and status is READ_ONLY:
            c.register_handle(TensorId(4), "four")
        ir = TensorIr(TensorId(id), (3,), status, DType.F32)
        seen.append((f"get_tensor_handle(id {id}, {status}), then the container",
                     [did(lambda ir=ir: c.get_tensor_handle(ir)), held(c)]))  # type: ignore[misc]
    return seen


@handles.hidden("300 seeded random sequences of register, get, free, remove and fork")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(9311)
    seen: Observation = []
    for case in range(300):
        c = _container(sub)
        for step in range(rng.randint(1, 10)):
            tid = TensorId(rng.randrange(6))
            what = rng.choice(("register", "register", "ro", "ro", "rw", "free", "remove", "fork"))
            label = f"case {case}, step {step}: {what} {int(tid)}"
            if what == "register":
                c.register_handle(tid, f"v{case}.{step}")
                done: list[Any] = ["returned", None]
            elif what in ("ro", "rw"):
                done = did(lambda c=c, t=tid, s=(READ_ONLY if what == "ro"  # type: ignore[misc]
                                                     else READ_WRITE): c.get_handle(t, s))
            elif what == "free":
                status = rng.choice((READ_ONLY, READ_WRITE, NOT_INIT))
                label += f" ({status})"
                done = did(lambda c=c, t=tid, s=status:  # type: ignore[misc]
                           c.free(TensorIr(t, (1,), s, DType.F32)))
            elif what == "remove":
                done = did(lambda c=c, t=tid: c.remove_handle(t))  # type: ignore[misc]
            else:
                c = c.fork()
                done = ["returned", None]
            seen.append((label, [done, held(c)]))
            if done[0] == "panics":
                break  # a panic ends the session (handle.rs:97)
    return seen


# --- build-2: RouterTensor (crates/burn-router/src/tensor.rs) ------------------------------------


class Wire:
    """The client a tensor talks to, reduced to what a tensor needs from one: it records every
    op a tensor registers (`RouterClient::register_op`), in order. The model's tensor also asks
    it whether its session is alive and whether a step is open (it never is here)."""

    device = "cpu:0"

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.session = self
        self.journal = self
        self.active = False

    def register_op(self, op: Any) -> None:
        self.sent.append(op)

    def check_alive(self) -> None:
        """The model's session check: a test session never ends."""

    def sync(self) -> None:
        """The model runs its sessions here; a test wire has none."""


class ModelTensor(RouterTensor):
    """The model's `RouterTensor` in the learner's signature: the model builds an op's output ir
    in its client (`TensorIr.uninit`), Burn on the tensor (`to_ir_out`, tensor.rs:89-96)."""

    __slots__ = ()

    def to_ir_out(self) -> TensorIr:
        return TensorIr.uninit(self.id, self.shape, self.dtype)


def model_tensor(id: TensorId, shape: tuple[int, ...], dtype: Any, client: Any) -> RouterTensor:
    """The model's `RouterTensor::new` in the learner's signature."""
    return ModelTensor(id, shape, dtype, client)


tensors = Suite("build-2")
tensors.model(RouterTensor=model_tensor)


def op_data(op: Any) -> list[Any]:
    """One registered op as data: its kind and the ir it carries."""
    ir = getattr(op, "tensor", None)
    if not isinstance(ir, TensorIr):
        return [type(op).__name__, {"object": repr(op)[:80]}]
    return [type(op).__name__, ir_data(ir)]


def ir_data(ir: Any) -> Any:
    if not isinstance(ir, TensorIr):
        return {"object": f"{type(ir).__name__}: {repr(ir)[:80]}"}
    return [int(ir.id), str(ir.status), [int(d) for d in ir.shape], str(ir.dtype)]


def sent(wire: Wire) -> list[Any]:
    """The ops the wire received so far, as data, and forgets them."""
    ops = [op_data(op) for op in wire.sent]
    wire.sent.clear()
    return ops


def _new(sub: Subject, wire: Wire, shape: tuple[int, ...] = (2, 3), tid: int | None = None
         ) -> Any:
    """A new tensor of the subject's class: the variant's id, or `tid` (a hidden check's, the
    same for everyone)."""
    id = TensorId(sub.param("tid") if tid is None else tid)
    made = sub.function("RouterTensor")(id, shape, DType.F32, wire)
    for method in ("clone", "into_ir", "to_ir_out", "drop", "can_mut"):
        if not callable(getattr(made, method, None)):
            raise CheckFailure(f"your RouterTensor has no method `{method}`; keep the names the "
                               "starter gives", hint=1)
    return made


def count(tensor: Any) -> Any:
    return to_data(tensor.count)


@tensors.visible("clones share one count: a clone sends nothing, and the status of each use "
                 "follows the count", hint=2)
@traced
def _(sub: Subject) -> Observation:
    wire = Wire()
    x = _new(sub, wire)
    seen: Observation = [("a new tensor: count, can_mut", [count(x), to_data(x.can_mut())])]
    copies = [x.clone() for _ in range(sub.param("clones"))]
    seen.append((f"after {len(copies)} clones: count of the first and of the last clone, "
                 "can_mut, ops sent", [count(x), count(copies[-1]), to_data(x.can_mut()),
                                       sent(wire)]))
    for n, ref in enumerate([x, *copies]):
        seen.append((f"use {n + 1} (into_ir): the ir, the count left, ops sent",
                     [ir_data(ref.into_ir()), count(copies[-1]) if ref is not copies[-1]
                      else "consumed", sent(wire)]))
    return seen


@tensors.visible("Drop: only the last reference sends Drop(ReadWrite), with the tensor's "
                 "shape", hint=2)
@traced
def _(sub: Subject) -> Observation:
    wire = Wire()
    x = _new(sub, wire, (sub.param("rows"), 4))
    y = x.clone()
    seen: Observation = []
    x.drop()
    seen.append(("drop one of two references: count left, ops sent", [count(y), sent(wire)]))
    y.drop()
    seen.append(("drop the last reference: ops sent", sent(wire)))
    return seen


@tensors.visible("an op's output is NotInit; a consumed or dropped reference is refused", hint=2)
@traced
def _(sub: Subject) -> Observation:
    wire = Wire()
    x = _new(sub, wire)
    seen: Observation = [("to_ir_out() of a new tensor, count after", [ir_data(x.to_ir_out()),
                                                                        count(x)])]
    x.into_ir()
    seen.append(("into_ir() of the same reference again", did(x.into_ir)))
    y = _new(sub, wire)
    y.drop()
    seen.append(("clone() and drop() of a dropped reference", [did(y.clone), did(y.drop)]))
    seen.append(("ops sent", sent(wire)))
    return seen


@tensors.hidden("a last use never also sends Drop: into_ir(ReadWrite) and the drop that follows "
                "it cancel out")
@traced
def _(sub: Subject) -> Observation:
    wire = Wire()
    x = _new(sub, wire, tid=11)
    y = x.clone()
    seen: Observation = [("the first use of two: ir, count", [ir_data(y.into_ir()), count(x)])]
    seen.append(("the last use: ir, ops sent", [ir_data(x.into_ir()), sent(wire)]))
    return seen


@tensors.hidden("200 seeded random lives of a tensor and its clones")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(8123)
    seen: Observation = []
    for case in range(200):
        wire = Wire()
        live = [_new(sub, wire, (rng.randint(1, 4),), tid=case % 13)]
        for step in range(rng.randint(1, 9)):
            if not live:
                break
            ref = live.pop(rng.randrange(len(live)))
            what = rng.choice(("clone", "clone", "use", "drop"))
            if what == "clone":
                live += [ref, ref.clone()]
                done = [count(ref)]
            elif what == "use":
                done = [ir_data(ref.into_ir())]
            else:
                ref.drop()
                done = []
            seen.append((f"case {case}, step {step}: {what}",
                         [*done, [count(r) for r in live], sent(wire)]))
    return seen


# --- build-3: TensorInterpreter's same-peer arms and the rendezvous ------------------------------
# crates/burn-router/src/interpreter.rs:88-127, crates/burn-remote/src/server/local_comm.rs:14-79,
# crates/burn-remote/src/server/worker.rs:280-310


class _ModelContainer(HandleContainer):
    """The model's registry, with the one method name the probes use to put a handle in."""

    __slots__ = ()
    register_handle = HandleContainer.register


class ModelInterpreter(TensorInterpreter):
    """The model's interpreter in the learner's signature: one backend, the model's quantized
    arms (`routerlab.core.fix.arms`, RouterLab's fix of Burn's two `todo!()`s) under `native`."""

    container = _ModelContainer

    def __init__(self, backend: Backend) -> None:
        super().__init__(backend, quantized=QuantizedTransfers())


class ModelLocalComm:
    """The model's same-peer rendezvous (routerlab.core.router.server: `expose_local`,
    `take_local`, run by the sessions) in the learner's signature. In one thread, a target that
    arrives first cannot wait: its registration is parked, and the expose completes it."""

    def __init__(self) -> None:
        self.exposed: dict[int, HandleKind] = {}
        self.waiting: dict[int, tuple[Any, TensorId]] = {}

    def expose_tensor_local(self, source: Any, tensor: TensorIr, transfer_id: int) -> None:
        kind = source.get_tensor(tensor)
        if transfer_id in self.waiting:
            target, new_id = self.waiting.pop(transfer_id)
            target.register_tensor_to_device(new_id, kind)
        else:
            self.exposed[transfer_id] = kind

    def register_tensor_local(self, target: Any, transfer_id: int, new_id: TensorId) -> None:
        if transfer_id in self.exposed:
            target.register_tensor_to_device(new_id, self.exposed.pop(transfer_id))
        else:
            self.waiting[transfer_id] = (target, new_id)

    def pending(self) -> int:
        return len(self.exposed) + len(self.waiting)


arms = Suite("build-3")
arms.model(TensorInterpreter=ModelInterpreter, LocalComm=ModelLocalComm)


@dataclass
class Bench:
    """Interpreters of the subject's class, by device name."""

    interps: dict[str, Any]


def bench(sub: Subject, *devices: str) -> Bench:
    cls = sub.function("TensorInterpreter")
    made = Bench({})
    for name in devices:
        interp = cls(make_backend(parse_device(name)))
        for field in ("backend", "handles", "get_tensor", "register_tensor_to_device"):
            if getattr(interp, field, None) is None:
                raise CheckFailure(f"your TensorInterpreter has no `{field}`; keep the names the "
                                   "starter gives", hint=1)
        made.interps[name] = interp
    return made


def registry(b: Bench, name: str) -> list[int]:
    return sorted(int(i) for i in b.interps[name].handles.handle_ids())


def copied(b: Bench, name: str) -> list[int]:
    backend = b.interps[name].backend
    return [backend.copies, backend.bytes_copied]


def arrived(b: Bench, name: str, id: int) -> Any:
    """What the target holds under `id`, as data: a plain tensor's values, dtype and device, a
    quantized one's stored words, scales, global, scheme and device."""
    handle = b.interps[name].handles.get_handle_ref(TensorId(id))
    if isinstance(handle, QPrimitive):
        t = handle.tensor
        return [t.values.tolist(), t.scales.tolist(),
                None if t.global_scale is None else float(t.global_scale), str(t.scheme),
                str(handle.device)]
    if isinstance(handle, Primitive):
        return [handle.array.tolist(), str(handle.dtype), str(handle.device)]
    return {"object": repr(handle)[:80]}


def put(b: Bench, name: str, id: int, handle: Any) -> None:
    b.interps[name].handles.register_handle(TensorId(id), handle)


def move(b: Bench, source: str, target: str, ir: TensorIr, new_id: int) -> list[Any]:
    """interpreter.rs's two halves of a same-peer move: the source's get_tensor, the target's
    register_tensor_to_device; what the kind in transit was."""
    kind = b.interps[source].get_tensor(ir)
    name = kind.kind.value if isinstance(kind, HandleKind) else {"object": repr(kind)[:80]}
    b.interps[target].register_tensor_to_device(TensorId(new_id), kind)
    return [name]


def plain(values: Any, dtype: DType, device: str) -> Primitive:
    return Primitive(np.asarray(values, dtype=dtype.numpy), dtype, parse_device(device))


def quantized(values: Any, scheme: str, device: str) -> QPrimitive:
    """A tensor quantized by the model's kernels on `device` (the flex profile)."""
    tensor = quantize_dynamic(np.asarray(values, dtype=np.float32), scheme)
    return QPrimitive(tensor, parse_device(device))


def moves_of(b: Bench, handle: Any, dtype: Any, first: int) -> Observation:
    """A shared use (ReadOnly, copied) and then the last use (ReadWrite, moved) of `handle`,
    registered on cpu:0 under `first`, to cpu:1."""
    put(b, "cpu:0", first, handle)
    shape = tuple(handle.shape)
    seen: Observation = []
    for status, new_id in ((READ_ONLY, first + 1), (READ_WRITE, first + 2)):
        kind = move(b, "cpu:0", "cpu:1", TensorIr(TensorId(first), shape, status, dtype), new_id)
        seen.append((f"{status} use moved as {new_id}: kind in transit, ids on (cpu:0, cpu:1), "
                     "(copies, bytes) on cpu:1, what arrived",
                     [kind, registry(b, "cpu:0"), registry(b, "cpu:1"), copied(b, "cpu:1"),
                      arrived(b, "cpu:1", new_id)]))
    return seen


@arms.visible("the float, int and bool arms: a shared use is copied, the last use moves", hint=2)
@traced
def _(sub: Subject) -> Observation:
    b = bench(sub, "cpu:0", "cpu:1")
    x = [float(v) for v in sub.param("x")]
    seen: Observation = []
    for n, (values, dtype) in enumerate(((x, DType.F32), ([int(v * 10) for v in x], DType.I32),
                                         ([v > 0 for v in x], DType.BOOL))):
        handle = plain(values, dtype, "cpu:0")
        seen += [(f"{dtype}: {label}", value)
                 for label, value in moves_of(b, handle, dtype, 10 * n + sub.param("tid"))]
    return seen


@arms.visible("the quantized arm Burn leaves as todo!(): values, scales and global arrive, "
              "bit for bit, and the source keeps its own", hint=2)
@traced
def _(sub: Subject) -> Observation:
    b = bench(sub, "cpu:0", "cpu:1")
    q = quantized(sub.param("x"), sub.param("scheme"), "cpu:0")
    seen = moves_of(b, q, q.dtype, sub.param("tid"))
    put(b, "cpu:0", 40, q)
    copy = b.interps["cpu:1"].handles.get_handle_ref(TensorId(sub.param("tid") + 1))
    seen.append(("the copy on cpu:1 shares no memory with the source's values or scales",
                 isinstance(copy, QPrimitive)
                 and not np.shares_memory(copy.tensor.values, q.tensor.values)
                 and not np.shares_memory(copy.tensor.scales, q.tensor.scales)))
    return seen


@arms.visible("a move onto the device the tensor is already on copies nothing", hint=2)
@traced
def _(sub: Subject) -> Observation:
    again = bench(sub, "cpu:0")
    q = quantized(sub.param("x"), sub.param("scheme"), "cpu:0")
    f = plain([float(v) for v in sub.param("x")], DType.F32, "cpu:0")
    seen: Observation = []
    for label, handle in (("quantized", q), ("f32", f)):
        kind = HandleKind(Kind.QUANTIZED if handle is q else Kind.FLOAT, handle)
        again.interps["cpu:0"].register_tensor_to_device(TensorId(7), kind)
        held_now = again.interps["cpu:0"].handles.get_handle_ref(TensorId(7))
        seen.append((f"{label}: registered as it is (the same object), (copies, bytes)",
                     [held_now is handle, copied(again, "cpu:0")]))
    return seen


@arms.visible("the rendezvous: the source may expose first, or the target may arrive first",
              hint=2)
@traced
def _(sub: Subject) -> Observation:
    b = bench(sub, "cpu:0", "cpu:1")
    comm = sub.function("LocalComm")()
    tid = sub.param("tid")
    put(b, "cpu:0", tid, plain([1.0, 2.0], DType.F32, "cpu:0"))
    put(b, "cpu:0", tid + 1, plain([3.0, 4.0], DType.F32, "cpu:0"))
    src, dst = b.interps["cpu:0"], b.interps["cpu:1"]
    ir = TensorIr(TensorId(tid), (2,), READ_WRITE, DType.F32)
    ir2 = TensorIr(TensorId(tid + 1), (2,), READ_WRITE, DType.F32)
    seen: Observation = []
    steps: list[tuple[str, Call]] = [
        ("transfer 1: the source exposes", lambda: comm.expose_tensor_local(src, ir, 1)),
        ("transfer 1: the target takes it as 20",
         lambda: comm.register_tensor_local(dst, 1, TensorId(20))),
        ("transfer 2: the target arrives first, as 21",
         lambda: comm.register_tensor_local(dst, 2, TensorId(21))),
        ("transfer 2: the source exposes", lambda: comm.expose_tensor_local(src, ir2, 2)),
    ]
    for label, step in steps:
        step()
        seen.append((f"{label}: pending, ids on (cpu:0, cpu:1)",
                     [to_data(comm.pending()), registry(b, "cpu:0"), registry(b, "cpu:1")]))
    seen.append(("what arrived as 20 and 21", [arrived(b, "cpu:1", 20), arrived(b, "cpu:1", 21)]))
    return seen


@arms.hidden("seeded random tensors, dtypes and schemes moved along cpu:0 -> cpu:1 -> cpu:2")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(2160)
    seen: Observation = []
    for case in range(12):
        b = bench(sub, "cpu:0", "cpu:1", "cpu:2")
        x = np.random.default_rng(case).normal(size=(2, 8)).astype(np.float32)
        pick = case % 4
        if pick == 3:
            scheme = rng.choice(("q8s", "q8f", "q4s", "q2s")) + rng.choice((
                "", ":block=4", ":block=8:scale=f16", ":block=4:scale=ue4m3:global=f32"))
            handle: Any = quantized(x, scheme, "cpu:0")
        else:
            dtype = (DType.F32, DType.I64, DType.BOOL)[pick]
            data = x if pick == 0 else (x * 100).astype(np.int64) if pick == 1 else x > 0
            handle = Primitive(np.asarray(data, dtype=dtype.numpy), dtype, parse_device("cpu:0"))
        put(b, "cpu:0", 1, handle)
        dtype_of = handle.dtype
        shape = tuple(handle.shape)
        steps = (("cpu:0", "cpu:1", 1, 2, READ_ONLY), ("cpu:0", "cpu:1", 1, 3, READ_WRITE),
                 ("cpu:1", "cpu:2", 3, 4, READ_WRITE), ("cpu:1", "cpu:2", 2, 5, READ_ONLY))
        for source, target, id, new_id, status in steps:
            kind = move(b, source, target, TensorIr(TensorId(id), shape, status, dtype_of),
                        new_id)
            seen.append((f"case {case} ({dtype_of}): {id} on {source} -> {new_id} on {target} "
                         f"({status})", [kind, [registry(b, d) for d in b.interps],
                                         [copied(b, d) for d in b.interps],
                                         arrived(b, target, new_id)]))
        kept = b.interps["cpu:2"].handles.get_handle_ref(TensorId(5))
        seen.append((f"case {case}: what arrived on cpu:2 shares memory with the original",
                     _shares(kept, handle)))
        move(b, "cpu:2", "cpu:2", TensorIr(TensorId(5), shape, READ_ONLY, dtype_of), 6)
        again = b.interps["cpu:2"].handles.get_handle_ref(TensorId(6))
        seen.append((f"case {case}: 5 moved onto its own device as 6: the same object, "
                     "(copies, bytes) on cpu:2", [again is kept, copied(b, "cpu:2")]))
        seen.append((f"case {case}: a ReadWrite use of 1 on cpu:0 once it moved",
                     did(lambda: b.interps["cpu:0"].get_tensor(  # noqa: B023
                         TensorIr(TensorId(1), shape, READ_WRITE, dtype_of)))))  # noqa: B023
    return seen


def _shares(one: Any, other: Any) -> bool:
    """Whether two handles share any memory (values, or a quantized tensor's scales)."""
    if isinstance(one, QPrimitive) and isinstance(other, QPrimitive):
        return bool(np.shares_memory(one.tensor.values, other.tensor.values)
                    or np.shares_memory(one.tensor.scales, other.tensor.scales))
    if isinstance(one, Primitive) and isinstance(other, Primitive):
        return bool(np.shares_memory(one.array, other.array))
    return True


@arms.hidden("the rendezvous under many interleavings")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(306)
    seen: Observation = []
    for case in range(20):
        b = bench(sub, "cpu:0", "cpu:1")
        comm = sub.function("LocalComm")()
        src, dst = b.interps["cpu:0"], b.interps["cpu:1"]
        events = []
        for t in range(1, 4):
            put(b, "cpu:0", t, plain([float(t)], DType.F32, "cpu:0"))
            events += [("expose", t), ("register", t)]
        rng.shuffle(events)
        for what, t in events:
            if what == "expose":
                ir = TensorIr(TensorId(t), (1,), READ_WRITE, DType.F32)
                comm.expose_tensor_local(src, ir, t)
            else:
                comm.register_tensor_local(dst, t, TensorId(10 + t))
            seen.append((f"case {case}: {what} {t}: pending, ids on (cpu:0, cpu:1)",
                         [to_data(comm.pending()), registry(b, "cpu:0"),
                          registry(b, "cpu:1")]))
        seen.append((f"case {case}: arrived", [arrived(b, "cpu:1", 10 + t) for t in (1, 2, 3)]))
    return seen


# --- build-4: the bytes path across peers ---------------------------------------------------------
# crates/burn-router/src/interpreter.rs:162-178 (register_tensor_data_id), 2139-2176
# (read_tensor_async, todo!() for QFloat); the canonical layout: crates/burn-std/src/tensor/
# quantization.rs:198-360 (QuantizedBytes), docs/burn.md section 14.

bytes_path = Suite("build-4")
bytes_path.model(TensorInterpreter=ModelInterpreter)

PEERS = ("cpu:0", "peer2/cpu:0")
"""A device on this peer and one on another: only bytes cross between them."""


def _bytes_bench(sub: Subject) -> Bench:
    b = bench(sub, *PEERS)
    for name, interp in b.interps.items():
        for method in ("read_tensor", "register_tensor_data"):
            if not callable(getattr(interp, method, None)):
                raise CheckFailure(f"your TensorInterpreter on {name} has no `{method}`; keep "
                                   "the names the starter gives", hint=1)
    return b


def data_of(data: Any) -> Any:
    """Bytes in transit as the checks compare them: every byte, the shape and the dtype."""
    if not isinstance(data, TensorData):
        return {"object": f"{type(data).__name__}: {repr(data)[:80]}"}
    return [list(bytes(data.bytes)), [int(d) for d in data.shape], str(data.dtype)]


def across(b: Bench, handle: Any, dtype: Any, first: int) -> Observation:
    """A shared and then the last use of `handle` (registered on this peer's cpu:0 under
    `first`) read back to bytes and registered on the other peer."""
    source, target = PEERS
    put(b, source, first, handle)
    shape = tuple(handle.shape)
    seen: Observation = []
    for status, new_id in ((READ_ONLY, first + 1), (READ_WRITE, first + 2)):
        data = b.interps[source].read_tensor(TensorIr(TensorId(first), shape, status, dtype))
        seen.append((f"{status} use read back: the bytes, shape and dtype", data_of(data)))
        b.interps[target].register_tensor_data(TensorId(new_id), data)
        seen.append((f"registered on the other peer as {new_id}: ids on (this peer, the other), "
                     "(copies, bytes) on each, what arrived",
                     [registry(b, source), registry(b, target), copied(b, source),
                      copied(b, target), arrived(b, target, new_id)]))
    return seen


@bytes_path.visible("a plain tensor crosses as bytes: f32, i32 and bool", hint=2)
@traced
def _(sub: Subject) -> Observation:
    b = _bytes_bench(sub)
    x = [float(v) for v in sub.param("x")]
    seen: Observation = []
    for n, (values, dtype) in enumerate(((x, DType.F32), ([int(v * 10) for v in x], DType.I32),
                                         ([v > 0 for v in x], DType.BOOL))):
        seen += [(f"{dtype}: {label}", value) for label, value in
                 across(b, plain(values, dtype, PEERS[0]), dtype, 10 * n + sub.param("tid"))]
    return seen


@bytes_path.visible("a quantized tensor crosses in the canonical layout: values, scales in "
                    "their own dtype, the global scale", hint=2)
@traced
def _(sub: Subject) -> Observation:
    b = _bytes_bench(sub)
    q = quantized(sub.param("x"), sub.param("scheme"), PEERS[0])
    seen = across(b, q, q.dtype, sub.param("tid"))
    copy = b.interps[PEERS[1]].handles.get_handle_ref(TensorId(sub.param("tid") + 2))
    seen.append(("what arrived is bit-identical to what left, and owns its memory",
                 isinstance(copy, QPrimitive) and copy.tensor.bit_equal(q.tensor)
                 and not _shares(copy, q)))
    return seen


@bytes_path.hidden("seeded random tensors and schemes across peers, and back")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(2176)
    seen: Observation = []
    for case in range(16):
        b = _bytes_bench(sub)
        shape = rng.choice(((16,), (2, 8), (4, 4), (2, 2, 4)))
        x = np.random.default_rng(case).normal(size=shape).astype(np.float32)
        if case % 4:
            scheme = rng.choice(("q8s", "q8f", "q4s", "q4f", "q2s")) + rng.choice((
                "", ":block=4", ":block=8:scale=f16", ":block=4:scale=bf16",
                ":block=4:scale=ue4m3:global=f32", ":block=8:scale=ue8m0"))
            handle: Any = quantized(x, scheme, PEERS[0])
        else:
            handle = plain((x * 50).astype(np.int64), DType.I64, PEERS[0])
        seen += [(f"case {case} ({handle.dtype}): {label}", value)
                 for label, value in across(b, handle, handle.dtype, 1)]
        back = b.interps[PEERS[1]].read_tensor(TensorIr(TensorId(3), tuple(handle.shape),
                                                        READ_WRITE, handle.dtype))
        b.interps[PEERS[0]].register_tensor_data(TensorId(9), back)
        seen.append((f"case {case}: back on this peer as 9: ids, copies, what arrived",
                     [registry(b, PEERS[0]), registry(b, PEERS[1]), copied(b, PEERS[0]),
                      copied(b, PEERS[1]), arrived(b, PEERS[0], 9)]))
    return seen


# --- build-5: the guard and the five transfer policies --------------------------------------------
# crates/burn-router/src/interpreter.rs:88-127 (the walls legacy replays), docs/transfers.md
# (native, dequantize, requantize, reject); routerlab.core.fix.guard and fix.arms are the model.

POLICIES = ("native", "dequantize", "requantize", "reject", "legacy")


def model_move(policy: str, source: Backend, target: Backend, q: QPrimitive) -> QPrimitive:
    """The model's same-peer move of a quantized tensor under `policy`, in the learner's
    signature: the guard first (reject refuses; legacy meets Burn's `todo!()` in the source's
    `get_tensor`, interpreter.rs:98), then the policy's carrier from source to target."""
    chosen = Policy.parse(policy)
    if not model_can_move(q.dtype, chosen):
        if chosen is Policy.LEGACY:
            raise BurnTodo("crates/burn-router/src/interpreter.rs:98",
                           f"Local transfer of QFloat({scheme_debug(q.scheme)}) tensors is not "
                           "supported yet")
        raise TransferRejected(f"policy {policy!r} refuses to move a quantized tensor")
    carrier = carrier_for(chosen)
    return carrier.put(target, carrier.take(source, q))


policies = Suite("build-5")
policies.model(can_move_to_device=model_can_move, move_quantized=model_move)

KINDS = (DType.F32, DType.I32, DType.U8, DType.BOOL)


def move_report(sub: Subject, policy: str, x: Any, scheme: str) -> Observation:
    """One quantized tensor moved from cpu:0 to cpu:1 under `policy` by the subject: what the
    call did (a refusal, Burn's panic text), the copies each backend counted, what arrived and
    whether it is the source, bit for bit."""
    source, target = (make_backend(parse_device(d)) for d in ("cpu:0", "cpu:1"))
    q = quantized(x, scheme, "cpu:0")
    box: list[Any] = []
    out = did(lambda: box.append(sub.function("move_quantized")(policy, source, target, q)))
    if out[0] != "returned":
        return [(f"{policy}: the move", out),
                (f"{policy}: (copies, bytes) on cpu:0 and cpu:1 after it",
                 [[source.copies, source.bytes_copied], [target.copies, target.bytes_copied]])]
    got = box[0]
    if not isinstance(got, QPrimitive):
        return [(f"{policy}: the move returned", {"object": repr(got)[:80]})]
    t = got.tensor
    return [(f"{policy}: arrived: values, scales, global, scheme, device",
             [t.values.tolist(), t.scales.tolist(),
              None if t.global_scale is None else float(t.global_scale), str(t.scheme),
              str(got.device)]),
            (f"{policy}: (copies, bytes) on cpu:0 and cpu:1",
             [[source.copies, source.bytes_copied], [target.copies, target.bytes_copied]]),
            (f"{policy}: bit-identical to the source, sharing no memory with it",
             [t.bit_equal(q.tensor), _shares(got, q)])]


@policies.visible("the guard: which kinds move under which policy", hint=1)
@traced
def _(sub: Subject) -> Observation:
    can = sub.function("can_move_to_device")
    q = quantized(sub.param("x"), sub.param("scheme"), "cpu:0")
    return [(f"can_move_to_device({dtype}, {policy!r})", did(lambda d=dtype, p=policy: can(d, p)))  # type: ignore[misc]
            for dtype in (*KINDS, q.dtype) for policy in POLICIES]


@policies.visible("native, dequantize and requantize: what arrives, and what each costs", hint=2)
@traced
def _(sub: Subject) -> Observation:
    return [item for policy in POLICIES[:3]
            for item in move_report(sub, policy, sub.param("x"), sub.param("scheme"))]


@policies.visible("reject refuses before anything is copied; legacy meets Burn's todo!()",
                  hint=2)
@traced
def _(sub: Subject) -> Observation:
    return [item for policy in POLICIES[3:]
            for item in move_report(sub, policy, sub.param("x"), sub.param("scheme"))]


@policies.hidden("seeded random tensors and schemes under every policy")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(5678)
    seen: Observation = []
    for case in range(10):
        shape = rng.choice(((16,), (2, 8), (4, 4)))
        x = np.random.default_rng(case).normal(size=shape).astype(np.float32)
        scheme = rng.choice(("q8s", "q8f", "q4s", "q4f", "q2s")) + rng.choice((
            "", ":block=4", ":block=8:scale=f16", ":block=4:scale=ue4m3:global=f32"))
        seen += [(f"case {case} ({scheme}): {label}", value) for policy in POLICIES
                 for label, value in move_report(sub, policy, x, scheme)]
    return seen


# --- build-6: RouterClient ------------------------------------------------------------------------
# crates/burn-router/src/client/base.rs:20-60 (register_op, register, create_empty_handle,
# register_tensor_data), crates/burn-router/src/ops/tensor.rs:20-31 (float_from_data)


class Fifo:
    """A device session as a client sees it: a FIFO it submits to (what reaches it is recorded,
    in order) on one device. The model's client also asks it whether it is alive."""

    def __init__(self, device: str) -> None:
        self.device = parse_device(device)
        self.ops: list[Any] = []
        self.journal = self
        self.active = False

    def submit(self, op: Any, reply: Any = None) -> None:
        self.ops.append(op)

    def check_alive(self) -> None:
        """A test session never ends."""

    def run(self) -> None:
        """The model's server runs its sessions here; a test FIFO runs nothing."""


def model_client(session: Fifo, new_id: Callable[[], TensorId]) -> RouterClient:
    """The model's `RouterClient` in the learner's signature (the FIFO is its own server)."""
    return RouterClient(session, session, new_id)  # type: ignore[arg-type]


def model_from_data(client: RouterClient, data: TensorData) -> RouterTensor:
    """`float_from_data` (ops/tensor.rs:20-31): the model's client sends the Init itself."""
    return client.register_tensor_data(data)


clients = Suite("build-6")
clients.model(RouterClient=model_client, float_from_data=model_from_data)


def fifo_data(session: Fifo) -> list[Any]:
    """What reached a session since the last look, in order: each op's kind and its irs."""
    ops = [[type(op).__name__, [ir_data(ir) for ir in (*op.inputs(), *op.outputs())]]
           for op in session.ops]
    session.ops.clear()
    return ops


def counter(start: int) -> Callable[[], TensorId]:
    """One id counter, as the runtime hands every client the same one."""
    next_id = iter(range(start, start + 10_000))
    return lambda: TensorId(next(next_id))


def tensor_data(t: Any) -> list[Any]:
    return [int(t.id), [int(d) for d in t.shape], str(t.dtype), count(t)]


def _clients(sub: Subject, devices: tuple[str, ...], start: int) -> dict[str, Any]:
    new_id = counter(start)
    made = {d: sub.function("RouterClient")(Fifo(d), new_id) for d in devices}
    for client in made.values():
        for method in ("register_op", "register", "create_empty_handle", "register_tensor_data"):
            if not callable(getattr(client, method, None)):
                raise CheckFailure(f"your RouterClient has no method `{method}`; keep the names "
                                   "the starter gives", hint=1)
    return made


def upload(sub: Subject, client: Any, values: list[float]) -> Any:
    data = TensorData.from_array(np.asarray(values, dtype=np.float32))
    return sub.function("float_from_data")(client, data)


@clients.visible("ids come from one counter for every device; float_from_data registers the "
                 "data, then Init", hint=2)
@traced
def _(sub: Subject) -> Observation:
    c = _clients(sub, ("cpu:0", "cpu:1"), sub.param("start"))
    seen: Observation = []
    for n, device in enumerate(("cpu:0", "cpu:1", "cpu:0")):
        t = upload(sub, c[device], [float(n), 1.0, 2.0])
        seen.append((f"float_from_data on {device}: the tensor (id, shape, dtype, count), what "
                     "reached cpu:0's and cpu:1's FIFO",
                     [tensor_data(t), fifo_data(c["cpu:0"].session),
                      fifo_data(c["cpu:1"].session)]))
    return seen


@clients.visible("register: one new tensor per output, then the op reaches the FIFO", hint=2)
@traced
def _(sub: Subject) -> Observation:
    c = _clients(sub, ("cpu:0",), sub.param("start"))["cpu:0"]
    x = upload(sub, c, [1.0, 2.0])
    fifo_data(c.session)
    keep = x.clone()
    out = TensorIr.uninit(c.create_empty_handle(), (2,), DType.F32)
    made = c.register(AddOp(keep.into_ir(), x.into_ir(), out))
    return [("register(add(x.clone(), x)): the tensors it returned", [tensor_data(t)
                                                                      for t in made]),
            ("what reached the FIFO", fifo_data(c.session))]


@clients.visible("the last Drop reaches the FIFO after every op before it", hint=2)
@traced
def _(sub: Subject) -> Observation:
    c = _clients(sub, ("cpu:0",), sub.param("start"))["cpu:0"]
    x = upload(sub, c, [1.0])
    y = x.clone()
    x.drop()
    z = upload(sub, c, [2.0])
    y.drop()
    z.drop()
    return [("what reached the FIFO, in order", fifo_data(c.session))]


@clients.hidden("seeded random uploads, adds and drops on three devices")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(3010)
    seen: Observation = []
    for case in range(30):
        devices = ("cpu:0", "cpu:1", "cpu:2")
        c = _clients(sub, devices, case)
        live: list[tuple[str, Any]] = []
        for step in range(rng.randint(2, 8)):
            device = rng.choice(devices)
            mine = [t for d, t in live if d == device]
            what = rng.choice(("upload", "upload", "add", "drop")) if mine else "upload"
            if what == "upload":
                live.append((device, upload(sub, c[device], [float(step)] * 3)))
                result: Any = tensor_data(live[-1][1])
            elif what == "add":
                lhs = mine[0]
                rhs = lhs.clone()
                out = TensorIr.uninit(c[device].create_empty_handle(), (3,), DType.F32)
                (made,) = c[device].register(AddOp(rhs.into_ir(), lhs.into_ir(), out))
                live = [(d, t) for d, t in live if t is not lhs] + [(device, made)]
                result = tensor_data(made)
            else:
                victim = mine[0]
                victim.drop()
                live = [(d, t) for d, t in live if t is not victim]
                result = None
            seen.append((f"case {case}, step {step}: {what} on {device}",
                         [result, [fifo_data(c[d].session) for d in devices]]))
    return seen
