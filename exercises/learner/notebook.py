"""The notebook face: `check("registry-1")` and friends, returning objects Jupyter renders.

Each function finds the workspace as the terminal does (the marker file above the notebook's
folder, or `dir=`), calls the same `Course` operation and returns the same description the
terminal renders (`routerlab.exercises.learner.render`), so a notebook and a terminal give the same
verdict on the same code and share one progress file.

`check(id)` checks the student's file in the workspace. `check(id, fn, other_fn, NAME=value)`
checks code written in the notebook instead: the sources of the given functions, of the helpers
they use that other cells defined, and the given plain values are appended to the exercise's
starter and saved as the exercise's workspace file (the previous one is kept under
`.routerlab/backup/`), so the terminal (`exercises list`, `check`, `export`) sees the same work;
a passing file is replaced only by a try that passes too (a failing one is kept in the backup
folder), and code under a name the starter does not define is refused, naming the one it does.
A name the code uses that is defined nowhere is refused before anything runs, by name. The
imports of the cells the functions come from travel with them (and a name another cell imported,
such as `np`, becomes an import of its own), so the saved file runs as the cell did; and a
traceback of that code names the notebook cell and its line (`Cell In[5], line 3`), not the
saved file.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import dis
import inspect
import linecache
import re
import sys
import textwrap
import types
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...core.base.safe_io import read_bytes
from ..catalog import Exercise, Kind
from ..engine.runner import Candidate
from ..errors import ExerciseError, WorkspaceError
from ..files import os_errors
from .course import Course
from .render import (
    NOTEBOOK,
    Block,
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
    if (refused := invented_answers(exercise, values)) is not None:
        raise ExerciseError(refused)
    placed: list[_Placed] = []
    kept = False
    if code or values:
        if exercise.kind is Kind.IMPLEMENT and code:
            _refuse_unnamed(exercise, code)
        added, placed = _notebook_code(code, values, exercise.starter())
        source = exercise.starter() + added
        path = course.workspace.file_for(exercise)
        if path.exists() and course.status(exercise.id).record.status == "passed":
            # A passing file is what later checkpoints (the capstone) build on: the new try is
            # graded from a file of its own and replaces it only when it passes too.
            attempt = _backup(course, path.stem, source.encode("utf-8"))
            report = course.check(exercise.id, Candidate(
                attempt, str(path.relative_to(course.workspace.root))))
            kept = not report.passed
            if not kept:
                _save(course, path, source)
        else:
            _save(course, path, source)
            report = course.check(exercise.id)
    else:
        report = course.check(exercise.id)
    if placed:
        for outcome in [report.problem, *report.outcomes]:
            if outcome is not None and outcome.traceback:
                outcome.traceback = _in_cells(outcome.traceback, placed)
    view = _report_view(report, exercise, NOTEBOOK)
    if kept:
        note = Block("your last passing version is kept",
                     "your workspace file still holds the version that passed (later checkpoints "
                     "build on it); this try was saved under .routerlab/backup/", "muted")
        view = replace(view, blocks=(*view.blocks, note))
    return view


def _save(course: Course, path: Path, source: str) -> None:
    """Write the exercise's workspace file, the previous one kept under `.routerlab/backup/`."""
    with os_errors("save your code in the workspace"):
        if path.exists():  # read as a user's file: a FIFO or device there is refused
            _backup(course, path.stem, read_bytes(path, what="submission file",
                                                  error=WorkspaceError))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")


def _backup(course: Course, stem: str, data: bytes) -> Path:
    with os_errors("save your code in the workspace"):
        backup = course.workspace.root / ".routerlab" / "backup"
        backup.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        saved = backup / f"{stem}.{stamp}.py"
        saved.write_bytes(data)
    return saved


def _refuse_unnamed(exercise: Exercise, code: tuple[Any, ...]) -> None:
    """The checks call the starter's functions by name: code given under another name would
    leave the starter's stub to be graded, so it is refused here, naming what is expected."""
    asked = [node.name for node in ast.parse(exercise.starter()).body
             if isinstance(node, ast.FunctionDef | ast.ClassDef)]
    given = [getattr(item, "__name__", repr(item)) for item in code]
    if asked and not set(given) & set(asked):
        raise ExerciseError(f"{exercise.id} grades {', '.join(f'`{a}`' for a in asked)}, and "
                            f"check() was given {', '.join(f'`{g}`' for g in given)}: name your "
                            f"function as the starter does (def {asked[0]}(...)) and pass it")


