"""Grade a class: one student's submission at a time, in an OS jail, any number side by side.

The contract other modules build on (the CLI's `teacher recheck`, a Dask executor):

    grade_student(submission: Path, catalog_dir: Path | None = None,
                  options: GradeOptions = GradeOptions()) -> StudentResult

grades ONE student's folder (a workspace, or `submitted/<id>/` of handed-in files) against the
teacher's catalog (`catalog_dir`, or the installed one) and never raises: a crash, a time-out, a
fork bomb or a malformed result becomes that student's result with the reason. `StudentResult`
is plain data: `to_json()` gives a JSON-serialisable dict and `StudentResult.from_json` reads it
back, so a result can cross a process or a network.

A batch is `grade_class(jobs, executor, on_result)`: `jobs` are `GradeJob`s (plain data too),
`executor` anything with `run(jobs) -> Iterator[StudentResult]` that yields each result as soon
as it is ready, in any order (`LocalExecutor`: a pool of threads on this machine, each driving
its student's jail; the jails are the processes that do the work). `grade_job(job)` is the
top-level function a remote worker calls.

How one student is graded: each file is read once, where it enters this process
(`routerlab.exercises.teacher.intake`: no link, nothing outside the student's folder, the bytes
hashed as handed in) and graded from the teacher's own copy; implement exercises run in the
student's jail
(`routerlab.exercises.engine.jail`: the model imported once, one fork per exercise, the graded
function absent); predict answers are read from the file's literals and never run
(`routerlab.exercises.engine.literals`); the verdict is computed here, from data, against answers
that never enter the jail. Every string of the result is made valid Unicode on its way out, so
no text a student shapes can stop the class's CSV, journal or feedback from being written.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ... import __version__
from ..catalog import Catalog, Exercise, Kind, load_catalog
from ..engine.scoring import score
from ..learner.workspace import MARKER, open_workspace
from ..report import CheckReport
from .fingerprints import answers_digest, code_prints
from .intake import Refused, check_folder, clean_result, read_file
from .truths import TruthStore

if TYPE_CHECKING:
    from ..engine.jail import Jail
    from ..engine.jail_keeper import JailKeeper

RESULT_FORMAT = "routerlab-student-result"
ISOLATED, UNISOLATED = "jail", "none"


@dataclass(frozen=True)
class GradeOptions:
    """How to grade. `isolation`: in the bubblewrap jail (False: the in-process sandbox, which a
    student's code can escape; the results say so). `per_part`: predict exercises earn a share
    per right part (class mode's default)."""

    isolation: bool = True
    per_part: bool = True
    timeout_scale: float = 1.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GradeOptions:
        return cls(**{k: data[k] for k in ("isolation", "per_part", "timeout_scale") if k in data})


@dataclass
class CheckResult:
    """One check as the teacher and the student's feedback see it; a hidden check never carries
    its expected value."""

    name: str
    hidden: bool
    status: str
    message: str = ""
    expected: str | None = None
    got: str | None = None
    hint: int | None = None
    mistake: str = ""
    """A wrong predict answer's kind (a declared mistake's name), for the class report."""


@dataclass
class ExerciseResult:
    id: str
    title: str
    kind: str
    points: float
    points_possible: int
    passed: bool
    status: str
    """passed / failed / error / missing (no file handed in)."""
    problem: str = ""
    hint_level: int | None = None
    """The hint level that would help most: that of the first check that failed."""
    checks: list[CheckResult] = field(default_factory=list)
    sha256: str = ""
    file: str = ""
    """The graded file, relative to the submission folder."""
    seconds: float = 0.0
    output: str = ""
    """The end of what the student's code printed (control characters shown escaped)."""
    starter: bool = False
    """The file handed in is the exercise's starter, byte for byte: not tried."""
    variant: dict[str, Any] = field(default_factory=dict)
    """The parameters of the student's own variant it was graded on (empty: the catalog's)."""
    prints: list[int] = field(default_factory=list)
    """An implement file's winnowed fingerprints (`teacher.fingerprints`), for copy detection:
    made from the bytes read at the intake, so pairing never reads the file again."""
    answers: str = ""
    """A predict file's answers, as a digest (`fingerprints.answers_digest`)."""


@dataclass
class StudentResult:
    """Everything one student's regrade found; `error` is set when it could not finish."""

    student_id: str
    submission: str
    exercises: list[ExerciseResult] = field(default_factory=list)
    error: str = ""
    isolation: str = ISOLATED
    catalog_version: str = ""
    routerlab: str = __version__
    graded_at: str = ""
    seconds: float = 0.0
    name: str = ""
    """The student's name as the workspace marker gives it (the roster's wins in the CSV)."""

    @property
    def points(self) -> float:
        return round(sum(e.points for e in self.exercises), 2)

    @property
    def points_possible(self) -> int:
        return sum(e.points_possible for e in self.exercises)

    @property
    def passed(self) -> int:
        return sum(e.passed for e in self.exercises)

    def to_json(self) -> dict[str, Any]:
        return {"format": RESULT_FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StudentResult:
        if not isinstance(data, dict) or data.get("format") != RESULT_FORMAT:
            raise ValueError("not a RouterLab student result")
        fields = {k: v for k, v in data.items() if k != "format"}
        exercises = [ExerciseResult(**{**e, "checks": [CheckResult(**c) for c in e["checks"]]})
                     for e in fields.pop("exercises")]
        return clean_result(cls(exercises=exercises, **fields))  # a worker's, the journal's


@dataclass(frozen=True)
class GradeJob:
    """One student to grade, as plain data (what a remote worker receives)."""

    student_id: str
    submission: str
    catalog_dir: str | None = None
    options: GradeOptions = GradeOptions()
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)
    """This student's variant of each exercise that varies (made from the course secret in
    the teacher's process: the job carries parameters, never the secret)."""
    truths_key: str = ""
    """The key the truths cache signs variant entries with (`truths.truths_key`)."""

    def to_json(self) -> dict[str, Any]:
        return {"student_id": self.student_id, "submission": self.submission,
                "catalog_dir": self.catalog_dir, "options": self.options.to_json(),
                "variants": self.variants, "truths_key": self.truths_key}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GradeJob:
        variants = data.get("variants")
        return cls(str(data["student_id"]), str(data["submission"]), data.get("catalog_dir"),
                   GradeOptions.from_json(data.get("options") or {}),
                   dict(variants) if isinstance(variants, dict) else {},
                   str(data.get("truths_key") or ""))


def catalog_at(catalog_dir: Path | None) -> Catalog:
    """The teacher's catalog: their course folder (`teacher seal --catalog DIR`), or the
    installed one."""
    if catalog_dir is None:
        return load_catalog()
    if not (Path(catalog_dir) / "index.toml").is_file():
        from ..errors import CatalogError

        raise CatalogError(f"{catalog_dir} is not a course folder (no index.toml)")
    return load_catalog(str(Path(catalog_dir).resolve()))


def catalog_version(catalog: Catalog) -> str:
    """A digest of every exercise's definition and seals: two regrades with the same version
    graded against the same answers."""
    digest = hashlib.sha256()
    for exercise in catalog:
        digest.update(exercise.id.encode() + b"\0")
        for name in ("exercise.toml", "sealed.json", "starter.py"):
            path = exercise.folder / name
            digest.update(path.read_bytes() if path.is_file() else b"-")
    return digest.hexdigest()[:16]


def grade_student(submission: Path, catalog_dir: Path | None = None,
                  options: GradeOptions = GradeOptions(), student_id: str | None = None,
                  variants: dict[str, dict[str, Any]] | None = None,
                  truths_key: str = "", jails: JailKeeper | None = None) -> StudentResult:
    """Grade one student's folder from scratch; never raises (see the module's docstring).
    `variants`: the student's own variant of each exercise that varies (a class course).
    `jails`: the class run's kept jails (`engine.jail_keeper`; None: a jail of the student's
    own, started and ended here). Every string of the result is clean Unicode
    (`routerlab.exercises.teacher.intake`)."""
    started = time.monotonic()
    result = StudentResult(student_id or submission.name, str(submission),
                           isolation=ISOLATED if options.isolation else UNISOLATED,
                           graded_at=datetime.now(UTC).isoformat(timespec="seconds"))
    try:
        catalog = catalog_at(catalog_dir)
        result.catalog_version = catalog_version(catalog)
        _grade_into(result, submission, catalog.with_params(variants or {}), options,
                    truths_key, jails)
    except Exception as error:  # noqa: BLE001 - one student's failure is that student's row
        result.error = f"{type(error).__name__}: {error}"
        result.error += "" if str(error) else " (" + traceback.format_exc(limit=-1).strip() + ")"
    result.seconds = round(time.monotonic() - started, 3)
    return clean_result(_relative(result, submission))


def _grade_into(result: StudentResult, submission: Path, catalog: Catalog,
                options: GradeOptions, truths_key: str = "",
                jails: JailKeeper | None = None) -> None:
    from ..engine.runner import Candidate, run_checks

    root = check_folder(submission)
    truths = TruthStore.default(truths_key)  # the model's results, once per catalog version
    name, files = submission_files(submission, catalog)
    result.name = name
    with _student_jail(catalog, options, jails) as jail, tempfile.TemporaryDirectory(
            prefix="routerlab-intake-") as staging:
        for exercise in catalog:
            path = files.get(exercise.id)
            if path is None or not (path.is_file() or path.is_symlink()):
                result.exercises.append(_missing(exercise))
                continue
            try:
                data = read_file(root, path)
            except Refused as error:  # a link, too large, not a file: that exercise's 0
                result.exercises.append(_missing(exercise, f"not graded: {error}"))
                continue
            copy = Path(staging) / path.name  # the bytes read once, graded from the teacher's copy
            copy.write_bytes(data)
            report = run_checks(exercise, Candidate(copy, path.name),
                                timeout=exercise.timeout * options.timeout_scale,
                                expected=truths.expected(exercise), jail=jail,
                                predict_as_data=True)
            if jail is not None and jail.broken is not None:  # RouterLab's trouble: no grade
                raise jail.broken
            graded = _exercise(exercise, report, score(exercise, report, options.per_part))
            graded.sha256 = hashlib.sha256(data).hexdigest()
            graded.file = path.relative_to(submission).as_posix()
            graded.starter = data == exercise.starter().encode("utf-8")
            graded.variant = exercise.variant_params() if exercise.params else {}
            _evidence(graded, exercise, data)
            result.exercises.append(graded)


def _relative(result: StudentResult, submission: Path) -> StudentResult:
    """The student's result with every path of the teacher's machine to their folder shown
    relative to it (`./routerlab-exercises.toml`): a student's feedback shows their own files,
    never where the teacher keeps them."""
    roots = sorted({str(submission), os.path.abspath(submission), os.path.realpath(submission)},
                   key=len, reverse=True)

    def rel(text: str) -> str:
        for root in roots:
            text = text.replace(root + os.sep, "./").replace(root, ".")
        return text

    result.error = rel(result.error)
    for exercise in result.exercises:
        exercise.problem = rel(exercise.problem)
        exercise.output = rel(exercise.output)
        for check in exercise.checks:
            check.message = rel(check.message)
    return result


def _evidence(graded: ExerciseResult, exercise: Exercise, data: bytes) -> None:
    """What copy detection keeps of the file (`teacher.fingerprints`), from the bytes graded."""
    if graded.starter:
        return  # an untouched starter is nobody's copy
    text = data.decode("utf-8", "replace")
    if exercise.kind is Kind.IMPLEMENT:
        graded.prints = code_prints(text)
    else:
        graded.answers = answers_digest(exercise, text)


@contextlib.contextmanager
def _student_jail(catalog: Catalog, options: GradeOptions,
                  jails: JailKeeper | None) -> Iterator[Jail | None]:
    """The jail a student is graded in: the worker's kept one (`jails`), else one of their own,
    ended when they are graded; None without isolation."""
    from ..engine.jail import Jail, JailDied, unavailable
    from ..engine.jail_image import build_image, graded_targets

    if not options.isolation:
        yield None
        return
    why = unavailable()
    if why is not None:
        raise JailDied(why)
    image, checks = build_image(frozenset(graded_targets(catalog))), sorted(
        {e.checks for e in catalog})
    if jails is not None:
        yield jails.take(image, checks)
        return
    with Jail(image, checks) as jail:
        yield jail


def _missing(exercise: Exercise, why: str = "") -> ExerciseResult:
    return ExerciseResult(exercise.id, exercise.title, exercise.kind.value, 0.0, exercise.points,
                          False, "error" if why else "missing", problem=why or "no file handed in")


def _exercise(exercise: Exercise, report: CheckReport, points: float) -> ExerciseResult:
    checks = [CheckResult(o.name, o.hidden, o.status, o.message,
                          None if o.hidden else o.expected, o.got, o.hint, o.mistake)
              for o in report.outcomes]
    failing = [o for o in report.outcomes if not o.ok]
    problem = report.problem.message if report.problem else ""
    hint = report.problem.hint if report.problem else (failing[0].hint if failing else None)
    status = "passed" if report.passed else ("error" if report.problem else "failed")
    return ExerciseResult(exercise.id, exercise.title, exercise.kind.value, points,
                          exercise.points, report.passed, status, problem, hint, checks,
                          seconds=round(report.seconds, 3), output=report.output)


def grade_job(job: GradeJob, jails: JailKeeper | None = None) -> StudentResult:
    """`grade_student` for one job: what an executor (local or remote) runs; `jails`: the
    executor's kept jails, if it keeps them."""
    catalog_dir = Path(job.catalog_dir) if job.catalog_dir else None
    return grade_student(Path(job.submission), catalog_dir, job.options, job.student_id,
                         job.variants, job.truths_key, jails)


class Executor(Protocol):
    """Runs grading jobs somewhere; yields each student's result as soon as it is ready."""

    def run(self, jobs: Sequence[GradeJob]) -> Iterator[StudentResult]: ...


class LocalExecutor:
    """`workers` students at a time on this machine. Threads are enough: each one waits on its
    student's jail, a separate process tree, and the judging here is light; sharing one process
    also shares the model's expected results, computed once. Each thread keeps its jail from
    one student to the next (`engine.jail_keeper`: what separates two students is what already
    separates two exercises); all of them end with the run."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)

    def run(self, jobs: Sequence[GradeJob]) -> Iterator[StudentResult]:
        from ..engine.jail_keeper import JailKeeper

        with JailKeeper() as jails, ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures: dict[Future[StudentResult], GradeJob] = {
                pool.submit(grade_job, job, jails): job for job in jobs}
            try:
                yield from self._arrivals(futures)
            finally:  # the caller stopped (a full disk, ^C): start no other student
                pool.shutdown(wait=True, cancel_futures=True)

    @staticmethod
    def _arrivals(futures: dict[Future[StudentResult], GradeJob]) -> Iterator[StudentResult]:
        for future in as_completed(futures):
            job = futures[future]
            try:
                yield future.result()
            except Exception as error:  # noqa: BLE001 - grade_student never raises; belt
                yield clean_result(StudentResult(job.student_id, job.submission,
                                                 error=f"{type(error).__name__}: {error}"))


def grade_class(jobs: Iterable[GradeJob], executor: Executor,
                on_result: Callable[[StudentResult], None]) -> list[StudentResult]:
    """Grade every job through `executor`, handing each result to `on_result` as it arrives
    (to write its row and move the progress bar); the results, in arrival order."""
    out = []
    arrivals = executor.run(list(jobs))
    try:
        for result in arrivals:
            on_result(result)
            out.append(result)
    finally:  # `on_result` failed (a full disk): the executor starts nobody else
        close = getattr(arrivals, "close", None)
        if close is not None:
            close()
    return out


def submission_files(folder: Path, catalog: Catalog) -> tuple[str, dict[str, Path | None]]:
    """The student and their file per exercise: a workspace (its marker names the student), or
    any folder holding files named like a workspace's (`registry_1.py`, or the numbered
    `01_registry_1.py` of older RouterLabs), named after the folder. State files are ignored."""
    if (folder / MARKER).is_symlink():
        raise Refused(f"{MARKER} is a link, not the student's own workspace file")
    if (folder / MARKER).is_file():
        workspace = open_workspace(folder)
        return workspace.student, {e.id: workspace.file_for(e) for e in catalog}
    files: dict[str, Path | None] = {}
    for exercise in catalog:
        found: list[Path] = []
        for base in (folder, folder / "exercises"):
            found += [p for p in [base / exercise.file_name] if p.is_file() or p.is_symlink()]
            found += sorted(base.glob(f"[0-9][0-9]_{exercise.file_name}"))
        files[exercise.id] = found[0] if found else None
    return folder.name, files
