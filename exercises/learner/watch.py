"""Watch mode: re-check an exercise every time its file is saved.

File events come from watchdog's native observer (inotify, FSEvents, ...). Some places never
deliver them: network drives, some container and VM mounts, WSL paths under /mnt. So the watcher
first *proves* that events arrive: it writes a probe file and waits briefly for its event. If none
comes it says so and falls back to watchdog's polling observer, which compares file stamps every
`interval` seconds. Either way the student gets re-checks; only the delay differs.

As rustlings' watch mode does, one key acts without leaving it (`KEYS`): a hint for the exercise
on screen, the list, the next exercise, a check again, quit. The face reads the keys (a terminal
in cbreak mode) and puts them on the watcher's queue; the watcher acts on them between saves, so
a key and a save never run at once.
"""

from __future__ import annotations

import hashlib
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.base.safe_io import read_bytes
from ...invocation import routerlab
from ..catalog import Exercise
from ..errors import WorkspaceError
from ..files import os_errors
from ..report import CheckReport
from .course import Course, Hint, Status

DEBOUNCE = 0.15
"""Editors save in steps (write, rename, chmod); changes this close together are one save."""

KEYS = {"h": "hint", "l": "list", "n": "next", "c": "check again", "q": "quit"}
"""One key each, as the key line shows them."""
KEY_LINE = " · ".join(f"{key} {what}" for key, what in KEYS.items())


@dataclass(frozen=True)
class WatchEvent:
    """What the watcher tells its face. `kind`: "mode" (how changes are detected, and why),
    "report" (a check ran), "next" (the exercise to work on now), "done" (everything passed),
    "hint" (a key asked for one), "list" (a key asked for every exercise's status)."""

    kind: str
    text: str = ""
    exercise: Exercise | None = None
    report: CheckReport | None = None
    hint: Hint | None = None
    statuses: tuple[Status, ...] = ()


