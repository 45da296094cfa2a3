"""Checks of the handle-registry exercises: statuses, read-destructive last use
(crates/burn-ir/src/handle.rs:93-112; docs/exercises.md).

registry-1 plugs a `get_handle` into a real `Runtime` (its handle containers read through it: an
instance-level subclass, no core module is touched), then runs router flows through it: an add
whose inputs are one tensor and its clone, a same-peer move, a read after the last use. Every
probe runs the student's function and the model's (`_model_get_handle`) the same way.
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
    HandleContainer,
    MissingHandleError,
    ReadOp,
    Runtime,
    TensorId,
    TensorInterpreter,
    TensorIr,
    TensorStatus,
)
from .base import (
    CheckFailure,
    Observation,
    Part,
    PredictSuite,
    Subject,
    Suite,
    choice,
    outcome,
)

statuses = Suite("registry-1")
_ABSENT = object()
_PANICS = (MissingHandleError, BurnPanic)


def _model_get_handle(handles: dict[int, Any], tensor_id: TensorId, status: TensorStatus) -> Any:
    """The model's `HandleContainer.get` over the student's plain dict."""
    return HandleContainer.over(handles).get(tensor_id, status)


def _registry(ids: list[int]) -> dict[int, Any]:
    """A registry keyed as the router's is, by `TensorId` (handles.rs's `HashMap<TensorId, _>`):
    a Burn-faithful `get_handle` that removes the entry and puts it back under the `TensorId` it
    was given leaves the same keys as one that never removed it."""
    return {TensorId(i): f"handle-{i}" for i in ids}


def _ids_of(handles: dict[int, Any]) -> list[int]:
    """The registry's ids as numbers, whatever int type a submission put back as a key."""
    return sorted(int(k) for k in handles)


statuses.model(get_handle=_model_get_handle)


def student_runtime(get_handle: Callable[..., Any],
                    devices: tuple[str, ...] = ("cpu:0",)) -> Runtime:
    """A real runtime whose every handle container reads through `get_handle`."""
    return Runtime(devices, interpreter=plugged_interpreter(get_handle))  # the documented hook


def plugged_interpreter(get_handle: Callable[..., Any]) -> type[TensorInterpreter]:
    """An interpreter class whose registry (`TensorInterpreter.container`) reads every handle
    through `get_handle`, keeping the model's journal entry and trace line."""

    class PluggedContainer(HandleContainer):
        __slots__ = ()

        def get(self, id: int, status: TensorStatus) -> Any:
            before = self._handles.get(id, _ABSENT)
            handle = get_handle(self._handles, TensorId(id), status)
            if self._undo is not None and before is not _ABSENT and id not in self._handles:
                self._undo.append((self._handles, id, before))
            self._log(("get", self.label, id, status._value_, 0, ""))  # plain text, as the model
            return handle

    class PluggedInterpreter(TensorInterpreter):
        container = PluggedContainer

    return PluggedInterpreter


def _ids(sub: Subject) -> tuple[int, int]:
    """The variant's two registered ids: the one read, and another beside it."""
    return sub.param("tid"), sub.param("other")


@statuses.visible("a ReadOnly get returns the handle and leaves it registered", hint=2)
def _(sub: Subject) -> Observation:
    tid, other = _ids(sub)
    handles = _registry([tid, other])
    got = sub.function("get_handle")(handles, TensorId(tid), READ_ONLY)
    return [(f"get_handle(handles, {tid}, ReadOnly) returns the handle", got),
            ("after a ReadOnly get, the registry still holds", _ids_of(handles))]


@statuses.visible("a ReadWrite get returns the handle and removes it (the last use frees)", hint=2)
def _(sub: Subject) -> Observation:
    tid, other = _ids(sub)
    handles = _registry([tid, other])
    got = sub.function("get_handle")(handles, TensorId(tid), READ_WRITE)
    return [(f"get_handle(handles, {tid}, ReadWrite) returns the handle", got),
            ("after a ReadWrite get, the registry holds", _ids_of(handles))]


