"""The grades a regrade writes: a CSV an LMS imports, a digest file, a journal to resume from.

Formats (`--format`), each one a published import layout:
- `plain`: the roster id first, then name, email, section, points, points possible, exercises
  passed, a status ("ok", or why the student could not be graded), one column per exercise.
- `canvas`: Canvas's Gradebook import: `Student, ID, SIS User ID, SIS Login ID, Section`, then one
  column per assignment, and a `Points Possible` row under the header. The roster id goes in
  `SIS User ID`, which Canvas matches students on; the email in `SIS Login ID`; `ID` (Canvas's
  own number) stays empty.
- `moodle`: Moodle's CSV grade import: `ID number, Email address, First name, Last name`, then one
  column per grade item; the import page maps "ID number" (or "Email address") to the user.

Every text cell is neutralised for spreadsheets: a leading `= + - @`, tab or carriage return gets
a `'` in front, and so does any of them after a `;` or `,` inside the cell, since a
spreadsheet whose locale splits on `;` cuts a quoted field there and runs what follows.

The digest file (`NAME.sha256`, `sha256sum` format) names every graded file by its path relative
to the submissions folder, and the CSV too, so `cd SUBMISSIONS && sha256sum -c DIGEST` shows any
later edit of either; its first line records the catalog version the grades were computed with.

The journal (`NAME.jsonl`) holds one `StudentResult` per line, appended and flushed as each
student is graded; the CSV is rewritten from it after each student. `--resume` reads it back and
grades only the students not in it.
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

from ..engine.scoring import grade_number
from ..errors import GradesError
from ..files import write_text
from .classroom import StudentResult
from .roster import Student

FORMATS = ("plain", "canvas", "moodle")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("ID number", "Email address", "First name", "Last name")
ASSIGNMENT = "RouterLab exercises"
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

    @property
    def points(self) -> float:
        return self.result.points if self.result and not self.result.error else 0.0


def csv_text(rows: list[Row], exercise_ids: list[str], total: int, fmt: str,
             isolated: bool) -> str:
    """The gradebook in `fmt`; rows keep the roster's order."""
    if fmt not in FORMATS:
        raise GradesError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    lines: list[list[Any]] = [] if isolated else [[UNISOLATED_NOTE]]
    if fmt == "plain":
        lines.append(["id", "name", "email", "section", "points", "points_possible", "passed",
                      "status", *exercise_ids])
        for row in rows:
            by_id = {e.id: e for e in (row.result.exercises if row.result else [])}
            lines.append([row.student.id, row.student.name, row.student.email,
                          row.student.section, grade_number(row.points), total,
                          sum(e.passed for e in by_id.values()), row.status,
                          *[grade_number(by_id[i].points) if i in by_id else "" for i in
                            exercise_ids]])
    elif fmt == "canvas":
        lines.append([*CANVAS_COLUMNS, f"{ASSIGNMENT} ({total} points)"])
        lines.append(["Points Possible", "", "", "", "", total])
        for row in rows:
            s = row.student
            lines.append([s.name, "", s.id, s.email, s.section, grade_number(row.points)])
    else:
        lines.append([*MOODLE_COLUMNS, ASSIGNMENT])
        for row in rows:
            first, _, last = row.student.name.partition(" ")
            lines.append([row.student.id, row.student.email, first, last,
                          grade_number(row.points)])
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    for line in lines:
        writer.writerow([neutral(cell) for cell in line])
    return out.getvalue()


def status(result: StudentResult | None, flagged: str = "") -> str:
    if flagged:
        return flagged
    if result is None:
        return "no submission"
    if result.error:
        return f"not graded: {result.error}"
    return "ok"


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
                lines.append(f"{exercise.sha256}  {rel}")
    digest = hashlib.sha256(csv_path.read_bytes()).hexdigest()
    lines.append(f"{digest}  {os.path.relpath(csv_path.resolve(), root)}")
    return write_text(path, "\n".join(lines) + "\n", "digest file", GradesError)


class Journal:
    """The resume file: one result per line, each flushed to disk when written."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, StudentResult]:
        """The results already written (a line cut short by a crash is ignored)."""
        if not self.path.is_file():
            return {}
        done: dict[str, StudentResult] = {}
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    result = StudentResult.from_json(json.loads(line))
                    done[result.student_id] = result
        return done

    def start(self, keep: bool) -> None:
        if not keep:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    def append(self, result: StudentResult) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(result.to_json()) + "\n")
            handle.flush()
            os.fsync(handle.fileno())


def write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    """The grades CSV, written whole or not at all (`GradesError` names the path)."""
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow([neutral(h) for h in header])
    for row in rows:
        writer.writerow([neutral(c) for c in row])
    return write_text(path, text.getvalue(), "grades CSV", GradesError)
