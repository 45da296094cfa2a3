"""`routerlab teacher ...`: lint the exercise catalog, merge students' results, seal answers,
release a course bundle to a class and its solutions after grading.

Thin: the work is in `routerlab.exercises.authoring` (lint, sealing, bundle) and
`routerlab.exercises.teacher`; this module renders.
"""

import functools
import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..options import CourseFolder
from .teacher_options import (
    FeedbackDir,
    GradesFormat,
    GradesOut,
    Jobs,
    NoIsolation,
    RecheckCourse,
    RecheckFolders,
    RecheckRoster,
    Resume,
    Scheduler,
    SecretFile,
)

if TYPE_CHECKING:
    from ...exercises.catalog import Catalog
    from ...exercises.teacher.regrade import Progress

teacher_app = typer.Typer(name="teacher", no_args_is_help=True,
                          help="For teachers: check the exercise catalog and collect grades.")

PLAIN = typer.Option(False, "--plain", help="No colour.")


CLASS_MODULES = ["teacher_collect", "teacher_report", "teacher_term"]
"""Modules under `routerlab.cli.commands` that add a class's commands to `teacher` (each has
`register(teacher_app)`): the hub's collect, the report, the term's gradebook."""


def register(app: typer.Typer) -> None:
    app.add_typer(_with_class_commands())


@functools.cache
def _with_class_commands() -> typer.Typer:
    """`teacher_app` with the class's commands, added once per process: a process that builds
    the app again (every `main()` in a test, a notebook) would otherwise add them again, and
    Typer inspects every copy's signature on each start (the app grew by 7 commands a build)."""
    for name in CLASS_MODULES:
        importlib.import_module(f"routerlab.cli.commands.{name}").register(teacher_app)
    return teacher_app


def _catalog(folder: Path | None) -> "Catalog":
    """The course folder's catalog, or the installed one."""
    from ...exercises.catalog import load_catalog
    from ...exercises.errors import CatalogError

    if folder is None:
        return load_catalog()
    if not (folder / "index.toml").is_file():
        raise CatalogError(f"{folder} is not a course folder (no index.toml); `routerlab "
                           "teacher seal ID FILE --catalog DIR` starts one")
    return load_catalog(str(folder.resolve()))


