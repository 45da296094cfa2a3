"""`routerlab teacher collect --hub URL OUT`: the students' workspaces, off a JupyterHub.

Thin: the work is `routerlab.exercises.teacher.collect`. Registered under `teacher` by `teacher.py`.
"""

from __future__ import annotations

import typer

from ..options import Plain
from .teacher_options import (
    CollectCourse,
    HubOut,
    HubPath,
    HubStudents,
    HubUrl,
    TimeLimit,
    TokenFile,
)


def register(teacher: typer.Typer) -> None:
    teacher.command()(collect)


def collect(out: HubOut, hub_url: HubUrl, token_file: TokenFile = None,
            student: HubStudents = None, path: HubPath = "", time_limit: TimeLimit = 60,
            course: CollectCourse = None, plain: Plain = False) -> None:
    """Copy every student's workspace from a JupyterHub through its REST API (an admin token;
    stopped servers are started for the copy and stopped again)."""
    from ...exercises.teacher.collect import MANIFEST, Hub, read_token
    from ...exercises.teacher.collect import collect as run_collect
    from ...invocation import routerlab
    from ..render import make_console
    from .teacher_render import collect_reporter

    console = make_console(plain)
    hub = Hub(hub_url, read_token(token_file))
    done = run_collect(hub, out, student, path, collect_reporter(console), time_limit * 60.0,
                       course)
    failed = [d.student for d in done if d.problem]
    console.print(f"{len(done) - len(failed)}/{len(done)} students collected into {out} "
                  f"(manifest {out / MANIFEST}); next: {routerlab(f'teacher recheck {out}/*')}",
                  highlight=False, markup=False)
    if failed:
        raise SystemExit(1)
