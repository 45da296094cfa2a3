"""The guard over whole scenarios: every shipped scenario under every policy, judged without
running, and the judgement checked against a real run of the same flow."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from routerlab.core.base import gpu
from routerlab.core.base.errors import ScenarioError
from routerlab.core.base.gpu import GpuStatus
from routerlab.core.scenario import (
    Scenario,
    ScenarioRunError,
    load_scenario,
    parse_scenario,
    run_scenario,
)
from routerlab.core.scenario.predict import validate_flow

SCENARIOS = sorted(Path(__file__).resolve().parents[2].joinpath("scenarios").glob("*.toml"))
POLICIES = [None, "native", "dequantize", "requantize", "reject", "legacy"]
JUDGED_BY_READS = ("read", "read_quantized")


def _with_policy(scenario: Scenario, policy: str | None) -> Scenario:
    """The flow as `validate --policy` imagines it: every transfer under `policy`."""
    if policy is None:
        return scenario
    steps = tuple({**s, "policy": policy} if s["op"] == "to_device" else s
                  for s in scenario.steps)
    return dataclasses.replace(scenario, steps=steps, policy=policy)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_the_guard_agrees_with_a_real_run(path: Path, policy: str | None) -> None:
    scenario = load_scenario(path)
    report = validate_flow(scenario, policy)
    run = _with_policy(scenario, policy)
    try:
        for _ in run_scenario(run):
            pass
    except ScenarioError as failure:
        step = int(str(failure).split(": step ")[1].split(" ")[0])
        op = scenario.steps[step - 1]["op"]
        if op in JUDGED_BY_READS and "would fail" not in " ".join(report.problems):
            return  # a read's own expectation (the guard does not predict values)
        assert not report.ok, f"the guard passed a flow that fails at step {step}: {failure}"
        assert report.problems[0].startswith(f"step {step} ({op})"), report.problems
        return
    assert report.ok, report.problems


def test_shipped_quantized_scenarios_pass_the_guard_as_written() -> None:
    for path in SCENARIOS:
        report = validate_flow(load_scenario(path))
        assert report.ok, (path, report.problems)


def test_report_lists_every_quantized_transfer_with_its_plan() -> None:
    report = validate_flow(load_scenario(SCENARIOS[0].with_name("quantized-legacy.toml")))
    assert [(t.step, t.plan.path.value, t.verdict) for t in report.transfers] == [
        (3, "local", "fails as expected"), (6, "bytes", "fails as expected"),
        (9, "dispatch", "fails as expected")]
    data = report.to_dict()
    assert data["ok"] and data["transfers"][0]["plan"]["walls"][0]["function"] == \
        "BackendRouter::q_to_device"
    assert report.view().caption.startswith("flow OK: 3 quantized transfer(s) checked")


def test_a_dead_session_fails_the_steps_after_it() -> None:
    scenario = parse_scenario('''
devices = ["cpu:0", "cpu:1"]
[[steps]]
op = "tensor"
name = "x"
values = [1.0, -1.0]
dtype = "f32"
device = "cpu:0"
[[steps]]
op = "quantize"
tensor = "x"
scheme = "q8s"
name = "q"
[[steps]]
op = "clone"
tensor = "q"
name = "keep"
[[steps]]
op = "to_device"
tensor = "q"
device = "cpu:1"
name = "moved"
policy = "legacy"
expect_error = "BurnTodo"
[[steps]]
op = "dequantize"
tensor = "keep"
name = "back"
''')
    report = validate_flow(scenario)
    assert not report.ok
    (problem,) = report.problems  # the rehearsal's own SessionEnded, with the panic that ended it
    assert problem.startswith("step 5 (dequantize) would fail: SessionEnded: session cpu:0 has "
                              "ended: panicked: not yet implemented: Local transfer of QFloat(")
    assert report.failure == (5, "SessionEnded")
    assert report.view().styles == {0: "muted"}  # the expected panic: shown, not an error


def test_a_legacy_scenario_cannot_quantize() -> None:
    scenario = parse_scenario('''
devices = ["cpu:0"]
legacy = true
[[steps]]
op = "tensor"
name = "x"
values = [1.0]
dtype = "f32"
device = "cpu:0"
[[steps]]
op = "quantize"
tensor = "x"
scheme = "q8s"
name = "q"
''')
    report = validate_flow(scenario)
    expected = "step 2 (quantize) would fail: BurnUnimplemented: not implemented"
    assert list(report.problems) == [expected]
    with pytest.raises(ScenarioRunError) as run:  # the run says the very same
        list(run_scenario(scenario))
    assert f"step 2 (quantize) failed: BurnUnimplemented: {run.value.message}" == \
        expected.replace("would fail", "failed")


def test_a_label_whose_step_failed_as_expected_is_predicted_as_the_run_fails() -> None:
    """validate's prediction and the run's error are the same class and text."""
    scenario = parse_scenario('''
devices = ["cpu:0"]
[[steps]]
op = "tensor"
name = "x"
values = [1.0, 2.0]
device = "cpu:0"
[[steps]]
op = "reshape"
tensor = "x"
shape = [3]
name = "y"
expect_error = "ShapeError"
[[steps]]
op = "drop"
tensor = "y"
''', "s.toml")
    report = validate_flow(scenario)
    assert list(report.problems) == ["step 3 (drop) would fail: UnknownTensorError: tensor 'y' "
                                     "does not exist: the step that defines it failed"]
    with pytest.raises(ScenarioError) as run:
        list(run_scenario(scenario))
    predicted = report.problems[0].split(" would fail: ", 1)[1]
    assert str(run.value) == f"s.toml: step 3 (drop) failed: {predicted}"


GPU_FLOW = '''
devices = ["cpu:0", "gpu/cuda:0"]
[[steps]]
op = "tensor"
name = "x"
values = [1.0, 2.0]
device = "cpu:0"
[[steps]]
op = "to_device"
tensor = "x"
device = "gpu/cuda:0"
name = "y"
'''


def _gpu(monkeypatch: pytest.MonkeyPatch, status: GpuStatus) -> None:
    monkeypatch.setattr(gpu, "gpu_status", lambda: status)


def test_a_cuda_device_without_a_usable_gpu_is_predicted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run creates every listed device before step 1, so it fails there; the prediction
    is the run's own error (forced here, so it holds on a GPU machine too)."""
    _gpu(monkeypatch, GpuStatus(False, "no driver (forced by the test)"))
    scenario = parse_scenario(GPU_FLOW, "g.toml")
    report = validate_flow(scenario)
    assert list(report.problems) == [
        "before step 1 (creating the devices) would fail: GpuUnavailableError: cuda:0 is not "
        "available: no driver (forced by the test) (gpu/cuda:0 is first used by step 2, "
        "to_device)"]
    with pytest.raises(ScenarioRunError) as run:
        list(run_scenario(scenario))
    assert run.value.step is None and run.value.error == "GpuUnavailableError"
    assert f"{run.value.error}: {run.value.message}" in report.problems[0]


