"""Reading a scenario file: TOML, validated completely before anything runs.

A scenario is never executed as code: it is parsed with `tomllib` and every step is checked
against its kind's declared fields (types, checks, device strings, tensor labels) so that a bad
file is refused with the step and field at fault. The format is documented in docs/scenarios.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path as FilePath
from typing import Any

from ..base.devices import Device, check_topology, parse_device
from ..base.errors import RouterLabError, ScenarioError
from ..base.limits import MAX_SCENARIO_BYTES
from ..base.policies import Policy, spelled_policy
from ..base.request import DEFAULT_TRANSPORT, Arrival, Transport
from ..base.safe_io import parse_toml, read_text
from ..remote.address import check_peers
from ..router.custom_examples import EXAMPLES, example_registry, unknown_examples
from ..router.custom_op import CustomOpRegistry
from ..serving.faults import Fault, FaultKind, fault_from_table
from . import fields as f
from .builtin import BUILTIN
from .kinds import StepKinds

TOP_FIELDS = {
    "title": f.Field((str,), False), "description": f.Field((str,), False),
    "devices": f.Field((list,)), "steps": f.Field((list,)),
    "policy": f.Field((str,), False, "the policy of the run: what every transfer follows unless "
                                     "it names one; legacy replays Burn 2c06be3 everywhere",
                      f.parse_problem(Policy.parse)),
    "legacy": f.Field((bool,), False, "the older spelling of policy = \"legacy\""),
    "arrival": f.ARRIVAL,
    "transport": f.TRANSPORT,
    "peers": f.PEERS,
    "faults": f.Field((list,), False, "faults injected into served peers ([[faults]], "
                                      "docs/faults.md)"),
    "custom_ops": f.Field((list,), False, "the example custom-op handlers the runtime registers, "
                                          "by id (docs/scenarios.md); no code, ever",
                          f.labels_problem),
    "fusion": f.Field((bool,), False, "the client is built with Burn's fusion feature: a legacy "
                                      "quantize then reaches the server's todo!() and ends the "
                                      "session, instead of the bare router's unimplemented!()"),
}


@dataclass(frozen=True)
class Scenario:
    """A validated scenario, with the step kinds it was validated against."""

    source: str
    title: str
    description: str
    devices: tuple[str, ...]
    steps: tuple[Mapping[str, Any], ...]
    policy: Policy | None = None
    """The run's policy (None: `native`); `legacy = true` in the file reads as `legacy`."""
    arrival: str = Arrival.SOURCE_FIRST.value
    fusion: bool = False
    transport: str = DEFAULT_TRANSPORT.value
    """How cross-peer downloads travel unless a step names one."""
    peers: Mapping[str, str] = field(default_factory=dict)
    """Served peers by name (`[peers] peer2 = "ws://127.0.0.1:3001"`): their devices run in
    `routerlab serve` processes (docs/remote.md)."""
    faults: tuple[Fault, ...] = ()
    """Faults injected before their steps run (`[[faults]]`, `--fault`; docs/faults.md)."""
    custom_ops: tuple[str, ...] = ()
    """The example custom-op handlers its runtime registers (core/router/custom_examples.py)."""
    kinds: StepKinds = field(default_factory=lambda: BUILTIN, repr=False, compare=False)

    def custom_registry(self) -> CustomOpRegistry | None:
        """The registry its runtime (and `validate`'s twin) is built with."""
        return example_registry(self.custom_ops)

    @property
    def legacy(self) -> bool:
        return self.policy is Policy.LEGACY

    def overridden(self, *, fusion: bool = False, transport: str | None = None,
                   peers: Mapping[str, str] | None = None,
                   faults: Sequence[Fault] = ()) -> Scenario:
        """The scenario with the command line's settings in place of the file's (`--fusion`
        turns fusion on; `--transport` names the transport; `--peer` adds or replaces a served
        peer; `--fault` adds a fault)."""
        changes: dict[str, Any] = {"fusion": True} if fusion else {}
        if transport is not None:
            changes["transport"] = Transport.parse(transport).value
        if peers:
            changes["peers"] = {**self.peers, **peers}
        if faults:
            changes["faults"] = (*self.faults, *_checked_faults(faults, self.source, self.steps))
        return replace(self, **changes)

    def faults_at(self, step: int) -> list[Fault]:
        return [fault for fault in self.faults if fault.step == step]


def load_scenario(path: str | FilePath, kinds: StepKinds = BUILTIN) -> Scenario:
    """Read and validate a scenario file."""
    file = FilePath(path)
    text = read_text(file, what="scenario", limit=MAX_SCENARIO_BYTES, error=ScenarioError)
    return parse_scenario(text, str(file), kinds)


