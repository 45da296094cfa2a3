"""What a student does, as plain operations on one workspace: check, hint, solution, reset.

Both faces (the terminal commands and the notebook functions) call these and only render what
comes back, so the two can never grade or count differently. Every operation that changes
progress goes through `StateStore.update`, under the state file's lock.

In a class workspace (`Workspace.class_mode`) the same operations hold no answer: `check` runs
the visible checks against the course bundle's data and leaves the hidden ones to grading, a
pass earns no points here (the teacher's grading does), and `solution` and `give_up` show only
what the teacher has released (`import_solutions`); before that they refuse and record nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from ...core.base.safe_io import read_bytes
from ...invocation import routerlab
from ..answers import unseal
from ..authoring.bundle import Released, read_solutions, visible_expected, write_solutions
from ..catalog import HINT_LEVELS, Catalog, Exercise
from ..engine.runner import Candidate, run_checks, workers
from ..errors import LockedError, WorkspaceError
from ..files import os_errors
from ..report import CheckReport
from .state import Record, State, StateStore
from .workspace import Upgrade, Workspace

T = TypeVar("T")


@dataclass(frozen=True)
class Status:
    """An exercise with its progress: one row of `list` and `progress`.

    A pass counts only when the record carries the key that opens the exercise's sealed
    solution, which only the parent's judge hands out on a real pass: a progress file edited to
    say "passed" does not make an exercise done."""

    exercise: Exercise
    record: Record
    class_mode: bool = False
    released: bool = False
    """In a class workspace: whether the teacher has released this exercise's solution."""

    @property
    def done(self) -> bool:
        if self.class_mode:  # its visible checks pass now; the hidden ones are the teacher's
            return self.record.status == "passed"
        return self.record.passed_ever and opens(self.exercise, self.record.unlock)

    @property
    def earned(self) -> int:
        if self.class_mode:  # points come from the teacher's grading, not from this machine
            return 0
        return self.exercise.points if self.done and not self.record.gave_up else 0

    @property
    def revealed(self) -> bool:
        """Whether the answer may be shown: passed for real, or given up (in a class: once the
        teacher has released it)."""
        if self.class_mode:
            return self.released
        return self.done or self.record.gave_up

    @property
    def label(self) -> str:
        if self.class_mode:
            return {"passed": "visible checks pass", "failed": "failing"}.get(
                self.record.status, self.record.status)
        if self.record.gave_up:
            return "gave up" + (" (passed since, no points)" if self.done else "")
        if self.record.status == "failed" and self.done:
            return "failing now (passed before)"
        if self.record.status == "passed" and not self.done:
            return "changed since your pass: check again"
        return self.record.status


@dataclass(frozen=True)
class Hint:
    exercise: Exercise
    level: int
    text: str

    @property
    def level_name(self) -> str:
        return HINT_LEVELS[self.level - 1]

    @property
    def is_last(self) -> bool:
        return self.level >= len(self.exercise.hints)


@dataclass(frozen=True)
class GiveUp:
    """What giving up shows: the model's answers (predict) or the worked solution (implement)."""

    exercise: Exercise
    answers: dict[str, object]
    """Each answer part's value as the model computes it now (empty for implement)."""
    solution: Solution
    forfeited: bool
    """Whether giving up cost the points (False when the exercise was already passed)."""
    released: bool = False
    """A class workspace: what the teacher released after grading (nothing was given up)."""


@dataclass(frozen=True)
class Solution:
    exercise: Exercise
    text: str
    path: Path
    """Where a copy was written in the workspace (`solutions/`), beside the student's files."""


