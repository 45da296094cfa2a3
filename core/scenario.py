"""Scenarios: TOML files that describe a run of the router, step by step, as pure data.

A scenario is never executed as code: it is parsed with `tomllib`, validated completely (every
step's kind, fields, types and tensor labels) before anything runs, and then interpreted by the
step kinds registered in `STEP_KINDS`. The runner yields one `StepResult` per step: what happened,
every device's registry after it, and the trace events it produced. The format is documented in
docs/scenarios.md.

New step kinds are added with `register_step(StepKind(...))`: a name, its fields (`Field`), which
fields name tensors it reads or consumes or defines, and a `run(ctx, step)` function that does the
work through the `Runtime` and returns a one-line description.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Any

import numpy as np

from routerlab.core.devices import Device, Path, parse_device
from routerlab.core.dtypes import DType, is_quantized
from routerlab.core.errors import RouterLabError, ScenarioError, UnknownTensorError
from routerlab.core.limits import MAX_DIMS, MAX_SCENARIO_BYTES
from routerlab.core.quant import Calibration, parse_scheme
from routerlab.core.runtime import Runtime
from routerlab.core.safe_io import parse_toml, read_text
from routerlab.core.server import Arrival
from routerlab.core.tensor import RouterTensor
from routerlab.core.trace import TraceEvent
from routerlab.core.transfer.policies import POLICY_NAMES, Policy
from routerlab.core.view import TableView


@dataclass(frozen=True)
class Field:
    """One field of a step: its TOML type(s), whether it is required, what it means, and an
    optional `check(value)` that returns a problem (or None) for values the type cannot judge."""

    types: tuple[type, ...]
    required: bool = True
    help: str = ""
    check: Callable[[Any], str | None] | None = None
    device: bool = False
    """The value is a device string that must be one of the file's `devices` (checked when the
    file is loaded, like a label)."""


@dataclass(frozen=True)
class StepKind:
    """A kind of step (`op = "<name>"`)."""

    name: str
    fields: Mapping[str, Field]
    run: Callable[[ScenarioContext, Mapping[str, Any]], str]
    reads: tuple[str, ...] = ()
    """Fields that name existing tensors (the step fails validation if the label is unknown)."""
    defines: tuple[str, ...] = ()
    """Fields that name the tensor(s) the step creates."""
    help: str = ""


STEP_KINDS: dict[str, StepKind] = {}
COMMON_FIELDS = {
    "op": Field((str,), help="the step kind"),
    "note": Field((str,), False, "free text shown with the step"),
    "expect_error": Field((str,), False, "the step must fail: an error class name or a piece of "
                                         "its message; the run continues after it"),
}


def register_step(kind: StepKind) -> StepKind:
    """Add (or replace) a step kind."""
    STEP_KINDS[kind.name] = kind
    return kind


@dataclass(frozen=True)
class Scenario:
    """A validated scenario."""

    source: str
    title: str
    description: str
    devices: tuple[str, ...]
    steps: tuple[Mapping[str, Any], ...]
    legacy: bool = False
    arrival: str = "source-first"
    policy: str | None = None
    """The transfer policy of every `to_device` step that names none (docs/transfers.md)."""


@dataclass
class ScenarioContext:
    """What steps share while a scenario runs: the runtime, the labelled tensors and the
    scenario's default transfer policy."""

    runtime: Runtime
    tensors: dict[str, RouterTensor] = field(default_factory=dict)
    policy: str | None = None
    override: str | None = None
    """A policy given on the command line: replaces every transfer's own (a what-if run)."""

    def tensor(self, label: str) -> RouterTensor:
        """The tensor a step named `label`. Validation knows every label a step defines, but a
        step that failed as expected (`expect_error`) defined nothing, so a later use of its
        label is found only here."""
        try:
            return self.tensors[label]
        except KeyError:
            raise UnknownTensorError(undefined_label(label)) from None


def undefined_label(label: str) -> str:
    """The `UnknownTensorError` text for a label whose defining step failed (as expected); the
    flow guard predicts the same text (`routerlab.core.transfer.flow`)."""
    return f"tensor {label!r} does not exist: the step that defines it failed"


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


# --- loading and validation ----------------------------------------------------------------


def load_scenario(path: str | FilePath) -> Scenario:
    """Read and validate a scenario file."""
    file = FilePath(path)
    text = read_text(file, what="scenario", limit=MAX_SCENARIO_BYTES, error=ScenarioError)
    return parse_scenario(text, str(file))


