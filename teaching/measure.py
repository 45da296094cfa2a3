"""What one transfer policy really costs: measured hop by hop, never computed from a formula.

`measure_transfer` quantizes a float tensor on the source device of a fresh `Runtime`, then moves
it back and forth `hops` times under one policy. Around each hop it reads the backends' own copy
counters (the bytes every backend really copied, and how many copies), the wall time, and then
compares the arrays that really sit in the two registries: the stored `q` values, the scales
(and global), and the dequantized values against the source's. Over several hops the scales give
the drift curve of docs/transfers.md (`requantize` on an F-value: ×4/3 per hop on the Q2F example).

A policy that refuses or panics is measured too: its hop carries the failure (error class, Burn's
text, the Burn source and the layer that raised it), and the registries are left as they were.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..core import (
    BurnPanic,
    Device,
    DeviceLike,
    Path,
    Policy,
    Profile,
    RouterLabError,
    RouterTensor,
    Runtime,
    TableView,
    Viewable,
    parse_device,
)
from ..core.base.limits import check_hops
from ..core.fix import QPrimitive, TransferPlan
from ..core.quant import QuantizedTensor, QuantScheme, count_changed, max_abs_difference

HOP_COLUMNS = ["hop", "move", "bytes moved", "copies", "ms", "scales", "q changed",
               "scale drift", "max |error|", "bit-exact"]
Progress = Callable[[int, int, str], None]
"""`progress(done, total, what)`: called as work advances (the CLI draws a bar from it), in
stages: `HOP_STAGES` per hop, so a bar moves within a long hop too."""
HOP_STAGES = 2
"""A hop is reported twice: when its move starts, and when its measuring (two dequantizations
of the whole tensor) starts."""


@dataclass(frozen=True)
class Failure:
    """Why a transfer did not happen: the error, Burn's text and where it was raised."""

    error: str
    message: str
    source: str | None
    layer: str

    @classmethod
    def of(cls, error: RouterLabError) -> Failure:
        """A server panic names its session (`Server._end_after_panic`); the rest are raised on
        the client, before anything was submitted or while planning."""
        source = error.source if isinstance(error, BurnPanic) else None
        session = getattr(error, "session", None)
        return cls(type(error).__name__, str(error), source,
                   "client" if session is None else f"session {session}")

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.error, "message": self.message, "source": self.source,
                "layer": self.layer}


@dataclass(frozen=True)
class Hop:
    """One move, measured. `*_total` compare with the tensor as first quantized."""

    hop: int
    source: str
    target: str
    path: str
    seconds: float
    bytes_moved: int
    """Bytes copied into the target device (its backend's counter): what arrived."""
    bytes_copied: int
    """Bytes copied by every backend: readbacks, uploads and device copies."""
    copies: int
    scheme: str
    """The scheme the tensor arrived in (the store can change across profiles)."""
    scales: list[float]
    global_scale: float | None
    q_changed: int
    q_changed_total: int
    scale_drift: float
    """max |s_eff / s_eff,0 - 1| over the scales: 0 when the scales survived."""
    max_abs_error: float
    """max |dequant(target) - dequant(source)| for this hop."""
    max_abs_error_total: float
    bit_exact: bool
    """Values, scales, global and scheme bit-identical to the original."""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class TransferMeasurement(Viewable):
    """A policy over `hops` moves of one tensor, or the failure that stopped it."""

    policy: Policy
    scheme: str
    shape: tuple[int, ...]
    source: str
    target: str
    plan: TransferPlan
    original_scales: list[float]
    original_global: float | None
    f32_bytes: int
    """The float payload of the same tensor (4 bytes per value), the yardstick of byte ratios."""
    stored_bytes: int
    """Bytes of the quantized tensor as stored (values + scales + global)."""
    hops: list[Hop] = field(default_factory=list)
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def bytes_moved(self) -> int:
        return sum(h.bytes_moved for h in self.hops)

    @property
    def copies(self) -> int:
        return sum(h.copies for h in self.hops)

    @property
    def seconds(self) -> float:
        return sum(h.seconds for h in self.hops)

    @property
    def last(self) -> Hop | None:
        return self.hops[-1] if self.hops else None

    def to_dict(self) -> dict[str, Any]:
        last = self.last
        return {
            "policy": self.policy.value, "scheme": self.scheme, "shape": list(self.shape),
            "source": self.source, "target": self.target, "path": self.plan.path.value,
            "ok": self.ok, "outcome": self.plan.outcome.value, "action": self.plan.action,
            "failure": None if self.failure is None else self.failure.to_dict(),
            "plan": self.plan.to_dict(), "f32_bytes": self.f32_bytes,
            "stored_bytes": self.stored_bytes,
            "scales": self.original_scales, "global": self.original_global,
            "bytes_moved": self.bytes_moved, "copies": self.copies, "seconds": self.seconds,
            "max_abs_error": None if last is None else last.max_abs_error_total,
            "q_changed": None if last is None else last.q_changed_total,
            "scale_drift": None if last is None else last.scale_drift,
            "bit_exact": None if last is None else last.bit_exact,
            "hops": [h.to_dict() for h in self.hops],
        }

    def view(self) -> TableView:
        """One row per hop: the drift curve as a table."""
        rows = [[h.hop, f"{h.source} -> {h.target}", h.bytes_moved, h.copies,
                 round(h.seconds * 1e3, 3), _scales_text(h.scales, h.global_scale),
                 h.q_changed_total, h.scale_drift, h.max_abs_error_total, h.bit_exact]
                for h in self.hops]
        caption = (f"{self.policy} ({self.policy.summary}): {self.plan.action}; stored "
                   f"{self.stored_bytes} B, f32 "
                   f"{self.f32_bytes} B; original scales "
                   f"{_scales_text(self.original_scales, self.original_global)}")
        styles: dict[int, str] = {}
        if self.failure is not None:
            rows.append(["—", f"{self.source} -> {self.target}", 0, 0, None, None, None, None,
                         None, None])
            styles[len(rows) - 1] = "error"
            where = self.failure.layer + ("" if self.failure.source is None
                                          else f", at {self.failure.source}")
            caption = f"{self.failure.error}: {self.failure.message} (raised by {where})"
        return TableView(f"{self.scheme} {list(self.shape)}, policy {self.policy}, path "
                         f"{self.plan.path}", HOP_COLUMNS, rows, caption=caption, styles=styles)