@statuses.visible("an id that is not registered panics with Burn's “Should have handle…”", hint=2)
def _(sub: Subject) -> Observation:
    get_handle = sub.function("get_handle")
    tid, other = _ids(sub)
    return [(f"get_handle on the missing id {tid} (Burn panics: MissingHandleError)",
             outcome(lambda: get_handle(_registry([other]), TensorId(tid), READ_ONLY),
                     _PANICS))]


@statuses.visible("a NotInit status is refused with a Burn panic", hint=2)
def _(sub: Subject) -> Observation:
    get_handle = sub.function("get_handle")
    tid, _other = _ids(sub)
    return [(f"get_handle with status NotInit on the registered id {tid} (Burn panics: "
             "BurnPanic, the tensor is an op output that does not exist yet)",
             outcome(lambda: get_handle(_registry([tid]), TensorId(tid), NOT_INIT), _PANICS))]


@statuses.visible("in the router: add(x.clone(), x) frees x, and a later read of x panics", hint=2)
def _(sub: Subject) -> Observation:
    rt = student_runtime(sub.function("get_handle"))
    for _ in range(sub.param("before")):
        rt.tensor([0.0], "cpu:0", "f32")
    x = rt.tensor([float(sub.param("tid")), 2.0], "cpu:0", "f32")
    z = rt.add(rt.clone(x), x)
    seen: Observation = [("registry of cpu:0 after z = add(x.clone(), x): x is gone",
                          rt.handle_ids("cpu:0"))]
    seen.append(("the value of z read back through get_handle", rt.read(z).tolist()))
    stale = TensorIr(x.id, x.shape, READ_ONLY, x.dtype)
    seen.append((f"reading x (id {int(x.id)}) after its ReadWrite last use (Burn issue #4950: "
                 "a panic)", outcome(lambda: rt.submit("cpu:0", ReadOp(stale)), _PANICS)))
    return seen


@statuses.hidden("a same-peer move through the registry: a unique tensor moves, a shared one "
                 "is copied")
def _(sub: Subject) -> Observation:
    rt = student_runtime(sub.function("get_handle"), ("cpu:0", "cpu:1"))
    shared = rt.tensor([1, 2, 3], "cpu:0", "i32")
    keep = rt.clone(shared)
    rt.to_device(shared, "cpu:1")
    seen: Observation = [("moving one of two clones leaves the source entry",
                          int(keep.id) in rt.handle_ids("cpu:0"))]
    rt.to_device(keep, "cpu:1")
    seen.append(("moving the last reference removes the source entry", rt.handle_ids("cpu:0")))
    return seen


@statuses.hidden("200 seeded random sequences of gets on a registry")
def _(sub: Subject) -> Observation:
    get_handle = sub.function("get_handle")
    rng = random.Random(4950)
    seen: Observation = []
    for case in range(200):
        ids = rng.sample(range(8), rng.randint(1, 5))
        handles = _registry(ids)
        for _ in range(rng.randint(1, 8)):
            tid = TensorId(rng.randrange(8))
            status = rng.choice((READ_ONLY, READ_ONLY, READ_WRITE, NOT_INIT))
            label = f"case {case}: get_handle(…, {int(tid)}, {status}) on ids {_ids_of(handles)}"
            did = outcome(lambda: get_handle(handles, tid, status), _PANICS)  # noqa: B023
            if did[0] == "panics":
                # Burn's panic ends the session: the registry after it is never observed, so a
                # Burn-faithful remove-then-panic (handle.rs:94-107) and a check-then-panic agree.
                seen.append((label, did))
                break
            seen.append((label, [did, _ids_of(handles)]))
    return seen


# --- registry-2: predict the registry after a flow ---------------------------------------------