def parse_scenario(text: str, source: str = "<scenario>") -> Scenario:
    """Parse TOML text and validate every step before anything runs."""
    doc = parse_toml(text, source, ScenarioError)
    top = {"title": Field((str,), False), "description": Field((str,), False),
           "devices": Field((list,)), "legacy": Field((bool,), False),
           "arrival": _ARRIVAL, "steps": Field((list,)), "policy": _POLICY}
    _check_fields(doc, top, f"{source}")
    devices = doc["devices"]
    if not devices or not all(isinstance(d, str) for d in devices):
        raise ScenarioError(f"{source}: field 'devices': expected a non-empty list of device "
                            "strings")
    try:
        declared = [parse_device(d) for d in devices]
    except RouterLabError as error:
        raise ScenarioError(f"{source}: field 'devices': {error}") from None
    arrival = Arrival.parse(doc.get("arrival", Arrival.SOURCE_FIRST)).value
    labels: set[str] = set()
    for number, step in enumerate(doc["steps"], start=1):
        _check_step(step, number, labels, source, declared)
    return Scenario(source, doc.get("title", FilePath(source).stem), doc.get("description", ""),
                    tuple(devices), tuple(doc["steps"]), doc.get("legacy", False),
                    arrival, doc.get("policy"))


def _check_step(step: Any, number: int, labels: set[str], source: str,
                devices: list[Device]) -> None:
    where = f"{source}: step {number}"
    if not isinstance(step, dict):
        raise ScenarioError(f"{where}: expected a table ([[steps]])")
    op = step.get("op")
    if not isinstance(op, str):
        raise ScenarioError(f"{where}: field 'op': missing or not a string")
    kind = STEP_KINDS.get(op)
    if kind is None:
        raise ScenarioError(f"{where}: field 'op': unknown step kind {op!r}; expected one of: "
                            f"{', '.join(sorted(STEP_KINDS))}")
    _check_fields(step, {**COMMON_FIELDS, **kind.fields}, f"{where} ({op})")
    for name, spec in kind.fields.items():
        if spec.device and name in step:
            try:
                device = parse_device(step[name])
            except RouterLabError as error:
                raise ScenarioError(f"{where} ({op}): field '{name}': {error}") from None
            if device not in devices:
                raise ScenarioError(f"{where} ({op}): field '{name}': device {step[name]!r} is "
                                    "not in the file's 'devices' (" +
                                    ", ".join(str(d) for d in devices) + ")")
    for name in kind.reads:
        if name in step and step[name] not in labels:
            raise ScenarioError(f"{where} ({op}): field '{name}': unknown tensor label "
                                f"{step[name]!r}")
    labels.update(step[name] for name in kind.defines if name in step)


def _check_fields(table: Mapping[str, Any], fields: Mapping[str, Field], where: str) -> None:
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


# --- running -------------------------------------------------------------------------------


def run_scenario(scenario: Scenario, runtime: Runtime | None = None,
                 policy: str | None = None) -> Iterator[StepResult]:
    """Run the steps in order, yielding a `StepResult` after each. `policy` replaces the policy
    of every transfer, as `validate_flow`'s does, so "validate --policy X" predicts exactly what
    "simulate --policy X" then does."""
    if policy is not None:
        policy = Policy.parse(policy).value
    try:  # creates every listed device: a `cuda:N` one needs a usable GPU
        rt = runtime or Runtime(scenario.devices, legacy=scenario.legacy,
                                arrival=scenario.arrival)
    except RouterLabError as failure:
        raise ScenarioRunError(scenario.source, None, None, type(failure).__name__,
                               str(failure)) from failure
    ctx = ScenarioContext(rt, policy=scenario.policy, override=policy)
    for number, step in enumerate(scenario.steps, start=1):
        kind = STEP_KINDS[step["op"]]
        mark = len(rt.trace)
        error = None
        try:
            description = kind.run(ctx, step)
        except RouterLabError as failure:
            expected = step.get("expect_error")
            if expected is None or not _matches(failure, expected):
                raise ScenarioRunError(scenario.source, number, kind.name,
                                       type(failure).__name__, str(failure)) from failure
            description, error = f"{kind.name} failed as expected", \
                f"{type(failure).__name__}: {failure}"
        else:
            if "expect_error" in step:
                message = f"expected an error matching {step['expect_error']!r}, but it succeeded"
                raise ScenarioRunError(scenario.source, number, kind.name, "ScenarioError",
                                       message, text=f"{scenario.source}: step {number} "
                                                     f"({kind.name}): {message}")
        yield StepResult(number, kind.name, description, rt.registries(), rt.trace.read(mark),
                         error, step.get("note", ""))


def _matches(error: Exception, expected: str) -> bool:
    names = {cls.__name__ for cls in type(error).__mro__}
    return expected in names or expected in str(error)


# --- the built-in step kinds ---------------------------------------------------------------

_VALUES = (list, int, float, bool)


