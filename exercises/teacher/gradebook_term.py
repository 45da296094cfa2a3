"""The term's commands on a course's gradebook, one function each (the CLI's `teacher
assignment`, `override`, `extension`, `history`, `export`), and what `release`, `recheck` and
`collect` record into it.

Every function checks everything it was given (the course, the student, the exercise, the
assignment, each date) before its one transaction, so a refusal is one line and leaves the
database as it was. A course's gradebook exists once the course does (`teacher release --course
C` made its secret); a course id nobody released is refused, never made into an empty file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import __version__
from ..authoring.bundle import _check_id
from ..catalog import Catalog
from ..errors import GradesError
from .gradebook_db import Gradebook, StudentRow, db_path
from .gradebook_export import export
from .gradebook_grades import describe_policy, grade_of, parse_policy, parse_when
from .roster import Student


def open_course(course_id: str) -> Gradebook:
    """The course's gradebook; GradesError for an id that is no course of this teacher."""
    _check_id(course_id, "course id", GradesError)
    path = db_path(course_id)
    if not path.is_file() and not (path.parent / "secret.toml").is_file():
        raise GradesError(f"no course {course_id!r} in {path.parent.parent}: `teacher release "
                          f"OUT --course {course_id}` makes it")
    return Gradebook(path)


def release_course(catalog: Catalog, out: Path, course_id: str, title: str, hints: int,
                   roster: Path | None) -> tuple[Any, int | None]:
    """`teacher release`: the bundle, and with a roster each student's variant and their row
    in the course's gradebook; (the course's info, how many students or None)."""
    from ..authoring.bundle import release
    from .roster import read_roster

    students = read_roster(roster) if roster is not None else None
    info = release(catalog, out, course_id, title, hints,
                   [s.id for s in students] if students is not None else None)
    if students is not None:
        record_roster(course_id, students)
    return info, len({s.id for s in students}) if students is not None else None


def record_roster(course_id: str, students: Iterable[Student]) -> None:
    with open_course(course_id) as book:
        book.set_roster([StudentRow(s.id, s.name, s.email, s.section, s.lms_id)
                         for s in students])


def record_run(course_id: str, catalog: Catalog, version: str,
               students: Sequence[tuple[Student, Any, str]]) -> int:
    """One grading run: each (student, their `StudentResult` or None, status); the run's id."""
    rows = []
    for student, result, status in students:
        graded = result is not None and not result.error
        points = {e.id: (e.points, e.file) for e in result.exercises} if graded else {}
        rows.append((student.id, graded, status, points))
    with open_course(course_id) as book:
        return book.add_run(__version__, version, {e.id: e.points for e in catalog}, rows)


def record_collection(course_id: str, student: str, hub: str, server_state: str,
                      files: dict[str, tuple[str, str]]) -> None:
    with open_course(course_id) as book:
        book.add_collection(student, hub, server_state, files)


@dataclass(frozen=True)
class AssignmentSet:
    id: str
    exercises: list[str]
    opens: str
    due: str
    policy: str


def set_assignment(course_id: str, assignment_id: str, exercises: list[str], catalog: Catalog,
                   due: str, opens: str | None = None, late: str = "none",
                   cap: float | None = None, zero_after: str | None = None) -> AssignmentSet:
    """Make or change an assignment: its exercises (catalog ids), dates and late policy."""
    _check_id(assignment_id, "assignment id", GradesError)
    known = {e.id for e in catalog}
    unknown = [e for e in exercises if e not in known]
    if not exercises or unknown:
        raise GradesError(f"--exercises: {', '.join(unknown) or 'none given'}: not exercises of "
                          "the catalog (`routerlab exercises list` names them)")
    due_at = parse_when(due, "--due")
    opens_at = parse_when(opens, "--opens") if opens else ""
    policy = parse_policy(late, cap, zero_after)
    if opens_at and opens_at > due_at:
        raise GradesError(f"--opens {opens_at} is after --due {due_at}")
    ordered = [e.id for e in catalog if e.id in set(exercises)]
    with open_course(course_id) as book:
        book.set_assignment(assignment_id, ordered, opens_at, due_at, policy)
    return AssignmentSet(assignment_id, ordered, opens_at, due_at, describe_policy(policy))


@dataclass(frozen=True)
class Overridden:
    student: str
    exercise: str
    old: float
    new: float
    points: float
    """The student's grade now."""


def override(course_id: str, student_id: str, exercise_id: str, points: float,
             reason: str) -> Overridden:
    """Set one exercise's points by hand, with a reason; the student must have been graded."""
    if not reason.strip():
        raise GradesError("--reason: say why (the student's history and feedback show it)")
    with open_course(course_id) as book:
        student = _student(book, student_id)
        before = grade_of(book, student)
        if not before.exercises:
            raise GradesError(f"{student_id} was never graded: an override changes a grade, "
                              "run `teacher recheck` first")
        found = {e.id: e for e in before.exercises}
        if exercise_id not in found:
            raise GradesError(f"{exercise_id!r} is not an exercise of the last grading run "
                              f"({', '.join(list(found)[:5])}, ...)")
        most = found[exercise_id].possible
        if not 0 <= points <= most:
            raise GradesError(f"{points:g} points: {exercise_id} is worth 0 to {most}")
        old = found[exercise_id].points
        book.add_override(student.id, exercise_id, old, points, reason.strip())
        return Overridden(student.id, exercise_id, old, points, grade_of(book, student).points)


