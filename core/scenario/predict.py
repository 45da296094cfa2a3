"""`validate`: a scenario judged before anything runs, step by step, from its kinds' predictions.

The walk follows what the client knows of each label (device, dtype, shape: `Meta`) and asks each
step kind's `predict` what its step would do; the bookkeeping every kind shares — which labels
exist, which references are consumed, which sessions a panic ended, whether `expect_error`
matches — is done here once, with the same rules as the run (`routerlab.core.scenario.run`). A
step whose outcome depends on values prediction cannot know is listed as not checked.

Burn's failures are not local: a legacy panic in a session ends that session for good (no
`catch_unwind`, `crates/burn-remote/src/server/worker.rs:119-134`) and a same-peer target left
waiting ends with it, so a later step on either device fails with `SessionEnded`. A listed
`cuda:N` device that this machine cannot create (no usable GPU,
`routerlab.core.gpu.gpu_status`) is a problem before step 1, where the run fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from routerlab.core import gpu
from routerlab.core.devices import Device, parse_device
from routerlab.core.dtypes import is_quantized
from routerlab.core.errors import GpuUnavailableError, RouterLabError, UseAfterDropError
from routerlab.core.fix.guard import Outcome, TransferPlan
from routerlab.core.policies import Policy
from routerlab.core.scenario.builtin import PlannedFailure
from routerlab.core.scenario.kinds import Prediction, Step, StepKind, World
from routerlab.core.scenario.load import Scenario
from routerlab.core.scenario.run import BEFORE_STEPS, matches, run_policy
from routerlab.core.view import Cell, TableView, Viewable

COLUMNS = ["step", "tensor", "dtype", "move", "path", "policy", "outcome", "expect_error",
           "verdict"]


@dataclass(frozen=True)
class FlowTransfer:
    """One checked transfer (every quantized one, and any other that would fail)."""

    step: int
    label: str
    plan: TransferPlan
    expect_error: str | None
    verdict: str
    """`ok`, `fails as expected`, or `FAILS: …`."""

    @property
    def ok(self) -> bool:
        return not self.verdict.startswith("FAILS")

    @property
    def short_verdict(self) -> str:
        """The verdict without the error text (the summary line carries it)."""
        head, _, rest = self.verdict.partition(":")
        error, named, _ = rest.partition(":")
        return f"{head} ({error.strip()})" if head == "FAILS" and named else head

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "tensor": self.label, "plan": self.plan.to_dict(),
                "expect_error": self.expect_error, "verdict": self.verdict, "ok": self.ok}


@dataclass(frozen=True)
class FlowReport(Viewable):
    """The guard's verdict on one scenario."""

    source: str
    title: str
    policy: Policy | None
    """The policy every transfer was judged under, when overridden."""
    transfers: tuple[FlowTransfer, ...]
    problems: tuple[str, ...]
    unchecked: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        quantized = sum(1 for t in self.transfers if is_quantized(t.plan.dtype))
        head = (f"flow OK: {quantized} quantized transfer(s) checked" if self.ok else
                f"flow FAILS ({len(self.problems)} problem(s)): " + "; ".join(self.problems))
        under = "" if self.policy is None else f" under policy {self.policy}"
        return head + under + ("" if not self.unchecked else
                               f"; not checked: {', '.join(self.unchecked)}")

    def view(self) -> TableView:
        rows: list[list[Cell]] = []
        styles: dict[int, str] = {}
        for i, t in enumerate(self.transfers):
            p = t.plan
            rows.append([t.step, t.label, str(p.dtype), f"{p.source} -> {p.target}", p.path.value,
                         p.policy.value, p.outcome.value, t.expect_error, t.short_verdict])
            if not t.ok:
                styles[i] = "error"
            elif p.outcome is not Outcome.MOVE and p.outcome is not Outcome.NOOP:
                styles[i] = "muted"
        return TableView(f"Guard: {self.title} ({self.source})", COLUMNS, rows,
                         caption=self.summary(), styles=styles)

    def to_dict(self) -> dict[str, Any]:
        return {"scenario": self.source, "title": self.title, "ok": self.ok,
                "policy": None if self.policy is None else self.policy.value,
                "summary": self.summary(), "problems": list(self.problems),
                "unchecked": list(self.unchecked),
                "transfers": [t.to_dict() for t in self.transfers]}


def validate_flow(scenario: Scenario, policy: Policy | str | None = None) -> FlowReport:
    """Judge every step of `scenario` without running it; `policy` replaces the policy of the
    run and of every transfer (a what-if: "and under reject?"), as `simulate --policy` does."""
    override = None if policy is None else Policy.parse(policy)
    walk = _Walk(World(run_policy(scenario, override), override))
    walk.problems.extend(_device_problems(scenario))
    for number, step in enumerate(scenario.steps, start=1):
        walk.step(scenario.kinds[step["op"]], number, step)
    return FlowReport(scenario.source, scenario.title, override, tuple(walk.transfers),
                      tuple(walk.problems), tuple(dict.fromkeys(walk.unchecked)))


