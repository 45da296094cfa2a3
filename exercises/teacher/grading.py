"""Results out of a workspace (`export`) and into a gradebook (`teacher grades`), the score of
one check run, and the files of a handed-in folder (`teacher recheck` grades them, in
`routerlab.exercises.teacher.classroom`).

A student hands in one JSON file; a teacher drops the files into a folder and merges them into a CSV
with one row per student, plus a per-exercise summary (pass rate, median attempts, hint use) that
shows where a class struggles. Files are read as JSON only and every record is validated against the
catalog (known ids, points within the exercise's maximum, whole non-negative counts); a file that
fails is rejected with a line naming the file and the field. Every merged grade is labelled
self-reported, and an export from a class workspace is refused: a class's grades come from `teacher
recheck`. The export grades every exercise file again (`routerlab.exercises.engine.runner`) and
records each file's SHA-256. Cells a spreadsheet could run are neutralised
(`routerlab.exercises.teacher.gradebook.neutral`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import statistics
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ... import __version__
from ...core import RouterLabError
from ...core.safe_io import load_json, read_bytes
from ..catalog import Catalog, Exercise, Kind
from ..engine.runner import Candidate, run_checks
from ..errors import GradesError
from ..files import check_target, write_text
from ..learner.course import Course, workers
from ..report import CheckReport
from .gradebook import grade_number, neutral

RESULTS_FORMAT = "routerlab-exercise-results"
SELF_REPORTED = "self-reported"
"""The label of every grade `teacher grades` merges: the student's export says so, nothing more."""
RESULTS_VERSION = 2


def score(exercise: Exercise, report: CheckReport, per_part: bool = False) -> float:
    """The points a fresh check earns: all of them for a pass; with `partial_credit`, once every
    visible check passes, a share per passing hidden check; otherwise none.

    `per_part` (class mode's default): a predict exercise earns a share per part answered right,
    once every answer is well formed."""
    if report.passed:
        return float(exercise.points)
    if report.problem is not None:
        return 0.0
    if per_part and exercise.kind is Kind.PREDICT and report.outcomes:
        parts = report.outcomes[1:]
        if not report.outcomes[0].ok or not parts:
            return 0.0
        return round(exercise.points * sum(o.ok for o in parts) / len(parts), 2)
    if not exercise.partial_credit:
        return 0.0
    visible = [o for o in report.outcomes if not o.hidden]
    hidden = [o for o in report.outcomes if o.hidden]
    if not hidden or not all(o.ok for o in visible):
        return 0.0
    return round(exercise.points * sum(o.ok for o in hidden) / len(hidden), 2)


@dataclass(frozen=True)
class Graded:
    """One exercise file graded from scratch."""

    exercise: Exercise
    path: Path | None
    sha256: str
    report: CheckReport | None

    @property
    def passed(self) -> bool:
        return self.report is not None and self.report.passed

    @property
    def points(self) -> float:
        return 0.0 if self.report is None else score(self.exercise, self.report)


def grade_files(files: dict[str, Path | None], catalog: Catalog,
                jobs: int | None = None) -> list[Graded]:
    """Grade each exercise's file (None: not handed in) in the sandbox, `jobs` at a time."""
    def one(exercise: Exercise) -> Graded:
        path = files.get(exercise.id)
        if path is None or not path.is_file():
            return Graded(exercise, None, "", None)
        source = read_bytes(path, what="submission file", error=GradesError)
        digest = hashlib.sha256(source).hexdigest()
        return Graded(exercise, path, digest, run_checks(exercise, Candidate(path, path.name)))

    with ThreadPoolExecutor(max_workers=jobs or workers()) as pool:
        return list(pool.map(one, list(catalog)))


def results(course: Course) -> dict[str, Any]:
    """The hand-in document of one student: every file graded again, from scratch."""
    statuses = course.statuses()  # first: a progress file that cannot be read stops it here
    files: dict[str, Path | None] = {e.id: course.workspace.file_for(e) for e in course.catalog}
    graded = {g.exercise.id: g for g in grade_files(files, course.catalog)}
    exercises: list[dict[str, Any]] = []
    for status in statuses:
        record, fresh = status.record, graded[status.exercise.id]
        exercises.append({
            "id": status.exercise.id, "title": status.exercise.title,
            "passed": fresh.passed, "status": "passed" if fresh.passed else record.status,
            "points": 0 if record.gave_up else grade_number(fresh.points),
            "points_possible": status.exercise.points,
            "attempts": record.attempts, "attempts_to_pass": record.attempts_to_pass,
            "hint_level": record.hint_level, "solution_viewed": record.solution_viewed,
            "gave_up": record.gave_up,
            "sha256": fresh.sha256,
        })
    return {
        "format": RESULTS_FORMAT, "version": RESULTS_VERSION, "routerlab": __version__,
        "student": course.workspace.student,
        "mode": "class" if course.workspace.class_mode else "self-study",
        "student_id": course.workspace.student_id,
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "points": grade_number(sum(e["points"] for e in exercises)),
        "points_possible": sum(e["points_possible"] for e in exercises),
        "exercises": exercises,
    }


