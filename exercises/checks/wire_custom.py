"""Checks of wire-4 (docs/burn.md section 23): a server's custom-op handler, plugged into the
model's `CustomOpRegistry` and run by `rt.custom`, as a burn-remote server runs one it was
built with."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ...core import BurnPanic, CustomOpRegistry, RouterLabError, Runtime
from .base import CheckFailure, Observation, Subject, Suite

OP_ID = "fused_add_mul"
F32 = np.float32


def model_fused_add_mul(interpreter: Any, op: Any) -> None:
    """The model's handler: each input read with its own status, `(a + b) * c`, registered."""
    a, b, c = (interpreter.handles.get_tensor_handle(t) for t in op.ins)
    backend = interpreter.backend
    interpreter.handles.register(op.outs[0].id, backend.mul(backend.add(a, b), c))


def _runtime(sub: Subject) -> Runtime:
    handler = sub.function(OP_ID)
    return Runtime(["cpu:0"], custom_ops=CustomOpRegistry().custom_op(OP_ID, handler))


def _run(sub: Subject, a: list[float], c: list[float], keep_c: bool) -> Observation:
    """(a + clone of a) * c on cpu:0; with `keep_c` the caller keeps a clone of c. What is
    observed: the result's values, the registry's ids after the op, whether the session lives."""
    rt = _runtime(sub)
    x = rt.tensor(np.array(a, F32), "cpu:0", "f32")
    scale = rt.tensor(np.array(c, F32), "cpu:0", "f32")
    kept = rt.clone(scale) if keep_c else None
    try:
        (out,) = rt.custom(OP_ID, rt.clone(x), x, scale, outputs=[((len(a),), "f32")])
        ids = sorted(rt.handle_ids("cpu:0"))
        values = rt.read(out).tolist()
    except BurnPanic as panic:
        raise CheckFailure(f"the server panicked running your handler: {panic.message}",
                           hint=1) from None
    except RouterLabError as error:
        raise CheckFailure(f"your handler failed: {error}", hint=2) from None
    expected = {int(out.id)} | ({int(kept.id)} if kept is not None else set())
    return [(f"(a + a) * c for a = {a}, c = {c}: the result", values),
            ("the registry after the op holds only the output" + (" and the kept c"
                                                                    if keep_c else ""),
             ids == sorted(expected)),
            ("cpu:0's session is alive", rt.session("cpu:0").ended is None)]


custom = Suite("wire-4")
custom.model(fused_add_mul=model_fused_add_mul)


def _a(sub: Subject) -> list[float]:
    return [float(v) for v in sub.param("a")]


@custom.visible("(a + a) * c: the values, and every input used last is gone", hint=2)
def _(sub: Subject) -> Observation:
    a = _a(sub)
    return _run(sub, a, [float(sub.param("scale"))] * len(a), keep_c=False)


@custom.visible("a clone of c the caller keeps stays in the registry (c's use is ReadOnly)",
                hint=2)
def _(sub: Subject) -> Observation:
    a = _a(sub)
    return _run(sub, a, [float(sub.param("scale"))] * len(a), keep_c=True)


@custom.hidden("30 seeded random tensors, c kept or not")
def _(sub: Subject) -> Observation:
    rng = random.Random(40)
    seen: Observation = []
    for _ in range(30):
        size = rng.randint(1, 6)
        a = [float(rng.randint(-8, 8)) / 2 for _ in range(size)]
        c = [float(rng.randint(-4, 4)) for _ in range(size)]
        seen += _run(sub, a, c, keep_c=rng.random() < 0.5)
    return seen


@custom.hidden("two custom ops in a row: the first one's output is the second one's input")
def _(sub: Subject) -> Observation:
    rt = _runtime(sub)
    x = rt.tensor(np.array([1.0, -2.0], F32), "cpu:0", "f32")
    two = rt.tensor(np.array([2.0, 2.0], F32), "cpu:0", "f32")
    outputs = [((2,), "f32")]
    try:
        (first,) = rt.custom(OP_ID, rt.clone(x), x, rt.clone(two), outputs=outputs)
        (second,) = rt.custom(OP_ID, rt.clone(first), first, two, outputs=outputs)
        return [("((x + x) * 2 + same) * 2", rt.read(second).tolist()),
                ("the registry holds only the last output",
                 rt.handle_ids("cpu:0") == [int(second.id)])]
    except RouterLabError as error:
        raise CheckFailure(f"your handler failed on the second op: {error}", hint=2) from None
