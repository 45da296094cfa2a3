"""The verdict, computed in RouterLab's own process from data the student's process returned.

For an implement exercise, each check's probe runs here on `ModelSubject` (the model's own
behaviour) and its observations are compared, label by label, with those the student's process
sent. Before anything is compared, the model's observations are hashed and checked against the
digests the catalog was sealed with (`sealed.json`), so a model that drifted, or a check whose
inputs were emptied, shows up as a catalog error and never as a pass. For a predict exercise,
each answer is put in its canonical form and compared with the sealed digest; numeric answers are
compared with the model's value within the exercise's stated tolerance.

Floats are compared with the exercise's tolerance (`rel` and `abs`, see `exercise.toml`); an
answer just outside it (within 100 times) is told so, with a hint about precision.

A class regrade asks the same two questions of the model's results for every student: are they
still the seal's (`seal_problems`), and what key opens the solution (`implement_key`). Both are
pure functions of the model's data (and the seal's digests), never of a student's, and putting
that data in canonical form costs about 0.6 s a student; so each answer is kept in this process,
keyed by a digest of the exact data asked about (`_kept`), and a different result, a resealed
exercise or an edited cache is simply another key.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..answers import answer_digest, canonical, unlock_key
from ..catalog import Exercise, Tolerance, load_catalog
from ..checks import suite_for
from ..checks.base import (
    Check,
    CheckFailure,
    Observation,
    PredictSuite,
    Suite,
    is_close,
    to_data,
)
from ..report import (
    AT_GRADING,
    ERROR,
    FAILED,
    NOT_RUN,
    OTHER_MISTAKE,
    PASSED,
    Outcome,
    printable,
)
from ..variants.spec import Params, from_key

NEAR = 100.0
"""An answer within NEAR times the tolerance is 'close': the student is told about precision."""


@dataclass(frozen=True)
class Expected:
    """What the model gives for every check of one exercise, and whether it is what the catalog
    was sealed with."""

    observations: dict[str, Observation]
    answers: dict[str, Any]
    problems: tuple[str, ...]
    at_grading: frozenset[str] = frozenset()
    """Checks judged only when the teacher grades (a class workspace's hidden checks: their
    expected results are not in the course bundle): reported as such, never as passed."""


def check_digest(exercise_id: str, check_name: str, observation: Any) -> str:
    """The digest a check's model observations are sealed with."""
    return answer_digest(exercise_id, f"check:{check_name}", canonical(observation, sig=9))


def expected_for(exercise: Exercise) -> Expected:
    """`expected` of the variant this copy of the exercise shows (`Exercise.params`)."""
    return expected(exercise.id, exercise.catalog, exercise.params)


@cache
def expected(exercise_id: str, catalog: str = "", params: str = "") -> Expected:
    """Run every probe on the model (once per process and variant) and check it against the
    sealed digests of the installed catalog, or of the catalog folder `catalog`
    (`Exercise.catalog`). `params` (`variants.params_key`) is a class variant: its truth is
    computed here, from the model, and only what does not vary (an implement exercise's hidden
    checks) is held to the seal, which was made with the catalog's own variant."""
    exercise = load_catalog(catalog or None).get(exercise_id)
    suite = suite_for(exercise)
    if exercise.sealed() is None:
        return Expected({}, {}, (f"{exercise_id} has no sealed.json (run `teacher seal`)",))
    variant = from_key(params) if params else exercise.variant.defaults()
    if isinstance(suite, PredictSuite):
        found = Expected({}, suite.answers(variant), ())
    elif params:  # the student's own visible inputs; the hidden checks are everyone's
        shared = expected(exercise_id, catalog)
        visible = frozenset(c.name for c in suite.checks if not c.hidden)
        observations = {**shared.observations, **model_observations(suite, variant, visible)}
        return Expected(observations, {}, shared.problems)
    else:
        found = Expected(model_observations(suite, variant), {}, ())
    if params:  # a class variant's answers are the model's own: no seal was made of them
        return found
    return Expected(found.observations, found.answers, tuple(seal_problems(exercise, found)))


