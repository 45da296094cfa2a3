"""Checks of the wire exercises (docs/burn.md sections 19 to 21): when the service sends a task it
is handed, where Burn's user sees a server panic, and what two client threads share in one
session."""

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


@leaving.hidden("the batch's own byte rule, as Burn's batch.rs tests push it (a state "
                "burn-remote's client never reaches at the pin)")
def _(sub: Subject) -> Observation:
    """Only a `RegisterTensor` adds bytes, and the service flushes right after it
    (service.rs:386-389): a buffered task always finds 0 bytes queued. The rule is still the
    batch's (batch.rs:52-56, its tests at batch.rs:93-124), so `leaves` keeps it."""
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
    """wire-3's two threads: A makes #1, reads it `a_uses` times and uses it last; B reads the id
    it is handed `b_uses` times and uses it last too. With `alias`, A registers #2 over #1's
    buffer right after making it, and hands B #2."""
    handed = 2 if alias else 1
    first = [Call(1, "make", (), 1), *([Call(1, "alias", (1,), 2)] if alias else []),
             *[Call(1, "use", (1,))] * a_uses, Call(1, "consume", (1,))]
    second = [*[Call(2, "use", (handed,))] * b_uses, Call(2, "consume", (handed,))]
    return first, second


def _streams_answers(a_uses: int = 0, b_uses: int = 0) -> dict[str, Any]:
    """What the learner measures once they have written the aliased program: how many of its
    orders panic when B gets #2 after the alias is registered (after A's second call); then,
    handing #2 over after A's first call instead (before the alias exists), how many orders
    there are and how many of them panic."""
    aliased = every_order(streams(a_uses, b_uses, alias=True), after=2)
    early = every_order(streams(a_uses, b_uses, alias=True), after=1)
    return {"PANICS_ALIASED": sum(o.panic is not None for o in aliased),
            "ORDERS_HANDED_EARLY": len(early),
            "PANICS_HANDED_EARLY": sum(o.panic is not None for o in early)}


two_streams = PredictSuite(
    "wire-3",
    parts=[
        Part("PANICS_ALIASED", "the aliased program's orders that panic", whole),
        Part("ORDERS_HANDED_EARLY", "the aliased program's orders when B gets #2 after A's "
                                    "first call", whole),
        Part("PANICS_HANDED_EARLY", "how many of those panic", whole),
    ],
    oracle=_streams_answers,
    mistakes={
        "kept the hand-off after A's second call": lambda a_uses, b_uses: {
            "ORDERS_HANDED_EARLY": len(every_order(streams(a_uses, b_uses, alias=True),
                                                   after=2))},
        "thought the moment of the hand-off does not matter once there is an alias":
            lambda a_uses, b_uses: {"PANICS_HANDED_EARLY": 0},
    },
)
