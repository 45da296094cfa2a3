"""One progress line for the long commands (`teacher recheck`, `teacher collect`, `exercises
export`): how many of how many, a bar, and an estimate of the time left, on stderr.

On a terminal the line is redrawn in place; elsewhere (a log, CI) each step prints one line, so a
long run is never silent and never floods.
"""

from __future__ import annotations

import sys
import time

WIDTH = 120


class ProgressLine:
    """Steps of one long command, `total` of them, each named by what it just finished."""

    def __init__(self, total: int, noun: str, done: int = 0) -> None:
        """`done`: steps finished before this run (a resumed regrade), not timed."""
        self.total, self.noun = total, noun
        self.done = self.first = done
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()

    def step(self, last: str = "") -> None:
        """One more done; `last` names it (a student, an exercise) and why it failed, if so."""
        self.done += 1
        self.show(last)

    def show(self, last: str = "") -> None:
        sys.stderr.write(("\r" + self.text(last)[:WIDTH].ljust(WIDTH)) if self.tty
                         else self.text(last) + "\n")
        if self.tty and self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    def text(self, last: str = "") -> str:
        filled = 30 * self.done // max(self.total, 1)
        line = f"[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} {self.noun}"
        timed, left = self.done - self.first, self.total - self.done
        if timed > 0 and left > 0:
            each = (time.monotonic() - self.started) / timed
            line += f", about {_duration(each * left)} left"
        return line + (f"; last: {last}" if last else "")


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"