KEPT_MOST = 8192
"""How many answers `_kept` holds (an exercise and variant each at most: a class of 200 on 25
exercises stays well under it); past it, the oldest go."""
_KEPT: dict[str, Any] = {}
_KEPT_LOCK = threading.Lock()


def _kept(question: str, data: Any, answer: Callable[[], Any]) -> Any:
    """`answer()`, computed once per process for the same `question` about the same `data`
    (JSON data: the model's results, a seal's digests); data JSON cannot write is asked anew."""
    try:
        text = json.dumps([question, data], sort_keys=True, allow_nan=True)
    except (TypeError, ValueError):
        return answer()
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    with _KEPT_LOCK:
        if key in _KEPT:
            return _KEPT[key]
    value = answer()
    with _KEPT_LOCK:
        while len(_KEPT) >= KEPT_MOST:
            del _KEPT[next(iter(_KEPT))]
        _KEPT[key] = value
    return value


def forget() -> None:
    """Drop every kept answer (`_kept`): the benchmark's side by side runs a student as a regrade
    without them did."""
    with _KEPT_LOCK:
        _KEPT.clear()


def seal_problems(exercise: Exercise, found: Expected) -> list[str]:
    """Where the model's results `found` (for the catalog's own variant) differ from what
    `exercise` was sealed with (none: they are the seal's). A teacher's stored results are held
    to it on every read (the answer kept per process for the same results and seal, `_kept`)."""
    sealed = exercise.sealed()
    if sealed is None:
        return [f"{exercise.id} has no sealed.json (run `teacher seal`)"]
    asked = [exercise.id, exercise.checks, exercise.params, sealed.digests, found.observations,
             found.answers]
    return list(_kept("seal", asked, lambda: _seal_problems(exercise, sealed.digests, found)))


def _seal_problems(exercise: Exercise, digests: dict[str, str], found: Expected) -> list[str]:
    suite = suite_for(exercise)
    if isinstance(suite, PredictSuite):
        try:
            given = suite.digests(found.answers)
        except (KeyError, TypeError, ValueError):
            return ["the model's answers are missing a part"]
        wrong = [n for n, d in given.items() if digests.get(n) != d]
        return [f"the model's answers differ from the sealed ones for {wrong}"] if wrong else []
    problems = []
    for check in suite.checks:
        observed = found.observations.get(check.name)
        if observed is None or digests.get(check.name) != check_digest(
                exercise.id, check.name, observed):
            problems.append(f"check “{check.name}”: the model's results are not the sealed ones")
    return problems


def model_observations(suite: Suite, params: Params | None = None,
                       only: frozenset[str] | None = None) -> dict[str, Observation]:
    """The model's results on each check (on `only` these checks), for one variant."""
    subject = suite.model_subject(params)
    out: dict[str, Observation] = {}
    for check in suite.checks:
        assert check.probe is not None
        if only is not None and check.name not in only:
            continue
        out[check.name] = [(str(label), to_data(value)) for label, value in check.probe(subject)]
    return out


def implement_key(exercise_id: str, observations: dict[str, Observation]) -> str:
    """The key that opens an implement exercise's sealed solution: derived from the results a
    passing submission gives (which are the model's), so only passing reveals it. Kept per
    process for the same results (`_kept`)."""
    return str(_kept("key", [exercise_id, observations], lambda: unlock_key(
        exercise_id, {name: canonical(obs, sig=9) for name, obs in observations.items()})))


def predict_key(exercise_id: str, suite: PredictSuite, answers: dict[str, Any]) -> str:
    return unlock_key(exercise_id, suite.canonical_answers(answers))