def measure_transfer(x: Any, scheme: QuantScheme | str, *, policy: Policy | str = Policy.NATIVE,
                     source: DeviceLike = "cpu:0", target: DeviceLike = "cpu:1",
                     path: Path | str | None = None, hops: int = 1, calibration: str = "minmax",
                     progress: Progress | None = None,
                     peers: dict[str, str] | None = None) -> TransferMeasurement:
    """Quantize `x` on `source`, move it `hops` times (source → target → source …) under
    `policy`, and measure every hop. `peers` serves the devices of those peers in their own
    processes (docs/remote.md); their counters are asked of them."""
    check_hops(hops)
    chosen = Policy.parse(policy)
    ends = [parse_device(source), parse_device(target)]
    with Runtime(dict.fromkeys(ends), peers=peers or None) as rt:
        return _measure(rt, x, scheme, chosen, ends, path, hops, calibration, progress)


def _measure(rt: Runtime, x: Any, scheme: QuantScheme | str, chosen: Policy, ends: list[Device],
             path: Path | str | None, hops: int, calibration: str,
             progress: Progress | None) -> TransferMeasurement:
    values = np.asarray(x, dtype=np.float32)
    tensor = rt.quantize(rt.tensor(values, ends[0], "f32"), scheme, calibration=calibration)
    total = hops * HOP_STAGES
    if progress is not None:
        progress(0, total, "quantized")
    original = held(rt, tensor).tensor
    first_plan = rt.plan_transfer(tensor, ends[1], path, policy=chosen.value)
    result = TransferMeasurement(
        chosen, str(original.scheme), original.shape, str(ends[0]), str(ends[1]), first_plan,
        _flat(original.scales_f32()), _global(original), values.size * 4, original.nbytes)
    for number in range(1, hops + 1):
        here, there = ends[(number - 1) % 2], ends[number % 2]
        def stage(index: int, what: str, number: int = number) -> None:
            if progress is not None:
                progress((number - 1) * HOP_STAGES + index, total, f"hop {number}: {what}")
        try:
            tensor, hop = measure_hop(rt, tensor, there, path, chosen, number, original,
                                      ends[0], stage=stage)
        except RouterLabError as error:
            return replace(result, failure=Failure.of(error))
        result.hops.append(hop)
        if progress is not None:
            progress(number * HOP_STAGES, total, f"hop {number}: {here} -> {there}")
    return result


def on_backend(device: DeviceLike, backend: str | None) -> Device:
    """`device`, with `backend`'s profile when the device names none (`cpu:0` + cubecl →
    `cpu:0@cubecl`); an explicit `@profile` wins."""
    parsed = parse_device(device)
    if backend is None or (isinstance(device, str) and "@" in device):
        return parsed
    return replace(parsed, profile=Profile.parse(backend))