def _values_problem(value: Any) -> str | None:
    """Numbers, or rectangular nested lists of numbers."""
    def shape(v: Any) -> tuple[int, ...] | None:
        if isinstance(v, int | float | bool):
            return ()
        if isinstance(v, list) and v:
            inner = {shape(x) for x in v}
            if len(inner) == 1:
                only = inner.pop()
                if only is not None:
                    return (len(v), *only)
        return None
    found = shape(value)
    if found is not None and len(found) > MAX_DIMS:  # refused when loaded: validate sees it too
        return f"{len(found)} dimensions; RouterLab takes at most {MAX_DIMS}"
    return None if found is not None else \
        "expected a number or a non-empty, rectangular nested list of numbers"


def _floats_problem(value: Any) -> str | None:
    ok = all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    return None if ok and value else "expected a non-empty flat list of numbers"


def _shape_problem(value: Any) -> str | None:
    ok = all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value)
    if ok and len(value) > MAX_DIMS:
        return f"{len(value)} dimensions; RouterLab takes at most {MAX_DIMS}"
    return None if ok else "expected a list of non-negative integers"


def _parse_problem(parse: Callable[[str], Any]) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        try:
            parse(value)
        except RouterLabError as error:
            return str(error)
        return None
    return check


_POLICY = Field((str,), False, "a transfer policy: " + ", ".join(POLICY_NAMES),
                _parse_problem(Policy.parse))
_ARRIVAL = Field((str,), False, "which side of a same-peer transfer runs first: "
                 + ", ".join(str(a) for a in Arrival), _parse_problem(Arrival.parse))


def _define(ctx: ScenarioContext, step: Mapping[str, Any], tensor: RouterTensor) -> str:
    ctx.tensors[step["name"]] = tensor
    shape = list(tensor.shape)
    return f"{step['name']} = #{int(tensor.id)} {shape} {tensor.dtype} on {tensor.device}"


