"""Checks of the client-side lifecycle exercises (docs/burn.md, 3): clone counts, into_ir, Drop.

lifecycle-1 patches the student's three functions into `RouterTensor.into_ir` and `.drop` of a
real runtime (the adapter below), then runs client programs: the Drop ops those programs send and
the registries they leave must be the model's.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

from routerlab.core.ir import READ_ONLY, READ_WRITE, DropOp, TensorIr
from routerlab.core.runtime import Runtime
from routerlab.core.tensor import RouterTensor
from routerlab.exercises.checks.base import (
    CheckFailure,
    Part,
    PredictSuite,
    Submission,
    Suite,
    expect_equal,
)
from routerlab.exercises.checks.registry import _id_list

counts = Suite("lifecycle-1")


@contextlib.contextmanager
def student_tensors(sub: Submission) -> Iterator[None]:
    """Every RouterTensor consumes and drops through the student's functions, for the block.

    The adapter replaces `RouterTensor.into_ir` and `.drop` with versions that ask the student for
    the status, the count afterwards and whether to send Drop, then do exactly what the model's
    methods do with those answers (including the journal entry that lets a failed step roll the
    count back). It is the one place that touches RouterTensor's private count cell.
    """
    student_into_ir = sub.function("into_ir")
    student_drop = sub.function("drop")

    def send_drop(tensor: RouterTensor) -> None:
        ir = TensorIr(tensor.id, tensor.shape, READ_WRITE, tensor.dtype)
        tensor.client.register_op(DropOp(ir))

    def into_ir(self: RouterTensor) -> TensorIr:
        self.check()
        self._remember()
        status, after, sends = student_into_ir(self.count)
        self._count.value, self._alive = after, False
        if sends:
            send_drop(self)
        return TensorIr(self.id, self.shape, status, self.dtype)

    def drop(self: RouterTensor) -> None:
        self.check()
        self._remember()
        after, sends = student_drop(self.count)
        self._count.value, self._alive = after, False
        if sends:
            send_drop(self)
        if not self.client.journal.active:
            self.client.sync()

    original = RouterTensor.into_ir, RouterTensor.drop
    RouterTensor.into_ir, RouterTensor.drop = into_ir, drop  # type: ignore[method-assign]
    try:
        yield
    finally:
        RouterTensor.into_ir, RouterTensor.drop = original  # type: ignore[method-assign]


def _drops(rt: Runtime) -> list[int]:
    """The ids named by the Drop ops the sessions received, in order."""
    ids: list[int] = []
    for e in rt.trace.read():
        if e.kind == "drop":
            # The session records a Drop op under the id of the tensor it names, never None.
            assert e.tensor_id is not None, f"a drop event without a tensor id: {e}"
            ids.append(int(e.tensor_id))
    return ids


@counts.visible("status_for: the last reference is ReadWrite, a shared one ReadOnly", hint=2)
def _(sub: Submission) -> None:
    status_for = sub.function("status_for")
    for count, want in ((1, READ_WRITE), (2, READ_ONLY), (5, READ_ONLY)):
        expect_equal(f"status_for({count})", want, status_for(count))


@counts.visible("drop: the last reference sends Drop, any other sends nothing", hint=2)
def _(sub: Submission) -> None:
    drop = sub.function("drop")
    expect_equal("drop(1) -> (count after, sends Drop?)", (0, True), tuple(drop(1)))
    expect_equal("drop(3) -> (count after, sends Drop?)", (2, False), tuple(drop(3)))


@counts.visible("into_ir of a shared tensor: ReadOnly, one reference fewer, no Drop", hint=2)
def _(sub: Submission) -> None:
    into_ir = sub.function("into_ir")
    expect_equal("into_ir(2) -> (status, count after, sends Drop?)", (READ_ONLY, 1, False),
                 tuple(into_ir(2)))


@counts.visible("into_ir of the last reference: ReadWrite and NO Drop (Burn bumps the count "
                "first)", hint=3)
def _(sub: Submission) -> None:
    into_ir = sub.function("into_ir")
    expect_equal("into_ir(1) -> (status, count after, sends Drop?): the bump to 2 makes the "
                 "drop at the end of into_ir see 2, leave 1 and send nothing",
                 (READ_WRITE, 1, False), tuple(into_ir(1)))


@counts.visible("in the router: y = x.clone(); drop(x); add(y, z) sends no Drop at all", hint=2)
def _(sub: Submission) -> None:
    with student_tensors(sub):
        rt = Runtime(["cpu:0"])
        x = rt.tensor([1.0, 2.0], "cpu:0", "f32")
        y = rt.clone(x)
        rt.drop(x)
        expect_equal("Drop ops sent after dropping one of two clones", [], _drops(rt))
        out = rt.add(y, rt.tensor([1.0, 1.0], "cpu:0", "f32"))
        expect_equal("Drop ops sent after the last use (a ReadWrite read frees it already)", [],
                     _drops(rt))
        expect_equal("registry of cpu:0: only the output of add", [int(out.id)],
                     rt.handle_ids("cpu:0"))
        rt.drop(out)
        expect_equal("dropping the unique output sends exactly one Drop", [int(out.id)],
                     _drops(rt))


def _random_program(rt: Runtime, seed: int) -> list[tuple[str, list[int], list[int]]]:
    """A seeded client program of creates, clones, drops, adds and moves; after each step the
    registries and the Drop ops so far (the observations to compare)."""
    rng = random.Random(seed)
    live: list[RouterTensor] = []
    seen = []
    for _ in range(rng.randint(4, 14)):
        actions = ("create", "clone", "clone", "drop", "add", "move")
        action = rng.choice(actions) if live else "create"
        if action == "create":
            live.append(rt.tensor([rng.random() for _ in range(3)], "cpu:0", "f32"))
        elif action == "clone":
            live.append(rt.clone(rng.choice(live)))
        elif action == "drop":
            rt.drop(live.pop(rng.randrange(len(live))))
        elif action == "add":
            lhs = live.pop(rng.randrange(len(live)))
            same_device = [t for t in live if t.device == lhs.device]
            if same_device and rng.random() < 0.5:
                rhs = same_device[rng.randrange(len(same_device))]
                live.remove(rhs)
            else:
                rhs = rt.tensor([1.0, 1.0, 1.0], str(lhs.device), "f32")
            live.append(rt.add(lhs, rhs))
        else:
            tensor = live.pop(rng.randrange(len(live)))
            target = "cpu:1" if str(tensor.device) == "cpu:0" else "cpu:0"
            live.append(rt.to_device(tensor, target))
        seen.append((action, rt.handle_ids("cpu:0") + [-1] + rt.handle_ids("cpu:1"), _drops(rt)))
    return seen


@counts.hidden("60 seeded random client programs (clones, drops, adds, moves), against the model")
def _(sub: Submission) -> None:
    for seed in range(60):
        want = _random_program(Runtime(["cpu:0", "cpu:1"]), seed)
        with student_tensors(sub):
            got = _random_program(Runtime(["cpu:0", "cpu:1"]), seed)
        for step, (mine, model) in enumerate(zip(got, want, strict=True)):
            if mine != model:
                raise CheckFailure(
                    f"hidden program {seed}, step {step + 1} ({mine[0]}): the registries or the "
                    "Drop ops sent differ from the model's",
                    got=f"registries {mine[1]} (-1 separates cpu:0 from cpu:1), Drops {mine[2]}",
                    hint=2)


@counts.hidden("counts from 1 to 50 behave as RouterTensor's")
def _(sub: Submission) -> None:
    status_for, into_ir, drop = (sub.function(n) for n in ("status_for", "into_ir", "drop"))
    for count in range(1, 51):
        status = READ_WRITE if count <= 1 else READ_ONLY
        want_into = (status, count if status is READ_WRITE else count - 1, False)
        got = (status_for(count), tuple(into_ir(count)), tuple(drop(count)))
        if got != (status, want_into, (count - 1, count <= 1)):
            raise CheckFailure(f"with a count of {count}, one of your three functions differs "
                               "from RouterTensor", got=repr(got), hint=2)


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


def _lifecycle2_answers() -> dict[str, Any]:
    """Run lifecycle-2's program on the model and observe."""
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    y = rt.clone(x)
    z = rt.clone(x)
    rt.drop(y)
    count_before_add = x.count
    w = rt.add(z, x)
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
)
