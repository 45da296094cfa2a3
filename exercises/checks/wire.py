"""Checks of the wire exercises (docs/burn.md sections 19 and 20): when a task leaves the client,
where Burn's user sees a server panic, and what two client threads share in one session."""

from __future__ import annotations

import random
from typing import Any

from ...core.scenario import ScenarioRunError, parse_scenario, run_scenario
from ...core.wire import (
    ANSWERED,
    BUFFERED,
    FLUSH_BYTES_THRESHOLD,
    FLUSHED,
    Call,
    every_order,
    flush_reason,
)
from .base import CheckFailure, Observation, Part, PredictSuite, Subject, Suite
from .forms import whole

# --- wire-1: when does a task leave the client? -------------------------------------------------

KINDS = sorted(BUFFERED | FLUSHED | ANSWERED)
"""The burn-remote task names a student's `leaves` is asked about."""
REASONS = ("count", "bytes", "answer", "upload", "transfer")


def model_leaves(kind: str, queued: int, queued_bytes: int, nbytes: int) -> str | None:
    """The model's rule (`routerlab.core.wire.queue.flush_reason`), in the student's signature."""
    reason = flush_reason(kind, queued, queued_bytes, nbytes)
    return None if reason is None else reason.value


def _leaves(sub: Subject, kind: str, queued: int, queued_bytes: int, nbytes: int) -> str | None:
    got = sub.function("leaves")(kind, queued, queued_bytes, nbytes)
    if got is not None and got not in REASONS:
        raise CheckFailure(f"leaves returns None or one of {', '.join(map(repr, REASONS))}",
                           got=repr(got), hint=1)
    return got


leaving = Suite("wire-1")
leaving.model(leaves=model_leaves)


@leaving.visible("four ops in a row: the fourth fills the batch", hint=1)
def _(sub: Subject) -> Observation:
    kind = sub.param("buffered")
    return [(f"{kind} with {n} queued", _leaves(sub, kind, n, 0, 0)) for n in range(4)]


@leaving.visible("a read after two ops waits for an answer", hint=2)
def _(sub: Subject) -> Observation:
    queued = sub.param("queued")
    return [(f"ReadTensor with {queued} queued", _leaves(sub, "ReadTensor", queued, 0, 0)),
            ("SyncBackend with 0 queued", _leaves(sub, "SyncBackend", 0, 0, 0))]


@leaving.visible("an upload and a transfer leave at once, whatever their size", hint=2)
def _(sub: Subject) -> Observation:
    mib, transfer = sub.param("upload_mib"), sub.param("transfer")
    return [("RegisterTensor of 8 bytes", _leaves(sub, "RegisterTensor", 0, 0, 8)),
            (f"RegisterTensor of {mib} MiB", _leaves(sub, "RegisterTensor", 1, 0, mib << 20)),
            (transfer, _leaves(sub, transfer, 1, 0, 0)),
            ("RegisterTensorRemote", _leaves(sub, "RegisterTensorRemote", 0, 0, 0))]


@leaving.hidden("data bytes already in the batch fill it on the next op")
def _(sub: Subject) -> Observation:
    return [(f"RegisterAlias with {b} bytes queued", _leaves(sub, "RegisterAlias", 1, b, 0))
            for b in (FLUSH_BYTES_THRESHOLD - 1, FLUSH_BYTES_THRESHOLD, 3 * FLUSH_BYTES_THRESHOLD)]


@leaving.hidden("200 seeded random sequences of tasks through one batch")
def _(sub: Subject) -> Observation:
    rng = random.Random(30)
    seen: Observation = []
    queued = queued_bytes = 0
    for index in range(200):
        kind = rng.choice(KINDS)
        nbytes = rng.choice((0, 64, 700_000)) if kind == "RegisterTensor" else 0
        reason = _leaves(sub, kind, queued, queued_bytes, nbytes)
        seen.append((f"task {index}: {kind} ({queued} queued, {queued_bytes} bytes)", reason))
        if reason is None:
            queued, queued_bytes = queued + 1, queued_bytes + nbytes
        else:
            queued = queued_bytes = 0
    return seen


# --- wire-2: where does Burn's user see a server panic? ------------------------------------------

_TENSOR = """
[[steps]]
op = "tensor"
name = "{name}"
values = {values}
device = "cpu:0"
"""
_QUANTIZE_AND_CLONE = """
[[steps]]
op = "quantize"
tensor = "x"
scheme = "q8s"
name = "q"
[[steps]]
op = "clone"
tensor = "y"
name = "y2"
"""
_ADD = """
[[steps]]
op = "add"
lhs = "{lhs}"
rhs = "y2"
name = "{name}"
"""


def _sums(adds: int) -> list[str]:
    """The names of the flow's sums: z, then z2, z3, ..."""
    return ["z" if n == 1 else f"z{n}" for n in range(1, adds + 1)]