def parse_scenario(text: str, source: str = "<scenario>", kinds: StepKinds = BUILTIN) -> Scenario:
    """Parse TOML text and validate every step before anything runs."""
    doc = parse_toml(text, source, ScenarioError)
    check_fields(doc, TOP_FIELDS, source)
    devices = doc["devices"]
    if not devices or not all(isinstance(d, str) for d in devices):
        raise ScenarioError(f"{source}: field 'devices': expected a non-empty list of device "
                            "strings")
    try:
        declared = [parse_device(d) for d in devices]
        check_topology(declared)
    except RouterLabError as error:
        raise ScenarioError(f"{source}: field 'devices': {error}") from None
    labels: set[str] = set()
    for number, step in enumerate(doc["steps"], start=1):
        _check_step(step, number, labels, source, declared, kinds)
    return Scenario(source, doc.get("title", FilePath(source).stem), doc.get("description", ""),
                    tuple(devices), tuple(doc["steps"]), _policy(doc, source),
                    Arrival.parse(doc.get("arrival", Arrival.SOURCE_FIRST)).value,
                    doc.get("fusion", False),
                    Transport.parse(doc.get("transport", DEFAULT_TRANSPORT)).value,
                    check_peers(doc.get("peers", {})), _faults(doc, source),
                    _custom_ops(doc, source), kinds)


def _custom_ops(doc: Mapping[str, Any], source: str) -> tuple[str, ...]:
    names = tuple(doc.get("custom_ops", ()))
    unknown = unknown_examples(names)
    if unknown:
        raise ScenarioError(f"{source}: field 'custom_ops': unknown example handler(s) "
                            f"{', '.join(map(repr, unknown))}; expected one of: "
                            f"{', '.join(EXAMPLES)}")
    return names


def _faults(doc: Mapping[str, Any], source: str) -> tuple[Fault, ...]:
    tables = doc.get("faults", [])
    if not all(isinstance(t, dict) for t in tables):
        raise ScenarioError(f"{source}: field 'faults': expected tables ([[faults]])")
    faults = [fault_from_table(t, f"{source}: fault {n}") for n, t in enumerate(tables, start=1)]
    return _checked_faults(faults, source, doc["steps"])


def _checked_faults(faults: Sequence[Fault], source: str,
                    steps: Sequence[Mapping[str, Any]]) -> tuple[Fault, ...]:
    """Each fault at a step that exists; a race at a transfer step."""
    for fault in faults:
        if fault.step > len(steps):
            raise ScenarioError(f"{source}: {fault.describe()}: the file has {len(steps)} "
                                "step(s)")
        if fault.kind is FaultKind.RACE and steps[fault.step - 1].get("op") != "to_device":
            raise ScenarioError(f"{source}: {fault.describe()}: a race fault races a to_device "
                                f"step, not {steps[fault.step - 1].get('op')!r}")
    return tuple(faults)


def _policy(doc: Mapping[str, Any], source: str) -> Policy | None:
    try:
        return spelled_policy(doc.get("policy"), doc.get("legacy"))
    except RouterLabError as error:
        raise ScenarioError(f"{source}: field 'legacy': {error}") from None


def _check_step(step: Any, number: int, labels: set[str], source: str, devices: list[Device],
                kinds: StepKinds) -> None:
    where = f"{source}: step {number}"
    if not isinstance(step, dict):
        raise ScenarioError(f"{where}: expected a table ([[steps]])")
    op = step.get("op")
    if not isinstance(op, str):
        raise ScenarioError(f"{where}: field 'op': missing or not a string")
    kind = kinds.get(op)
    if kind is None:
        raise ScenarioError(f"{where}: field 'op': unknown step kind {op!r}; expected one of: "
                            f"{', '.join(sorted(kinds))}")
    where = f"{where} ({op})"
    check_fields(step, {**f.COMMON, **kind.fields}, where)
    if "policy" in step and "legacy" in step:
        raise ScenarioError(f"{where}: fields 'policy' and 'legacy': legacy is a policy; give "
                            "only policy")
    for name, spec in kind.fields.items():
        if spec.device and name in step:
            try:
                device = parse_device(step[name])
            except RouterLabError as error:
                raise ScenarioError(f"{where}: field '{name}': {error}") from None
            if device not in devices:
                raise ScenarioError(f"{where}: field '{name}': device {step[name]!r} is not in "
                                    "the file's 'devices' (" + ", ".join(map(str, devices)) + ")")
    for name in kind.inputs:
        named = step.get(name, [])
        for label in named if isinstance(named, list) else [named]:
            if label not in labels:
                raise ScenarioError(f"{where}: field '{name}': unknown tensor label {label!r}")
    if kind.defines is not None and kind.defines in step:
        labels.add(step[kind.defines])


def check_fields(table: Mapping[str, Any], fields: Mapping[str, f.Field], where: str) -> None:
    """Every field known, every required one present, each of its type and passing its check."""
    for name in table:
        if name not in fields:
            raise ScenarioError(f"{where}: field '{name}': unknown field; expected: "
                                f"{', '.join(fields)}")
    for name, spec in fields.items():
        if name not in table:
            if spec.required:
                raise ScenarioError(f"{where}: field '{name}': missing")
            continue
        value = table[name]
        if not isinstance(value, spec.types) or (isinstance(value, bool) and bool not in
                                                 spec.types):
            wanted = " or ".join(t.__name__ for t in spec.types)
            raise ScenarioError(f"{where}: field '{name}': expected {wanted}, got "
                                f"{type(value).__name__} {value!r}")
        problem = spec.check(value) if spec.check is not None else None
        if problem is not None:
            raise ScenarioError(f"{where}: field '{name}': {problem}")