class Course:
    """One student's workspace, its exercises and its progress."""

    def __init__(self, workspace: Workspace, catalog: Catalog | None = None) -> None:
        self.workspace = workspace
        self.catalog = catalog or workspace.catalog()
        self.store = StateStore(workspace.state_path)
        self.problems: list[str] = []
        """What was wrong with the state file when it was read (shown once by the faces)."""

    @property
    def class_mode(self) -> bool:
        return self.workspace.class_mode

    def statuses(self) -> list[Status]:
        state = self._load()
        released = self.released()
        return [Status(e, state.records.get(e.id, Record()), self.class_mode, e.id in released)
                for e in self.catalog]

    def status(self, exercise_id: str) -> Status:
        """One exercise's status; an unknown id is refused, with the closest known ones."""
        exercise = self.catalog.get(exercise_id)
        return Status(exercise, self._load().records.get(exercise.id, Record()), self.class_mode,
                      exercise.id in self.released())

    def next_exercise(self) -> Exercise | None:
        """The first exercise not passed yet, in catalog order (what `check` with no id runs)."""
        return next((s.exercise for s in self.statuses() if not s.done), None)

    def check(self, exercise_id: str, candidate: Candidate | None = None) -> CheckReport:
        """Check the student's file (or `candidate`) and record it (an untouched starter is
        no attempt)."""
        exercise = self.catalog.get(exercise_id)
        self._load()  # first: a progress file that cannot be read stops every check here
        if candidate is None:
            path = self.workspace.file_for(exercise)
            if not path.exists():
                path = self.workspace.restore_starter(exercise)
            candidate = Candidate(path, str(path.relative_to(self.workspace.root)))
        source = read_bytes(candidate.path, what="submission file", error=WorkspaceError)
        digest = hashlib.sha256(source).hexdigest()
        report = run_checks(exercise, candidate,
                            expected=visible_expected(exercise) if self.class_mode else None)
        if source == exercise.starter().encode("utf-8"):  # nothing written yet: no attempt
            report.untouched = True
            return report
        self._update(lambda state: _record(state.record(exercise.id), report, digest))
        return report

    def check_many(self, exercise_ids: Iterable[str]) -> list[CheckReport]:
        """Check several exercises side by side (one sandbox each), reports in order."""
        with ThreadPoolExecutor(max_workers=workers()) as pool:
            return list(pool.map(self.check, exercise_ids))

    def hint(self, exercise_id: str, level: int | None = None) -> Hint:
        """The requested hint level, or the next one after those already seen."""
        exercise = self.catalog.get(exercise_id)
        top = len(exercise.hints)
        if self.class_mode and (top == 0 or (level or 0) > top):
            raise LockedError(f"{exercise.id}: your teacher's course gives {top} of the "
                              f"{len(HINT_LEVELS)} hint levels; the others come with the "
                              "solutions after grading")

        def take(state: State) -> int:
            record = state.record(exercise.id)
            wanted = min(top, record.hint_level + 1) if level is None else max(1, min(top, level))
            record.hint_level = max(record.hint_level, wanted)
            return wanted

        _, chosen = self._update(take)
        return Hint(exercise, chosen, exercise.hints[chosen - 1])

    def solution(self, exercise_id: str) -> Solution:
        """The reference solution, once passed or given up; refused (LockedError) before."""
        exercise = self.catalog.get(exercise_id)
        if self.class_mode:
            return self._write_solution(exercise, self._released(exercise).solution)
        record = self._load().records.get(exercise.id, Record())
        sealed = exercise.sealed()
        if record.gave_up and sealed is not None:
            from ..authoring.sealing import model_key

            return self._write_solution(exercise, unseal(sealed.solution, model_key(exercise)))
        if not record.passed_ever or sealed is None or not opens(exercise, record.unlock):
            raise LockedError(
                f"the solution of {exercise.id} opens once you pass it "
                f"(`{routerlab(f'exercises check {exercise.id}')}`), or once you give up "
                f"(`{routerlab(f'exercises give-up {exercise.id}')}`); "
                f"`{routerlab(f'exercises hint {exercise.id}')}` helps in the meantime")
        return self._write_solution(exercise, unseal(sealed.solution, str(record.unlock)))

    def give_up(self, exercise_id: str) -> GiveUp:
        """Reveal an exercise without passing it: the points are forfeited (unless it was passed
        before), and the model's answers and the worked solution are shown. The key is derived
        from the model, as a teacher's `open_solution` does: giving up is a recorded choice,
        not a way around the seal."""
        from ..authoring.sealing import model_key
        from ..checks import suite_for  # the model: loaded only when needed
        from ..checks.base import PredictSuite

        exercise = self.catalog.get(exercise_id)
        if self.class_mode:  # nothing to give up for: the answers are not on this machine
            released = self._released(exercise)
            solution = Solution(exercise, released.solution,
                                self.workspace.solutions_dir / exercise.file_name)
            self._update(lambda state: _save(state, solution))
            return GiveUp(exercise, dict(released.answers), solution, forfeited=False,
                          released=True)
        sealed = exercise.sealed()
        if sealed is None:
            raise LockedError(f"{exercise.id} has no sealed solution to show (a teacher runs "
                              f"`routerlab teacher seal {exercise.id}`)")
        suite = suite_for(exercise)
        answers = dict(suite.oracle()) if isinstance(suite, PredictSuite) else {}
        text = unseal(sealed.solution, model_key(exercise))

        solution = Solution(exercise, text, self.workspace.solutions_dir / exercise.file_name)

        def record(state: State) -> bool:  # under the lock: the record and the file, or neither
            entry = state.record(exercise.id)
            forfeited = not Status(exercise, entry).done
            entry.gave_up = entry.gave_up or forfeited
            _save(state, solution)
            return forfeited

        _, forfeited = self._update(record)
        return GiveUp(exercise, answers, solution, forfeited)

    def released(self) -> dict[str, Released]:
        """The solutions the teacher released to this class workspace (empty in self-study)."""
        path = self.workspace.released_path
        if not self.class_mode or not path.exists():
            return {}
        return read_solutions(path, str(self.workspace.course), self.workspace.student_id)

    def _released(self, exercise: Exercise) -> Released:
        found = self.released().get(exercise.id)
        if found is None:
            raise LockedError(
                f"{exercise.id}: in this class, your teacher releases the solutions after "
                f"grading (then `{routerlab('exercises import-solutions FILE')}`); nothing was "
                f"recorded. `{routerlab(f'exercises hint {exercise.id}')}` helps in the meantime")
        return found

    def import_solutions(self, path: Path) -> list[str]:
        """Add the solutions a teacher released (`teacher release-solutions`) to this class
        workspace; the exercise ids they open."""
        if not self.class_mode:
            raise WorkspaceError(f"{self.workspace.root} is a self-study workspace: its "
                                 "solutions open when you pass (or give up)")
        given = read_solutions(path, str(self.workspace.course), self.workspace.student_id)
        unknown = sorted(set(given) - {e.id for e in self.catalog})
        if unknown:
            raise WorkspaceError(f"{path} holds exercises this course does not have: {unknown}")
        write_solutions(self.workspace.released_path, str(self.workspace.course),
                        {**self.released(), **given})
        return sorted(given)

    def _write_solution(self, exercise: Exercise, text: str) -> Solution:
        solution = Solution(exercise, text, self.workspace.solutions_dir / exercise.file_name)
        self._update(lambda state: _save(state, solution))
        return solution

    def reset(self, exercise_id: str) -> Path:
        """Put the starter file back. Progress history (attempts, hints, an earlier pass) stays:
        resetting is for starting the code over, not for hiding how it went."""
        exercise = self.catalog.get(exercise_id)

        def reopen(state: State) -> Path:  # once the progress file is read: none is lost
            record = state.record(exercise.id)
            record.status, record.last_digest = "pending", None
            return self.workspace.restore_starter(exercise)

        return self._update(reopen)[1]

    def _load(self) -> State:
        state = self.store.load()
        self.problems.extend(state.problems)
        return state

    def _update(self, change: Callable[[State], T]) -> tuple[State, T]:
        state, result = self.store.update(change)
        self.problems.extend(state.problems)
        return state, result


