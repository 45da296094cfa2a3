"""`routerlab exercises ...`: the student's terminal face of `routerlab.exercises`.

Thin on purpose: each command finds the workspace, calls one `Course` operation and renders the
description `routerlab.exercises.learner.render` builds (the notebook renders the same one as HTML).
Imports of the exercise package happen inside the commands so `routerlab --help` stays fast.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable

    from rich.console import Console

    from ...exercises.learner.course import Course
    from ...exercises.learner.render import ProgressView, ReportView
    from ...exercises.learner.watch import WatchEvent

exercises_app = typer.Typer(
    name="exercises", no_args_is_help=True,
    help="Classroom exercises: implement pieces of the router model and check them offline.",
)

DIR = typer.Option(None, "--dir", "-d",
                   help="The workspace (default: found from the current folder).")
PLAIN = typer.Option(False, "--plain", help="No colour.")



def rich_style(*words: str) -> str:
    """The palette's rich style, imported when something is printed (not by `--help`)."""
    from ...present.palette import rich_style as style

    return style(*words)


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)

def register(app: typer.Typer) -> None:
    app.add_typer(exercises_app)


def _course(directory: Path | None) -> "Course":
    from ...exercises.learner.course import Course
    from ...exercises.learner.workspace import find_workspace

    return Course(find_workspace(directory))


def _console(plain: bool) -> "Console":
    from ..render import make_console

    return make_console(plain)


def _notes(console: "Console", course: "Course") -> None:
    """Report, once, what was repaired in the progress file."""
    for problem in dict.fromkeys(course.problems):
        console.print(f"[{rich_style('warn')}]warning:[/] {problem}", markup=True, highlight=False)


def print_report(console: "Console", view: "ReportView") -> None:
    """Render a check result: headline, the table of checks, each explained failure, footer."""
    from rich.panel import Panel
    from rich.text import Text

    from ..render import to_rich

    verdict = "ok" if view.passed else "error"
    console.print(Text(view.headline, style=rich_style("heading", verdict)))
    console.print(to_rich(view.table))
    for block in view.blocks:
        style = rich_style(block.style)
        console.print(Panel(Text(block.text), title=Text(block.title), title_align="left",
                            border_style=style))
    if view.footer:
        console.print(Text(view.footer))


def print_progress(console: "Console", view: "ProgressView", table: bool = True) -> None:
    from rich.progress_bar import ProgressBar
    from rich.table import Table
    from rich.text import Text

    from ..render import to_rich

    if table:
        console.print(to_rich(view.table))
    line = Table.grid(padding=(0, 1))
    line.add_row(ProgressBar(total=max(view.total, 1), completed=view.done, width=30),
                 Text(view.summary))
    console.print(line)


@exercises_app.command()
def init(
    directory: Path = typer.Argument(Path("routerlab-exercises"), help="Folder to create."),
    student: str = typer.Option(None, "--student", help="Your name, as it will appear in exports."),
    course: Path = typer.Option(None, "--course", file_okay=False,
                                help="Your teacher's course bundle: makes a class workspace."),
    student_id: str = typer.Option(None, "--student-id",
                                   help="Your id on the teacher's roster (class workspaces)."),
    tag: str = typer.Option(None, "--tag",
                            help="The tag your teacher handed you with your id: it finds "
                                 "your own variant (a course that gives variants)."),
    plain: bool = PLAIN,
) -> None:
    """Create a workspace: one starter file per exercise, and your progress file. With --course
    and --student-id, a class workspace: the hidden checks and solutions are your teacher's."""
    from ...exercises.learner.workspace import init_workspace

    workspace, written = init_workspace(directory, student, course, student_id, tag)
    console = _console(plain)
    what = (f"Class workspace of {workspace.course} for {workspace.student_id}"
            if workspace.class_mode else f"Workspace for {workspace.student}")
    console.print(f"{what} in {workspace.root} ({len(written)} files written).",
                  highlight=False)
    console.print(f"Next: cd {_quote(str(workspace.root))} && {command_prefix()} exercises "
                  "check", highlight=False, soft_wrap=True)