def extend(course_id: str, student_id: str, assignment_id: str, due: str) -> str:
    """A new due date for one student and assignment; the date as kept."""
    due_at = parse_when(due, "--due")
    with open_course(course_id) as book:
        _student(book, student_id)
        book.check_assignment(assignment_id)
        book.add_extension(student_id, assignment_id, due_at)
    return due_at


def _student(book: Gradebook, student_id: str) -> StudentRow:
    """A roster student, or one a run graded or a collect copied without a roster."""
    if book.rows("SELECT 1 FROM students WHERE id = ?", student_id):
        return book.student(student_id)
    if book.rows("SELECT 1 FROM run_students WHERE student = ? UNION "
                 "SELECT 1 FROM collections WHERE student = ?", student_id, student_id):
        return StudentRow(student_id, "", "", "", "")
    return book.student(student_id)  # refused, naming the gradebook


def history(course_id: str, student_id: str) -> list[dict[str, Any]]:
    """Every collection, grading run, override and extension of one student, oldest first."""
    with open_course(course_id) as book:
        _student(book, student_id)
        events: list[tuple[str, int, int, dict[str, Any]]] = []
        for number, at, hub, state in book.rows(
                "SELECT id, at, hub, server_state FROM collections WHERE student = ?", student_id):
            files = {p: {"sha256": s, "modified": m} for p, s, m in book.rows(
                "SELECT path, sha256, modified FROM collection_files WHERE collection = ? "
                "ORDER BY path", number)}
            events.append((at, 0, number, {"kind": "collection", "at": at, "hub": hub,
                                           "server_state": state, "files": files}))
        for run, at, version, catalog, graded, status in book.rows(
                "SELECT r.id, r.at, r.routerlab, r.catalog_version, rs.graded, rs.status FROM "
                "runs r JOIN run_students rs ON rs.run = r.id WHERE rs.student = ?", student_id):
            points = dict(book.rows("SELECT exercise, points FROM run_points WHERE run = ? AND "
                                    "student = ?", run, student_id))
            events.append((at, 1, run, {"kind": "grading", "at": at, "run": run,
                                        "routerlab": version, "catalog_version": catalog,
                                        "graded": bool(graded), "status": status,
                                        "points": round(sum(points.values()), 2),
                                        "exercises": points}))
        for number, at, exercise, old, new, reason, by in book.rows(
                "SELECT id, at, exercise, old, new, reason, who FROM overrides WHERE student = ?",
                student_id):
            events.append((at, 2, number, {"kind": "override", "at": at, "exercise": exercise,
                                           "old": old, "new": new, "reason": reason, "who": by}))
        for number, at, assignment, due, by in book.rows(
                "SELECT id, at, assignment, due, who FROM extensions WHERE student = ?",
                student_id):
            events.append((at, 3, number, {"kind": "extension", "at": at,
                                           "assignment": assignment, "due": due, "who": by}))
        grade = grade_of(book, _student(book, student_id))
    out = [event for *_, event in sorted(events, key=lambda e: (e[0], e[1], e[2]))]
    out.append({"kind": "grade", "points": grade.points, "points_possible": grade.possible,
                "graded": grade.graded, "notes": grade.notes()})
    return out


def export_course(course_id: str, out: Path, fmt: str, by_email: bool = False) -> int:
    with open_course(course_id) as book:
        return export(book, course_id, out, fmt, by_email)


def describe_event(event: dict[str, Any]) -> str:
    """One line of a student's history, as the terminal shows it."""
    kind = event["kind"]
    if kind == "collection":
        latest = max((f["modified"] for f in event["files"].values()), default="")
        return (f"{event['at']}  collected {len(event['files'])} files from {event['hub']}"
                + (f" (newest {latest})" if latest else ""))
    if kind == "grading":
        return (f"{event['at']}  graded (run {event['run']}, RouterLab {event['routerlab']}, "
                f"catalog {event['catalog_version']}): {event['points']:g} points, "
                f"{event['status']}")
    if kind == "override":
        return (f"{event['at']}  {event['exercise']}: {event['old']:g} -> {event['new']:g} "
                f"points by {event['who']}: {event['reason']}")
    if kind == "extension":
        return f"{event['at']}  extension of {event['assignment']} to {event['due']}"
    notes = "; ".join(event["notes"])
    return (f"grade now: {event['points']:g} of {event['points_possible']} points"
            + (f" ({notes})" if notes else ""))


def dumps(events: list[dict[str, Any]]) -> str:
    return json.dumps(events, indent=1)
