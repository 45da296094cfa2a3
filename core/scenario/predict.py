"""`validate`: a scenario judged before it runs, by rehearsing it on a twin of its deployment.

A prediction written separately from the run drifts from it (four flows `validate` once approved
then failed in `simulate`), and a symbolic one cannot know what only values decide: a NaN the
quantizer refuses, unsigned data Burn's legacy arms silently drop. So `validate` plays the very
same steps, through the same driver (`routerlab.core.scenario.run.play`), on a private twin:
the same devices, with `cuda:N` held in host memory by its profile's arithmetic (bit-identical
by construction, `routerlab.core.base.profiles`), and nothing of the user's touched. Around it the
guard adds what a rehearsal alone does not say: the plan of every transfer (path, policy,
Burn's walls, `plan_transfer`), every problem rather than the first (the twin rolls a failed
step back and goes on, as an expected failure does), and whether this machine can create each
listed `cuda:N` device at all (`routerlab.core.base.gpu.gpu_status`), which the run needs before
step 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import gpu
from ..base.devices import Device, parse_device
from ..base.dtypes import is_quantized
from ..base.errors import GpuUnavailableError
from ..base.policies import Policy
from ..base.view import Cell, TableView, Viewable
from ..fix.guard import Outcome, TransferPlan
from ..router.backend import Backend
from ..runtime import Runtime
from .kinds import Step
from .load import Scenario
from .run import BEFORE_STEPS, Played, play, run_policy
from .seen import Seen, seen_at

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
    failure: tuple[int | None, str] | None = None
    """Where the run would stop, as `simulate` reports it (`ScenarioRunError.step` and
    `.error`): the step (None: before step 1) and the error class of the first problem."""
    seen: Seen | None = None
    """When that first problem is a server-side panic: where Burn's user would see it
    (core/scenario/seen.py); None otherwise."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        quantized = sum(1 for t in self.transfers if is_quantized(t.plan.dtype))
        head = (f"flow OK: {quantized} quantized transfer(s) checked" if self.ok else
                f"flow FAILS ({len(self.problems)} problem(s)): " + "; ".join(self.problems))
        under = "" if self.policy is None else f" under policy {self.policy}"
        return head + under

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
                "failure": None if self.failure is None else
                {"step": self.failure[0], "error": self.failure[1],
                 **({} if self.seen is None else {"seen_step": self.seen.step})},
                "transfers": [t.to_dict() for t in self.transfers]}


def validate_flow(scenario: Scenario, policy: Policy | str | None = None) -> FlowReport:
    """Judge every step of `scenario` by rehearsing it on a twin; `policy` replaces the policy
    of the run and of every transfer (a what-if: "and under reject?"), as `simulate --policy`
    does."""
    override = None if policy is None else Policy.parse(policy)
    report = _Report(scenario)
    for problem in _device_problems(scenario):
        report.problem(None, GpuUnavailableError.__name__, problem)
    # With served peers the twin's sessions run there, each client's apart from every other's
    # (docs/remote.md), so the rehearsal touches nothing a real run holds.
    with Runtime(scenario.devices, policy=run_policy(scenario, override),
                 arrival=scenario.arrival, fusion=scenario.fusion, transport=scenario.transport,
                 backends=twin_backend, peers=scenario.peers or None,
                 custom_ops=scenario.custom_registry()) as twin:
        for played in play(scenario, twin, override, faults=False):  # faults: simulate only
            report.add(played, scenario.steps[played.step - 1])
    return FlowReport(scenario.source, scenario.title, override, tuple(report.transfers),
                      tuple(report.problems), report.failure, report.seen)


def twin_backend(device: Device) -> Backend:
    """A device's backend for a rehearsal: host memory, whatever the device, so `cuda:N` is
    rehearsed on a machine without a GPU (its profile keeps the arithmetic CubeCL's)."""
    return Backend(device, np)


def _device_problems(scenario: Scenario) -> list[str]:
    """A run creates every listed device before step 1 (`Runtime(devices)`), and a `cuda:N`
    device needs a usable GPU (`routerlab.core.base.gpu.require_cupy`, whose texts these are). The
    probe (`gpu_status`) runs only for a flow that lists one, so CuPy is never imported for a
    CPU-only flow."""
    problems = []
    for device in map(parse_device, scenario.devices):
        if device.kind != "cuda" or device.peer in scenario.peers:  # a peer has its own GPU
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


class _Report:
    """What the rehearsal collects: the transfers worth a row, the problems, the first one."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.transfers: list[FlowTransfer] = []
        self.problems: list[str] = []
        self.failure: tuple[int | None, str] | None = None
        self.seen: Seen | None = None

    def problem(self, step: int | None, error: str, text: str, seen: Seen | None = None) -> None:
        self.problems.append(text)
        if self.failure is None:
            self.failure = (step, error)
            self.seen = seen

    def add(self, played: Played, step: Step) -> None:
        expected = step.get("expect_error")
        where = f"step {played.step} ({played.op})"
        if played.unexpected(expected) and played.error is None:
            self.problem(played.step, "ScenarioError", f"{where} expects an error matching "
                                                       f"{expected!r} but it succeeds")
            verdict = "FAILS: expected an error, but it succeeds"
        elif played.unexpected(expected):
            wrong = type(played.error).__name__
            seen = seen_at(self.scenario, played.step, played.error)
            later = "" if seen is None else f"; {seen.clause()}"
            self.problem(played.step, wrong, f"{where} would fail: {wrong}: {played.error}{later}",
                         seen)
            verdict = f"FAILS: {wrong}: {played.error}"
        else:
            verdict = "ok" if played.error is None else "fails as expected"
        plan = played.plan
        if plan is not None and (is_quantized(plan.dtype) or not plan.ok or verdict != "ok"):
            self.transfers.append(FlowTransfer(played.step, step["tensor"], plan, expected,
                                               verdict))
