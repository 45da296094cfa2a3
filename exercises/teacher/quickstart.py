"""`routerlab teacher quickstart DIR`: a sample course to try a whole term on, in one command.

nbgrader has `nbgrader quickstart`; this is RouterLab's: a course bundle released with its roster
(so each student has their own variant of every exercise that varies), three students' handed-in
class workspaces, their collections in the course's gradebook, and the exact commands that run
the term: an assignment with a due date and a late policy, an extension, the grading, an
override with a reason, the Canvas and Moodle files exported from the gradebook, a student's
history and the class report. The three hand in what a real class does: one has solved everything
(the worked solutions, with the answers of her own variant), one about half of it with a wrong
answer among them, one nothing at all. Every file is written by RouterLab's own commands'
functions (`release`, `init_workspace`, the gradebook's), so the folder is what a real term
would leave.

The sample has no hub, so the quickstart records each student's collection itself, with the
hand-in times a hub would report (`HANDED_IN`): ben after the due date (late), ada after it too
but within the extension the printed commands give her.
"""

from __future__ import annotations

import csv
import hashlib
import io
import shlex
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..authoring.sealing import open_solution
from ..catalog import Catalog, Exercise, Kind
from ..errors import GradesError
from ..files import os_errors, write_text
from ..learner.workspace import Workspace, init_workspace
from .gradebook_term import record_collection, release_course

COURSE_ID = "quickstart"
STUDENTS = (
    ("ada", "Ada Honest", "everything, with the worked solutions of her own variant"),
    ("ben", "Ben Partial", "about half, and one predict answer wrong"),
    ("cy", "Cy Empty", "nothing: the starters as released"),
)
"""(roster id, name, what the student hands in)."""
ASSIGNMENT, DUE, LATE = "week-1", "2027-03-01T17:00Z", "10%/day"
EXTENDED = ("ada", "2027-03-05")
"""The student the printed commands give an extension, and its new due date."""
HANDED_IN = {"ada": "2027-03-03T12:00:00+00:00", "ben": "2027-03-02T09:00:00+00:00",
             "cy": "2027-02-20T08:00:00+00:00"}
"""When each student's files were last changed, as a hub would report it at the collect."""
WEEK_1 = 5
"""week-1 is the catalog's first five exercises (all of which ben handed in, late)."""


@dataclass(frozen=True)
class SampleCourse:
    """What `quickstart` made, and where."""

    root: Path
    bundle: Path
    roster: Path
    submitted: Path
    grades: Path
    feedback: Path
    report: Path
    week_1: tuple[str, ...] = ()
    spoiled: str = ""
    """The exercise ben answered wrong (the override's)."""

    def commands(self, prefix: str) -> list[str]:
        """The term's commands, in order, as a teacher types them; `prefix` is how RouterLab
        is called here (`routerlab`, `./run`, ...)."""
        q = shlex.quote
        course = f"--course {COURSE_ID}"
        out = self.grades.parent
        return [
            f"{prefix} teacher assignment {ASSIGNMENT} --exercises {','.join(self.week_1)} "
            f"--due {DUE} --late {LATE} --cap 50 {course}",
            f"{prefix} teacher extension {EXTENDED[0]} {ASSIGNMENT} --due {EXTENDED[1]} {course}",
            f"{prefix} teacher recheck {q(str(self.submitted))} --roster {q(str(self.roster))} "
            f"--out {q(str(self.grades))} --feedback {q(str(self.feedback))}",
            f"{prefix} teacher override ben {self.spoiled} 5 --reason "
            f"{q('the statement was ambiguous')} {course}",
            f"{prefix} teacher export {q(str(out / 'canvas.csv'))} --format canvas {course}",
            f"{prefix} teacher export {q(str(out / 'moodle.csv'))} --format moodle {course}",
            f"{prefix} teacher history ben {course}",
            f"{prefix} teacher report {q(str(out))} --html {q(str(self.report))}",
        ]


