"""Where a Burn user sees a server-side panic: at the next call that waits for an answer.

burn-remote's client sends ops fire-and-forget, batched (routerlab.core.wire.queue): a step whose
op panics the server returns normally in Burn, and the user learns it only when a later call on
that session waits for the server's answer, a read here (`crates/burn-remote/src/client/
service.rs:481-492,564-567`; the read fails, `crates/burn-remote/src/client/runner.rs:44-52`).
RouterLab stops at the failing step, all or nothing; `seen_at` says which later step of the file
is the one where Burn's user would see it: a read of a tensor on the dead session, or a read of a
tensor made, after the panic, from one (moved out of it: the move was sent to a dead worker, so
its target waits for ever). A client-side panic (one that ended no session) is seen where it is
raised.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.devices import parse_device
from ..base.errors import BurnPanic
from .kinds import Step
from .load import Scenario

ANSWERED = ("read", "read_quantized")
"""Step kinds that wait for a session's answer (`ReadTensor`)."""


@dataclass(frozen=True)
class Seen:
    """Where the user sees a failing step's panic: a step number (None: no later step waits
    for that session's answer, so the program would end without seeing it) and why."""

    step: int | None
    why: str

    def clause(self) -> str:
        return f"in Burn the user sees it {self.why}"


def define(scenario: Scenario, step: Step, where: dict[str, str]) -> None:
    """Note the device of the tensor `step` defines, read from the file: a step with a `device`
    field puts its tensor there, any other keeps its first input's."""
    kind = scenario.kinds[step["op"]]
    if kind.defines is None or kind.defines not in step:
        return
    if "device" in kind.fields and "device" in step:
        where[step[kind.defines]] = str(parse_device(step["device"]))
    elif (inputs := kind.input_labels(step)) and inputs[0] in where:
        where[step[kind.defines]] = where[inputs[0]]


def seen_at(scenario: Scenario, failed: int, error: BaseException | None) -> Seen | None:
    """Where Burn's user sees the panic of step `failed` (numbered from 1); None when it is not
    a server-side panic (it is seen at the failing step itself)."""
    if not isinstance(error, BurnPanic) or error.session is None:
        return None
    where: dict[str, str] = {}
    lost: set[str] = set()
    start = failed if scenario.steps[failed - 1]["op"] in ANSWERED else failed + 1
    for number, step in enumerate(scenario.steps, start=1):
        label = step.get("tensor", "")
        if number >= start and step["op"] in ANSWERED:
            what = f"at step {number} ({step['op']} of {label!r})"
            if where.get(label) == error.session:
                return Seen(number, f"{what}, the next call that waits for an answer from "
                                    f"{error.session}")
            if label in lost:
                return Seen(number, f"{what}, which waits for ever: the tensor was to come out "
                                    f"of {error.session}, whose session is dead")
        define(scenario, step, where)
        kind = scenario.kinds[step["op"]]
        inputs = kind.input_labels(step)
        if number > failed and kind.defines is not None and kind.defines in step and any(
                i in lost or where.get(i) == error.session for i in inputs):
            lost.add(step[kind.defines])  # made from what the dead session never hands over
    return Seen(None, f"at no step: no later step waits for an answer from {error.session}, "
                      "so the program ends without seeing it")
