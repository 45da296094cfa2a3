"""Notebook 11's helpers (issue 39: a notebook leads the build track): `lab.check(ID)` of a
file-graded checkpoint counts no attempt while the file is the starter's, `lab.show(ID)` says
where the file is, and `your_router(lab)` runs the tour's flow on the learner's `build_8.py`
beside the model's: not written, bit-exact, parting, not loading and stopping are each one
plain verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.workspace import init_workspace, open_workspace
from routerlab.notebook.build import your_router
from routerlab.notebook.lesson import Lesson


@pytest.fixture
def lab(tmp_path: Path) -> Lesson:
    init_workspace(tmp_path / "ws", student="ada")
    return Lesson(open_workspace(tmp_path / "ws"), "11-build-your-router")


def _write(lab: Lesson, exercise_id: str, source: str) -> Path:
    path = lab.workspace.file_for(load_catalog().get(exercise_id))
    path.write_text(source, encoding="utf-8")
    return path


def test_a_starter_file_is_not_answered_yet_and_counts_no_attempt(lab: Lesson) -> None:
    shown = lab.check("build-1")
    assert "not answered yet" in repr(shown) and "build_1.py" in repr(shown)
    assert Course(lab.workspace).status("build-1").record.attempts == 0
    assert "build_1.py" in repr(lab.show("build-1"))


def test_a_written_file_is_graded(lab: Lesson) -> None:
    _write(lab, "build-1", open_solution(load_catalog().get("build-1")))
    assert "✓" in repr(lab.check("build-1"))
    assert Course(lab.workspace).status("build-1").record.status == "passed"


def test_your_router_not_written_yet(lab: Lesson) -> None:
    report = your_router(lab)
    assert report.tone == "info" and report.steps is None and "build_8.py" in report.body


def test_the_reference_router_runs_the_tour_bit_exact(lab: Lesson) -> None:
    _write(lab, "build-8", open_solution(load_catalog().get("build-8")))
    report = your_router(lab)
    assert report.tone == "ok", report
    assert report.steps is not None and all(row[-1] == "✓" for row in report.steps.rows)
    assert report.steps.rows[-1][1] == "None"  # the call trace: no model router logic ran


def test_a_router_that_parts_from_the_model_is_told_where(lab: Lesson) -> None:
    solution = open_solution(load_catalog().get("build-8"))
    branch = "    if source_device == target_device:\n        return tensor\n"
    assert branch in solution
    _write(lab, "build-8", solution.replace(branch, ""))
    report = your_router(lab)
    assert report.tone == "error" and report.steps is not None
    assert any(row[-1] == "✗" for row in report.steps.rows)


@pytest.mark.parametrize(("source", "heading"), [
    ("def broken(:\n", "does not load"),
    ("raise RuntimeError('half written')\n", "does not load"),
])
def test_a_file_that_does_not_load_is_one_line(lab: Lesson, source: str, heading: str) -> None:
    _write(lab, "build-8", source)
    report = your_router(lab)
    assert report.tone == "error" and heading in report.heading and report.steps is None


def test_a_router_that_stops_says_why(lab: Lesson) -> None:
    solution = open_solution(load_catalog().get("build-8"))
    _write(lab, "build-8", solution.replace(
        "    def run(self) -> None:\n",
        "    def run(self) -> None:\n        raise ValueError('not yet')\n"))
    report = your_router(lab)
    assert report.heading == "Your router stopped" and "not yet" in report.body
