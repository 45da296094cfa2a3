"""A student's grade, computed from the gradebook's record, never stored: the last grading run,
any override (the newest per exercise wins, whatever run came after it: it is the teacher's word),
then each assignment's late policy against the student's due date or extension.

Lateness is measured on what the hub reported: the newest modification time, in the student's
latest collection, of a file graded for one of the assignment's exercises. A student never
collected off a hub is not late (the grade says "no hand-in time"). A policy is none, a
percentage per started day or hour (`10%/day`), at most `cap` percent, and zero after a date.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import GradesError
from .gradebook_db import Gradebook, StudentRow

DATE_FORMS = "YYYY-MM-DD (the end of that day, UTC) or YYYY-MM-DDTHH:MM[+HH:MM] (UTC if no zone)"
UNITS = {"day": 86400, "hour": 3600}


def parse_when(text: str, what: str = "date") -> str:
    """An ISO 8601 date as the gradebook keeps it (UTC, seconds); GradesError names the forms."""
    raw = text.strip()
    try:
        if len(raw) == 10:
            moment = datetime.fromisoformat(raw).replace(tzinfo=UTC) + timedelta(
                hours=23, minutes=59, seconds=59)
        else:
            moment = datetime.fromisoformat(raw)
    except ValueError:
        raise GradesError(f"{what} {text[:40]!r} is not a date: use {DATE_FORMS}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def parse_policy(late: str, cap: float | None, zero_after: str | None) -> dict[str, Any]:
    """`none`, `P%/day` or `P%/hour`, with a cap and a date after which the work earns 0."""
    policy: dict[str, Any] = {"kind": "none"}
    text = late.strip().lower().replace(" ", "")
    if text != "none":
        rate, _, unit = text.partition("%/")
        try:
            percent = float(rate)
        except ValueError:
            percent = -1.0
        if unit not in UNITS or not 0 < percent <= 100:
            raise GradesError(f"--late {late[:40]!r}: use none, P%/day or P%/hour "
                              "(0 < P <= 100), e.g. 10%/day")
        policy = {"kind": f"per_{unit}", "percent": percent}
    if cap is not None:
        if not 0 <= cap <= 100:
            raise GradesError(f"--cap {cap:g}: a cap is a percentage from 0 to 100")
        policy["cap"] = cap
    if zero_after:
        policy["zero_after"] = parse_when(zero_after, "--zero-after")
    return policy


def describe_policy(policy: dict[str, Any]) -> str:
    kind = policy.get("kind", "none")
    text = "no late penalty" if kind == "none" else \
        f"{policy['percent']:g}% per {kind.removeprefix('per_')} late"
    text += f", at most {policy['cap']:g}%" if "cap" in policy else ""
    return text + (f", 0 after {policy['zero_after']}" if "zero_after" in policy else "")


@dataclass
class Lateness:
    assignment: str
    due: str
    handed_in: str
    """The newest hub time of the assignment's files ("" when never collected)."""
    extended: bool
    penalty: float
    """Percent taken off the assignment's points."""
    points_lost: float = 0.0

    @property
    def late_by(self) -> str:
        if not self.handed_in:
            return ""
        seconds = (datetime.fromisoformat(self.handed_in)
                   - datetime.fromisoformat(self.due)).total_seconds()
        if seconds <= 0:
            return ""
        return f"{seconds / 86400:.1f} days" if seconds >= 86400 else f"{seconds / 3600:.1f} h"


@dataclass
class ExerciseGrade:
    id: str
    points: float
    possible: int
    graded_points: float
    override: str = ""
    """'old → new (reason)' when the teacher overrode it."""


@dataclass
class StudentGrade:
    student: StudentRow
    graded: bool
    status: str
    exercises: list[ExerciseGrade] = field(default_factory=list)
    late: list[Lateness] = field(default_factory=list)

    @property
    def possible(self) -> int:
        return sum(e.possible for e in self.exercises)

    @property
    def points(self) -> float:
        before = sum(e.points for e in self.exercises)
        return round(max(0.0, before - sum(late.points_lost for late in self.late)), 2)

    def notes(self) -> list[str]:
        """What a student's feedback says beyond the points: empty when all is plain."""
        out = [] if self.status == "ok" else [self.status]
        out += [f"{e.id}: {e.override}" for e in self.exercises if e.override]
        out += [f"{late.assignment}: handed in {late.late_by} late"
                f"{' (extended due date)' if late.extended else ''}, -{late.penalty:g}% "
                f"(-{late.points_lost:g} points)" for late in self.late if late.penalty]
        return out


