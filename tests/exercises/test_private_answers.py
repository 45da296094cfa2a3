"""Answers stay each student's own (issue 37 §6): the truths cache signs a class variant's
entry under a key made from the course secret and recomputes one that does not verify; the
solutions of a roster are one file per student."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine import judge
from routerlab.exercises.teacher import truths
from routerlab.exercises.teacher.truths import TruthStore, truths_key

KEY = truths_key(bytes([7]) * 32)


def _asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    asked: list[str] = []
    model = judge.expected.__wrapped__  # uncached: each call really computes

    def counted(exercise_id: str, catalog: str = "", params: str = "") -> judge.Expected:
        asked.append(exercise_id)
        return model(exercise_id, catalog, params)

    monkeypatch.setattr(truths.judge, "expected", counted)
    return asked


def test_a_variant_entry_is_signed_and_an_edited_one_recomputed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = load_catalog().get("flow-2")
    variant = next(p for p in base.variant.every() if p != base.variant.defaults())
    exercise = load_catalog().with_params({"flow-2": variant}).get("flow-2")
    right = TruthStore(tmp_path, KEY).expected(exercise).answers
    (entry,) = tmp_path.glob("*.json")
    document = json.loads(entry.read_text())
    assert len(document["mac"]) == 64
    asked = _asked(monkeypatch)
    assert TruthStore(tmp_path, KEY).expected(exercise).answers == right
    assert asked == [], "a signed entry is believed"
    document["answers"] = {name: 99 for name in document["answers"]}  # mac kept, answers not
    entry.write_text(json.dumps(document))
    assert TruthStore(tmp_path, KEY).expected(exercise).answers == right
    assert asked == ["flow-2"], "an entry whose HMAC fails is computed again"
    assert TruthStore(tmp_path, truths_key(bytes(32))).expected(exercise).answers == right
    assert TruthStore(tmp_path, "").expected(exercise).answers == right
    assert asked == ["flow-2"] * 3, "another course's key, or none, believes no variant entry"
