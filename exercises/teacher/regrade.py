"""`teacher recheck` as a batch: who is graded, in what order, and what is written as it goes.

`plan_class` turns the command line into one `Planned` row per student: with `--roster`, every
roster id in roster order (matched on the id, `routerlab.exercises.teacher.roster`); without, each
folder named, identified by its class workspace's id or its folder name. `regrade` then grades every
row that has a folder through an `Executor` (`routerlab.exercises.teacher.classroom`) and, as each
student's result arrives: appends it to the journal, rewrites the CSV, writes their feedback, and
reports progress. A student whose grading fails gets a row with the reason; nothing one student does
stops the class. `resume=True` grades only the students the journal does not hold yet.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import GradesError
from ..files import check_target, write_text
from .classroom import (
    Executor,
    GradeJob,
    GradeOptions,
    StudentResult,
    catalog_at,
    catalog_version,
)
from .gradebook import FORMATS, Journal, Row, csv_text, status, write_digest
from .roster import Student, match, read_roster, workspace_id


@dataclass(frozen=True)
class Planned:
    student: Student
    folder: Path | None
    flag: str = ""
    """Why this row is not graded ("no submission"), or a warning ("id claimed twice")."""


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
        duplicated = set(matched.duplicates)
        rows = [Planned(s, matched.folders.get(s.id),
                        "no submission" if s.id not in matched.folders else
                        ("id claimed twice: graded " + matched.folders[s.id].name
                         if s.id in duplicated else ""))
                for s in matched.students]
        return Plan(rows, folders[0], matched.problems())
    from ..learner.workspace import MARKER, open_workspace

    rows, seen, problems = [], set(), []
    for folder in folders:
        if (folder / MARKER).is_file():
            open_workspace(folder)  # a broken marker is named now, before anyone is graded
        sid = workspace_id(folder) or folder.name
        flag = ""
        if sid in seen:
            problems.append(f"{sid}: two folders have this id; both graded, check by hand")
            flag = "id claimed twice"
        seen.add(sid)
        rows.append(Planned(Student(sid, "", ""), folder, flag))
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


@dataclass
class Summary:
    results: dict[str, StudentResult]
    rows: list[Row]
    outputs: Outputs
    catalog_version: str
    resumed: int = 0


Progress = Callable[[int, int, StudentResult | None], None]
"""(done, total, the result that just arrived; None at the start)."""


def regrade(plan: Plan, outputs: Outputs, executor: Executor, fmt: str = "plain",
            catalog_dir: Path | None = None, options: GradeOptions | None = None,
            resume: bool = False, progress: Progress | None = None,
            variants: Callable[[str], dict[str, dict[str, Any]]] | None = None) -> Summary:
    """Grade the plan's students and write every output (see the module docstring).
    `variants(student_id)`: that student's variants (a class course, `class_variants`)."""
    options = options or GradeOptions()
    if fmt not in FORMATS:
        raise GradesError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    for path, what in ((outputs.csv, "grades CSV"), (outputs.digest, "digest file"),
                       (outputs.journal, "resume file")):
        check_target(path, what, GradesError)
    if outputs.feedback is not None:
        try:
            outputs.feedback.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise GradesError(f"{outputs.feedback}: cannot make the feedback folder: "
                              f"{error.strerror}") from None
    catalog = catalog_at(catalog_dir)
    version = catalog_version(catalog)
    journal = Journal(outputs.journal)
    results = _resumed(journal, version, options) if resume else {}
    journal.start(keep=resume)
    jobs = [GradeJob(p.student.id, str(p.folder), str(catalog_dir) if catalog_dir else None,
                     options, variants(p.student.id) if variants else {})
            for p in plan.rows if p.folder is not None and p.student.id not in results]
    summary = Summary(results, [], outputs, version, resumed=len(results))
    exercise_ids = [e.id for e in catalog]
    total = len(jobs) + len(results)

    def write_csv() -> None:
        summary.rows = [Row(p.student if p.student.name else
                            Student(p.student.id, (results.get(p.student.id) or _no).name, ""),
                            results.get(p.student.id), status(results.get(p.student.id), p.flag
                                                              if p.folder is None else ""))
                        for p in plan.rows]
        write_text(outputs.csv, csv_text(summary.rows, exercise_ids, catalog.total_points, fmt,
                                         options.isolation), "grades CSV", GradesError)

    def arrived(result: StudentResult) -> None:
        journal.append(result)
        results[result.student_id] = result
        write_csv()
        if outputs.feedback is not None:
            from .feedback import write_feedback

            write_feedback(outputs.feedback, result)
        if progress is not None:
            progress(len(results), total, result)

    if progress is not None:
        progress(len(results), total, None)
    write_csv()
    from .classroom import grade_class

    grade_class(jobs, executor, arrived)
    write_csv()
    write_digest(outputs.digest, plan.submissions, results.values(), outputs.csv, version)
    return summary


_no = StudentResult("", "")


def _resumed(journal: Journal, version: str, options: GradeOptions) -> dict[str, StudentResult]:
    done = {sid: r for sid, r in journal.read().items() if not r.error}  # failures: again
    for result in done.values():
        if result.catalog_version != version:
            raise GradesError(f"{journal.path}: graded against catalog {result.catalog_version}, "
                              f"this one is {version}; regrade without --resume")
        if (result.isolation == "jail") != options.isolation:
            raise GradesError(f"{journal.path}: graded with a different --no-isolation setting; "
                              "regrade without --resume")
    return done
