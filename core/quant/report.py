"""One quantization, described for the CLI (`routerlab quantize`) and for notebooks.

`QuantizeReport` holds what a learner wants to see side by side: the input, the stored values and
scales, the reconstruction, the error and the canonical bytes. `to_dict()` is the `--json` object
(a contract: keys `q`, `scales`, `global`, `dequant`, `scheme`, `bytes`, `max_abs_error`), and
`view()` the `TableView` both faces render.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..base.limits import check_json_numbers
from ..base.profiles import Profile
from ..base.view import TableView, Viewable
from .arrays import to_host
from .calibration import Calibration
from .inputs import parse_floats
from .ops import quantize, quantize_dynamic
from .quantized import QuantizedTensor

MAX_ROWS = 64
"""Rows the table shows; the JSON always carries every element."""
ARRAYS_HINT = "add --summary to leave out the arrays"
"""What a refused `--json` document with every array says to do instead."""


@dataclass(frozen=True)
class QuantizeReport(Viewable):
    """A float tensor, its quantized primitive under `profile`, and the reconstruction."""

    x: np.ndarray
    tensor: QuantizedTensor
    profile: Profile
    calibration: Calibration | None
    """None for static quantization (scales given)."""

    @cached_property
    def dequant(self) -> np.ndarray:
        """The reconstruction, flat; computed once, for the table, the caption and the JSON."""
        return to_host(self.tensor.dequantize(self.profile)).reshape(-1)

    @cached_property
    def max_abs_error(self) -> float:
        error = np.abs(self.dequant - self.x.reshape(-1))
        return float(error.max()) if error.size else 0.0

    def to_dict(self, summary: bool = False) -> dict[str, Any]:
        """The `--json` object; `summary` leaves out the keys that grow with the tensor
        (`input`, `q`, `scales`, `dequant`, `bytes`), without building them."""
        tensor = self.tensor
        document: dict[str, Any] = {
            "scheme": str(tensor.scheme),
            "backend": self.profile.value,
            "calibration": None if self.calibration is None else self.calibration.value,
            "shape": list(tensor.shape),
            "scales_shape": list(tensor.scales.shape),
            "global": None if tensor.global_scale is None else float(tensor.global_scale),
            "max_abs_error": self.max_abs_error,
            "nbytes": tensor.nbytes,
        }
        if summary:
            return document
        return {**document, "input": self.x.reshape(-1).tolist(),
                "q": to_host(tensor.q()).reshape(-1).tolist(),
                "scales": tensor.scales_f32().reshape(-1).tolist(),
                "dequant": self.dequant.tolist(), "bytes": tensor.to_bytes().hex()}

    def view(self) -> TableView:
        x, q, dq = self.x.reshape(-1), to_host(self.tensor.q()).reshape(-1), self.dequant
        rows = [
            [i, float(x[i]), int(q[i]), float(dq[i]), float(abs(dq[i] - x[i]))]
            for i in range(min(x.size, MAX_ROWS))
        ]
        scales = ", ".join(f"{s:.6g}" for s in self.tensor.scales_f32().reshape(-1)[:8])
        more = f" (+{self.tensor.scales.size - 8} more)" if self.tensor.scales.size > 8 else ""
        glob = (
            ""
            if self.tensor.global_scale is None
            else f"; global {float(self.tensor.global_scale):.6g}"
        )
        hidden = f"; {x.size - MAX_ROWS} more rows in --json" if x.size > MAX_ROWS else ""
        how = (
            "static scales" if self.calibration is None else f"{self.calibration.value} calibration"
        )
        raw = self.tensor.to_bytes().hex()
        raw = raw if len(raw) <= 80 else raw[:80] + "…"
        caption = (
            f"{how}; scales [{scales}]{more}{glob}; max |error| {self.max_abs_error:.6g}; "
            f"{self.tensor.nbytes} bytes {raw}{hidden}"
        )
        return TableView(
            title=f"{self.tensor.scheme} on {self.profile.value}, shape {list(self.tensor.shape)}",
            columns=["i", "x", "q", "dequant", "|error|"],
            rows=rows,
            caption=caption,
        )


def quantize_report(x: np.ndarray, scheme: str, *, backend: str, scales: str | None = None,
                    global_scale: float | None = None, calibration: str = "minmax",
                    json_arrays: bool = False) -> QuantizeReport:
    """`routerlab quantize` in one call: `x` under `scheme` with `backend`'s arithmetic, with
    the given `scales` (a JSON list: static) or calibrated by `calibration` (dynamic).
    `json_arrays`: the report is for a `--json` document with every array, so one that would
    surely pass the output limit is refused first, before anything is quantized."""
    profile = Profile.parse(backend)
    if json_arrays:  # input, q and dequant
        check_json_numbers(3 * x.size, ARRAYS_HINT)
    if scales is None:
        method = Calibration.parse(calibration)
        return QuantizeReport(x, quantize_dynamic(x, scheme, profile=profile, calibration=method),
                              profile, method)
    tensor = quantize(x, scheme, parse_floats("--scales", scales), global_scale, profile=profile)
    return QuantizeReport(x, tensor, profile, None)
