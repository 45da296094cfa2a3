"""The guard over a whole flow: every transfer of a quantized tensor in a scenario, judged before
anything runs.

A scenario is data (`routerlab.core.scenario`), so its steps can be followed symbolically: each
label's device, dtype and shape come from the same inference the client runs before it submits
(`ir.py`'s `infer`, the profile's stored scheme for a quantize), and each `to_device` is handed
to `plan_transfer` with the policy it would run under. Nothing is created, quantized or moved.

The walk also keeps what a failure leaves behind, because Burn's failures are not local: a
legacy panic in a session ends that session for good (no `catch_unwind`,
`crates/burn-remote/src/server/worker.rs:119-134`) and a same-peer target left waiting ends with
it, so a later step on either device would fail with `SessionEnded`. A step that would fail is a
problem unless its `expect_error` matches the predicted error; an `expect_error` on a step that
would succeed is a problem too. A listed `cuda:N` device that this machine cannot create (no
usable GPU, `routerlab.core.gpu.gpu_status`) is a problem before step 1, where the run fails.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from routerlab.core import gpu
from routerlab.core.data import TensorData
from routerlab.core.devices import Device, Path, parse_device
from routerlab.core.dtypes import AnyDType, DType, is_quantized
from routerlab.core.errors import (
    BurnTodo,
    BurnUnimplemented,
    DeviceError,
    DTypeError,
    GpuUnavailableError,
    RouterLabError,
    SessionEnded,
    TransferRejected,
    UnknownTensorError,
    UseAfterDropError,
)
from routerlab.core.fix.guard import Outcome, TransferPlan, plan_transfer
from routerlab.core.fix.qtensor import scheme_on
from routerlab.core.interpreter import SRC_QUANTIZE
from routerlab.core.ir import (
    AddOp,
    CastOp,
    DequantizeOp,
    MatmulOp,
    MulOp,
    QuantizeOp,
    ReshapeOp,
    SwapDimsOp,
)
from routerlab.core.policies import Policy
from routerlab.core.quant import parse_scheme
from routerlab.core.scenario import BEFORE_STEPS, STEP_KINDS, Scenario, undefined_label
from routerlab.core.view import Cell, TableView, Viewable

COLUMNS = ["step", "tensor", "dtype", "move", "path", "policy", "outcome", "expect_error",
           "verdict"]


class Meta(NamedTuple):
    """What the guard knows of a label: enough for `infer` and `plan_transfer`."""

    device: Device
    dtype: AnyDType
    shape: tuple[int, ...]


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
    """Judge every step of `scenario` without running it; `policy` replaces the policy of every
    transfer (a what-if: "and under reject?")."""
    walk = _Walk(scenario, None if policy is None else Policy.parse(policy))
    walk.problems.extend(_device_problems(scenario))
    for number, step in enumerate(scenario.steps, start=1):
        walk.step(number, step)
    return FlowReport(scenario.source, scenario.title, walk.override, tuple(walk.transfers),
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
        kind = STEP_KINDS.get(step["op"])
        fields = kind.fields.items() if kind is not None else ()
        if any(spec.device and name in step and parse_device(step[name]) == device
               for name, spec in fields):
            return f"is first used by step {number}, {step['op']}"
    return "is listed in 'devices' but used by no step"


class _Predicted(Exception):
    """A failure the guard predicts: the error class it would be, and its text."""

    def __init__(self, kind: type[RouterLabError], message: str,
                 kills: tuple[Device, ...] = ()) -> None:
        super().__init__(message)
        self.kind = kind
        self.kills = kills

    def matches(self, expected: str) -> bool:
        names = {cls.__name__ for cls in self.kind.__mro__}
        return expected in names or expected in str(self)


_OPS = {"add": AddOp, "mul": MulOp, "matmul": MatmulOp}
_CONSUMES = {"add": ("lhs", "rhs"), "mul": ("lhs", "rhs"), "matmul": ("lhs", "rhs"),
             "reshape": ("tensor",), "swap_dims": ("tensor",), "cast": ("tensor",),
             "quantize": ("tensor",), "dequantize": ("tensor",), "drop": ("tensor",)}


class _Walk:
    """The symbolic run: labels, consumed labels, dead sessions."""

    def __init__(self, scenario: Scenario, override: Policy | None) -> None:
        self.scenario = scenario
        self.override = override
        self.labels: dict[str, Meta | None] = {}
        self.consumed: set[str] = set()
        self.failed: set[str] = set()
        self.dead: set[Device] = set()
        self.transfers: list[FlowTransfer] = []
        self.problems: list[str] = []
        self.unchecked: list[str] = []

    def step(self, number: int, step: Mapping[str, Any]) -> None:
        op = step["op"]
        expected = step.get("expect_error")
        transfer: TransferPlan | None = None
        try:
            if op == "to_device":
                transfer = self._plan(step)
                self._to_device(step, transfer)
            else:
                self._other(op, step)
        except _Predicted as failure:
            self.dead.update(failure.kills)
            if "name" in step:
                self.failed.add(step["name"])
            verdict = self._judge(number, op, expected, failure)
            if transfer is not None:
                self.transfers.append(FlowTransfer(number, step["tensor"], transfer, expected,
                                                   verdict))
            return
        if expected is not None and op not in self._unjudged():
            self.problems.append(f"step {number} ({op}) expects an error matching {expected!r} "
                                 "but the guard predicts it succeeds")
        if transfer is not None and (is_quantized(transfer.dtype) or not transfer.ok):
            verdict = "ok" if expected is None or op in self._unjudged() else \
                "FAILS: expected an error, but it succeeds"
            self.transfers.append(FlowTransfer(number, step["tensor"], transfer, expected, verdict))

    def _judge(self, number: int, op: str, expected: str | None, failure: _Predicted) -> str:
        if expected is not None and failure.matches(expected):
            return "fails as expected"
        problem = f"step {number} ({op}) would fail: {failure.kind.__name__}: {failure}"
        self.problems.append(problem)
        return f"FAILS: {failure.kind.__name__}: {failure}"

    def _unjudged(self) -> set[str]:
        """Step kinds whose own checks (values read back) the guard does not predict."""
        return {"read", "read_quantized", *self.unchecked}

    # --- transfers ------------------------------------------------------------------------

    def _policy(self, step: Mapping[str, Any]) -> Policy:
        if self.override is not None:
            return self.override
        given = step.get("policy", self.scenario.policy)
        if given is not None:
            return Policy.parse(given)
        legacy = step.get("legacy", self.scenario.legacy)
        return Policy.LEGACY if legacy else Policy.NATIVE

    def _plan(self, step: Mapping[str, Any]) -> TransferPlan | None:
        meta = self._use(step["tensor"])
        if meta is None:
            return None
        path = Path.parse(step["path"]) if "path" in step else None
        target = parse_device(step["device"])
        try:
            return plan_transfer(meta.dtype, meta.shape, meta.device, target, path,
                                 self._policy(step))
        except RouterLabError as error:
            raise _Predicted(type(error), str(error)) from None

    def _to_device(self, step: Mapping[str, Any], plan: TransferPlan | None) -> None:
        if plan is None:
            self.unchecked.append(f"to_device of {step['tensor']!r} (made by an unchecked step)")
            self.labels[step["name"]] = None
            return
        if plan.path is not Path.SAME:
            self._alive(plan.source, plan.target)
        if plan.outcome is Outcome.REFUSED:
            raise _Predicted(TransferRejected, plan.refusal or plan.action)
        if plan.outcome is Outcome.PANIC:
            wall = plan.channel_wall
            assert wall is not None
            kind = BurnTodo if wall.message.startswith("not yet implemented") else \
                BurnUnimplemented
            kills = (plan.source, plan.target) if wall.layer.endswith("session") else ()
            raise _Predicted(kind, wall.message, kills)
        if plan.path is not Path.SAME:
            self.consumed.add(step["tensor"])
        self.labels[step["name"]] = Meta(plan.target, plan.arrival_dtype, plan.shape)

    # --- everything else ------------------------------------------------------------------

    def _other(self, op: str, step: Mapping[str, Any]) -> None:
        handler = getattr(self, f"_{op}", None)
        if handler is None:
            self.unchecked.append(op)
            if "name" in step:
                self.labels[step["name"]] = None
            return
        handler(step)
        for name in _CONSUMES.get(op, ()):
            self.consumed.add(step[name])

    def _tensor(self, step: Mapping[str, Any]) -> None:
        device = parse_device(step["device"])
        self._alive(device)
        dtype = DType.parse(step["dtype"]) if "dtype" in step else None
        try:
            data = TensorData.from_array(step["values"], dtype)
        except RouterLabError as error:
            raise _Predicted(type(error), str(error)) from None
        self.labels[step["name"]] = Meta(device, data.dtype, data.shape)

    def _clone(self, step: Mapping[str, Any]) -> None:
        self.labels[step["name"]] = self._use(step["tensor"])

    def _add(self, step: Mapping[str, Any]) -> None:
        lhs, rhs = self._use(step["lhs"]), self._use(step["rhs"])
        if lhs is None or rhs is None:
            self.labels[step["name"]] = None
            return
        if lhs.device != rhs.device:
            raise _Predicted(DeviceError, f"an op's inputs must be on one device, got "
                                          f"{lhs.device} and {rhs.device}")
        self._alive(lhs.device)
        self._infer(step, lhs, _OPS[step["op"]].infer, lhs, rhs)

    _mul = _matmul = _add

    def _reshape(self, step: Mapping[str, Any]) -> None:
        self._unary(step, ReshapeOp.infer, tuple(step["shape"]))

    def _swap_dims(self, step: Mapping[str, Any]) -> None:
        self._unary(step, SwapDimsOp.infer, step["dim1"], step["dim2"])

    def _cast(self, step: Mapping[str, Any]) -> None:
        self._unary(step, CastOp.infer, DType.parse(step["dtype"]))

    def _quantize(self, step: Mapping[str, Any]) -> None:
        self._unary(step, self._quantized, step["scheme"])

    def _dequantize(self, step: Mapping[str, Any]) -> None:
        self._unary(step, self._dequantized, DType.parse(step.get("dtype", "f32")))

    def _quantized(self, meta: Meta, scheme: str) -> tuple[tuple[int, ...], AnyDType]:
        """The client's checks (`Runtime.quantize`), then the interpreter arm."""
        stored = scheme_on(parse_scheme(scheme), meta.device.profile, meta.shape)
        out = QuantizeOp.infer(meta, stored)
        self._refuse_legacy(meta)
        return out

    def _dequantized(self, meta: Meta, dtype: DType) -> tuple[tuple[int, ...], AnyDType]:
        out = DequantizeOp.infer(meta, dtype)
        self._refuse_legacy(meta)
        return out

    def _refuse_legacy(self, meta: Meta) -> None:
        """Burn's interpreter arms `Quantize(_) => todo!()`, `Dequantize(_) => todo!()`: the
        session panics and ends."""
        if self.scenario.legacy:
            raise _Predicted(BurnTodo, f"not yet implemented ({SRC_QUANTIZE})", (meta.device,))

    def _drop(self, step: Mapping[str, Any]) -> None:
        meta = self._use(step["tensor"])
        if meta is not None:
            self._alive(meta.device)

    def _read(self, step: Mapping[str, Any]) -> None:
        meta = self._use(step["tensor"])
        if meta is not None:
            self._alive(meta.device)
            if is_quantized(meta.dtype):
                raise _Predicted(DTypeError, "quantized TensorData has no plain array view; "
                                             "use read_quantized or dequantize")
        if step.get("consume", False):
            self.consumed.add(step["tensor"])

    def _read_quantized(self, step: Mapping[str, Any]) -> None:
        meta = self._use(step["tensor"])
        if meta is not None:
            self._alive(meta.device)
            if not is_quantized(meta.dtype):
                raise _Predicted(DTypeError, f"read_quantized reads quantized tensors, not "
                                             f"{meta.dtype}; use read")

    # --- helpers --------------------------------------------------------------------------

    def _use(self, label: str) -> Meta | None:
        if label in self.failed:
            raise _Predicted(UnknownTensorError, undefined_label(label))
        if label in self.consumed:
            raise _Predicted(UseAfterDropError, f"tensor {label!r} was already dropped or "
                                                "consumed by an earlier step")
        return self.labels.get(label)

    def _alive(self, *devices: Device) -> None:
        for device in devices:
            if device in self.dead:
                raise _Predicted(SessionEnded, f"session {device} has ended (an earlier panic "
                                               "or hang ended it)")

    def _unary(self, step: Mapping[str, Any], infer: Any, *params: Any) -> None:
        meta = self._use(step["tensor"])
        if meta is None:
            self.labels[step["name"]] = None
            return
        self._alive(meta.device)
        self._infer(step, meta, infer, meta, *params)

    def _infer(self, step: Mapping[str, Any], on: Meta, infer: Any, *args: Any) -> None:
        try:
            shape, dtype = infer(*args)
        except RouterLabError as error:
            raise _Predicted(type(error), str(error)) from None
        self.labels[step["name"]] = Meta(on.device, dtype, tuple(shape))
