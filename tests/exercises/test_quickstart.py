"""`routerlab teacher quickstart DIR`: the sample course it makes grades and reports with the very
commands it prints, pasted as they are."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine.jail import unavailable
from routerlab.exercises.errors import GradesError
from routerlab.exercises.teacher.quickstart import quickstart


def _routerlab(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    env.pop("ROUTERLAB_RUN_SCRIPT", None)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run([sys.executable, "-m", "routerlab", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow  # grades a class of three in the jail
@pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))
def test_every_printed_command_works_as_printed(tmp_path: Path) -> None:
    made = _routerlab("teacher", "quickstart", "course", "--plain", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    commands = [line for line in made.stdout.splitlines() if " teacher " in line
                and not line.startswith(" ")]
    assert len(commands) == 8, made.stdout  # the term: assignment to report
    env = {**os.environ, "NO_COLOR": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for command in commands:
        done = subprocess.run(command, shell=True, cwd=tmp_path / "course", env=env,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    root = tmp_path / "course"
    with (root / "grades" / "grades.csv").open(newline="") as table:
        rows = {row["id"]: row for row in csv.DictReader(table)}
    total = load_catalog().total_points
    assert float(rows["ada"]["points"]) == total
    assert 0 < float(rows["ben"]["points"]) < total / 2
    assert float(rows["cy"]["points"] or 0) == 0
    assert (root / "report.html").stat().st_size > 0
    assert {p.stem for p in (root / "feedback").glob("*.html")} >= {"ada", "ben", "cy"}


def test_it_writes_only_into_a_new_or_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    with pytest.raises(GradesError, match="not an empty folder"):
        quickstart(tmp_path / "taken", load_catalog())
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]


def test_a_course_that_fails_half_made_leaves_no_folder_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from routerlab.exercises.teacher import quickstart as module

    def broken(*args: object, **kwargs: object) -> None:
        raise GradesError("disk full")

    monkeypatch.setattr(module, "init_workspace", broken)
    with pytest.raises(GradesError, match="disk full"):
        quickstart(tmp_path / "course", load_catalog())
    assert not (tmp_path / "course").exists()
