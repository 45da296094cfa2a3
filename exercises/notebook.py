"""The notebook face: `check("registry-1")` and friends, returning objects Jupyter renders.

Each function finds the workspace as the terminal does (the marker file above the notebook's
folder, or `dir=`), calls the same `Course` operation and returns the same description the
terminal renders (`routerlab.exercises.render`), so a notebook and a terminal give the same
verdict on the same code and share one progress file.

`check(id)` checks the student's file in the workspace. `check(id, fn, other_fn, NAME=value)`
checks code written in the notebook instead: the sources of the given functions (and the given
plain values) are appended to the exercise's starter file, which replaces its stubs, and that file
is graded exactly like a file edited in the terminal.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path
from typing import Any

from routerlab.exercises.course import Course
from routerlab.exercises.errors import ExerciseError
from routerlab.exercises.render import NOTEBOOK, ProgressView, ReportView, TextView, hint_view
from routerlab.exercises.render import progress_view as _progress_view
from routerlab.exercises.render import report_view as _report_view
from routerlab.exercises.runner import Candidate
from routerlab.exercises.workspace import find_workspace


def check(exercise_id: str, *code: Any, dir: str | Path | None = None, **values: Any) -> ReportView:
    """Check an exercise: the workspace file, or the functions/values given here."""
    course = _course(dir)
    exercise = course.catalog.get(exercise_id)
    candidate = None
    if code or values:
        path = course.workspace.root / ".routerlab" / "notebook" / exercise.file_name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(exercise.starter() + _notebook_code(code, values), encoding="utf-8")
        candidate = Candidate(path, "your notebook code")
    report = course.check(exercise.id, candidate)
    return _report_view(report, exercise, NOTEBOOK)


def hint(exercise_id: str, level: int | None = None, dir: str | Path | None = None) -> TextView:
    """The next hint (or the given level) of an exercise."""
    return hint_view(_course(dir).hint(exercise_id, level), NOTEBOOK)


def solution(exercise_id: str, dir: str | Path | None = None) -> TextView:
    """The reference solution, once the exercise is passed."""
    found = _course(dir).solution(exercise_id)
    return TextView(f"{found.exercise.id}: reference solution", found.text, code=True)


def show(exercise_id: str, dir: str | Path | None = None) -> TextView:
    """The statement of an exercise, and where its file is."""
    course = _course(dir)
    exercise = course.catalog.get(exercise_id)
    where = course.workspace.file_for(exercise)
    return TextView(f"{exercise.id}: {exercise.title} ({exercise.points} points)",
                    f"{exercise.statement()}\n\nYour file: {where}")


def progress(dir: str | Path | None = None) -> ProgressView:
    """Every exercise with its status, points, attempts and hints used."""
    course = _course(dir)
    statuses = course.statuses()
    return _progress_view(statuses, course.problems)


def _course(dir: str | Path | None) -> Course:
    return Course(find_workspace(Path(dir) if dir is not None else None))


def _notebook_code(code: tuple[Any, ...], values: dict[str, Any]) -> str:
    parts = ["\n\n# --- code given to check() in the notebook ---\n"]
    for item in code:
        try:
            parts.append(textwrap.dedent(inspect.getsource(item)))
        except (TypeError, OSError):
            raise ExerciseError(f"cannot read the source of {item!r}: give check() functions "
                                "or classes defined in a cell, and plain values as NAME=value"
                                ) from None
    for name, value in values.items():
        text = repr(value)
        try:
            same = ast.literal_eval(text) == value
        except (ValueError, SyntaxError):
            same = False
        if not same:
            raise ExerciseError(f"{name}={text} is not a plain Python value (numbers, strings, "
                                "lists, tuples, dicts, sets, True/False/None)")
        parts.append(f"{name} = {text}\n")
    return "\n".join(parts)
