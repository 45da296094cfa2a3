"""`teacher recheck` as a batch: who is graded, in what order, and what is written as it goes.

`plan_class` turns the command line into one `Planned` row per student: with `--roster`, every
roster id in roster order (matched on the id, `routerlab.exercises.teacher.roster`); without, each
folder named, identified by its class workspace's id or its folder name. Two folders that claim
one id get a row each, with distinct names for their results and feedback files (`Planned.name`),
so one never replaces the other. `regrade` then grades every row that has a folder through an
`Executor` (`routerlab.exercises.teacher.classroom`) and, as each student's result arrives:
appends it to the journal, rewrites the CSV, writes their feedback, and reports progress.

No false zeros: while the run goes on (and after a crash) the CSV lists only the students graded
so far, each with its status; the students with no submission get their rows at the end. A
student whose grading fails gets a row with the reason; nothing one student does stops the
class. `resume=True` grades only the folders the journal does not hold yet.

Lateness: once everyone is graded, `settle` (recheck's: it records the run in the course's
gradebook) may say how late each row handed in and what it cost; the final CSV, each late
student's feedback and `NAME.late.json` beside the journal (which `teacher report` shows) then
say so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..catalog import Catalog
from ..errors import GradesError
from ..files import check_target, describe, write_text
from .class_variants import ClassCourse
from .classroom import (
    Executor,
    GradeJob,
    GradeOptions,
    StudentResult,
    catalog_at,
    catalog_version,
)
from .gradebook import (
    FORMATS,
    ResumeFile,
    Row,
    csv_text,
    plan_path,
    status,
    write_digest,
    write_plan,
)
from .intake import clean, printable
from .roster import Student, match, read_roster, refuse_unmatched, valid_id, workspace_id


@dataclass(frozen=True)
class Planned:
    student: Student
    folder: Path | None
    flag: str = ""
    """Why this row is not graded ("no submission")."""
    note: str = ""
    """A warning its status carries ("id claimed twice")."""
    key: str = ""
    """The row's own name, unique in the plan (the id, or id.FOLDER when two folders claim one
    id): results and feedback files are keyed by it, so one row never replaces another."""

    @property
    def name(self) -> str:
        return self.key or self.student.id


@dataclass
class Plan:
    rows: list[Planned]
    submissions: Path
    """The folder the digest's paths are relative to."""
    problems: list[str] = field(default_factory=list)


def plan_class(folders: list[Path], roster: Path | None) -> Plan:
    """Who to grade (see the module docstring); GradesError for a command line that names no
    usable folder, before anything is graded."""
    for folder in folders:
        if not folder.is_dir():
            raise GradesError(f"{folder}: not a folder (a workspace, a folder of handed-in "
                              "files, or with --roster the folder of submissions)")
    if roster is None and folders and not any(any(f.iterdir()) for f in folders):
        # a mistyped path, a copy that failed: nothing to grade is not a class of zeros (one
        # empty folder among others is a student who handed in nothing, and gets that row)
        raise GradesError(f"{clean(str(folders[0]))}: an empty folder (no workspace, no "
                          "handed-in file); nothing was graded")
    if roster is not None:
        if len(folders) != 1:
            raise GradesError("with --roster, give one folder: the submissions, one sub-folder "
                              "per student id (submitted/<id>/) or class workspaces")
        matched = match(read_roster(roster), folders[0])
        refuse_unmatched(matched, roster, folders[0])
        duplicated = set(matched.duplicates)
        rows = [Planned(s, matched.folders.get(s.id),
                        "" if s.id in matched.folders else "no submission",
                        f"id claimed twice: graded {printable(matched.folders[s.id].name)}"
                        if s.id in duplicated and s.id in matched.folders else "")
                for s in matched.students]
        used = {s.id for s in matched.students}
        for sid, folder in matched.claimants:  # graded under their own names, flagged
            key = f"{sid}.{printable(folder.name)}"
            while key in used:
                key += "_"
            used.add(key)
            rows.append(Planned(Student(printable(folder.name), "", ""), folder,
                                note=f"claims the id {printable(sid)} of another folder: graded "
                                     "under its own folder name, check by hand", key=key))
        return Plan(rows, folders[0], [printable(p) for p in matched.problems()])
    return _plan_folders(folders)


