"""Lateness in `teacher recheck`'s own outputs (issue 38 §2): when the course's gradebook has an
assignment, the CSV, the late students' feedback pages and the class report say how late each
student handed in against their due date or extension, and the penalty applied; without an
assignment every output keeps its plain layout."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from routerlab.exercises.teacher.class_report import write_report
from routerlab.exercises.teacher.classroom import CheckResult, ExerciseResult, StudentResult
from routerlab.exercises.teacher.feedback import feedback_html, feedback_json
from routerlab.exercises.teacher.gradebook import Row, csv_text
from routerlab.exercises.teacher.gradebook_db import Gradebook, StudentRow
from routerlab.exercises.teacher.recheck import lateness
from routerlab.exercises.teacher.regrade import Late, Outputs, Plan, Planned, late_path, regrade
from routerlab.exercises.teacher.roster import Student

FILE = "exercises/quant_1.py"


def _result(sid: str, folder: str, points: float) -> StudentResult:
    exercise = ExerciseResult("quant-1", "Compute a quantization scale", "implement", points, 10,
                              points == 10, "passed" if points == 10 else "failed",
                              checks=[CheckResult("visible one", False, "passed", "", "1", "1",
                                                  2)], sha256="ab" * 32, file=FILE)
    return StudentResult(sid, folder, [exercise], catalog_version="v1")


def _table(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_the_csv_ends_with_lateness_and_the_lms_grade_is_the_one_after_the_penalty() -> None:
    rows = [Row(Student("ada", "Ada L", "ada@x", "", "SIS-ada"), _result("ada", "/a", 10), "ok",
                "week-1: 1.5 days late against the due date: penalty 20% (2 points off)", 2.0),
            Row(Student("ben", "Ben M", "ben@x", "", "SIS-ben"), _result("ben", "/b", 10), "ok")]
    plain = _table(csv_text(rows, ["quant-1"], 10, "plain", True, late=True))
    assert plain[0][-3:] == ["late", "late_penalty_points", "points_after_late"]
    assert plain[1][4] == "10", "the points column stays the graded points"
    assert plain[1][-3:] == [rows[0].late, "2", "8"]
    assert plain[2][-3:] == ["", "0", "10"]
    assert "late" not in _table(csv_text(rows, ["quant-1"], 10, "plain", True))[0], \
        "no assignment: the plain layout as before"
    canvas = {r[2]: r[5] for r in _table(csv_text(rows, ["quant-1"], 10, "canvas", True))[2:]}
    assert canvas == {"SIS-ada": "8", "SIS-ben": "10"}
    moodle = {r[0]: r[4:] for r in _table(csv_text(rows, ["quant-1"], 10, "moodle", True))[1:]}
    assert moodle["SIS-ada"] == ["80", rows[0].late]
    assert moodle["SIS-ben"] == ["100", ""], "on time: nothing to say"


def test_the_feedback_page_has_one_lateness_line_only_when_late() -> None:
    result = _result("ada", "/a", 10)
    page = feedback_html(result, "week-1: 2.0 h late <b>: penalty 10%")
    assert "<p id='late' class='problem'>Handed in late: week-1: 2.0 h late &lt;b&gt;" in page
    assert "id='late'" not in feedback_html(result)
    assert feedback_json(result, "week-1: 2.0 h late")["late"] == "week-1: 2.0 h late"
    assert "late" not in feedback_json(result)


class _Fake:
    def __init__(self, results: dict[str, StudentResult]) -> None:
        self.results = results

    def run(self, jobs):  # noqa: ANN001, ANN201 - the Executor protocol
        for job in jobs:
            yield self.results[job.student_id]


def _class(tmp_path: Path) -> tuple[Plan, _Fake]:
    rows = []
    results = {}
    for sid in ("ada", "ben"):
        folder = tmp_path / "submitted" / sid
        folder.mkdir(parents=True)
        rows.append(Planned(Student(sid, sid.title(), f"{sid}@x"), folder))
        results[sid] = _result(sid, os.path.abspath(folder), 10)
    rows.append(Planned(Student("cy", "Cy", "cy@x"), None, "no submission"))
    return Plan(rows, tmp_path / "submitted"), _Fake(results)


def test_regrade_writes_what_settle_says_into_the_csv_the_feedback_and_the_report(
        tmp_path: Path) -> None:
    plan, executor = _class(tmp_path)
    grades = tmp_path / "grades"
    grades.mkdir()
    outputs = Outputs.beside(grades / "grades.csv", tmp_path / "feedback")
    said = "week-1: 1.5 days late against the extension 2026-01-02T23:59:59+00:00: penalty " \
           "20% (2 points off)"
    seen = []

    def settle(summary):  # noqa: ANN001, ANN202
        seen.append(sorted(summary.results))
        return {"ada": Late("", 0.0), "ben": Late(said, 2.0), "cy": Late("", 0.0)}

    summary = regrade(plan, outputs, executor, settle=settle)
    assert seen == [["ada", "ben"]], "settle runs once, after everyone is graded"
    table = {r[0]: r for r in _table(outputs.csv.read_text())}
    assert table["id"][-3:] == ["late", "late_penalty_points", "points_after_late"]
    assert table["ben"][-3:] == [said, "2", "8"] and table["ada"][-3:] == ["", "0", "10"]
    assert [r.late for r in summary.rows] == ["", said, ""]
    assert "Handed in late: week-1: 1.5 days late" in (tmp_path / "feedback" / "ben.html"
                                                       ).read_text()
    assert "id='late'" not in (tmp_path / "feedback" / "ada.html").read_text()
    assert json.loads((tmp_path / "feedback" / "ben.json").read_text())["late"] == said
    kept = json.loads(late_path(outputs.journal).read_text())["students"]
    assert kept == [{"id": "ben", "key": "ben", "late": said, "points_lost": 2.0}]

    page = write_report(grades, tmp_path / "report.html")[1].read_text()
    assert "Late hand-ins" in page and "1 students handed in after" in page
    assert "week-1: 1.5 days late against the extension" in page

    regrade(plan, outputs, executor, settle=lambda _: None)  # the course lost its assignment
    assert not late_path(outputs.journal).exists()
    assert "late" not in _table(outputs.csv.read_text())[0]
    assert "Late hand-ins" not in write_report(grades, tmp_path / "r2.html")[1].read_text()


@pytest.fixture
def course(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return "latecourse"


def test_lateness_is_the_gradebooks_against_the_due_date_or_the_extension(
        course: str, tmp_path: Path) -> None:
    plan, _ = _class(tmp_path)
    with Gradebook.of_course(course) as book:
        book.set_roster([StudentRow(s, s.title(), f"{s}@x", "", "") for s in ("ada", "ben", "cy")])
        book.set_assignment("week-1", ["quant-1"], "2026-01-01T00:00:00+00:00",
                            "2026-01-10T00:00:00+00:00", {"kind": "per_day", "percent": 10.0})
        book.add_extension("ada", "week-1", "2026-01-12T00:00:00+00:00")
        # ada hands in 1 day after the due date but within her extension; ben 36 h late
        book.add_collection("ada", "hub", "", {FILE: ("ab" * 32, "2026-01-11T00:00:00+00:00")})
        book.add_collection("ben", "hub", "", {FILE: ("ab" * 32, "2026-01-11T12:00:00+00:00")})
        book.add_run("t", "v1", {"quant-1": 10},
                     [(s, True, "ok", {"quant-1": (10.0, FILE)}) for s in ("ada", "ben")]
                     + [("cy", False, "no submission", {})])
    late = lateness(course, plan)
    assert late is not None
    assert late["ada"] == Late("", 0.0)
    assert late["ben"] == Late("week-1: 1.5 days late against the due date "
                               "2026-01-10T00:00:00+00:00: penalty 20% (2 points off)", 2.0)
    assert late["cy"] == Late("", 0.0), "nothing handed in: nothing late"


def test_a_gradebook_without_an_assignment_gives_no_lateness(course: str,
                                                              tmp_path: Path) -> None:
    plan, _ = _class(tmp_path)
    with Gradebook.of_course(course) as book:
        book.add_run("t", "v1", {"quant-1": 10}, [("ada", True, "ok", {"quant-1": (10.0, FILE)})])
    assert lateness(course, plan) is None
