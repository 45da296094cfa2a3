"""Every policy side by side on the same tensor and the same hops (docs/transfers.md, measured).

`compare_policies` runs `measure_transfer` once per policy, each on a fresh runtime (a legacy
panic ends its sessions, as Burn's would), and `PolicyComparison` lays the results out: a
`TableView` for the CLI and Jupyter, a `to_dict()` for `--json`, and a one-line verdict.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..core import DeviceLike, Path, Policy, RouterLabError, TableView, Viewable
from ..core.quant import QuantScheme
from .measure import (
    HOP_STAGES,
    Progress,
    TransferMeasurement,
    measure_transfer,
)

COLUMNS = ["policy", "outcome", "bytes moved", "× f32", "copies", "ms", "max |error|",
           "q changed", "scale drift", "bit-exact"]


@dataclass(frozen=True)
class PolicyComparison(Viewable):
    """One measurement per policy, in the order they were run."""

    measurements: tuple[TransferMeasurement, ...]
    hops: int

    def get(self, policy: Policy | str) -> TransferMeasurement:
        """The measurement of `policy`; a `RouterLabError` when it was not compared."""
        chosen = Policy.parse(policy)
        found = self._maybe(chosen)
        if found is None:
            compared = ", ".join(m.policy.value for m in self.measurements)
            raise RouterLabError(f"policy {chosen.value!r} was not compared here ({compared})")
        return found

    def verdict(self) -> str:
        """One line that says which policy to pick and why, from the measured numbers."""
        parts = []
        native = self._maybe(Policy.NATIVE)
        for m in self.measurements:
            if not m.ok:
                failure = m.failure
                where = "" if failure is None or failure.source is None else \
                    f" ({failure.error} at {failure.source})"
                what = "refuses before submitting" if m.policy is Policy.REJECT else \
                    f"panics like Burn{where}"
                parts.append(f"{m.policy} {what}")
                continue
            last = m.last
            assert last is not None
            ratio = "" if native is None or not native.ok or native.bytes_moved == 0 or \
                m is native else f", {m.bytes_moved / native.bytes_moved:.1f}× native's bytes"
            if last.bit_exact:
                parts.append(f"{m.policy} is bit-exact{ratio}")
            elif last.q_changed_total == 0 and last.scale_drift == 0:
                parts.append(f"{m.policy} keeps q and scales{ratio}")
            else:
                parts.append(f"{m.policy} drifts (scale ×{1 + last.scale_drift:.4g}, max |error| "
                             f"{last.max_abs_error_total:.4g} after {len(m.hops)} hop(s)){ratio}")
        return "; ".join(parts)

    def view(self) -> TableView:
        rows = []
        styles: dict[int, str] = {}
        for i, m in enumerate(self.measurements):
            last = m.last
            if last is None:
                failure = m.failure
                outcome = m.plan.outcome.value if failure is None else \
                    f"{m.plan.outcome.value} ({failure.error})"
                rows.append([m.policy.value, outcome, 0, 0.0, 0, None, None, None, None, None])
                styles[i] = "error" if m.policy is Policy.LEGACY else "muted"
                continue
            rows.append([m.policy.value, m.plan.outcome.value, m.bytes_moved,
                         round(m.bytes_moved / (m.f32_bytes * len(m.hops)), 3), m.copies,
                         round(m.seconds * 1e3, 3), last.max_abs_error_total,
                         last.q_changed_total, last.scale_drift, last.bit_exact])
            if last.bit_exact:
                styles[i] = "added"
        first = self.measurements[0]
        title = (f"Policies: {first.scheme} {list(first.shape)}, {first.source} -> {first.target}"
                 f" ({first.plan.path}), {self.hops} hop(s)")
        caption = ("measured: bytes the target backend received and copies every backend made, "
                   "over all hops; × f32 = bytes moved per hop / the f32 payload; errors and "
                   "drift against the tensor as first quantized")
        return TableView(title, COLUMNS, rows, caption=caption, styles=styles)

    def to_dict(self) -> dict[str, Any]:
        return {"hops": self.hops, "verdict": self.verdict(), "table": self.view().to_dict(),
                "policies": {m.policy.value: m.to_dict() for m in self.measurements}}

    def _maybe(self, policy: Policy) -> TransferMeasurement | None:
        return next((m for m in self.measurements if m.policy is policy), None)


def compare_policies(x: Any, scheme: QuantScheme | str, *, source: DeviceLike = "cpu:0",
                     target: DeviceLike = "cpu:1", path: Path | str | None = None, hops: int = 1,
                     policies: Iterable[Policy | str] | None = None,
                     progress: Progress | None = None) -> PolicyComparison:
    """Measure each policy (all five by default) on the same tensor, scheme, devices and hops."""
    chosen = [Policy.parse(p) for p in (policies if policies is not None else Policy)]
    each = hops * HOP_STAGES  # measure_transfer's progress units per policy
    results = []
    for index, policy in enumerate(chosen):
        def step(done: int, _each: int, what: str, base: int = index * each,
                 name: str = policy.value) -> None:
            if progress is not None:
                progress(base + done, len(chosen) * each, f"{name}: {what}")
        results.append(measure_transfer(x, scheme, policy=policy, source=source, target=target,
                                        path=path, hops=hops, progress=step))
        if progress is not None:
            progress((index + 1) * each, len(chosen) * each, f"{policy.value}: done")
    return PolicyComparison(tuple(results), hops)
