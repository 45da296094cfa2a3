"""The model-side answers a class regrade asks once per student (`judge.seal_problems`,
`judge.implement_key`) are kept per process (`judge._kept`): the kept answer is the one computed
afresh, and different data (a drifted result, another seal) is never given a kept answer."""

from __future__ import annotations

from dataclasses import replace

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
