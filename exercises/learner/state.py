"""Progress: one JSON file per workspace, shared by the terminal and the notebook.

The file holds one record per exercise. It is written atomically (a temporary file, then
`os.replace`), under a lock so that `watch` in a terminal and `check()` in a notebook can save at
the same moment, and a copy of the last good version is kept beside it. Reading is defensive: a
file that is not JSON (or not UTF-8, or nested past the limits of `routerlab.core.base.safe_io`) is
backed up and replaced by the last good copy; a single record that does not validate is backed
up, dropped and reported, and every other exercise keeps its progress. A path that cannot be
read at all (a folder, a FIFO, a device, a file over the size cap) is refused with one line and
left as it is. Nothing in the file is ever evaluated or unpickled.

The file and its good copy are opened with `O_NOFOLLOW` and never copied through a link: a
`state.json` that is a symlink (to a key, to /etc/passwd) is moved aside, the link itself, and
its target is neither read nor copied; a backup is written from the bytes read, and a save
refuses to write through a link.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from ...core.base.safe_io import MAX_USER_FILE_BYTES, decode_utf8, human_bytes, parse_json
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
        raw = _read_own(self.path, "progress file", WorkspaceError)
        if raw is None:
            aside = _move_aside(self.path)
            state.problems.append(f"the progress file {self.path} was a link, not a file; the "
                                  f"link was moved aside as {aside.name}, its target never read")
            return self._records(state, self._last_good(state))
        try:
            data = parse_json(decode_utf8(raw, "the file", _Corrupt), "the file", _Corrupt)
            if not isinstance(data, dict) or not isinstance(data.get("exercises"), dict):
                raise _Corrupt("it has no 'exercises' object")
        except _Corrupt as error:
            backup = self._backup(raw)
            state.problems.append(f"the progress file {self.path} is corrupted ({error}); "
                                  f"it was saved as {backup.name}")
            data = self._last_good(state)
        return self._records(state, data, raw)

    def _records(self, state: State, data: dict[str, Any], read: bytes = b"") -> State:
        """`state` with every record of `data` that validates; `read`: the file's bytes, kept
        as the backup when a record does not."""
        bad: list[str] = []
        for exercise_id, raw in data["exercises"].items():
            try:
                state.records[str(exercise_id)] = Record.from_json(raw)
            except (TypeError, ValueError) as error:
                bad.append(f"{exercise_id} ({error})")
        if bad:
            backup = self._backup(read)
            state.problems.append(
                f"progress for {', '.join(bad)} was unreadable and was reset; the other exercises "
                f"keep their progress (the old file was saved as {backup.name})")
        return state

    def save(self, state: State) -> None:
        text = json.dumps(state.to_json(), indent=2) + "\n"
        with os_errors("save the progress"):
            for target in (self.path, self.good_copy):
                tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
                _write_own(tmp, text.encode("utf-8"))
                os.replace(tmp, target)  # replaces a link itself, never its target

    def _last_good(self, state: State) -> dict[str, Any]:
        try:
            raw = _read_own(self.good_copy, "copy", _Corrupt)
            data = parse_json(raw, "the copy", _Corrupt) if raw is not None else None
            if isinstance(data, dict) and isinstance(data.get("exercises"), dict):
                state.problems.append(f"progress was restored from {self.good_copy.name}")
                return data
        except _Corrupt:
            pass
        state.problems.append("no earlier good copy exists: progress starts over")
        return {"exercises": {}}

    def _backup(self, raw: bytes) -> Path:
        """The corrupted file's bytes, as read, beside it (never a copy of the path)."""
        backup = self.path.with_name(f"{self.path.name}.corrupt-{_stamp()}")
        with os_errors("back up the corrupted progress file"):
            _write_own(backup, raw)
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


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")


def _read_own(path: Path, what: str, error: type[ExerciseError]) -> bytes | None:
    """The bytes of `path` opened with `O_NOFOLLOW` (None when it is a link), bounded as
    `routerlab.core.base.safe_io.read_bytes` bounds them; `error` for a folder, FIFO, device or
    a file too large."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as problem:
        if problem.errno == errno.ELOOP:
            return None
        raise error(f"{path}: cannot read the {what}: {problem.strerror or problem}") from None
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        regular = False
    if not regular:
        os.close(fd)
        raise error(f"{path}: not a regular file (a folder, FIFO or device); a {what} must be "
                    "a plain file")
    with os.fdopen(fd, "rb") as handle:  # read through the descriptor, not the path again
        data = handle.read(MAX_USER_FILE_BYTES + 1)
    if len(data) > MAX_USER_FILE_BYTES:
        raise error(f"{path}: {what} larger than {human_bytes(MAX_USER_FILE_BYTES)}, the limit "
                    f"for a {what}")
    return data


def _write_own(path: Path, data: bytes) -> None:
    """Write `data` to a new file at `path`, never through a link planted there."""
    with contextlib.suppress(FileNotFoundError):
        if path.is_symlink():
            path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _move_aside(link: Path) -> Path:
    aside = link.with_name(f"{link.name}.link-{_stamp()}")
    with os_errors("move the linked progress file aside"):
        os.replace(link, aside)
    return aside


class _Corrupt(ExerciseError):
    """A progress file whose content is unusable: it is repaired, never shown as an error."""


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)
