"""The gradebook's views: `teacher export OUT --format csv|canvas|moodle|json`, read from the
database alone (no regrade, no student file read), so any layout of any term is seconds away.

Every grade is the computed one (`routerlab.exercises.teacher.gradebook_grades`): late
penalties and overrides are in the points an LMS imports. The LMS layouts are those of
`routerlab.exercises.teacher.gradebook` (Canvas's Gradebook import; Moodle's CSV grade import),
with two rules an import needs:

- Every row must name the student as the LMS knows them. A row without an LMS id is refused,
  naming the rows (Moodle stops a whole import at one unmatched user, and Canvas skips the row),
  unless `by_email`: the rows are then matched on the email (Canvas's `SIS Login ID`, Moodle's
  "Email address" mapping). One LMS id on two rows is refused too.
- Moodle's feedback column is written only where there is something to say (not graded, late,
  overridden); a plain row leaves it empty, so the import leaves the student's feedback alone.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from ..engine.scoring import grade_number
from ..errors import GradesError
from ..files import check_target, write_text
from .gradebook import ASSIGNMENT, CANVAS_COLUMNS, MOODLE_COLUMNS, MOODLE_GRADE, neutral
from .gradebook_db import Gradebook, now
from .gradebook_grades import StudentGrade, grades

EXPORTS = ("csv", "canvas", "moodle", "json")
EXPORT_FORMAT = "routerlab-gradebook-export"
MOODLE_FEEDBACK = f"{ASSIGNMENT} feedback"


def export(book: Gradebook, course_id: str, out: Path, fmt: str, by_email: bool = False) -> int:
    """Write the view `fmt` of the gradebook to `out` (whole or not at all); the students in
    it. GradesError (nothing written) for an unknown format, a gradebook never graded, or rows
    an LMS could not match."""
    if fmt not in EXPORTS:
        raise GradesError(f"unknown format {fmt!r}: use one of {', '.join(EXPORTS)}")
    check_target(out, "export", GradesError)
    exercise_ids, rows = grades(book)
    if not exercise_ids:
        raise GradesError(f"the gradebook of {course_id} holds no grading run yet: "
                          "`teacher recheck ... --course " + course_id + "` records one")
    if fmt in ("canvas", "moodle"):
        _check_lms(rows, by_email)
    text = (json.dumps(_json(course_id, exercise_ids, rows), indent=1) + "\n" if fmt == "json"
            else _csv(_table(fmt, exercise_ids, rows, by_email)))
    write_text(out, text, "export", GradesError)
    return len(rows)


def _check_lms(rows: list[StudentGrade], by_email: bool) -> None:
    key = "email" if by_email else "LMS id"
    ids = [(r.student.email if by_email else r.student.lms_id) for r in rows]
    lacking = [r.student.id for r, i in zip(rows, ids, strict=True) if not i]
    if lacking:
        fix = ("add their emails to the roster" if by_email else
               "add an lms_id column to the roster (`teacher release --roster` or `recheck "
               "--roster` records it), or match on emails with --by-email")
        raise GradesError(f"{len(lacking)} row(s) have no {key}, so the LMS could not match "
                          f"them: {', '.join(lacking[:10])}{' ...' if len(lacking) > 10 else ''}"
                          f"; {fix}")
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise GradesError(f"one {key} on several rows: {', '.join(twice[:10])}; an LMS would "
                          "give one student another's grade")


def _table(fmt: str, exercise_ids: list[str], rows: list[StudentGrade],
           by_email: bool) -> list[list[Any]]:
    total = sum(e.possible for e in rows[0].exercises) if rows and rows[0].exercises else 0
    if fmt == "csv":
        table: list[list[Any]] = [["id", "name", "email", "section", "lms_id", "points",
                                   "points_possible", "status", "late_penalty_points", "notes",
                                   *exercise_ids]]
        for r in rows:
            by_id = {e.id: e for e in r.exercises}
            table.append([r.student.id, r.student.name, r.student.email, r.student.section,
                          r.student.lms_id, grade_number(r.points) if r.graded else "",
                          r.possible or total, r.status,
                          grade_number(sum(late.points_lost for late in r.late)),
                          "; ".join(r.notes()),
                          *[grade_number(by_id[i].points) if i in by_id else ""
                            for i in exercise_ids]])
        return table
    if fmt == "canvas":
        table = [[*CANVAS_COLUMNS, f"{ASSIGNMENT} ({total} points)"],
                 ["Points Possible", "", "", "", "", total]]
        for r in rows:
            s = r.student
            table.append([s.name, "", "" if by_email else s.lms_id, s.email, s.section,
                          grade_number(r.points) if r.graded else ""])
        return table
    table = [[*MOODLE_COLUMNS, MOODLE_GRADE, MOODLE_FEEDBACK]]
    for r in rows:
        first, _, last = r.student.name.partition(" ")
        percent = grade_number(round(100 * r.points / total, 2)) if total else 0
        table.append(["" if by_email else r.student.lms_id, r.student.email, first, last,
                      percent if r.graded else "", "; ".join(r.notes())])
    return table


def _csv(table: list[list[Any]]) -> str:
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    for line in table:
        writer.writerow([neutral(cell) for cell in line])
    return out.getvalue()


def _json(course_id: str, exercise_ids: list[str], rows: list[StudentGrade]) -> dict[str, Any]:
    return {"format": EXPORT_FORMAT, "course": course_id, "exported_at": now(),
            "exercises": exercise_ids,
            "students": [{"id": r.student.id, "name": r.student.name, "email": r.student.email,
                          "section": r.student.section, "lms_id": r.student.lms_id,
                          "graded": r.graded, "status": r.status, "points": r.points,
                          "points_possible": r.possible,
                          "exercises": {e.id: e.points for e in r.exercises},
                          "overrides": {e.id: e.override for e in r.exercises if e.override},
                          "late": [{"assignment": late.assignment, "due": late.due,
                                    "handed_in": late.handed_in, "extended": late.extended,
                                    "penalty_percent": late.penalty,
                                    "points_lost": late.points_lost} for late in r.late],
                          "notes": r.notes()} for r in rows]}