def grades(book: Gradebook) -> tuple[list[str], list[StudentGrade]]:
    """The exercise ids of the last run (catalog order) and every student's grade: the roster's
    order, then any graded student not on it."""
    last = book.rows("SELECT id, exercises FROM runs ORDER BY id DESC LIMIT 1")
    exercise_ids = json.loads(last[0][1]) if last else []
    students = book.students()
    known = {s.id for s in students}
    students += [StudentRow(sid, "", "", "", "") for (sid,) in book.rows(
        "SELECT DISTINCT student FROM run_students ORDER BY student") if sid not in known]
    return exercise_ids, [grade_of(book, s) for s in students]


def grade_of(book: Gradebook, student: StudentRow) -> StudentGrade:
    found = book.rows("SELECT rs.run, rs.graded, rs.status, r.possible FROM run_students rs "
                      "JOIN runs r ON r.id = rs.run WHERE rs.student = ? ORDER BY rs.run DESC "
                      "LIMIT 1", student.id)
    if not found:
        return StudentGrade(student, False, "not graded yet")
    run, graded, status, possible = found[0]
    points = {e: (p, f) for e, p, f in book.rows(
        "SELECT exercise, points, file FROM run_points WHERE run = ? AND student = ?",
        run, student.id)}
    overrides = {e: (old, new, reason) for e, old, new, reason in book.rows(
        "SELECT exercise, old, new, reason FROM overrides WHERE student = ? ORDER BY id",
        student.id)}
    exercises = []
    for exercise_id, most in json.loads(possible).items():
        got = points.get(exercise_id, (0.0, ""))[0]
        grade = ExerciseGrade(exercise_id, got, int(most), got)
        if exercise_id in overrides:
            old, new, reason = overrides[exercise_id]
            grade.points = new
            grade.override = f"{_num(old)} -> {_num(new)} by the teacher ({reason})"
        exercises.append(grade)
    result = StudentGrade(student, bool(graded), status, exercises)
    files = {e: f for e, (_, f) in points.items()}
    result.late = _lateness(book, student.id, {e.id: e.points for e in exercises}, files)
    return result


def _num(value: float | None) -> str:
    return "none" if value is None else f"{value:g}"


def _lateness(book: Gradebook, student: str, points: dict[str, float],
              files: dict[str, str]) -> list[Lateness]:
    latest = book.rows("SELECT id FROM collections WHERE student = ? ORDER BY id DESC LIMIT 1",
                       student)
    times = dict(book.rows("SELECT path, modified FROM collection_files WHERE collection = ?",
                           latest[0][0])) if latest else {}
    out = []
    for assignment, due, policy_text in book.rows(
            "SELECT id, due, policy FROM assignments ORDER BY position"):
        exercises = [e for (e,) in book.rows("SELECT exercise FROM assignment_exercises WHERE "
                                             "assignment = ? ORDER BY position", assignment)]
        extended = book.rows("SELECT due FROM extensions WHERE student = ? AND assignment = ? "
                             "ORDER BY id DESC LIMIT 1", student, assignment)
        own_due = extended[0][0] if extended else due
        stamps = [times[files[e]] for e in exercises if files.get(e) in times
                  and times[files[e]]]
        handed_in = max(stamps, key=datetime.fromisoformat) if stamps else ""
        late = Lateness(assignment, own_due, handed_in, bool(extended),
                        penalty(json.loads(policy_text), own_due, handed_in))
        late.points_lost = round(sum(points.get(e, 0.0) for e in exercises)
                                 * late.penalty / 100, 2)
        out.append(late)
    return out


def penalty(policy: dict[str, Any], due: str, handed_in: str) -> float:
    """The percent a hand-in at `handed_in` loses against `due` under `policy`."""
    if not handed_in:
        return 0.0
    moment = datetime.fromisoformat(handed_in)
    if "zero_after" in policy and moment > datetime.fromisoformat(policy["zero_after"]):
        return 100.0
    late = (moment - datetime.fromisoformat(due)).total_seconds()
    if late <= 0 or policy.get("kind", "none") == "none":
        return 0.0
    started = math.ceil(late / UNITS[policy["kind"].removeprefix("per_")])
    return min(float(policy.get("cap", 100.0)), 100.0, started * float(policy["percent"]))
