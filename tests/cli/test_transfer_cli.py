"""`routerlab transfer`, `compare` and `validate`: their JSON contracts, exit codes and one-line
errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli import app as app_module
from routerlab.cli.app import app

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
    result = CliRunner().invoke(app, ["transfer", "--values", "[1,2,3]", "--to", "cpu:1@cubecl",
                                      "--policy", "legacy", "--plain"])
    assert result.exit_code == 1
    assert "BurnUnimplemented: not implemented" in result.stdout
    assert "crates/burn-router/src/channel/base.rs:58" in result.stdout


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
    result = CliRunner().invoke(app, ["validate", str(SCENARIOS / "quantized-bridge.toml"),
                                      "--plain"])
    assert result.exit_code == 0 and "flow OK: 2 quantized transfer(s) checked" in result.stdout


def test_simulate_runs_the_quantized_scenarios() -> None:
    for name in ("quantized-local", "quantized-bridge", "requantize-drift", "quantized-legacy"):
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
    (["transfer", "--values", "[1,2]", "--scheme", "q9x"], "q9x"),
    (["transfer", "--values", "[1,2]", "--backend", "tpu"], "unknown backend profile 'tpu'"),
    (["transfer"], "give the tensor with --values"),
    (["compare", "--scheme", "q8s:block=3", "--values", "[1,2]"], "not a whole number"),
    (["transfer", "--random", "4", "--seed", "-1"], "--seed must be >= 0"),
    (["transfer", "--random", "100000,100000"], "RouterLab takes at most 2,147,483,648"),
    (["transfer", "--values", "[1e39]"], "beyond f32's range"),
    (["compare", "--random", "4", "--seed", "-1"], "--seed must be >= 0"),
    (["compare", "--random", "100000,100000"], "RouterLab takes at most 2,147,483,648"),
    (["validate", "no-such.toml"], "cannot read"),
    (["validate", str(SCENARIOS / "quantized-local.toml"), "--policy", "x"],
     "unknown transfer policy 'x'"),
])
def test_bad_input_is_one_line_and_exit_1(args: list[str], message: str,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["routerlab", *args])
    with pytest.raises(SystemExit) as done:
        app_module.main()
    assert done.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err
