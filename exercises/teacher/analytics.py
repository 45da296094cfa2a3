"""What a regraded class did, per exercise and per check: the numbers behind `teacher report`.

The input is what `teacher recheck` leaves beside its CSV: the resume file (`grades.jsonl`),
one `StudentResult` per line, which holds every check's verdict and, for a predict exercise, the
answer the student wrote (`got`). Nothing is graded again. Two kinds of number come out:

- *graded*: pass rates, points, which checks fail most, the commonest wrong predictions; these
  come from the regrade and can be trusted as far as the regrade can;
- *self-reported*: attempts and hint levels, read from each submission's progress file
  (`.routerlab/state.json`), which the student's own machine wrote and could have edited. They
  are labelled so wherever they are shown.

Every student of the class is counted: the journal also holds the class's plan (every roster
row), so those who handed in nothing are named too. Paths are resolved from the grades folder,
never from where the command runs, so the answer is the same from any folder. The checks ranked
"hardest" are counted over the files students tried: a file that is still the starter, or no
file, is not an attempt, and an exercise nobody tried ranks no check.
"""

from __future__ import annotations

import os
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ...core.base.safe_io import load_json
from ..errors import GradesError
from ..learner.state import Record
from .classroom import StudentResult
from .gradebook import ResumeFile, read_plan
from .intake import inside

PREDICT = "predict"
TOP_WRONG = 5
"""How many wrong answers are listed per predict check."""


@dataclass
class ExerciseStats:
    """One exercise across the class."""

    id: str
    title: str
    kind: str
    points_possible: int
    points: list[float] = field(default_factory=list)
    """Per graded student (a missing file counts, with 0)."""
    passed: int = 0
    missing: int = 0
    tried: int = 0
    """Students who handed in a file other than the starter."""
    attempts: list[int] = field(default_factory=list)
    """Self-reported: check runs on different code, per student who has a record."""
    hint_levels: list[int] = field(default_factory=list)
    """Self-reported: the hint level reached, per student who has a record."""

    @property
    def students(self) -> int:
        return len(self.points)

    @property
    def pass_rate(self) -> float:
        return self.passed / self.students if self.students else 0.0

    @property
    def mean_points(self) -> float:
        return statistics.fmean(self.points) if self.points else 0.0


@dataclass
class CheckStats:
    """One check of one exercise: how many students it ran for, and how many it failed."""

    exercise_id: str
    name: str
    hidden: bool
    ran: int = 0
    failed: int = 0

    @property
    def fail_rate(self) -> float:
        return self.failed / self.ran if self.ran else 0.0


@dataclass
class ClassAnalytics:
    students: list[str]
    totals: list[float]
    """Each student's points, in `students`' order."""
    points_possible: int
    exercises: list[ExerciseStats]
    checks: list[CheckStats]
    wrong: dict[tuple[str, str], list[tuple[str, int]]]
    """(predict exercise, check) → its commonest wrong answers, with how many wrote each."""
    errors: dict[str, str]
    """Students whose regrade could not finish, and why."""
    absent: list[str]
    """Students of the class (its roster) who handed in nothing: no row in the journal."""
    isolation: set[str]
    self_reported: int
    """How many students' progress files were read."""

    @property
    def class_size(self) -> int:
        """Every student of the class: regraded, not graded, or absent."""
        return len(self.students) + len(self.errors) + len(self.absent)

    def hardest(self, limit: int = 10) -> list[CheckStats]:
        """The checks failed by the largest share of the students they ran for."""
        ranked = [c for c in self.checks if c.failed]
        return sorted(ranked, key=lambda c: (-c.fail_rate, -c.failed, c.exercise_id,
                                             c.name))[:limit]


