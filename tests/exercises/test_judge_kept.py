"""The model-side answers a class regrade asks once per student (`judge.seal_problems`,
`judge.implement_key`) are kept per process (`judge._kept`): the kept answer is the one computed
afresh, and different data (a drifted result, another seal) is never given a kept answer."""

from __future__ import annotations

from dataclasses import replace

import pytest

from routerlab.exercises.answers import canonical, unlock_key
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine import judge


def test_a_kept_seal_check_and_key_are_the_fresh_ones_and_other_data_is_asked_anew() -> None:
    exercise = load_catalog().get("quant-1")
    found = judge.expected("quant-1")
    assert not found.problems
    judge.forget()
    assert judge.seal_problems(exercise, found) == [] == judge.seal_problems(exercise, found)
    fresh_key = unlock_key("quant-1", {n: canonical(o, sig=9)
                                       for n, o in found.observations.items()})
    assert judge.implement_key("quant-1", found.observations) == fresh_key
    assert judge.implement_key("quant-1", found.observations) == fresh_key  # kept

    name, observed = next(iter(found.observations.items()))
    label, value = observed[0]
    drifted = replace(found, observations={**found.observations,
                                           name: [(label, ["drifted", value]), *observed[1:]]})
    assert judge.seal_problems(exercise, drifted) == [
        f"check “{name}”: the model's results are not the sealed ones"]
    assert judge.implement_key("quant-1", drifted.observations) != fresh_key
    assert judge.seal_problems(exercise, found) == [], "the kept answer of the sealed data"


def test_the_kept_answers_stay_bounded() -> None:
    judge.forget()
    for n in range(judge.KEPT_MOST + 10):
        judge._kept("bound", n, lambda n=n: n)
    assert len(judge._KEPT) == judge.KEPT_MOST
    assert judge._kept("bound", judge.KEPT_MOST + 9, lambda: -1) == judge.KEPT_MOST + 9
    assert judge._kept("bound", 0, lambda: -1) == -1, "the oldest went first"
    judge.forget()


def test_a_mistake_is_judged_against_the_known_answers_without_running_the_oracle(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A class's truths come from the teacher's cache, so the oracle (for the served-peer
    exercises, real peers) has not run in this process: each mistake changes some parts of the
    answers already known, and the kind found is the one the oracle would give."""
    from routerlab.exercises.catalog import load_catalog
    from routerlab.exercises.checks import suite_for
    from routerlab.exercises.checks.base import PredictSuite

    catalog = load_catalog()
    checked = 0
    for exercise_id in ("transfer-2", "quant-4", "sessions-1"):
        base = catalog.get(exercise_id)
        suite = suite_for(base)
        assert isinstance(suite, PredictSuite)
        for params in list(base.variant.every())[:4]:
            exercise = base.with_params(params)
            model = suite.answers(params)
            wanted = {(name, part.name): judge.mistake_of(exercise, suite, part,
                                                          suite.mistaken(name, params)[part.name])
                      for name in suite.mistakes for part in suite.parts}
            with monkeypatch.context() as patched:
                patched.setattr(suite, "answers", _never)
                for (name, part_name), kind in wanted.items():
                    part = next(p for p in suite.parts if p.name == part_name)
                    value = suite.mistakes[name](**params).get(part_name, model[part_name])
                    assert judge.mistake_of(exercise, suite, part, value, model) == kind
                    checked += 1
    assert checked > 50


def _never(*args: object) -> dict[str, object]:
    raise AssertionError("the oracle ran again")


def _walked(want: list[tuple[str, object]], got: list[list[object]], tolerance: object) -> bool:
    """The verdict of the value-by-value walk alone: every label in order, every value `same`."""
    return len(want) == len(got) and all(
        entry[0] == label and judge.same(value, entry[1], tolerance)  # type: ignore[arg-type]
        for (label, value), entry in zip(want, got, strict=True))


def test_text_equal_observations_pass_and_no_verdict_differs_from_the_walk() -> None:
    """`judge_check` passes observations that are the model's as JSON text without walking them
    (`judge._verbatim`); pairs that look alike but differ in type (True and 1, 1 and 1.0, a
    list and a string), NaN, and close floats are walked, and every verdict is the walk's."""
    from routerlab.exercises.checks import suite_for

    exercise = load_catalog().get("quant-1")
    check = suite_for(exercise).checks[0]
    nan = float("nan")
    values: list[object] = [1, 1.0, True, 0, False, None, "1", [1], [1.0], {"a": 1},
                            {"a": 1.0}, nan, [nan], 0.1 + 0.2, 0.3, 1e20, 10 ** 20, "", [],
                            {}, [[1, [2, {"b": [True, None]}]]], -0.0, 0.0]
    seen = {True: 0, False: 0}
    for want_value in values:
        for got_value in values:
            want = [("x", want_value), ("y", [want_value, "tail"])]
            got = [["x", got_value], ["y", [got_value, "tail"]]]
            verdict = judge.judge_check(check, want, {"observed": got}, exercise.tolerance).ok
            assert verdict == _walked(want, got, exercise.tolerance), (want_value, got_value)
            seen[verdict] += 1
    assert seen[True] >= len(values) - 2 and seen[False] > len(values)  # both verdicts met
    assert not judge._verbatim([("x", nan)], [["x", nan]])  # equal text, unequal values
    assert judge._verbatim([("x", [1.5, {"k": None}])], [["x", [1.5, {"k": None}]]])
