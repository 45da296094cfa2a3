"""What a scenario step kind is: declared once, and both `simulate` and `validate` read it.

A `StepKind` names its fields (with their checks), which fields are tensors it consumes or only
reads, which field names its result, how it *runs* (through a `Runtime`) and how it is
*predicted* (on `Meta`, what the client knows of a tensor before anything runs). Everything the
two have in common — looking labels up, consuming them, refusing a label whose step failed, a
dead session, judging `expect_error` — is done once, by the run and predict drivers, from these
declarations. Prediction calls the very checks the run calls (`TensorData.from_array`, the ops'
`infer`, `check_quantize`, `plan_transfer`), so a prediction can only be wrong where the values
matter and are unknown, and it says so (see `Meta.bound`).

Step kinds are values: `BUILTIN` holds RouterLab's, and `BUILTIN.with_kinds(StepKind(...))`
makes a new set that a scenario is parsed with; nothing is registered globally.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from routerlab.core.devices import Device
from routerlab.core.dtypes import AnyDType
from routerlab.core.errors import SessionEnded, UnknownTensorError, UseAfterDropError
from routerlab.core.policies import Policy
from routerlab.core.scenario.fields import Field

if TYPE_CHECKING:
    from routerlab.core.fix.guard import TransferPlan
    from routerlab.core.runtime import Runtime
    from routerlab.core.tensor import RouterTensor

Step = Mapping[str, Any]
"""One `[[steps]]` table, validated against its kind's fields."""


class Meta(NamedTuple):
    """What prediction knows of a label: enough for the ops' `infer` and `plan_transfer`."""

    device: Device
    dtype: AnyDType
    shape: tuple[int, ...]
    group: int
    """Which router tensor this is: clones share a group (and its count)."""
    bound: float = math.inf
    """An upper bound on |value| (inf: unknown, may not be finite). A quantize that calibrates
    fails on non-finite values, which only the values can tell; below a finite bound they are
    certainly finite, so the prediction is sure."""


def undefined_label(label: str) -> str:
    """The `UnknownTensorError` text for a label whose defining step failed (as expected)."""
    return f"tensor {label!r} does not exist: the step that defines it failed"


def consumed_label(label: str) -> str:
    return f"tensor {label!r} was already dropped or consumed by an earlier step"


@dataclass
class RunContext:
    """What steps share while a scenario runs: the runtime, the labelled tensors, and the
    policy every transfer follows unless it names one (`override`: a what-if from the command
    line, which replaces even those)."""

    runtime: Runtime
    tensors: dict[str, RouterTensor] = field(default_factory=dict)
    policy: Policy | None = None
    override: Policy | None = None

    def tensor(self, label: str) -> RouterTensor:
        """The tensor a step named `label`. Loading knows every label a step defines, but a step
        that failed as expected (`expect_error`) defined nothing, so its label fails here."""
        try:
            return self.tensors[label]
        except KeyError:
            raise UnknownTensorError(undefined_label(label)) from None

    def policy_of(self, step: Step) -> Policy | None:
        return self.override or _step_policy(step) or self.policy


def _step_policy(step: Step) -> Policy | None:
    """A step's own policy: `policy`, or the older spelling `legacy = true/false`."""
    if "policy" in step:
        return Policy.parse(step["policy"])
    if "legacy" in step:
        return Policy.LEGACY if step["legacy"] else Policy.NATIVE
    return None


@dataclass
class World:
    """The state prediction keeps while it walks a scenario.

    A label names a client *reference* (a `RouterTensor`): clones are new references to the
    same tensor (its `group`, which counts them), while a same-device `to_device` returns the
    very reference it was given, so its label is an alias. Consuming a reference ends every
    label that names it, as consuming the object ends every Python name bound to it."""

    policy: Policy
    override: Policy | None = None
    labels: dict[str, int] = field(default_factory=dict)
    """label -> reference"""
    refs: dict[int, Meta | None] = field(default_factory=dict)
    """reference -> what is known of it (None: made by a step prediction cannot follow)"""
    consumed: set[int] = field(default_factory=set)
    dead: set[Device] = field(default_factory=set)
    counts: dict[int, int] = field(default_factory=dict)
    _ids: Iterator[int] = field(default_factory=lambda: iter(range(1 << 62)))

    def ref(self, label: str) -> int:
        """The reference a label names, or the error a run raises for it: loading checked that
        some earlier step defines every label, so a missing one is a step that failed."""
        ref = self.labels.get(label)
        if ref is None:
            raise UnknownTensorError(undefined_label(label))
        if ref in self.consumed:
            raise UseAfterDropError(consumed_label(label))
        return ref

    def use(self, label: str) -> Meta | None:
        return self.refs[self.ref(label)]

    def alive(self, *devices: Device) -> None:
        for device in devices:
            if device in self.dead:
                raise SessionEnded(f"session {device} has ended (an earlier panic or hang "
                                   "ended it)")

    def new(self, device: Device, dtype: AnyDType, shape: tuple[int, ...],
            bound: float = math.inf) -> Meta:
        """A fresh tensor (its own group, one reference)."""
        group = next(self._ids)
        self.counts[group] = 1
        return Meta(device, dtype, tuple(shape), group, bound)

    def define(self, label: str, meta: Meta | None) -> None:
        """Bind `label` to a new reference."""
        ref = next(self._ids)
        self.refs[ref] = meta
        self.labels[label] = ref

    def alias(self, label: str, of: str) -> None:
        """Bind `label` to the reference `of` names."""
        self.labels[label] = self.labels[of]

    def consume(self, label: str) -> None:
        ref = self.labels[label]
        self.consumed.add(ref)
        meta = self.refs[ref]
        if meta is not None:
            self.counts[meta.group] -= 1

    def policy_of(self, step: Step) -> Policy:
        return self.override or _step_policy(step) or self.policy


@dataclass(frozen=True)
class Prediction:
    """A step predicted to succeed: its result (None when it defines none, or when prediction
    cannot follow it), the labels it consumes (None: its kind's `consumes`), an alias instead
    of a result, and for a transfer the guard's plan."""

    out: Meta | None = None
    consumed: tuple[str, ...] | None = None
    alias: str | None = None
    """The defined label names the same reference as this input label (nothing new made)."""
    plan: TransferPlan | None = None
    unchecked: str | None = None
    """Set when the step's outcome depends on what prediction cannot know: why."""


Run = Callable[[RunContext, Step], str]
Predict = Callable[[World, Step, list[Meta | None]], Prediction]


@dataclass(frozen=True)
class StepKind:
    """A kind of step (`op = "<name>"`), declared once. `run` does the work and returns a
    one-line description; `predict` gets the metas of the labels in `consumes` and `reads` (in
    that order) and returns a `Prediction` or raises the error the run would raise. A kind
    without `predict` is reported as not checked, with every label it defines."""

    name: str
    fields: Mapping[str, Field]
    run: Run
    predict: Predict | None = None
    consumes: tuple[str, ...] = ()
    """Fields naming tensors the step consumes (an op's inputs, as in Rust)."""
    reads: tuple[str, ...] = ()
    """Fields naming tensors the step uses without consuming them."""
    defines: str | None = None
    """The field naming the tensor the step creates."""
    judged: Callable[[Step], bool] = lambda step: True
    """Whether prediction decides this step's outcome (a read that compares values does not)."""
    help: str = ""

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.consumes + self.reads


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
