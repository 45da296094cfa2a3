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
    Journal,
    Row,
    csv_text,
    plan_path,
    status,
    write_digest,
    write_plan,
)
from .intake import clean
from .roster import Student, match, read_roster, refuse_unmatched, workspace_id


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
    if roster is not None:
        if len(folders) != 1:
            raise GradesError("with --roster, give one folder: the submissions, one sub-folder "
                              "per student id (submitted/<id>/) or class workspaces")
        matched = match(read_roster(roster), folders[0])
        refuse_unmatched(matched, roster, folders[0])
        duplicated = set(matched.duplicates)
        rows = [Planned(s, matched.folders.get(s.id),
                        "" if s.id in matched.folders else "no submission",
                        f"id claimed twice: graded {clean(matched.folders[s.id].name)}"
                        if s.id in duplicated and s.id in matched.folders else "")
                for s in matched.students]
        return Plan(rows, folders[0], [clean(p) for p in matched.problems()])
    return _plan_folders(folders)


def _plan_folders(folders: list[Path]) -> Plan:
    """Without a roster: one row per folder; two folders that claim one id get a row each,
    named apart (`Planned.key`)."""
    from ..learner.workspace import MARKER, open_workspace

    for folder in folders:
        marker = folder / MARKER
        if marker.is_file() and not marker.is_symlink() and not folder.is_symlink():
            open_workspace(folder)  # a broken marker is named now, before anyone is graded
    ids = [clean(workspace_id(folder) or folder.name) for folder in folders]
    problems = [f"{sid}: {ids.count(sid)} folders have this id; each graded on its own row and "
                "feedback file, check by hand" for sid in dict.fromkeys(ids) if ids.count(sid) > 1]
    rows: list[Planned] = []
    used: set[str] = set()
    for folder, sid in zip(folders, ids, strict=True):
        twice = ids.count(sid) > 1
        key = f"{sid}.{clean(folder.name)}" if twice else sid
        while key in used:
            key += "_"
        used.add(key)
        rows.append(Planned(Student(sid, "", ""), folder,
                            note=f"id claimed twice: this row is {clean(folder.name)}" if twice
                            else "",
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


Progress = Callable[[int, int, StudentResult | None], None]
"""(done, total, the result that just arrived; None at the start)."""


def regrade(plan: Plan, outputs: Outputs, executor: Executor, fmt: str = "plain",
            catalog_dir: Path | None = None, options: GradeOptions | None = None,
            resume: bool = False, progress: Progress | None = None,
            variants: Callable[[str], dict[str, dict[str, Any]]] | None = None,
            catalog: Catalog | None = None,
            settle: Callable[[Summary], dict[str, Late] | None] | None = None) -> Summary:
    """Grade the plan's students and write every output (see the module docstring).
    `variants(student_id)`: that student's variants (a class course, `class_variants`);
    `catalog`: the one at `catalog_dir`, when the caller has it loaded already; `settle`:
    called once all are graded, before the final outputs, for each row's lateness."""
    options = options or GradeOptions()
    if fmt not in FORMATS:
        raise GradesError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
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
    journal = Journal(outputs.journal)
    keys = {clean(_where(p.folder)): p.name for p in plan.rows if p.folder is not None}
    results = {keys[where]: r for where, r in _resumed(journal, version, options).items()
               if where in keys} if resume else {}
    journal.start(keep=resume)
    write_plan(outputs.journal, [_planned_json(p) for p in plan.rows])
    jobs = [GradeJob(p.student.id, _where(p.folder),
                     str(catalog_dir) if catalog_dir else None, options,
                     variants(p.student.id) if variants else {})
            for p in plan.rows if p.folder is not None and p.name not in results]
    summary = Summary(results, [], outputs, version, resumed=len(results))
    exercise_ids = [e.id for e in catalog]
    total = len(jobs) + len(results)

    def write_csv(final: bool) -> None:
        late = summary.late or {}
        summary.rows = [_row(p, results.get(p.name), late.get(p.name)) for p in plan.rows
                        if final or p.name in results]
        write_text(outputs.csv, csv_text(summary.rows, exercise_ids, catalog.total_points, fmt,
                                         options.isolation, summary.late is not None),
                   "grades CSV", GradesError)

    def arrived(result: StudentResult) -> None:
        key = keys.get(result.submission, result.student_id)
        journal.append(result)
        results[key] = result
        write_csv(final=False)
        if outputs.feedback is not None:
            from .feedback import write_feedback

            write_feedback(outputs.feedback, result, key)
        if progress is not None:
            progress(len(results), total, result)

    if progress is not None:
        progress(len(results), total, None)
    write_csv(final=False)
    from .classroom import grade_class

    grade_class(jobs, executor, arrived)
    summary.late = settle(summary) if settle is not None else None
    _write_late(plan, summary)
    write_csv(final=True)
    write_digest(outputs.digest, plan.submissions, results.values(), outputs.csv, version)
    return summary


def _where(folder: Path) -> str:
    """A submission folder as jobs name it: absolute, links not followed (so a folder that is
    a link is seen as one, and refused), the same from any working folder. Its result names it
    `clean`ed (`routerlab.exercises.teacher.intake`), as the keys do."""
    return os.path.abspath(folder)


def _row(planned: Planned, result: StudentResult | None, late: Late | None = None) -> Row:
    student = planned.student
    if not student.name and result is not None:
        student = replace(student, name=result.name)
    return Row(student, result, status(result, planned.flag, planned.note),
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


def _resumed(journal: Journal, version: str, options: GradeOptions) -> dict[str, StudentResult]:
    done = {where: r for where, r in journal.read().items() if not r.error}  # failures: again
    for result in done.values():
        if result.catalog_version != version:
            raise GradesError(f"{journal.path}: graded against catalog {result.catalog_version}, "
                              f"this one is {version}; regrade without --resume")
        if (result.isolation == "jail") != options.isolation:
            raise GradesError(f"{journal.path}: graded with a different --no-isolation setting; "
                              "regrade without --resume")
    return done