@exercises_app.command("list")
def list_(directory: Path = DIR, plain: bool = PLAIN,
          json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Every exercise with its status, points, attempts and hints used, and a progress bar."""
    from ...exercises.learner.render import list_lines, list_records

    course = _course(directory)
    statuses = course.statuses()
    if json_out:
        from ..render import print_json

        paths = [str(course.workspace.file_for(s.exercise)) for s in statuses]
        print_json(list_records(statuses, paths))
        return
    console = _console(plain)
    _notes(console, course)
    for line in list_lines(statuses, console.width):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    print_progress(console, _progress(course), table=False)


@exercises_app.command()
def upgrade(directory: Path = DIR,
            course_bundle: Path = typer.Option(None, "--course", file_okay=False,
                                               help="Class workspaces: a new release of your "
                                                    "course from your teacher."),
            plain: bool = PLAIN) -> None:
    """After updating RouterLab (or getting a new release of your course): add new exercises,
    rename files to their ids, keep every file and result, and list each pass that a changed
    exercise no longer counts, with the reason."""
    from ...exercises.learner.course import Course, invalidated_passes
    from ...exercises.learner.workspace import replace_course, upgrade_workspace

    course = _course(directory)
    if course_bundle is not None:
        course = Course(replace_course(course.workspace, course_bundle))
    workspace = course.workspace
    done = upgrade_workspace(workspace, course.catalog)
    console = _console(plain)
    for old, new in done.renamed:
        console.print(f"renamed {old.name} -> {new.name}", highlight=False)
    for path in done.added:
        console.print(f"new exercise: {path.relative_to(workspace.root)}", highlight=False)
    for mine, new in done.beside:
        console.print(f"{mine.name} is kept as you left it; the changed starter is {new.name}",
                      highlight=False)
    lost = invalidated_passes(course, done)
    for item in lost:
        console.print(f"{item.exercise_id}: your pass no longer counts: {item.reason}; check it "
                      f"again (`{command_prefix()} exercises check {item.exercise_id}`)",
                      style=rich_style("warn"), highlight=False, soft_wrap=True)
    console.print(f"{workspace.root} is up to date ({len(done.renamed)} renamed, "
                  f"{len(done.added)} added, {len(lost)} passes to earn again; your files and "
                  "results are kept).", highlight=False)


@exercises_app.command()
def progress(directory: Path = DIR, plain: bool = PLAIN) -> None:
    """How far you are: exercises passed, points, and what comes next."""
    course = _course(directory)
    view = _progress(course)  # reading the progress file first is what finds its repairs
    console = _console(plain)
    _notes(console, course)
    print_progress(console, view, table=False)


@exercises_app.command()
def show(exercise_id: str = typer.Argument(..., help="An exercise id, e.g. registry-1."),
         directory: Path = DIR, plain: bool = PLAIN) -> None:
    """The statement of an exercise and where its file is."""
    from ...exercises.learner.notebook import show as describe
    from ...exercises.learner.render import filled

    view = describe(exercise_id, directory)
    console = _console(plain)
    console.print(view.title, style=rich_style("heading"), highlight=False)
    for line in filled(view.text, console.width):  # filled here: rich would wrap hard breaks
        console.print(line, highlight=False, markup=False, soft_wrap=True)


@exercises_app.command()
def check(
    exercise_id: str = typer.Argument(None,
                                      help="An exercise id (default: the next unfinished one)."),
    all_: bool = typer.Option(False, "--all", help="Check every exercise."),
    directory: Path = DIR, plain: bool = PLAIN,
    json_out: bool = typer.Option(False, "--json", help="Print the verdicts as JSON."),
) -> None:
    """Run an exercise's checks on your file (visible and hidden). Exit code 1 if any fail."""
    course = _course(directory)
    ids = _to_check(course, exercise_id, all_)
    console = _console(plain)
    if not ids:
        console.print("Every exercise passes. `routerlab exercises export` writes your results.")
        return
    reports = course.check_many(ids) if len(ids) > 1 else [course.check(ids[0])]
    _show_checks(console, course, reports, json_out)
    if not all(r.passed for r in reports):
        raise SystemExit(1)  # not typer.Exit: without standalone mode click swallows its code
    if not all_ and exercise_id is None:
        upcoming = course.next_exercise()
        if upcoming is not None:
            console.print(f"Next: {command_prefix()} exercises check {upcoming.id}",
                          highlight=False, soft_wrap=True)


def _to_check(course: "Course", exercise_id: str | None, all_: bool) -> list[str]:
    """Every exercise, the one named, or the next unfinished one (none when all pass)."""
    if all_:
        return [e.id for e in course.catalog]
    if exercise_id:
        return [course.catalog.get(exercise_id).id]
    upcoming = course.next_exercise()
    return [upcoming.id] if upcoming else []


def _show_checks(console: "Console", course: "Course", reports: list[Any],
                 json_out: bool) -> None:
    """One report in full, several as a headline each and the progress, or all as JSON."""
    from ...exercises.learner.render import report_view

    views = [report_view(r, course.catalog.get(r.exercise_id)) for r in reports]
    if json_out:
        from ..render import print_json

        print_json([_verdict(r, v) for r, v in zip(reports, views, strict=True)])
        return
    _notes(console, course)
    if len(views) == 1:
        print_report(console, views[0])
        return
    for view in views:
        console.print(view.headline, style=rich_style("ok" if view.passed else "error"),
                      highlight=False)
    print_progress(console, _progress(course), table=False)


def _verdict(report: Any, view: "ReportView") -> dict[str, Any]:
    return {"id": report.exercise_id, "passed": report.passed, "attempt": report.attempt,
            "checks": [list(row) for row in view.table.rows],
            "problem": report.problem.message if report.problem else None}


def _progress(course: "Course") -> "ProgressView":
    """Every exercise's status, with the repairs made to the progress file as its notes."""
    from ...exercises.learner.render import progress_view

    return progress_view(course.statuses(), course.problems)


@exercises_app.command()
def hint(exercise_id: str = typer.Argument(..., help="An exercise id."),
         level: int = typer.Option(None, "--level", "-l", min=1, max=3,
                                   help="1 nudge, 2 concept, 3 near solution (default: the next)."),
         directory: Path = DIR, plain: bool = PLAIN) -> None:
    """A hint: each call gives the next level (nudge, concept, near solution)."""
    from rich.panel import Panel
    from rich.text import Text

    from ...exercises.learner.render import hint_view

    view = hint_view(_course(directory).hint(exercise_id, level))
    _console(plain).print(Panel(Text(view.text), title=Text(view.title), title_align="left"))


@exercises_app.command()
def solution(exercise_id: str = typer.Argument(..., help="An exercise id."),
             directory: Path = DIR, plain: bool = PLAIN) -> None:
    """The reference solution; it opens once you have passed the exercise."""
    from ..render import print_code

    found = _course(directory).solution(exercise_id)
    console = _console(plain)
    print_code(console, found.text, plain)
    console.print(f"(also written to {found.path})", highlight=False)


@exercises_app.command("give-up")
def give_up(exercise_id: str = typer.Argument(..., help="An exercise id."),
            yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask first."),
            directory: Path = DIR, plain: bool = PLAIN) -> None:
    """Show the answer without passing (asks first): the exercise then earns no points."""
    from ...exercises.learner.render import give_up_view
    from ..render import print_code

    course = _course(directory)
    exercise = course.catalog.get(exercise_id)
    if course.class_mode:  # nothing to forfeit: only what the teacher released is shown
        yes = True
    if not yes and not typer.confirm(f"Give up on {exercise.id}? It will earn no points."):
        raise typer.Abort()
    view = give_up_view(course.give_up(exercise.id))
    console = _console(plain)
    console.print(view.title, highlight=False)
    print_code(console, view.text, plain)


@exercises_app.command("import-solutions")
def import_solutions(file: Path = typer.Argument(..., exists=True, dir_okay=False,
                                                 help="The solutions file your teacher "
                                                      "released."),
                     directory: Path = DIR, plain: bool = PLAIN) -> None:
    """Class workspaces: add the solutions your teacher released after grading."""
    ids = _course(directory).import_solutions(file)
    _console(plain).print(f"{len(ids)} solutions opened: {', '.join(ids)} (`routerlab "
                          "exercises solution ID`)", highlight=False, soft_wrap=True)


@exercises_app.command()
def reset(exercise_id: str = typer.Argument(..., help="An exercise id."),
          yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask first."),
          directory: Path = DIR, plain: bool = PLAIN) -> None:
    """Put an exercise's starter file back (your code in it is lost; asks first)."""
    course = _course(directory)
    exercise = course.catalog.get(exercise_id)
    path = course.workspace.file_for(exercise)
    if not yes and not typer.confirm(f"Replace {path} with the starter? Your code in it is lost."):
        raise typer.Abort()
    course.reset(exercise.id)
    _console(plain).print(f"{path} is the starter again; your attempts and hints are kept.",
                          highlight=False)


@exercises_app.command()
def watch(
    directory: Path = DIR, plain: bool = PLAIN,
    poll: bool = typer.Option(False, "--poll", help="Poll for changes instead of file events."),
    interval: float = typer.Option(0.5, "--interval", min=0.1, max=60,
                                   help="Seconds between polls (0.1 to 60)."),
) -> None:
    """Check the current exercise, then re-check every time you save. Keys: h hint, l list,
    n next exercise, c check again, q quit."""
    import queue
    import threading

    from ...exercises.learner.watch import Watcher
    from ..keys import keys_from_terminal

    course = _course(directory)
    console = _console(plain)
    keys: queue.Queue[str] = queue.Queue()
    stop = threading.Event()
    keyed = threading.Event()  # set once keys are read from the terminal
    with keys_from_terminal(keys, stop) as reading:
        if reading:
            keyed.set()
        try:
            Watcher(course, _watch_shower(console, keyed), poll=poll, interval=interval,
                    keys=keys).run(stop)
        except KeyboardInterrupt:
            stop.set()
    console.print("stopped watching", style=rich_style("muted"))


def _watch_shower(console: "Console", keyed: "threading.Event") -> "Callable[[WatchEvent], None]":
    """How `watch` shows each event of its `Watcher`; `keyed` is set once keys are read."""
    from rich.panel import Panel
    from rich.text import Text

    from ...exercises.learner.render import hint_view, list_lines, report_view
    from ...exercises.learner.watch import KEY_LINE

    def show_event(event: "WatchEvent") -> None:
        if event.kind == "report" and event.report is not None and event.exercise is not None:
            console.rule(f"{event.exercise.id}")
            print_report(console, report_view(event.report, event.exercise))
            if keyed.is_set():
                console.print(KEY_LINE, style=rich_style("muted"), highlight=False,
                              markup=False)
        elif event.kind == "hint" and event.hint is not None:
            view = hint_view(event.hint)
            console.print(Panel(Text(view.text), title=Text(view.title), title_align="left"))
        elif event.kind == "list":
            for line in list_lines(event.statuses, console.width):
                console.print(line, highlight=False, markup=False, soft_wrap=True)
        else:
            if event.kind == "next" and console.is_terminal:
                console.clear()  # one exercise a screen, as rustlings' watch mode shows it
            words = {"mode": ("muted",), "done": ("heading", "ok"), "next": ("heading",)}
            style = rich_style(*words.get(event.kind, ()))
            stops = "q quits" if keyed.is_set() else "Ctrl-C stops"
            suffix = f" ({stops})" if event.kind == "mode" else ""
            console.print(event.text + suffix, style=style, highlight=False)

    return show_event


@exercises_app.command()
def export(out: Path = typer.Option(None, "--out", "-o",
                                    help="Where to write (default: in the workspace)."),
           directory: Path = DIR, plain: bool = PLAIN) -> None:
    """Re-check every file, then write your results (ids, pass/fail, points, attempts, hints, each
    file's SHA-256) as one JSON file to hand in."""
    from ...exercises.errors import WorkspaceError
    from ...exercises.learner.export import write_results

    course = _course(directory)
    if course.class_mode:  # the grade is the teacher's regrade of the files, not a report
        raise WorkspaceError(
            f"{course.workspace.root} is a class workspace of {course.workspace.course}: hand in "
            "the workspace folder itself (your teacher grades its files; your id "
            f"{course.workspace.student_id} is in {course.workspace.root.name}/"
            "routerlab-exercises.toml); there is no self-reported export in a class")
    from ..progress import ProgressLine

    line = ProgressLine(len(course.catalog), "exercises checked")
    path, document = write_results(course, out, lambda done, total, last: line.step(last))
    _console(plain).print(f"{document['points']:g}/{document['points_possible']} points; "
                          f"results written to {path}", highlight=False)


def command_prefix() -> str:
    """`routerlab.invocation.command_prefix`, imported only when a hint is printed (not by
    `--help`)."""
    from ...invocation import command_prefix as prefix

    return prefix()
