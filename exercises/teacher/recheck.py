"""`teacher recheck` as one call: the class workflow the command line used to hold.

`recheck(request)` checks the jail, plans the class, finds the course the teacher names and its
secret (refused before anyone is graded), loads the catalog once, grades through the executor,
writes the grades and the copy report, and records the run (and the roster) in the course's
gradebook (`routerlab.exercises.teacher.gradebook_db`) when the course was released on this
machine. The command renders what comes back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..catalog import Catalog
from ..errors import GradesError
from .class_variants import class_course
from .classroom import GradeOptions, LocalExecutor, catalog_at
from .regrade import Outputs, Plan, Progress, Summary, jail_failures, plan_class, regrade


class NoJail(GradesError):
    """The jail cannot start here (bubblewrap missing, user namespaces off): nobody is graded,
    and the line says how to install it or grade without it."""


@dataclass(frozen=True)
class RecheckRequest:
    """What the command line asked for (see `routerlab teacher recheck --help`)."""

    folders: list[Path]
    out: Path = Path("grades.csv")
    jobs: int | None = None
    roster: Path | None = None
    fmt: str = "plain"
    feedback: Path | None = None
    catalog_dir: Path | None = None
    resume: bool = False
    isolation: bool = True
    scheduler: str | None = None
    course: str | None = None
    secret: Path | None = None


@dataclass
class RecheckOutcome:
    plan: Plan
    summary: Summary
    seconds: float
    similar: Path
    pairs: int
    course: str
    """The course the class was graded as, and whether with variants (`ClassCourse.summary`)."""
    gradebook: Path | None
    """The gradebook the run was recorded in (None: the course is not released here)."""
    gradebook_note: str = ""
    jail_failed: list[str] = field(default_factory=list)
    """Students no jail could grade (`regrade.jail_failures`): the run must not end as if the
    class were graded."""


def recheck(request: RecheckRequest, progress: Progress | None = None,
            warn: Callable[[str], None] | None = None) -> RecheckOutcome:
    """Grade the class and record it (see the module docstring); GradesError before anything
    is graded for a jail that cannot start, a plan or a secret that is refused."""
    from ..engine.jail import unavailable
    from ..engine.runner import workers
    from .dask_executor import DaskExecutor
    from .similar import find_pairs, similar_path, write_similar

    why = None if not request.isolation or request.scheduler else unavailable()
    if why is not None:  # a cluster: the workers' own jails
        raise NoJail(f"{why}; or grade without isolation: --no-isolation (student code "
                     "could then change the grades)")
    plan = plan_class(list(request.folders), request.roster)
    for problem in plan.problems:
        (warn or (lambda _: None))(problem)
    found = [p.folder for p in plan.rows if p.folder is not None]
    course = class_course(found, request.course, request.secret, request.catalog_dir)
    catalog = catalog_at(request.catalog_dir)
    variants = course.variants_of(catalog)
    _make_parent(request.out)
    started = time.monotonic()
    executor = (DaskExecutor(request.scheduler) if request.scheduler
                else LocalExecutor(request.jobs or workers()))
    summary = regrade(plan, Outputs.beside(request.out, request.feedback), executor,
                      request.fmt, request.catalog_dir, GradeOptions(isolation=request.isolation),
                      request.resume, progress, variants, catalog, course)
    pairs = find_pairs(summary.results.values(), catalog,
                       {sid: variants(sid) for sid in summary.results} if variants else None)
    similar = write_similar(similar_path(request.out), pairs)
    seconds = time.monotonic() - started
    book, note = _record(course.id, plan, summary, catalog, request.roster is not None)
    return RecheckOutcome(plan, summary, seconds, similar, len(pairs), course.summary(), book,
                          note, jail_failures(summary))


def _make_parent(out: Path) -> None:
    """`--out` into a folder that does not exist yet makes it."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise GradesError(f"{out.parent}: cannot make the grades' folder: "
                          f"{error.strerror}") from None


def _record(course: str, plan: Plan, summary: Summary, catalog: Catalog,
            roster: bool) -> tuple[Path | None, str]:
    """The run (and with a roster, the roster) in the course's gradebook, if it has one here."""
    from .gradebook_db import db_path
    from .gradebook_term import record_roster, record_run

    try:
        if roster:
            record_roster(course, [p.student for p in plan.rows])
        record_run(course, catalog, summary.catalog_version,  # two folders of one id: two rows
                   [(replace(p.student, id=p.name), summary.results.get(p.name), row.status)
                    for p, row in zip(plan.rows, summary.rows, strict=True)])
    except GradesError as error:
        return None, f"not recorded in a gradebook: {error}"
    return db_path(course), ""
