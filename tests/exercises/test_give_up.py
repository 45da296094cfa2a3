"""Giving up: the answer is shown without a pass, the choice is recorded, and it costs the points
in every place points are counted (progress, the hand-in file, a teacher's gradebook)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from routerlab.exercises.checks import suite_for
from routerlab.exercises.errors import GradesError, LockedError
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.export import write_results
from routerlab.exercises.learner.workspace import Workspace
from routerlab.exercises.teacher.exports import merge_exports

Solve = Callable[[Workspace, str], Path]


def _status(course: Course, exercise_id: str):
    return course.status(exercise_id)


def test_giving_up_a_predict_exercise_shows_the_models_answers_and_forfeits_it(
        course: Course, solve: Solve) -> None:
    with pytest.raises(LockedError, match="give-up"):
        course.solution("registry-2")
    given = course.give_up("registry-2")
    assert given.forfeited
    assert given.answers == suite_for(given.exercise).oracle()
    assert course.solution("registry-2").text == given.solution.text  # opened from now on
    solve(course.workspace, "registry-2")
    assert course.check("registry-2").passed, "the answer still checks"
    status = _status(course, "registry-2")
    assert status.done and status.earned == 0 and status.label.startswith("gave up")


def test_giving_up_an_implement_exercise_shows_the_worked_solution(course: Course) -> None:
    given = course.give_up("quant-3")
    assert given.answers == {} and "def pack_u32" in given.solution.text
    assert given.solution.path.read_text() == given.solution.text
    assert _status(course, "quant-3").record.solution_viewed


def test_giving_up_after_a_pass_keeps_the_points(course: Course, solve: Solve) -> None:
    solve(course.workspace, "quant-1")
    assert course.check("quant-1").passed
    assert not course.give_up("quant-1").forfeited
    assert _status(course, "quant-1").earned == 10


def test_the_hand_in_file_gives_no_points_for_a_given_up_exercise(
        course: Course, solve: Solve, tmp_path: Path) -> None:
    course.give_up("quant-3")
    solve(course.workspace, "quant-3")
    (tmp_path / "grades").mkdir()
    path, document = write_results(course, tmp_path / "grades" / "ada.json")
    entry = next(e for e in document["exercises"] if e["id"] == "quant-3")
    assert entry["passed"] and entry["gave_up"] and entry["points"] == 0
    book = merge_exports(path.parent, course.catalog)
    assert book.problems == [] and book.students[0].exercises["quant-3"]["points"] == 0
    entry["points"] = 10  # an edited hand-in claiming the points back is refused
    path.write_text(json.dumps(document))
    with pytest.raises(GradesError, match="gave up"):
        merge_exports(path.parent, course.catalog)


def test_the_terminal_asks_first_and_says_what_it_costs(workspace: Workspace) -> None:
    run = [sys.executable, "-m", "routerlab", "exercises", "give-up", "registry-2",
           "--dir", str(workspace.root)]
    refused = subprocess.run(run, input="n\n", capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and not _status(Course(workspace), "registry-2").record.gave_up
    done = subprocess.run([*run, "--yes"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "no points" in done.stdout and "the model's answers" in done.stdout
    assert _status(Course(workspace), "registry-2").record.gave_up
