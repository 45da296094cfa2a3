"""Checks of the client-side lifecycle exercises: clone counts, into_ir, Drop
(crates/burn-router/src/tensor.rs:67-150; docs/exercises.md).

lifecycle-1 gives the tensors of a real runtime the student's three functions (an instance-level
subclass of `RouterTensor`, set on each tensor the probe holds; no core module is touched), then
runs client programs: the Drop ops those programs send and the registries they leave are
compared with the same programs on the model's own `RouterTensor`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ...core import READ_WRITE, DropOp, RouterTensor, Runtime, TensorIr, TensorStatus
from ...core import status_for as model_status_for
from .base import (
    CheckFailure,
    Observation,
    Part,
    PredictSuite,
    Subject,
    Suite,
)
from .registry import _id_list

counts = Suite("lifecycle-1")
counts.model(
    status_for=model_status_for,
    into_ir=lambda count: (model_status_for(count),
                           count if count <= 1 else count - 1, False),
    drop=lambda count: (count - 1, count <= 1),
)


class Client:
    """The runtime calls a probe makes, with every tensor it hands back plugged into `sub`'s
    functions (for the model, the runtime's own tensors are used as they are)."""

    def __init__(self, sub: Subject, devices: tuple[str, ...] = ("cpu:0",),
                 plug: Callable[[Subject], type[RouterTensor]] | None = None) -> None:
        self.rt = Runtime(list(devices))
        plug = plug or _plugged_class
        self.plugged: type[RouterTensor] | None = None if sub.is_model else plug(sub)

    def _own(self, tensor: RouterTensor) -> RouterTensor:
        if self.plugged is not None:
            tensor.__class__ = self.plugged
        return tensor

    def tensor(self, values: Any, device: str = "cpu:0") -> RouterTensor:
        return self._own(self.rt.tensor(values, device, "f32"))

    def clone(self, tensor: RouterTensor) -> RouterTensor:
        return self._own(self.rt.clone(tensor))

    def add(self, lhs: RouterTensor, rhs: RouterTensor) -> RouterTensor:
        return self._own(self.rt.add(lhs, rhs))

    def to_device(self, tensor: RouterTensor, device: str) -> RouterTensor:
        return self._own(self.rt.to_device(tensor, device))

    def drop(self, tensor: RouterTensor) -> None:
        self.rt.drop(tensor)


class _KeepsClass(RouterTensor):
    """A RouterTensor whose clones keep its class: the model's `clone` builds a plain one, and a
    plug-in must see every clone of a tensor it was given."""

    __slots__ = ()

    def clone(self) -> RouterTensor:
        twin = super().clone()
        twin.__class__ = type(self)
        return twin


def _plugged_class(sub: Subject) -> type[RouterTensor]:
    """A RouterTensor that asks the student for the status, the count afterwards and whether to
    send Drop, then does exactly what the model's methods do with those answers (including the
    journal entry that lets a failed step roll the count back)."""
    student_into_ir, student_drop = sub.function("into_ir"), sub.function("drop")

    def answer(got: Any, size: int, call: str) -> tuple[Any, ...]:
        if not isinstance(got, list | tuple) or len(got) != size:
            raise CheckFailure(f"{call} must return a tuple of {size}", got=repr(got), hint=1)
        return tuple(got)

    class Plugged(_KeepsClass):
        __slots__ = ()

        def into_ir(self) -> TensorIr:
            self.check()
            self._remember()
            status, after, sends = answer(student_into_ir(self.count), 3,
                                          f"into_ir({self.count})")
            self._count.value, self._alive = after, False
            if sends:
                self.client.register_op(DropOp(TensorIr(self.id, self.shape, READ_WRITE,
                                                        self.dtype)))
            return TensorIr(self.id, self.shape, status, self.dtype)

        def drop(self) -> None:
            self.check()
            self._remember()
            after, sends = answer(student_drop(self.count), 2, f"drop({self.count})")
            self._count.value, self._alive = after, False
            if sends:
                self.client.register_op(DropOp(TensorIr(self.id, self.shape, READ_WRITE,
                                                        self.dtype)))
            if not self.client.journal.active:
                self.client.sync()

    return Plugged


def _drops(rt: Runtime) -> list[int]:
    """The ids named by the Drop ops the sessions received, in order."""
    ids: list[int] = []
    for e in rt.trace.read():
        if e.kind == "drop":
            # The session records a Drop op under the id of the tensor it names, never None.
            assert e.tensor_id is not None, f"a drop event without a tensor id: {e}"
            ids.append(int(e.tensor_id))
    return ids


def _status(value: Any) -> Any:
    return getattr(value, "value", value)


@counts.visible("status_for: the last reference is ReadWrite, a shared one ReadOnly", hint=2)
def _status_values(sub: Subject) -> Observation:
    status_for = sub.function("status_for")
    return [(f"status_for({count})", _status(status_for(count)))
            for count in (1, 2, sub.param("big"))]


@counts.visible("drop: the last reference sends Drop, any other sends nothing", hint=2)
def _(sub: Subject) -> Observation:
    drop = sub.function("drop")
    return [(f"drop({count}) -> (count after, sends Drop?)", drop(count))
            for count in (1, sub.param("shared"))]


@counts.visible("into_ir of a shared tensor: ReadOnly, one reference fewer, no Drop", hint=2)
def _(sub: Subject) -> Observation:
    status, after, sends = sub.function("into_ir")(2)
    return [("into_ir(2) -> (status, count after, sends Drop?)", [_status(status), after, sends])]


@counts.visible("into_ir of the last reference: ReadWrite and NO Drop (Burn bumps the count "
                "first)", hint=2)
def _(sub: Subject) -> Observation:
    status, after, sends = sub.function("into_ir")(1)
    return [("into_ir(1) -> (status, count after, sends Drop?): the bump to 2 makes the drop at "
             "the end of into_ir see 2, leave 1 and send nothing", [_status(status), after, sends])]


@counts.visible("in the router: y = x.clone(); drop(x); add(y, z) sends no Drop at all", hint=2)
def _(sub: Subject) -> Observation:
    c = Client(sub)
    x = c.tensor([1.0, 2.0])
    y = c.clone(x)
    c.drop(x)
    seen: Observation = [("Drop ops sent after dropping one of two clones", _drops(c.rt))]
    out = c.add(y, c.tensor([1.0, 1.0]))
    seen.append(("Drop ops sent after the last use (a ReadWrite read frees it already)",
                 _drops(c.rt)))
    seen.append(("registry of cpu:0: only the output of add", c.rt.handle_ids("cpu:0")))
    c.drop(out)
    seen.append(("dropping the unique output sends exactly one Drop", _drops(c.rt)))
    return seen


def _random_program(c: Client, seed: int) -> Observation:
    """A seeded client program of creates, clones, drops, adds and moves; after each step the
    registries and the Drop ops so far."""
    rng = random.Random(seed)
    live: list[RouterTensor] = []
    seen: Observation = []
    rt = c.rt
    for step in range(rng.randint(4, 14)):
        actions = ("create", "clone", "clone", "drop", "add", "move")
        action = rng.choice(actions) if live else "create"
        if action == "create":
            live.append(c.tensor([rng.random() for _ in range(3)]))
        elif action == "clone":
            live.append(c.clone(rng.choice(live)))
        elif action == "drop":
            c.drop(live.pop(rng.randrange(len(live))))
        elif action == "add":
            lhs = live.pop(rng.randrange(len(live)))
            same_device = [t for t in live if t.device == lhs.device]
            if same_device and rng.random() < 0.5:
                rhs = same_device[rng.randrange(len(same_device))]
                live.remove(rhs)
            else:
                rhs = c.tensor([1.0, 1.0, 1.0], str(lhs.device))
            live.append(c.add(lhs, rhs))
        else:
            tensor = live.pop(rng.randrange(len(live)))
            target = "cpu:1" if str(tensor.device) == "cpu:0" else "cpu:0"
            live.append(c.to_device(tensor, target))
        seen.append((f"hidden program {seed}, step {step + 1} ({action}): registries cpu:0 | "
                     "cpu:1 and the Drop ops sent so far",
                     [rt.handle_ids("cpu:0"), rt.handle_ids("cpu:1"), _drops(rt)]))
    return seen


@counts.hidden("60 seeded random client programs (clones, drops, adds, moves)")
def _(sub: Subject) -> Observation:
    seen: Observation = []
    for seed in range(60):
        seen += _random_program(Client(sub, ("cpu:0", "cpu:1")), seed)
    return seen


@counts.hidden("counts from 1 to 50 behave as RouterTensor's")
def _(sub: Subject) -> Observation:
    status_for, into_ir, drop = (sub.function(n) for n in ("status_for", "into_ir", "drop"))
    seen: Observation = []
    for count in range(1, 51):
        status, after, sends = into_ir(count)
        seen.append((f"with a count of {count}: status_for, into_ir, drop",
                     [_status(status_for(count)), [_status(status), after, sends], drop(count)]))
    return seen


# --- registry-3: the status of a use comes from the clone count --------------------------------

statuses = Suite("registry-3")
statuses.model(status_for=model_status_for)
statuses.visible("status_for: the last reference is ReadWrite, a shared one ReadOnly",
                 hint=2)(_status_values)


def _status_plugged_class(sub: Subject) -> type[RouterTensor]:
    return status_class(sub.function("status_for"))


def status_class(student_status: Callable[[int], Any]) -> type[RouterTensor]:
    """A RouterTensor whose `into_ir` asks the student for the status of the use, then does what
    the model's does with it (the bump for ReadWrite, the release that may send Drop)."""

    class Plugged(_KeepsClass):
        __slots__ = ()

        def into_ir(self) -> TensorIr:
            self.check()
            self._remember()
            status = student_status(self._count.value)
            if not isinstance(status, TensorStatus):
                raise CheckFailure("status_for must return a TensorStatus (READ_ONLY, "
                                   "READ_WRITE or NOT_INIT)", got=repr(status), hint=1)
            if status is READ_WRITE:
                self._count.value += 1
            self._alive = False
            self._release()
            return TensorIr(self.id, self.shape, status, self.dtype)

    return Plugged


@statuses.visible("in the router: x.clone() + x reads x ReadOnly, then ReadWrite, which frees "
                  "it", hint=2)
def _(sub: Subject) -> Observation:
    c = Client(sub, plug=_status_plugged_class)
    for _ in range(sub.param("before")):
        c.tensor([0.0])
    x = c.tensor([1.0, 2.0])
    mark = len(c.rt.trace)
    c.add(c.clone(x), x)
    gets = [e.status for e in c.rt.trace.read(mark) if e.kind == "get"]
    return [("the statuses add reads its two inputs with", gets),
            ("registry of cpu:0 afterwards: only the output", c.rt.handle_ids("cpu:0"))]


@statuses.hidden("counts from 1 to 50 give RouterTensor's status")
def _(sub: Subject) -> Observation:
    status_for = sub.function("status_for")
    return [(f"status_for({count})", _status(status_for(count))) for count in range(1, 51)]


@statuses.hidden("30 seeded random client programs (clones, drops, adds, moves)")
def _(sub: Subject) -> Observation:
    seen: Observation = []
    for seed in range(30):
        seen += _random_program(Client(sub, ("cpu:0", "cpu:1"), _status_plugged_class), seed)
    return seen


# --- lifecycle-2: predict counts and Drop ops --------------------------------------------------


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise CheckFailure("write a whole number", got=repr(value), hint=1)
    return value


def _ordered_ids(value: Any) -> list[int]:
    if not isinstance(value, list | tuple) or not all(isinstance(i, int) for i in value):
        raise CheckFailure("write the ids as a list of ints, in order, e.g. [0, 2]",
                           got=repr(value), hint=1)
    return [int(i) for i in value]


def _lifecycle2_answers(before: int = 0, clones: int = 2) -> dict[str, Any]:
    """Run lifecycle-2's program on the model and observe: `before` tensors made first, then x
    and `clones` clones of it, the first of which is dropped and the last added to x."""
    rt = Runtime(["cpu:0"])
    for _ in range(before):
        rt.tensor([0.0], "cpu:0", "f32")
    x = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    ys = [rt.clone(x) for _ in range(clones)]
    rt.drop(ys[0])
    count_before_add = x.count
    w = rt.add(ys[-1], x)
    v = rt.clone(w)
    rt.drop(w)
    rt.drop(v)
    return {"COUNT_BEFORE_ADD": count_before_add, "DROP_OPS": _drops(rt),
            "IDS_AFTER": rt.handle_ids("cpu:0")}


drop_ops = PredictSuite(
    "lifecycle-2",
    parts=[
        Part("COUNT_BEFORE_ADD", "x's clone count just before the add", _count),
        Part("DROP_OPS", "the ids named by the Drop ops the server receives, in order",
             _ordered_ids),
        Part("IDS_AFTER", "the ids left in cpu:0's registry at the end", _id_list),
    ],
    oracle=_lifecycle2_answers,
    mistakes={
        "counted the dropped clone": lambda before, clones: {"COUNT_BEFORE_ADD": clones + 1},
        "did not count x itself": lambda before, clones: {"COUNT_BEFORE_ADD": clones - 1},
    },
)
