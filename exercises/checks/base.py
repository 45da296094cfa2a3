"""The vocabulary of checks: a `Suite` per exercise, made of visible and hidden `Check`s.

A check receives the student's `Submission` and either returns (passed) or raises `CheckFailure`
with plain-language `expected` / `got` texts and the hint level that addresses the mistake. Any
other exception escaping a check is the student's code failing, and the harness reports it as
theirs. Predict exercises use `PredictSuite`, which builds its checks from answer `Part`s: a
visible check that every part is filled in and well formed, and one hidden check per part that
compares digests (so no plain answer ships).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from routerlab.exercises.answers import answer_digest, canonical, unlock_key


class CheckFailure(Exception):
    """The student's code ran but did the wrong thing. Say what was expected and what happened,
    in words a student can act on; a hidden check gives `expected=None`."""

    def __init__(self, message: str, *, expected: str | None = None, got: str | None = None,
                 hint: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.got = got
        self.hint = hint


class Submission:
    """The student's loaded file, with lookups that fail in plain language."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def function(self, name: str) -> Callable[..., Any]:
        found = getattr(self.module, name, None)
        if not callable(found):
            raise CheckFailure(f"your file has no function `{name}`; keep the name and signature "
                               "the starter file gives", hint=1)
        return found

    def value(self, name: str) -> Any:
        if not hasattr(self.module, name):
            raise CheckFailure(f"your file has no `{name} = ...` line; keep the names the starter "
                               "file gives", hint=1)
        return getattr(self.module, name)


@dataclass(frozen=True)
class Check:
    name: str
    hidden: bool
    hint: int
    run: Callable[[Submission], None]


class Suite:
    """The checks of one exercise, in the order they run. Register them with the decorators:

        suite = Suite("quant-1")

        @suite.visible("Q8S scale of a small tensor", hint=1)
        def _(sub: Submission) -> None: ...
    """

    def __init__(self, exercise_id: str) -> None:
        self.exercise_id = exercise_id
        self.checks: list[Check] = []

    def visible(self, name: str, hint: int = 1) -> Callable[[Callable[[Submission], None]], None]:
        return self._add(name, hidden=False, hint=hint)

    def hidden(self, name: str, hint: int = 2) -> Callable[[Callable[[Submission], None]], None]:
        return self._add(name, hidden=True, hint=hint)

    def unlock(self, submission: Submission) -> str | None:
        """The key that opens a sealed solution, once every check passed (predict only)."""
        return None

    def _add(self, name: str, hidden: bool,
             hint: int) -> Callable[[Callable[[Submission], None]], None]:
        def register(run: Callable[[Submission], None]) -> None:
            self.checks.append(Check(name, hidden, hint, run))

        return register


@dataclass(frozen=True)
class Part:
    """One answer of a predict exercise: the variable the student fills in, what it stands for,
    and `form`, which checks the shape of an answer (not its truth) and puts it in one form."""

    name: str
    describes: str
    form: Callable[[Any], Any]
    places: int = 6


@dataclass
class PredictSuite(Suite):
    """A predict exercise: `oracle()` runs the real model to find the answers (the teacher's
    `lint` and `seal` use it; a student's check only compares digests)."""

    exercise_id: str
    parts: Sequence[Part]
    oracle: Callable[[], dict[str, Any]]
    checks: list[Check] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.checks = [Check("every answer is filled in and well formed", False, 1, self._formed)]
        for part in self.parts:
            self.checks.append(Check(f"{part.name}: {part.describes}", True, 2, self._right(part)))

    def canonical_answers(self, values: dict[str, Any]) -> dict[str, str]:
        return {p.name: canonical(p.form(values[p.name]), p.places) for p in self.parts}

    def digests(self, values: dict[str, Any]) -> dict[str, str]:
        answers = self.canonical_answers(values)
        return {name: answer_digest(self.exercise_id, name, text) for name, text in answers.items()}

    def unlock(self, submission: Submission) -> str | None:
        values = {p.name: submission.value(p.name) for p in self.parts}
        return unlock_key(self.exercise_id, self.canonical_answers(values))

    def _formed(self, submission: Submission) -> None:
        for part in self.parts:
            value = submission.value(part.name)
            if value is Ellipsis:
                raise CheckFailure(f"`{part.name}` is still `...`: replace the TODO with your "
                                   f"prediction of {part.describes}", hint=1)
            part.form(value)

    def _right(self, part: Part) -> Callable[[Submission], None]:
        def run(submission: Submission) -> None:
            from routerlab.exercises.catalog import load_catalog

            sealed = load_catalog().get(self.exercise_id).sealed()
            if sealed is None:
                raise RuntimeError(f"{self.exercise_id} has no sealed answers (run `teacher seal`)")
            raw = submission.value(part.name)
            if raw is Ellipsis:
                raise CheckFailure("not answered yet (still `...`)", hint=1)
            value = part.form(raw)
            digest = answer_digest(self.exercise_id, part.name, canonical(value, part.places))
            if digest != sealed.digests.get(part.name):
                raise CheckFailure(f"your prediction of {part.describes} is not what the model "
                                   "does", got=f"{part.name} = {value!r}", hint=2)

        return run


def compare_cases(student: Callable[..., Any], reference: Callable[..., Any],
                  cases: Iterable[tuple[Any, ...]], *, same: Callable[[Any, Any], bool],
                  describe: Callable[[tuple[Any, ...]], str], hint: int = 2) -> None:
    """Run a hidden batch of seeded cases through both functions; on the first disagreement say
    which input and what the student's code returned, never the reference's answer."""
    for args in cases:
        got = student(*args)
        if not same(got, reference(*args)):
            raise CheckFailure(f"a hidden case gives a different result: {describe(args)}",
                               got=repr(got), hint=hint)


def expect_equal(what: str, expected: Any, got: Any, hint: int = 2) -> None:
    """Fail with both values when they differ (visible checks only: this shows the answer)."""
    if expected != got:
        raise CheckFailure(what, expected=repr(expected), got=repr(got), hint=hint)


def registered(handle: Any | None, where: str, hint: int = 2) -> Any:
    """`handle` (a `get_handle_ref` result), or a failure saying `where` holds nothing: a missing
    entry is the student's arm at work, not an error of the check (`AttributeError` on None)."""
    if handle is None:
        raise CheckFailure(f"nothing is registered {where}", hint=hint)
    return handle


def outcome_of(call: Callable[[], Any]) -> tuple[str, Any]:
    """("ok", value) or ("raises", exception type name): what a call did, for comparisons in
    which raising (a Burn panic, say) is itself the expected behaviour."""
    try:
        return "ok", call()
    except NotImplementedError:
        raise  # the TODO is still there: the harness says so plainly
    except Exception as error:  # noqa: BLE001 - the kind of error is the observation
        return "raises", type(error).__name__


@contextlib.contextmanager
def installed(original: Callable[..., Any], replacement: Callable[..., Any]) -> Iterator[None]:
    """Put `replacement` wherever the model refers to `original` by name, for the block.

    This is the adapter that plugs a student's function into the real core: every
    `routerlab.core` module that imported `original` (the quantizer, the calibration, ...) uses
    the student's version, without the checks knowing which module that is.
    """
    bindings = [(module, name) for module in list(sys.modules.values())
                if getattr(module, "__name__", "").startswith("routerlab.core")
                for name, value in list(vars(module).items()) if value is original]
    for module, name in bindings:
        setattr(module, name, replacement)
    try:
        yield
    finally:
        for module, name in bindings:
            setattr(module, name, original)
