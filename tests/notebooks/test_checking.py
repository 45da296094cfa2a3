"""`routerlab.notebook.checking`: the closing exercise's check, its sealed explanations and the
short `WrongAnswer` in place of a traceback."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from routerlab.notebook.checking import WrongAnswer, check, seal_explanation
from routerlab.notebook.display import Callout
from routerlab.present.palette import GREEN


class _Truth:
    """A `truth` callable that counts how often it is asked."""

    def __init__(self, value: Any) -> None:
        self.value, self.calls = value, 0

    def __call__(self) -> Any:
        self.calls += 1
        return self.value


def test_a_right_answer_is_ok_and_opens_the_sealed_explanation() -> None:
    truth = _Truth([2])
    explain = seal_explanation([2], "#2 survives: it was never read ReadWrite.")
    assert "survives" not in explain  # sealed: the notebook does not give it away
    result = check([2], truth, hint="count the reads", explain=explain)
    assert (result.tone, result.heading) == ("ok", "Correct: [2].")
    assert result.body == "#2 survives: it was never read ReadWrite."
    assert truth.calls == 1
    assert GREEN.hex in result._repr_html_()
    plain = check(" Get_Tensor ", "get_tensor", explain="the source session's arm")
    assert (plain.tone, plain.body) == ("ok", "the source session's arm")


def test_an_explanation_sealed_for_another_answer_does_not_open() -> None:
    result = check(3, 3, explain=seal_explanation(4, "the old model's story"))
    assert result.tone == "ok" and "did not open" in result.body


def test_a_wrong_answer_raises_with_the_hint() -> None:
    truth = _Truth(8000)
    with pytest.raises(WrongAnswer) as wrong:
        check(4000, truth, hint="the bytes path reads back once and uploads once",
              explain=seal_explanation(8000, "secret"))
    assert wrong.value.hint == "the bytes path reads back once and uploads once"
    assert str(wrong.value) == ("Not quite: 4000 is not what the model does.\n"
                                "Hint: the bytes path reads back once and uploads once")
    assert "secret" not in str(wrong.value)
    assert isinstance(wrong.value, AssertionError) and truth.calls == 1
    assert wrong.value._render_traceback_()[-1].endswith(
        "Hint: the bytes path reads back once and uploads once\x1b[0m")


def test_the_placeholder_is_not_answered_yet_and_the_model_is_not_asked() -> None:
    truth = _Truth(1)
    result = check(..., truth, hint="h", explain=seal_explanation(1, "e"))
    assert isinstance(result, Callout) and result.tone == "info"
    assert result.heading.startswith("Not answered yet")
    assert truth.calls == 0

    def must_not_run() -> Any:
        raise AssertionError("truth was called for the placeholder")

    check(..., must_not_run)


@pytest.mark.parametrize("answer, truth, rel", [
    (2.53, 2.5312, 5e-3),        # three significant digits (notebook 06)
    ([1, 2], np.array([1, 2]), 1e-6),
    ([2, 1], {1, 2}, 1e-6),      # a set takes a list in any order
    (7, np.int64(7), 1e-6),
])
def test_check_accepts_equivalent_answers(answer: Any, truth: Any, rel: float) -> None:
    assert check(answer, truth, rel=rel).tone == "ok"


@pytest.mark.parametrize("answer, truth", [(True, 1), (1, True), (2.6, 2.5312), ([1, 2], [1])])
def test_check_refuses_near_misses(answer: Any, truth: Any) -> None:
    with pytest.raises(WrongAnswer):
        check(answer, truth, rel=5e-3)
