"""`teacher recheck` as one call: the class workflow the command line used to hold.

`recheck(request)` checks the jail, plans the class, finds the course the teacher names and its
secret (refused before anyone is graded), loads the catalog once, grades through the executor,
writes the grades and the copy report, and records the run (and the roster) in the course's
gradebook (`routerlab.exercises.teacher.gradebook_db`) when the course was released on this
machine. When that gradebook has an assignment, each student's lateness against their due date or
extension and the penalty it costs (`routerlab.exercises.teacher.gradebook_grades`) go into the
run's own outputs too: the CSV, the late students' feedback and the class report (`regrade`'s
`settle`). The command renders what comes back.
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
from .regrade import Late, Outputs, Plan, Progress, Summary, jail_failures, plan_class, regrade


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


def class_jobs() -> int:
    """Students graded side by side by default: one per core and one more, at most 8. A worker
    waits part of each student (on the model's served peers, on its jail while the teacher's
    process judges another student's exercise), so one more keeps the cores busy: 40 students
    on two cores at load 1 to 4 took 61 s with two workers, 53 s with three
    (benchmarks/classroom.py)."""
    from ..engine.runner import workers

    return min(8, workers() + 1)


def recheck(request: RecheckRequest, progress: Progress | None = None,
            warn: Callable[[str], None] | None = None) -> RecheckOutcome:
    """Grade the class and record it (see the module docstring); GradesError before anything
    is graded for a jail that cannot start, a plan or a secret that is refused."""
    from ..engine.jail import unavailable
    from .dask_executor import DaskExecutor
    from .similar import find_pairs, model_truth, similar_path, write_similar

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
                else LocalExecutor(request.jobs or class_jobs()))
    recorded: list[tuple[Path | None, str]] = []

    def settle(graded: Summary) -> dict[str, Late] | None:
        recorded.append(_record(course.id, plan, graded, catalog, request.roster is not None))
        return lateness(course.id, plan) if recorded[0][0] is not None else None

    summary = regrade(plan, Outputs.beside(request.out, request.feedback), executor,
                      request.fmt, request.catalog_dir, GradeOptions(isolation=request.isolation),
                      request.resume, progress, variants, catalog, course, settle)
    pairs = find_pairs(summary.results.values(), catalog,
                       {sid: variants(sid) for sid in summary.results} if variants else None,
                       model_truth(course.truths_key))
    similar = write_similar(similar_path(request.out), pairs)
    seconds = time.monotonic() - started
    book, note = recorded[0]
    return RecheckOutcome(plan, summary, seconds, similar, len(pairs), course.summary(), book,
                          note, jail_failures(summary))


def lateness(course: str, plan: Plan) -> dict[str, Late] | None:
    """Each row's lateness as the course's gradebook computes it (the run just recorded, the
    hub's file times, the due date or extension, the late policy); None when the gradebook has
    no assignment, so the outputs keep their plain layout."""
    from .gradebook_db import Gradebook, StudentRow
    from .gradebook_grades import grade_of

    with Gradebook.of_course(course) as book:
        if not book.assignment_ids():
            return None
        out = {}
        for planned in plan.rows:
            late = [cell for cell in grade_of(book, StudentRow(planned.name, "", "", "", "")).late
                    if cell.late_by]
            out[planned.name] = Late("; ".join(
                f"{cell.assignment}: {cell.late_by} late against "
                f"{'the extension' if cell.extended else 'the due date'} {cell.due}: penalty "
                f"{cell.penalty:g}% ({cell.points_lost:g} points off)" for cell in late),
                round(sum(cell.points_lost for cell in late), 2))
        return out


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
    from .gradebook import status
    from .gradebook_db import db_path
    from .gradebook_term import record_roster, record_run

    try:
        if roster:
            record_roster(course, [p.student for p in plan.rows])
        record_run(course, catalog, summary.catalog_version,  # two folders of one id: two rows
                   [(replace(p.student, id=p.name), summary.results.get(p.name),
                     status(summary.results.get(p.name), p.flag, p.note)) for p in plan.rows])
    except GradesError as error:
        return None, f"not recorded in a gradebook: {error}"
    return db_path(course), ""