def _tensor(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    rt = ctx.runtime
    return _define(ctx, step, rt.tensor(step["values"], step["device"], step.get("dtype")))


def _clone(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    source = ctx.tensor(step["tensor"])
    clone = ctx.runtime.clone(source)
    ctx.tensors[step["name"]] = clone
    return f"{step['name']} = clone of {step['tensor']} (#{int(clone.id)}, count {clone.count})"


def _binary(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    rt = ctx.runtime
    out = getattr(rt, step["op"])(ctx.tensor(step["lhs"]), ctx.tensor(step["rhs"]))
    return f"{step['op']}({step['lhs']}, {step['rhs']}): " + _define(ctx, step, out)


def _reshape(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    out = ctx.runtime.reshape(ctx.tensor(step["tensor"]), step["shape"])
    return f"reshape({step['tensor']}): " + _define(ctx, step, out)


def _swap_dims(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    out = ctx.runtime.swap_dims(ctx.tensor(step["tensor"]), step["dim1"], step["dim2"])
    return f"swap_dims({step['tensor']}): " + _define(ctx, step, out)


def _cast(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    out = ctx.runtime.cast(ctx.tensor(step["tensor"]), step["dtype"])
    return f"cast({step['tensor']}): " + _define(ctx, step, out)


def _drop(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    tensor = ctx.tensor(step["tensor"])
    last = tensor.count <= 1
    ctx.runtime.drop(tensor)
    return f"drop {step['tensor']} (#{int(tensor.id)}): " + (
        "last reference, Drop(ReadWrite) sent" if last else "other clones remain, nothing sent")


def _read(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    tensor = ctx.tensor(step["tensor"])
    value = ctx.runtime.read(tensor, consume=step.get("consume", False))
    if "expect" in step:
        expected = np.asarray(step["expect"])
        same_shape = expected.shape == value.shape
        if not same_shape or not np.allclose(value.astype(np.float64), expected, equal_nan=True):
            raise ScenarioError(f"read {step['tensor']}: got {value.tolist()}, expected "
                                f"{expected.tolist()}")
    return f"read {step['tensor']} = {value.tolist()}"


def _to_device(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    tensor = ctx.tensor(step["tensor"])
    old = f"#{int(tensor.id)} on {tensor.device}"
    policy = ctx.override or step.get("policy", ctx.policy)
    moved = ctx.runtime.to_device(tensor, step["device"], step.get("path"),
                                  legacy=step.get("legacy"), policy=policy,
                                  arrival=step.get("arrival"))
    how = f" [policy {policy or 'native'}]" if is_quantized(tensor.dtype) else ""
    return f"to_device {step['tensor']} ({old}){how}: " + _define(ctx, step, moved)


def _quantize(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    out = ctx.runtime.quantize(ctx.tensor(step["tensor"]), step["scheme"],
                               scales=step.get("scales"), global_scale=step.get("global"),
                               calibration=step.get("calibration", "minmax"))
    return f"quantize({step['tensor']}, {step['scheme']}): " + _define(ctx, step, out)


def _dequantize(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    out = ctx.runtime.dequantize(ctx.tensor(step["tensor"]), step.get("dtype", "f32"))
    return f"dequantize({step['tensor']}): " + _define(ctx, step, out)


def _read_quantized(ctx: ScenarioContext, step: Mapping[str, Any]) -> str:
    tensor = ctx.runtime.read_quantized(ctx.tensor(step["tensor"]))
    q = np.asarray(tensor.q()).tolist()
    scales = tensor.scales_f32().reshape(-1).tolist()
    if "expect_q" in step and np.asarray(step["expect_q"]).tolist() != q:
        raise ScenarioError(f"read_quantized {step['tensor']}: q is {q}, expected "
                            f"{step['expect_q']}")
    if "expect_scales" in step and not np.allclose(scales, np.asarray(step["expect_scales"],
                                                                      dtype=np.float64),
                                                   rtol=1e-5, atol=0):
        raise ScenarioError(f"read_quantized {step['tensor']}: scales are {scales}, expected "
                            f"{step['expect_scales']}")
    glob = "" if tensor.global_scale is None else f", global {float(tensor.global_scale):.6g}"
    shown = ", ".join(f"{s:.6g}" for s in scales)
    return f"read {step['tensor']} ({tensor.scheme}): q = {q}, scales = [{shown}]{glob}"


_IN = Field((str,), help="label of the input tensor")
_NAME = Field((str,), help="label for the result")
_DEVICE = Field((str,), help="a device string, one of the file's devices",
                check=_parse_problem(parse_device), device=True)
_DTYPE = Field((str,), help="a dtype name", check=_parse_problem(DType.parse))
_OPT_DTYPE = Field((str,), False, "a dtype name", _parse_problem(DType.parse))
_VALUE_FIELD = Field(_VALUES, help="nested list of numbers", check=_values_problem)
_SCHEME = Field((str,), help="a scheme string (docs/schemes.md)",
                check=_parse_problem(parse_scheme))
_FLOATS = Field((list,), False, "a flat list of numbers", _floats_problem)
for _kind in (
    StepKind("tensor", {"name": _NAME, "values": _VALUE_FIELD, "device": _DEVICE,
                        "dtype": _OPT_DTYPE},
             _tensor, defines=("name",), help="create a tensor from values"),
    StepKind("clone", {"tensor": _IN, "name": _NAME}, _clone, ("tensor",), ("name",),
             "a second reference to the same tensor (count + 1)"),
    *(StepKind(op, {"lhs": _IN, "rhs": _IN, "name": _NAME}, _binary, ("lhs", "rhs"), ("name",),
               f"{op} two tensors (both consumed)") for op in ("add", "mul", "matmul")),
    StepKind("reshape", {"tensor": _IN, "shape": Field((list,), check=_shape_problem),
                         "name": _NAME}, _reshape,
             ("tensor",), ("name",), "new shape, same elements"),
    StepKind("swap_dims", {"tensor": _IN, "dim1": Field((int,)), "dim2": Field((int,)),
                           "name": _NAME}, _swap_dims, ("tensor",), ("name",), "swap two dims"),
    StepKind("cast", {"tensor": _IN, "dtype": _DTYPE, "name": _NAME}, _cast, ("tensor",),
             ("name",), "convert to another dtype"),
    StepKind("drop", {"tensor": _IN}, _drop, ("tensor",), help="end one reference"),
    StepKind("read", {"tensor": _IN, "expect": Field(_VALUES, False, check=_values_problem),
                      "consume": Field((bool,), False)}, _read, ("tensor",),
             help="read values back (a clone unless consume = true)"),
    StepKind("to_device", {"tensor": _IN, "device": _DEVICE, "name": _NAME,
                           "path": Field((str,), False, check=_parse_problem(Path.parse)),
                           "legacy": Field((bool,), False), "policy": _POLICY,
                           "arrival": _ARRIVAL},
             _to_device, ("tensor",), ("name",), "move to another device"),
    StepKind("quantize", {"tensor": _IN, "scheme": _SCHEME, "name": _NAME, "scales": _FLOATS,
                          "global": Field((float, int), False, "the global scale (two-level)"),
                          "calibration": Field((str,), False, "minmax or absmean",
                                               _parse_problem(Calibration.parse))},
             _quantize, ("tensor",), ("name",),
             "quantize a float tensor on its device (calibrated unless scales are given)"),
    StepKind("dequantize", {"tensor": _IN, "name": _NAME, "dtype": _OPT_DTYPE}, _dequantize,
             ("tensor",), ("name",), "dequantize to a float dtype (default f32)"),
    StepKind("read_quantized", {"tensor": _IN, "expect_q": Field(_VALUES, False,
                                                                 check=_values_problem),
                                "expect_scales": _FLOATS}, _read_quantized, ("tensor",),
             help="read a quantized tensor's q values and scales (a clone)"),
):
    register_step(_kind)
