"""`routerlab hub --demo`: a real JupyterHub class on 127.0.0.1, to try a class on one machine.

Thin: the configuration and the students' workspaces are `routerlab.exercises.teacher.hub`, the
processes `routerlab.cli.hub_server`. A real class runs on a hub deployed from `deploy/`
(docs/exercises.md).
"""

from __future__ import annotations

import importlib.util
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
    from ...exercises.teacher import hub as classhub
    from .. import hub_server

    folder, proxy = _ready_to_start(directory, port)
    bundle = classhub.demo_course(folder, course)
    demo_hub = classhub.DemoHub(folder, port, students, classhub.demo_password(folder, password),
                                proxy, bundle)
    config = demo_hub.write(hub_server.free_port(), hub_server.free_port())
    typer.echo(f"Starting JupyterHub on 127.0.0.1:{port} (folder {folder})")
    command = [sys.executable, "-m", "jupyterhub", "-f", str(config)]
    code = hub_server.run_hub(command, dict(os.environ), demo_hub.log_file, demo_hub.url,
                              lambda: _say_ready(demo_hub, folder, bundle))
    if code:
        tail = demo_hub.log_file.read_text(errors="replace").splitlines()[-15:]
        typer.echo("\n".join(tail), err=True)
        _fail(f"JupyterHub stopped with code {code}; its log: {demo_hub.log_file}")
    typer.echo("Hub, proxy and every student's server stopped.")


def _ready_to_start(directory: Path, port: int) -> tuple[Path, Path]:
    """The demo's folder (resolved from the caller's folder) and the proxy to run, once
    JupyterHub and the proxy are installed, the folder can be the demo's and the port is free
    (in that order: a test of a refused folder never depends on what listens on 8000)."""
    from ...exercises.learner.workspace import caller_cwd
    from ...exercises.teacher import hub as classhub
    from .. import hub_server

    if importlib.util.find_spec("jupyterhub") is None:
        _fail(f"JupyterHub is not installed: {classhub.HUB_INSTALL}")
    proxy = classhub.find_proxy()
    if proxy is None:
        _fail(f"{classhub.PROXY} is not installed (it needs Node.js): {classhub.PROXY_INSTALL}")
    folder = directory.expanduser()
    folder = (folder if folder.is_absolute() else caller_cwd() / folder).resolve()
    classhub.check_demo_folder(folder)  # the folder first: a refusal of it asks no port
    if hub_server.answers(f"http://127.0.0.1:{port}"):
        _fail(f"a hub already answers on 127.0.0.1:{port}: stop it or choose --port")
    return folder, proxy


def _say_ready(demo_hub: DemoHub, folder: Path, bundle: Path) -> None:
    """What the teacher needs once the hub answers: where, who logs in, how to collect."""
    from ...exercises.teacher import hub as classhub
    from ...invocation import routerlab

    users = ", ".join(demo_hub.users)
    typer.echo(f"JupyterHub class running at {demo_hub.url}/")
    typer.echo(f"Log in as {users} or teacher (admin); password: {demo_hub.password}")
    typer.echo(f"Students' workspaces: {folder / 'home'}/<user>/{classhub.WORKSPACE} "
               f"(class workspaces of {bundle})")
    typer.echo("Collect: " + routerlab(f"teacher collect --hub {demo_hub.url} "
                                       f"--token-file {demo_hub.token_file} submitted"))
    typer.echo(f"Hub log: {demo_hub.log_file}. Stop with Ctrl-C.")
    sys.stdout.flush()


def _fail(message: str) -> NoReturn:
    from ...core import RouterLabError

    raise RouterLabError(message)
