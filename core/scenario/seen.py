"""Where a Burn user sees a server-side panic: at the next call that waits for an answer.

burn-remote's client sends ops fire-and-forget, batched (routerlab.core.wire.queue): a step whose
op panics the server returns normally in Burn, and the user learns it only when a later call on
that session waits for the server's answer, a read here (`crates/burn-remote/src/client/
service.rs:481-492,564-567`; the read fails, `crates/burn-remote/src/client/runner.rs:44-52`).
RouterLab stops at the failing step, all or nothing; `seen_at` says which later step of the file
is the one where Burn's user would see it. A client-side panic (one that ended no session) is
seen where it is raised.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..devices import parse_device
from ..errors import BurnPanic
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
    elif kind.inputs and kind.inputs[0] in step and step[kind.inputs[0]] in where:
        where[step[kind.defines]] = where[step[kind.inputs[0]]]


def seen_at(scenario: Scenario, failed: int, error: BaseException) -> Seen | None:
    """Where Burn's user sees the panic of step `failed` (numbered from 1); None when it is not
    a server-side panic (it is seen at the failing step itself)."""
    if not isinstance(error, BurnPanic) or error.session is None:
        return None
    where: dict[str, str] = {}
    start = failed if scenario.steps[failed - 1]["op"] in ANSWERED else failed + 1
    for number, step in enumerate(scenario.steps, start=1):
        if (number >= start and step["op"] in ANSWERED
                and where.get(step.get("tensor", "")) == error.session):
            return Seen(number, f"at step {number} ({step['op']} of {step['tensor']!r}), the "
                                f"next call that waits for an answer from {error.session}")
        define(scenario, step, where)
    return Seen(None, f"at no step: no later step waits for an answer from {error.session}, "
                      "so the program ends without seeing it")
