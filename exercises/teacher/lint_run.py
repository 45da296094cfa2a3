"""`teacher lint` as one call: the catalog's lint (starters fail, solutions pass, hints, hidden
checks) and, for each exercise that varies, `variants` random variants proved, with how many
were proved per exercise (`routerlab.exercises.authoring.lint`, `.variant_lint`)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..authoring.lint import lint as lint_catalog
from ..authoring.lint import lint_folder
from ..authoring.secret import find_secret
from ..authoring.variant_lint import check_count
from .classroom import catalog_at


@dataclass
class LintOutcome:
    results: list[Any]
    """`routerlab.exercises.authoring.lint`'s results, each with its variants proved and their
    problems too."""
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
    results = (lint_folder(catalog_dir, only, variants=variants) if catalog_dir is not None
               else lint_catalog(catalog_at(None), only, variants=variants))
    return LintOutcome(results, time.monotonic() - started, not only)
