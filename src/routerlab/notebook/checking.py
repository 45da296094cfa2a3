"""The closing "predict, then check" exercise of each notebook.

The truth is asked of `routerlab.core` at check time; the explanation is sealed with the
exercise catalog's sealing (`routerlab.exercises.answers`), so a notebook does not give the answer
away before it is found.
"""

from __future__ import annotations

from typing import Any

from routerlab.notebook.display import Callout

__all__ = ["WrongAnswer", "check", "seal_explanation"]


class WrongAnswer(AssertionError):
    """A wrong prediction: the cell fails, with a short message instead of a long traceback."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message + (f"\nHint: {hint}" if hint else ""))
        self.hint = hint

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines instead of a traceback
        from routerlab.present.rich import ansi

        return [ansi(f"✗ {line}", "error") for line in str(self).splitlines()]


SEALED = "sealed:"
_UNOPENED = "(the explanation did not open: the model's answer differs from when it was sealed)"


def seal_explanation(truth: Any, text: str) -> str:
    """Seal the explanation of an exercise so that the notebook does not give the answer away:
    only the right answer opens it (`check` opens it after a correct answer). Authors run this
    once, with the value the model gives, and paste the result as `explain=`."""
    from routerlab.exercises.answers import seal

    return SEALED + seal(text, _explain_key(truth))


def _open_explanation(explain: str, expected: Any) -> str:
    if not explain.startswith(SEALED):
        return explain
    from routerlab.exercises.answers import unseal

    try:
        return unseal(explain[len(SEALED):], _explain_key(expected))
    except ValueError:
        return _UNOPENED


def _explain_key(truth: Any) -> str:
    import hashlib

    from routerlab.exercises.answers import canonical

    return hashlib.sha256(b"routerlab-notebook-explain\0"
                          + canonical(truth, places=4).encode()).hexdigest()


def check(answer: Any, truth: Any, *, hint: str = "", explain: str = "",
          rel: float = 1e-6) -> Callout:
    """Check a prediction against what the model actually does.

    `answer` is the student's value; `...` (the shipped placeholder) means "not answered yet" and
    is reported without failing, so the notebook still runs top to bottom. `truth` is the value or
    a zero-argument callable asking `routerlab.core`, called only once an answer is given (so the
    answer is not shown before the student predicts). It runs again on every attempt, so it must
    only *look* at the model, never change it. Numbers compare to `rel` (relative, 1e-6 unless
    the question asks for rounded digits),
    strings without case or surrounding spaces, sequences element by element. A wrong answer
    raises `WrongAnswer` with the hint; a right one shows the explanation (`explain`, plain or
    made by `seal_explanation`, so that it does not give the answer away before it is found).
    """
    if answer is ...:
        return Callout("info", "Not answered yet: replace the ... with your prediction and run "
                               "this cell again.")
    expected = truth() if callable(truth) else truth
    if not _same(answer, expected, rel):
        raise WrongAnswer(f"Not quite: {answer!r} is not what the model does.", hint)
    return Callout("ok", f"Correct: {answer!r}.", _open_explanation(explain, expected))


def _same(answer: Any, expected: Any, rel: float = 1e-6) -> bool:
    """Whether a notebook prediction matches the model's live answer.

    Deliberately not `exercises.answers.canonical`, the rule of the classroom exercises: those
    compare *digests* of a canonical text (the right answer is not shipped), so they can only test
    equality after rounding, and each answer part's `form` does its own lenient parsing. Here the
    model's value is at hand, so
    numbers compare with a relative tolerance (notebook 06 asks for three significant digits,
    which no fixed number of decimals expresses), strings ignore case and spaces, and a set
    accepts a list in any order. One rule for both would change what some answer accepts.
    """
    if isinstance(expected, str) or isinstance(answer, str):
        return str(answer).strip().lower() == str(expected).strip().lower()
    if hasattr(expected, "tolist"):
        expected = expected.tolist()
    if hasattr(answer, "tolist"):
        answer = answer.tolist()
    if isinstance(expected, bool) or isinstance(answer, bool):
        return answer is expected or answer == expected and type(answer) is type(expected)
    if isinstance(expected, int | float) and isinstance(answer, int | float):
        return abs(answer - expected) <= rel * max(1.0, abs(expected))
    if isinstance(expected, list | tuple) and isinstance(answer, list | tuple):
        return len(answer) == len(expected) and all(
            _same(a, e, rel) for a, e in zip(answer, expected, strict=True))
    if isinstance(expected, set | frozenset) and isinstance(answer, set | frozenset | list | tuple):
        return set(answer) == set(expected)
    return bool(answer == expected)
