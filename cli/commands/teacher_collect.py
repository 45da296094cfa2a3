"""`routerlab teacher collect --hub URL OUT`: the students' workspaces, off a JupyterHub.

Thin: the work is `routerlab.exercises.teacher.collect`. Registered under `teacher` by `teacher.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..options import Plain


def register(teacher: typer.Typer) -> None:
    teacher.command()(collect)


def collect(
    out: Annotated[Path, typer.Argument(help="Where each student's copy goes: OUT/<student>/ "
                                             "(what `teacher recheck` reads).")],
    hub_url: Annotated[str, typer.Option("--hub", metavar="URL",
                                         help="The hub, e.g. https://hub.example.org")],
    token_file: Annotated[Path | None, typer.Option(
        "--token-file", metavar="FILE",
        help="A file holding an admin's API token (default: $ROUTERLAB_HUB_TOKEN, then "
             "$JUPYTERHUB_API_TOKEN). Never on the command line.")] = None,
    student: Annotated[list[str] | None, typer.Option(
        "--student", help="Collect only this hub user (repeat for more).")] = None,
    path: Annotated[str, typer.Option(
        "--path", help="The workspace's folder under each server's root (default: the root, "
                       "as RouterLab's hub configurations serve it).")] = "",
    time_limit: Annotated[int, typer.Option(
        "--time-limit", metavar="MINUTES", min=1, max=24 * 60,
        help="The whole collect's limit; a student still to copy then is reported as not "
             "collected (default 60).")] = 60,
    course: Annotated[str | None, typer.Option(
        "--course", help="Also record each collection (files, the hub's file times) in this "
                         "course's gradebook.")] = None,
    plain: Plain = False,
) -> None:
    """Copy every student's workspace from a JupyterHub through its REST API (an admin token;
    stopped servers are started for the copy and stopped again)."""
    from ...exercises.teacher.collect import MANIFEST, Collected, Hub, read_token
    from ...exercises.teacher.collect import collect as run_collect
    from ...invocation import routerlab
    from ...present.palette import rich_style
    from ..progress import ProgressLine
    from ..render import make_console

    console = make_console(plain)

    line: ProgressLine | None = None

    def report(count: int, total: int, done: Collected) -> None:
        nonlocal line
        line = line or ProgressLine(total, "students collected")
        if done.problem:
            console.print(f"{done.student}: not collected: {done.problem}",
                          style=rich_style("warn"), highlight=False, markup=False)
        elif done.skipped:
            console.print(f"{done.student}: unchanged since the last collect, kept",
                          highlight=False, markup=False)
        else:
            console.print(f"{done.student}: {len(done.files)} files -> {done.folder}",
                          highlight=False, markup=False)
        line.step(done.student)

    hub = Hub(hub_url, read_token(token_file))
    done = run_collect(hub, out, student, path, report, time_limit * 60.0, course)
    failed = [d.student for d in done if d.problem]
    console.print(f"{len(done) - len(failed)}/{len(done)} students collected into {out} "
                  f"(manifest {out / MANIFEST}); next: {routerlab(f'teacher recheck {out}/*')}",
                  highlight=False, markup=False)
    if failed:
        raise SystemExit(1)
