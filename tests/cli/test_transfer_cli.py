"""`routerlab transfer`, `compare` and `validate`: their JSON contracts, exit codes and one-line
errors."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from routerlab.cli import app as app_module
from routerlab.cli import render
from routerlab.cli.app import app
from routerlab.cli.tensor_input import LONG_WORK, progress_bar

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
HOP_KEYS = {"hop", "source", "target", "path", "seconds", "bytes_moved", "bytes_copied",
            "copies", "scheme", "scales", "global_scale", "q_changed", "q_changed_total",
            "scale_drift", "max_abs_error", "max_abs_error_total", "bit_exact"}


def _run(*args: str, code: int = 0) -> dict:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def test_transfer_json_holds_every_hop_with_its_scales() -> None:
    out = _run("transfer", "--values", "[-0.9,0.5,0.2]", "--scheme", "q2f", "--from", "cpu:0",
               "--to", "cpu:1", "--policy", "requantize", "--hops", "3")
    assert out["policy"] == "requantize" and out["ok"] and out["path"] == "local"
    assert out["scales"] == pytest.approx([0.6]) and len(out["hops"]) == 3
    assert set(out["hops"][0]) == HOP_KEYS
    assert [round(h["scales"][0], 4) for h in out["hops"]] == [0.8, 1.0667, 1.4222]
    assert out["bytes_moved"] == 36 and out["f32_bytes"] == 12 and out["stored_bytes"] == 7


def test_transfer_random_tensor_on_a_backend_and_a_forced_path() -> None:
    out = _run("transfer", "--random", "4,16", "--seed", "3", "--scheme", "q4s",
               "--backend", "cubecl", "--path", "bytes", "--policy", "native")
    assert out["source"] == "cpu:0@cubecl" and out["path"] == "bytes"
    assert out["scheme"] == "q4s:store=packed-u32" and out["hops"][0]["bit_exact"]
    assert out["bytes_moved"] == 4 * 2 * 4 + 4


@pytest.mark.parametrize(("policy", "error"), [("reject", "TransferRejected"),
                                               ("legacy", "BurnTodo")])
def test_a_transfer_that_does_not_happen_prints_json_and_exits_1(policy: str, error: str) -> None:
    out = _run("transfer", "--values", "[1,2,3]", "--policy", policy, code=1)
    assert not out["ok"] and out["hops"] == [] and out["failure"]["error"] == error
    if policy == "legacy":
        assert out["failure"]["source"] == "crates/burn-router/src/interpreter.rs:98"
        assert out["plan"]["walls"][0]["source"] == "crates/burn-router/src/ops/qtensor.rs:34-39"


def test_transfer_table_shows_the_panic() -> None:
    result = CliRunner().invoke(app, ["transfer", "--values", "[1,2,3]", "--to",
                                      "peer3/cpu:1@cubecl", "--path", "dispatch", "--policy",
                                      "legacy", "--plain"])
    assert result.exit_code == 1
    assert "BurnUnimplemented: not implemented" in result.stdout
    assert "crates/burn-router/src/ops/qtensor.rs:45-46" in result.stdout


def test_compare_json_and_table() -> None:
    out = _run("compare", "--scheme", "q2f", "--values", "[-0.9,0.5,0.2]", "--hops", "3")
    assert list(out["policies"]) == ["native", "dequantize", "requantize", "reject", "legacy"]
    assert out["table"]["columns"][:3] == ["policy", "outcome", "bytes moved"]
    assert out["verdict"].startswith("native is bit-exact")
    result = CliRunner().invoke(app, ["compare", "--hops", "1", "--plain"])
    assert result.exit_code == 0 and "verdict: native is bit-exact" in result.stdout


def test_validate_exit_code_follows_the_flow() -> None:
    good = _run("validate", str(SCENARIOS / "quantized-legacy.toml"))
    assert good["ok"] and len(good["transfers"]) == 3
    bad = _run("validate", str(SCENARIOS / "quantized-local.toml"), "--policy", "reject", code=1)
    assert not bad["ok"] and bad["policy"] == "reject"
    assert bad["problems"][0].startswith("step 3 (to_device) would fail: TransferRejected")
    result = CliRunner().invoke(app, ["validate", str(SCENARIOS / "quantized-cross-backend.toml"),
                                      "--plain"])
    assert result.exit_code == 0 and "flow OK: 2 quantized transfer(s) checked" in result.stdout


def test_simulate_runs_the_quantized_scenarios() -> None:
    for name in ("quantized-local", "quantized-cross-backend", "requantize-drift",
                 "quantized-legacy"):
        result = CliRunner().invoke(app, ["simulate", str(SCENARIOS / f"{name}.toml"), "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["steps"]



@pytest.mark.parametrize(("args", "message"), [
    (["transfer", "--values", "[1,2"], "--values is not JSON"),
    (["transfer", "--values", "[1,2]", "--policy", "fast"], "unknown transfer policy 'fast'"),
    (["transfer", "--values", "[1,2]", "--to", "gpu:0"], "unknown device kind 'gpu'"),
    (["transfer", "--values", "[1,2]", "--path", "tunnel"], "unknown transfer path 'tunnel'"),
    (["transfer", "--values", "[1,2]", "--to", "peer2/cpu:0", "--path", "local"],
     "path 'local' needs both devices on one peer"),
    (["transfer", "--values", "[1,2]", "--scheme", "q9x"], "unknown quantized value 'q9x'"),
    (["transfer", "--values", "[1,2]", "--backend", "tpu"], "unknown backend profile 'tpu'"),
    (["transfer"], "give the tensor with --values"),
    (["compare", "--scheme", "q8s:block=3", "--values", "[1,2]", "--backend", "ndarray"],
     "not a whole number"),
    (["transfer", "--random", "4", "--seed", "-1"], "--seed must be >= 0"),
    (["transfer", "--random", "100000,100000"], "RouterLab takes at most 2,147,483,648"),
    (["transfer", "--values", "[1e39]"], "beyond f32's range"),
    (["compare", "--random", "4", "--seed", "-1"], "--seed must be >= 0"),
    (["compare", "--random", "100000,100000"], "RouterLab takes at most 2,147,483,648"),
    (["validate", "no-such.toml"], "no scenario file 'no-such.toml'"),
    (["validate", str(SCENARIOS / "quantized-local.toml"), "--policy", "x"],
     "unknown transfer policy 'x'"),
])
def test_bad_input_is_one_line_with_its_exit_code(
        args: list[str], message: str, expected_exit: Callable[[str], int],
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["routerlab", *args])
    with pytest.raises(SystemExit) as done:
        app_module.main()
    assert done.value.code == expected_exit(message)
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err


def _terminal_stderr(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """Make the commands' stderr console a terminal writing into the returned buffer (the
    commands build their consoles through `render.make_console` at call time)."""
    drawn = io.StringIO()
    plain_factory = render.make_console

    def factory(plain: bool = False, stderr: bool = False) -> Console:
        if stderr:
            return Console(file=drawn, force_terminal=True, width=100)
        return plain_factory(plain, stderr)

    monkeypatch.setattr(render, "make_console", factory)
    return drawn


@pytest.mark.parametrize(("args", "last_step"), [
    (["transfer", "--random", "1024,1024", "--hops", "2"], "hop 2: cpu:1 -> cpu:0"),
    (["transfer", "--random", "512,1024", "--hops", "2"], "hop 2: cpu:1 -> cpu:0"),
    (["compare", "--random", "512,512", "--hops", "1"], "legacy"),
])
def test_long_work_draws_a_transient_progress_bar_on_a_terminal(
        args: list[str], last_step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert LONG_WORK == 1 << 20  # elements x hops (x policies for compare)
    drawn = _terminal_stderr(monkeypatch)
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)  # the bar never reaches stdout
    bar = drawn.getvalue()
    assert last_step in bar and "━" in bar, bar
    assert bar.endswith("\x1b[2K"), bar  # transient: the last thing drawn erases the bar's line


@pytest.mark.parametrize("args", [
    ["transfer", "--random", "1023,1024", "--hops", "1"],  # one row short of LONG_WORK
    ["transfer", "--random", "4,16", "--hops", "3"],
    ["compare", "--random", "256,256", "--hops", "3"],  # 5 policies x 3 hops x 64 Ki < 1 Mi
])
def test_short_work_draws_no_progress_bar(args: list[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = _terminal_stderr(monkeypatch)
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    assert drawn.getvalue() == ""


def test_progress_bar_needs_a_terminal_and_long_work() -> None:
    drawn, piped_out = io.StringIO(), io.StringIO()
    terminal = Console(file=drawn, force_terminal=True)
    piped = Console(file=piped_out, force_terminal=False)
    with progress_bar(terminal, LONG_WORK - 1) as progress:
        assert progress is None
    with progress_bar(piped, LONG_WORK * 100) as progress:
        assert progress is None
    assert drawn.getvalue() == piped_out.getvalue() == ""
    with progress_bar(terminal, LONG_WORK) as progress:
        assert progress is not None
        progress(1, 3, "hop 1: cpu:0 -> cpu:1")
    assert "hop 1: cpu:0 -> cpu:1" in drawn.getvalue() and "1/3" in drawn.getvalue()
    assert "None" not in drawn.getvalue()  # before the first report the count reads 0/?
