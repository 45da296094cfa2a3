"""`routerlab teacher ...`: lint the exercise catalog, merge students' results, seal answers,
release a course bundle to a class and its solutions after grading.

Thin: the work is in `routerlab.exercises.authoring` (lint, sealing, bundle) and
`routerlab.exercises.teacher`; this module renders.
"""

import importlib
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..options import CourseFolder

if TYPE_CHECKING:
    from ...exercises.catalog import Catalog
    from ...exercises.teacher.regrade import Progress

teacher_app = typer.Typer(name="teacher", no_args_is_help=True,
                          help="For teachers: check the exercise catalog and collect grades.")

PLAIN = typer.Option(False, "--plain", help="No colour.")


CLASS_MODULES = ["teacher_collect", "teacher_report"]
"""Modules under `routerlab.cli.commands` that add a class's commands to `teacher` (each has
`register(teacher_app)`): the hub's collect, the report."""


def register(app: typer.Typer) -> None:
    for name in CLASS_MODULES:
        importlib.import_module(f"routerlab.cli.commands.{name}").register(teacher_app)
    app.add_typer(teacher_app)


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
    from ...core import TableView
    from ...exercises.authoring.lint import lint as run_lint
    from ...exercises.authoring.lint import lint_folder, mutation_score
    from ...exercises.authoring.mutation import GOAL_ALL
    from ...exercises.authoring.secret import find_secret
    from ...exercises.authoring.variant_lint import lint_catalog_variants
    from ..render import make_console, print_json, to_rich

    started = time.monotonic()
    if course_id is not None or secret is not None:
        find_secret(_course_id(course_id, catalog), secret)  # refused before anything runs
    results = (lint_folder(catalog, only or None) if catalog is not None
               else run_lint(_catalog(None), only or None))
    if variants:
        proved = {v.exercise.id: v for v in lint_catalog_variants(_catalog(catalog),
                                                                  only or None, variants)}
        for result in results:
            result.problems += proved[result.exercise.id].problems
    elapsed = time.monotonic() - started
    overall = mutation_score(results)
    if json_out:
        print_json({"seconds": round(elapsed, 2), "ok": all(r.ok for r in results),
                    "mutation_score": overall,
                    "exercises": [{"id": r.exercise.id, "ok": r.ok, "problems": r.problems,
                                   "checks": r.checks, "hidden": r.hidden,
                                   "mutation_score": r.mutation and r.mutation.score}
                                  for r in results]})
    else:
        rows = [[r.exercise.id, r.exercise.kind.value, r.checks, r.hidden,
                 "-" if r.mutation is None else
                 f"{r.mutation.score:.2f} ({len(r.mutation.killed)}/"
                 f"{len(r.mutation.killed) + len(r.mutation.survived)})",
                 f"{r.seconds:.1f} s", "ok" if r.ok else "; ".join(r.problems)] for r in results]
        styles = {i: "added" if r.ok else "error" for i, r in enumerate(results)}
        bad = sum(not r.ok for r in results)
        caption = (f"{len(results) - bad}/{len(results)} exercises ok in {elapsed:.1f} s"
                   + ("" if overall is None else f"; mutants killed: {overall:.2f} overall"))
        make_console(plain).print(to_rich(TableView(
            "Exercise catalog lint",
            ["id", "kind", "checks", "hidden", "mutants killed", "time", "verdict"], rows,
            caption=caption, styles=styles)))
    if not only and overall is not None and overall < GOAL_ALL:
        make_console(plain).print(f"the checks kill {overall:.2f} of the mutants over every "
                                  f"implement exercise; the goal is {GOAL_ALL}", highlight=False)
        raise SystemExit(1)
    if not all(r.ok for r in results):
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
    from ...exercises.authoring.bundle import release as write_bundle
    from ...exercises.authoring.secret import secret_path
    from ...exercises.teacher.roster import read_roster
    from ..render import make_console

    ids = [s.id for s in read_roster(roster)] if roster is not None else None
    course = _course_id(course_id, catalog)
    info = write_bundle(_catalog(catalog), out, course, title, hints, ids)
    variants = (f" with a variant for each of {len(set(ids))} students" if ids is not None
                else " (no roster: everyone gets the catalog's own variant)")
    make_console(plain).print(
        f"released {info.id} version {info.version} to {out}{variants}; the course secret is "
        f"{secret_path(course)} (keep it; never hand it out). Students: routerlab exercises "
        f"init DIR --course {out} --student-id ID", highlight=False, soft_wrap=True)


@teacher_app.command()
def quickstart(directory: Path = typer.Argument(..., help="The sample course's folder (new)."),
               plain: bool = PLAIN) -> None:
    """A sample course to try a term on: a released bundle, a roster of three, their handed-in
    workspaces (all solved, half solved, untouched), and the commands that grade and report
    them."""
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
    console.print("Grade the class, then report it:", highlight=False, markup=False)
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
    from ...exercises.authoring.secret import find_secret
    from ...exercises.authoring.variants import class_variants
    from ...exercises.teacher.roster import read_roster
    from ..render import make_console

    course_id = _course_id(course_id, catalog)
    variants = None
    if roster is not None:
        course_secret = find_secret(course_id, secret)
        chosen = _catalog(catalog)
        variants = {s.id: class_variants(chosen, course_secret.key, s.id)
                    for s in read_roster(roster)} if course_secret.variants else None
    ids = write_solutions(_catalog(catalog), out, course_id, only or None, variants)
    make_console(plain).print(f"{len(ids)} solutions of {course_id} written to {out}",
                              highlight=False)


