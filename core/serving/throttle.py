"""At most a few lines a window on a peer's stderr, whatever its clients do.

Every refusal, protocol error and cut slow client is one line on the peer's side. A client can
make those as fast as it can open sockets, so the lines go through a `Throttle`: `burst` lines
each `per` seconds pass as they are, later ones in the same window are counted, and the next
line after the window says how many were left out. websockets' own error lines (a handshake or
a handler that failed) go through it too, one line each, never a traceback (`library_logger`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

BURST = 10
"""Lines written as they come in each window."""
PER_S = 10.0
"""The window, in seconds."""


class Throttle:
    """`say` for at most `burst` lines every `per` seconds (see the module)."""

    def __init__(self, say: Callable[[str], None], burst: int = BURST, per: float = PER_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.say, self.burst, self.per, self.clock = say, burst, per, clock
        self.started = clock()
        self.written = 0
        self.left_out = 0

    def __call__(self, line: str) -> None:
        now = self.clock()
        if now - self.started >= self.per:
            if self.left_out:
                self.say(f"({self.left_out} more such lines in {now - self.started:.0f} s were "
                         "not written)")
            self.started, self.written, self.left_out = now, 0, 0
        if self.written < self.burst:
            self.written += 1
            self.say(line)
        else:
            self.left_out += 1


class _OneLine(logging.Handler):
    """A log record as one line through `say`: its message and its exception's type, no
    traceback (a client that can cause one can cause it as fast as it opens sockets)."""

    def __init__(self, say: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.say = say

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        why = f": {type(error).__name__}" if error is not None else ""
        self.say(f"websockets: {record.getMessage()}{why}")


def library_logger(say: Callable[[str], None]) -> logging.Logger:
    """A logger for websockets' server whose warnings and errors are one line each through
    `say` (the peer's `Throttle`). It is not registered with `logging` (no parent, nothing kept
    once the peer is gone), so no root handler writes a traceback beside it."""
    logger = logging.Logger("routerlab.peer")
    logger.addHandler(_OneLine(say))
    return logger