def load_results(grades_dir: Path) -> list[StudentResult]:
    """Every student's latest result in the resume files (`*.jsonl`) of `grades_dir`."""
    if not grades_dir.is_dir():
        raise GradesError(f"{grades_dir} is not a folder (the one `teacher recheck` wrote "
                          "grades.csv and grades.jsonl into)")
    journals = sorted(grades_dir.glob("*.jsonl"))
    if not journals:
        raise GradesError(f"no resume file (*.jsonl) in {grades_dir}: `teacher recheck` writes "
                          "one beside its CSV")
    latest: dict[str, StudentResult] = {}
    for journal in journals:
        try:
            latest.update(ResumeFile(journal).read())
        except (OSError, UnicodeDecodeError, RecursionError) as error:
            raise GradesError(f"cannot read {journal}: {error}") from None
    if not latest and not load_plan(grades_dir):
        raise GradesError(f"no student result in {', '.join(j.name for j in journals)}")
    for result in latest.values():  # a relative path is the grades folder's, not the caller's
        if result.submission and not Path(result.submission).is_absolute():
            result.submission = str(grades_dir.absolute() / result.submission)
    return sorted(latest.values(), key=lambda r: r.student_id)


def load_plan(grades_dir: Path) -> list[dict[str, str]]:
    """The class as the latest `teacher recheck` planned it: one entry per student (id, key,
    folder, status), those with no submission too; [] where no plan was written."""
    plans = [plan for journal in sorted(grades_dir.glob("*.jsonl")) if (plan := read_plan(journal))]
    return plans[-1] if plans else []


def progress_records(result: StudentResult) -> dict[str, Record] | None:
    """The student's own progress records (self-reported), or None without a readable file
    (a link is not the student's own file, so it is not read)."""
    folder = Path(result.submission)
    path = folder / ".routerlab" / "state.json"
    if not result.submission or not path.is_file() or not folder.is_dir() \
            or not inside(Path(os.path.realpath(folder)), path):
        return None
    try:
        data = load_json(path, what="progress file", error=GradesError)
    except GradesError:
        return None
    records = {}
    for exercise_id, raw in (data.get("exercises") or {}).items() if isinstance(data, dict) \
            else ():
        try:
            records[str(exercise_id)] = Record.from_json(raw)
        except (TypeError, ValueError):
            continue
    return records


def analyse(results: list[StudentResult], plan: list[dict[str, str]] | None = None
            ) -> ClassAnalytics:
    """The class's numbers from its results and its plan (see the module docstring)."""
    exercises: dict[str, ExerciseStats] = {}
    checks: dict[tuple[str, str], CheckStats] = {}
    wrong: dict[tuple[str, str], Counter[str]] = {}
    errors, self_reported = {}, 0
    graded = [r for r in results if not r.error]
    for result in results:
        if result.error:
            errors[result.student_id] = result.error
    for result in graded:
        records = progress_records(result)
        self_reported += records is not None
        for e in result.exercises:
            stats = exercises.setdefault(e.id, ExerciseStats(e.id, e.title, e.kind,
                                                             e.points_possible))
            stats.points.append(e.points)
            stats.passed += e.passed
            stats.missing += e.status == "missing"
            tried = e.status != "missing" and not e.starter
            stats.tried += tried
            record = (records or {}).get(e.id)
            if record is not None:
                stats.attempts.append(record.attempts)
                stats.hint_levels.append(record.hint_level)
            for c in e.checks if tried else ():
                check = checks.setdefault((e.id, c.name), CheckStats(e.id, c.name, c.hidden))
                check.ran += 1
                if c.status != "passed":
                    check.failed += 1
                    if e.kind == PREDICT and c.got is not None:  # by kind of mistake
                        wrong.setdefault((e.id, c.name), Counter())[c.mistake or c.got] += 1
    points_possible = max((r.points_possible for r in graded), default=0)
    return ClassAnalytics(
        [r.student_id for r in graded], [r.points for r in graded], points_possible,
        list(exercises.values()), list(checks.values()),
        {key: counts.most_common(TOP_WRONG) for key, counts in wrong.items()},
        errors, _absent(results, plan or []), {r.isolation for r in graded}, self_reported)


def _absent(results: list[StudentResult], plan: list[dict[str, str]]) -> list[str]:
    """The plan's students with no result: no submission, or not reached."""
    seen = {r.submission for r in results} | {r.student_id for r in results if not r.submission}
    return [row.get("id", "") for row in plan if (row.get("folder") or row.get("id")) not in seen]
