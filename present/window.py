"""What of a long run fits a screen: its first steps and its last, and one line for the rest.

Drawing a step's registries costs the terminal face about 2 ms of CPU (rich lays out each
table), so a 10,000-step scenario spent half a minute drawing screens nobody scrolls back
through, 18 times what the run itself took (`benchmarks/simulate.py`). A reader of a long run
wants how it began, how it ended and what happened in between, so `window` passes the first
`head` and the last `tail` items through and replaces the others by a `LeftOut`: how many, which
steps, and which of them raised the error they expected, said in one line (`LeftOut.line`).
Every step is still in `--json`.

It streams: the first steps are handed on as they arrive, and only `tail` items wait. When the
run stops early (a step failed), what waits is still handed on before the error goes up, so the
reader sees the last steps that ran before the failure.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, TypeVar


class Step(Protocol):
    """What `window` reads of a step: its number and the error it expected, if any."""

    @property
    def step(self) -> int: ...

    @property
    def error(self) -> str | None: ...


S = TypeVar("S", bound=Step)

HEAD = 20
"""Steps drawn from the start: a screen or two, enough to see a scenario set itself up."""
TAIL = 5
"""Steps drawn at the end: how the run finished."""
NAMED = 5
"""Left-out steps with an expected error named by number; the others are counted."""


@dataclass
class LeftOut:
    """The steps between the first and the last ones shown."""

    first: int = 0
    last: int = 0
    count: int = 0
    errors: list[int] = field(default_factory=list)
    """Numbers of the left-out steps that raised the error they expected."""

    def add(self, step: Step) -> None:
        self.first = self.first or step.step
        self.last = step.step
        self.count += 1
        if step.error:
            self.errors.append(step.step)

    def line(self, how: str = "") -> str:
        """One line saying what was not drawn, and `how` to see it."""
        where = f"step {self.first:,}" if self.count == 1 else f"steps {self.first:,}-{self.last:,}"
        said = f"… {self.count:,} step{'s' if self.count != 1 else ''} not drawn ({where})"
        if self.errors:
            named = ", ".join(map(str, self.errors[:NAMED]))
            more = f" and {len(self.errors) - NAMED:,} more" if len(self.errors) > NAMED else ""
            said += (f"; {len(self.errors):,} of them raised the error they expected "
                     f"(step{'s' if len(self.errors) > 1 else ''} {named}{more})")
        else:
            said += "; none of them raised an error"
        return f"{said}. {how}".rstrip()


def window(items: Iterable[S], head: int = HEAD, tail: int = TAIL) -> Iterator[S | LeftOut]:
    """`items`' first `head` and last `tail`, with one `LeftOut` in between when some were left
    out (none when everything fits)."""
    waiting: deque[S] = deque()
    left = LeftOut()
    try:
        for index, item in enumerate(items):
            if index < head:
                yield item
                continue
            waiting.append(item)
            if len(waiting) > tail:
                left.add(waiting.popleft())
    except Exception:  # the run stopped: the steps that ran are shown, then the error goes up
        yield from _rest(left, waiting)
        raise
    yield from _rest(left, waiting)


def _rest(left: LeftOut, waiting: deque[S]) -> Iterator[S | LeftOut]:
    if left.count:
        yield left
    yield from waiting