class Watcher:
    """Re-checks exercises of one workspace as their files change, until `stop` is set."""

    def __init__(self, course: Course, on_event: Callable[[WatchEvent], None], *,
                 poll: bool = False, interval: float = 0.5, probe_timeout: float = 1.5,
                 observer_factory: Callable[[], Any] | None = None,
                 keys: queue.Queue[str] | None = None) -> None:
        """`keys`: one-key commands (`KEYS`) from the face, acted on between saves."""
        self.course = course
        self.keys = keys
        self.current: Exercise | None = None
        self.on_event = on_event
        self.poll = poll
        self.interval = interval
        self.probe_timeout = probe_timeout
        self.observer_factory = observer_factory
        self.mode = ""
        self._changes: queue.Queue[Path] = queue.Queue()
        self._digests: dict[str, str] = {}

    def run(self, stop: threading.Event, max_seconds: float | None = None) -> None:
        """Check the current exercise, then re-check on every save until `stop` (or the time
        limit, which tests use) ends it."""
        deadline = None if max_seconds is None else time.monotonic() + max_seconds
        observer = self._start_observer()
        try:
            self._announce_next(check=True)
            while not stop.is_set() and (deadline is None or time.monotonic() < deadline):
                self._keys(stop)
                try:
                    first = self._changes.get(timeout=0.1)
                except queue.Empty:
                    continue
                for exercise in self._exercises_changed(first):
                    self._recheck(exercise)
        finally:
            observer.stop()
            observer.join(timeout=2)

    def _keys(self, stop: threading.Event) -> None:
        """Act on the keys pressed since the last look; an unknown key does nothing."""
        while self.keys is not None and not stop.is_set():
            try:
                key = self.keys.get_nowait().lower()
            except queue.Empty:
                return
            current = self.current
            if key == "q":
                stop.set()
            elif key == "l":
                self.on_event(WatchEvent("list", statuses=tuple(self.course.statuses())))
            elif key == "n":
                self._announce(self._after(current), check=True)
            elif current is not None and key == "h":
                self.on_event(WatchEvent("hint", exercise=current,
                                         hint=self.course.hint(current.id)))
            elif current is not None and key == "c":
                self._check(current)

    def _after(self, exercise: Exercise | None) -> Exercise | None:
        """The next exercise not done after `exercise`, in catalog order, wrapping round."""
        order = list(self.course.catalog)
        start = order.index(exercise) + 1 if exercise in order else 0
        done = {s.exercise.id for s in self.course.statuses() if s.done}
        for candidate in order[start:] + order[:start]:
            if candidate.id not in done and candidate != exercise:
                return candidate
        return None

    def _start_observer(self) -> Any:
        from watchdog.observers.polling import PollingObserver

        if not self.poll:
            native = self._observe(self.observer_factory() if self.observer_factory else None)
            if self._probe():
                self.mode = "native"
                self.on_event(WatchEvent("mode", "watching for saves (file system events)"))
                return native
            native.stop()
            self.mode = "polling"
            self.on_event(WatchEvent(
                "mode", "file system events do not arrive in this folder (a network, container "
                "or VM mount?), so RouterLab checks for changes every "
                f"{self.interval:g} s instead"))
        else:
            self.mode = "polling"
            self.on_event(WatchEvent("mode",
                                     f"polling for saves every {self.interval:g} s (--poll)"))
        return self._observe(PollingObserver(timeout=self.interval))

    def _observe(self, observer: Any | None) -> Any:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        changes = self._changes

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if event.event_type in ("modified", "created", "moved", "closed"):
                    changes.put(Path(getattr(event, "dest_path", "") or event.src_path))

        observer = observer if observer is not None else Observer()
        workspace = self.course.workspace
        with os_errors("watch the workspace"):
            workspace.exercise_dir.mkdir(parents=True, exist_ok=True)
            workspace.state_path.parent.mkdir(parents=True, exist_ok=True)
        observer.schedule(Handler(), str(workspace.exercise_dir), recursive=False)
        observer.schedule(Handler(), str(workspace.state_path.parent), recursive=False)
        observer.start()
        return observer

    def _probe(self) -> bool:
        """Write a file and wait for its event: the only reliable test that events arrive."""
        probe = self.course.workspace.state_path.parent / "watch-probe"
        with os_errors("watch the workspace"):
            probe.write_text(str(time.time()), encoding="utf-8")
        deadline = time.monotonic() + self.probe_timeout
        seen = False
        while not seen and time.monotonic() < deadline:
            try:
                seen = self._changes.get(timeout=0.05).name == probe.name
            except queue.Empty:
                continue
        probe.unlink(missing_ok=True)
        self._drain()
        return seen

    def _exercises_changed(self, first: Path) -> list[Exercise]:
        paths = {first}
        time.sleep(DEBOUNCE)
        paths |= self._drain()
        found = {}
        for path in paths:
            exercise = self.course.workspace.exercise_for_file(path, self.course.catalog)
            if exercise is not None:
                found[exercise.id] = exercise
        return [e for e in self.course.catalog if e.id in found]

    def _drain(self) -> set[Path]:
        paths = set()
        while True:
            try:
                paths.add(self._changes.get_nowait())
            except queue.Empty:
                return paths

    def _recheck(self, exercise: Exercise) -> None:
        path = self.course.workspace.file_for(exercise)
        try:
            digest = _digest(path)
        except WorkspaceError:
            if not path.exists():  # an editor's save-by-rename, caught mid-way
                return
            raise
        if self._digests.get(exercise.id) == digest:
            return
        if self._check(exercise).passed:
            self._announce_next(check=False)

    def _check(self, exercise: Exercise) -> CheckReport:
        report = self.course.check(exercise.id)
        self._digests[exercise.id] = _digest(self.course.workspace.file_for(exercise))
        self.on_event(WatchEvent("report", exercise=exercise, report=report))
        return report

    def _announce_next(self, check: bool) -> None:
        self._announce(self.course.next_exercise(), check)

    def _announce(self, upcoming: Exercise | None, check: bool) -> None:
        self.current = upcoming
        if upcoming is None:
            self.on_event(WatchEvent("done", "every exercise passes. Export your results with "
                                             f"`{routerlab('exercises export')}`"))
            return
        where = self.course.workspace.file_for(upcoming).relative_to(self.course.workspace.root)
        self.on_event(WatchEvent("next", f"now: {upcoming.id} · {upcoming.title}, in {where}",
                                 exercise=upcoming))
        if check:
            self._check(upcoming)


def _digest(path: Path) -> str:
    """The SHA-256 of a student's file, read as a user's file (a FIFO there is refused)."""
    return hashlib.sha256(read_bytes(path, what="submission file",
                                     error=WorkspaceError)).hexdigest()