def _course_id(given: str | None, catalog: Path | None) -> str:
    """The course id a release and its solutions share: given, or the course folder's name."""
    if given is not None:
        return given
    return catalog.expanduser().resolve().name if catalog is not None else "routerlab"


@teacher_app.command()
def recheck(folders: list[Path] = typer.Argument(..., exists=True, file_okay=False,
                                                 help="Workspaces or folders of handed-in "
                                                      "files; with --roster, the one folder of "
                                                      "submissions (submitted/<id>/)."),
            out: Path = typer.Option(Path("grades.csv"), "--out", "-o", help="CSV path."),
            jobs: int = typer.Option(None, "--jobs", "-j", min=1,
                                     help="Students graded side by side (default: one per "
                                          "core, at most 8)."),
            roster: Path = typer.Option(None, "--roster", exists=True, dir_okay=False,
                                        help="roster.csv (id,name,email[,section,lms_id]): rows "
                                             "in roster order, matched on the id; lms_id goes "
                                             "into the LMS layouts."),
            fmt: str = typer.Option("plain", "--format",
                                    help="CSV layout: plain, canvas (points) or moodle "
                                         "(percent, for a grade item out of 100)."),
            feedback: Path = typer.Option(None, "--feedback", file_okay=False,
                                          help="Write one HTML page and one JSON file per "
                                               "student into this folder."),
            catalog: CourseFolder = None,
            resume: bool = typer.Option(False, "--resume",
                                        help="Continue an interrupted run: grade only the "
                                             "students its journal (OUT.jsonl) lacks."),
            no_isolation: bool = typer.Option(False, "--no-isolation",
                                              help="Grade without the bubblewrap jail (the "
                                                   "CSV and the summary say so)."),
            scheduler: str = typer.Option(None, "--scheduler", metavar="tcp://HOST:PORT",
                                          help="Grade on this Dask cluster, one task per "
                                               "student, each worker in its own jail."),
            course_id: str = typer.Option(None, "--course",
                                          help="The course id (default: the workspaces' "
                                               "markers'); its secret makes each student's "
                                               "variant."),
            secret: Path = typer.Option(None, "--secret", dir_okay=False,
                                        help="The course secret's file, when it is not in "
                                             "your data folder."),
            plain: bool = PLAIN) -> None:
    """Regrade from scratch, trusting nothing a student wrote but their exercise files: each
    student in an OS jail (bubblewrap), predict answers read as data; writes the grades CSV as
    each student is graded, a SHA-256 digest file, and with --feedback a page per student."""
    from ...exercises.engine.jail import unavailable
    from ...exercises.engine.runner import workers
    from ...exercises.teacher.class_variants import class_secret, variants_of
    from ...exercises.teacher.classroom import GradeOptions, LocalExecutor
    from ...exercises.teacher.dask_executor import DaskExecutor
    from ...exercises.teacher.gradebook import UNISOLATED_NOTE
    from ...exercises.teacher.regrade import Outputs, plan_class, regrade
    from ...exercises.teacher.similar import find_pairs, similar_path, write_similar
    from ...present.palette import rich_style
    from ..render import make_console

    console = make_console(plain)
    why = None if no_isolation or scheduler else unavailable()  # a cluster: the workers' jails
    if why is not None:
        console.print(f"error: {why}; or grade without isolation: --no-isolation (student code "
                      "could then change the grades)", style=rich_style("warn"), highlight=False,
                      markup=False, soft_wrap=True)
        raise SystemExit(1)
    plan = plan_class(list(folders), roster)
    for problem in plan.problems:
        console.print(f"warning: {problem}", style=rich_style("warn"), highlight=False,
                      markup=False)
    found = [p.folder for p in plan.rows if p.folder is not None]
    course_secret = class_secret(found, course_id, secret)  # refused before anyone is graded
    variants = variants_of(_catalog(catalog), course_secret)
    started = time.monotonic()
    executor = DaskExecutor(scheduler) if scheduler else LocalExecutor(jobs or workers())
    summary = regrade(plan, Outputs.beside(out, feedback), executor, fmt, catalog,
                      GradeOptions(isolation=not no_isolation), resume,
                      _progress_bar(), variants)
    pairs = find_pairs(summary.results.values(), _catalog(catalog),
                       {sid: variants(sid) for sid in summary.results} if variants else None)
    similar = write_similar(similar_path(out), pairs)
    sys.stderr.write("\n")
    if no_isolation:
        console.print(UNISOLATED_NOTE, style=rich_style("warn"), highlight=False, markup=False)
    for row in summary.rows:
        shown = f"{row.points:g} points" if row.graded else "no grade"
        console.print(f"{row.student.id}: {shown} ({row.status})", highlight=False,
                      markup=False)
    outputs = summary.outputs
    console.print(f"{len(summary.results)} graded in {time.monotonic() - started:.1f} s"
                  f"{f' ({summary.resumed} from the journal)' if summary.resumed else ''}; "
                  f"grades in {outputs.csv}, digests in {outputs.digest} (`cd {plan.submissions}"
                  f" && sha256sum -c {outputs.digest.resolve()}`)"
                  f"{f', feedback in {outputs.feedback}' if outputs.feedback else ''}",
                  highlight=False, markup=False)
    console.print(f"{len(pairs)} pair{'' if len(pairs) == 1 else 's'} of similar files or "
                  f"answers in {similar}"
                  + (f"; each student graded on their own variant (course "
                     f"{course_secret.course})" if variants and course_secret else ""),
                  highlight=False, markup=False)


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
