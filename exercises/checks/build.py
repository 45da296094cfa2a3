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

import random
from collections.abc import Callable
from typing import Any

from ...core import (
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    BurnPanic,
    DType,
    HandleContainer,
    RouterTensor,
    TensorId,
    TensorIr,
    UseAfterDropError,
)
from .base import CheckFailure, Observation, Subject, Suite, to_data

Call = Callable[[], Any]


def did(call: Call) -> list[Any]:
    """What one call did: ["returned", value], or ["panics", Burn's text] for a Burn panic
    (the class the learner raised is not compared: Burn has one `panic!`, the text is what a
    user reads), or ["refused", "use after drop"] for the model's stand-in of Rust's borrow
    checker. Anything else is the learner's code failing, and propagates."""
    try:
        return ["returned", to_data(call())]
    except NotImplementedError:
        raise
    except BurnPanic as error:
        return ["panics", error.message]
    except UseAfterDropError:
        return ["refused", "use after drop"]


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
def _(sub: Subject) -> Observation:
    wire = Wire()
    x = _new(sub, wire, tid=11)
    y = x.clone()
    seen: Observation = [("the first use of two: ir, count", [ir_data(y.into_ir()), count(x)])]
    seen.append(("the last use: ir, ops sent", [ir_data(x.into_ir()), sent(wire)]))
    return seen


@tensors.hidden("200 seeded random lives of a tensor and its clones")
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