def invented_answers(exercise: Exercise, values: dict[str, Any]) -> str | None:
    """Why the names given as answers are refused, or None: a prediction (or experiment)
    answers exactly the `NAME = ...` lines of its starter, so a name it does not ask for is a
    typo, said as such, never echoed back as if it were the checkpoint's."""
    if exercise.kind is Kind.IMPLEMENT or not values:
        return None
    asked = answer_names(exercise.starter())
    invented = [name for name in values if name not in asked]
    if not invented:
        return None
    close = {name: difflib.get_close_matches(name, asked, n=1) for name in invented}
    also = "; ".join(f"did you mean {found[0]} for {name}?" for name, found in close.items()
                     if found)
    return (f"{exercise.id} has no answer named {', '.join(invented)}: it asks for "
            f"{', '.join(asked)}" + (f" ({also})" if also else ""))


def answer_names(starter: str) -> list[str]:
    """The answers a predict starter asks for: its top-level `NAME = ...` lines, in order."""
    return [target.id for node in ast.parse(starter).body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant) and node.value.value is ...
            for target in node.targets if isinstance(target, ast.Name)]


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


@dataclass(frozen=True)
class _Placed:
    """Where one cell's function landed in the saved file, to point a traceback back at it."""

    first: int
    """Its first line in the saved file (1-based)."""
    count: int
    cell: str
    """The cell, as IPython names it in a traceback (`Cell In[5]`)."""
    cell_line: int
    """Its first line in that cell (1-based)."""


def _notebook_code(code: tuple[Any, ...], values: dict[str, Any],
                   starter: str) -> tuple[str, list[_Placed]]:
    """The code appended to the starter, and where each cell's function landed in it."""
    parts = ["\n\n# --- code given to check() in the notebook ---\n"]
    helpers, constants, imports = _with_helpers(code, starter, set(values))
    if imports:
        parts.append("# the imports of the cells this code comes from\n" + "\n".join(imports)
                     + "\n")
    parts += [f"{name} = {value!r}\n" for name, value in constants.items()]
    placed: list[_Placed] = []
    for item in helpers:
        try:
            text = textwrap.dedent(inspect.getsource(item))
            cell_line = inspect.getsourcelines(item)[1]
        except (TypeError, OSError):
            raise ExerciseError(f"cannot read the source of {item!r}: give check() functions "
                                "or classes defined in a cell, and plain values as NAME=value"
                                ) from None
        first = (starter + "\n".join(parts) + "\n").count("\n") + 1
        placed.append(_Placed(first, text.count("\n"), _cell_name(item), max(cell_line, 1)))
        parts.append(text)
    for name, value in values.items():
        if not _is_plain(value):
            raise ExerciseError(f"{name}={value!r} is not a plain Python value (numbers, "
                                "strings, lists, tuples, dicts, sets, True/False/None)")
        parts.append(f"{name} = {value!r}\n")
    return "\n".join(parts), placed


def _with_helpers(code: tuple[Any, ...], starter: str,
                  given: set[str]) -> tuple[list[Any], dict[str, Any], list[str]]:
    """The given functions plus every function or class they use that a notebook cell defined
    (followed transitively), the plain constants they use that a cell assigned (a
    `POLICIES = {...}` beside the function), and the imports they need: the import lines of
    their own cells that bind a name they use, and one for each module or imported name they
    use from another cell.
    ExerciseError names what is used but defined nowhere."""
    defined = _top_level_names(starter) | given | set(dir(builtins))
    chosen: list[Any] = []
    constants: dict[str, Any] = {}
    imports: list[str] = []
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
        used = _names_used(item)
        cell_imports = [line for line in _cell_imports(item)
                        if _top_level_names(line) & used and line not in imports]
        imports += cell_imports
        defined |= _top_level_names("\n".join(cell_imports))
        for name in used:
            found = space.get(name)
            if inspect.isfunction(found) or inspect.isclass(found):
                if getattr(found, "__module__", None) == item.__module__ and name not in defined:
                    todo.append(found)
                    continue
            if name in defined or name not in space:
                if found is None and name not in defined and name not in space:
                    missing.add(name)
                continue
            if (line := _import_of(name, found)) is not None:
                imports.append(line)
                defined.add(name)
            elif _is_plain(found):
                constants[name] = found
    missing -= {getattr(c, "__name__", "") for c in chosen}
    if missing:
        where = [spot for name in sorted(missing)
                 if (spot := next((_use_of(name, c) for c in chosen if _use_of(name, c)), None))]
        raise ExerciseError(f"your code uses {', '.join(sorted(missing))}, which no cell "
                            "defines (define it, or give it to check() too)"
                            + "".join(f"\n  {spot}" for spot in where))
    return chosen, constants, imports


