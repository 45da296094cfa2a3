"""Running a scenario (`routerlab simulate`): each step through its kind's `run`, on a `Runtime`.

The runner yields one `StepResult` per step: what happened, every device's registry after it, and
the trace events it produced. A step that fails stops the run with a `ScenarioRunError`, unless
its `expect_error` matches, in which case the runtime has already rolled that step back and the
run goes on.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..base.errors import RouterLabError, ScenarioError
from ..base.policies import Policy
from ..base.trace import TraceEvent
from ..base.view import TableView
from ..fix.guard import TransferPlan
from ..runtime import Runtime
from ..serving.faults import run_with_faults
from .kinds import RunContext
from .load import Scenario
from .seen import Seen, seen_at

BEFORE_STEPS = "before step 1 (creating the devices)"
"""Where a run fails that cannot create a listed device (a `cuda:N` without a usable GPU)."""


class ScenarioRunError(ScenarioError):
    """A run that stopped: the step that failed (`None`: before the first step, while the
    listed devices were created), its op, the class name of the error and its text. `str()` is
    the one line the CLI prints; `to_dict()` is the `failure` object of `simulate --json`."""

    def __init__(self, source: str, step: int | None, op: str | None, error: str,
                 message: str, *, text: str | None = None, seen: Seen | None = None) -> None:
        where = f"step {step} ({op})" if step is not None else BEFORE_STEPS
        later = "" if seen is None else f"; {seen.clause()}"
        super().__init__(text or f"{source}: {where} failed: {error}: {message}{later}")
        self.step = step
        self.op = op
        self.error = error
        self.message = message
        self.seen = seen
        """Where Burn's user sees a server-side panic (core/scenario/seen.py), else None."""

    def to_dict(self) -> dict[str, Any]:
        """The failure; with `seen` (its step and why) only for a server-side panic."""
        out: dict[str, Any] = {"step": self.step, "op": self.op, "error": self.error,
                               "message": self.message}
        if self.seen is not None:
            out["seen"] = {"step": self.seen.step, "why": self.seen.why}
        return out


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
    of its message (the one rule for `simulate` and `validate`, through `Played.unexpected`)."""
    names = {cls.__name__ for cls in type(error).__mro__}
    return expected in names or expected in str(error)


def run_policy(scenario: Scenario, override: Policy | str | None) -> Policy:
    """The run's policy: a command-line what-if replaces the file's (`legacy` then replays Burn
    everywhere, not only in transfers), and the file's defaults to `native`."""
    if override is not None:
        return Policy.parse(override)
    return scenario.policy or Policy.NATIVE


@dataclass(frozen=True)
class Played:
    """One step as the shared driver played it: the description of what it did, or the error
    it raised (the runtime has rolled the step back), whether that error was the expected one,
    and the guard's plan when its kind has one."""

    step: int
    op: str
    description: str
    error: RouterLabError | None
    plan: TransferPlan | None = None

    def unexpected(self, expected: str | None) -> bool:
        """Whether the step did other than the file says: failed when it should not, failed
        otherwise than `expected`, or succeeded when `expected` says it fails."""
        if self.error is None:
            return expected is not None
        return expected is None or not matches(self.error, expected)


def play(scenario: Scenario, rt: Runtime, override: Policy | None,
         faults: bool = True) -> Iterator[Played]:
    """Play every step on `rt` through its kind: first its plan (if any), then its run (after
    injecting the step's faults, unless `faults` is False: `validate` rehearses without them).
    This is the one loop both `simulate` and `validate` use."""
    ctx = RunContext(rt, override=override)
    for number, step in enumerate(scenario.steps, start=1):
        kind = scenario.kinds[step["op"]]
        at = scenario.faults_at(number) if faults else []
        plan = None
        try:
            plan = kind.plan(ctx, step) if kind.plan is not None else None
            if at:
                move = ((ctx.tensor(step["tensor"]).device, step["device"])
                        if kind.name == "to_device" else None)
                description = run_with_faults(rt, at, functools.partial(kind.run, ctx, step),
                                              move)
            else:
                description = kind.run(ctx, step)
        except RouterLabError as failure:
            yield Played(number, kind.name, f"{kind.name} failed", failure, plan)
        else:
            yield Played(number, kind.name, description, None, plan)


def run_scenario(scenario: Scenario, runtime: Runtime | None = None,
                 policy: Policy | str | None = None, wire: bool = False) -> Iterator[StepResult]:
    """Run the steps in order, yielding a `StepResult` after each. `policy` replaces the policy
    of the run and of every transfer, as `validate_flow`'s does, so "validate --policy X"
    predicts exactly what "simulate --policy X" then does. `wire`: the clients replay
    burn-remote's outgoing batch, so each step's events say which batches left and why."""
    chosen = run_policy(scenario, policy)
    try:  # creates every listed device: a `cuda:N` one needs a usable GPU
        rt = runtime or Runtime(scenario.devices, policy=chosen, arrival=scenario.arrival,
                                fusion=scenario.fusion, transport=scenario.transport,
                                peers=scenario.peers or None, wire=wire,
                                custom_ops=scenario.custom_registry())
    except RouterLabError as failure:
        raise ScenarioRunError(scenario.source, None, None, type(failure).__name__,
                               str(failure)) from failure
    try:
        yield from _results(scenario, rt, policy, chosen)
    finally:
        if runtime is None:
            rt.close()  # the run's sessions on served peers end with it


def _results(scenario: Scenario, rt: Runtime, policy: Policy | str | None,
             chosen: Policy) -> Iterator[StepResult]:
    mark = len(rt.trace)
    for played in play(scenario, rt, None if policy is None else chosen):
        step = scenario.steps[played.step - 1]
        expected = step.get("expect_error")
        if played.unexpected(expected) and played.error is None:
            message = f"expected an error matching {expected!r}, but it succeeded"
            raise ScenarioRunError(scenario.source, played.step, played.op, "ScenarioError",
                                   message, text=f"{scenario.source}: step {played.step} "
                                                 f"({played.op}): {message}")
        if played.unexpected(expected):
            raise ScenarioRunError(scenario.source, played.step, played.op,
                                   type(played.error).__name__, str(played.error),
                                   seen=seen_at(scenario, played.step, played.error)) \
                from played.error
        error = None if played.error is None else \
            f"{type(played.error).__name__}: {played.error}"
        description = played.description + (" as expected" if error else "")
        yield StepResult(played.step, played.op, description, rt.registries(),
                         rt.trace.read(mark), error, step.get("note", ""))
        mark = len(rt.trace)
