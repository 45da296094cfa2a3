"""Answers stay each student's own (issue 37 §6): the truths cache signs a class variant's
entry under a key made from the course secret and recomputes one that does not verify; the
solutions of a roster are one file per student."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.teacher.truths import TruthStore, truths_key

KEY = truths_key(bytes([7]) * 32)


def test_a_variant_entry_is_signed_and_an_edited_one_recomputed(
        tmp_path: Path, count_model: Callable[[], list[str]]) -> None:
    base = load_catalog().get("flow-2")
    variant = next(p for p in base.variant.every() if p != base.variant.defaults())
    exercise = load_catalog().with_params({"flow-2": variant}).get("flow-2")
    right = TruthStore(tmp_path, KEY).expected(exercise).answers
    (entry,) = tmp_path.glob("*.json")
    document = json.loads(entry.read_text())
    assert len(document["mac"]) == 64
    asked = count_model()
    assert TruthStore(tmp_path, KEY).expected(exercise).answers == right
    assert asked == [], "a signed entry is believed"
    document["answers"] = {name: 99 for name in document["answers"]}  # mac kept, answers not
    entry.write_text(json.dumps(document))
    assert TruthStore(tmp_path, KEY).expected(exercise).answers == right
    assert asked == ["flow-2"], "an entry whose HMAC fails is computed again"
    assert TruthStore(tmp_path, truths_key(bytes(32))).expected(exercise).answers == right
    assert TruthStore(tmp_path, "").expected(exercise).answers == right
    assert asked == ["flow-2"] * 3, "another course's key, or none, believes no variant entry"