def judge_check(check: Check, want: Observation, sent: dict[str, Any],
                tolerance: Tolerance) -> Outcome:
    """One implement check: the student's process sent `sent` (its observations, or why none)."""
    outcome = Outcome(name=check.name, hidden=check.hidden, hint=check.hint)
    if "observed" not in sent:
        outcome.status = ERROR if sent.get("status") == ERROR else FAILED
        outcome.message = _text(sent.get("message")) or "the check produced no result"
        outcome.got = _text(sent.get("got")) or None
        outcome.expected = None if check.hidden else (_text(sent.get("expected")) or None)
        outcome.traceback = [_text(t) for t in sent.get("traceback") or [] if isinstance(t, str)]
        outcome.hint = sent.get("hint") if isinstance(sent.get("hint"), int) else check.hint
        return outcome
    got = sent["observed"]
    if not isinstance(got, list):
        got = []
    if _verbatim(want, got):
        outcome.status = PASSED
        return outcome
    for index, (label, value) in enumerate(want):
        entry = got[index] if index < len(got) else None
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] == label):
            seen = (_where_labels_part(label, _text(entry[0])) if isinstance(entry, list)
                    and entry else "the check stopped before this point")
            return _differs(outcome, check, label, value, seen, close=False, tolerance=tolerance)
        if not same(value, entry[1], tolerance):
            close = same(value, entry[1], tolerance.widened(NEAR))
            return _differs(outcome, check, label, value, _show(entry[1]), close, tolerance)
    if len(got) != len(want):
        return _differs(outcome, check, "the end of the check", None, "more results than the "
                        "model gives", close=False, tolerance=tolerance)
    outcome.status = PASSED
    return outcome


def _verbatim(want: Observation, got: list[Any]) -> bool:
    """Whether the process sent the model's observations exactly, as JSON text. Then every value
    is `same`: the model's are plain data (`to_data`: no tuple, no key but a string), so equal
    text means equal types and values, and finite ones (`allow_nan=False`: a NaN's text equals
    another NaN's, the values do not). Most of a build check's judging was the value-by-value
    walk of observations that match (a run's 186 kB: 32 ms walked, 5 ms compared as text)."""
    try:
        return json.dumps([[label, value] for label, value in want], allow_nan=False) == \
            json.dumps(got, allow_nan=False)
    except (TypeError, ValueError):
        return False


def _where_labels_part(want: str, got: str) -> str:
    """A step whose description differs: the description is built from what the code left
    behind (a registry's ids, a count), so the first character where the two part says what
    differs; both are shown from a little before it."""
    at = next((i for i, (a, b) in enumerate(zip(want, got, strict=False)) if a != b),
              min(len(want), len(got)))
    start = max(0, at - 20)
    return (f"your code's run described this step as “{'…' if start else ''}{got[start:at + 40]}”"
            f" where the model's reads “{'…' if start else ''}{want[start:at + 40]}” (they part "
            f"at character {at + 1}: what your code did before this step left something "
            "different)")


def _differs(outcome: Outcome, check: Check, label: str, want: Any, got: str, close: bool,
             tolerance: Tolerance) -> Outcome:
    outcome.status = FAILED
    outcome.message = f"a hidden case differs: {label}" if check.hidden else label
    outcome.expected = None if check.hidden else _show(want)
    outcome.got = got
    if close:
        outcome.message += (f" (close, but not within the stated tolerance: relative "
                            f"{tolerance.rel:g}, absolute {tolerance.abs:g}; keep full precision, "
                            "do not round)")
    return outcome