def write_results(course: Course, out: Path | None = None) -> tuple[Path, dict[str, Any]]:
    """Grade every file, then write the hand-in document to `out` (default: in the workspace).
    A path that cannot be written is refused before the grading starts."""
    student = course.workspace.student
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in student)
    path = out or course.workspace.root / f"routerlab-results-{safe}.json"
    check_target(path, "results file")
    document = results(course)
    write_text(path, json.dumps(document, indent=2) + "\n", "results file")
    return path, document


@dataclass
class StudentResult:
    student: str
    source: Path
    exported_at: str
    exercises: dict[str, dict[str, Any]]

    @property
    def points(self) -> float:
        return sum(e["points"] for e in self.exercises.values())


@dataclass
class ExerciseSummary:
    id: str
    students: int
    passed: int
    median_attempts: float | None
    """Median attempts to the first pass, over the students who passed."""
    hint_users: int
    mean_hint_level: float
    solutions_viewed: int

    @property
    def pass_rate(self) -> float:
        return self.passed / self.students if self.students else 0.0


@dataclass
class Gradebook:
    students: list[StudentResult]
    exercise_ids: list[str]
    points_possible: int
    problems: list[str] = field(default_factory=list)

    def summaries(self) -> list[ExerciseSummary]:
        out = []
        for ex_id in self.exercise_ids:
            rows = [s.exercises[ex_id] for s in self.students if ex_id in s.exercises]
            passed = [r for r in rows if r["passed"]]
            to_pass = [r["attempts_to_pass"] or r["attempts"] for r in passed]
            levels = [r["hint_level"] for r in rows]
            out.append(ExerciseSummary(
                ex_id, len(rows), len(passed),
                statistics.median(to_pass) if to_pass else None,
                sum(1 for level in levels if level), statistics.fmean(levels) if levels else 0.0,
                sum(1 for r in rows if r["solution_viewed"])))
        return out

    def write_csv(self, path: Path) -> Path:
        """One row per student; every number in it is what the student's own export says, so
        the `source` column says `self-reported` (a regrade is `teacher recheck`)."""
        header = ["student", "source", "points", "points_possible", "passed"]
        for ex_id in self.exercise_ids:
            header += [ex_id, f"{ex_id} attempts", f"{ex_id} hints"]
        rows: list[list[Any]] = []
        for s in self.students:
            row: list[Any] = [s.student, SELF_REPORTED, grade_number(s.points),
                              self.points_possible, sum(e["passed"] for e in s.exercises.values())]
            for ex_id in self.exercise_ids:
                e = s.exercises.get(ex_id)
                row += (["", "", ""] if e is None
                        else [grade_number(e["points"]), e["attempts"], e["hint_level"]])
            rows.append(row)
        return write_csv(path, header, rows)


_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str, "passed": bool, "points": (int, float), "points_possible": int, "attempts": int,
    "attempts_to_pass": (int, type(None)), "hint_level": int, "solution_viewed": bool,
}


def gradebook(folder: Path, catalog: Catalog) -> Gradebook:
    """Merge every results file under `folder`; the newest export wins for a repeated student."""
    files = sorted(p for p in folder.rglob("*.json") if p.is_file())
    if not files:
        raise GradesError(f"no .json results files under {folder}")
    problems: list[str] = []
    latest: dict[str, StudentResult] = {}
    for path in files:
        try:
            result = _read_results(path, catalog)
        except (RouterLabError, ValueError) as error:
            problems.append(f"{path.name}: rejected: {error}")
            continue
        earlier = latest.get(result.student)
        if earlier is not None:
            keep, drop = sorted([earlier, result], key=lambda r: r.exported_at, reverse=True)
            problems.append(f"{result.student}: two exports; kept {keep.source.name}, "
                            f"ignored {drop.source.name}")
            result = keep
        latest[result.student] = result
    if not latest:
        raise GradesError(f"none of the {len(files)} .json files under {folder} is a RouterLab "
                          "results file: " + "; ".join(problems))
    known = [e.id for e in catalog]
    extra = sorted({i for s in latest.values() for i in s.exercises} - set(known))
    return Gradebook(sorted(latest.values(), key=lambda s: s.student), known + extra,
                     catalog.total_points, problems)


