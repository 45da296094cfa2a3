"""The command lines RouterLab prints for pasting start the way RouterLab was started
(`routerlab.invocation`): `./run`'s path, `routerlab`, the script's path, `python -m`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab import invocation
from routerlab.cli.app import app


def test_run_script_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(invocation.RUN_SCRIPT_ENV, "/home/a b/routerlab/run")
    assert invocation.command_prefix() == "'/home/a b/routerlab/run'"


def test_a_console_script_off_path_is_named_by_its_path(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    monkeypatch.delenv(invocation.RUN_SCRIPT_ENV, raising=False)
    script = tmp_path / "bin" / "routerlab"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(script), "tour"])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert invocation.command_prefix() == str(script.resolve())
    monkeypatch.setenv("PATH", str(script.parent))
    assert invocation.command_prefix() == "routerlab"


def test_python_dash_m_is_named_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(invocation.RUN_SCRIPT_ENV, raising=False)
    monkeypatch.setattr(sys, "argv", ["/x/routerlab/__main__.py", "tour"])
    assert invocation.command_prefix() == f"{sys.executable} -m routerlab"


def test_the_tour_tells_a_run_user_to_type_run() -> None:
    result = CliRunner().invoke(app, ["tour", "--no-pause", "--plain"],
                                env={invocation.RUN_SCRIPT_ENV: "/src/routerlab/run",
                                     "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "/src/routerlab/run transfer --values" in result.stdout
    assert "/src/routerlab/run simulate quantized-cross-backend" in result.stdout


def test_a_failed_check_and_a_locked_solution_tell_a_run_user_to_type_run(
        tmp_path: Path) -> None:
    """The learner's own messages (a hint to ask for, a solution still locked, in
    `routerlab.exercises.learner`) follow the way RouterLab was started, as the CLI's do."""
    env = {invocation.RUN_SCRIPT_ENV: "/src/routerlab/run", "COLUMNS": "200", "NO_COLOR": "1"}
    runner = CliRunner()
    assert runner.invoke(app, ["exercises", "init", str(tmp_path / "ws")], env=env).exit_code == 0
    checked = runner.invoke(app, ["exercises", "check", "quant-3", "--dir", str(tmp_path / "ws")],
                            env=env)
    assert "/src/routerlab/run exercises hint quant-3" in checked.output
    assert "routerlab exercises hint" not in checked.output.replace("/run exercises", "")
    locked = runner.invoke(app, ["exercises", "solution", "quant-3", "--dir",
                                 str(tmp_path / "ws")], env=env)
    assert "/src/routerlab/run exercises give-up quant-3" in str(locked.exception)
