"""`routerlab validate` through the real app: what it predicts is what `simulate` then does."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app, main
from routerlab.core.base import gpu
from routerlab.core.base.gpu import GpuStatus

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
MAKE_X = '[[steps]]\nop = "tensor"\nname = "x"\nvalues = [1.0, 2.0]\ndevice = "cpu:0"\n'
MOVE = '[[steps]]\nop = "to_device"\ntensor = "x"\ndevice = "{device}"\nname = "y"\n'


def _main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          *args: str) -> tuple[int, str, str]:
    """Run `routerlab ARGS` through main(): exit status, stdout, stderr."""
    monkeypatch.setattr(sys, "argv", ["routerlab", *args])
    try:
        main()
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def _scenario(tmp_path: Path, device: str, devices: str = '"cpu:0", "cpu:1"') -> str:
    path = tmp_path / "s.toml"
    path.write_text(f"devices = [{devices}]\n" + MAKE_X + MOVE.format(device=device))
    return str(path)


@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_a_device_missing_from_devices_is_refused_by_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        command: str) -> None:
    """Not "flow OK": the file is refused when it is loaded, one line, exit 1, nothing run."""
    code, out, err = _main(monkeypatch, capsys, command, _scenario(tmp_path, "cpu:2"))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert "s.toml: step 2 (to_device): field 'device': device 'cpu:2' is not in" in err


def _force_gpu(monkeypatch: pytest.MonkeyPatch, status: GpuStatus) -> None:
    monkeypatch.setattr(gpu, "gpu_status", lambda: status)


def test_a_cuda_device_without_a_gpu_fails_validate_as_simulate_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Forced: holds on a GPU machine too."""
    _force_gpu(monkeypatch, GpuStatus(False, "no CUDA driver (forced by the test)"))
    path = _scenario(tmp_path, "gpu/cuda:0", '"cpu:0", "gpu/cuda:0"')
    code, out, _ = _main(monkeypatch, capsys, "validate", path, "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    assert report["problems"] == [
        "before step 1 (creating the devices) would fail: GpuUnavailableError: cuda:0 is not "
        "available: no CUDA driver (forced by the test) (gpu/cuda:0 is first used by step 2, "
        "to_device)"]
    code, out, err = _main(monkeypatch, capsys, "simulate", path)
    assert code == 1
    assert err == (f"error: {path}: before step 1 (creating the devices) failed: "
                   "GpuUnavailableError: cuda:0 is not available: no CUDA driver (forced by the "
                   "test)\n")


def test_a_cuda_device_with_a_usable_gpu_is_ok(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _force_gpu(monkeypatch, GpuStatus(True, "forced by the test", "13.0", 1, "Fake GPU"))
    code, out, _ = _main(monkeypatch, capsys, "validate",
                         _scenario(tmp_path, "gpu/cuda:0", '"cpu:0", "gpu/cuda:0"'), "--plain")
    assert code == 0 and "flow OK" in out


def test_this_machines_missing_gpu_is_reported_with_its_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    status = gpu.gpu_status()
    if status.usable:
        pytest.skip(f"a GPU is usable here ({status.device_name}): validate has nothing to "
                    "refuse")
    path = _scenario(tmp_path, "gpu/cuda:0", '"cpu:0", "gpu/cuda:0"')
    code, out, _ = _main(monkeypatch, capsys, "validate", path, "--json")
    assert code == 1
    assert "GpuUnavailableError: cuda:0 is not available: " + status.reason in \
        json.loads(out)["problems"][0]
    code, _, err = _main(monkeypatch, capsys, "simulate", path)
    assert code == 1 and status.reason in err


@pytest.mark.parametrize(("args", "summary"), [
    (["quantized-local.toml", "--policy", "reject"], "flow FAILS"),
    (["quantized-local.toml"], "flow OK"),
    (["quantized-legacy.toml"], "flow OK"),
])
def test_plain_prints_the_summary_once(args: list[str], summary: str) -> None:
    result = CliRunner().invoke(app, ["validate", str(SCENARIOS / args[0]), *args[1:],
                                      "--plain"])
    assert result.exit_code == (1 if summary == "flow FAILS" else 0), result.output
    assert result.output.count(summary) == 1, result.output
    assert result.output.index(summary) > result.output.rfind("wall:")  # last, after the walls


@pytest.mark.parametrize(("flags", "failure"), [
    # the bare router's client-side wall, seen where it is raised
    ([], {"step": 2, "error": "BurnUnimplemented"}),
    # fusion reaches the server's todo!(); the user sees it at step 4, the first read (of q1,
    # which the move at step 3 was to bring out of the dead cpu:0 session)
    (["--fusion"], {"step": 2, "error": "BurnTodo", "seen_step": 4}),
])
def test_fusion_on_the_command_line_decides_the_quantize_wall(flags: list[str],
                                                               failure: dict[str, object]) -> None:
    path = str(SCENARIOS / "quantized-local.toml")
    result = CliRunner().invoke(app, ["validate", path, "--policy", "legacy", "--json", *flags])
    assert result.exit_code == 1 and json.loads(result.stdout)["failure"] == failure
    ran = CliRunner().invoke(app, ["simulate", path, "--policy", "legacy", "--json", *flags])
    assert json.loads(ran.stdout)["failure"]["error"] == failure["error"]


def test_transport_on_the_command_line_replaces_the_files() -> None:
    """quantized-legacy's cross-peer step (6): over Iroh, the file's default, the target gives
    up and goes on; `--transport websocket` makes the same target wait forever."""
    path = str(SCENARIOS / "quantized-legacy.toml")
    iroh = CliRunner().invoke(app, ["simulate", path, "--json"])
    websocket = CliRunner().invoke(app, ["simulate", path, "--json", "--transport", "websocket"])
    step = {s["step"]: s for s in json.loads(iroh.stdout)["steps"]}[6]
    assert "gave up waiting" in step["error"]
    step = {s["step"]: s for s in json.loads(websocket.stdout)["steps"]}[6]
    assert "would wait forever" in step["error"]
