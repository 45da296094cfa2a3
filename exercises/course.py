"""What a student does, as plain operations on one workspace: check, hint, solution, reset.

Both faces (the terminal commands and the notebook functions) call these and only render what
comes back, so the two can never grade or count differently. Every operation that changes
progress goes through `StateStore.update`, under the state file's lock.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from routerlab.core.safe_io import read_bytes
from routerlab.exercises.answers import unseal
from routerlab.exercises.catalog import HINT_LEVELS, Catalog, Exercise, load_catalog
from routerlab.exercises.errors import LockedError, WorkspaceError
from routerlab.exercises.files import os_errors
from routerlab.exercises.report import CheckReport
from routerlab.exercises.runner import Candidate, run_checks
from routerlab.exercises.state import Record, State, StateStore
from routerlab.exercises.workspace import Workspace

T = TypeVar("T")


@dataclass(frozen=True)
class Status:
    """An exercise with its progress: one row of `list` and `progress`.

    A pass counts only when the record carries the key that opens the exercise's sealed
    solution, which only the parent's judge hands out on a real pass: a progress file edited to
    say "passed" does not make an exercise done."""

    exercise: Exercise
    record: Record

    @property
    def done(self) -> bool:
        return self.record.passed_ever and opens(self.exercise, self.record.unlock)

    @property
    def earned(self) -> int:
        return self.exercise.points if self.done else 0

    @property
    def label(self) -> str:
        if self.record.status == "failed" and self.done:
            return "failing now (passed before)"
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
class Solution:
    exercise: Exercise
    text: str
    path: Path
    """Where a copy was written in the workspace (`solutions/`), beside the student's files."""


class Course:
    """One student's workspace, its exercises and its progress."""

    def __init__(self, workspace: Workspace, catalog: Catalog | None = None) -> None:
        self.workspace = workspace
        self.catalog = catalog or load_catalog()
        self.store = StateStore(workspace.state_path)
        self.problems: list[str] = []
        """What was wrong with the state file when it was read (shown once by the faces)."""

    def statuses(self) -> list[Status]:
        state = self._load()
        return [Status(e, state.records.get(e.id, Record())) for e in self.catalog]

    def next_exercise(self) -> Exercise | None:
        """The first exercise not passed yet, in catalog order (what `check` with no id runs)."""
        return next((s.exercise for s in self.statuses() if not s.done), None)

    def check(self, exercise_id: str, candidate: Candidate | None = None) -> CheckReport:
        """Check the student's file (or `candidate`) and record it."""
        exercise = self.catalog.get(exercise_id)
        if candidate is None:
            path = self.workspace.file_for(exercise)
            if not path.exists():
                path = self.workspace.restore_starter(exercise)
            candidate = Candidate(path, str(path.relative_to(self.workspace.root)))
        source = read_bytes(candidate.path, what="submission file", error=WorkspaceError)
        digest = hashlib.sha256(source).hexdigest()
        report = run_checks(exercise, candidate)
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

        def take(state: State) -> int:
            record = state.record(exercise.id)
            wanted = min(top, record.hint_level + 1) if level is None else max(1, min(top, level))
            record.hint_level = max(record.hint_level, wanted)
            return wanted

        _, chosen = self._update(take)
        return Hint(exercise, chosen, exercise.hints[chosen - 1])

    def solution(self, exercise_id: str) -> Solution:
        """The reference solution, once passed; refused (LockedError) before that."""
        exercise = self.catalog.get(exercise_id)
        record = self._load().records.get(exercise.id, Record())
        sealed = exercise.sealed()
        if not record.passed_ever or sealed is None or not opens(exercise, record.unlock):
            raise LockedError(
                f"the solution of {exercise.id} opens once you pass it "
                f"(`routerlab exercises check {exercise.id}`); `routerlab exercises hint "
                f"{exercise.id}` helps in the meantime")
        text = unseal(sealed.solution, str(record.unlock))
        path = self.workspace.solutions_dir / exercise.file_name

        def viewed(state: State) -> None:  # written under the lock: both happen, or neither
            state.record(exercise.id).solution_viewed = True
            with os_errors("write the solution"):
                path.parent.mkdir(exist_ok=True)
                path.write_text(text, encoding="utf-8")

        self._update(viewed)
        return Solution(exercise, text, path)

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


def workers() -> int:
    """Sandboxes run side by side: one per core, at most 8 (each holds a Python and numpy)."""
    return max(1, min(8, os.cpu_count() or 2))


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
