"""build-2: burn-router's `RouterTensor` (crates/burn-router/src/tensor.rs:11-158): the shared
clone count, the status of each use, `Drop` only from the last reference, against the model's
tensor talking to a recording client."""

from __future__ import annotations

import random
from typing import Any

from ...core import (
    DType,
    RouterTensor,
    TensorId,
    TensorIr,
)
from .base import CheckFailure, Observation, Subject, Suite, to_data
from .build_common import did, traced


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
