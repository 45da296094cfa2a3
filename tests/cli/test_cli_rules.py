"""Rules every command keeps (issue 29): help texts read like a well-kept Typer app's (no
`<bool>` beside a flag, no `<list[str]>`, `--peer` only where a peer is taken), and one rule of
exit codes: 2 for a usage error (a bad flag, a bad or out-of-range value, a missing argument),
1 for an operation that was refused or failed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from routerlab.cli import app as app_module

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


APP = app_module.build()


def _command_paths() -> list[list[str]]:
    """Every command and sub-command of the app, as the words that name it."""
    root = typer.main.get_command(APP)
    found: list[list[str]] = []

    def walk(command: Any, path: list[str]) -> None:  # Typer may vendor its own click
        found.append(path)
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])

    walk(root, [])
    return found


PATHS = _command_paths()


def _help(path: list[str], width: int = 100) -> str:
    result = CliRunner().invoke(APP, [*path, "--help"],
                                env={"NO_COLOR": "1", "COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    return result.output


def test_the_walk_finds_the_nested_commands() -> None:
    names = {" ".join(p) for p in PATHS}
    assert {"simulate", "exercises init", "teacher collect", "teacher"} <= names


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "routerlab")
def test_no_help_text_shows_a_python_type(path: list[str]) -> None:
    shown = _help(path)
    assert "<bool>" not in shown and "<list[" not in shown


def test_peer_is_offered_only_where_a_peer_is_taken() -> None:
    with_peer = {" ".join(p) for p in PATHS if "--peer " in _help(p)}
    assert with_peer == {"simulate", "validate", "transfer", "doctor"}
    scenario_sentence = {" ".join(p) for p in PATHS
                         if "Replaces a peer of the same name" in _help(p, 400)}
    assert scenario_sentence == {"simulate", "validate"}


@pytest.mark.parametrize("group", [["exercises"], ["teacher"]])
def test_group_help_wraps_each_command_in_one_flow(group: list[str]) -> None:
    """No line of a command's description ends early: every wrapped line but the last of an
    entry reaches near the panel's edge (a docstring's own line breaks are reflowed)."""
    lines = [line for line in _help(group, 80).splitlines() if line.startswith("│")]
    body = [line[1:-1].rstrip() for line in lines]
    for this, following in zip(body, body[1:], strict=False):
        continues = following.startswith(" " * 10) and following.strip()
        if continues and this.strip():
            assert len(this) >= 78 - 20, f"ragged line: {this!r}"


def _exit_code(monkeypatch: pytest.MonkeyPatch, *argv: str) -> int:
    monkeypatch.setattr(sys, "argv", ["routerlab", *argv])
    with pytest.raises(SystemExit) as done:
        app_module.main()
    return int(done.value.code or 0)


USAGE_ERRORS = [
    ["transfer", "--hops", "0"],
    ["transfer", "--hops", "abc"],
    ["transfer", "--hops", "1001"],
    ["compare", "--hops", "0"],
    ["transfer", "--policy", "teleport"],
    ["transfer", "--to", "gpu0"],
    ["compare", "--scheme", "q9z"],
    ["simulate", "no-such-scenario"],
    ["simulate"],
    ["validate", "no-such-scenario"],
    ["simulate", "shared-add", "--transport", "pigeon"],
    ["serve", "--profile", "abacus"],
    ["quantize", "--no-such-flag"],
    ["quantize", "--values", "[1,"],
    ["quantize", "--random", "4", "--seed", "-1"],
    ["exercises", "check", "--no-such-flag"],
    ["simulate", "shared-add", "--peer", "peer2"],
    ["simulate", "shared-add", "--fault", "step=1,kind=oops"],
    ["transfer", "--peer", "peer2=http://127.0.0.1:1"],
    ["serve", "--peer-allow", "not-an-address"],
    ["no-such-command"],
]


@pytest.mark.parametrize("argv", USAGE_ERRORS, ids=" ".join)
def test_a_usage_error_exits_2_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str],
                                           argv: list[str]) -> None:
    assert _exit_code(monkeypatch, *argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: "), err


def test_a_refused_or_failed_operation_exits_1(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("devices = [")
    refused = [
        ["transfer", "--values", "[1,2]", "--policy", "reject", "--plain"],
        ["simulate", str(broken)],
        ["validate", "quantized-local", "--policy", "reject"],
        ["exercises", "check", "--dir", str(tmp_path)],  # not a workspace
        ["hub"],  # only --demo runs here
    ]
    for argv in refused:
        assert _exit_code(monkeypatch, *argv) == 1, argv
        capsys.readouterr()


def test_the_hops_range_is_the_cores_limit() -> None:
    from routerlab.cli import options
    from routerlab.core.base.limits import MAX_HOPS

    assert options.MAX_HOPS == MAX_HOPS