def _use_of(name: str, item: Any) -> str | None:
    """Where `item` first uses `name`, as the learner sees it: `Cell In[5], line 3: total =
    x + y` (None when its source cannot be read or the name is not in it)."""
    try:
        lines, first = inspect.getsourcelines(item)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (TypeError, OSError, SyntaxError):
        return None
    used = sorted(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name)
    if not used:
        return None
    return (f"{_cell_name(item)}, line {max(first, 1) + used[0] - 1}: "
            f"{lines[used[0] - 1].strip()}")


def _cell_imports(item: Any) -> list[str]:
    """The top-level import statements of the cell (or file) `item` was written in, as text
    (`from __future__` ones left out: they may only open a file)."""
    try:
        filename = inspect.getsourcefile(item)
    except TypeError:
        return []
    source = "".join(linecache.getlines(filename)) if filename else ""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [segment for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
            and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
            if (segment := ast.get_source_segment(source, node)) is not None]


def _import_of(name: str, value: Any) -> str | None:
    """An import statement that binds `name` to `value` again (a module, or a function or
    class importable from its module), or None."""
    if isinstance(value, types.ModuleType):
        package = value.__name__
        return f"import {package}" if package == name else f"import {package} as {name}"
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not module or not qualname or "." in qualname or module in ("__main__", "builtins"):
        return None
    if getattr(sys.modules.get(module), qualname, None) is not value:
        return None
    return (f"from {module} import {qualname}" if qualname == name
            else f"from {module} import {qualname} as {name}")


def _cell_name(item: Any) -> str:
    """How IPython names the cell `item` was defined in (`Cell In[5]`); the file's name
    outside IPython."""
    try:
        filename = inspect.getsourcefile(item) or ""
    except TypeError:
        filename = ""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    number = getattr(getattr(shell, "compile", None), "_filename_map", {}).get(filename)
    return f"Cell In[{number}]" if number is not None else (filename.rsplit("/", 1)[-1] or "?")


_FRAME = re.compile(r"^(?P<file>.+), line (?P<line>\d+)(?P<rest>, in .*)?$")


def _in_cells(traceback: list[str], placed: list[_Placed]) -> list[str]:
    """A check's traceback with each frame in a cell's function named by its cell and line."""
    lines = []
    for entry in traceback:
        match = _FRAME.match(entry)
        if match:
            number = int(match["line"])
            spot = next((p for p in placed if p.first <= number < p.first + p.count), None)
            if spot is not None:
                line = spot.cell_line + number - spot.first
                entry = f"{spot.cell}, line {line}{match['rest'] or ''}"
        lines.append(entry)
    return lines


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
    return names | _signature_names(item)


def _signature_names(item: Any) -> set[str]:
    """The names a `def` line evaluates where it is written (annotations, defaults,
    decorators): not in the function's code, yet the saved file needs them (`-> Any`)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(item)))
    except (TypeError, OSError, SyntaxError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        parts: list[ast.AST | None] = [node.returns, *node.decorator_list, *args.defaults,
                                       *args.kw_defaults]
        parts += [a.annotation for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                         args.vararg, args.kwarg] if a is not None]
        names.update(n.id for part in parts if part is not None for n in ast.walk(part)
                     if isinstance(n, ast.Name))
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