def panic_flow(made: int = 1, adds: int = 1, read: bool = True) -> str:
    """wire-2's flow (its statement shows the same steps): x, then `made` tensors (y first, then
    w1, w2, ...), the calibrated quantize of x, y2 = clone y, `adds` fire-and-forget adds (z = add
    y y2, then z2 = add z y2, ...), and, if `read`, a read of the last sum."""
    names = ["y", *(f"w{n}" for n in range(1, made))]
    sums = _sums(adds)
    steps = [_TENSOR.format(name="x", values="[1.0, -2.0, 3.0]")]
    steps += [_TENSOR.format(name=name, values="[1.0, 2.0, 3.0]" if name == "y" else "[0.0]")
              for name in names]
    steps.append(_QUANTIZE_AND_CLONE)
    steps += [_ADD.format(lhs=lhs, name=name) for lhs, name in zip(["y", *sums[:-1]], sums,
                                                                   strict=True)]
    if read:
        steps.append(f'[[steps]]\nop = "read"\ntensor = "{sums[-1]}"\n')
    header = ('title = "a legacy quantize under fusion, then more work"\n'
              'devices = ["cpu:0"]\npolicy = "legacy"\nfusion = true\n')
    return header + "".join(steps)


PANIC_FLOW = panic_flow()
"""wire-2's flow in the catalog's own variant (notebook 09 runs it)."""


def _panic(flow: str) -> ScenarioRunError:
    try:
        list(run_scenario(parse_scenario(flow, "wire-2")))
    except ScenarioRunError as failure:
        return failure
    raise AssertionError("wire-2's flow no longer fails")


def _surfacing_answers(made: int = 1, adds: int = 1) -> dict[str, Any]:
    """Run wire-2's flow for this variant, and the same flow without its read, on the model."""
    whole = _panic(panic_flow(made, adds))
    unread = _panic(panic_flow(made, adds, read=False))
    assert whole.seen is not None and unread.seen is not None
    return {"PANIC_STEP": whole.step, "SEEN_STEP": whole.seen.step,
            "SEEN_WITHOUT_READ": "never" if unread.seen.step is None else unread.seen.step}


def _step(value: Any) -> int | str:
    if isinstance(value, str) and value.strip().lower() == "never":
        return "never"
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise CheckFailure('write a step number (1 or more), or "never"', got=repr(value),
                           hint=1)
    return value


surfacing = PredictSuite(
    "wire-2",
    parts=[
        Part("PANIC_STEP", "the step whose op panics cpu:0's server", _step),
        Part("SEEN_STEP", "the step at which Burn's user sees that panic", _step),
        Part("SEEN_WITHOUT_READ", "the same, for the flow without its last step", _step),
    ],
    oracle=_surfacing_answers,
    mistakes={
        "saw the panic at the call that caused it": lambda made, adds: {
            "SEEN_STEP": made + 2, "SEEN_WITHOUT_READ": made + 2},
        "thought the flow's last call reveals it, read or not": lambda made, adds: {
            "SEEN_WITHOUT_READ": made + adds + 3},
    },
)


# --- wire-3: two client threads, one session ---------------------------------------------------

def streams(a_uses: int = 0, b_uses: int = 0, alias: bool = False) -> tuple[list[Call], ...]:
    """wire-3's two threads: A makes #1, hands it to B after its first call (with `alias`, A
    first registers #2 over #1's buffer and hands B #2), reads it `a_uses` times and uses it
    last; B reads its id `b_uses` times and uses it last too."""
    handed = 2 if alias else 1
    first = [Call(1, "make", (), 1), *([Call(1, "alias", (1,), 2)] if alias else []),
             *[Call(1, "use", (1,))] * a_uses, Call(1, "consume", (1,))]
    second = [*[Call(2, "use", (handed,))] * b_uses, Call(2, "consume", (handed,))]
    return first, second


def _streams_answers(a_uses: int = 0, b_uses: int = 0) -> dict[str, Any]:
    shared = every_order(streams(a_uses, b_uses), after=1)
    aliased = every_order(streams(a_uses, b_uses, alias=True), after=2)
    return {"PANICS_SHARED": sum(o.panic is not None for o in shared),
            "PANICS_ALIASED": sum(o.panic is not None for o in aliased),
            "BUFFERS_LEFT_ALIASED": max(o.live for o in aliased)}


two_streams = PredictSuite(
    "wire-3",
    parts=[
        Part("PANICS_SHARED", "the orders that panic when both threads use one id", whole),
        Part("PANICS_ALIASED", "the orders that panic when thread B uses an alias", whole),
        Part("BUFFERS_LEFT_ALIASED", "the buffers alive after the aliased calls", whole),
    ],
    oracle=_streams_answers,
    mistakes={
        "thought one order is safe without the alias": lambda a_uses, b_uses: {
            "PANICS_SHARED": len(every_order(streams(a_uses, b_uses), after=1)) - 1},
        "thought an alias keeps its buffer alive": lambda a_uses, b_uses: {
            "BUFFERS_LEFT_ALIASED": 1},
    },
)
