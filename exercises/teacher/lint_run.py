"""`teacher lint` as one call: the catalog's lint (starters fail, solutions pass, hints, hidden
checks) and, for each exercise that varies, `variants` random variants proved, with how many
were proved per exercise (`routerlab.exercises.authoring.lint`, `.variant_lint`)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..authoring.lint import lint as lint_catalog
from ..authoring.lint import lint_folder
from ..authoring.secret import find_secret
from ..authoring.variant_lint import check_count, lint_catalog_variants
from .classroom import catalog_at


@dataclass
class LintOutcome:
    results: list[Any]
    """`routerlab.exercises.authoring.lint`'s results, each with the variants' problems too."""
    proved: dict[str, int]
    """Exercise id → how many variants were proved (0 for an exercise that does not vary)."""
    seconds: float
    whole: bool = True
    """The whole catalog was linted (no ids named): the overall mutation goal applies."""

    @property
    def mutation_score(self) -> float | None:
        """The share of mutants the checks kill over every implement exercise linted."""
        from ..authoring.lint import mutation_score

        return mutation_score(self.results)

    @property
    def below_goal(self) -> bool:
        """A whole catalog whose checks kill fewer mutants than `mutation.GOAL_ALL`."""
        from ..authoring.mutation import GOAL_ALL

        score = self.mutation_score
        return self.whole and score is not None and score < GOAL_ALL

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results) and not self.below_goal


def lint_course(catalog_dir: Path | None, only: list[str] | None, variants: int,
                course_id: str | None = None, secret: Path | None = None) -> LintOutcome:
    """Lint the course folder (a temporary copy of it) or the installed catalog; with a course
    or a secret, that secret must be found first, and the count of variants must be within
    docs/limits.md (both refused before anything runs)."""
    check_count(variants)
    started = time.monotonic()
    if course_id is not None or secret is not None:
        find_secret(course_id or "routerlab", secret)
    # The variants are proved beside the catalog's lint, not after it, by two workers (half the
    # exercises each, a jail each): each mostly waits on its own processes (sandboxes, a jail),
    # and one after the other left a core idle (50 variants on two cores: 220 s one after the
    # other, 177 s beside it with one worker, 144 s with two; the same report).
    catalog = catalog_at(catalog_dir)
    ids = only or [e.id for e in catalog]
    halves = [ids[0::2], ids[1::2]] if variants else []
    with ThreadPoolExecutor(max_workers=2) as side:
        proving = [side.submit(lint_catalog_variants, catalog, half, variants)
                   for half in halves if half]
        results = (lint_folder(catalog_dir, only) if catalog_dir is not None
                   else lint_catalog(catalog_at(None), only))
        checked_all = [c for p in proving for c in p.result()]
    proved: dict[str, int] = {r.exercise.id: 0 for r in results}
    if variants:
        for checked in checked_all:
            proved[checked.exercise.id] = checked.variants
            for result in results:
                if result.exercise.id == checked.exercise.id:
                    result.problems += checked.problems
    return LintOutcome(results, proved, time.monotonic() - started, not only)
