"""A notebook's checkpoints: exercises of the one catalog, done in the notebook.

`lab = lesson()` finds the exercise workspace the notebook sits in (`routerlab lab` serves the
notebooks from inside one) so that a checkpoint passed here is passed in `routerlab exercises
list` too. Each call is the exercise face's own (`routerlab.exercises`): the same checks, hints,
give-up and progress file, so a notebook cannot grade differently from the terminal.

What this adds is the notebook's order of events: a prediction left as `...` is "not answered
yet" (the notebook still runs top to bottom), and `reveal` shows the model's answer only once
the checkpoint is passed or given up. Until then the model's answer is computed only inside the
check, never displayed.
"""

from __future__ import annotations

import ast
import atexit
import inspect
import shutil
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..exercises.errors import ExerciseError, NoWorkspaceError
from ..exercises.learner import notebook as face
from ..exercises.learner.course import Course
from ..exercises.learner.render import ProgressView, ReportView, TextView
from ..exercises.learner.render import progress_view as _progress_view
from ..exercises.learner.workspace import Workspace, find_workspace, init_workspace
from .display import Callout

__all__ = ["Lesson", "lesson"]

LOCKED = "Locked:"
"""How a reveal that is still locked starts its heading: plain text, since an emoji padlock
renders as an empty box in Chromium on Linux without an emoji font."""

_scratch: dict[str, Path] = {}
"""The temporary workspace of this kernel, made once (a kernel that is not in a workspace)."""