def judge_predict(exercise: Exercise, suite: PredictSuite, answers: Any,
                  model: dict[str, Any], at_grading: frozenset[str] = frozenset()
                  ) -> list[Outcome]:
    """The visible "well formed" check and one hidden check per part (those in `at_grading`
    only say that they run when the teacher grades)."""
    sealed = exercise.sealed()
    digests = sealed.digests if sealed else {}
    answers = answers if isinstance(answers, dict) else {}
    formed = Outcome(name=suite.checks[0].name, hint=1, status=PASSED)
    outcomes = [formed]
    for part, check in zip(suite.parts, suite.checks[1:], strict=True):
        outcome = Outcome(name=check.name, hidden=True, hint=check.hint)
        outcomes.append(outcome)
        raw = answers.get(part.name, {"missing": True})
        if isinstance(raw, dict) and (raw.get("missing") or raw.get("todo")):
            why = (f"your file has no `{part.name} = ...` line; keep the names the starter gives"
                   if raw.get("missing") else
                   f"`{part.name}` is still `...`: replace the TODO with your prediction of "
                   f"{part.describes}")
            _fail(formed, why, None, 1)
            _fail(outcome, "not answered yet", None, 1)
            continue
        try:
            value = part.form(raw)
        except CheckFailure as failure:
            _fail(formed, f"{part.name}: {failure.message}", failure.got, 1)
            _fail(outcome, "not well formed yet", None, 1)
            continue
        if check.name in at_grading:
            outcomes[-1] = at_grading_outcome(check)
            continue
        if part.numeric and part.name in model:
            right = same(to_data(part.form(model[part.name])), to_data(value), exercise.tolerance)
            close = same(to_data(part.form(model[part.name])), to_data(value),
                         exercise.tolerance.widened(NEAR))
        elif exercise.params and part.name in model:  # a class variant: its truth, computed now
            right, close = canonical(value, part.places) == canonical(
                part.form(model[part.name]), part.places), False
        else:
            digest = answer_digest(exercise.id, part.name, canonical(value, part.places))
            right, close = digest == digests.get(part.name), False
        if right:
            outcome.status = PASSED
        else:
            message = f"your prediction of {part.describes} is not what the model does"
            if close:
                message += (f" (close, but not within the stated tolerance: relative "
                            f"{exercise.tolerance.rel:g}, absolute {exercise.tolerance.abs:g}; "
                            "give more decimals)")
            _fail(outcome, message, f"{part.name} = {_show(to_data(value))}", 2)
            outcome.mistake = mistake_of(exercise, suite, part, value, model)
    return outcomes


def mistake_of(exercise: Exercise, suite: PredictSuite, part: Any, value: Any,
               model: dict[str, Any] | None = None) -> str:
    """The declared mistake whose answer for this variant `value` is (the first that matches),
    `OTHER_MISTAKE` when none is; "" for an exercise that declares none. `model`: the model's
    answers for this variant, when the caller has them (a class's truths, read from the
    teacher's cache): a mistake changes some parts of them, so the oracle (for the served-peer
    exercises, real peers started) need not run again to learn the others."""
    if not suite.mistakes:
        return ""
    params = exercise.variant_params()
    given = canonical(value, part.places)
    known = model is not None and all(p.name in model for p in suite.parts)
    for name in suite.mistakes:
        try:
            answers = ({**model, **suite.mistakes[name](**params)} if known and model
                       else suite.mistaken(name, params))
            if canonical(part.form(answers[part.name]), part.places) == given:
                return name
        except CheckFailure:
            continue
    return OTHER_MISTAKE


def _fail(outcome: Outcome, message: str, got: str | None, hint: int) -> None:
    if outcome.status == FAILED:
        outcome.message += f"; {message}"
        return
    outcome.status, outcome.message, outcome.got, outcome.hint = FAILED, message, got, hint


def same(want: Any, got: Any, tolerance: Tolerance) -> bool:
    """Plain data equal in shape and type (a bool is not a number), floats within tolerance."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(want) is type(got) and want == got
    if isinstance(want, int | float) and isinstance(got, int | float):
        if isinstance(want, int) and isinstance(got, int):
            return want == got
        return is_close(float(got), float(want), tolerance.rel, tolerance.abs)
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(same(a, b, tolerance) for a, b in zip(want, got,
                                                                                  strict=True))
    if isinstance(want, dict) and isinstance(got, dict):
        return want.keys() == got.keys() and all(same(want[k], got[k], tolerance) for k in want)
    return type(want) is type(got) and want == got


def at_grading_outcome(check: Check) -> Outcome:
    return Outcome(name=check.name, hidden=check.hidden, status=AT_GRADING, hint=check.hint,
                   message="a hidden check: it runs when your teacher grades")


def not_run(check: Check) -> Outcome:
    return Outcome(name=check.name, hidden=check.hidden, status=NOT_RUN, hint=check.hint)


def _show(value: Any) -> str:
    text = printable(json.dumps(value, ensure_ascii=False) if _jsonable(value) else repr(value))
    return text if len(text) <= 400 else text[:400] + "…"


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def _text(value: Any) -> str:
    return printable(value) if isinstance(value, str) else ""