def quickstart(root: Path, catalog: Catalog) -> SampleCourse:
    """Make the sample course in `root` (new, or an empty folder). The bundle is released from
    `catalog`; nothing outside `root` is written."""
    with os_errors("create the sample course", GradesError):
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            raise GradesError(f"{root} exists and is not an empty folder; choose a new one")
        made = not root.exists()
        root.mkdir(parents=True, exist_ok=True)
    try:
        return _fill(root.resolve(), catalog)
    except BaseException:  # all or nothing: a course half made is removed, a given folder emptied
        for child in list(root.iterdir()):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        if made:
            root.rmdir()
        raise


def _fill(root: Path, catalog: Catalog) -> SampleCourse:
    from ..authoring.secret import find_secret
    from ..variants.table import class_variants

    exercises = list(catalog)
    course = SampleCourse(root, root / "release", root / "roster.csv", root / "submitted",
                          root / "grades" / "grades.csv", root / "feedback",
                          root / "report.html", tuple(e.id for e in exercises[:WEEK_1]))
    rows = io.StringIO(newline="")
    writer = csv.writer(rows)
    writer.writerow(["id", "name", "email", "section", "lms_id"])
    for student_id, name, _ in STUDENTS:
        writer.writerow([student_id, name, f"{student_id}@example.org", "A", f"SIS-{student_id}"])
    write_text(course.roster, rows.getvalue(), "roster", GradesError)
    release_course(catalog, course.bundle, COURSE_ID, "RouterLab quickstart", 2, course.roster)
    key = find_secret(COURSE_ID).key
    for index, (student_id, name, _) in enumerate(STUDENTS):
        workspace, _ = init_workspace(course.submitted / student_id, name, course.bundle,
                                      student_id)
        own = class_variants(catalog, key, student_id)
        solved = exercises if index == 0 else exercises[: len(exercises) // 2] if index == 1 else []
        for exercise in solved:
            write_text(workspace.file_for(exercise), _worked(exercise, own.get(exercise.id)),
                       "exercise file", GradesError)
        if index == 1:
            course = replace(course, spoiled=_spoil_one_predict(workspace, solved))
        _record_hand_in(workspace, student_id, exercises, HANDED_IN[student_id])
    course.grades.parent.mkdir(exist_ok=True)
    return course


def _worked(exercise: Exercise, params: dict[str, Any] | None) -> str:
    """The worked solution for a student's variant: a predict exercise's answers as the model
    gives them for `params`, the others' solution as sealed (it holds for every variant, as
    `teacher lint --variants` proves)."""
    from ..checks import suite_for
    from ..checks.base import PredictSuite, to_data

    worked = open_solution(exercise)
    suite = suite_for(exercise)
    if not params or not isinstance(suite, PredictSuite):
        return worked
    answers = suite.answers(exercise.with_params(params).variant_params())
    return "".join(f"{name} = {to_data(value)!r}\n" for name, value in answers.items())


def _record_hand_in(workspace: Workspace, student_id: str, exercises: list[Exercise],
                    when: str) -> None:
    """The student's collection in the gradebook, with the time a hub would report."""
    files = {}
    for exercise in exercises:
        path = workspace.file_for(exercise)
        if path.is_file():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            files[path.relative_to(workspace.root).as_posix()] = (digest, when)
    record_collection(COURSE_ID, student_id, "quickstart (sample times)", "", files)


def _spoil_one_predict(workspace: Workspace, solved: list[Exercise]) -> str:
    """The partial student's last predict answer is off by one: a sample wrong answer for
    the feedback pages and the report's commonest wrong answers; that exercise's id."""
    for exercise in reversed(solved):
        if exercise.kind is not Kind.PREDICT:
            continue
        path = workspace.file_for(exercise)
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            name, equals, value = line.partition(" = ")
            value = value.split("#")[0].strip()
            if equals and name.isupper() and value.isdigit():
                lines[number] = f"{name} = {int(value) + 1}"
                write_text(path, "\n".join(lines) + "\n", "exercise file", GradesError)
                return exercise.id
    raise GradesError("no predict answer to spoil among the partial student's exercises")
