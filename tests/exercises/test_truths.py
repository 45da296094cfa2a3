"""The teacher's store of the model's results: computed once per catalog version and RouterLab
source, read back equal, held to the seal on every read, pruned to the sources used last."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.teacher import truths
from routerlab.exercises.teacher.classroom import grade_student
from routerlab.exercises.teacher.truths import TruthStore

IDS = ("flow-2", "quant-3")  # a predict exercise and an implement one


def test_results_are_computed_once_and_read_back_equal(
        tmp_path: Path, count_model: Callable[[], list[str]]) -> None:
    catalog = load_catalog()
    first = {i: TruthStore(tmp_path).expected(catalog.get(i)) for i in IDS}
    assert len(list(tmp_path.glob("*.json"))) == len(IDS)
    asked = count_model()
    again = {i: TruthStore(tmp_path).expected(catalog.get(i)) for i in IDS}  # a new process
    assert asked == [], "a warm store computes nothing"
    for exercise_id in IDS:
        assert again[exercise_id].observations == first[exercise_id].observations
        assert again[exercise_id].answers == first[exercise_id].answers
        assert again[exercise_id].problems == ()


def test_an_entry_edited_to_another_answer_is_recomputed_not_believed(
        tmp_path: Path, count_model: Callable[[], list[str]]) -> None:
    exercise = load_catalog().get("flow-2")
    right = TruthStore(tmp_path).expected(exercise).answers
    (entry,) = tmp_path.glob("*.json")
    document = json.loads(entry.read_text())
    document["answers"] = {name: 99 for name in document["answers"]}
    entry.write_text(json.dumps(document))
    asked = count_model()
    assert TruthStore(tmp_path).expected(exercise).answers == right
    assert asked == ["flow-2"]
    entry.write_text("[" * 100_000)  # and a damaged one
    assert TruthStore(tmp_path).expected(exercise).answers == right


def test_the_results_of_the_sources_used_last_are_kept(tmp_path: Path) -> None:
    exercise = load_catalog().get("flow-2")
    for index in range(truths.KEEP + 2):
        TruthStore(tmp_path / f"source-{index}").expected(exercise)
    assert len(list(tmp_path.iterdir())) == truths.KEEP
    assert (tmp_path / f"source-{truths.KEEP + 1}").is_dir()


def test_a_regrade_fills_the_teachers_store(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    submission = tmp_path / "s1"
    submission.mkdir()
    exercise = load_catalog().get("flow-2")
    from routerlab.exercises.authoring.sealing import open_solution

    (submission / exercise.file_name).write_text(open_solution(exercise))
    result = grade_student(submission)
    assert next(e for e in result.exercises if e.id == "flow-2").passed
    stored = list((tmp_path / "cache" / "routerlab" / "truths").glob("*/*.json"))
    assert len(stored) == 1


def test_copy_detection_reads_a_variants_truth_from_the_store_without_the_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        count_model: Callable[[], list[str]]) -> None:
    """`similar.model_truth` digests the answers grading used: with the class's entries in the
    store (a regrade), the model is asked nothing, and the digest is the model's own."""
    from routerlab.exercises.teacher.fingerprints import values_digest
    from routerlab.exercises.teacher.similar import model_truth

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    key = truths.truths_key(b"a course secret")
    base = load_catalog().get("flow-2")
    variants = [base.with_params(p) for p in list(base.variant.every())[:3]]
    store = TruthStore.default(key)
    wanted = [store.expected(v).answers for v in variants]  # what grading computed and stored
    asked = count_model()
    found = [model_truth(key)(v) for v in variants]
    assert asked == [], "copy detection asked the model again"
    from routerlab.exercises.checks import suite_for

    suite = suite_for(base)
    assert found == [values_digest({p.name: p.form(w[p.name]) for p in suite.parts})
                     for w in wanted]
    assert len(set(found)) > 1  # the variants' truths, not one digest for all
