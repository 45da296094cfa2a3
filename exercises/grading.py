"""Results out of a workspace (`export`) and into a gradebook (`teacher grades`), with no server.

A student hands in one JSON file; a teacher drops the files into a folder and merges them into a
CSV with one row per student, plus a per-exercise summary (pass rate, median attempts, hint use)
that shows where a class struggles. Files are read as JSON only, validated field by field, and a
bad file is reported and skipped rather than stopping the merge.
"""

from __future__ import annotations

import csv
import json
import statistics
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from routerlab import __version__
from routerlab.exercises.catalog import Catalog
from routerlab.exercises.course import Course
from routerlab.exercises.errors import GradesError

RESULTS_FORMAT = "routerlab-exercise-results"
RESULTS_VERSION = 1


def results(course: Course) -> dict[str, Any]:
    """The hand-in document of one student."""
    exercises = []
    for status in course.statuses():
        record = status.record
        exercises.append({
            "id": status.exercise.id, "title": status.exercise.title,
            "passed": status.done, "status": record.status,
            "points": status.earned, "points_possible": status.exercise.points,
            "attempts": record.attempts, "attempts_to_pass": record.attempts_to_pass,
            "hint_level": record.hint_level, "solution_viewed": record.solution_viewed,
        })
    return {
        "format": RESULTS_FORMAT, "version": RESULTS_VERSION, "routerlab": __version__,
        "student": course.workspace.student,
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "points": sum(e["points"] for e in exercises),
        "points_possible": sum(e["points_possible"] for e in exercises),
        "exercises": exercises,
    }


def write_results(course: Course, out: Path | None = None) -> tuple[Path, dict[str, Any]]:
    document = results(course)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in document["student"])
    path = out or course.workspace.root / f"routerlab-results-{safe}.json"
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return path, document


@dataclass
class StudentResult:
    student: str
    source: Path
    exported_at: str
    exercises: dict[str, dict[str, Any]]

    @property
    def points(self) -> int:
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
        header = ["student", "points", "points_possible", "passed"]
        for ex_id in self.exercise_ids:
            header += [ex_id, f"{ex_id} attempts", f"{ex_id} hints"]
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            for s in self.students:
                row: list[Any] = [s.student, s.points, self.points_possible,
                                  sum(e["passed"] for e in s.exercises.values())]
                for ex_id in self.exercise_ids:
                    e = s.exercises.get(ex_id)
                    row += (["", "", ""] if e is None
                            else [e["points"], e["attempts"], e["hint_level"]])
                writer.writerow(row)
        return path


_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str, "passed": bool, "points": int, "points_possible": int, "attempts": int,
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
            result = _read_results(path)
        except (OSError, ValueError) as error:
            problems.append(f"{path.name}: skipped ({error})")
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


def _read_results(path: Path) -> StudentResult:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
        raise ValueError("not a RouterLab results file")
    if not isinstance(data.get("student"), str) or not isinstance(data.get("exercises"), list):
        raise ValueError("missing student or exercises")
    exercises = {}
    for entry in data["exercises"]:
        if not isinstance(entry, dict):
            raise ValueError("an exercise entry is not an object")
        for name, kind in _FIELDS.items():
            value = entry.get(name)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ValueError(f"exercise entry {entry.get('id')!r}: bad {name!r}")
        exercises[entry["id"]] = entry
    return StudentResult(data["student"], path, str(data.get("exported_at", "")), exercises)
