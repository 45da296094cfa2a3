"""Checks of the handle-registry exercises (docs/burn.md, 2): statuses, read-destructive last use.

registry-1 installs the student's `get_handle` as the `get` of every `HandleContainer` of a real
`Runtime` (the adapter below), then runs router flows through it: an add whose inputs are one
tensor and its clone, a same-peer move, a read after the last use.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from routerlab.core.errors import BurnPanic, MissingHandleError
from routerlab.core.handles import HandleContainer
from routerlab.core.ir import (
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    ReadOp,
    TensorId,
    TensorIr,
    TensorStatus,
)
from routerlab.core.runtime import Runtime
from routerlab.exercises.checks.base import (
    CheckFailure,
    Part,
    PredictSuite,
    Submission,
    Suite,
    expect_equal,
    outcome_of,
)

statuses = Suite("registry-1")
_ABSENT = object()


def student_runtime(get_handle: Callable[..., Any],
                    devices: tuple[str, ...] = ("cpu:0",)) -> Runtime:
    """A real runtime whose every handle container reads through the student's `get_handle`."""

    class StudentContainer(HandleContainer):
        __slots__ = ()

        def get(self, id: int, status: TensorStatus) -> Any:
            before = self._handles.get(id, _ABSENT)
            handle = get_handle(self._handles, TensorId(id), status)
            if self._undo is not None and before is not _ABSENT and id not in self._handles:
                self._undo.append((self._handles, id, before))
            self._log(("get", self.label, id, status._value_, 0, ""))  # plain text, as the model
            return handle

    runtime = Runtime(devices)
    for device in devices:
        runtime.session(device).interpreter.handles.__class__ = StudentContainer
    return runtime


def _expect_panic(call: Callable[[], Any], panic: type[BurnPanic], what: str) -> None:
    try:
        call()
    except panic:
        return
    except NotImplementedError:
        raise
    except BurnPanic as other:
        raise CheckFailure(what, expected=f"Burn's panic {panic.__name__}",
                           got=f"{type(other).__name__}: {other}", hint=2) from None
    raise CheckFailure(what, expected=f"Burn's panic ({panic.__name__})",
                       got="no panic: your function returned normally", hint=2)


@statuses.visible("a ReadOnly get returns the handle and leaves it registered", hint=2)
def _(sub: Submission) -> None:
    handles = {3: "handle-3", 4: "handle-4"}
    got = sub.function("get_handle")(handles, TensorId(3), READ_ONLY)
    expect_equal("get_handle(handles, 3, ReadOnly) returns the handle", "handle-3", got)
    expect_equal("after a ReadOnly get, the registry still holds both ids", [3, 4], sorted(handles))


@statuses.visible("a ReadWrite get returns the handle and removes it (the last use frees)", hint=2)
def _(sub: Submission) -> None:
    handles = {3: "handle-3", 4: "handle-4"}
    got = sub.function("get_handle")(handles, TensorId(3), READ_WRITE)
    expect_equal("get_handle(handles, 3, ReadWrite) returns the handle", "handle-3", got)
    expect_equal("after a ReadWrite get, id 3 is gone", [4], sorted(handles))


@statuses.visible("an id that is not registered panics with Burn's “Should have handle…”", hint=1)
def _(sub: Submission) -> None:
    get_handle = sub.function("get_handle")
    _expect_panic(lambda: get_handle({4: "h"}, TensorId(3), READ_ONLY), MissingHandleError,
                  "get_handle on a missing id must raise MissingHandleError(tensor_id)")


@statuses.visible("a NotInit status is refused with a Burn panic", hint=1)
def _(sub: Submission) -> None:
    get_handle = sub.function("get_handle")
    _expect_panic(lambda: get_handle({3: "h"}, TensorId(3), NOT_INIT), BurnPanic,
                  "get_handle with status NotInit must raise BurnPanic (the tensor is an op "
                  "output that does not exist yet)")


@statuses.visible("in the router: add(x.clone(), x) frees x, and a later read of x panics", hint=2)
def _(sub: Submission) -> None:
    rt = student_runtime(sub.function("get_handle"))
    x = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    z = rt.add(rt.clone(x), x)
    expect_equal("registry of cpu:0 after z = add(x.clone(), x): only z survives",
                 [int(z.id)], rt.handle_ids("cpu:0"))
    expect_equal("the value of z read back through your get_handle", [2.0, 4.0],
                 rt.read(z).tolist())
    stale = TensorIr(x.id, x.shape, READ_ONLY, x.dtype)
    _expect_panic(lambda: rt.submit("cpu:0", ReadOp(stale)), MissingHandleError,
                  "reading x after its ReadWrite last use must panic as in Burn issue #4950")


