"""Shared fixtures: a fresh workspace, and the reference solution of any exercise.

Every solution is sealed; tests open it the way `teacher lint` does, with the key the model's own
answers give, so no test file holds a plain answer or solution either.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import Exercise, load_catalog
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.workspace import Workspace, init_workspace


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