@dataclass(frozen=True)
class Lesson:
    """The checkpoints of one notebook, graded in `workspace`."""

    workspace: Workspace
    notebook: str | None = None
    """The notebook's stem: `progress()` lists its checkpoints (all exercises when None)."""
    temporary: bool = False
    """True when no workspace encloses the notebook: progress lasts as long as the kernel."""

    def check(self, exercise_id: str, *code: Any, **values: Any) -> ReportView | Callout:
        """Check a checkpoint: predictions as NAME=value, or the functions written in cells.
        A prediction still `...`, or a function whose body is still the starter's `...`, is not
        answered yet: nothing is checked or counted (running the notebook top to bottom must
        not add an attempt to every checkpoint)."""
        refused = face.invented_answers(Course(self.workspace).catalog.get(exercise_id), values)
        if refused is not None:
            return Callout("error", f"{exercise_id}: no such answer", refused)
        unanswered = [name for name, value in values.items() if value is ...]
        stubs = [item.__name__ for item in code if unwritten(item)]
        if not code and not values and (untouched := self._untouched(exercise_id)):
            return Callout("info", f"{exercise_id}: not answered yet",
                           f"Write your code in {untouched} (lab.show(\"{exercise_id}\") prints "
                           "the statement) and run the cell again.")
        if unanswered or stubs:
            what = (f"Replace the ... of {', '.join(unanswered)} with your prediction" if unanswered
                    else f"Write the body of {', '.join(stubs)}")
            return Callout("info", f"{exercise_id}: not answered yet",
                           f"{what} and run the cell again.")
        try:
            return face.check(exercise_id, *code, dir=self.workspace.root, **values)
        except ExerciseError as error:  # the learner's cell and line, never RouterLab's frames
            return Callout("error", f"{exercise_id}: not checked", str(error), pre=True)

    def _untouched(self, exercise_id: str) -> Path | None:
        """The workspace file of an exercise graded from its file (a build checkpoint's whole
        router), when it is still the starter or absent: checking it would only count an
        attempt. None when the learner has written in it."""
        course = Course(self.workspace)
        exercise = course.catalog.get(exercise_id)  # an unknown id is refused here
        path = course.workspace.file_for(exercise)
        try:
            written = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return path
        return path if written == exercise.starter() else None

    def show(self, exercise_id: str) -> TextView:
        """The statement, and where the exercise's file is in the workspace."""
        return face.show(exercise_id, dir=self.workspace.root)

    def hint(self, exercise_id: str, level: int | None = None) -> TextView:
        """The next hint (1 nudge, 2 concept, 3 near solution), or the given level."""
        return face.hint(exercise_id, level, dir=self.workspace.root)

    def give_up(self, exercise_id: str, yes: bool = False) -> TextView | Callout:
        """Show the model's answer without passing: the checkpoint then earns no points. Asks
        first, as `routerlab exercises give-up` does: without `yes=True` nothing is recorded,
        and the note says what giving up costs and how to confirm. A checkpoint already passed
        or given up costs nothing more, so its answer is shown at once; so does a class
        workspace, where giving up forfeits nothing."""
        course = Course(self.workspace)
        status = course.status(exercise_id)  # an unknown id is refused here
        if not yes and not status.revealed and not course.class_mode:  # class mode: nothing
            # is forfeited (a released solution is shown, or it is refused until grading)
            exercise = status.exercise
            return Callout("warn", f"Give up on {exercise.id}?",
                           f"Giving up shows the model's answer, and {exercise.id} will earn no "
                           f"points. To confirm, run lab.give_up(\"{exercise.id}\", yes=True).")
        return face.give_up(exercise_id, dir=self.workspace.root)

    def solution(self, exercise_id: str) -> TextView:
        """The worked solution, once passed or given up."""
        return face.solution(exercise_id, dir=self.workspace.root)

    def reveal(self, exercise_id: str, show: Callable[[], Any]) -> Any:
        """What `show()` returns, once the checkpoint is passed or given up; until then a locked
        note, and `show` is not even called (its output would be the answer)."""
        status = Course(self.workspace).status(exercise_id)
        if status.revealed:
            return show()
        exercise = status.exercise
        if status.class_mode:  # a pass here is of the visible checks: the answer is the
            # teacher's to release after grading, however this checkpoint stands
            done = ("Your answer passes its visible checks. " if status.done else "")
            return Callout("info", f"{LOCKED} {exercise.id}'s answer opens after grading",
                           f"{done}This cell shows the answer to {exercise.id}; in your "
                           "teacher's course it opens once they release the solutions and you "
                           "import them (`exercises import-solutions FILE`); then run it again.")
        return Callout("info", f"{LOCKED} answer {exercise.id} first",
                       f"This cell shows the answer to {exercise.id}. It opens once the "
                       f"checkpoint passes, or after lab.give_up(\"{exercise.id}\"); then run "
                       "it again.")

    def progress(self) -> ProgressView:
        """This notebook's checkpoints (every exercise when the notebook is not named)."""
        course = Course(self.workspace)
        statuses = [s for s in course.statuses()
                    if self.notebook is None or s.exercise.notebook == self.notebook]
        return _progress_view(statuses, course.problems)

    def _repr_html_(self) -> str:
        return self._where()._repr_html_()

    def __repr__(self) -> str:
        return repr(self._where())

    def _where(self) -> Callout:
        if self.temporary:
            return Callout("warn", "Checkpoints: a temporary workspace",
                           f"This notebook is not inside an exercise workspace, so your "
                           f"progress goes to {self.workspace.root} and ends with this kernel. "
                           "Start the notebooks with `routerlab lab` to keep it.")
        return Callout("ok", f"Checkpoints: {self.workspace.student}'s workspace",
                       f"Progress is saved in {self.workspace.root}, shared with "
                       "`routerlab exercises list`.")


def unwritten(item: Any) -> bool:
    """Whether a function (or every method of a class) is still a starter: a body of only a
    docstring, `...`, `pass` or `raise NotImplementedError`."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(item)))
    except (TypeError, OSError, SyntaxError):
        return False  # the check itself says what is wrong with it
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return bool(functions) and all(all(_placeholder(s) for s in f.body) for f in functions)


def _placeholder(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return statement.value.value is ... or isinstance(statement.value.value, str)
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def lesson(notebook: str | None = None, dir: str | Path | None = None) -> Lesson:
    """The checkpoints of a notebook: graded in the workspace that encloses the notebook's
    folder (or `dir`), else in a temporary workspace made once per kernel."""
    if dir is not None:
        return Lesson(find_workspace(Path(dir)), notebook)
    try:  # a workspace that is there but broken raises: said, not hidden
        return Lesson(find_workspace(start=Path.cwd()), notebook)
    except NoWorkspaceError:
        pass
    if "root" not in _scratch:
        root = _scratch["root"] = Path(tempfile.mkdtemp(prefix="routerlab-notebook-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)  # it ends with the kernel
        init_workspace(root, student="notebook")
    return Lesson(find_workspace(_scratch["root"]), notebook, temporary=True)