def _status_list(value: Any) -> list[str]:
    names = {"readonly": "ReadOnly", "readwrite": "ReadWrite", "notinit": "NotInit"}
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise CheckFailure("write the two statuses as a list, e.g. [\"ReadOnly\", \"ReadOnly\"]",
                           got=repr(value), hint=1)
    out = []
    for item in value:
        key = str(getattr(item, "value", item)).replace("_", "").replace(" ", "").lower()
        if key not in names:
            raise CheckFailure("each status is ReadOnly, ReadWrite or NotInit", got=repr(item),
                               hint=1)
        out.append(names[key])
    return out


def _id_list(value: Any) -> list[int]:
    if not isinstance(value, list | tuple | set) or not all(isinstance(i, int) for i in value):
        raise CheckFailure("write the ids as a list of ints, e.g. [0, 2]", got=repr(value), hint=1)
    return sorted(int(i) for i in value)


def _panic_or_ok(value: Any) -> str:
    return choice("panic", "ok")(value)


ADD_ARGS = ("rt.clone(a), a", "a, rt.clone(a)")
MUL_ARGS = ("rt.clone(c), b", "b, rt.clone(c)")
"""registry-2's argument orders (its `add_args` and `mul_args` parameters, as the statement
shows them): the clone first, or the tensor itself first."""


def _registry2_answers(before: int = 0, add_args: str = ADD_ARGS[0],
                       mul_args: str = MUL_ARGS[0]) -> dict[str, Any]:
    """Run the flow of registry-2's statement on the model and observe: `before` tensors made
    first, add and mul given their arguments in the order the variant names."""
    rt = Runtime(["cpu:0"])
    for _ in range(before):
        rt.tensor([0.0], "cpu:0", "f32")
    a = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    b = rt.tensor([3.0, 4.0], "cpu:0", "f32")
    c = rt.add(*_ordered(ADD_ARGS.index(add_args), rt.clone(a), a))
    mark = len(rt.trace)
    rt.mul(*_ordered(MUL_ARGS.index(mul_args), rt.clone(c), b))
    mul_gets = [e.status for e in rt.trace.read(mark) if e.kind == "get"]
    rt.drop(c)
    add_gets = [e.status for e in rt.explain(int(a.id)) if e.kind == "get"]
    ids = rt.handle_ids("cpu:0")
    read_a = outcome(lambda: rt.submit("cpu:0", ReadOp(TensorIr(a.id, a.shape, READ_ONLY,
                                                                 a.dtype))), _PANICS)
    return {"ADD_STATUSES": add_gets, "MUL_STATUSES": mul_gets, "IDS_AFTER": ids,
            "READ_A": "ok" if read_a[0] == "returned" else "panic"}


def _ordered(order: int, first: Any, second: Any) -> tuple[Any, Any]:
    return (first, second) if order == 0 else (second, first)


def _registry2_ids_not_consumed(before: int, add_args: str, mul_args: str) -> dict[str, Any]:
    """The mistake of thinking a last use keeps the handle: every id stays."""
    return {"IDS_AFTER": list(range(before + 4))}


registry_state = PredictSuite(
    "registry-2",
    parts=[
        Part("ADD_STATUSES", "the statuses `add` reads its two inputs with", _status_list),
        Part("MUL_STATUSES", "the statuses `mul` reads its two inputs with", _status_list),
        Part("IDS_AFTER", "the ids left in cpu:0's registry at the end", _id_list),
        Part("READ_A", "what a ReadOnly read of tensor 0 does at the end", _panic_or_ok),
    ],
    oracle=_registry2_answers,
    mistakes={
        "thought a last use keeps the handle": _registry2_ids_not_consumed,
        "read every input ReadOnly": lambda before, add_args, mul_args: {
            "ADD_STATUSES": ["ReadOnly", "ReadOnly"], "MUL_STATUSES": ["ReadOnly", "ReadOnly"]},
    },
)
