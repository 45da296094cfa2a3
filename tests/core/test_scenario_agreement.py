"""`validate` and `simulate` agree: generated scenarios, judged and then run, stop at the same step
with the same error, or both go through.

Scenarios are drawn step by step (valid and invalid, quantized and plain, under every policy, with
labels reused, consumed, passed twice, or whose step failed; NaN and out-of-range values; legacy
uint data), written as TOML and loaded like a user's file.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routerlab.core.base.errors import ScenarioError
from routerlab.core.scenario import ScenarioRunError, parse_scenario, run_scenario, validate_flow

DEVICES = ["cpu:0", "cpu:1", "peer2/cpu:0", "peer2/cpu:1", "gpu/cpu:0@cubecl", "nd/cpu:0@ndarray"]
"""One backend per peer, as a burn-remote server hosts one (a mixed peer is refused at load)."""
POLICIES = ["native", "dequantize", "requantize", "reject", "legacy"]
SCHEMES = ["q8s", "q8f", "q4s", "q2s", "q4s:store=packed_u32", "q8s:block=16", "q4f:block=16",
           "q4s:block=16:global=f32", "q8s:scale=f16"]
ERRORS = ["BurnTodo", "BurnUnimplemented", "BurnPanic", "TransferRejected", "SessionEnded",
          "UseAfterDropError", "ShapeError", "DTypeError", "QuantizationError", "DeviceError",
          "UnknownTensorError", "not yet implemented"]
EXAMPLES = 2000


def _toml(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def _document(top: dict[str, Any], steps: list[dict[str, Any]]) -> str:
    lines = [f"{k} = {_toml(v)}" for k, v in top.items()]
    for step in steps:
        lines.append("[[steps]]")
        lines.extend(f"{k} = {_toml(v)}" for k, v in step.items())
    return "\n".join(lines) + "\n"


_NICE = st.one_of(st.integers(-9, 9), st.floats(-8, 8, width=32))
_ODD = st.sampled_from([0.0, 300.0, 1.5, float("nan"), 70000.0])  # refused by some dtypes or ops


@st.composite
def _values(draw: st.DrawFn) -> Any:
    shape = draw(st.sampled_from([(2, 16), (2, 16), (4,), (2, 4), (1, 32), (3,)]))
    number = _ODD if draw(st.integers(0, 9)) == 0 else _NICE
    flat = draw(st.lists(number, min_size=math.prod(shape), max_size=math.prod(shape)))
    if len(shape) == 1:
        return flat
    return [flat[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]


@st.composite
def scenarios(draw: st.DrawFn) -> str:
    devices = draw(st.lists(st.sampled_from(DEVICES), min_size=1, max_size=4, unique=True))
    top: dict[str, Any] = {"devices": devices}
    policy = draw(st.sampled_from([None, None, *POLICIES, "legacy=true"]))
    if draw(st.booleans()):
        top["fusion"] = True
    if policy == "legacy=true":
        top["legacy"] = True
    elif policy is not None:
        top["policy"] = policy
    labels: list[str] = []
    steps: list[dict[str, Any]] = []

    def label() -> str:
        return draw(st.sampled_from(labels))

    for n in range(draw(st.integers(1, 8))):
        name = f"t{n}" if not labels or draw(st.integers(0, 9)) else label()  # sometimes reused
        kinds = ["tensor"] if not labels else [
            "tensor", "quantize", "quantize", "to_device", "to_device", "to_device", "clone",
            "add", "mul", "matmul", "reshape", "swap_dims", "cast", "dequantize", "drop", "read",
            "read_quantized"]
        op = draw(st.sampled_from(kinds))
        step: dict[str, Any] = {"op": op}
        if op == "tensor":
            step |= {"name": name, "values": draw(_values()),
                     "device": draw(st.sampled_from(devices))}
            dtype = draw(st.sampled_from([None, "f32", "f32", "f32", "f16", "i32", "u8", "bool"]))
            if dtype is not None:
                step["dtype"] = dtype
        elif op in ("add", "mul", "matmul"):
            step |= {"lhs": label(), "rhs": label(), "name": name}
        elif op == "quantize":
            step |= {"tensor": label(), "scheme": draw(st.sampled_from(SCHEMES)), "name": name}
            if draw(st.integers(0, 5)) == 0:
                step["scales"] = [draw(st.sampled_from([0.5, 1.0, -1.0, float("nan")]))]
        elif op == "to_device":
            step |= {"tensor": label(), "device": draw(st.sampled_from(devices)), "name": name}
            if draw(st.booleans()):
                step["policy"] = draw(st.sampled_from(POLICIES))
            if draw(st.integers(0, 4)) == 0:
                step["path"] = draw(st.sampled_from(["same", "local", "bytes", "dispatch",
                                                     "bridge"]))
            if draw(st.integers(0, 4)) == 0:
                step["arrival"] = "target-first"
            if draw(st.integers(0, 4)) == 0:
                step["transport"] = "websocket"
        elif op == "reshape":
            step |= {"tensor": label(), "shape": draw(st.sampled_from([[8], [4, 2], [32], [5]])),
                     "name": name}
        elif op == "swap_dims":
            step |= {"tensor": label(), "dim1": 0, "dim2": draw(st.integers(0, 2)), "name": name}
        elif op == "cast":
            step |= {"tensor": label(), "dtype": draw(st.sampled_from(["f32", "i32", "f16"])),
                     "name": name}
        elif op in ("clone", "dequantize"):
            step |= {"tensor": label(), "name": name}
        elif op == "read":
            step |= {"tensor": label()}
            if draw(st.booleans()):
                step["consume"] = True
        else:  # drop, read_quantized
            step |= {"tensor": label()}
        if draw(st.integers(0, 9)) == 0:
            step["expect_error"] = draw(st.sampled_from(ERRORS))
        if "name" in step and name not in labels:
            labels.append(name)
        steps.append(step)
    return _document(top, steps)


def _outcome(text: str, override: str | None) -> tuple[str, Any, Any]:
    """("load", …) for a file refused before anything runs, else validate's first failure (or
    None) beside the run's, each as (step, error class)."""
    try:
        scenario = parse_scenario(text, "gen.toml")
    except ScenarioError:
        return "load", None, None
    report = validate_flow(scenario, override)
    try:
        for _ in run_scenario(scenario, policy=override):
            pass
    except ScenarioRunError as failure:
        return "judged", report.failure, (failure.step, failure.error)
    return "judged", report.failure, None


