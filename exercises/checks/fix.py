"""Checks of the quantized-transfer exercises (reference §14): the gap, the native fix, and why the
dequantize-and-requantize fix drifts."""

from __future__ import annotations

from typing import Any

import numpy as np
from routerlab.core.profiles import Profile
from routerlab.core.quant import quantize, quantize_dynamic
from routerlab.exercises.checks.base import CheckFailure, Part, PredictSuite

F32 = np.float32

# --- fix-3: drift of recalibration over hops --------------------------------------------------


def _floats(count: int) -> Any:
    def form(value: Any) -> list[float]:
        if not isinstance(value, list | tuple) or len(value) != count or not all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            raise CheckFailure(f"write a list of {count} numbers (3 decimals or more)",
                               got=repr(value), hint=1)
        return [float(v) for v in value]

    return form


def _number(value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise CheckFailure("write one number (3 decimals or more)", got=repr(value), hint=1)
    return float(value)


def _whole(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise CheckFailure("write a whole number >= 0", got=repr(value), hint=1)
    return value


def _drift_answers() -> dict[str, Any]:
    """Hop tensors through dequantize -> quantize_dynamic (Fix B2) and through a static
    requantize with the carried scales (Fix B1), on the flex profile, and observe."""
    x = np.array([-0.9, 0.5, 0.2], dtype=F32)
    first = tensor = quantize_dynamic(x, "q2f", profile=Profile.FLEX)
    scales = [float(tensor.scales_f32().reshape(-1)[0])]
    for _ in range(3):
        tensor = quantize_dynamic(tensor.dequantize(Profile.FLEX), "q2f", profile=Profile.FLEX)
        scales.append(float(tensor.scales_f32().reshape(-1)[0]))
    last = float(tensor.dequantize(Profile.FLEX)[0])
    static = first
    for _ in range(3):
        static = quantize(static.dequantize(Profile.FLEX), "q2f", first.scales_f32().reshape(-1),
                          profile=Profile.FLEX)
    normal = np.random.default_rng(0).normal(size=4096).astype(F32)
    q8s = start = quantize_dynamic(normal, "q8s", profile=Profile.FLEX)
    for _ in range(4):
        q8s = quantize_dynamic(q8s.dequantize(Profile.FLEX), "q8s", profile=Profile.FLEX)
    return {"Q2F_SCALES": scales, "Q2F_LAST": last,
            "STATIC_LAST": float(static.dequantize(Profile.FLEX)[0]),
            "Q8S_CHANGED": int((q8s.q() != start.q()).sum())}


drift = PredictSuite(
    "fix-3",
    parts=[
        Part("Q2F_SCALES", "the Q2F scale after the first quantize and after each hop",
             _floats(4), places=3),
        Part("Q2F_LAST", "what -0.9 dequantizes to after three recalibrating hops", _number,
             places=3),
        Part("STATIC_LAST", "what -0.9 dequantizes to after three static hops", _number,
             places=3),
        Part("Q8S_CHANGED", "how many Q8S q values four recalibrating hops change", _whole),
    ],
    oracle=_drift_answers,
)