@dataclass(frozen=True)
class Invalidated:
    """A pass that no longer counts after an upgrade, and why."""

    exercise_id: str
    reason: str


def invalidated_passes(course: Course, upgrade: Upgrade) -> list[Invalidated]:
    """Every pass the upgrade took away: the exercise changed so that the key the pass earned no
    longer opens it (check it again to earn it back), or it left the catalog."""
    if course.class_mode:  # a visible pass of an older release: checked again from pending
        stale = [s.exercise.id for s in course.statuses()
                 if s.exercise.id in upgrade.changed and s.record.status == "passed"]

        def reopen(state: State) -> None:
            for exercise_id in stale:
                state.record(exercise_id).status = "pending"

        course._update(reopen)
        return [Invalidated(i, "; ".join(upgrade.changed[i])) for i in stale]
    found = [Invalidated(s.exercise.id,
                         "; ".join(upgrade.changed.get(s.exercise.id, ["it was sealed again"])))
             for s in course.statuses() if s.record.passed_ever and not s.done]
    known = {e.id for e in course.catalog}
    found += [Invalidated(exercise_id, "it is no longer in the catalog (kept in your progress "
                                       "file)")
              for exercise_id, record in sorted(course._load().records.items())
              if exercise_id not in known and record.passed_ever]
    return found


def _save(state: State, solution: Solution) -> None:
    """Mark the solution viewed and write its copy (run under the state lock: both, or neither)."""
    state.record(solution.exercise.id).solution_viewed = True
    with os_errors("write the solution"):
        solution.path.parent.mkdir(exist_ok=True)
        solution.path.write_text(solution.text, encoding="utf-8")


def opens(exercise: Exercise, key: str | None) -> bool:
    """Whether `key` opens the exercise's sealed solution (the tag check, no decryption)."""
    sealed = exercise.sealed()
    if key is None or sealed is None:
        return False
    try:
        unseal(sealed.solution, key)
    except ValueError:
        return False
    return True


def _record(record: Record, report: CheckReport, digest: str) -> None:
    if record.last_digest != digest:
        record.attempts += 1
        record.last_digest = digest
    report.attempt = record.attempts
    if not report.passed:
        record.status = "failed"
        return
    record.status = "passed"
    if record.attempts_to_pass is None:
        record.attempts_to_pass = record.attempts
        record.passed_at = datetime.now(UTC).isoformat(timespec="seconds")
        report.first_pass = True
    if report.unlock:
        record.unlock = report.unlock
