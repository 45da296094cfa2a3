"""`teacher lint`: prove every exercise is gradeable before it reaches a class.

For each exercise: its starter must load and fail, its sealed reference solution must pass every
check, it must have three hint levels and at least one hidden check, the model's results must be
the sealed ones (so a change in the core that changes an answer, or a check whose cases were
emptied, is caught here and not by a confused class), and every hidden check must reject at
least one of the shipped wrong submissions that name it (so a hidden check that stopped checking
cannot stay green), and, for an implement exercise, that mechanically mutated copies of its
solution fail (`routerlab.exercises.authoring.mutation`: a check a wrong line can pass is not
done). All runs go through the same sandbox or jail as a student's check, side by side.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..catalog import Catalog, Exercise, Kind, load_catalog
from ..engine.jail_keeper import catalog_jails
from ..engine.runner import Candidate, run_checks, workers
from ..errors import CatalogError, ExerciseError
from ..files import os_errors
from ..report import CheckReport
from .mutation import GOAL_EACH, MUTANT_LIMIT, MutationResult, mutation_test
from .sealing import open_solution, open_wrong, scratch_file, wrong_problems
from .variant_lint import check_count, lint_variants

if TYPE_CHECKING:
    from ..engine.jail import Jail


@dataclass
class LintResult:
    exercise: Exercise
    problems: list[str] = field(default_factory=list)
    checks: int = 0
    hidden: int = 0
    wrong: int = 0
    seconds: float = 0.0
    mutation: MutationResult | None = None
    """How the checks fared against mutants of the solution (implement exercises only)."""
    variants: int = 0
    """Random variants proved (`variant_lint`; 0 for an exercise that does not vary)."""

    @property
    def ok(self) -> bool:
        return not self.problems


VARIANT_WORKERS = 2
"""Threads added to lint's own (`runner.workers()`) when variants are proved too: every thread
mostly waits on its jail's forks or on real peers, so two more keep two cores busy."""


def lint(catalog: Catalog, only: list[str] | None = None, mutants: int = MUTANT_LIMIT,
         variants: int = 0) -> list[LintResult]:
    """Lint the catalog (or the exercises in `only`), in catalog order; `mutants`: the most
    mutants of each implement solution graded (0: no mutation testing); `variants`: random
    variants of each exercise proved too (`variant_lint.lint_variants`).

    One pool of threads takes the exercises' lints and variant proofs as they come free, each
    thread grading in its own kept jail: proofs in a pool of their own ran on after the lints
    were done (50 variants on two cores: 144 s; one pool and kept jails: 90 s)."""
    check_count(variants)
    chosen = [catalog.get(i) for i in only] if only else list(catalog)
    threads = workers() + (VARIANT_WORKERS if variants else 0)
    with tempfile.TemporaryDirectory(prefix="routerlab-lint-") as scratch, \
            catalog_jails(catalog) as jail, ThreadPoolExecutor(max_workers=threads) as pool:
        linting = [pool.submit(lambda e: lint_exercise(e, Path(scratch), mutants, jail()), e)
                   for e in chosen]
        proving = [pool.submit(lambda e: lint_variants(e, variants, jail()), e)
                   for e in chosen] if variants else []
        results = [done.result() for done in linting]
        if variants:
            for result, proof in zip(results, proving, strict=True):
                proved = proof.result()
                result.variants = proved.variants
                result.problems += proved.problems
    return results


def mutation_score(results: list[LintResult]) -> float | None:
    """The share of mutants killed over every implement exercise linted (None: none was)."""
    tested = [r.mutation for r in results if r.mutation is not None]
    counted = sum(len(m.killed) + len(m.survived) for m in tested)
    return sum(len(m.killed) for m in tested) / counted if counted else None


