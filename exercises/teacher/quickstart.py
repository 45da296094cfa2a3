"""`routerlab teacher quickstart DIR`: a sample course to try a whole term on, in one command.

nbgrader has `nbgrader quickstart`; this is RouterLab's: a released course bundle, a roster of
three students, their handed-in class workspaces, and the exact commands that grade and report
them. The three hand in what a real class does: one has solved everything (the course's own
solutions), one about half of it with a wrong answer among them, one nothing at all. Every file
is written by RouterLab's own commands' functions (`release`, `init_workspace`), so the folder is
what a real term would leave, and the printed commands are the ones a teacher runs.
"""

from __future__ import annotations

import csv
import io
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..authoring.bundle import release
from ..authoring.sealing import open_solution
from ..catalog import Catalog, Exercise, Kind
from ..errors import GradesError
from ..files import os_errors, write_text
from ..learner.workspace import Workspace, init_workspace

COURSE_ID = "quickstart"
STUDENTS = (
    ("ada", "Ada Honest", "everything, with the course's own solutions"),
    ("ben", "Ben Partial", "about half, and one predict answer wrong"),
    ("cy", "Cy Empty", "nothing: the starters as released"),
)
"""(roster id, name, what the student hands in)."""


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

    def commands(self, prefix: str) -> list[str]:
        """The commands that grade the class and report it, as a teacher types them;
        `prefix` is how RouterLab is called here (`routerlab`, `./run`, ...)."""
        q = shlex.quote
        return [
            f"{prefix} teacher recheck {q(str(self.submitted))} --roster {q(str(self.roster))} "
            f"--course {COURSE_ID} --out {q(str(self.grades))} "
            f"--feedback {q(str(self.feedback))}",
            f"{prefix} teacher report {q(str(self.grades.parent))} --html {q(str(self.report))}",
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
    course = SampleCourse(root, root / "release", root / "roster.csv", root / "submitted",
                          root / "grades" / "grades.csv", root / "feedback",
                          root / "report.html")
    release(catalog, course.bundle, COURSE_ID, "RouterLab quickstart")
    rows = io.StringIO(newline="")
    writer = csv.writer(rows)
    writer.writerow(["id", "name", "email", "section"])
    for student_id, name, _ in STUDENTS:
        writer.writerow([student_id, name, f"{student_id}@example.org", "A"])
    write_text(course.roster, rows.getvalue(), "roster", GradesError)
    exercises = list(catalog)
    for index, (student_id, name, _) in enumerate(STUDENTS):
        workspace, _ = init_workspace(course.submitted / student_id, name, course.bundle,
                                      student_id)
        solved = exercises if index == 0 else exercises[: len(exercises) // 2] if index == 1 else []
        for exercise in solved:
            write_text(workspace.file_for(exercise), open_solution(exercise), "exercise file",
                       GradesError)
        if index == 1:
            _spoil_one_predict(workspace, solved)
    course.grades.parent.mkdir(exist_ok=True)
    return course


def _spoil_one_predict(workspace: Workspace, solved: list[Exercise]) -> None:
    """The partial student's last predict answer is off by one: a sample wrong answer for
    the feedback pages and the report's commonest wrong answers."""
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
                return
