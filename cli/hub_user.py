"""A student's server on a JupyterHub: `python -m routerlab.cli.hub_user [singleuser args]`.

JupyterHub's spawner starts this instead of `jupyterhub-singleuser` (the demo hub and the
configurations in `deploy/` alike). It makes the student's class workspace in their home on the
first spawn (`routerlab.exercises.teacher.hub.prepare_workspace`), from the course bundle named by
`$ROUTERLAB_COURSE` (a self-study workspace without it), then replaces itself with JupyterHub's
single-user JupyterLab serving that workspace: the process the hub watches and stops is the server
itself. The server's settings are those of `routerlab lab` (no news pop-up); hidden files are
readable through the contents API so that `teacher collect` can copy the progress file.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    from ..core import RouterLabError
    from ..exercises.teacher.hub import COURSE_ENV, prepare_workspace
    from .lab_server import app_settings

    student = os.environ.get("JUPYTERHUB_USER", "")
    home = Path(os.environ.get("HOME") or Path.cwd())
    course = os.environ.get(COURSE_ENV)
    try:
        workspace = prepare_workspace(home, student, Path(course) if course else None)
    except RouterLabError as error:
        sys.exit(f"routerlab: {error}")
    settings = app_settings(workspace.root / ".routerlab" / "jupyterlab-settings")
    command = [sys.executable, "-m", "jupyterhub.singleuser",
               f"--ServerApp.root_dir={workspace.root}",
               f"--LabApp.app_settings_dir={settings}",
               "--ContentsManager.allow_hidden=True", *argv]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in argv:
        command.append("--allow-root")
    sys.stdout.flush()
    os.execv(sys.executable, command)


if __name__ == "__main__":
    main(sys.argv[1:])