def _plan_folders(folders: list[Path]) -> Plan:
    """Without a roster: one row per folder; two folders that claim one id get a row each,
    named apart (`Planned.key`)."""
    from ..learner.workspace import MARKER, open_workspace

    for folder in folders:
        marker = folder / MARKER
        if marker.is_file() and not marker.is_symlink() and not folder.is_symlink():
            open_workspace(folder)  # a broken marker is named now, before anyone is graded
    marked = [workspace_id(folder) for folder in folders]
    ids = [printable(m if m and valid_id(m) else folder.name)  # the roster's rule, always
           for m, folder in zip(marked, folders, strict=True)]
    problems = [f"{sid}: {ids.count(sid)} folders have this id; each graded on its own row and "
                "feedback file, check by hand" for sid in dict.fromkeys(ids) if ids.count(sid) > 1]
    rows: list[Planned] = []
    used: set[str] = set()
    for folder, sid, mark in zip(folders, ids, marked, strict=True):
        twice = ids.count(sid) > 1
        key = f"{sid}.{printable(folder.name)}" if twice else sid
        while key in used:
            key += "_"
        used.add(key)
        refused = mark is not None and not valid_id(mark)
        notes = [f"id claimed twice: this row is {printable(folder.name)}" if twice else "",
                 "the marker's id is not an id (a slash, a control character): graded under "
                 "the folder's name" if refused else ""]
        rows.append(Planned(Student(sid, "", ""), folder, note="; ".join(n for n in notes if n),
                            key=key))
    root = Path(os.path.commonpath([str(f.resolve()) for f in folders]))
    return Plan(rows, root if len(folders) > 1 else folders[0].resolve().parent, problems)


@dataclass
class Outputs:
    csv: Path
    digest: Path
    journal: Path
    feedback: Path | None = None

    @classmethod
    def beside(cls, csv: Path, feedback: Path | None) -> Outputs:
        return cls(csv, csv.with_suffix(".sha256"), csv.with_suffix(".jsonl"), feedback)


@dataclass(frozen=True)
class Late:
    """How late one row handed in and what it cost (`Row.late`, `Row.late_points`)."""

    text: str
    points: float


LATE_FORMAT = "routerlab-class-late"


def late_path(journal: Path) -> Path:
    """Where a run's lateness is kept beside its journal (`NAME.jsonl` -> `NAME.late.json`)."""
    return journal.with_suffix(".late.json")


@dataclass
class Summary:
    results: dict[str, StudentResult]
    """Keyed by each row's `Planned.name` (the student id unless two folders claim one)."""
    rows: list[Row]
    outputs: Outputs
    catalog_version: str
    resumed: int = 0
    late: dict[str, Late] | None = None
    """Each row's lateness by `Planned.name`, when the course has an assignment (None: none)."""


def jail_failures(summary: Summary) -> list[str]:
    """The rows no jail could grade (`routerlab.exercises.engine.jail.JailDied`: it did not
    start, or is not safe on this machine): RouterLab's trouble, not the student's, so the run
    must not end as if the class were graded (`teacher recheck` exits 1; `--resume` regrades
    them)."""
    from ..engine.jail import JailDied

    return [name for name, result in summary.results.items()
            if result.error.startswith(f"{JailDied.__name__}:")]


Progress = Callable[[int, int, StudentResult | None], None]
"""(done, total, the result that just arrived; None at the start)."""


def regrade(plan: Plan, outputs: Outputs, executor: Executor, fmt: str = "plain",
            catalog_dir: Path | None = None, options: GradeOptions | None = None,
            resume: bool = False, progress: Progress | None = None,
            variants: Callable[[str], dict[str, dict[str, Any]]] | None = None,
            catalog: Catalog | None = None, course: ClassCourse | None = None,
            settle: Callable[[Summary], dict[str, Late] | None] | None = None) -> Summary:
    """Grade the plan's students and write every output (see the module docstring).
    `variants(student_id)`: that student's variants (a class course, `class_variants`);
    `catalog`: the one at `catalog_dir`, when the caller has it loaded already; `course`: the
    course the teacher named; a folder that is not that course's (`ClassCourse.problem`) gets
    its row with the reason, and is not graded; `settle`: called once all are graded, before
    the final outputs, for each row's lateness."""
    options = options or GradeOptions()
    if fmt not in FORMATS:
        raise GradesError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    _one_row_per_lms_id(plan, fmt)
    for path, what in ((outputs.csv, "grades CSV"), (outputs.digest, "digest file"),
                       (outputs.journal, "resume file"),
                       (plan_path(outputs.journal), "class file"),
                       (late_path(outputs.journal), "lateness file")):
        check_target(path, what, GradesError)
    if outputs.feedback is not None:
        try:
            outputs.feedback.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise GradesError(f"{outputs.feedback}: cannot make the feedback folder: "
                              f"{error.strerror}") from None
    catalog = catalog or catalog_at(catalog_dir)
    version = catalog_version(catalog)
    journal = ResumeFile(outputs.journal)
    keys = {clean(_where(p.folder)): p.name for p in plan.rows if p.folder is not None}
    results = {keys[where]: r for where, r in _resumed(journal, version, options).items()
               if where in keys} if resume else {}
    journal.start(keep=resume)
    write_plan(outputs.journal, [_planned_json(p) for p in plan.rows])
    waiting = [(p, p.folder) for p in plan.rows if p.folder is not None and p.name not in results]
    refused = {p.name: why for p, folder in waiting
               if course is not None and (why := course.problem(folder))}
    jobs = [GradeJob(p.student.id, _where(folder),
                     str(catalog_dir) if catalog_dir else None, options,
                     variants(p.student.id) if variants else {},
                     course.truths_key if course is not None else "")
            for p, folder in waiting if p.name not in refused]
    summary = Summary(results, [], outputs, version, resumed=len(results))
    exercise_ids = [e.id for e in catalog]
    total = len(waiting) + len(results)

    notes: dict[str, str] = {}  # a row's own trouble after grading (its feedback unwritten)

    def write_csv(final: bool) -> None:
        late = summary.late or {}
        summary.rows = [_row(p, results.get(p.name), notes.get(p.name, ""), late.get(p.name))
                        for p in plan.rows
                        if final or p.name in results]
        write_text(outputs.csv, csv_text(summary.rows, exercise_ids, catalog.total_points, fmt,
                                         options.isolation, summary.late is not None),
                   "grades CSV", GradesError)

    def arrived(result: StudentResult) -> None:
        key = keys.get(result.submission, result.student_id)
        journal.append(result)
        results[key] = result
        if outputs.feedback is not None:
            from .feedback import write_feedback

            try:
                write_feedback(outputs.feedback, result, key)
            except GradesError as error:  # this student's, never the class's
                notes[key] = f"feedback not written: {error}"
        write_csv(final=False)
        if progress is not None:
            progress(len(results), total, result)

    if progress is not None:
        progress(len(results), total, None)
    write_csv(final=False)
    for planned, folder in waiting:
        if planned.name in refused:  # that student's row says why; the class goes on
            arrived(StudentResult(planned.student.id, clean(_where(folder)),
                                  error=refused[planned.name]))
    from .classroom import grade_class

    grade_class(jobs, executor, arrived)
    summary.late = settle(summary) if settle is not None else None
    _write_late(plan, summary)
    write_csv(final=True)
    write_digest(outputs.digest, plan.submissions, results.values(), outputs.csv, version)
    return summary


