"""The vocabulary of checks: a `Suite` per exercise, made of visible and hidden `Check`s.

A check is a *probe*: given a `Subject` (the student's submission, or the model), it runs the
subject's functions on the check's inputs, plugged into a real `Runtime` where that is the point,
and returns what it saw as labelled plain data, `[(label, value), ...]`. It never decides anything.
The probe runs twice: in the student's sandboxed process on their code, and in the parent on
`ModelSubject` (RouterLab's own behaviour, in the student's signature); the parent compares the two
(`routerlab.exercises.engine.judge`). So the verdict never lives where the student's code runs, and
a probe that a student's file disables only returns data that does not match.

A probe may raise `CheckFailure` with a plain-language message for what is not data at all (a
missing function, a result of the wrong shape); any other exception escaping it is the student's
code failing. Predict exercises use `PredictSuite`: the student's process only returns the
answer variables, and the parent judges each `Part`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import ModuleType
from typing import Any

Observation = list[tuple[str, Any]]
"""What one probe saw: labelled values, each plain data once `to_data` has run on it."""


class CheckFailure(Exception):
    """The student's code ran but gave something that is not even comparable. Say what was
    expected and what happened, in words a student can act on."""

    def __init__(self, message: str, *, expected: str | None = None, got: str | None = None,
                 hint: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.got = got
        self.hint = hint


class Subject:
    """Whose functions a probe runs: the student's file or the model."""

    is_model = False
    params: Mapping[str, Any] = {}
    """The variant being checked (`routerlab.exercises.variants`): a probe reads its inputs
    with `param`, so every student's visible checks run on their own numbers."""

    def param(self, name: str) -> Any:
        return self.params[name]

    def function(self, name: str) -> Callable[..., Any]:
        raise NotImplementedError

    def value(self, name: str) -> Any:
        raise NotImplementedError

    def optional(self, name: str) -> Callable[..., Any] | None:
        """A function the subject may leave out (a capstone's earlier pieces): None means the
        model's own runs in its place. The model leaves every one out."""
        return None


class Submission(Subject):
    """The student's loaded file, with lookups that fail in plain language."""

    def __init__(self, module: ModuleType, params: Mapping[str, Any] | None = None) -> None:
        self.module = module
        self.params = dict(params or {})

    def function(self, name: str) -> Callable[..., Any]:
        found = getattr(self.module, name, None)
        if not callable(found):
            raise CheckFailure(f"your file has no function `{name}`; keep the name and signature "
                               "the starter file gives", hint=1)
        return found

    def optional(self, name: str) -> Callable[..., Any] | None:
        found = getattr(self.module, name, None)
        return found if callable(found) else None

    def value(self, name: str) -> Any:
        if not hasattr(self.module, name):
            raise CheckFailure(f"your file has no `{name} = ...` line; keep the names the starter "
                               "file gives", hint=1)
        return getattr(self.module, name)


class ModelSubject(Subject):
    """RouterLab's own behaviour in the student's signature: what every probe is compared with.
    It only ever runs in the parent process, never beside a student's code."""

    is_model = True

    def __init__(self, functions: Mapping[str, Callable[..., Any]],
                 params: Mapping[str, Any] | None = None) -> None:
        self.functions = dict(functions)
        self.params = dict(params or {})

    def function(self, name: str) -> Callable[..., Any]:
        return self.functions[name]


Probe = Callable[[Subject], Observation]


@dataclass(frozen=True)
class Check:
    name: str
    hidden: bool
    hint: int
    probe: Probe | None


class Suite:
    """The checks of one implement exercise, in the order they run. Register them with the
    decorators, and the model's version of each student function with `model`:

        suite = Suite("quant-1")
        suite.model(compute_scale=model_scale)

        @suite.visible("Q8S scale of a small tensor", hint=1)
        def _(sub: Subject) -> Observation: ...
    """

    def __init__(self, exercise_id: str) -> None:
        self.exercise_id = exercise_id
        self.checks: list[Check] = []
        self._model: dict[str, Callable[..., Any]] = {}

    def model(self, **functions: Callable[..., Any]) -> None:
        self._model.update(functions)

    def model_subject(self, params: Mapping[str, Any] | None = None) -> ModelSubject:
        return ModelSubject(self._model, params)

    def visible(self, name: str, hint: int = 1) -> Callable[[Probe], Probe]:
        return self._add(name, hidden=False, hint=hint)

    def hidden(self, name: str, hint: int = 2) -> Callable[[Probe], Probe]:
        return self._add(name, hidden=True, hint=hint)

    def _add(self, name: str, hidden: bool, hint: int) -> Callable[[Probe], Probe]:
        def register(probe: Probe) -> Probe:
            self.checks.append(Check(name, hidden, hint, probe))
            return probe

        return register


