"""What a scenario step kind is: declared once, and both `simulate` and `validate` read it.

A `StepKind` names its fields (with their checks), which fields are tensors it consumes or only
reads, which field names its result, how it *runs* (through a `Runtime`), and, optionally, what
the guard can *plan* for it before it runs (a transfer's `TransferPlan`: path, policy, Burn's
walls). `validate` predicts a step by rehearsing that same `run` on a twin of the deployment
(`routerlab.core.scenario.predict`), so prediction and run cannot drift apart: there is no
second description of any step to keep in step with the first.

Step kinds are values: `BUILTIN` holds RouterLab's, and `BUILTIN.with_kinds(StepKind(...))`
makes a new set that a scenario is parsed with; nothing is registered globally.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base.errors import UnknownTensorError
from ..base.policies import Policy, spelled_policy
from .fields import Field

if TYPE_CHECKING:
    from ..fix.guard import TransferPlan
    from ..router.tensor import RouterTensor
    from ..runtime import Runtime

Step = Mapping[str, Any]
"""One `[[steps]]` table, validated against its kind's fields."""


def undefined_label(label: str) -> str:
    """The `UnknownTensorError` text for a label whose defining step failed (as expected)."""
    return f"tensor {label!r} does not exist: the step that defines it failed"


@dataclass
class RunContext:
    """What steps share while a scenario runs: the runtime (whose policy a transfer follows when
    it names none), the labelled tensors, and `override`, a what-if policy from the command line
    that replaces even a step's own."""

    runtime: Runtime
    tensors: dict[str, RouterTensor] = field(default_factory=dict)
    override: Policy | None = None

    def tensor(self, label: str) -> RouterTensor:
        """The tensor a step named `label`. Loading knows every label a step defines, but a step
        that failed as expected (`expect_error`) defined nothing, so its label fails here."""
        try:
            return self.tensors[label]
        except KeyError:
            raise UnknownTensorError(undefined_label(label)) from None

    def policy_of(self, step: Step) -> Policy | None:
        """The policy a step's transfer asks for (None: the runtime's)."""
        return self.override or _step_policy(step)


def _step_policy(step: Step) -> Policy | None:
    """A step's own policy: `policy`, or the older spelling `legacy = true/false` (loading
    refuses a step that gives both)."""
    return spelled_policy(step.get("policy"), step.get("legacy"))


Run = Callable[[RunContext, Step], str]
Plan = Callable[[RunContext, Step], "TransferPlan | None"]


@dataclass(frozen=True)
class StepKind:
    """A kind of step (`op = "<name>"`), declared once. `run` does the work and returns a
    one-line description; `plan`, when given, says before the step runs what the guard
    decides for it (called on the same context, just before `run`)."""

    name: str
    fields: Mapping[str, Field]
    run: Run
    plan: Plan | None = None
    consumes: tuple[str, ...] = ()
    """Fields naming tensors the step consumes (an op's inputs, as in Rust)."""
    reads: tuple[str, ...] = ()
    """Fields naming tensors the step uses without consuming them."""
    defines: str | None = None
    """The field naming the tensor the step creates."""
    help: str = ""

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.consumes + self.reads

    def input_labels(self, step: Step) -> list[str]:
        """The labels of the tensors `step` takes, in order: a field names one label, or a list
        of them (a custom op's `inputs`)."""
        labels: list[str] = []
        for name in self.inputs:
            value = step.get(name)
            if isinstance(value, list):
                labels.extend(value)
            elif value is not None:
                labels.append(value)
        return labels


class StepKinds(Mapping[str, StepKind]):
    """An immutable set of step kinds, by name."""

    def __init__(self, kinds: Mapping[str, StepKind]) -> None:
        self._kinds = dict(kinds)

    def __getitem__(self, name: str) -> StepKind:
        return self._kinds[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds)

    def __len__(self) -> int:
        return len(self._kinds)

    def with_kinds(self, *kinds: StepKind) -> StepKinds:
        """A new set with `kinds` added (or replacing those of the same name)."""
        return StepKinds({**self._kinds, **{k.name: k for k in kinds}})