def _one_row_per_lms_id(plan: Plan, fmt: str) -> None:
    """An LMS file never holds one LMS id twice (the LMS would take either row's grade):
    refused before anyone is graded, naming the rows."""
    if fmt == "plain":
        return
    rows: dict[str, list[str]] = {}
    for planned in plan.rows:
        rows.setdefault(planned.student.lms_id or planned.student.id, []).append(planned.name)
    twice = {lms: names for lms, names in rows.items() if len(names) > 1}
    if twice:
        shown = "; ".join(f"{printable(lms)!r}: rows {', '.join(map(printable, names))}"
                          for lms, names in sorted(twice.items()))
        raise GradesError(f"the {fmt} file would hold one LMS id on several rows ({shown}); "
                          "give each folder its own id, or grade with --format plain")


def _where(folder: Path) -> str:
    """A submission folder as jobs name it: absolute, links not followed (so a folder that is
    a link is seen as one, and refused), the same from any working folder. Its result names it
    `clean`ed (`routerlab.exercises.teacher.intake`), as the keys do."""
    return os.path.abspath(folder)


def _row(planned: Planned, result: StudentResult | None, note: str = "",
         late: Late | None = None) -> Row:
    """A CSV row, every text a student shaped in its printable form (`intake.printable`)."""
    student = planned.student
    if not student.name and result is not None:
        student = replace(student, name=result.name)
    student = replace(student, id=printable(student.id), name=printable(student.name),
                      email=printable(student.email))
    notes = "; ".join(n for n in (planned.note, note) if n)
    return Row(student, result, printable(status(result, planned.flag, notes)),
               late.text if late else "", late.points if late else 0.0)


def _write_late(plan: Plan, summary: Summary) -> None:
    """The lateness `settle` found: each late student's feedback rewritten with it, and the
    class's in `NAME.late.json` (removed when there is none, so no old run's lateness is
    shown beside this one's grades)."""
    path = late_path(summary.outputs.journal)
    late = {name: cell for name, cell in (summary.late or {}).items() if cell.text}
    if summary.outputs.feedback is not None:
        from .feedback import write_feedback

        for name, cell in late.items():
            if name in summary.results:
                write_feedback(summary.outputs.feedback, summary.results[name], name, cell.text)
    if summary.late is None:
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            raise GradesError(describe(error, "remove the old lateness file")) from None
        return
    rows = [{"id": p.student.id, "key": p.name, "late": late[p.name].text,
             "points_lost": late[p.name].points} for p in plan.rows if p.name in late]
    write_text(path, json.dumps({"format": LATE_FORMAT, "students": rows}) + "\n",
               "lateness file", GradesError)


def _planned_json(planned: Planned) -> dict[str, str]:
    return {"id": planned.student.id, "name": planned.student.name, "key": planned.name,
            "folder": clean(_where(planned.folder)) if planned.folder is not None else "",
            "status": planned.flag}


def _resumed(journal: ResumeFile, version: str, options: GradeOptions) -> dict[str, StudentResult]:
    done = {where: r for where, r in journal.read().items() if not r.error}  # failures: again
    for result in done.values():
        if result.catalog_version != version:
            raise GradesError(f"{journal.path}: graded against catalog {result.catalog_version}, "
                              f"this one is {version}; regrade without --resume")
        if (result.isolation == "jail") != options.isolation:
            raise GradesError(f"{journal.path}: graded with a different --no-isolation setting; "
                              "regrade without --resume")
    return done
