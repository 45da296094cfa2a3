"""Watch mode re-checks on save, with native file events or, where none arrive, by polling."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.watch import Watcher, WatchEvent
from routerlab.exercises.learner.workspace import Workspace

Solve = Callable[[Workspace, str], Path]


class DeafObserver:
    """An observer that starts fine but never delivers an event (a network or VM mount)."""

    def schedule(self, *args: Any, **kwargs: Any) -> None: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def join(self, timeout: float | None = None) -> None: ...


def _wait_for(events: list[WatchEvent], condition: Callable[[WatchEvent], bool],
              seconds: float = 15.0) -> WatchEvent:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for event in list(events):
            if condition(event):
                return event
        time.sleep(0.05)
    raise AssertionError(f"no such event within {seconds} s; got {[e.kind for e in events]}")


def _watch(
        course: Course, **options: Any,
) -> tuple[list[WatchEvent], threading.Event, threading.Thread]:
    events: list[WatchEvent] = []
    stop = threading.Event()
    watcher = Watcher(course, events.append, **options)
    thread = threading.Thread(target=watcher.run, args=(stop,), kwargs={"max_seconds": 30},
                              daemon=True)
    thread.start()
    return events, stop, thread


def _save_solution_and_see_it_pass(course: Course, solve: Solve, events: list[WatchEvent]) -> None:
    first = list(load_catalog())[0]
    initial = _wait_for(events, lambda e: e.kind == "report")
    assert initial.exercise == first and not initial.report.passed
    time.sleep(0.05)
    solve(course.workspace, first.id)
    passed = _wait_for(events, lambda e: e.kind == "report" and e.report.passed)
    assert passed.exercise == first
    upcoming = _wait_for(events, lambda e: e.kind == "next" and e.exercise != first)
    assert upcoming.exercise == list(load_catalog())[1]


def test_falls_back_to_polling_when_file_events_never_arrive_and_says_so(
        course: Course, solve: Solve,
) -> None:
    events, stop, thread = _watch(course, observer_factory=DeafObserver, probe_timeout=0.3,
                                  interval=0.2)
    try:
        mode = _wait_for(events, lambda e: e.kind == "mode")
        assert "do not arrive" in mode.text and "every 0.2 s" in mode.text
        _save_solution_and_see_it_pass(course, solve, events)
    finally:
        stop.set()
        thread.join(timeout=5)
    assert not thread.is_alive()


def test_uses_native_file_events_where_they_arrive(course: Course, solve: Solve) -> None:
    events, stop, thread = _watch(course, probe_timeout=2.0)
    try:
        mode = _wait_for(events, lambda e: e.kind == "mode")
        assert "file system events" in mode.text
        _save_solution_and_see_it_pass(course, solve, events)
    finally:
        stop.set()
        thread.join(timeout=5)
    assert not thread.is_alive()


def test_poll_can_be_forced(course: Course) -> None:
    events, stop, thread = _watch(course, poll=True, interval=0.2)
    try:
        assert "--poll" in _wait_for(events, lambda e: e.kind == "mode").text
        _wait_for(events, lambda e: e.kind == "report")
    finally:
        stop.set()
        thread.join(timeout=5)
    assert not (course.workspace.state_path.parent / "watch-probe").exists()


def test_one_key_gives_a_hint_the_list_the_next_exercise_and_quits(course: Course) -> None:
    """rustlings' keys: each acts on the exercise on screen, between saves; q ends the watch."""
    import queue

    keys: queue.Queue[str] = queue.Queue()
    events, stop, thread = _watch(course, poll=True, interval=0.1, keys=keys)
    first, second = list(load_catalog())[:2]
    assert _wait_for(events, lambda e: e.kind == "report").exercise == first
    keys.put("h")
    hint = _wait_for(events, lambda e: e.kind == "hint")
    assert hint.exercise == first and hint.hint is not None and hint.hint.level == 1
    keys.put("l")
    listed = _wait_for(events, lambda e: e.kind == "list")
    assert [s.exercise.id for s in listed.statuses] == [e.id for e in load_catalog()]
    keys.put("n")
    moved = _wait_for(events, lambda e: e.kind == "next" and e.exercise == second)
    assert moved.text.startswith(f"now: {second.id}")
    _wait_for(events, lambda e: e.kind == "report" and e.exercise == second)
    keys.put("x")  # not a key of watch mode: nothing happens
    keys.put("q")
    thread.join(timeout=10)
    assert not thread.is_alive() and stop.is_set(), "q ends the watch"
    assert Course(course.workspace).status(first.id).record.hint_level == 1


def test_the_terminal_face_reads_keys_and_quits_on_q(tmp_path: Path) -> None:
    """`routerlab exercises watch` in a real pseudo-terminal: the key line is shown, h prints
    the hint, q stops it and the terminal gets its settings back."""
    import os
    import pty
    import subprocess
    import sys
    import termios

    from routerlab.exercises.learner.workspace import init_workspace

    init_workspace(tmp_path / "ws", "ada")
    leader, follower = pty.openpty()
    before = termios.tcgetattr(follower)
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "TERM": "dumb"}
    watch = subprocess.Popen([sys.executable, "-m", "routerlab", "exercises", "watch", "--poll",
                              "--dir", str(tmp_path / "ws")], stdin=follower, stdout=follower,
                             stderr=follower, env=env, close_fds=True)
    seen = b""

    def until(text: bytes, seconds: float = 60) -> None:
        nonlocal seen
        deadline = time.monotonic() + seconds
        while text not in seen and time.monotonic() < deadline:
            import select

            if select.select([leader], [], [], 0.2)[0]:
                seen += os.read(leader, 65536)
        assert text in seen, seen.decode(errors="replace")[-2000:]

    try:
        until(b"q quit")
        os.write(leader, b"h")
        until(b"hint 1 of")
        os.write(leader, b"q")
        assert watch.wait(timeout=30) == 0
        until(b"stopped watching", 5)
        assert termios.tcgetattr(follower) == before, "the terminal is put back as it was"
    finally:
        watch.kill()
        os.close(leader)
        os.close(follower)