def _device_problems(scenario: Scenario) -> list[str]:
    """A run creates every listed device before step 1 (`Runtime(devices)`), and a `cuda:N`
    device needs a usable GPU (`routerlab.core.gpu.require_cupy`, whose texts these are). The
    probe (`gpu_status`) runs only for a flow that lists one, so CuPy is never imported for a
    CPU-only flow."""
    problems = []
    for device in map(parse_device, scenario.devices):
        if device.kind != "cuda":
            continue
        status = gpu.gpu_status()
        if not status.usable:
            reason = f"cuda:{device.index} is not available: {status.reason}"
        elif device.index >= status.device_count:
            reason = f"cuda:{device.index} does not exist: {status.device_count} GPU(s) found"
        else:
            continue
        problems.append(f"{BEFORE_STEPS} would fail: {GpuUnavailableError.__name__}: {reason} "
                        f"({device} {_first_use(scenario, device)})")
    return problems


def _first_use(scenario: Scenario, device: Device) -> str:
    for number, step in enumerate(scenario.steps, start=1):
        fields = scenario.kinds[step["op"]].fields.items()
        if any(spec.device and name in step and parse_device(step[name]) == device
               for name, spec in fields):
            return f"is first used by step {number}, {step['op']}"
    return "is listed in 'devices' but used by no step"


class _Walk:
    """The symbolic run: the world, and what the report collects."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.transfers: list[FlowTransfer] = []
        self.problems: list[str] = []
        self.unchecked: list[str] = []

    def step(self, kind: StepKind, number: int, step: Step) -> None:
        expected = step.get("expect_error")
        judged = kind.judged(step)
        if kind.predict is None:
            self.unchecked.append(kind.name)
            if kind.defines is not None:
                self.world.define(step[kind.defines], None)
            return
        try:
            inputs = self._inputs(kind, step)
            prediction = kind.predict(self.world, step, inputs)
        except (RouterLabError, PlannedFailure) as raised:
            error, plan = (raised.error, raised.plan) if isinstance(raised, PlannedFailure) \
                else (raised, None)
            verdict = self._failed(number, kind.name, expected, error)
            if plan is not None:
                self.transfers.append(FlowTransfer(number, step["tensor"], plan, expected,
                                                   verdict))
            return
        self._succeeded(kind, step, prediction)
        if not judged:
            self.unchecked.append(f"step {number} ({kind.name}) compares values")
        elif prediction.unchecked is not None:
            self.unchecked.append(f"step {number}: {prediction.unchecked}")
        elif expected is not None:
            self.problems.append(f"step {number} ({kind.name}) expects an error matching "
                                 f"{expected!r} but the guard predicts it succeeds")
        plan = prediction.plan
        if plan is not None and (is_quantized(plan.dtype) or not plan.ok):
            verdict = "ok" if expected is None or not judged else \
                "FAILS: expected an error, but it succeeds"
            self.transfers.append(FlowTransfer(number, step["tensor"], plan, expected, verdict))

    def _inputs(self, kind: StepKind, step: Step) -> list[Any]:
        """The metas of the step's input labels, refusing a reference consumed twice in one
        step (the client refuses an op that is passed one tensor twice)."""
        refs = [self.world.ref(step[name]) for name in kind.inputs if name in step]
        consumed = [self.world.labels[step[n]] for n in kind.consumes if n in step]
        if len(set(consumed)) < len(consumed):
            raise UseAfterDropError("a tensor is passed twice, so the first use would consume "
                                    "it before the second; pass a clone() as one of them")
        return [self.world.refs[ref] for ref in refs]

    def _succeeded(self, kind: StepKind, step: Step, prediction: Prediction) -> None:
        consumed = prediction.consumed
        if consumed is None:
            consumed = tuple(step[name] for name in kind.consumes if name in step)
        for label in consumed:
            self.world.consume(label)
        if kind.defines is None or kind.defines not in step:
            return
        if prediction.alias is not None:
            self.world.alias(step[kind.defines], prediction.alias)
        else:
            self.world.define(step[kind.defines], prediction.out)

    def _failed(self, number: int, op: str, expected: str | None, error: BaseException) -> str:
        """The verdict on a step predicted to fail. Its label keeps naming what it named (the
        run rolls the step back), or nothing."""
        if expected is not None and matches(error, expected):
            return "fails as expected"
        self.problems.append(f"step {number} ({op}) would fail: {type(error).__name__}: {error}")
        return f"FAILS: {type(error).__name__}: {error}"
