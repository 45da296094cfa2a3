"""Shared fixtures: a fresh workspace, and the reference solution of any exercise.

Every solution is sealed; tests open it the way `teacher lint` does, with the key the model's own
answers give, so no test file holds a plain answer or solution either.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import Catalog, Exercise, load_catalog
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.workspace import Workspace, init_workspace

sys.path.insert(0, str(Path(__file__).parent))  # `build_substitutes`, shared by the build tests


def _reference_solution(exercise: Exercise) -> str:
    return open_solution(exercise)


def _solve(workspace: Workspace, exercise_id: str) -> Path:
    exercise = load_catalog().get(exercise_id)
    path = workspace.file_for(exercise)
    path.write_text(_reference_solution(exercise), encoding="utf-8")
    return path


@pytest.fixture
def reference() -> Callable[[Exercise], str]:
    """`reference(exercise)`: the reference solution's source."""
    return _reference_solution


@pytest.fixture
def solve() -> Callable[[Workspace, str], Path]:
    """`solve(workspace, id)`: write the reference solution into the student's file."""
    return _solve


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return init_workspace(tmp_path / "ws", "ada")[0]


@pytest.fixture
def course(workspace: Workspace) -> Course:
    return Course(workspace)


@pytest.fixture
def count_model(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[str]]:
    """Call it where counting should begin: from then on, every exercise the teacher's truths
    ask the model for is a real (uncached) computation, and its id is appended to the list it
    returns."""
    from routerlab.exercises.engine import judge
    from routerlab.exercises.teacher import truths

    def start() -> list[str]:
        asked: list[str] = []
        model = judge.expected.__wrapped__

        def counted(exercise_id: str, catalog: str = "", params: str = "") -> judge.Expected:
            asked.append(exercise_id)
            return model(exercise_id, catalog, params)

        monkeypatch.setattr(truths.judge, "expected", counted)
        return asked

    return start


@pytest.fixture
def graded_course(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                  ) -> Callable[[str, dict[str, float]], Catalog]:
    """Make a released course (its secret in a data folder of the test's own) whose gradebook
    holds one run: ada graded in full, ben on the exercises given (id → points); the catalog."""
    from routerlab.exercises.authoring.secret import ensure_secret
    from routerlab.exercises.teacher import gradebook_term as term
    from routerlab.exercises.teacher.gradebook_db import Gradebook
    from routerlab.exercises.teacher.roster import Student

    def make(course_id: str, ben: dict[str, float]) -> Catalog:
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
        ensure_secret(course_id, True, tmp_path / "bundle")
        term.record_roster(course_id, [Student("ada", "Ada L", "ada@x.org", "A", "L-1"),
                                       Student("ben", "Ben M", "ben@x.org", "B", "L-2")])
        catalog = load_catalog()
        with Gradebook.of_course(course_id) as book:
            book.add_run("test", "v1", {e.id: e.points for e in catalog}, [
                ("ada", True, "ok", {e.id: (float(e.points), f"exercises/{e.file_name}")
                                     for e in catalog}),
                ("ben", True, "ok", {i: (points, f"exercises/{catalog.get(i).file_name}")
                                     for i, points in ben.items()})])
        return catalog

    return make
