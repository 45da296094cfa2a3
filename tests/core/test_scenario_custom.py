"""The `custom` step kind: a scenario names example handlers (data, never code), runs a custom
op through them, meets Burn's missing-handler panic, and `validate` rehearses it alike."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from routerlab.core import ScenarioError
from routerlab.core.router.custom_examples import EXAMPLES
from routerlab.core.scenario import load_scenario, parse_scenario, run_scenario, validate_flow

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
PANIC = ("No custom-op handler registered for `fused_matmul_add_relu`. Register one on the "
         "server via `CustomOpRegistry`/the server builder before starting it.")
HEAD = 'devices = ["cpu:0"]\n'
MAKE = "".join(f'[[steps]]\nop = "tensor"\nname = "{n}"\nvalues = [1.0, 2.0]\ndtype = "f32"\n'
               'device = "cpu:0"\n' for n in "abc")
CUSTOM = ('[[steps]]\nop = "custom"\nid = "fused_add_mul"\ninputs = ["a", "b", "c"]\n'
          'shape = [2]\ndtype = "f32"\nname = "y"\n')


def test_the_shipped_scenario_runs_the_handler_then_meets_burns_panic() -> None:
    results = list(run_scenario(load_scenario(SCENARIOS / "custom-op.toml")))
    custom, read, missing = results[3], results[4], results[5]
    assert [row[0] for row in custom.registries["cpu:0"].rows] == [3]  # a, b, c consumed
    assert "[22.0, 11.0, -33.0]" in read.description
    assert missing.error is not None and PANIC in missing.error
    assert "ENDED" in missing.registries["cpu:0"].caption


def test_the_handler_computes_in_the_tensors_own_dtype() -> None:
    a, b, c = (np.float32(v) for v in (0.1, 0.2, 3.0))
    result = list(run_scenario(parse_scenario(
        HEAD + 'custom_ops = ["fused_add_mul"]\n' + MAKE.replace("[1.0, 2.0]", "[0.1]", 1)
        .replace("[1.0, 2.0]", "[0.2]", 1).replace("[1.0, 2.0]", "[3.0]", 1)
        + CUSTOM.replace("[2]", "[1]") + '[[steps]]\nop = "read"\ntensor = "y"\n')))[-1]
    assert result.description == f"read y = [{float((a + b) * c)!r}]"


def test_validate_rehearses_it_like_the_run() -> None:
    report = validate_flow(load_scenario(SCENARIOS / "custom-op.toml"))
    assert report.ok, report.problems
    unregistered = validate_flow(parse_scenario(HEAD + MAKE + CUSTOM, "s.toml"))
    assert unregistered.failure == (4, "BurnPanic")
    assert "No custom-op handler registered for `fused_add_mul`" in unregistered.problems[0]


@pytest.mark.parametrize(("text", "message"), [
    ('custom_ops = ["rm_rf"]\n' + HEAD + "steps = []\n",
     r"^bad.toml: field 'custom_ops': unknown example handler\(s\) 'rm_rf'; expected one of: "
     r"fused_add_mul$"),
    ('custom_ops = "fused_add_mul"\n' + HEAD + "steps = []\n",
     r"field 'custom_ops': expected list, got str"),
    (HEAD + MAKE + CUSTOM.replace('"c"]', '"z"]'),
     r"step 4 \(custom\): field 'inputs': unknown tensor label 'z'"),
    (HEAD + MAKE + CUSTOM.replace('["a", "b", "c"]', "[]"),
     r"step 4 \(custom\): field 'inputs': expected a non-empty list of tensor labels"),
    (HEAD + MAKE + CUSTOM.replace('dtype = "f32"\n', ""),
     r"step 4 \(custom\): field 'dtype': missing"),
])
def test_bad_custom_steps_are_refused_before_any_step_runs(text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text, "bad.toml")


def test_the_examples_are_a_fixed_table() -> None:
    assert list(EXAMPLES) == ["fused_add_mul"]
