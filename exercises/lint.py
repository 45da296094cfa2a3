"""`teacher lint`: prove every exercise is gradeable before it reaches a class.

For each exercise: its starter must load and fail, its reference solution must pass every check,
it must have three hint levels and at least one hidden check, and a predict exercise's sealed
answers must be what the model computes (so a change in the core that changes an answer is
caught here, not by a confused class). Starter and solution are graded in one subprocess per
exercise, the exercises side by side, so the whole catalog lints in seconds.
"""

from __future__ import annotations

import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from routerlab.exercises.catalog import Catalog, Exercise, Kind
from routerlab.exercises.report import CheckReport
from routerlab.exercises.runner import Candidate, run_checks


@dataclass
class LintResult:
    exercise: Exercise
    problems: list[str] = field(default_factory=list)
    checks: int = 0
    hidden: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


def lint(catalog: Catalog, only: list[str] | None = None) -> list[LintResult]:
    """Lint the catalog (or the exercises in `only`), in catalog order."""
    chosen = [catalog.get(i) for i in only] if only else list(catalog)
    with tempfile.TemporaryDirectory(prefix="routerlab-lint-") as scratch:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            return list(pool.map(lambda e: lint_exercise(e, Path(scratch)), chosen))


def lint_exercise(exercise: Exercise, scratch: Path) -> LintResult:
    started = time.monotonic()
    result = LintResult(exercise)
    result.problems += _static_problems(exercise)
    starter = scratch / exercise.file_name
    starter.write_text(exercise.starter(), encoding="utf-8")
    run = run_checks(exercise, [Candidate(starter, "starter")], with_solution=True)
    result.problems += run.problems
    starter_report, solution_report = run.reports
    result.problems += _starter_problems(starter_report)
    result.problems += _solution_problems(solution_report)
    result.checks = len(solution_report.outcomes)
    result.hidden = sum(o.hidden for o in solution_report.outcomes)
    if solution_report.outcomes and not result.hidden:
        result.problems.append("no hidden check")
    result.seconds = time.monotonic() - started
    return result


def _static_problems(exercise: Exercise) -> list[str]:
    problems = []
    if len(exercise.hints) != 3 or not all(h.strip() for h in exercise.hints):
        problems.append(f"needs 3 non-empty hint levels (nudge, concept, near solution), "
                        f"has {sum(bool(h.strip()) for h in exercise.hints)}")
    if not exercise.statement():
        problems.append("empty statement.md")
    if "TODO" not in (exercise.folder / "starter.py").read_text(encoding="utf-8"):
        problems.append("starter.py has no TODO for the student to find")
    if exercise.points <= 0:
        problems.append("points must be positive")
    if exercise.kind is Kind.IMPLEMENT and exercise.solution_source() is None:
        problems.append("implement exercise without solution.py")
    if exercise.kind is Kind.PREDICT and exercise.sealed() is None:
        problems.append("predict exercise without sealed.json (run `routerlab teacher seal`)")
    return problems


def _starter_problems(report: CheckReport) -> list[str]:
    if report.problem is not None:
        return [f"the starter does not run: {report.problem.message}"]
    if report.passed:
        return ["the starter already passes every check"]
    return []


def _solution_problems(report: CheckReport) -> list[str]:
    if report.problem is not None:
        return [f"the reference solution does not run: {report.problem.message}"]
    return [f"the reference solution fails “{o.name}”: {o.message}"
            for o in report.outcomes if not o.ok]
