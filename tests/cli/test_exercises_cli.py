"""`routerlab exercises ...` and `routerlab teacher ...` as a student and a teacher use them."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from routerlab.cli.app import app
from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog

RUNNER = CliRunner()


def _run(*args: str, input: str | None = None) -> Result:
    return RUNNER.invoke(app, list(args), input=input, env={"NO_COLOR": "1", "COLUMNS": "160"})


def _main(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real console entry point, with its one-line errors and exit codes."""
    env = dict(os.environ, NO_COLOR="1", COLUMNS="160")
    return subprocess.run([sys.executable, "-m", "routerlab", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _solve(ws: Path, exercise_id: str) -> None:
    exercise = load_catalog().get(exercise_id)
    (ws / "exercises" / exercise.file_name).write_text(open_solution(exercise))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    result = _run("exercises", "init", str(tmp_path / "ws"), "--student", "ada")
    assert result.exit_code == 0, result.output
    assert "Workspace for ada" in result.output
    return tmp_path / "ws"


def test_check_a_starter_then_the_solution(ws: Path) -> None:
    failing = _run("exercises", "check", "quant-3", "--dir", str(ws))
    assert failing.exit_code == 1
    assert "✗ quant-3" in failing.output and "not done yet" in failing.output
    assert "routerlab exercises hint quant-3 --level" in failing.output
    _solve(ws, "quant-3")
    passing = _run("exercises", "check", "quant-3", "--dir", str(ws))
    assert passing.exit_code == 0, passing.output
    assert "all 7 checks pass" in passing.output
    assert "routerlab exercises solution" in passing.output


def test_check_without_an_id_takes_the_next_unfinished_exercise_from_the_cwd(ws: Path) -> None:
    first = list(load_catalog())[0]
    done = _main("exercises", "check", cwd=ws / "exercises")
    assert done.returncode == 1 and f"✗ {first.id}" in done.stdout


def test_the_solution_is_refused_before_a_pass_with_one_line(ws: Path) -> None:
    refused = _main("exercises", "solution", "registry-1", cwd=ws)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("error: the solution of registry-1 opens once you pass it")
    _solve(ws, "registry-1")
    assert _run("exercises", "check", "registry-1", "--dir", str(ws)).exit_code == 0
    shown = _run("exercises", "solution", "registry-1", "--dir", str(ws))
    assert shown.exit_code == 0 and "def get_handle" in shown.output
    assert (ws / "solutions" / "registry_1.py").is_file()


def test_hints_go_up_a_level_each_time_and_list_shows_them(ws: Path) -> None:
    first = _run("exercises", "hint", "quant-1", "--dir", str(ws))
    second = _run("exercises", "hint", "quant-1", "--dir", str(ws))
    assert "hint 1 of 3 (nudge)" in first.output and "hint 2 of 3 (concept)" in second.output
    assert "routerlab exercises hint quant-1 --level 3" in second.output
    listing = _run("exercises", "list", "--dir", str(ws))
    row = next(line for line in listing.output.splitlines() if " quant-1 " in line)
    assert "2/3" in row
    assert f"0/{len(load_catalog())} exercises passed" in listing.output


def test_reset_asks_first(ws: Path) -> None:
    path = ws / "exercises" / load_catalog().get("quant-3").file_name
    path.write_text("# my attempt\n")
    kept = _run("exercises", "reset", "quant-3", "--dir", str(ws), input="n\n")
    assert kept.exit_code != 0 and path.read_text() == "# my attempt\n"
    reset = _run("exercises", "reset", "quant-3", "--dir", str(ws), input="y\n")
    assert reset.exit_code == 0 and "TODO" in path.read_text()
    path.write_text("# again\n")
    assert _run("exercises", "reset", "quant-3", "--yes", "--dir", str(ws)).exit_code == 0
    assert "TODO" in path.read_text()


def test_a_corrupted_progress_file_is_reported_and_progress_survives(ws: Path) -> None:
    _solve(ws, "quant-3")
    _run("exercises", "check", "quant-3", "--dir", str(ws))
    state = ws / ".routerlab" / "state.json"
    state.write_text("\x00garbage")
    listing = _run("exercises", "list", "--dir", str(ws))
    assert listing.exit_code == 0
    assert "warning:" in listing.output and "corrupted" in listing.output
    assert f"1/{len(load_catalog())} exercises passed" in listing.output
    assert list(state.parent.glob("state.json.corrupt-*"))


def test_check_all_in_json_and_progress(ws: Path) -> None:
    _solve(ws, "registry-2")
    result = _run("exercises", "check", "--all", "--json", "--dir", str(ws))
    verdicts = {v["id"]: v for v in json.loads(result.output)}
    assert result.exit_code == 1 and list(verdicts) == [e.id for e in load_catalog()]
    assert verdicts["registry-2"]["passed"] and not verdicts["quant-1"]["passed"]
    progress = _run("exercises", "progress", "--dir", str(ws))
    first = load_catalog().exercises[0].id  # registry-2 is passed, so the next is the first
    assert "1/" in progress.output and f"next: {first}" in progress.output


def test_export_then_teacher_grades(ws: Path, tmp_path: Path) -> None:
    _solve(ws, "quant-3")
    _run("exercises", "check", "quant-3", "--dir", str(ws))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    exported = _run("exercises", "export", "--out", str(inbox / "ada.json"), "--dir", str(ws))
    assert exported.exit_code == 0 and "10/" in exported.output
    total = len(load_catalog())
    assert f"{total}/{total} exercises checked" in exported.stderr, "a long export shows progress"
    grades = _run("teacher", "grades", str(inbox))
    assert grades.exit_code == 0, grades.output
    assert "1 students" in grades.output and "100%" in grades.output
    rows = list(csv.DictReader((inbox / "grades.csv").open()))
    assert rows[0]["student"] == "ada" and rows[0]["quant-3"] == "10"


def test_outside_a_workspace_the_error_says_how_to_make_one(tmp_path: Path) -> None:
    result = _main("exercises", "list", cwd=tmp_path)
    assert result.returncode == 1
    assert "no RouterLab workspace here" in result.stderr and "exercises init" in result.stderr


def test_teacher_lint_one_exercise(tmp_path: Path) -> None:
    result = _run("teacher", "lint", "quant-3", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["ok"] and report["exercises"][0]["hidden"] >= 1


@pytest.mark.parametrize("plain", [True, False])
def test_a_printed_solution_never_wraps_code_at_40_columns(tmp_path: Path, plain: bool) -> None:
    """Every line of the solution comes out whole, however narrow the terminal: a pasted
    solution must run (issue 29: it wrapped mid-expression)."""
    ws = tmp_path / "ws"
    assert _run("exercises", "init", str(ws), "--student", "ada").exit_code == 0
    exercise = load_catalog().get("registry-1")
    text = open_solution(exercise)
    long_lines = [line for line in text.splitlines() if len(line) > 40]
    assert long_lines  # the point of the test: lines wider than the terminal
    _solve(ws, "registry-1")
    assert RUNNER.invoke(app, ["exercises", "check", "registry-1", "--dir", str(ws)]).exit_code \
        == 0
    for argv in (["exercises", "solution", "registry-1"],
                 ["exercises", "give-up", "registry-1", "--yes"]):
        result = RUNNER.invoke(app, [*argv, "--dir", str(ws), *(["--plain"] if plain else [])],
                               env={"NO_COLOR": "1" if plain else "", "COLUMNS": "40"})
        assert result.exit_code == 0, result.output
        shown = [line.rstrip() for line in result.stdout.splitlines()]
        if not plain:  # colour codes between the words; the lines are what is compared
            shown = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in shown]
        for line in long_lines:
            assert line.rstrip() in shown, line
