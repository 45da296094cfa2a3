"""Self-reported exports merged into one gradebook (`routerlab teacher grades`).

A student hands in the JSON file `routerlab exercises export` wrote
(`routerlab.exercises.learner.export`); a teacher drops the files into a folder and merges them
into a CSV with one row per student, plus a per-exercise summary (pass rate, median attempts,
hint use) that shows where a class struggles. Files are read as JSON only and every record is
validated against the catalog (known ids, points within the exercise's maximum, whole
non-negative counts); a file that fails is rejected with a line naming the file and the field.
Every merged grade is labelled self-reported, and an export from a class workspace is refused: a
class's grades come from `teacher recheck`. Cells a spreadsheet could run are neutralised
(`routerlab.exercises.teacher.gradebook.neutral`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core import RouterLabError
from ...core.base.safe_io import load_json
from ..catalog import Catalog
from ..engine.scoring import grade_number
from ..errors import GradesError
from ..learner.export import RESULTS_FORMAT
from .gradebook import write_csv

SELF_REPORTED = "self-reported"
"""The label of every grade `teacher grades` merges: the student's export says so, nothing more."""


@dataclass
class ExportedStudent:
    """One student's export, every record checked against the catalog."""

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
class MergedExports:
    """Every student's newest export, and what was rejected on the way."""

    students: list[ExportedStudent]
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


def merge_exports(folder: Path, catalog: Catalog) -> MergedExports:
    """Merge every results file under `folder`; the newest export wins for a repeated student."""
    files = sorted(p for p in folder.rglob("*.json") if p.is_file())
    if not files:
        raise GradesError(f"no .json results files under {folder}")
    problems: list[str] = []
    latest: dict[str, ExportedStudent] = {}
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
    return MergedExports(sorted(latest.values(), key=lambda s: s.student), known + extra,
                     catalog.total_points, problems)


def _read_results(path: Path, catalog: Catalog) -> ExportedStudent:
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
    return ExportedStudent(data["student"], path, str(data.get("exported_at", "")), exercises)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {int: "whole number", float: "number", bool: "true/false", str: "text",
             type(None): "null"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)
