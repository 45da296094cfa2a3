"""`teacher lint`'s proof that every variant of an exercise is gradeable, and how often two agree.

For `count` random variants of each exercise that varies (the catalog's own first): the statement
and the starter render (no placeholder left, no undeclared one), the model answers (a predict
oracle runs, an implement exercise's visible probes run on the student's own inputs), the worked
solution passes (a predict exercise's: the model's answers for that variant, written as a student
would write them and read back as data; an implement exercise's sealed solution, run in the jail
or the sandbox like a student's file), and every declared wrong answer (`PredictSuite.mistakes`)
fails. An exercise that does not vary must say why in its `[variant]` table.

`agreement` measures how often two students' answers agree by chance: over every variant (or a
sample, for a large space), the chance that two variants drawn at random have the same right
answers, which is the chance that one student's copied answers pass for another.
"""

from __future__ import annotations

import random
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..answers import canonical
from ..catalog import Catalog, Exercise
from ..checks import suite_for
from ..checks.base import PredictSuite
from ..engine.jail_keeper import catalog_jails
from ..engine.literals import literal_reply
from ..engine.runner import Candidate, judge_reply, run_checks
from ..errors import CatalogError, ExerciseError
from ..variants.spec import Params, placeholders
from ..variants.table import random_variants
from .sealing import open_solution, scratch_file

VARIANTS_LIMIT = 1000
"""Random variants `teacher lint --variants` proves per exercise at most: each runs the model
(an implement one, the solution in the jail), about a second apiece, so 1,000 is a quarter of an
hour per exercise; a larger count (10**9) would run for decades and is refused before any runs
(docs/limits.md)."""
AGREEMENT_SAMPLE = 400
"""Variants drawn to measure agreement when an exercise has more than this many."""


@dataclass
class VariantLint:
    exercise: Exercise
    variants: int = 0
    problems: list[str] = field(default_factory=list)


def lint_variants(exercise: Exercise, count: int = 50, jail: Any = None) -> VariantLint:
    """Prove `count` random variants of `exercise` (see the module docstring)."""
    result = VariantLint(exercise)
    spec = exercise.variant
    if not spec.varies:
        if not spec.fixed:
            result.problems.append("it neither varies nor says why not: add [variant] params, "
                                   "or `fixed = \"why\"`")
        return result
    declared = {p.name for p in spec.params}
    for name in ("statement.md", "starter.py"):
        unknown = placeholders((exercise.folder / name).read_text(encoding="utf-8")) - declared
        if unknown:
            result.problems.append(f"{name} names undeclared parameters {sorted(unknown)}")
    suite = suite_for(exercise)
    with tempfile.TemporaryDirectory(prefix=f"variants-{exercise.id}-") as scratch:
        for params in random_variants(exercise, count):
            result.variants += 1
            try:
                found = _variant_problems(exercise.with_params(params), params, suite,
                                          Path(scratch), jail)
            except (CatalogError, ExerciseError) as error:
                found = [str(error)]
            except Exception as error:  # noqa: BLE001 - the model failing on a variant is the finding
                found = [f"the model fails: {type(error).__name__}: {error}"]
            result.problems += [f"variant {params}: {p}" for p in found]
            if len(result.problems) >= 5:  # one broken rule fails every variant: say it once
                break
    return result


def _variant_problems(copy: Exercise, params: Params, suite: Any, scratch: Path,
                      jail: Any) -> list[str]:
    for text in (copy.statement(), copy.starter()):
        if "{{" in text:
            return ["a placeholder is left in the statement or the starter"]
    if not isinstance(suite, PredictSuite):
        solution = scratch_file(scratch / f"{copy.id}.py", open_solution(copy))
        report = run_checks(copy, Candidate(solution, "solution"), jail=jail)
        if report.problem is not None:
            return [f"the solution does not run: {report.problem.message}"]
        return [f"the solution fails “{o.name}”: {o.message}" for o in report.outcomes
                if not o.ok]
    problems = []
    truth = suite.answers(params)
    if not _passes(copy, scratch, truth):
        problems.append("the model's own answers do not pass")
    for name in suite.mistakes:
        if _passes(copy, scratch, suite.mistaken(name, params)):
            problems.append(f"the declared wrong answer “{name}” passes")
    return problems


def _passes(copy: Exercise, scratch: Path, answers: dict[str, Any]) -> bool:
    """Whether a file giving `answers` (written as a student writes them) passes `copy`."""
    from ..checks.base import to_data

    lines = [f"{name} = {to_data(value)!r}" for name, value in answers.items()]
    path = scratch_file(scratch / f"{copy.id}-answers.py", "\n".join(lines) + "\n")
    suite = suite_for(copy)
    assert isinstance(suite, PredictSuite)
    return judge_reply(copy, literal_reply(path, suite), copy.timeout).passed


def lint_catalog_variants(catalog: Catalog, only: list[str] | None = None, count: int = 50
                          ) -> list[VariantLint]:
    """`lint_variants` of each exercise (implement ones graded in one kept jail where it runs;
    `teacher lint` proves them beside the lint itself, `authoring.lint.lint`)."""
    check_count(count)
    chosen = [catalog.get(i) for i in only] if only else list(catalog)
    with catalog_jails(catalog) as jail:
        return [lint_variants(e, count, jail()) for e in chosen]


def check_count(count: int) -> None:
    """CatalogError for a variant count over `VARIANTS_LIMIT` (or below 0): `teacher lint`
    calls it before any lint runs."""
    if not 0 <= count <= VARIANTS_LIMIT:
        raise CatalogError(f"--variants {count}: prove 0 to {VARIANTS_LIMIT} variants per "
                           "exercise (docs/limits.md)")


def agreement(exercise: Exercise, seed: int = 0) -> float | None:
    """The chance that two random variants of a predict exercise have the same right answers
    (None: it has no answers to share, or one variant only)."""
    suite = suite_for(exercise)
    spec = exercise.variant
    if not isinstance(suite, PredictSuite) or not spec.varies:
        return None
    if spec.size() <= AGREEMENT_SAMPLE:
        chosen = list(spec.every())
    else:
        draw = random.Random(seed)
        chosen = [spec.pick(draw.randbytes(32)) for _ in range(AGREEMENT_SAMPLE)]
    seen = Counter(canonical(suite.canonical_answers(suite.answers(p))) for p in chosen)
    total = len(chosen)
    return sum((n / total) ** 2 for n in seen.values())