@statuses.hidden("a same-peer move through your registry: a unique tensor moves, a shared one "
                 "is copied")
def _(sub: Submission) -> None:
    rt = student_runtime(sub.function("get_handle"), ("cpu:0", "cpu:1"))
    shared = rt.tensor([1, 2, 3], "cpu:0", "i32")
    keep = rt.clone(shared)
    rt.to_device(shared, "cpu:1")
    if int(keep.id) not in rt.handle_ids("cpu:0"):
        raise CheckFailure("moving one of two clones must leave the source entry (ReadOnly)",
                           got=f"cpu:0 holds {rt.handle_ids('cpu:0')}", hint=2)
    rt.to_device(keep, "cpu:1")
    if rt.handle_ids("cpu:0"):
        raise CheckFailure("moving the last reference must remove the source entry (ReadWrite)",
                           got=f"cpu:0 holds {rt.handle_ids('cpu:0')}", hint=2)


@statuses.hidden("200 seeded random sequences of gets, against the model's HandleContainer")
def _(sub: Submission) -> None:
    get_handle = sub.function("get_handle")
    rng = random.Random(4950)
    for case in range(200):
        ids = rng.sample(range(8), rng.randint(1, 5))
        mine = {i: f"h{i}" for i in ids}
        model = HandleContainer()
        for i in ids:
            model.register(i, f"h{i}")
        for _ in range(rng.randint(1, 8)):
            tid = TensorId(rng.randrange(8))
            status = rng.choice((READ_ONLY, READ_ONLY, READ_WRITE, NOT_INIT))
            got = _observe(get_handle, mine, tid, status)
            want = _observe(HandleContainer.get, model, tid, status)
            if got != want or sorted(mine) != sorted(int(i) for i in model.handle_ids()):
                raise CheckFailure(
                    f"hidden case {case}: get_handle(…, {int(tid)}, {status}) on a registry that "
                    "held other ids behaves differently from Burn's",
                    got=f"{got[0]} {got[1]!r}, registry now {sorted(mine)}", hint=2)


def _observe(get: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    """What one get did: returned a handle, panicked on a missing id, or panicked otherwise."""
    try:
        return "returned", get(*args)
    except MissingHandleError:
        return "panicked: missing id", None
    except BurnPanic:
        return "panicked", None


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
    if value not in ("panic", "ok"):
        raise CheckFailure('answer "panic" or "ok"', got=repr(value), hint=1)
    return str(value)


def _registry2_answers() -> dict[str, Any]:
    """Run the flow of registry-2's statement on the model and observe."""
    rt = Runtime(["cpu:0"])
    a = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    b = rt.tensor([3.0, 4.0], "cpu:0", "f32")
    c = rt.add(rt.clone(a), a)
    mark = len(rt.trace)
    rt.mul(rt.clone(c), b)
    mul_gets = [e.status for e in rt.trace.read(mark) if e.kind == "get"]
    rt.drop(c)
    add_gets = [e.status for e in rt.explain(int(a.id)) if e.kind == "get"]
    ids = rt.handle_ids("cpu:0")
    read_a = outcome_of(lambda: rt.submit("cpu:0", ReadOp(TensorIr(a.id, a.shape, READ_ONLY,
                                                                    a.dtype))))
    return {"ADD_STATUSES": add_gets, "MUL_STATUSES": mul_gets, "IDS_AFTER": ids,
            "READ_A": "ok" if read_a[0] == "ok" else "panic"}


registry_state = PredictSuite(
    "registry-2",
    parts=[
        Part("ADD_STATUSES", "the statuses `add` reads its two inputs with", _status_list),
        Part("MUL_STATUSES", "the statuses `mul` reads its two inputs with", _status_list),
        Part("IDS_AFTER", "the ids left in cpu:0's registry at the end", _id_list),
        Part("READ_A", "what a ReadOnly read of tensor 0 does at the end", _panic_or_ok),
    ],
    oracle=_registry2_answers,
)
