"""Progress: one JSON file per workspace, shared by the terminal and the notebook.

The file holds one record per exercise. It is written atomically (a temporary file, then
`os.replace`), under a lock so that `watch` in a terminal and `check()` in a notebook can save at
the same moment, and a copy of the last good version is kept beside it. Reading is defensive: a
file that is not JSON (or not UTF-8, or nested past the limits of `routerlab.core.base.safe_io`) is
backed up and replaced by the last good copy; a single record that does not validate is backed
up, dropped and reported, and every other exercise keeps its progress. A path that cannot be
read at all (a folder, a FIFO, a device, a file over the size cap) is refused with one line and
left as it is. Nothing in the file is ever evaluated or unpickled.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from ...core.base.safe_io import decode_utf8, parse_json, read_bytes
from ..errors import ExerciseError, WorkspaceError
from ..files import os_errors

STATE_VERSION = 1
STATUSES = ("pending", "failed", "passed")
T = TypeVar("T")


@dataclass
class Record:
    """One exercise's progress.

    `attempts` counts check runs on *different* code (re-checking unchanged code is not a new
    attempt), so watch mode does not inflate it. `attempts_to_pass` freezes at the first pass.
    `gave_up` records that the student asked for the answer before passing (`give_up`): the
    exercise then earns no points, whatever is submitted later.
    `unlock` is, for predict exercises, the key (derived from the passing answers) that opens the
    sealed solution; it is not the answer.
    """

    status: str = "pending"
    attempts: int = 0
    attempts_to_pass: int | None = None
    hint_level: int = 0
    solution_viewed: bool = False
    gave_up: bool = False
    last_digest: str | None = None
    passed_at: str | None = None
    unlock: str | None = None

    @property
    def passed_ever(self) -> bool:
        return self.attempts_to_pass is not None

    @classmethod
    def from_json(cls, data: Any) -> Record:
        """Validate one record; raise ValueError saying what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"expected an object, found {type(data).__name__}")
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown fields {sorted(unknown)}")
        record = cls(**data)
        _expect(record.status in STATUSES, f"status {record.status!r} is not one of {STATUSES}")
        _expect(_is_count(record.attempts), "attempts is not a whole number >= 0")
        _expect(record.attempts_to_pass is None or _is_count(record.attempts_to_pass),
                "attempts_to_pass is not a whole number")
        _expect(_is_count(record.hint_level) and record.hint_level <= 3, "hint_level is not 0-3")
        _expect(isinstance(record.solution_viewed, bool), "solution_viewed is not true/false")
        _expect(isinstance(record.gave_up, bool), "gave_up is not true/false")
        for name in ("last_digest", "passed_at", "unlock"):
            _expect(getattr(record, name) is None or isinstance(getattr(record, name), str),
                    f"{name} is not a string")
        return record


@dataclass
class State:
    """Every record, plus what was wrong with the file when it was read (for the faces to show)."""

    records: dict[str, Record] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def record(self, exercise_id: str) -> Record:
        return self.records.setdefault(exercise_id, Record())

    def to_json(self) -> dict[str, Any]:
        return {"version": STATE_VERSION,
                "exercises": {k: asdict(v) for k, v in sorted(self.records.items())}}


class StateStore:
    """Reads and writes one workspace's state file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.good_copy = path.with_name(path.name + ".prev")

    def load(self) -> State:
        """The state, repaired as far as possible; `problems` says what was repaired.

        A repair is saved at once, so each problem is backed up and reported exactly once.
        """
        with self._locked():
            state = self._read()
            if state.problems:
                self.save(state)
        return state

    def update(self, change: Callable[[State], T]) -> tuple[State, T]:
        """Load, apply `change`, save; all under the lock. Returns the new state and the result."""
        with self._locked():
            state = self._read()
            result = change(state)
            self.save(state)
        return state, result

    def _read(self) -> State:
        if not os.path.lexists(self.path):
            return State()
        state = State()
        raw = read_bytes(self.path, what="progress file", error=WorkspaceError)
        try:
            data = parse_json(decode_utf8(raw, "the file", _Corrupt), "the file", _Corrupt)
            if not isinstance(data, dict) or not isinstance(data.get("exercises"), dict):
                raise _Corrupt("it has no 'exercises' object")
        except _Corrupt as error:
            backup = self._backup()
            state.problems.append(f"the progress file {self.path} is corrupted ({error}); "
                                  f"it was saved as {backup.name}")
            data = self._last_good(state)
        bad: list[str] = []
        for exercise_id, raw in data["exercises"].items():
            try:
                state.records[str(exercise_id)] = Record.from_json(raw)
            except (TypeError, ValueError) as error:
                bad.append(f"{exercise_id} ({error})")
        if bad:
            backup = self._backup()
            state.problems.append(
                f"progress for {', '.join(bad)} was unreadable and was reset; the other exercises "
                f"keep their progress (the old file was saved as {backup.name})")
        return state

    def save(self, state: State) -> None:
        text = json.dumps(state.to_json(), indent=2) + "\n"
        with os_errors("save the progress"):
            for target in (self.path, self.good_copy):
                tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
                tmp.write_text(text, encoding="utf-8")
                os.replace(tmp, target)

    def _last_good(self, state: State) -> dict[str, Any]:
        try:
            data = parse_json(read_bytes(self.good_copy, error=_Corrupt), "the copy", _Corrupt)
            if isinstance(data, dict) and isinstance(data.get("exercises"), dict):
                state.problems.append(f"progress was restored from {self.good_copy.name}")
                return data
        except _Corrupt:
            pass
        state.problems.append("no earlier good copy exists: progress starts over")
        return {"exercises": {}}

    def _backup(self) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
        backup = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        with os_errors("back up the corrupted progress file"):
            shutil.copyfile(self.path, backup)
        return backup

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with os_errors("open the progress file's lock"):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(self.path.with_name("state.lock"), "a+")  # noqa: SIM115
        with handle:
            try:
                import fcntl
            except ImportError:  # Windows: no advisory lock; saves are still atomic
                yield
                return
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


class _Corrupt(ExerciseError):
    """A progress file whose content is unusable: it is repaired, never shown as an error."""


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)
