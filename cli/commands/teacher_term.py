"""`routerlab teacher assignment|extension|override|history|export`: a term on the course's
gradebook (`routerlab.exercises.teacher.gradebook_term`; docs/exercises.md, "A term's
gradebook"). Thin: each command parses, calls one function of the teacher room, renders.
Registered under `teacher` by `teacher.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..options import CourseFolder, Plain
from .teacher_options import Assignment, Course, Due, Json, Student


def register(teacher: typer.Typer) -> None:
    for command in (assignment, extension, override, history, export):
        teacher.command()(command)


def assignment(
    assignment_id: Assignment,
    course: Course,
    due: Due,
    exercises: Annotated[str, typer.Option(
        "--exercises", metavar="ID,ID,...", help="The assignment's exercises (catalog ids).")],
    opens: Annotated[str | None, typer.Option("--opens", metavar="WHEN",
                                              help="When it opens (the same forms).")] = None,
    late: Annotated[str, typer.Option(
        "--late", help="The late policy: none, P%/day or P%/hour, e.g. 10%/day.")] = "none",
    cap: Annotated[float | None, typer.Option(
        "--cap", help="The most percent a late hand-in loses.")] = None,
    zero_after: Annotated[str | None, typer.Option(
        "--zero-after", metavar="WHEN", help="A hand-in after this earns 0.")] = None,
    catalog: CourseFolder = None,
    plain: Plain = False,
) -> None:
    """Set an assignment: its exercises, due date and late policy (again: changes it)."""
    from ...exercises.teacher.classroom import catalog_at
    from ...exercises.teacher.gradebook_term import set_assignment
    from ..render import make_console
    from .teacher_render import say

    ids = [e.strip() for e in exercises.split(",") if e.strip()]
    made = set_assignment(course, assignment_id, ids, catalog_at(catalog), due, opens, late, cap,
                          zero_after)
    say(make_console(plain), f"{made.id}: {len(made.exercises)} exercises, due {made.due}"
                             f"{f', opens {made.opens}' if made.opens else ''}; {made.policy}")


def extension(student: Student, assignment_id: Assignment, due: Due, course: Course,
              plain: Plain = False) -> None:
    """Give one student a later due date for one assignment (kept in their history)."""
    from ...exercises.teacher.gradebook_term import extend
    from ..render import make_console
    from .teacher_render import say

    kept = extend(course, student, assignment_id, due)
    say(make_console(plain), f"{student}: {assignment_id} now due {kept}")


def override(
    student: Student,
    exercise: Annotated[str, typer.Argument(metavar="EXERCISE", help="An exercise id.")],
    points: Annotated[float, typer.Argument(metavar="POINTS", help="The exercise's points.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (the student sees it).")],
    course: Course,
    plain: Plain = False,
) -> None:
    """Set one student's points on one exercise by hand, with a reason (the old value is
    kept in their history)."""
    from ...exercises.teacher.gradebook_term import override as set_points
    from ..render import make_console
    from .teacher_render import say

    done = set_points(course, student, exercise, points, reason)
    say(make_console(plain), f"{done.student}: {done.exercise} {done.old:g} -> {done.new:g} "
                             f"points; grade now {done.points:g}")


def history(student: Student, course: Course, json_out: Json = False,
            plain: Plain = False) -> None:
    """Every collection, grading run, override and extension of one student, oldest first,
    and the grade they make now."""
    from ...exercises.teacher.gradebook_term import describe_event, dumps
    from ...exercises.teacher.gradebook_term import history as events_of
    from ..render import make_console
    from .teacher_render import say

    events = events_of(course, student)
    console = make_console(plain)
    for line in [dumps(events)] if json_out else [describe_event(e) for e in events]:
        say(console, line)


def export(
    out: Annotated[Path, typer.Argument(metavar="OUT", help="The file to write.")],
    fmt: Annotated[str, typer.Option("--format", help="csv, canvas, moodle or json.")],
    course: Course,
    by_email: Annotated[bool, typer.Option(
        "--by-email", help="LMS files: match students on their email, not their LMS id.")]
    = False,
    plain: Plain = False,
) -> None:
    """Write the grades from the gradebook (late penalties and overrides applied), with no
    regrade: the plain CSV, Canvas's or Moodle's import file, or JSON."""
    from ...exercises.teacher.gradebook_term import export_course
    from ..render import make_console
    from .teacher_render import say

    count = export_course(course, out, fmt, by_email)
    say(make_console(plain), f"{count} students of {course} written to {out} ({fmt})")
