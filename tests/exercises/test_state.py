"""The progress file: JSON only, validated record by record, repaired with backups."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from routerlab.exercises.learner.state import Record, StateStore


def _store(tmp_path: Path) -> StateStore:
    return StateStore(tmp_path / ".routerlab" / "state.json")


def _bump(state, exercise_id: str = "quant-1") -> None:
    state.record(exercise_id).attempts += 1


def test_round_trip_and_last_good_copy(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.update(lambda s: _bump(s, "registry-1"))
    assert store.load().records["registry-1"].attempts == 1
    assert store.good_copy.read_text() == store.path.read_text()


def test_a_file_that_is_not_json_is_backed_up_and_the_last_good_copy_restored(
        tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    store.update(lambda s: _bump(s, "registry-1"))
    store.path.write_text("{ this is not json", encoding="utf-8")
    state = store.load()
    assert state.records["registry-1"].attempts == 1, "progress comes back from the good copy"
    assert any("corrupted" in p for p in state.problems)
    backups = list(store.path.parent.glob("state.json.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_text() == "{ this is not json"
    assert store.load().problems == [], "the repair is saved: reported once, not on every load"


def test_one_bad_record_is_dropped_and_every_other_exercise_keeps_its_progress(
        tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    store.update(lambda s: (_bump(s, "registry-1"), _bump(s, "quant-3"), _bump(s, "quant-3")))
    data = json.loads(store.path.read_text())
    data["exercises"]["registry-1"]["attempts"] = "many"
    data["exercises"]["quant-1"] = {"status": "passed", "hacked": True}
    store.path.write_text(json.dumps(data))
    state = store.load()
    assert set(state.records) == {"quant-3"} and state.records["quant-3"].attempts == 2
    assert len(state.problems) == 1
    assert "registry-1" in state.problems[0] and "quant-1" in state.problems[0]
    assert "keep their progress" in state.problems[0]
    assert list(store.path.parent.glob("state.json.corrupt-*")), "the bad file is kept for a look"


def test_record_validation_names_the_field() -> None:
    for bad, field in (({"status": "done"}, "status"), ({"hint_level": 7}, "hint_level"),
                       ({"attempts": True}, "attempts"), ({"unlock": 3}, "unlock")):
        try:
            Record.from_json(bad)
        except ValueError as error:
            assert field in str(error)
        else:
            raise AssertionError(f"{bad} validated")


def test_concurrent_updates_do_not_lose_counts(tmp_path: Path) -> None:
    """The terminal's watch and a notebook may save at the same moment."""
    store = _store(tmp_path)
    threads = [threading.Thread(target=lambda: [store.update(_bump) for _ in range(10)])
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.load().records["quant-1"].attempts == 40
