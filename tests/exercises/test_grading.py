"""Export a student's results, merge a class's into a CSV and a per-exercise summary."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.errors import GradesError
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.export import results, write_results
from routerlab.exercises.learner.workspace import Workspace, init_workspace
from routerlab.exercises.teacher.exports import merge_exports

Solve = Callable[[Workspace, str], Path]


def test_export_lists_every_exercise_with_points_attempts_and_hints(
        course: Course, solve: Solve,
) -> None:
    course.check("quant-3")
    solve(course.workspace, "quant-3")
    course.check("quant-3")
    course.hint("quant-1")
    path, document = write_results(course)
    assert json.loads(path.read_text()) == document
    assert path.name == "routerlab-results-ada.json"
    entries = {e["id"]: e for e in document["exercises"]}
    assert list(entries) == [e.id for e in load_catalog()]
    quant3 = entries["quant-3"]
    assert (quant3["passed"], quant3["points"], quant3["attempts"],
            quant3["attempts_to_pass"]) == (True, 10, 1, 1)  # the untouched starter is none
    assert entries["quant-1"]["hint_level"] == 1 and not entries["quant-1"]["passed"]
    assert document["points"] == 10 and document["points_possible"] == load_catalog().total_points


def _student(tmp_path: Path, name: str, solved: list[str], hints: list[str], solve: Solve) -> dict:
    workspace, _ = init_workspace(tmp_path / name, name)
    course = Course(workspace)
    for exercise_id in hints:
        course.hint(exercise_id)
    for exercise_id in solved:
        course.check(exercise_id)
        solve(workspace, exercise_id)
        course.check(exercise_id)
    return results(course)


@pytest.mark.slow  # three students' whole hand-ins, every exercise graded
def test_grades_merge_a_folder_into_a_csv_and_a_summary(tmp_path: Path, solve: Solve) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, solved, hints in (("ada", ["quant-3", "quant-1"], ["quant-1"]),
                                ("bob", ["quant-3"], []), ("cy", [], ["quant-3", "quant-1"])):
        document = _student(tmp_path, name, solved, hints, solve)
        (inbox / f"{name}.json").write_text(json.dumps(document))
    (inbox / "notes.json").write_text('{"not": "results"}')
    book = merge_exports(inbox, load_catalog())
    assert [s.student for s in book.students] == ["ada", "bob", "cy"]
    assert any("notes.json" in p for p in book.problems)
    rows = list(csv.DictReader(book.write_csv(tmp_path / "grades.csv").open()))
    assert [(r["student"], r["points"], r["passed"]) for r in rows] == [
        ("ada", "20", "2"), ("bob", "10", "1"), ("cy", "0", "0")]
    # the starter checked untouched is no attempt: the solution is each one's first
    assert rows[0]["quant-3 attempts"] == "1" and rows[2]["quant-1 hints"] == "1"
    summary = {s.id: s for s in book.summaries()}
    assert summary["quant-3"].pass_rate == pytest.approx(2 / 3)
    assert summary["quant-3"].median_attempts == 1
    assert summary["quant-1"].hint_users == 2 and summary["registry-1"].passed == 0


def test_the_newest_export_of_a_student_wins(tmp_path: Path, solve: Solve) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    old = _student(tmp_path, "ada", [], [], solve)
    new = dict(old, exported_at="2999-01-01T00:00:00+00:00", points=99)
    (inbox / "a-old.json").write_text(json.dumps(old))
    (inbox / "b-new.json").write_text(json.dumps(new))
    book = merge_exports(inbox, load_catalog())
    assert len(book.students) == 1 and book.students[0].source.name == "b-new.json"
    assert any("two exports" in p for p in book.problems)


def test_a_folder_without_results_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(GradesError, match="no .json"):
        merge_exports(tmp_path, load_catalog())
    (tmp_path / "x.json").write_text("[1, 2]")
    with pytest.raises(GradesError, match="none of the 1"):
        merge_exports(tmp_path, load_catalog())


def test_a_tampered_entry_is_refused_field_by_field(tmp_path: Path, solve: Solve) -> None:
    document = _student(tmp_path, "eve", [], [], solve)
    document["exercises"][0]["points"] = "lots"
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "eve.json").write_text(json.dumps(document))
    with pytest.raises(GradesError, match="points"):
        merge_exports(inbox, load_catalog())
