"""`routerlab hub --demo`: a real JupyterHub class on 127.0.0.1, to try a class on one machine.

Thin: the checks before the start, the configuration and the students' workspaces are
`routerlab.exercises.teacher.hub` (one call: `ready_demo`), the processes
`routerlab.cli.hub_server`. A real class runs on a hub deployed from `deploy/`
(docs/exercises.md).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from ...exercises.teacher.hub import DemoHub


def register(app: typer.Typer) -> None:
    app.command(help="Start a demo JupyterHub class on 127.0.0.1: students student1..N and "
                     "teacher log in with one password; each student's JupyterLab opens their "
                     "class workspace. Ctrl-C stops everything.")(hub)


DemoOpt = Annotated[bool, typer.Option(
    "--demo", help="Run the demo hub (dummy logins, local servers). Required: a real "
                   "class runs on a hub deployed from deploy/.")]

PortOpt = Annotated[int, typer.Option("--port", min=1, max=65535,
                                      help="The hub's port on 127.0.0.1.")]

StudentsOpt = Annotated[int, typer.Option("--students", min=1, max=500,
                                          help="How many students: student1..N.")]

PasswordOpt = Annotated[str | None, typer.Option(
    "--password", help="The one password of every demo user (default: the one this "
                       "folder used before, else a new one, printed).")]

CourseOpt = Annotated[Path | None, typer.Option(
    "--course", metavar="BUNDLE",
    help="The course bundle (`teacher release`) students' workspaces are made from "
         "(default: this RouterLab's exercises, released into the demo's folder once).")
]

DirectoryOpt = Annotated[Path, typer.Option(
    "--dir", help="The demo's folder: hub database, secrets, students' homes, log. "
                  "Reusing it keeps the students' work.")]


def hub(
    demo: DemoOpt = False, port: PortOpt = 8000, students: StudentsOpt = 3,
    password: PasswordOpt = None, course: CourseOpt = None,
    directory: DirectoryOpt = Path("routerlab-hub"),
) -> None:
    if not demo:
        _fail("only the demo hub runs from here (`routerlab hub --demo`); a real class runs on "
              "a JupyterHub deployed from deploy/ (see docs/exercises.md)")
    from ...exercises.teacher.hub import ready_demo
    from .. import hub_server

    demo_hub = ready_demo(directory, port, students, password, course,
                          answers=hub_server.answers, free_port=hub_server.free_port)
    typer.echo(f"Starting JupyterHub on 127.0.0.1:{port} (folder {demo_hub.folder})")
    command = [sys.executable, "-m", "jupyterhub", "-f", str(demo_hub.config_file)]
    code = hub_server.run_hub(command, dict(os.environ), demo_hub.log_file, demo_hub.url,
                              lambda: _say_ready(demo_hub))
    if code:
        tail = demo_hub.log_file.read_text(errors="replace").splitlines()[-15:]
        typer.echo("\n".join(tail), err=True)
        _fail(f"JupyterHub stopped with code {code}; its log: {demo_hub.log_file}")
    typer.echo("Hub, proxy and every student's server stopped.")


def _say_ready(demo_hub: DemoHub) -> None:
    """What the teacher needs once the hub answers: where, who logs in, how to collect."""
    from ...exercises.teacher import hub as classhub
    from ...invocation import routerlab

    users = ", ".join(demo_hub.users)
    typer.echo(f"JupyterHub class running at {demo_hub.url}/")
    typer.echo(f"Log in as {users} or teacher (admin); password: {demo_hub.password}")
    typer.echo(f"Students' workspaces: {demo_hub.folder / 'home'}/<user>/{classhub.WORKSPACE} "
               f"(class workspaces of {demo_hub.course})")
    typer.echo("Collect: " + routerlab(f"teacher collect --hub {demo_hub.url} "
                                       f"--token-file {demo_hub.token_file} submitted"))
    typer.echo(f"Hub log: {demo_hub.log_file}. Stop with Ctrl-C.")
    sys.stdout.flush()


def _fail(message: str) -> NoReturn:
    from ...core import RouterLabError

    raise RouterLabError(message)
