"""`teacher export` from the gradebook, against the documented import formats: Canvas's Gradebook
CSV (tests/exercises/lms/canvas_gradebook.csv, the layout Canvas's own export writes and its
import reads) and Moodle's CSV grade import (tests/exercises/lms/moodle_course.json: the users
`gradeimport_csv_load_data::prepare_import_grade_data` can match, and the grade item's range).
Penalties and overrides are in the grade an LMS imports; rows it could not match are refused."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from routerlab.exercises.catalog import Catalog, load_catalog
from routerlab.exercises.errors import GradesError
from routerlab.exercises.teacher import gradebook_term as term
from routerlab.exercises.teacher.roster import Student

LMS = Path(__file__).parent / "lms"
TOTAL = load_catalog().total_points
COURSE = "lms-2027"


@pytest.fixture
def course(graded_course: Callable[[str, dict[str, float]], Catalog]) -> Iterator[str]:
    """ada graded in full; ben on quant-1 only, collected two days after hw1's due date."""
    catalog = graded_course(COURSE, {"quant-1": 10.0, "quant-2": 10.0})
    term.set_assignment(COURSE, "hw1", ["quant-1"], catalog, "2027-03-01", late="10%/day")
    term.record_collection(COURSE, "ben", "http://127.0.0.1:1", "",
                           {"exercises/quant_1.py": ("0" * 64, "2027-03-03T08:00:00+00:00")})
    yield COURSE


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def canvas_import(path: Path) -> dict[str, float | None]:
    """What Canvas's Gradebook import takes from `path`, checked against the layout of the
    fixture: the same identity columns, a Points Possible row, one assignment column; each row
    matched on SIS User ID, else SIS Login ID, to a student of the course."""
    fixture, ours = _rows(LMS / "canvas_gradebook.csv"), _rows(path)
    assert ours[0][:5] == fixture[0][:5] and len(ours[0]) == len(fixture[0])
    assert ours[0][5] == f"RouterLab exercises ({TOTAL} points)"
    assert fixture[0][5].startswith("RouterLab exercises (")  # Canvas names the points in it
    assert ours[1][0].strip() == fixture[1][0].strip() == "Points Possible"
    assert float(ours[1][5]) == TOTAL
    people = {row[2]: row for row in fixture[2:]} | {row[3]: row for row in fixture[2:]}
    imported: dict[str, float | None] = {}
    for row in ours[2:]:
        match = people.get(row[2]) or people.get(row[3])
        assert match is not None, f"Canvas matches no student for {row}"
        imported[match[2]] = float(row[5]) if row[5] else None
    return imported


def moodle_import(path: Path, by: str) -> dict[str, tuple[float | None, str]]:
    """Moodle's CSV grade import with "Identify user by" mapped from `by`'s column: one
    unmatched row stops the whole import; a grade outside the item's range is refused."""
    course: dict[str, Any] = json.loads((LMS / "moodle_course.json").read_text())
    rows = _rows(path)
    header = rows[0]
    key = header.index(course["map_from"][by])
    grade = header.index("RouterLab exercises (%)")
    feedback = header.index(course["feedback_column"])
    users = {u[by]: u for u in course["users"]}
    imported: dict[str, tuple[float | None, str]] = {}
    for row in rows[1:]:
        if row[key] not in users:
            raise AssertionError(f"user mapping error: {row[key]!r}; the import stops")
        value = float(row[grade]) if row[grade] else None
        item = course["grade_item"]
        assert value is None or item["grademin"] <= value <= item["grademax"]
        imported[users[row[key]]["idnumber"]] = (value, row[feedback])
    return imported


def test_the_canvas_file_imports_with_the_late_penalty_and_the_override(course: str,
                                                                        tmp_path: Path) -> None:
    term.override(course, "ada", "flow-1", 5, "handed in after the solutions were out")
    term.export_course(course, tmp_path / "canvas.csv", "canvas")
    imported = canvas_import(tmp_path / "canvas.csv")
    assert imported == {"L-1": TOTAL - 5.0, "L-2": 18.0}, "ada -5 overridden, ben -20% of hw1"


def test_the_moodle_file_imports_in_percent_with_feedback_only_where_there_is_some(
        course: str, tmp_path: Path) -> None:
    term.export_course(course, tmp_path / "moodle.csv", "moodle")
    imported = moodle_import(tmp_path / "moodle.csv", "idnumber")
    assert imported["L-1"] == (100.0, ""), "a plain row says nothing"
    assert imported["L-2"][0] == round(100 * 18 / TOTAL, 2)
    assert "late" in imported["L-2"][1] and "-20%" in imported["L-2"][1]


def test_rows_without_an_lms_id_are_refused_by_name_or_matched_on_email(
        course: str, tmp_path: Path) -> None:
    term.record_roster(course, [Student("ben", "Ben M", "ben@x.org", "B", "")])
    for fmt in ("canvas", "moodle"):
        with pytest.raises(GradesError, match=r"1 row\(s\) have no LMS id.*ben.*--by-email"):
            term.export_course(course, tmp_path / f"{fmt}.csv", fmt)
        assert not (tmp_path / f"{fmt}.csv").exists()
    term.export_course(course, tmp_path / "moodle.csv", "moodle", by_email=True)
    assert set(moodle_import(tmp_path / "moodle.csv", "email")) == {"L-1", "L-2"}
    term.export_course(course, tmp_path / "canvas.csv", "canvas", by_email=True)
    assert set(canvas_import(tmp_path / "canvas.csv")) == {"L-1", "L-2"}


def test_one_lms_id_on_two_rows_is_refused(course: str, tmp_path: Path) -> None:
    term.record_roster(course, [Student("ben", "Ben M", "ben@x.org", "B", "L-1")])
    with pytest.raises(GradesError, match="one LMS id on several rows: L-1"):
        term.export_course(course, tmp_path / "canvas.csv", "canvas")


def test_csv_and_json_views_hold_the_same_grades_in_catalog_order(course: str,
                                                                   tmp_path: Path) -> None:
    term.export_course(course, tmp_path / "grades.csv", "csv")
    term.export_course(course, tmp_path / "grades.json", "json")
    rows = _rows(tmp_path / "grades.csv")
    ids = [e.id for e in load_catalog()]
    assert rows[0][10:] == ids
    data = json.loads((tmp_path / "grades.json").read_text())
    assert data["exercises"] == ids
    by_id = {s["id"]: s for s in data["students"]}
    assert [float(r[5]) for r in rows[1:]] == [by_id["ada"]["points"], by_id["ben"]["points"]]
    assert by_id["ben"]["late"][0]["penalty_percent"] == 20


def test_an_export_reads_the_database_only(course: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """No regrade: the grading functions are never called."""
    from routerlab.exercises.teacher import classroom

    def no(*_: object, **__: object) -> None:
        raise AssertionError("an export graded")

    monkeypatch.setattr(classroom, "grade_student", no)
    monkeypatch.setattr(classroom, "catalog_at", no)
    assert term.export_course(course, tmp_path / "g.json", "json") == 2