def _read_results(path: Path, catalog: Catalog) -> StudentResult:
    """One results file, every record checked against the catalog; ValueError names the field."""
    data = load_json(path, what="results file", error=GradesError)
    if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
        raise ValueError("not a RouterLab results file (field 'format')")
    if data.get("mode") == "class":
        raise ValueError("an export from a class workspace is self-reported and is not merged: "
                         "a class's grades come from `routerlab teacher recheck --roster`")
    if not isinstance(data.get("student"), str) or not data["student"].strip():
        raise ValueError("field 'student' is missing or not a name")
    if not isinstance(data.get("exercises"), list):
        raise ValueError("field 'exercises' is missing or not a list")
    known = {e.id: e for e in catalog}
    exercises = {}
    for index, entry in enumerate(data["exercises"]):
        where = f"exercises[{index}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} is not an object")
        for name, kind in _FIELDS.items():
            value = entry.get(name)
            if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
                raise ValueError(f"{where}.{name}: {value!r} is not a {_kind_name(kind)}")
        if not isinstance(entry.get("gave_up", False), bool):  # absent from older exports
            raise ValueError(f"{where}.gave_up: {entry['gave_up']!r} is not true/false")
        if entry.get("gave_up") and entry["points"]:
            raise ValueError(f"{where}.points: {entry['points']!r}, but the student gave up")
        exercise = known.get(entry["id"])
        if exercise is None:
            raise ValueError(f"{where}.id: {entry['id']!r} is not an exercise of this catalog")
        where = f"{where} ({entry['id']})"
        for name in ("attempts", "hint_level", "points"):
            if entry[name] < 0:
                raise ValueError(f"{where}.{name}: {entry[name]!r} is negative")
        if entry["attempts_to_pass"] is not None and entry["attempts_to_pass"] < 0:
            raise ValueError(f"{where}.attempts_to_pass: negative")
        if entry["points"] > exercise.points:
            raise ValueError(f"{where}.points: {entry['points']!r} is more than the exercise's "
                             f"{exercise.points}")
        if entry["points_possible"] != exercise.points:
            raise ValueError(f"{where}.points_possible: {entry['points_possible']!r}, the "
                             f"catalog says {exercise.points}")
        if entry["hint_level"] > len(exercise.hints):
            raise ValueError(f"{where}.hint_level: {entry['hint_level']!r} is above "
                             f"{len(exercise.hints)}")
        if entry["id"] in exercises:
            raise ValueError(f"{where}.id: listed twice")
        exercises[entry["id"]] = entry
    return StudentResult(data["student"], path, str(data.get("exported_at", "")), exercises)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {int: "whole number", float: "number", bool: "true/false", str: "text",
             type(None): "null"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    """The grades CSV, written whole or not at all (`GradesError` names the path)."""
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow([neutral(h) for h in header])
    for row in rows:
        writer.writerow([neutral(c) for c in row])
    return write_text(path, text.getvalue(), "grades CSV", GradesError)


# --- teacher recheck (routerlab.exercises.teacher.classroom grades; this finds the files) ---


def submission_files(folder: Path, catalog: Catalog) -> tuple[str, dict[str, Path | None]]:
    """The student and their file per exercise: a workspace (its marker names the student), or
    any folder holding files named like a workspace's (`registry_1.py`, or the numbered
    `01_registry_1.py` of older RouterLabs), named after the folder. State files are ignored."""
    from ..learner.workspace import MARKER, open_workspace

    if (folder / MARKER).is_file():
        workspace = open_workspace(folder)
        return workspace.student, {e.id: workspace.file_for(e) for e in catalog}
    files: dict[str, Path | None] = {}
    for exercise in catalog:
        found: list[Path] = []
        for base in (folder, folder / "exercises"):
            found += [p for p in [base / exercise.file_name] if p.is_file()]
            found += sorted(base.glob(f"[0-9][0-9]_{exercise.file_name}"))
        files[exercise.id] = found[0] if found else None
    return folder.name, files
