"""Running a scenario (`routerlab simulate`): each step through its kind's `run`, on a `Runtime`.

The runner yields one `StepResult` per step: what happened, every device's registry after it, and
the trace events it produced. A step that fails stops the run with a `ScenarioRunError`, unless
its `expect_error` matches, in which case the runtime has already rolled that step back and the
run goes on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from routerlab.core.errors import RouterLabError, ScenarioError
from routerlab.core.policies import Policy
from routerlab.core.runtime import Runtime
from routerlab.core.scenario.kinds import RunContext
from routerlab.core.scenario.load import Scenario
from routerlab.core.trace import TraceEvent
from routerlab.core.view import TableView

BEFORE_STEPS = "before step 1 (creating the devices)"
"""Where a run fails that cannot create a listed device (a `cuda:N` without a usable GPU)."""


class ScenarioRunError(ScenarioError):
    """A run that stopped: the step that failed (`None`: before the first step, while the
    listed devices were created), its op, the class name of the error and its text. `str()` is
    the one line the CLI prints; `to_dict()` is the `failure` object of `simulate --json`."""

    def __init__(self, source: str, step: int | None, op: str | None, error: str,
                 message: str, *, text: str | None = None) -> None:
        where = f"step {step} ({op})" if step is not None else BEFORE_STEPS
        super().__init__(text or f"{source}: {where} failed: {error}: {message}")
        self.step = step
        self.op = op
        self.error = error
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "op": self.op, "error": self.error, "message": self.message}


@dataclass(frozen=True)
class StepResult:
    """One step, after it ran. Data only; the faces render it."""

    step: int
    op: str
    description: str
    registries: dict[str, TableView]
    events: list[TraceEvent]
    error: str | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "op": self.op, "description": self.description,
                "note": self.note, "error": self.error,
                "registries": {d: v.to_dict() for d, v in self.registries.items()},
                "events": [e.to_dict() for e in self.events]}


def matches(error: BaseException, expected: str) -> bool:
    """Whether an error is the one `expect_error` names: a class in its hierarchy, or a piece
    of its message. Prediction judges its predicted errors with the same function."""
    names = {cls.__name__ for cls in type(error).__mro__}
    return expected in names or expected in str(error)


def run_policy(scenario: Scenario, override: Policy | str | None) -> Policy:
    """The run's policy: a command-line what-if replaces the file's (`legacy` then replays Burn
    everywhere, not only in transfers), and the file's defaults to `native`."""
    if override is not None:
        return Policy.parse(override)
    return scenario.policy or Policy.NATIVE


def run_scenario(scenario: Scenario, runtime: Runtime | None = None,
                 policy: Policy | str | None = None) -> Iterator[StepResult]:
    """Run the steps in order, yielding a `StepResult` after each. `policy` replaces the policy
    of the run and of every transfer, as `validate_flow`'s does, so "validate --policy X"
    predicts exactly what "simulate --policy X" then does."""
    chosen = run_policy(scenario, policy)
    try:  # creates every listed device: a `cuda:N` one needs a usable GPU
        rt = runtime or Runtime(scenario.devices, policy=chosen, arrival=scenario.arrival)
    except RouterLabError as failure:
        raise ScenarioRunError(scenario.source, None, None, type(failure).__name__,
                               str(failure)) from failure
    ctx = RunContext(rt, override=None if policy is None else chosen)
    for number, step in enumerate(scenario.steps, start=1):
        kind = scenario.kinds[step["op"]]
        mark = len(rt.trace)
        error = None
        try:
            description = kind.run(ctx, step)
        except RouterLabError as failure:
            expected = step.get("expect_error")
            if expected is None or not matches(failure, expected):
                raise ScenarioRunError(scenario.source, number, kind.name,
                                       type(failure).__name__, str(failure)) from failure
            description = f"{kind.name} failed as expected"
            error = f"{type(failure).__name__}: {failure}"
        else:
            if "expect_error" in step:
                message = f"expected an error matching {step['expect_error']!r}, but it succeeded"
                raise ScenarioRunError(scenario.source, number, kind.name, "ScenarioError",
                                       message, text=f"{scenario.source}: step {number} "
                                                     f"({kind.name}): {message}")
        yield StepResult(number, kind.name, description, rt.registries(), rt.trace.read(mark),
                         error, step.get("note", ""))
