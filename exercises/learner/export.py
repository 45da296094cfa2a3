"""A student's own export (`routerlab exercises export`): every exercise file graded again from
scratch, with the workspace's progress, in one JSON document the student hands in.

Every number in it is the student's machine's word, so a teacher's merge
(`routerlab.exercises.teacher.exports`) labels it self-reported, and refuses an export from a
class workspace: a class's grades come from `teacher recheck`. The export records each file's
SHA-256.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ... import __version__
from ...core.base.safe_io import read_bytes
from ..catalog import Catalog, Exercise
from ..engine.runner import Candidate, run_checks, workers
from ..engine.scoring import grade_number, score
from ..errors import GradesError
from ..files import check_target, write_text
from ..report import CheckReport
from .course import Course

RESULTS_FORMAT = "routerlab-exercise-results"
RESULTS_VERSION = 2


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


Progress = Callable[[int, int, str], None]
"""Called as each exercise is graded: (done, total, its id); an export takes a minute."""


def grade_files(files: dict[str, Path | None], catalog: Catalog, jobs: int | None = None,
                progress: Progress | None = None) -> list[Graded]:
    """Grade each exercise's file (None: not handed in) in the sandbox, `jobs` at a time."""
    exercises = list(catalog)
    finished = 0

    def one(exercise: Exercise) -> Graded:
        path = files.get(exercise.id)
        if path is None or not path.is_file():
            graded = Graded(exercise, None, "", None)
        else:
            source = read_bytes(path, what="submission file", error=GradesError)
            graded = Graded(exercise, path, hashlib.sha256(source).hexdigest(),
                            run_checks(exercise, Candidate(path, path.name)))
        if progress is not None:
            with lock:
                nonlocal finished
                finished += 1
                progress(finished, len(exercises), exercise.id)
        return graded

    lock = threading.Lock()
    with ThreadPoolExecutor(max_workers=jobs or workers()) as pool:
        return list(pool.map(one, exercises))


def results(course: Course, progress: Progress | None = None) -> dict[str, Any]:
    """The hand-in document of one student: every file graded again, from scratch."""
    statuses = course.statuses()  # first: a progress file that cannot be read stops it here
    files: dict[str, Path | None] = {e.id: course.workspace.file_for(e) for e in course.catalog}
    graded = {g.exercise.id: g for g in grade_files(files, course.catalog, progress=progress)}
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


def write_results(course: Course, out: Path | None = None,
                  progress: Progress | None = None) -> tuple[Path, dict[str, Any]]:
    """Grade every file, then write the hand-in document to `out` (default: in the workspace).
    A path that cannot be written is refused before the grading starts."""
    student = course.workspace.student
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in student)
    path = out or course.workspace.root / f"routerlab-results-{safe}.json"
    check_target(path, "results file")
    document = results(course, progress)
    write_text(path, json.dumps(document, indent=2) + "\n", "results file")
    return path, document