def lint_folder(course: Path, only: list[str] | None = None, mutants: int = MUTANT_LIMIT,
                variants: int = 0) -> list[LintResult]:
    """Lint a course folder as it is now: a temporary copy of it is linted, so a `teacher seal`
    writing into the folder meanwhile cannot mix two versions of an exercise in one verdict."""
    if not (course / "index.toml").is_file():
        raise CatalogError(f"{course} is not a course folder (no index.toml)")
    with tempfile.TemporaryDirectory(prefix="routerlab-lint-copy-") as scratch:
        copy = Path(scratch) / "catalog"
        with os_errors("copy the course folder", CatalogError):
            shutil.copytree(course, copy)
        results = lint(load_catalog(str(copy)), only, mutants, variants)
        load_catalog.cache_clear()  # the copy is gone: no exercise may point into it
    return results


def lint_exercise(exercise: Exercise, scratch: Path, mutants: int = MUTANT_LIMIT,
                  jail: Jail | None = None) -> LintResult:
    """Lint one exercise; every run in `jail` (a worker's kept jail, `catalog_jails`), else each
    in a jail or sandbox of its own."""
    from ..checks import suite_for
    from ..engine import judge

    started = time.monotonic()
    result = LintResult(exercise)
    result.problems += _static_problems(exercise)
    suite = suite_for(exercise)
    hidden = [c.name for c in suite.checks if c.hidden]
    result.checks, result.hidden = len(suite.checks), len(hidden)
    if not hidden:
        result.problems.append("no hidden check")
    result.problems += list(judge.expected(exercise.id, exercise.catalog).problems)
    folder = Path(tempfile.mkdtemp(prefix=f"{exercise.id}-", dir=scratch))
    starter = scratch_file(folder / "starter.py", exercise.starter())
    result.problems += _starter_problems(run_checks(exercise, Candidate(starter, "starter"),
                                                    jail=jail))
    try:
        solution = scratch_file(folder / "solution.py", open_solution(exercise))
        wrong = open_wrong(exercise)
    except (ExerciseError, ValueError) as error:
        result.problems.append(f"the sealed solution cannot be opened with the model's answers "
                               f"({error})")
        result.seconds = time.monotonic() - started
        return result
    solved = _solution_problems(run_checks(exercise, Candidate(solution, "solution"),
                                           jail=jail))
    result.problems += solved
    if mutants and not solved and exercise.kind is Kind.IMPLEMENT:
        result.mutation = mutation_test(exercise, open_solution(exercise), mutants, jail=jail)
        result.problems += _mutation_problems(result.mutation)
    result.wrong = len(wrong)
    result.problems += wrong_problems(exercise, wrong, folder, jail)
    for name in hidden:
        if not any(name in w.rejects for w in wrong):
            result.problems.append(f"no shipped wrong submission exercises the hidden check "
                                   f"“{name}” (`teacher seal --wrong`)")
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
    if exercise.kind is Kind.IMPLEMENT and not exercise.delegation:
        problems.append("names no model function in `delegation` (exercise.toml): a thin wrapper "
                        "around the model's own function would pass")
    if exercise.sealed() is None:
        problems.append("no sealed.json (run `routerlab teacher seal`)")
    if (exercise.folder / "solution.py").is_file():
        problems.append("solution.py ships in plain text: seal it and delete it")
    return problems


def _mutation_problems(mutation: MutationResult) -> list[str]:
    problems = list(mutation.problems)
    if mutation.score < GOAL_EACH:
        problems.append(f"mutation score {mutation.score:.2f} (< {GOAL_EACH}): the checks pass "
                        f"these wrong solutions: {'; '.join(mutation.survived)} (add a hidden "
                        "case, or declare an equivalent mutant with why in exercise.toml)")
    return problems


def _starter_problems(report: CheckReport) -> list[str]:
    if report.problem is not None and report.problem.name != "load your file":
        return [f"the starter does not run: {report.problem.message}"]
    if report.passed:
        return ["the starter already passes every check"]
    return []


def _solution_problems(report: CheckReport) -> list[str]:
    if report.problem is not None:
        return [f"the reference solution does not run: {report.problem.message}"]
    return [f"the reference solution fails “{o.name}”: {o.message}"
            for o in report.outcomes if not o.ok]