@dataclass(frozen=True)
class Part:
    """One answer of a predict exercise: the variable the student fills in, what it stands for,
    and `form`, which checks the shape of an answer (not its truth) and puts it in one form.
    `numeric` parts are compared with the exercise's stated tolerance, the others exactly."""

    name: str
    describes: str
    form: Callable[[Any], Any]
    places: int = 6
    numeric: bool = False


MEMO_LIMIT = 512
"""Variants whose answers a predict suite keeps (each a few numbers)."""
Mistake = Callable[..., dict[str, Any]]
"""A declared wrong answer of a predict exercise: given a variant's parameters, the parts a
student who makes this mistake writes (the parts it leaves out are the right ones)."""


@dataclass
class PredictSuite(Suite):
    """A predict exercise: `oracle(**params)` runs the real model to find one variant's answers
    (in the parent; the student's process only returns the variables it was asked for).

    `mistakes` names the usual wrong answers ("counted the clone as a copy"), each computed for
    any variant: `teacher lint` proves each one fails, and the class report groups wrong answers
    by them, since raw values differ from one student's variant to the next."""

    exercise_id: str
    parts: Sequence[Part]
    oracle: Callable[..., dict[str, Any]]
    checks: list[Check] = field(default_factory=list)
    mistakes: Mapping[str, Mistake] = field(default_factory=dict)
    _memo: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._model = {}
        self.checks = [Check("every answer is filled in and well formed", False, 1, None)]
        for part in self.parts:
            self.checks.append(Check(f"{part.name}: {part.describes}", True, 2, None))

    def answers(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The model's answers for one variant (none given: the exercise's only one), run once
        per variant and process (lint and grading ask for the same variant several times)."""
        import json

        key = json.dumps(dict(params or {}), sort_keys=True)
        if key not in self._memo:
            if len(self._memo) >= MEMO_LIMIT:
                self._memo.clear()
            self._memo[key] = self.oracle(**dict(params or {}))
        return dict(self._memo[key])

    def mistaken(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Every part as a student making the mistake `name` answers it, for this variant."""
        return {**self.answers(params), **self.mistakes[name](**dict(params))}

    def canonical_answers(self, values: dict[str, Any]) -> dict[str, str]:
        from ..answers import canonical

        return {p.name: canonical(p.form(values[p.name]), p.places) for p in self.parts}

    def digests(self, values: dict[str, Any]) -> dict[str, str]:
        from ..answers import answer_digest

        answers = self.canonical_answers(values)
        return {name: answer_digest(self.exercise_id, name, text) for name, text in answers.items()}


def to_data(value: Any, depth: int = 0) -> Any:
    """Plain JSON data for a value a student's function returned: what crosses the process
    boundary. Containers keep their shape (tuples become lists, sets sorted lists); an object
    that is not data becomes `{"object": repr}`, which equals no real answer."""
    if depth > 20:
        return {"object": "nested too deep"}
    if isinstance(value, Enum):
        value = value.value
    if hasattr(value, "tolist") and callable(value.tolist) and type(value).__module__ == "numpy":
        value = value.tolist()
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, Mapping):
        return {str(k): to_data(v, depth + 1) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((to_data(v, depth + 1) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [to_data(v, depth + 1) for v in value]
    return {"object": f"{type(value).__name__}: {repr(value)[:120]}"}


def outcome(call: Callable[[], Any], panics: Sequence[type[BaseException]] = ()) -> list[Any]:
    """["returned", value] or ["panics", ExceptionName] for the listed panic types: what a call
    did, when raising (a Burn panic, say) is itself the behaviour under test. Any other
    exception is the student's code failing and propagates."""
    try:
        return ["returned", to_data(call())]
    except NotImplementedError:
        raise
    except tuple(panics) as error:
        return ["panics", next(p.__name__ for p in panics if isinstance(error, p))]


def is_close(got: Any, want: Any, rel: float, abs_: float) -> bool:
    """Numbers within the tolerance; NaN equals NaN (a model can return it on purpose)."""
    if math.isnan(want) and math.isnan(got):
        return True
    return math.isclose(got, want, rel_tol=rel, abs_tol=abs_)


def choice(*allowed: str) -> Callable[[Any], str]:
    """The form of a choice answer: one of `allowed`, ignoring case and surrounding space."""
    by_key = {a.strip().lower(): a for a in allowed}

    def form(value: Any) -> str:
        key = value.strip().lower() if isinstance(value, str) else None
        if key not in by_key:
            raise CheckFailure(f"answer one of {', '.join(repr(a) for a in allowed)}",
                               got=repr(value), hint=1)
        return by_key[key]

    return form


def choices(form: Callable[[Any], str], what: str) -> Callable[[Any], list[str]]:
    """The form of an answer that is a set of choices: a list (tuple, set) of `form`'s answers,
    compared sorted; anything else is refused as "write a list of `what`"."""

    def many(value: Any) -> list[str]:
        if not isinstance(value, list | tuple | set):
            raise CheckFailure(f"write a list of {what} ([] for none)", got=repr(value), hint=1)
        return sorted(form(v) for v in value)

    return many