@teacher_app.command()
def lint(only: list[str] = typer.Argument(None, help="Exercise ids (default: all)."),
         catalog: CourseFolder = None,
         variants: int = typer.Option(50, "--variants", min=0,
                                      help="Random variants proved per exercise that varies "
                                           "(0: none)."),
         course_id: str = typer.Option(None, "--course",
                                       help="Also check that this course's secret is here."),
         secret: Path = typer.Option(None, "--secret", dir_okay=False,
                                     help="The course secret's file (default: found from "
                                          "--course)."),
         plain: bool = PLAIN,
         json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Every starter fails, every solution passes, 3 hint levels, hidden checks exist (in a
    temporary copy of the course folder given with --catalog); and for --variants random
    variants of each exercise that varies: the statement renders, the model answers, the
    solution passes and every declared wrong answer fails."""
    from ...exercises.teacher.lint_run import lint_course
    from .teacher_render import render_lint

    course = _course_id(course_id, catalog) if course_id is not None or secret else None
    outcome = lint_course(catalog, only or None, variants, course, secret)
    render_lint(outcome, plain, json_out)
    if not outcome.ok:
        raise SystemExit(1)  # not typer.Exit: without standalone mode click swallows its code


@teacher_app.command()
def grades(folder: Path = typer.Argument(..., exists=True, file_okay=False,
                                         help="Folder of students' exported .json files."),
           out: Path = typer.Option(None, "--out", "-o",
                                    help="CSV path (default: FOLDER/grades.csv)."),
           plain: bool = PLAIN) -> None:
    """Merge students' exported results into a CSV and summarise each exercise."""
    from ...core import Cell, TableView
    from ...exercises.catalog import load_catalog
    from ...exercises.teacher.exports import merge_exports
    from ...present.palette import rich_style
    from ..render import make_console, to_rich

    book = merge_exports(folder, load_catalog())
    path = book.write_csv(out or folder / "grades.csv")
    console = make_console(plain)
    for problem in book.problems:
        console.print(f"warning: {problem}", style=rich_style("warn"), highlight=False)
    rows: list[list[Cell]] = [
        [s.id, s.students, f"{s.pass_rate:.0%}",
         "—" if s.median_attempts is None else f"{s.median_attempts:g}",
         f"{s.hint_users}/{s.students}", f"{s.mean_hint_level:.1f}", s.solutions_viewed]
        for s in book.summaries()]
    console.print(to_rich(TableView(
        f"{len(book.students)} students", ["exercise", "students", "pass rate",
                                           "median attempts", "used hints", "mean hint level",
                                           "solutions viewed"], rows,
        caption=f"grades written to {path}")))


@teacher_app.command()
def seal(exercise_id: str = typer.Argument(..., help="An exercise id."),
         solution_file: Path = typer.Argument(..., exists=True, dir_okay=False,
                                              help="The worked solution (answers or code)."),
         wrong: list[Path] = typer.Option(None, "--wrong", exists=True, dir_okay=False,
                                          help="A wrong submission with `# rejects: CHECK` "
                                               "lines (repeat)."),
         catalog: CourseFolder = None,
         plain: bool = PLAIN) -> None:
    """Author an exercise: check the solution against the model and seal it (and the wrong
    submissions `teacher lint` must see rejected) into your course folder (--catalog DIR; a new
    one starts as a copy of the installed catalog). Checked in a temporary copy first."""
    from ...exercises.authoring.sealing import read_python, seal_into, wrong_entries
    from ...exercises.errors import CatalogError
    from ..render import make_console

    read_python(solution_file, "solution file")  # a broken file is named before anything else
    wrong_entries(list(wrong or []))
    if catalog is None:
        raise CatalogError("name the course folder to seal into: --catalog DIR (a new one starts "
                           "as a copy of the installed catalog, which is never written)")
    target = seal_into(catalog, exercise_id, solution_file, list(wrong or []))
    make_console(plain).print(f"sealed {exercise_id}: {target}", highlight=False)


@teacher_app.command()
def release(out: Path = typer.Argument(..., help="The course bundle's folder (new)."),
            course_id: str = typer.Option(None, "--course",
                                          help="The course's id, e.g. burn-router-2027 "
                                               "(default: the --catalog folder's name, else "
                                               "routerlab)."),
            title: str = typer.Option("", "--title", help="The course's name for students."),
            hints: int = typer.Option(2, "--hints", min=0, max=3,
                                      help="Hint levels the class gets (3 adds the near "
                                           "solution)."),
            catalog: CourseFolder = None,
            roster: Path = typer.Option(None, "--roster", exists=True, dir_okay=False,
                                        help="roster.csv (id,name,email): each of these "
                                             "students gets their own variant of every "
                                             "exercise that varies."),
            plain: bool = PLAIN) -> None:
    """Write the course bundle a class works from: starters and visible checks with their
    expected values; no solution, no hidden expected value, no digest of an answer. The
    course's secret (what makes each student's variant) is kept in your data folder, never in
    the bundle."""
    from ...exercises.authoring.secret import secret_path
    from ...exercises.authoring.tags import tags_path
    from ...exercises.teacher.gradebook_term import release_course
    from ..render import make_console

    course = _course_id(course_id, catalog)
    info, students = release_course(_catalog(catalog), out, course, title, hints, roster)
    variants = (f" with a variant for each of {students} students, each found by the tag in "
                f"{tags_path(course)} (hand each student theirs)" if students is not None
                else " (no roster: everyone gets the catalog's own variant)")
    tag = " --tag TAG" if students is not None else ""
    make_console(plain).print(
        f"released {info.id} version {info.version} to {out}{variants}; the course secret is "
        f"{secret_path(course)} (keep it; never hand it out). Students: routerlab exercises "
        f"init DIR --course {out} --student-id ID{tag}", highlight=False, soft_wrap=True)


@teacher_app.command()
def quickstart(directory: Path = typer.Argument(..., help="The sample course's folder (new)."),
               plain: bool = PLAIN) -> None:
    """A sample course to try a term on: a bundle released with a roster of three (variants
    on), their handed-in workspaces (all solved, half solved, untouched) and collections, and
    the commands that run the term: due date, extension, grading, override, LMS files, history,
    report."""
    from ...exercises.learner.workspace import caller_cwd
    from ...exercises.teacher.quickstart import STUDENTS
    from ...exercises.teacher.quickstart import quickstart as make
    from ...invocation import command_prefix
    from ..render import make_console

    folder = directory if directory.is_absolute() else caller_cwd() / directory
    course = make(folder, _catalog(None))
    console = make_console(plain)
    console.print(f"Sample course in {course.root}:", highlight=False, markup=False)
    console.print(f"  {course.bundle.name}/  the released course bundle", highlight=False,
                  markup=False)
    console.print(f"  {course.roster.name}  three students", highlight=False, markup=False)
    for student_id, _, what in STUDENTS:
        console.print(f"  {course.submitted.name}/{student_id}/  handed in {what}",
                      highlight=False, markup=False)
    console.print("Run the term (an assignment due before two of them handed in, an extension, "
                  "grading, an override, the LMS files, a history, the report):",
                  highlight=False, markup=False)
    for command in course.commands(command_prefix()):
        console.print(command, highlight=False, markup=False, soft_wrap=True)


@teacher_app.command("release-solutions")
def release_solutions(out: Path = typer.Argument(..., dir_okay=False,
                                                 help="The solutions file to write (.json)."),
                      only: list[str] = typer.Argument(None,
                                                       help="Exercise ids (default: all)."),
                      course_id: str = typer.Option(None, "--course",
                                                    help="The course id of the release "
                                                         "(the same default as `release`)."),
                      catalog: CourseFolder = None,
                      roster: Path = typer.Option(None, "--roster", exists=True,
                                                  dir_okay=False,
                                                  help="roster.csv: each student also gets "
                                                       "their own variant's answers."),
                      secret: Path = typer.Option(None, "--secret", dir_okay=False,
                                                  help="The course secret's file, when it is "
                                                       "not in your data folder."),
                      plain: bool = PLAIN) -> None:
    """After grading: the worked solutions (and predict answers) for a class to import with
    `routerlab exercises import-solutions FILE`; with --roster, each student's own variant's
    answers (found from the course's secret)."""
    from ...exercises.authoring.bundle import release_solutions as write_solutions
    from ...exercises.authoring.bundle import students_folder
    from ...exercises.authoring.secret import find_secret
    from ...exercises.teacher.roster import read_roster
    from ...exercises.variants.table import class_variants
    from ..render import make_console

    course_id = _course_id(course_id, catalog)
    variants = None
    if roster is not None:
        course_secret = find_secret(course_id, secret)
        chosen = _catalog(catalog)
        variants = {s.id: class_variants(chosen, course_secret.key, s.id)
                    for s in read_roster(roster)} if course_secret.variants else None
    ids = write_solutions(_catalog(catalog), out, course_id, only or None, variants)
    own = (f"; each student's own variant in {students_folder(out)}/ID.json (hand each "
           "student theirs)" if variants else "")
    make_console(plain).print(f"{len(ids)} solutions of {course_id} written to {out}{own}",
                              highlight=False)


def _course_id(given: str | None, catalog: Path | None) -> str:
    """The course id a release and its solutions share: given, or the course folder's name."""
    if given is not None:
        return given
    return catalog.expanduser().resolve().name if catalog is not None else "routerlab"


@teacher_app.command()
def recheck(folders: RecheckFolders, out: GradesOut = Path("grades.csv"), jobs: Jobs = None,
            roster: RecheckRoster = None, fmt: GradesFormat = "plain",
            feedback: FeedbackDir = None, catalog: CourseFolder = None, resume: Resume = False,
            no_isolation: NoIsolation = False, scheduler: Scheduler = None,
            course_id: RecheckCourse = None, secret: SecretFile = None,
            plain: bool = PLAIN) -> None:
    """Regrade from scratch, trusting nothing a student wrote but their exercise files: each
    student in an OS jail (bubblewrap), predict answers read as data; writes the grades CSV as
    each student is graded, a SHA-256 digest file, and with --feedback a page per student; the
    run goes into the course's gradebook (`teacher export`, `teacher history`)."""
    from ...exercises.teacher.recheck import NoJail, RecheckRequest
    from ...exercises.teacher.recheck import recheck as run_recheck
    from ..render import make_console
    from .teacher_render import render_recheck, say, warner

    console = make_console(plain)
    request = RecheckRequest(list(folders), out, jobs, roster, fmt, feedback, catalog, resume,
                             not no_isolation, scheduler, course_id, secret)
    try:
        outcome = run_recheck(request, _progress_bar(), warner(console))
    except NoJail as error:  # on stdout too, where a teacher's log of the run keeps it
        say(console, f"error: {error}", "warn")
        raise SystemExit(1) from None
    sys.stderr.write("\n")
    render_recheck(console, outcome)
    if outcome.jail_failed:
        raise SystemExit(1)


def _progress_bar() -> "Progress":
    """The regrade's progress on stderr: students graded, the time left, the last student."""
    from ..progress import ProgressLine

    line: ProgressLine | None = None

    def show(done: int, total: int, result: object | None) -> None:
        nonlocal line
        if line is None:
            line = ProgressLine(total, "students", done if result is None else done - 1)
            if result is None:
                line.show()
                return
        last = ""
        if result is not None:
            last = str(getattr(result, "student_id", ""))
            error = getattr(result, "error", "")
            last += f" (not graded: {error[:60]})" if error else ""
        line.step(last)

    return show