def held(rt: Runtime, tensor: RouterTensor) -> QPrimitive:
    """The primitive a device's registry holds for `tensor` (a look: no status effect; on a
    served device, a read of its canonical bytes, which leaves it registered)."""
    if rt.served(tensor.device):
        return QPrimitive(rt.read_quantized(tensor), tensor.device)
    handle = rt.handle(tensor.device, tensor.id)
    if not isinstance(handle, QPrimitive):
        raise RouterLabError(f"tensor #{int(tensor.id)} on {tensor.device} is not quantized")
    return handle


def measure_hop(rt: Runtime, tensor: RouterTensor, there: DeviceLike,
                path: Path | str | None = None, policy: Policy | str = Policy.NATIVE,
                number: int = 1, original: QuantizedTensor | None = None,
                origin: Device | None = None,
                stage: Callable[[int, str], None] | None = None) -> tuple[RouterTensor, Hop]:
    """Move a quantized `tensor` of any runtime to `there` under `policy`, and measure it.

    `original` (default: the tensor as it is now) and `origin` (the device whose profile
    dequantizes it; default: where it is now) are what the `*_total` columns compare with.
    `stage(index, what)` is told when the move (0) and the measuring (1) start.
    A refusal or a panic propagates, after the runtime has rolled the step back."""
    policy = Policy.parse(policy)
    there = parse_device(there)
    before = held(rt, tensor)
    original = before.tensor if original is None else original
    origin = tensor.device if origin is None else origin
    here = tensor.device
    devices = rt.devices  # those that exist now: a target the move creates counts as arrival
    copied, copies, arrived = _counted(rt, devices, there)
    plan = rt.plan_transfer(tensor, there, path, policy=policy.value)
    if stage is not None:
        stage(0, f"moving {here} -> {there}")
    start = time.perf_counter()
    moved = rt.to_device(tensor, there, path, policy=policy.value)
    seconds = time.perf_counter() - start
    copied_now, copies_now, arrived_now = _counted(rt, devices, there)  # before `held` reads
    if stage is not None:
        stage(1, "measuring")
    after = held(rt, moved).tensor
    hop = Hop(
        hop=number, source=str(here), target=str(moved.device), path=plan.path.value,
        seconds=seconds, bytes_moved=arrived_now - arrived, bytes_copied=copied_now - copied,
        copies=copies_now - copies, scheme=str(after.scheme),
        scales=_flat(after.scales_f32()), global_scale=_global(after),
        q_changed=_changed(before.tensor, after), q_changed_total=_changed(original, after),
        scale_drift=_drift(original, after),
        max_abs_error=_error(before.tensor, here.profile, after, moved.device.profile),
        max_abs_error_total=_error(original, origin.profile, after, moved.device.profile),
        bit_exact=original.bit_equal(after))
    return moved, hop


def _counted(rt: Runtime, devices: list[Device], there: Device) -> tuple[int, int, int]:
    """Bytes copied and copies made by the backends of `devices`, and the bytes copied by
    `there`'s."""
    counts = [rt.counters(d) for d in devices]
    return sum(b for b, _ in counts), sum(c for _, c in counts), rt.counters(there)[0]


def _flat(array: np.ndarray) -> list[float]:
    return [float(v) for v in np.asarray(array, dtype=np.float64).reshape(-1)]


def _global(tensor: QuantizedTensor) -> float | None:
    return None if tensor.global_scale is None else float(tensor.global_scale)


def _effective(tensor: QuantizedTensor) -> np.ndarray:
    scales = tensor.scales_f32().astype(np.float64)
    return scales if tensor.global_scale is None else scales * float(tensor.global_scale)


def _changed(before: QuantizedTensor, after: QuantizedTensor) -> int:
    return count_changed(before, after)  # in slabs: no full-size temporaries


def _drift(original: QuantizedTensor, after: QuantizedTensor) -> float:
    first, now = _effective(original), _effective(after)
    if first.shape != now.shape:
        return float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(first == 0, np.where(now == 0, 0.0, np.inf), np.abs(now / first - 1))
    return float(ratio.max()) if ratio.size else 0.0


def _error(before: QuantizedTensor, before_profile: Profile, after: QuantizedTensor,
           after_profile: Profile) -> float:
    return max_abs_difference(before, before_profile, after, after_profile)  # in slabs


def _scales_text(scales: list[float] | None, global_scale: float | None) -> str | None:
    if scales is None:
        return None
    shown = ", ".join(f"{s:.6g}" for s in scales[:4]) + (" …" if len(scales) > 4 else "")
    return f"[{shown}]" + ("" if global_scale is None else f" × {global_scale:.6g}")
