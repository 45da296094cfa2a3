"""The notebook face: `check("registry-1")` and friends, returning objects Jupyter renders.

Each function finds the workspace as the terminal does (the marker file above the notebook's
folder, or `dir=`), calls the same `Course` operation and returns the same description the
terminal renders (`routerlab.exercises.render`), so a notebook and a terminal give the same
verdict on the same code and share one progress file.

`check(id)` checks the student's file in the workspace. `check(id, fn, other_fn, NAME=value)`
checks code written in the notebook instead: the sources of the given functions, of the helpers
they use that other cells defined, and the given plain values are appended to the exercise's
starter and saved as the exercise's workspace file (the previous one is kept under
`.routerlab/backup/`), so the terminal (`exercises list`, `check`, `export`) sees the same work.
A name the code uses that is defined nowhere is refused before anything runs, by name.
"""

from __future__ import annotations

import ast
import builtins
import dis
import inspect
import textwrap
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.safe_io import read_bytes
from .course import Course
from .errors import ExerciseError, WorkspaceError
from .files import os_errors
from .render import (
    NOTEBOOK,
    ProgressView,
    ReportView,
    TextView,
    give_up_view,
    hint_view,
)
from .render import progress_view as _progress_view
from .render import report_view as _report_view
from .workspace import find_workspace


def check(exercise_id: str, *code: Any, dir: str | Path | None = None, **values: Any) -> ReportView:
    """Check an exercise: the workspace file, or the functions/values given here."""
    course = _course(dir)
    exercise = course.catalog.get(exercise_id)
    if code or values:
        source = exercise.starter() + _notebook_code(code, values, exercise.starter())
        path = course.workspace.file_for(exercise)
        with os_errors("save your code in the workspace"):
            if path.exists():  # read as a user's file: a FIFO or device there is refused
                earlier = read_bytes(path, what="submission file", error=WorkspaceError)
                backup = course.workspace.root / ".routerlab" / "backup"
                backup.mkdir(parents=True, exist_ok=True)
                stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
                (backup / f"{path.stem}.{stamp}.py").write_bytes(earlier)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source, encoding="utf-8")
    report = course.check(exercise.id)
    return _report_view(report, exercise, NOTEBOOK)


def hint(exercise_id: str, level: int | None = None, dir: str | Path | None = None) -> TextView:
    """The next hint (or the given level) of an exercise."""
    return hint_view(_course(dir).hint(exercise_id, level), NOTEBOOK)


def give_up(exercise_id: str, dir: str | Path | None = None) -> TextView:
    """Give up on an exercise: no points for it, and the model's answer is shown."""
    return give_up_view(_course(dir).give_up(exercise_id))


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


def _notebook_code(code: tuple[Any, ...], values: dict[str, Any], starter: str) -> str:
    parts = ["\n\n# --- code given to check() in the notebook ---\n"]
    helpers, constants = _with_helpers(code, starter, set(values))
    parts += [f"{name} = {value!r}\n" for name, value in constants.items()]
    for item in helpers:
        try:
            parts.append(textwrap.dedent(inspect.getsource(item)))
        except (TypeError, OSError):
            raise ExerciseError(f"cannot read the source of {item!r}: give check() functions "
                                "or classes defined in a cell, and plain values as NAME=value"
                                ) from None
    for name, value in values.items():
        if not _is_plain(value):
            raise ExerciseError(f"{name}={value!r} is not a plain Python value (numbers, "
                                "strings, lists, tuples, dicts, sets, True/False/None)")
        parts.append(f"{name} = {value!r}\n")
    return "\n".join(parts)


def _with_helpers(code: tuple[Any, ...], starter: str,
                  given: set[str]) -> tuple[list[Any], dict[str, Any]]:
    """The given functions plus every function or class they use that a notebook cell defined
    (followed transitively), and the plain constants they use that a cell assigned (a
    `POLICIES = {...}` beside the function); ExerciseError naming what is used but defined
    nowhere."""
    defined = _top_level_names(starter) | given | set(dir(builtins))
    chosen: list[Any] = []
    constants: dict[str, Any] = {}
    missing: set[str] = set()
    todo = list(code)
    while todo:
        item = todo.pop(0)
        if any(item is c for c in chosen):
            continue
        chosen.append(item)
        defined.add(getattr(item, "__name__", ""))
        space = getattr(item, "__globals__", None)
        if space is None:
            continue
        for name in _names_used(item):
            found = space.get(name)
            if inspect.isfunction(found) or inspect.isclass(found):
                if getattr(found, "__module__", None) == item.__module__ and name not in defined:
                    todo.append(found)
                    continue
            if name not in defined and name in space and _is_plain(found):
                constants[name] = found
            if found is None and name not in defined and name not in space:
                missing.add(name)
    missing -= {getattr(c, "__name__", "") for c in chosen}
    if missing:
        raise ExerciseError(f"your code uses {', '.join(sorted(missing))}, which no cell "
                            "defines (define it, or give it to check() too)")
    return chosen, constants


def _is_plain(value: Any) -> bool:
    """Whether `value` is a plain Python literal that its repr rebuilds exactly."""
    try:
        return bool(ast.literal_eval(repr(value)) == value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _names_used(item: Any) -> set[str]:
    codes = [item.__code__] if hasattr(item, "__code__") else [
        v.__code__ for v in vars(item).values() if hasattr(v, "__code__")]
    names: set[str] = set()
    while codes:
        code = codes.pop()
        names.update(i.argval for i in dis.get_instructions(code)
                     if i.opname in ("LOAD_GLOBAL", "LOAD_NAME"))
        codes += [c for c in code.co_consts if hasattr(c, "co_names")]
    return names


def _top_level_names(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names
