"""build-5: the guard and the five transfer policies (crates/burn-router/src/interpreter.rs:
88-127 for the walls legacy replays; docs/transfers.md for native, dequantize, requantize)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ...core import (
    Backend,
    DType,
    make_backend,
)
from ...core.base.devices import parse_device
from ...core.base.errors import BurnTodo, TransferRejected
from ...core.base.policies import Policy
from ...core.fix.arms import carrier_for
from ...core.fix.guard import can_move_to_device as model_can_move
from ...core.fix.qtensor import QPrimitive
from ...core.quant.debug import scheme_debug
from .base import Observation, Subject, Suite
from .build_common import did, traced
from .build_interpreter import quantized, shares

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
             [t.bit_equal(q.tensor), shares(got, q)])]


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
