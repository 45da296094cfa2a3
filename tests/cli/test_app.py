"""The console script's own behaviour: version, exit codes, one-line errors, no tracebacks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import typer

from routerlab.cli import app as app_module

ROUTERLAB = Path(sys.executable).parent / "routerlab"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ROUTERLAB), *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "NO_COLOR": "1"})


def test_version_and_python_dash_m_agree() -> None:
    script = _run("--version")
    module = subprocess.run([sys.executable, "-m", "routerlab", "--version"],
                            capture_output=True, text=True, timeout=60)
    assert script.returncode == module.returncode == 0
    assert script.stdout == module.stdout
    assert script.stdout.startswith("routerlab ")


def test_help_imports_neither_numpy_nor_the_core() -> None:
    """`routerlab --help` stays light: every command imports the core inside its function."""
    probe = ("import sys; import routerlab.cli.app; routerlab.cli.app.build(); "
             "print(sorted(m for m in sys.modules if m == 'numpy' or "
             "m.startswith('routerlab.core')))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0 and result.stdout.strip() == "[]", result.stderr


def test_unknown_command_is_a_usage_error_without_traceback() -> None:
    result = _run("no-such-command")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "no-such-command" in result.stderr


def test_routerlab_error_becomes_one_line_and_exit_1(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("devices = [")
    result = _run("simulate", str(broken))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "broken.toml" in lines[0] and "not valid TOML" in lines[0]


def test_exit_code_raised_inside_a_command_is_kept(monkeypatch) -> None:
    probe = typer.Typer()

    @probe.command()
    def fail() -> None:
        raise typer.Exit(3)

    @probe.command()
    def ok() -> None:
        pass

    monkeypatch.setattr(app_module, "build", lambda only=None: probe)
    for argv, expected in ((["fail"], 3), (["ok"], 0)):
        monkeypatch.setattr(sys, "argv", ["routerlab", *argv])
        try:
            app_module.main()
        except SystemExit as done:
            assert done.code == expected
        else:  # pragma: no cover - main always exits
            raise AssertionError("main() returned without exiting")


def test_a_run_of_one_command_builds_that_command_alone_with_the_same_face() -> None:
    """`main` builds only the command it runs (Typer inspects every registered command on each
    start); its help, including the usage line a usage error points to, is the whole app's."""
    from typer.testing import CliRunner

    runner, whole = CliRunner(), app_module.build()
    for name in app_module.COMMAND_MODULES:
        alone = app_module.build(name)
        assert len(alone.registered_commands) + len(alone.registered_groups) == 1
        assert (runner.invoke(alone, [name, "--help"], env={"NO_COLOR": "1"}).output
                == runner.invoke(whole, [name, "--help"], env={"NO_COLOR": "1"}).output)


def test_building_the_app_again_adds_no_command_twice() -> None:
    """A process that runs `main()` many times (the fuzz suite, a notebook) builds the app each
    time; the teacher group's class commands are added once, so a start does not slow down."""
    def names() -> list[str]:
        teacher = next(g.typer_instance for g in app_module.build().registered_groups
                       if g.typer_instance is not None and g.typer_instance.info.name == "teacher")
        return [c.name or c.callback.__name__ for c in teacher.registered_commands
                if c.callback is not None]

    first = names()
    assert {"collect", "report", "override", "history", "export"} <= set(first)
    assert len(first) == len(set(first))
    assert names() == first
