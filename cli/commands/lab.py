"""`routerlab lab`: JupyterLab on the learner's own copy of the guided notebooks.

The notebooks are served from the learner's exercise workspace (`<workspace>/notebooks/`, kept
up to date by `routerlab.exercises.learner.lab_notebooks`, with the docs they link to in
`<workspace>/docs/`), never from the checkout: saving a notebook
must not dirty the repository, and the notebooks' checkpoints find the workspace (its marker is
above the notebook's folder), so the terminal's `routerlab exercises` and the notebooks share
one progress file. The workspace is `--dir`, else the one around the current folder, else
`~/routerlab-exercises` (created on first use, as `routerlab exercises init` would): one call,
`routerlab.exercises.learner.lab_notebooks.lab_workspace`.

The server itself (`routerlab.cli.lab_server`) listens on 127.0.0.1 only, takes its token
from the environment and opens `00-welcome` without JupyterLab's news pop-up. Nothing heavy is
imported until the command runs: JupyterLab is a child process of the same Python.
"""

import importlib.util
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

INSTALL_HINT = "JupyterLab is not installed: pip install 'routerlab[notebooks]'"


def register(app: typer.Typer) -> None:
    app.command(help="Start JupyterLab on your copy of the guided notebooks "
                     "(in your exercise workspace; 127.0.0.1, with a token).")(lab)


DirectoryOpt = Annotated[Path | None, typer.Option(
    "--dir", metavar="DIR",
    help="Your workspace (created if the folder is new or empty). Default: the workspace "
         "around the current folder, else ~/routerlab-exercises.",
)]

PortOpt = Annotated[int, typer.Option(
    "--port", min=0, max=65535, help="Port to listen on (0: pick a free one).")]

BrowserOpt = Annotated[bool | None, typer.Option(
    "--browser/--no-browser", help="Open a browser (default: only when a display is available)."
)]

DryRunOpt = Annotated[bool, typer.Option(
    "--dry-run", help="Print the URL and the command, start nothing (nothing is copied).")
]

NoStartOpt = Annotated[bool, typer.Option(
    "--no-start", help="Bring the workspace's notebooks and docs up to date, then stop "
                       "(starts no JupyterLab, so it needs none).")]


def lab(
    directory: DirectoryOpt = None, port: PortOpt = 0, browser: BrowserOpt = None,
    dry_run: DryRunOpt = False, no_start: NoStartOpt = False,
) -> None:
    import secrets  # here, not at the top: `routerlab --help` imports this module

    from ...exercises.learner.lab_notebooks import FIRST, NOTEBOOK_DIR, lab_workspace
    from .. import lab_server

    # a --dir that cannot be one is refused first, then a missing JupyterLab, then it is made
    chosen = lab_workspace(directory, dry_run=dry_run,
                           before_changes=None if no_start else _require_jupyterlab)
    port = port or _free_port()
    token = secrets.token_hex(24)
    open_path = f"{NOTEBOOK_DIR}/{FIRST}"
    settings = chosen.root / ".routerlab" / "jupyterlab-settings"
    open_browser = _has_display() if browser is None else browser
    command = lab_server.jupyterlab_command(chosen.root, port, open_path, open_browser, settings)
    typer.echo(f"{chosen.how}: {chosen.root}")
    if chosen.synced is not None and chosen.source is not None:
        for line in chosen.synced.lines():
            typer.echo(line)
        if no_start:
            typer.echo(f"Notebooks and docs from {chosen.source.parent}; start JupyterLab on "
                       "them with the same command without --no-start.")
            return
        lab_server.app_settings(settings)
    typer.echo(f"Open: http://127.0.0.1:{port}/lab/tree/{open_path}?token={token}")
    if dry_run:
        typer.echo("Command: " + " ".join(command) + "  (token in $JUPYTER_TOKEN)")
        return
    typer.echo("Stop with Ctrl-C.")
    sys.stdout.flush()
    code = lab_server.run(command, lab_server.server_env(token))
    if code != 0:
        _fail(f"JupyterLab exited with code {code}")


def _require_jupyterlab() -> None:
    if importlib.util.find_spec("jupyterlab") is None:
        _fail(INSTALL_HINT)


def _has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    import os

    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _fail(message: str) -> NoReturn:
    from ...core import RouterLabError

    raise RouterLabError(message)
