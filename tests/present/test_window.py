"""`present.window`: a long run's first and last steps, and one line that says what it left out."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from routerlab.present.window import LeftOut, window


@dataclass
class Step:
    step: int
    error: str | None = None


def _steps(count: int, errors: tuple[int, ...] = ()) -> list[Step]:
    return [Step(n, "expected" if n in errors else None) for n in range(1, count + 1)]


def test_a_run_that_fits_passes_through_whole() -> None:
    assert list(window(_steps(25), head=20, tail=5)) == _steps(25)


def test_a_long_run_keeps_its_head_and_tail_and_counts_the_rest() -> None:
    shown = list(window(_steps(10_000, errors=(30, 31, 500)), head=20, tail=5))
    assert [s.step for s in shown[:20]] == list(range(1, 21))
    assert [s.step for s in shown[21:]] == list(range(9_996, 10_001))
    left = shown[20]
    assert isinstance(left, LeftOut)
    assert (left.first, left.last, left.count, left.errors) == (21, 9_995, 9_975, [30, 31, 500])
    assert left.line("--all draws them.") == (
        "… 9,975 steps not drawn (steps 21-9,995); 3 of them raised the error they expected "
        "(steps 30, 31, 500). --all draws them.")


def test_the_line_names_five_errors_and_counts_the_others() -> None:
    left = LeftOut()
    for step in _steps(9, errors=tuple(range(1, 10))):
        left.add(step)
    assert "9 of them raised the error they expected (steps 1, 2, 3, 4, 5 and 4 more)" in (
        left.line())
    one = LeftOut()
    one.add(Step(7))
    assert one.line() == "… 1 step not drawn (step 7); none of them raised an error."


def test_a_run_that_stops_shows_the_steps_that_ran_before_the_error() -> None:
    def failing() -> object:
        yield from _steps(30)
        raise RuntimeError("step 31 failed")

    shown: list[object] = []
    with pytest.raises(RuntimeError, match="step 31 failed"):
        for item in window(failing(), head=20, tail=5):  # type: ignore[arg-type]
            shown.append(item)
    assert isinstance(shown[20], LeftOut) and shown[20].count == 5
    assert [s.step for s in shown[21:]] == [26, 27, 28, 29, 30]  # type: ignore[union-attr]
