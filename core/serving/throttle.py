"""At most a few lines a window on a peer's stderr, whatever its clients do.

Every refusal, protocol error and cut slow client is one line on the peer's side. A client can
make those as fast as it can open sockets, so the lines go through a `Throttle`: `burst` lines
each `per` seconds pass as they are, later ones in the same window are counted, and the next
line after the window says how many were left out.
"""

from __future__ import annotations

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