def test_a_usable_gpu_passes_and_a_missing_index_is_predicted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _gpu(monkeypatch, GpuStatus(True, "forced by the test", "13.0", 1, "Fake GPU"))
    assert validate_flow(parse_scenario(GPU_FLOW)).ok
    report = validate_flow(parse_scenario(GPU_FLOW.replace("gpu/cuda:0", "gpu/cuda:1")))
    assert list(report.problems) == [
        "before step 1 (creating the devices) would fail: GpuUnavailableError: cuda:1 does not "
        "exist: 1 GPU(s) found (gpu/cuda:1 is first used by step 2, to_device)"]


def test_a_cpu_flow_never_probes_the_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    def probe() -> GpuStatus:
        raise AssertionError("gpu_status called for a flow without cuda devices")

    monkeypatch.setattr(gpu, "gpu_status", probe)
    assert validate_flow(load_scenario(SCENARIOS[0])).ok


def test_this_machines_gpu_status_is_predicted() -> None:
    """The real probe: on a machine without a usable GPU the prediction carries its reason."""
    status = gpu.gpu_status()
    if status.usable:
        pytest.skip(f"a GPU is usable here ({status.device_name}): nothing to refuse")
    report = validate_flow(parse_scenario(GPU_FLOW))
    assert not report.ok and status.reason in report.problems[0]
