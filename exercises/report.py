"""What a check run found, as plain data that crosses the process boundary as JSON.

The harness (in the student's subprocess) produces `Outcome`s; the runner (in the parent) adds
what only it can know (a timeout, the student's printed output) and hands a `CheckReport` to the
faces, which only render it. Hidden checks never carry an `expected` value.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

PASSED, FAILED, ERROR, NOT_RUN = "passed", "failed", "error", "not run"
AT_GRADING = "at grading"
"""A class workspace's hidden check: its expected results are the teacher's, so it runs when
the teacher grades; a report whose other checks pass is a pass of the visible checks."""


OTHER_MISTAKE = "another wrong answer"
"""A wrong predict answer that none of the exercise's declared mistakes gives."""


@dataclass
class Outcome:
    """One check's result, or a problem that stopped the checks (load error, timeout).

    `status`: passed / failed (the code ran but did the wrong thing) / error (the student's code
    raised, or could not be loaded, or ran out of time) / not run / at grading (class mode).
    """

    name: str
    hidden: bool = False
    status: str = NOT_RUN
    message: str = ""
    expected: str | None = None
    got: str | None = None
    hint: int | None = None
    traceback: list[str] = field(default_factory=list)
    mistake: str = ""
    """A wrong predict answer: the declared mistake it is (`PredictSuite.mistakes`), or
    `OTHER_MISTAKE`; the class report groups by it, since raw values differ by variant."""

    @property
    def ok(self) -> bool:
        return self.status == PASSED

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        return cls(**data)


@dataclass
class CheckReport:
    """Everything one check of one exercise produced."""

    exercise_id: str
    title: str
    points: int
    outcomes: list[Outcome] = field(default_factory=list)
    problem: Outcome | None = None
    """A failure outside any single check: the file does not load, or the run timed out."""
    output: str = ""
    """What the student's code printed (trimmed)."""
    seconds: float = 0.0
    unlock: str | None = None
    """For a passed predict exercise, the key that opens its sealed solution."""
    attempt: int = 0
    first_pass: bool = False
    untouched: bool = False
    """The file is still the starter: checked, but not counted as an attempt (as a notebook
    does not count a checkpoint whose code is still the starter's)."""

    @property
    def passed(self) -> bool:
        """Every check that ran here passed (in a class workspace: every visible one)."""
        ran = [o for o in self.outcomes if o.status != AT_GRADING]
        return self.problem is None and bool(ran) and all(o.ok for o in ran)

    @property
    def at_grading(self) -> int:
        """Checks left to the teacher's grading (a class workspace's hidden checks)."""
        return sum(o.status == AT_GRADING for o in self.outcomes)

    @property
    def failures(self) -> list[Outcome]:
        found = [self.problem] if self.problem else []
        return found + [o for o in self.outcomes if o.status in (FAILED, ERROR)]

    def counts(self) -> tuple[int, int]:
        """(passed checks, checks run here)."""
        return sum(o.ok for o in self.outcomes), len(self.outcomes) - self.at_grading


def printable(text: str) -> str:
    """Control and format characters (ANSI escapes, carriage returns, bidi overrides) shown
    escaped, `\\x1b` style; newlines and tabs kept. Everything a student's process sends is
    passed through this before it reaches a terminal or a notebook."""
    return "".join(c if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf")
                   else c.encode("unicode_escape").decode("ascii") for c in text)
