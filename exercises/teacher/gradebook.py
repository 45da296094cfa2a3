"""The grades a regrade writes: a CSV an LMS imports, a digest file, a journal to resume from.

Formats (`--format`), each one a published import layout:
- `plain`: the roster id first, then name, email, section, points, points possible, exercises
  passed, a status ("ok", or why the student could not be graded), one column per exercise. A
  student graded nothing (no submission, grading failed) has 0 points and the status says why.
  Graded with `--no-isolation`, its first row is a warning, above the header. A course whose
  gradebook has an assignment adds `late`, `late_penalty_points` and `points_after_late` last.
- `canvas`: Canvas's Gradebook import: `Student, ID, SIS User ID, SIS Login ID, Section`, then one
  column per assignment, and a `Points Possible` row under the header. The roster's LMS id
  (`lms_id`, else its id) goes in `SIS User ID`, which Canvas matches students on; the email in
  `SIS Login ID`; `ID` (Canvas's own number) stays empty. Points out of the course's total.
- `moodle`: Moodle's CSV grade import: `ID number, Email address, First name, Last name`, then
  the grade as a *percentage* of the course's points (0 to 100, Moodle's default maximum for a
  grade item, so the import never refuses one as above the maximum) and the status where there
  is something to say (empty for "ok", so the import leaves a plain row's feedback alone), which
  the import page can map to the item's feedback. "ID number" holds the LMS id (else the id).

In the LMS layouts a student with nothing graded (no submission, or grading that failed) has an
empty grade, never 0: both imports then leave that grade alone, and the plain CSV and the summary
say why. Neither LMS layout holds anything above its header.

Every text cell is neutralised for spreadsheets: a leading `= + - @`, tab or carriage return gets
a `'` in front, and so does any of them after a `;` or `,` inside the cell, since a
spreadsheet whose locale splits on `;` cuts a quoted field there and runs what follows.

The digest file (`NAME.sha256`, `sha256sum` format) names every graded file by its path relative
to the submissions folder, and the CSV too, so `cd SUBMISSIONS && sha256sum -c DIGEST` shows any
later edit of either; its first line records the catalog version the grades were computed with.

The journal (`NAME.jsonl`) holds one `StudentResult` per line, appended and flushed as each
student is graded; beside it `NAME.class.json` lists every row of the class (those with no
submission too). The CSV is rewritten after each student, through a temporary file and a
rename. A full disk never leaves
half a record behind: a failed append is cut back, and a line torn by a crash is skipped when the
journal is read and cut off before `--resume` appends to it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.base.safe_io import load_json
from ..engine.scoring import grade_number
from ..errors import GradesError
from ..files import describe, write_text
from .classroom import StudentResult
from .roster import Student

FORMATS = ("plain", "canvas", "moodle")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("ID number", "Email address", "First name", "Last name")
ASSIGNMENT = "RouterLab exercises"
MOODLE_GRADE = f"{ASSIGNMENT} (%)"
MOODLE_FEEDBACK = f"{ASSIGNMENT} feedback"
PLAN_FORMAT = "routerlab-class-plan"
UNISOLATED_NOTE = ("WARNING: graded with --no-isolation: student code ran outside the OS jail, "
                   "so a student could have changed these grades")
_RUNNABLE = re.compile(r"([;,]\s*)([=+\-@\t\r])")


def neutral(value: Any) -> Any:
    """A cell a spreadsheet shows as text (see the module docstring); numbers unchanged."""
    if not isinstance(value, str):
        return value
    value = _RUNNABLE.sub(r"\1'\2", value)
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


@dataclass(frozen=True)
class Row:
    """One student in the gradebook: the roster's identity and the regrade's result."""

    student: Student
    result: StudentResult | None
    status: str
    late: str = ""
    """How late the work was handed in and what it cost, from the course's gradebook
    (`routerlab.exercises.teacher.gradebook_grades`); "" when on time or there is no due date."""
    late_points: float = 0.0
    """The points the late policy takes off."""

    @property
    def graded(self) -> bool:
        """Whether anything was graded (a result without an error)."""
        return self.result is not None and not self.result.error

    @property
    def points(self) -> float:
        return self.result.points if self.result and not self.result.error else 0.0

    @property
    def grade(self) -> float:
        """The points after any late penalty: what an LMS is given."""
        return round(max(0.0, self.points - self.late_points), 2)

    @property
    def lms_id(self) -> str:
        return self.student.lms_id or self.student.id


def csv_text(rows: list[Row], exercise_ids: list[str], total: int, fmt: str,
             isolated: bool, late: bool = False) -> str:
    """The gradebook in `fmt`; rows keep the roster's order (see the module docstring).
    `late` (the course's gradebook has an assignment): the plain layout ends with the columns
    `late`, `late_penalty_points` and `points_after_late`; the LMS layouts' grade is always
    the one after the penalty."""
    if fmt not in FORMATS:
        raise GradesError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    lines: list[list[Any]] = []
    if fmt == "plain":
        lines += [] if isolated else [[UNISOLATED_NOTE]]
        lines.append(["id", "name", "email", "section", "points", "points_possible", "passed",
                      "status", *exercise_ids,
                      *(("late", "late_penalty_points", "points_after_late") if late else ())])
        for row in rows:
            by_id = {e.id: e for e in (row.result.exercises if row.result else [])}
            lines.append([row.student.id, row.student.name, row.student.email,
                          row.student.section, grade_number(row.points), total,
                          sum(e.passed for e in by_id.values()), row.status,
                          *[grade_number(by_id[i].points) if i in by_id else "" for i in
                            exercise_ids],
                          *((row.late, grade_number(row.late_points), grade_number(row.grade))
                            if late else ())])
    elif fmt == "canvas":
        lines.append([*CANVAS_COLUMNS, f"{ASSIGNMENT} ({total} points)"])
        lines.append(["Points Possible", "", "", "", "", total])
        for row in rows:
            s = row.student
            lines.append([s.name, "", row.lms_id, s.email, s.section,
                          grade_number(row.grade) if row.graded else ""])
    else:
        lines.append([*MOODLE_COLUMNS, MOODLE_GRADE, MOODLE_FEEDBACK])
        for row in rows:
            first, _, last = row.student.name.partition(" ")
            percent = grade_number(round(100 * row.grade / total, 2)) if total else 0
            said = ("" if row.status == "ok" else row.status, row.late)
            lines.append([row.lms_id, row.student.email, first, last,
                          percent if row.graded else "", "; ".join(s for s in said if s)])
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    for line in lines:
        writer.writerow([neutral(cell) for cell in line])
    return out.getvalue()


def status(result: StudentResult | None, flagged: str = "", note: str = "") -> str:
    """A row's status: ok, or why nothing was graded; then any warning (`note`)."""
    if result is None:
        base = flagged or "not graded: no result came back"
    elif result.error:
        base = f"not graded: {result.error}"
    else:
        base = "ok"
    return f"{base}; {note}" if note else base


def digest_line(sha256: str, name: str) -> str:
    """One `sha256sum` line, a name with a backslash, newline or carriage return in GNU's
    escaped form (a leading `\\`), so a folder name cannot forge a line of the file."""
    if not any(c in name for c in "\\\n\r"):
        return f"{sha256}  {name}"
    escaped = name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return f"\\{sha256}  {escaped}"


def write_digest(path: Path, submissions: Path, results: Iterable[StudentResult],
                 csv_path: Path, catalog_version: str) -> Path:
    """The `sha256sum` file (see the module docstring)."""
    import hashlib

    root = submissions.resolve()
    lines = [f"# routerlab catalog {catalog_version}"]
    for result in sorted(results, key=lambda r: r.student_id):
        folder = Path(result.submission).resolve()
        for exercise in result.exercises:
            if exercise.sha256 and exercise.file:
                rel = os.path.relpath(folder / exercise.file, root)
                lines.append(digest_line(exercise.sha256, rel))
    digest = hashlib.sha256(csv_path.read_bytes()).hexdigest()
    lines.append(digest_line(digest, os.path.relpath(csv_path.resolve(), root)))
    return write_text(path, "\n".join(lines) + "\n", "digest file", GradesError)


class ResumeFile:
    """The resume file: one result per line, each flushed to disk when written (see the module
    docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, StudentResult]:
        """The results already written, keyed by submission folder (the last one of each); a
        line cut short by a crash is ignored."""
        if not self.path.is_file():
            return {}
        done: dict[str, StudentResult] = {}
        with self.path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                with contextlib.suppress(ValueError, KeyError, TypeError, RecursionError):
                    result = StudentResult.from_json(json.loads(line))
                    done[result.submission or result.student_id] = result
        return done

    def start(self, keep: bool) -> None:
        """Begin a run: a fresh journal, or (`keep`, for `--resume`) the old one without a line
        a crash tore, so the next record starts on a line of its own."""
        try:
            if not keep:
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
            elif self.path.is_file():
                data = self.path.read_bytes()
                if data and not data.endswith(b"\n"):
                    with self.path.open("r+b") as handle:
                        handle.truncate(data.rfind(b"\n") + 1)
        except OSError as problem:
            raise GradesError(describe(problem, "write the resume file")) from None

    def append(self, result: StudentResult) -> None:
        self._append(result.to_json())

    def _append(self, record: dict[str, Any]) -> None:
        """One whole line, or none: a write the disk refuses is cut back off."""
        line = (json.dumps(record) + "\n").encode("utf-8")
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as problem:
            raise GradesError(describe(problem, "write the resume file")) from None
        size = os.fstat(fd).st_size
        try:
            done = 0
            while done < len(line):
                done += os.write(fd, line[done:])
            os.fsync(fd)
        except OSError as problem:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise GradesError(describe(problem, "write the resume file")) from None
        finally:
            os.close(fd)


def plan_path(journal: Path) -> Path:
    """Where the class's plan is kept beside its journal (`NAME.jsonl` -> `NAME.class.json`)."""
    return journal.with_suffix(".class.json")


def write_plan(journal: Path, students: list[dict[str, str]]) -> Path:
    """Every row of the class (those with no submission too), whole or not at all: what
    `teacher report` counts the class by."""
    return write_text(plan_path(journal), json.dumps({"format": PLAN_FORMAT,
                                                      "students": students}) + "\n",
                      "class file", GradesError)


def read_plan(journal: Path) -> list[dict[str, str]]:
    """The plan written beside `journal`; [] when there is none or it cannot be read."""
    path = plan_path(journal)
    if not path.is_file():
        return []
    try:
        data = load_json(path, what="class file", error=GradesError)
        return [{str(k): str(v) for k, v in row.items()} for row in data["students"]
                if isinstance(row, dict)]
    except (GradesError, KeyError, TypeError, AttributeError):
        return []


def write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    """The grades CSV, written whole or not at all (`GradesError` names the path)."""
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow([neutral(h) for h in header])
    for row in rows:
        writer.writerow([neutral(c) for c in row])
    return write_text(path, text.getvalue(), "grades CSV", GradesError)