def test_validate_predicts_exactly_what_simulate_does() -> None:
    """≥ 2,000 generated scenarios per run, 0 disagreements; and the draw is worth it: most
    files load and are fully judged, and many of those fail somewhere (the agreement is about
    real predictions, not about files refused at load)."""
    tally: Counter[str] = Counter()

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(scenarios(), st.sampled_from([None, None, *POLICIES]))
    def agree(text: str, override: str | None) -> None:
        kind, predicted, ran = _outcome(text, override)
        tally[kind] += 1
        tally["fails"] += predicted is not None
        assert predicted == ran, f"validate said {predicted}, simulate did {ran}, for:\n{text}"

    agree()
    assert tally["load"] + tally["judged"] >= EXAMPLES
    assert tally["judged"] >= EXAMPLES // 2, tally
    assert EXAMPLES // 10 <= tally["fails"] <= tally["judged"] - EXAMPLES // 10, tally


@pytest.mark.parametrize("text, failure", [
    ('devices = ["cpu:0"]\n[[steps]]\nop = "tensor"\nname = "x"\nvalues = [1.0]\n'
     'device = "cpu:0"\n[[steps]]\nop = "add"\nlhs = "x"\nrhs = "x"\nname = "y"\n',
     (2, "UseAfterDropError")),
    ('devices = ["cpu:0"]\n[[steps]]\nop = "tensor"\nname = "x"\nvalues = [1.0]\n'
     'device = "cpu:0"\n[[steps]]\nop = "quantize"\ntensor = "x"\nscheme = "q8s"\n'
     'scales = [nan]\nname = "q"\n', (2, "QuantizationError")),
    ('devices = ["cpu:0"]\n[[steps]]\nop = "tensor"\nname = "x"\nvalues = ' + str([1.0] * 32) +
     '\ndevice = "cpu:0"\n[[steps]]\nop = "quantize"\ntensor = "x"\n'
     'scheme = "q4s:block=16:global=f32"\nscales = [1.0, 1.0]\nglobal = -1.0\nname = "q"\n',
     (2, "QuantizationError")),
    ('devices = ["cpu:0"]\n[[steps]]\nop = "tensor"\nname = "x"\nvalues = [1.0, 2.0, 3.0, 4.0]\n'
     'device = "cpu:0"\n[[steps]]\nop = "quantize"\ntensor = "x"\nscheme = "q8s"\nname = "q"\n'
     '[[steps]]\nop = "reshape"\ntensor = "q"\nshape = [2, 2]\nname = "r"\n',
     (3, "BurnUnimplemented")),
])
def test_the_four_flows_validate_used_to_approve(text: str, failure: tuple[int, str]) -> None:
    """`add(x, x)`, `scales = [nan]`, a negative global scale and a quantized reshape: each was
    "flow OK" for validate and then failed in simulate; both now stop at the same step."""
    kind, predicted, ran = _outcome(text, None)
    assert kind == "judged" and predicted == ran == failure
